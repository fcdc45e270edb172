"""What `--project DIR` adds to start-up: reading a project's dependencies.

    python -m bench.speed.project [--locked 300] [--installed 1000] [--runs 9]

A generated project of the issue's size: `uv.lock` and `package-lock.json` of `--locked`
packages each (entries of the shape uv and npm write: hashes, URLs, dependencies), a
`pyproject.toml` and a `package.json` declaring 40 of them, and a `node_modules` of
`--installed` packages (a tenth of them scoped), each with a package.json of a real one's
size. Figures, seconds:

- read: `read_project(DIR)` in this process, median (and slowest) of `--runs` runs after one
  warm-up (files in the page cache, as on a second start);
- first: the first of those runs, before the warm-up;
- import: `import pinax.project` in a fresh interpreter (what a server that never read a
  project does not pay), median of 5.

The issue's bar: under 0.3 s added to start-up (import + read).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BAR_SECONDS = 0.3
HASH = "sha256:" + "0123456789abcdef" * 4


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
            f'sdist = {{ url = "{url}.tar.gz", hash = "{HASH}", size = 52941 }}',
            "wheels = [",
            f'    {{ url = "{url}-py3-none-any.whl", hash = "{HASH}", size = 27593 }},',
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


def time_reads(root: Path, runs: int) -> tuple[float, list[float], int]:
    from pinax.project import read_project

    def once() -> tuple[float, int]:
        start = time.perf_counter()
        project = read_project(root)
        return time.perf_counter() - start, len(project.dependencies)

    first, count = once()
    once()  # warm-up
    return first, [once()[0] for _ in range(runs)], count


def time_import(runs: int = 5) -> list[float]:
    code = (
        "import time; s = time.perf_counter(); import pinax.project; print(time.perf_counter() - s)"
    )
    root = Path(__file__).resolve().parents[2]
    found = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root)
        found.append(float(out.stdout.strip()))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--locked", type=int, default=300)
    parser.add_argument("--installed", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pinax-bench-project-") as folder:
        root = Path(folder)
        make_project(root, args.locked, args.installed)
        first, reads, count = time_reads(root, args.runs)
    imports = time_import()
    read, load = statistics.median(reads), statistics.median(imports)
    print(f"project: {args.locked} locked (uv.lock, package-lock.json), {args.installed} installed")
    print(f"dependencies found: {count}")
    print(
        f"read:   median {read:.3f} s, slowest {max(reads):.3f} s ({args.runs} runs);"
        f" first {first:.3f} s"
    )
    print(f"import: median {load:.3f} s (pinax.project in a fresh interpreter)")
    verdict = "meets" if read + load < BAR_SECONDS else "misses"
    print(f"added to start-up: {read + load:.3f} s; {verdict} the {BAR_SECONDS} s bar")


if __name__ == "__main__":
    main()
