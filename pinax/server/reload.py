"""Live manifests: reload when their files change, swap the whole library at once.

The watched paths are polled (a stat per file, a listing per folder): no extra dependency,
and cheap for the handful of files a server loads; a docs folder is watched through `sources`, a
look at its files' stat (in a worker thread). A change rebuilds everything in a worker
thread, search indexes included, and only a complete new `Tools` replaces the old one, so a
call sees either the old docs or the new, never a mix. A new file that does not load leaves
the old docs in place and says why in the log and in list_docs (`stale`: since when, and the
error); the next change tries again.

A folder of manifests is often swapped whole: a symlink flipped to a new folder. The opener
is given the folders' real paths, resolved once per load, so one load reads one folder, never
half of each; and each load is named: its `generation`, a short hash of the manifest files it
read (their real paths, sizes and times), is what /ready shows.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Hashable, Iterable
from pathlib import Path

import anyio

from pinax.errors import PinaxError
from pinax.manifest import companion_path, manifest_files
from pinax.tools import Tools

log = logging.getLogger("pinax.reload")

Snapshot = tuple[tuple[str, int, int, int], ...]


def snapshot(docs: Iterable[Path], extra: Iterable[Path] = ()) -> Snapshot:
    """What the files look like now (each manifest's, its content file's beside it, and
    `extra` files): a change to any of them changes this."""
    seen = []
    manifests = manifest_files(docs)
    for path in [*manifests, *(companion_path(m) for m in manifests), *extra]:
        try:
            stat = os.stat(path)
        except OSError:
            seen.append((str(path), -1, -1, -1))
            continue
        seen.append((str(path), stat.st_mtime_ns, stat.st_size, stat.st_ino))
    return tuple(seen)


def resolved(paths: Iterable[Path]) -> list[Path]:
    """`paths` with every symlink resolved now."""
    return [Path(os.path.realpath(path)) for path in paths]


def one_generation(docs: list[str], tries: int = 10) -> list[str]:
    """The `--docs` arguments as the real files to read now (URLs as given): a folder stands
    for the real paths of its manifests. Resolved twice, until both agree, so a symlink
    flipped meanwhile (the folder itself, or Kubernetes' `..data` behind each file of a
    ConfigMap volume) cannot give half the files of each generation."""
    previous: list[str] | None = None
    for _ in range(tries):
        now: list[str] = []
        for arg in docs:
            if "://" in arg:
                now.append(arg)
                continue
            path = Path(os.path.realpath(arg))
            files = manifest_files([path]) if path.is_dir() else []
            now += [os.path.realpath(f) for f in files] or [str(path)]
        if now == previous:
            return now
        previous = now
    return previous or []


def generation(tools: Tools) -> str:
    """A short name for the manifests `tools` loaded: the same files, the same name."""
    digest = hashlib.sha256()
    for docs in sorted(tools.library.all(), key=lambda d: d.name):
        digest.update(f"{docs.name}\0{docs.source}\0".encode())
        try:
            stat = os.stat(docs.source)
            digest.update(f"{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
        except (OSError, ValueError):
            digest.update(f"{len(docs.pages)}\0".encode())  # built in memory (a docs folder)
    return digest.hexdigest()[:12]


class LiveTools:
    """The current `Tools`, replaced whole when the watched manifests change."""

    def __init__(
        self,
        open_tools: Callable[[], Tools],
        watched: list[Path],
        interval: float = 1.0,
        sources: Callable[[], Hashable] | None = None,
        after_reload: Callable[[], None] | None = None,
    ) -> None:
        self._open = open_tools
        self._after_reload = after_reload  # run in a worker thread once new docs are in
        self.watched = [path for path in watched if path.exists()]
        self.interval = interval
        self._sources = sources  # what else to watch (docs folders): a value that changes
        self._look_took = 0.0  # seconds the last look took
        self.tools = open_tools()
        self.generation = generation(self.tools)  # set with `tools`, in the same step
        self._seen = self._look()
        self.reloads = 0  # successful reloads since start-up

    def _look(self) -> Hashable:
        """The watched files as they are now: manifests, content files (those loaded, and
        those beside the manifests), and the docs folders' sources."""
        started = time.perf_counter()
        named = [d.content_path for d in self.tools.library.all() if d.content_path is not None]
        seen = (
            snapshot(self.watched, named),
            resolved(self.watched),  # a flipped symlink, even to the very same files
            self._sources() if self._sources else None,
        )
        self._look_took = time.perf_counter() - started
        return seen

    async def watch(self, on_reload: Callable[[], Awaitable[None]]) -> None:
        """Poll forever; after each successful reload, await `on_reload()`. A look that
        takes long (a docs folder of 10,000 files) spaces the looks out, so that looking
        never takes more than a fifth of a core."""
        while True:
            await anyio.sleep(max(self.interval, 4 * self._look_took))
            if await self.check():
                await on_reload()

    async def check(self) -> bool:
        """Reload if the files changed since the last look; True if new docs are in place."""
        now = await anyio.to_thread.run_sync(self._look)  # a big docs folder: many stats
        if now == self._seen:
            return False
        self._seen = now
        started = anyio.current_time()
        try:
            fresh, name = await anyio.to_thread.run_sync(self._build)
        except PinaxError as exc:
            log.warning("manifests changed but did not load; keeping the loaded ones: %s", exc)
            self._failed(exc.message, getattr(exc, "source", None))
            return False
        except Exception as exc:  # a bug, not a bad file: keep serving all the same
            log.error(
                "manifests changed but did not load (%s: %s); keeping the loaded ones",
                type(exc).__name__,
                exc,
            )
            self._failed(f"internal error ({type(exc).__name__}); see the server log", None)
            return False
        previous, self.tools, self.generation = self.tools, fresh, name
        self.reloads += 1
        # Page text is indexed after the swap: a big docs folder's takes seconds, and its
        # titles and headings are searchable meanwhile.
        threading.Thread(
            target=_load_content,
            args=(fresh, previous, self._after_reload),
            name="pinax-content",
            daemon=True,
        ).start()
        names = ", ".join(d["name"] for d in fresh.list_docs()["docs"]) or "none"
        took = anyio.current_time() - started
        log.info("manifests reloaded in %.2f s: %s (generation %s)", took, names, name)
        return True

    def _failed(self, error: str, source: str | None) -> None:
        """The loaded docs say (in list_docs) that a change to them did not load, since when
        and why, until a later change loads."""
        stale = self.tools.stale
        since = stale["since"] if stale else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.tools.stale = {"since": since, "error": error, "source": source}

    def _build(self) -> tuple[Tools, str]:
        tools = self._open()
        # The files are in the page cache already: just written, or read at start-up.
        tools.library.warm(read_files=False, contents=False)
        return tools, generation(tools)


def _load_content(fresh: Tools, previous: Tools, after: Callable[[], None] | None = None) -> None:
    """Index the new docs' page text; where a content file no longer loads, keep what the
    previous docs had (a reload loses nothing to a bad file). Then `after()`."""
    try:
        fresh.library.load_contents(previous.library)
        fresh.library.keep_content(previous.library)
    except Exception as exc:  # a bug, not a bad file: the docs serve without content
        log.error("content not indexed after a reload (%s: %s)", type(exc).__name__, exc)
    if after is not None:
        after()
