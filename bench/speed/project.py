"""What `--project DIR` adds to start-up: reading a project's dependencies.

    python -m bench.speed.project [--locked 300] [--installed 1000] [--runs 9]

A generated project of the issue's size: `uv.lock` and `package-lock.json` of `--locked`
packages each (entries of the shape and weight uv and npm write: hashes, URLs, a wheel per
platform for one package in five, dependencies), a
`pyproject.toml` and a `package.json` declaring 40 of them, and a `node_modules` of
`--installed` packages (a tenth of them scoped), each with a package.json of a real one's
size. Figures, seconds:

- read: `read_project(DIR)` in this process, median (and slowest) of `--runs` runs after one
  warm-up (files in the page cache, as on a second start), wall and CPU time;
- first: the first of those runs, before the warm-up;
- scope: `scope_for` of the project over 140 loaded manifests (100 documenting its packages);
- import: `import pinax.project` in a fresh interpreter, bare and after `pinax.server` and
  `pinax.tools` (what the server has imported already), median of 5.

The issue's bar: under 0.3 s added to start-up (the read plus the import after the server's).
CPU time is given beside wall time because a loaded machine inflates only the wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

BAR_SECONDS = 0.3
HASH = "sha256:" + "0123456789abcdef" * 4
# A package with compiled parts publishes a wheel per platform: one in five here has 20, so
# the uv.lock weighs what real ones do (about 2.3 KB a package: 300 packages, 0.7 MB).
_PLATFORMS = (
    "manylinux_2_17_x86_64",
    "manylinux_2_17_aarch64",
    "musllinux_1_2_x86_64",
    "macosx_11_0_arm64",
    "win_amd64",
)
_BINARY = [f"cp3{minor}-cp3{minor}-{arch}" for minor in (10, 11, 12, 13) for arch in _PLATFORMS]
WHEEL_TAGS = ["py3-none-any", *_BINARY[:19]]


def make_project(root: Path, locked: int, installed: int) -> None:
    """The generated project (see the module docstring)."""
    names = [f"package-{i:04d}" for i in range(max(locked, installed))]
    uv = ["version = 1", "revision = 3", 'requires-python = ">=3.11"', ""]
    for i, name in enumerate(names[:locked]):
        version = f"{i % 7}.{i % 13}.{i % 5}"
        url = f"https://files.pythonhosted.org/packages/ab/cd/{name}-{version}"
        uv += [
            "[[package]]",
            f'name = "{name}"',
            f'version = "{version}"',
            'source = { registry = "https://pypi.org/simple" }',
            "dependencies = [",
            *(f'    {{ name = "{names[(i + k) % locked]}" }},' for k in (1, 2, 3)),
            "]",
            f'sdist = {{ url = "{url}.tar.gz", hash = "{HASH}", size = 52941, upload-time = '
            f'"2026-10-23T08:13:14.715Z" }}',
            "wheels = [",
            *(
                f'    {{ url = "{url}-{tag}.whl", hash = "{HASH}", size = 27593, upload-time = '
                f'"2026-10-23T08:13:13.394Z" }},'
                for tag in (WHEEL_TAGS if i % 5 == 0 else WHEEL_TAGS[:1])
            ),
            "]",
            "",
        ]
    (root / "uv.lock").write_text("\n".join(uv))
    packages: dict[str, object] = {"": {"name": "bench-app", "version": "1.0.0"}}
    for i, name in enumerate(names[:locked]):
        packages[f"node_modules/{name}"] = {
            "version": f"{i % 9}.{i % 11}.{i % 4}",
            "resolved": f"https://registry.npmjs.org/{name}/-/{name}-1.0.0.tgz",
            "integrity": "sha512-" + "A" * 86 + "==",
            "license": "MIT",
            "dependencies": {names[(i + 1) % locked]: "^1.0.0"},
        }
    lock = {"name": "bench-app", "lockfileVersion": 3, "requires": True, "packages": packages}
    (root / "package-lock.json").write_text(json.dumps(lock, indent=2))
    declared = names[:40]
    (root / "pyproject.toml").write_text(
        '[project]\nname = "bench-app"\nversion = "1.0"\nrequires-python = ">=3.11"\n'
        "dependencies = [" + ", ".join(f'"{n}>=1"' for n in declared) + "]\n"
    )
    (root / "package.json").write_text(
        json.dumps({"name": "bench-app", "dependencies": {n: "^1.0.0" for n in declared}})
    )
    for i, name in enumerate(names[:installed]):
        full = f"@scope-{i % 10}/{name}" if i % 10 == 0 else name
        folder = root / "node_modules" / full
        folder.mkdir(parents=True)
        (folder / "package.json").write_text(json.dumps(_package_json(full, i), indent=2))


def _package_json(name: str, i: int) -> dict[str, object]:
    """A package.json of the size real ones have (about 1.5 KB)."""
    return {
        "name": name,
        "version": f"{i % 9}.{i % 11}.{i % 4}",
        "description": f"The {name} package, generated for a benchmark of project reading.",
        "main": "./dist/index.js",
        "types": "./dist/index.d.ts",
        "exports": {".": {"import": "./dist/index.mjs", "require": "./dist/index.js"}},
        "files": ["dist", "README.md", "LICENSE"],
        "scripts": {"build": "tsc -p .", "test": "vitest run", "lint": "eslint ."},
        "repository": {"type": "git", "url": f"git+https://github.com/example/{name}.git"},
        "keywords": ["bench", "example", "generated", "project", "dependency"],
        "author": "Example Author <author@example.com>",
        "license": "MIT",
        "bugs": {"url": f"https://github.com/example/{name}/issues"},
        "homepage": f"https://github.com/example/{name}#readme",
        "dependencies": {f"dep-{k}": f"^{k}.0.0" for k in range(6)},
        "devDependencies": {f"dev-{k}": f"~{k}.1.0" for k in range(8)},
        "engines": {"node": ">=18"},
    }


class Timing(NamedTuple):
    """Medians of wall and CPU seconds: the machine's load inflates the first, not the second."""

    wall: float
    cpu: float
    slowest: float


def _timing(pairs: list[tuple[float, float]]) -> Timing:
    walls = [w for w, _ in pairs]
    return Timing(statistics.median(walls), statistics.median(c for _, c in pairs), max(walls))


def time_reads(root: Path, runs: int) -> tuple[Timing, float, int]:
    """`read_project` timed `runs` times after a warm-up; the first (cold) run's wall time."""
    from pinax.project import read_project

    def once() -> tuple[float, float, int]:
        wall, cpu = time.perf_counter(), time.process_time()
        project = read_project(root)
        done = time.perf_counter() - wall, time.process_time() - cpu
        return (*done, len(project.dependencies))

    first, _, count = once()
    once()  # warm-up
    pairs = [once()[:2] for _ in range(runs)]
    return _timing(pairs), first, count


def time_scope(root: Path) -> float:
    """`scope_for` of the project over 140 loaded manifests, 100 of them its packages'."""
    from pinax.project import Loaded, read_project, scope_for

    dependencies = list(read_project(root).dependencies.values())
    loaded = [Loaded(f"library-{i}", "1.0", None) for i in range(40)]
    loaded += [Loaded(f"package-{i:04d}", "1.0", None) for i in range(0, 300, 3)]
    runs = []
    for _ in range(5):
        start = time.perf_counter()
        scope_for(dependencies, loaded)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def time_import(after: str, runs: int = 5) -> Timing:
    """`import pinax.project` in a fresh interpreter, once `after` is imported (what the
    server has imported already is not added by the project)."""
    code = (
        f"import time; {after}; w, c = time.perf_counter(), time.process_time(); "
        "import pinax.project; print(time.perf_counter() - w, time.process_time() - c)"
    )
    root = Path(__file__).resolve().parents[2]
    pairs = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root)
        wall, cpu = out.stdout.split()
        pairs.append((float(wall), float(cpu)))
    return _timing(pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--locked", type=int, default=300)
    parser.add_argument("--installed", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pinax-bench-project-") as folder:
        root = Path(folder)
        make_project(root, args.locked, args.installed)
        sizes = {n: (root / n).stat().st_size for n in ("uv.lock", "package-lock.json")}
        read, first, count = time_reads(root, args.runs)
        scope_seconds = time_scope(root)
    alone = time_import("pass")
    served = time_import("import pinax.server, pinax.tools")
    print(
        f"project: {args.locked} locked (uv.lock {sizes['uv.lock']:,} B, package-lock.json "
        f"{sizes['package-lock.json']:,} B), {args.installed} installed; {count} dependencies"
    )
    print(
        f"read:   median {read.wall:.3f} s wall ({read.cpu:.3f} s CPU), slowest {read.slowest:.3f}"
        f" s, {args.runs} runs; first {first:.3f} s"
    )
    print(f"scope:  {scope_seconds:.4f} s (scope_for over 140 loaded manifests, median of 5)")
    print(f"import: {alone.wall:.3f} s wall ({alone.cpu:.3f} s CPU) in a bare interpreter;")
    print(f"        {served.wall:.3f} s wall ({served.cpu:.3f} s CPU) after the server's imports")
    added, added_cpu = read.wall + served.wall, read.cpu + served.cpu
    verdict = "meets" if added < BAR_SECONDS else "misses"
    print(
        f"added to start-up: {added:.3f} s wall ({added_cpu:.3f} s CPU); {verdict} the "
        f"{BAR_SECONDS} s bar; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    main()
