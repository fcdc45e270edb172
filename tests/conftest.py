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
        pytest.skip(f"real data not found at {path} (set PINAX_SHARED to the shared folder)")
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
