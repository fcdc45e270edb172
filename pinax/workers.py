"""Worker processes for large builds: batches in, their analysis out, over pipes (a content
build's pages, a large manifest's page lines: see `JOBS`).

Plain subprocesses rather than `multiprocessing`: a spawned pool re-imports the caller's
main module (a script without a main guard would run again), and a forked one copies a
server's threads and locks. Each worker runs `python -P -m pinax.workers JOB`
with the parent's `pinax` first on its path, reads a pickled batch from its stdin and writes
the pickled result to its stdout (its own pipes: never the MCP channel of a stdio server).
One thread per worker sends a batch and waits for its result, so the caller keeps reading
its input meanwhile and results come back in the order batches were sent to each worker.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import struct
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO

from pinax.errors import InternalError

_LENGTH = struct.Struct("<Q")
COMMAND = ("-P", "-m", "pinax.workers")  # after the interpreter, then the job
# What a worker does with each item (the function's arguments), by name: (module, function).
JOBS = {
    "content": ("pinax.search.content_build", "analyse"),  # a content build's batch of pages
    "manifest": ("pinax.manifest.columns", "parse_lines"),  # a large manifest's page lines
}


def worth_starting(most: int) -> int:
    """How many worker processes are worth starting here: at most `most`, none on one CPU
    (the workers would only take turns with the caller)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return min(most, cpus) if cpus > 1 else 0


class WorkerError(InternalError):
    """Raised when a worker process could not be started or stopped answering; the build
    goes on in the calling process."""


class Workers:
    """`count` worker processes doing one of `JOBS` (by name) with each item (the job's
    arguments)."""

    def __init__(self, count: int, job: str = "content") -> None:
        root = str(Path(__file__).resolve().parent.parent)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
        self._processes: list[subprocess.Popen[bytes]] = []
        try:
            for _ in range(count):
                self._processes.append(
                    subprocess.Popen(
                        [sys.executable, *COMMAND, job],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        env=env,
                    )
                )
        except OSError as exc:
            self.close()
            raise WorkerError(f"cannot start a worker: {exc}") from None
        self._threads = [ThreadPoolExecutor(1) for _ in self._processes]
        self._next = 0

    def submit(self, item: Any) -> Future[Any]:
        """The worker's answer for `item`, from the workers in turn."""
        at = self._next % len(self._processes)
        self._next += 1
        return self._threads[at].submit(_ask, self._processes[at], item)

    def close(self) -> None:
        for thread in getattr(self, "_threads", []):
            thread.shutdown(wait=True, cancel_futures=True)
        for process in self._processes:
            if process.stdin is not None:
                with contextlib.suppress(OSError):
                    process.stdin.close()
        for process in self._processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
        self._processes = []


def _ask(process: subprocess.Popen[bytes], item: Any) -> Any:
    assert process.stdin is not None and process.stdout is not None
    try:
        _send(process.stdin, item)
        ok, answer = _receive(process.stdout)
    except (OSError, EOFError, pickle.UnpicklingError) as exc:
        raise WorkerError(f"a worker stopped answering: {exc}") from None
    if not ok:
        raise answer
    return answer


def _send(out: BinaryIO, item: Any) -> None:
    data = pickle.dumps(item, protocol=5)
    out.write(_LENGTH.pack(len(data)))
    out.write(data)
    out.flush()


def _receive(source: BinaryIO) -> Any:
    head = source.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        raise EOFError("no answer")
    (length,) = _LENGTH.unpack(head)
    data = source.read(length)
    if len(data) < length:
        raise EOFError("a short answer")
    return pickle.loads(data)


def serve(work: Callable[[Any], Any]) -> None:
    """A worker's loop: items from stdin, `(ok, answer or exception)` to stdout, until EOF."""
    source, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # anything printed goes to the log, not into the answers
    while True:
        try:
            item = _receive(source)
        except EOFError:
            return
        try:
            answer: tuple[bool, Any] = (True, work(item))
        except Exception as exc:  # handed back, raised in the caller
            answer = (False, exc)
        _send(out, answer)


if __name__ == "__main__":
    import importlib

    module, name = JOBS[sys.argv[1] if len(sys.argv) > 1 else "content"]
    job = getattr(importlib.import_module(module), name)
    serve(lambda work: job(*work))
