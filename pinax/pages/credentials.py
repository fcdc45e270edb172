"""Headers for a site behind a login: `--header 'ORIGIN=Name: value'`, `--headers-file`.

A header is sent only to the exact origin it was given for (scheme, host, port): the fetcher
asks `for_url` at every hop, so a redirect to another origin, or a link in an llms.txt to
another site, goes without it. `ORIGIN` is `https://host[:port]` or `http://host:port`; a
bare host means `https://host`. A value may name environment variables (`Bearer ${TOKEN}`),
so no secret need be typed on a command line or kept in a file.

The values are secrets: they appear in no log, error, manifest or cache key. A process given
credentials caches every page it reads under a namespace that is a hash of the whole set
(`namespace`), so what it read is served only to a process holding the same credentials,
never to one without.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from pinax.errors import InvalidArgs
from pinax.pages.policy import Origin, origin_of

_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]{0,100})\}")
_FORBIDDEN = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "accept-encoding", "upgrade"}
)
MAX_FILE_BYTES = 64 * 1024


class Credentials:
    """Extra request headers by exact origin. Never printed: its repr names origins only."""

    def __init__(self, headers: Mapping[Origin, Mapping[str, str]] | None = None) -> None:
        self._headers = {origin: dict(values) for origin, values in (headers or {}).items()}

    @classmethod
    def parse(cls, values: Iterable[str], environ: Mapping[str, str] = os.environ) -> Credentials:
        """From `ORIGIN=Name: value` strings (as `--header` takes them)."""
        found: dict[Origin, dict[str, str]] = {}
        for number, text in enumerate(values, 1):
            origin, name, value = _one(text, number, environ)
            found.setdefault(origin, {})[name] = value
        return cls(found)

    def __bool__(self) -> bool:
        return bool(self._headers)

    def __repr__(self) -> str:
        origins = ", ".join(f"{s}://{h}:{p}" for s, h, p in sorted(self._headers))
        return f"Credentials({origins})"

    def for_url(self, url: str) -> dict[str, str]:
        """The headers for `url`'s exact origin (none for any other)."""
        if not self._headers:
            return {}
        try:
            origin = origin_of(url)
        except ValueError:
            return {}
        return dict(self._headers.get(origin, {}))

    @property
    def namespace(self) -> str | None:
        """A page cache namespace for what is read with these credentials: a hash of the whole
        set, or None without any (the public cache). The whole set, not one origin's: a public
        page may redirect to a guarded origin and come back with what only a login shows."""
        if not self._headers:
            return None
        text = "\n".join(
            f"{scheme}://{host}:{port} {name.lower()}:{value}"
            for (scheme, host, port), values in sorted(self._headers.items())
            for name, value in sorted(values.items())
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _one(text: str, number: int, environ: Mapping[str, str]) -> tuple[Origin, str, str]:
    where = f"header {number}"  # never the text: it may hold the secret
    target, equals, header = text.partition("=")
    name, colon, value = header.partition(":")
    if not equals or not colon:
        raise InvalidArgs(
            f"{where}: expected ORIGIN=Name: value, e.g. "
            "docs.example.com=Authorization: Bearer ${TOKEN}"
        )
    target, name = target.strip(), name.strip()
    url = target if "://" in target else f"https://{target}"
    # The messages quote nothing the operator typed but a valid header name: a value
    # typed in the wrong place must not end up on a terminal or in a log.
    not_origin = f"{where}: the part before '=' is not an origin (https://host[:port], no path)"
    try:
        scheme, host, port = origin_of(url)
    except ValueError:
        raise InvalidArgs(not_origin) from None
    if scheme not in ("http", "https") or not host or url.rstrip("/").count("/") > 2:
        raise InvalidArgs(not_origin)
    if not _NAME.fullmatch(name):
        raise InvalidArgs(f"{where}: the part before ':' is not a header name")
    if name.lower() in _FORBIDDEN:
        raise InvalidArgs(f"{where}: {name} is a header Pinax sets itself")
    value = _expand(value.strip(), where, environ)
    if any(c in value for c in "\r\n\0"):
        raise InvalidArgs(f"{where}: the value of {name} holds a line break or NUL")
    return (scheme, host, port), name, value


def _expand(value: str, where: str, environ: Mapping[str, str]) -> str:
    def variable(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in environ:
            raise InvalidArgs(f"{where}: the environment variable {name} is not set")
        return environ[name]

    return _VARIABLE.sub(variable, value)


def read_headers_file(path: Path) -> list[str]:
    """The `ORIGIN=Name: value` lines of a headers file (blank lines and `#` comments
    skipped), refused when others may read it: it holds secrets."""
    from pinax.files import SpecialFile, read_regular

    try:
        mode = path.stat().st_mode
        if mode & (stat.S_IROTH | stat.S_IWOTH):
            raise InvalidArgs(
                f"--headers-file {path}: readable by every user of this machine; refused "
                f"(make it private: chmod 600 {path})"
            )
        text = read_regular(path, MAX_FILE_BYTES).decode("utf-8")
    except FileNotFoundError:
        raise InvalidArgs(f"--headers-file {path}: no such file") from None
    except (SpecialFile, UnicodeDecodeError) as exc:
        raise InvalidArgs(f"--headers-file {path}: {exc}") from None
    except OSError as exc:
        raise InvalidArgs(f"--headers-file {path}: cannot read: {exc.strerror or exc}") from None
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]
