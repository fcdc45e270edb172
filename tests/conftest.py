"""Shared fixtures: where the real data lies, and a real HTTP server on loopback."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.http_site import Site
from tests.support.manifest_schema import every_dump_validated

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PINAX_SHARED", ROOT.parent / "shared")).resolve()
LOOPBACK = "127.0.0.1/32"

# The tests' sites run on loopback, which Pinax refuses by default; allow it as an operator
# would. Tests of that refusal build their policy without this allowance.
os.environ.setdefault("PINAX_ALLOW_PRIVATE", LOOPBACK)


def shared_path(*parts: str) -> Path:
    """A path under ../shared (or $PINAX_SHARED); skip the test, saying why, when absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"real data not found at {path} (set PINAX_SHARED to the shared folder: the "
            "corpora, fixtures and published files the tests read)"
        )
    return path


@pytest.fixture(scope="session", autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep every test (and the commands it runs) out of the user's cache folder, where the
    CLI keeps page caches and on-disk indexes."""
    saved = os.environ.get("PINAX_CACHE_DIR")
    os.environ["PINAX_CACHE_DIR"] = str(tmp_path_factory.mktemp("pinax-cache"))
    yield
    if saved is None:
        os.environ.pop("PINAX_CACHE_DIR", None)
    else:
        os.environ["PINAX_CACHE_DIR"] = saved


@pytest.fixture(scope="session", autouse=True)
def built_manifests_follow_the_schema() -> Iterator[None]:
    """Every manifest a test builds (`pinax build`, the build helpers, a docs folder) is
    checked against docs/manifest.schema.json as it is written."""
    with every_dump_validated():
        yield


@pytest.fixture
def shared() -> Path:
    return shared_path()


@pytest.fixture
def manifests_dir() -> Path:
    return shared_path("corpora", "manifests")


@pytest.fixture
def site() -> Iterator[Site]:
    """A real HTTP server on 127.0.0.1 that serves whatever routes the test adds."""
    with Site() as running:
        yield running


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# What a run skipped, and how to run it: one line at the end (issue 38) ---------------------

_HOW = (
    ("PINAX_SHARED", "need the shared data", "set PINAX_SHARED=/path/to/shared"),
    ("the Node clients are installed by", "need the Node clients", "run (cd tests/js && npm ci)"),
)


def skipped_summary(reasons: list[str]) -> str | None:
    """`pinax: 12 tests skipped: 9 need the shared data (set PINAX_SHARED=...), ...`, or
    None when nothing was skipped."""
    if not reasons:
        return None
    counts: dict[str, int] = {}
    for reason in reasons:
        kind = next((f"{what} ({how})" for key, what, how in _HOW if key in reason), "other")
        counts[kind] = counts.get(kind, 0) + 1
    parts = [f"{n} {kind}" for kind, n in counts.items() if kind != "other"]
    if "other" in counts:
        parts.append(f"{counts['other']} for other reasons (pytest -rs lists them)")
    total = len(reasons)
    return f"pinax: {total} test{'s' * (total != 1)} skipped: " + "; ".join(parts)


def pytest_unconfigure(config: pytest.Config) -> None:
    """The line comes last, after pytest's own summary (a terminal summary hook would print
    it above the list of skips)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    reasons = []
    for report in reporter.stats.get("skipped", []):
        longrepr = getattr(report, "longrepr", None)
        reasons.append(str(longrepr[2]) if isinstance(longrepr, tuple) else str(longrepr))
    line = skipped_summary(reasons)
    if line is not None:
        reporter.write_line(line)
