"""Time the suite may look at without depending on the machine's speed or load.

A linear-time check compares the CPU time of one input with that of the same input grown
`grow` times, in the same run (`assert_linear`): linear work grows about `grow` times,
quadratic work `grow`² times, whatever the machine, and CPU time (`time.process_time`, all
threads of this process) does not count the time other processes take the cores from us.

A check that something does not hang waits at most `HANG` seconds: far beyond any machine,
loaded or not, and only there to end a test that would otherwise never end.
"""

from __future__ import annotations

import time
from collections.abc import Callable

HANG = 120.0  # seconds: only a hang takes this long
_FLOOR = 1e-3  # CPU seconds below which a measure is noise (a floor for the small input)


def cpu_seconds(work: Callable[[], object], repeats: int = 1) -> float:
    """The least CPU time (this process, all threads) `work()` took over `repeats` runs."""
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        work()
        best = min(best, time.process_time() - started)
    return best


def assert_linear(
    work: Callable[[int], object], size: int, grow: int = 8, slack: float = 4.0
) -> None:
    """`work(n)` does about n units of work: the CPU time of `work(size * grow)` is at most
    `slack * grow` times that of `work(size)` (quadratic work would take `grow` times more)."""
    small = max(cpu_seconds(lambda: work(size), repeats=3), _FLOOR)
    large = cpu_seconds(lambda: work(size * grow))
    assert large <= slack * grow * small, (
        f"{grow}x the input took {large / small:.0f}x the CPU time "
        f"({small:.4f} s -> {large:.4f} s): not linear"
    )
