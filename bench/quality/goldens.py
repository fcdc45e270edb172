"""Golden search results: what search answers today, recorded to compare a refactor byte for byte.

    python -m bench.quality.goldens --write DIR   # record into DIR (big: outside the repo)
    python -m bench.quality.goldens --check DIR   # record again and compare with DIR
    python -m bench.quality.goldens --check DIR --sets mdn,cpython

(`python bench/quality/goldens.py ...` as well: it imports only pinax and the stdlib.)

Sets (../shared/corpora, or $PINAX_SHARED): MDN with its outlines over its DEV and typo sets,
loaded through the on-disk index; all eight DEV manifests (outlined) together over every DEV
and typo query, no manifest named; react and django with their content files over their
questions and DEV sets; and a CPython-size manifest with symbols (540 pages, 11,000 symbols
drawn from the shared inventories) over the DEV queries and symbol names. Each set records
every hit (url, score, place, snippet, confidence), with explanations for part of the queries
and with the embedding and content weights varied for others; `index.json` holds the sha256
of every file of the on-disk indexes (search and content arrays) the sets built.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.harness.synth import cpython_size
from pinax import manifest as manifest_io
from pinax.library import Library
from pinax.manifest import Heading, Manifest

SHARED = Path(os.environ.get("PINAX_SHARED", Path(__file__).resolve().parents[3] / "shared"))
CORPORA = SHARED / "corpora"
NAMES = ("react", "fastapi", "kubernetes", "mdn", "django", "drf", "adk", "textual")
SETS = ("mdn", "together", "content", "cpython")
EXPLAINED = 150  # the first queries of each set are searched with explanations as well


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def queries(name: str, questions: bool = False) -> list[str]:
    """A manifest's DEV queries, then its typo queries (and its questions, if asked)."""
    found = [r["query"] for r in _rows(CORPORA / "eval" / f"{name}.dev.jsonl")]
    found += [r["query"] for r in _rows(CORPORA / "eval" / f"{name}.dev.typo.jsonl")]
    if questions:
        found += [r["query"] for r in _rows(CORPORA / "eval" / f"{name}.questions.jsonl")]
    return found


def outlined(name: str) -> Manifest:
    """The shared manifest with each page's shared outline (headings without anchors)."""
    manifest = manifest_io.load(CORPORA / "manifests" / f"{name}.json")
    outlines = {}
    for line in (CORPORA / "outlines" / f"{name}.jsonl").read_text().splitlines():
        entry = json.loads(line)
        outlines[entry["url"]] = tuple(
            Heading(level, text.strip())
            for level, text in entry["headings"]
            if text.strip() and 2 <= level <= 6
        )
    pages = tuple(replace(p, outline=outlines.get(p.url, ())) for p in manifest.pages)
    return replace(manifest, pages=pages)


def _found(library: Library, query: str, name: str | None, **options: Any) -> dict[str, Any]:
    found = library.search(query, 10, name, **options)
    return {
        "query": query,
        "options": options,
        "hits": [hit._asdict() for hit in found.hits],
        "also_matched": found.also_matched,
        "strategy": found.strategy,
        "pages_searched": found.pages_searched,
    }


def _searched(library: Library, batch: list[str], name: str | None = None) -> Iterator[dict]:
    """Every query as a client asks it; the first `EXPLAINED` explained, and a few with words
    only, meaning heavier, and content off and in full."""
    for at, query in enumerate(batch):
        yield _found(library, query, name)
        if at < EXPLAINED:
            yield _found(library, query, name, explain=True)
        if at % 7 == 0:
            yield _found(library, query, name, embedding_weight=0.0)
        if at % 11 == 0:
            yield _found(library, query, name, lexical_weight=0.3, embedding_weight=0.7)
        if at % 13 == 0:
            yield _found(library, query, name, content_weight=0.0, explain=True)
        if at % 17 == 0:
            yield _found(library, query, name, content_weight=1.0)


def _saved(manifests: list[Manifest], folder: Path) -> list[Path]:
    paths = []
    for manifest in manifests:
        path = folder / f"{manifest.name}.json"
        path.write_text(manifest_io.dump(manifest))
        paths.append(path)
    return paths


def record(sets: list[str], work: Path) -> dict[str, Callable[[], Iterator[dict]]]:
    """Each set's records, as a generator, built in `work` (manifests and on-disk indexes)."""

    def mdn() -> Iterator[dict]:
        paths = _saved([outlined("mdn")], work / "mdn")
        library = Library.load(paths, work / "mdn" / "index")
        yield from _searched(library, queries("mdn"))

    def together() -> Iterator[dict]:
        library = Library([outlined(name) for name in NAMES])
        for name in NAMES:
            yield from _searched(library, queries(name))

    def content() -> Iterator[dict]:
        paths = _saved([outlined("react"), outlined("django")], work / "content")
        given = {name: CORPORA / "content" / f"{name}.jsonl.gz" for name in ("react", "django")}
        library = Library.load(paths, work / "content" / "index", given)
        library.load_contents()
        for name in ("react", "django"):
            yield from _searched(library, queries(name, questions=True), name)
        for name in ("react", "django"):  # both, fanned out
            yield from _searched(library, queries(name, questions=True)[::5])

    def cpython() -> Iterator[dict]:
        manifest = cpython_size()
        paths = _saved([manifest], work / "cpython")
        library = Library.load(paths, work / "cpython" / "index")
        names = [s.name for p in manifest.pages for s in p.symbols]
        picked = random.Random(7).sample(names, 400)
        batch = picked[:200] + [n.rsplit(".", 1)[-1] for n in picked[200:]]
        for name in NAMES:
            batch += [r["query"] for r in _rows(CORPORA / "eval" / f"{name}.dev.jsonl")]
        yield from _searched(library, batch)

    runs = {"mdn": mdn, "together": together, "content": content, "cpython": cpython}
    return {name: run for name, run in runs.items() if name in sets}


def index_files(work: Path) -> dict[str, str]:
    """sha256 of every on-disk index file under `work`, by its path there."""
    return {
        str(path.relative_to(work)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(work.rglob("*"))
        if path.is_file() and path.suffix in (".pxi", ".pxc")  # (not the stat records)
    }


def write(out: Path, sets: list[str], work: Path) -> None:
    """Record `sets` into `out`, building in `work` (emptied first: an index records the
    path of its manifest, so both runs build in the same place)."""
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        for name, run in record(sets, work).items():
            (work / name).mkdir(exist_ok=True)
            with (out / f"{name}.jsonl").open("w") as lines:
                for entry in run():
                    lines.write(json.dumps(entry, sort_keys=True) + "\n")
            print(f"{name}: written", file=sys.stderr)
        (out / "index.json").write_text(json.dumps(index_files(work), indent=1, sort_keys=True))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check(golden: Path, sets: list[str], work: Path) -> int:
    """Record again and compare byte for byte; the first difference of each file shown."""
    with tempfile.TemporaryDirectory() as folder:
        fresh = Path(folder)
        write(fresh, sets, work)
        failures = 0
        names = [f"{name}.jsonl" for name in sets]
        if sets == list(SETS):
            names.append("index.json")
        for name in names:
            old, new = (golden / name).read_bytes(), (fresh / name).read_bytes()
            if old == new:
                print(f"{name}: identical ({len(old):,} bytes)")
                continue
            failures += 1
            for at, (a, b) in enumerate(zip(old.splitlines(), new.splitlines(), strict=False)):
                if a != b:
                    print(f"{name}: differs at line {at + 1}\n- {a[:400]!r}\n+ {b[:400]!r}")
                    break
            else:
                print(f"{name}: differs in length ({len(old)} vs {len(new)} bytes)")
        return failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", type=Path, metavar="DIR")
    action.add_argument("--check", type=Path, metavar="DIR")
    parser.add_argument("--sets", default=",".join(SETS), help=f"of {', '.join(SETS)}")
    parser.add_argument(
        "--work",
        type=Path,
        default=Path(tempfile.gettempdir()) / "pinax-goldens",
        help="where the indexes are built (emptied; the same for both runs)",
    )
    args = parser.parse_args()
    sets = [name for name in SETS if name in args.sets.split(",")]
    if args.write:
        write(args.write, sets, args.work)
    else:
        sys.exit(1 if check(args.check, sets, args.work) else 0)


if __name__ == "__main__":
    main()
