"""A time limit on one docutils parse: past it, the parse stops with `Overtime` raised in its
own thread.

Why: docutils is linear on prose, but some constructs cost far more per character than
others (a grid table of hundreds of columns reads at ~15 KB/s), and a page nobody vetted may
be made of them. Size and depth limits (see the package) bound the common cases; this
bounds the rest, so a hostile page costs at most `SECONDS`, then is read by the linear
fallback. The exception is delivered by CPython's `PyThreadState_SetAsyncExc` at the parse's
next Python instruction; `stop()` withdraws it under the same lock, so it can never land
after the parse has ended. An exception raised that way can be swallowed where it lands (a
weakref callback or a `__del__` prints it and goes on; so would any `except Exception` of
docutils): so it is a BaseException, and it is raised again every `AGAIN` seconds until the
parse has stopped.
"""

from __future__ import annotations

import ctypes
import threading
from types import TracebackType

SECONDS = 20.0  # a 155 KB Django reference page takes ~1 s; ten times that on a busy machine
AGAIN = 0.05  # seconds between raising it again, while the parse runs on


class Overtime(BaseException):
    """The parse ran past its time limit."""


class Deadline:
    """`with Deadline(seconds):` the block is stopped by `Overtime` after `seconds`."""

    def __init__(self, seconds: float = SECONDS) -> None:
        self.seconds = seconds
        self.thread = threading.get_ident()
        self.lock = threading.Lock()
        self.active = False
        self.fired = False
        self.timer = self._timer(seconds)

    def _timer(self, seconds: float) -> threading.Timer:
        timer = threading.Timer(seconds, self._fire)
        timer.daemon = True
        return timer

    def __enter__(self) -> Deadline:
        self.active = True
        self.timer.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()

    def stop(self) -> None:
        with self.lock:
            self.active = False
            self.timer.cancel()
            if self.fired:  # withdraw it if it has not landed yet
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.thread), None)

    def _fire(self) -> None:
        with self.lock:
            if not self.active:
                return
            self.fired = True
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(self.thread), ctypes.py_object(Overtime)
            )
            self.timer = self._timer(AGAIN)  # in case it was swallowed where it landed
            self.timer.start()
