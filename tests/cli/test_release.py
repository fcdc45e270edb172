"""The release shape: `python -m build` makes an sdist and a wheel, and the wheel, installed in
a fresh virtual environment with no C compiler on PATH, runs `pinax --version`, a search over
the shipped manifests, and serves them to a real MCP client over stdio: the compiled search
kernels travel inside the wheel, so using Pinax needs no compiler.

Slow (a build, a fresh venv, its dependencies from the package index), so it runs where
`CI=true` (as `.ci/run` sets it) or `PINAX_RELEASE_TEST=1`, and is skipped with that reason
elsewhere.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from pinax import __version__

ROOT = Path(__file__).resolve().parents[2]
COMPILERS = ("cc", "gcc", "c++", "g++", "clang", "clang++", "tcc", "x86_64-linux-gnu-gcc")

pytestmark = pytest.mark.skipif(
    os.environ.get("CI") != "true" and os.environ.get("PINAX_RELEASE_TEST") != "1",
    reason="builds and installs the wheel (minutes, the package index): set CI=true "
    "or PINAX_RELEASE_TEST=1 to run it",
)


def no_compiler_path(tmp: Path, venv: Path) -> str:
    """A PATH with the venv's bin and a folder of links to the plain tools pip may call,
    and no C compiler anywhere on it."""
    tools = tmp / "tools"
    tools.mkdir()
    for name in ("sh", "uname", "ls", "cat", "env", "git"):
        found = shutil.which(name)
        if found:
            (tools / name).symlink_to(found)
    path = f"{venv / 'bin'}{os.pathsep}{tools}"
    assert not any(shutil.which(c, path=path) for c in COMPILERS), path
    return path


def clean_env(path: str, home: Path) -> dict[str, str]:
    """No PYTHONPATH (the checkout must not be what runs), no compiler, a private cache."""
    keep = ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CONFIG_FILE", "LANG", "SSL_CERT_FILE")
    env = {k: v for k, v in os.environ.items() if k in keep}
    return {**env, "PATH": path, "HOME": str(home), "PINAX_CACHE_DIR": str(home / "cache")}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    tmp = tmp_path_factory.mktemp("release")
    dist = tmp / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    sdists = list(dist.glob(f"pinax-{__version__}.tar.gz"))
    wheels = list(dist.glob(f"pinax-{__version__}-*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, list(dist.iterdir())
    names = zipfile.ZipFile(wheels[0]).namelist()
    assert any(n.startswith("pinax/search/kernels.") and n.endswith((".so", ".pyd")) for n in names)
    assert f"pinax-{__version__}.dist-info/licenses/LICENSE" in names

    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    home = tmp / "home"
    home.mkdir()
    env = clean_env(no_compiler_path(tmp, venv), home)
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheels[0])],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp,
        timeout=900,
    )
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-2000:]
    return venv, env


def run(venv: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(venv / "bin" / "pinax"), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=venv.parent,
        timeout=300,
    )


def test_version_is_the_packages(installed: tuple[Path, dict[str, str]]) -> None:
    venv, env = installed
    done = run(venv, env, "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"pinax {__version__}"
    metadata = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import importlib.metadata as m, pinax.search.kernels"
            " as k; print(m.version('pinax')); print(k.__file__)",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=venv.parent,
        check=True,
    ).stdout.split()
    assert metadata[0] == __version__
    assert metadata[1].startswith(str(venv)), "the kernels came from elsewhere than the wheel"


def test_search_over_the_shipped_manifests(installed: tuple[Path, dict[str, str]]) -> None:
    venv, env = installed
    done = run(
        venv,
        env,
        "search",
        "--docs",
        str(ROOT / "manifests"),
        "--json",
        "--limit",
        "3",
        "create a payment intent",
    )
    assert done.returncode == 0, done.stderr
    urls = [hit["url"] for hit in json.loads(done.stdout)["results"]]
    assert urls[0] == "https://docs.stripe.com/api/payment_intents/create", urls


@pytest.mark.anyio
async def test_serves_the_shipped_manifests_to_an_mcp_client(
    installed: tuple[Path, dict[str, str]],
) -> None:
    venv, env = installed
    params = StdioServerParameters(
        command=str(venv / "bin" / "pinax"),
        args=["serve", "--docs", str(ROOT / "manifests")],
        env=env,
        cwd=str(venv.parent),
    )
    async with Client(params) as client:
        listed = await client.call_tool("list_docs", {})
        names = {d["name"] for d in listed.structured_content["docs"]}
        shipped = {p.stem for p in (ROOT / "manifests").glob("*.json")}
        assert names == shipped
        found = await client.call_tool("search_pages", {"query": "create a payment intent"})
        top = found.structured_content["results"][0]
        assert top["url"] == "https://docs.stripe.com/api/payment_intents/create"
