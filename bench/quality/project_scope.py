"""The fan-out with a project: all eight DEV manifests loaded, a project that depends on django
and djangorestframework, and searches that name no docs. The bar (issue 35): drf's and
django's DEV recall@10 at least 0.97x their recall alone.

    python -m bench.quality.project_scope

The outlined shared manifests (bench.harness.corpora), drf's given `packages:
["pypi:djangorestframework"]` (its docs name is not its package's); django's documents the
package of its own name. The project is a folder with a `requirements.txt` pinning both, read by
`pinax.project` as `--project` reads it. Every search goes through `Tools.search_pages`, alone
as together, so both sides are the answer a client gets. Also shown: the eight together with
no project (the fan-out the project's scope replaces).

Then the merge alone: with the project, the results are those of the two libraries loaded
alone, so what is left is how two libraries share ten places. `--quotas` shows what reserving
each library its best k places (k = 1..5, the rest by score) would give each side.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from bench.harness.corpora import CORPORA, NAMES, outlined_manifest, rows
from bench.harness.scoring import first_rank
from pinax.library import Library
from pinax.manifest import Manifest
from pinax.tools import Tools

SHARE = 0.97  # the bar: recall@10 with the project over recall@10 alone
PROJECT = ("django", "drf")
PACKAGES = {"drf": ("pypi:djangorestframework",)}
REQUIREMENTS = "django==5.2.19\ndjangorestframework==3.16.1\n"


def manifest(name: str) -> Manifest:
    """The outlined shared manifest, with the packages it documents where its name is not one."""
    found = outlined_manifest(name)
    packages = PACKAGES.get(name)
    return replace(found, packages=packages) if packages else found


def found(tools: Tools, name: str) -> list[bool]:
    """Whether each query of a DEV set finds an expected page in the first ten, through
    `search_pages` with no `docs`."""
    return [
        first_rank(
            [hit["url"] for hit in tools.search_pages(row["query"], limit=10)["results"]],
            row["expected"],
        )
        is not None
        for row in rows(name)
    ]


def quota_top(results: list[dict], quota: int, limit: int = 10) -> list[str]:
    """The URLs of the first `limit` when each library keeps its best `quota` places and
    the rest go by score (best first, as the scores order them)."""
    kept: list[dict] = []
    for name in PROJECT:
        kept += [hit for hit in results if hit["docs"] == name][:quota]
    rest = [hit for hit in results if hit not in kept][: max(0, limit - len(kept))]
    return [hit["url"] for hit in sorted(kept + rest, key=lambda h: -h["score"])[:limit]]


def quotas(both: Tools, alone: dict[str, int]) -> None:
    """Recall@10 of each library, as a share of its recall alone, under each quota."""
    print("\n| places kept per library | " + " | ".join(PROJECT) + " |")
    print("|---" * (len(PROJECT) + 1) + "|")
    answers = {
        (name, row["query"]): both.search_pages(row["query"], limit=40)["results"]
        for name in PROJECT
        for row in rows(name)
    }
    for quota in range(6):
        cells = []
        for name in PROJECT:
            hits = sum(
                first_rank(quota_top(answers[name, row["query"]], quota), row["expected"])
                is not None
                for row in rows(name)
            )
            cells.append(f"{hits / alone[name]:.3f}" if alone[name] else "-")
        print(f"| {quota or 'none'} | " + " | ".join(cells) + " |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quotas", action="store_true", help="the merge with reserved places")
    args = parser.parse_args(argv)
    if not (CORPORA / "outlines").is_dir():
        sys.exit(f"no outlines under {CORPORA}: set PINAX_SHARED")
    started = time.perf_counter()
    manifests = {name: manifest(name) for name in NAMES}
    everything = Library(list(manifests.values()))
    with tempfile.TemporaryDirectory() as scratch:
        (Path(scratch) / "requirements.txt").write_text(REQUIREMENTS, encoding="utf-8")
        with_project = Tools(everything)
        with_project.use_project_folders([scratch])
    scope = with_project.scope.to_dict() if with_project.scope else {}
    print(f"project scope: {scope}\n")
    no_project = Tools(everything)
    both = Tools(Library([manifests[n] for n in PROJECT]))  # what the scope leaves
    print(
        "| corpus | n | R@10 alone | R@10 eight, no project | R@10 the two loaded alone "
        "| R@10 eight + project | share | bar |"
    )
    print("|---" * 8 + "|")
    failures = []
    lost: list[str] = []
    found_alone: dict[str, int] = {}
    for name in PROJECT:
        alone = found(Tools(Library([manifests[name]])), name)
        found_alone[name] = sum(alone)
        scoped = found(with_project, name)
        recalls = [sum(f) / len(f) for f in (alone, found(no_project, name), found(both, name))]
        recalls.append(sum(scoped) / len(scoped))
        share = recalls[-1] / recalls[0] if recalls[0] else 1.0
        ok = share >= SHARE
        failures += [] if ok else [name]
        cells = " | ".join(f"{r:.3f}" for r in recalls)
        print(
            f"| {name} | {len(alone)} | {cells} | {share:.3f} | {'pass' if ok else 'FAIL'} |",
            flush=True,
        )
        queries = [row["query"] for row in rows(name)]
        lost += [f"{name}: {q!r}" for q, a, s in zip(queries, alone, scoped, strict=True) if a > s]
    print("\nfound alone, not with the project:" + "".join(f"\n  {q}" for q in lost or ["none"]))
    if args.quotas:
        quotas(both, found_alone)
    verdict = f"FAIL: {', '.join(failures)}" if failures else "every bar met"
    print(f"\n{verdict} ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
