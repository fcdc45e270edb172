"""MCP over stdio without a worker thread per line.

The SDK's stdio transport reads and writes the standard streams through anyio's file
wrappers: every line read, every write and every flush is a hop to a worker thread and back,
a good part of a call's round trip. When the standard streams are pipes or sockets (as MCP
clients start servers), Pinax gives the SDK asyncio's own non-blocking pipe transports
instead. When stdin is a terminal (a person ran `pinax serve` by hand), lines are read when
the event loop sees the terminal readable, never in a blocking worker thread: Ctrl-C cancels
the wait at once (the SDK's thread held the process until the next Enter). Anything else (a
file) keeps the SDK's transport.

As the SDK does, the wire is moved off fd 0 and fd 1 while serving (fd 0 reads the null
device, fd 1 writes to stderr), so a stray `print()` cannot corrupt the stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

from mcp.server.stdio import stdio_server

LINE_LIMIT = 64 * 2**20  # longest message read (the SDK's own transport has no limit)


def _terminal(fd: int) -> bool:
    """Whether the descriptor is a terminal (a character device the loop can watch)."""
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _streamable(fd: int) -> bool:
    """Whether asyncio can watch the descriptor without blocking: a pipe or a socket."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@contextlib.contextmanager
def _claimed(fd: int, diversion: int) -> Iterator[int]:
    """A private duplicate of `fd` for the wire while `fd` itself points at `diversion`."""
    import fcntl  # POSIX only, as this transport is

    private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    os.dup2(diversion, fd)
    try:
        yield private
    finally:
        os.dup2(private, fd)
        os.close(private)


class _Lines:
    """The SDK reads stdin as `async for line in stdin`."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        try:
            line = await self._reader.readline()
        except ValueError:  # over LINE_LIMIT: dropped, and answered as a parse error
            return "<a message over the line limit was dropped>"
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class _TerminalLines:
    """Lines typed at a terminal, read when the loop sees it readable (cancellable).

    The descriptor stays blocking (the shell shares it); a read after readiness returns
    what the line discipline holds without waiting.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = bytearray()
        self._ended = False

    def __aiter__(self) -> _TerminalLines:
        return self

    async def _readable(self) -> None:
        loop = asyncio.get_running_loop()
        ready = loop.create_future()
        loop.add_reader(self._fd, lambda: ready.done() or ready.set_result(None))
        try:
            await ready
        finally:
            loop.remove_reader(self._fd)

    async def __anext__(self) -> str:
        start = 0
        while (end := self._buffer.find(b"\n", start)) < 0 and not self._ended:
            start = len(self._buffer)
            if start > LINE_LIMIT:
                self._buffer.clear()
                return "<a message over the line limit was dropped>"
            await self._readable()
            chunk = os.read(self._fd, 65536)
            self._ended = not chunk
            self._buffer += chunk
        if end < 0:
            if not self._buffer:
                raise StopAsyncIteration
            end = len(self._buffer) - 1
        line = bytes(self._buffer[: end + 1])
        del self._buffer[: end + 1]
        return line.decode("utf-8", errors="replace")


class _Output:
    """The SDK writes stdout with `await write(text)` and `await flush()`."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._writer.drain()


@contextlib.asynccontextmanager
async def _pipes(stdin_fd: int, stdout_fd: int) -> AsyncIterator[tuple[_Lines, _Output]]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    stdin = os.fdopen(stdin_fd, "rb", buffering=0, closefd=False)
    stdout = os.fdopen(stdout_fd, "wb", buffering=0, closefd=False)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), stdin
    )
    write_transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, stdout
    )
    writer = asyncio.StreamWriter(write_transport, protocol, reader, loop)
    try:
        yield _Lines(reader), _Output(writer)
    finally:
        read_transport.close()
        write_transport.close()


@contextlib.asynccontextmanager
async def stdio_streams() -> AsyncIterator[tuple[Any, Any]]:
    """(read stream, write stream) of MCP messages over the standard streams."""
    if sys.platform != "win32" and _terminal(0):
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            with _claimed(0, null) as stdin_fd:
                lines = _TerminalLines(stdin_fd)
                async with stdio_server(lines) as streams:  # type: ignore[arg-type]
                    yield streams
        finally:
            os.close(null)
        return
    if sys.platform == "win32" or not (_streamable(0) and _streamable(1)):
        async with stdio_server() as streams:
            yield streams
        return
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        with _claimed(0, null) as stdin_fd, _claimed(1, 2) as stdout_fd:
            async with (
                _pipes(stdin_fd, stdout_fd) as (lines, output),
                stdio_server(lines, output) as streams,  # type: ignore[arg-type]
            ):
                yield streams
    finally:
        os.close(null)


async def serve_stdio(server: Any) -> None:
    """Run an MCPServer over stdio (what `MCPServer.run()` does, on these streams)."""
    low = server._lowlevel_server
    async with stdio_streams() as (read_stream, write_stream):
        await low.run(read_stream, write_stream, low.create_initialization_options())
