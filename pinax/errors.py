"""The errors Pinax reports: one class per code a client can see.

Every failure a tool can meet becomes a `PinaxError` with one of five codes, so the CLI and
the MCP server turn it into the same `{"error": {"code", "message"}}` result. Rooms raise
subclasses of their own (search's `StoreError` and `ModelError`, the build workers'
`WorkerError`, all `InternalError`s), so one `except PinaxError` sees every failure Pinax
knows. Nothing here imports from the rest of the package.
"""

from __future__ import annotations

from typing import Any, ClassVar

CODES = ("not_found", "invalid_args", "fetch_failed", "cache_error", "internal")


class PinaxError(Exception):
    """A failure a caller can act on; `message` says how."""

    code: ClassVar[str] = "internal"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}


class NotFound(PinaxError):
    """No manifest, section or page by that name or URL (the message suggests the closest)."""

    code = "not_found"


class VersionNotLoaded(NotFound):
    """A version of a library that is not loaded: refused, naming the loaded ones (never
    answered from another version). The CLI exits 2 on it."""


class InvalidArgs(PinaxError):
    """A tool argument, option or input file the caller must change (says which and why)."""

    code = "invalid_args"


class FetchFailed(PinaxError):
    """A page or source that could not be fetched: refused by policy, unreachable, an HTTP
    error (`status`), too large or too slow."""

    code = "fetch_failed"

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status  # the HTTP status when the site answered with an error


class CacheError(PinaxError):
    """The page cache could not be read or written (its folder, permissions, disk)."""

    code = "cache_error"


class InternalError(PinaxError):
    """A failure inside Pinax the caller cannot fix; clients see no details of it."""

    code = "internal"


class ManifestError(InvalidArgs):
    """A manifest file that cannot be loaded; the message names the file and the place."""

    def __init__(self, source: str, place: str, problem: str) -> None:
        where = f"{source}: {place}" if place else source
        super().__init__(f"{where}: {problem}")
        self.source = source
        self.place = place
        self.problem = problem


def error_result(exc: BaseException) -> dict[str, Any]:
    """The result shape for any exception; unexpected ones hide their details as `internal`."""
    if isinstance(exc, PinaxError):
        return exc.to_dict()
    return InternalError(f"internal error ({type(exc).__name__}); see the server log").to_dict()
