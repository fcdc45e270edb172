"""The benchmarks' memory figures: a build's peak counts the worker processes it starts, and a
process started by a larger one does not report that one's memory as its own peak."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.harness.memory import TreePeak, peak_mb, rss_mb

ROOT = Path(__file__).resolve().parents[2]
MB = 2**20

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads /proc (Linux)"
)


def test_the_peak_of_a_process_tree_counts_its_children() -> None:
    # Against the memory this process holds now, not its high-water mark: tests run before
    # this one in the same process may have raised that mark above what the tree reaches.
    own_before, resident = peak_mb(), rss_mb()
    with TreePeak(interval=0.01) as peak:
        subprocess.run(
            [sys.executable, "-c", "import time; b = bytearray(300 << 20); time.sleep(0.3)"],
            check=True,
        )
    assert peak.mb >= resident + 250  # the child's 300 MB, seen while it ran
    assert peak_mb() < own_before + 250  # not this process's own


def test_a_child_of_a_large_process_reports_its_own_peak() -> None:
    # The parent holds 400 MB when it starts the child, which then measures itself.
    code = (
        "import subprocess, sys; b = bytearray(400 << 20); b[::4096] = b'x' * len(b[::4096]);"
        "print(subprocess.run([sys.executable, '-c', 'from bench.harness.memory import peak_mb;"
        " print(peak_mb())'], capture_output=True, text=True, check=True, cwd=sys.argv[1]).stdout)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(ROOT)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert float(done.stdout.split()[-1]) < 200
