"""Ranking quality on the DEV retrieval sets: Pinax beside the plain rank-bm25 baseline.

    python -m bench.quality.eval_search             # every corpus, baseline and Pinax, side by side
    python -m bench.quality.eval_search --ablation  # and Pinax with each of its parts taken out
    python -m bench.quality.eval_search --corpora react,mdn

Sets: ../shared/corpora/eval/<name>.dev.jsonl (human-written link text -> linked page) and
<name>.dev.typo.jsonl (the same queries, about half with one edit per long word); see
../shared/corpora/README.md. The baseline is the README's: `rank_bm25.BM25Okapi` (k1=1.5,
b=0.75) over lower-case `[a-z0-9]+` tokens of URL path + title + section, query tokenized the
same way, ties in manifest order; it should reproduce the README's table. A query counts as
found at rank r if any of its expected URLs is at rank r.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from bench.harness.bm25 import page_tokens, plain_tokens
from bench.harness.corpora import BARRED, CORPORA, NAMES, rows
from bench.harness.scoring import Scores, first_rank, score
from pinax.library import Library
from pinax.search import index, indexing, tokens

RECALL_BAR, MRR_BAR, TYPO_BAR = 0.10, 0.08, 0.9


def baseline(name: str) -> Scores:
    from rank_bm25 import BM25Okapi

    # The manifest as written: loading would give title-less pages a title from their slug.
    pages = json.loads((CORPORA / "manifests" / f"{name}.json").read_text())["pages"]
    bm25 = BM25Okapi([page_tokens(p["url"], p["title"], p["section"]) for p in pages])
    urls = [p["url"] for p in pages]

    def rank_of(row: dict) -> int | None:
        scores = bm25.get_scores(plain_tokens(row["query"]))
        top = np.argsort(-scores, kind="stable")[:10]
        return first_rank([urls[i] for i in top], row["expected"])

    return score(rank_of, rows(name), rows(name, typo=True))


def pinax(name: str) -> Scores:
    library = Library.load([CORPORA / "manifests" / f"{name}.json"])

    def rank_of(row: dict) -> int | None:
        found = library.search(row["query"], 10)
        return first_rank([hit.url for hit in found.hits], row["expected"])

    return score(rank_of, rows(name), rows(name, typo=True))


# ---------------------------------------------------------------------------------------------
# Ablation: Pinax with one part taken out (module settings patched for the run)


@contextmanager
def patched(*changes: tuple[object, str, object]) -> Iterator[None]:
    saved = [(target, attr, getattr(target, attr)) for target, attr, _ in changes]
    for target, attr, value in changes:
        setattr(target, attr, value)
    tokens.stem.cache_clear()
    tokens.chunk_words.cache_clear()
    try:
        yield
    finally:
        for target, attr, value in saved:
            setattr(target, attr, value)
        tokens.stem.cache_clear()
        tokens.chunk_words.cache_clear()


class _NoStemmer:
    def stemWord(self, word: str) -> str:
        return word


class _LightStemmer:
    """English plural and verb forms only (Porter's steps 1a and 1b)."""

    def stemWord(self, w: str) -> str:
        if w.endswith("sses"):
            w = w[:-2]
        elif w.endswith("ies"):
            w = w[:-3] + "y"
        elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
        for suffix in ("ing", "ed"):
            stem = w[: -len(suffix)]
            if w.endswith(suffix) and len(stem) >= 3 and re.search("[aeiouy]", stem):
                if stem.endswith(("at", "bl", "iz")):
                    stem += "e"
                elif stem[-1] == stem[-2] and stem[-1] not in "lsz":
                    stem = stem[:-1]
                return stem
        return w


@functools.lru_cache(maxsize=1 << 16)
def _words_only(chunk: str) -> tuple[tuple[str, float], ...]:
    return tuple((w.lower(), 1.0) for w in re.findall(r"[^\W_]+", chunk))


def _fields(**weights: float) -> tuple[float, ...]:
    base = dict(zip(indexing.FIELDS, indexing.FIELD_WEIGHTS, strict=True))
    base.update(weights)
    return tuple(base[f] for f in indexing.FIELDS)


ABLATIONS: dict[str, Callable[[], object]] = {
    "Pinax (all parts)": lambda: patched(),
    "- stemming": lambda: patched(
        (tokens, "_STEMMER", _NoStemmer()), (tokens, "make_stemmer", _NoStemmer)
    ),
    "- Snowball, + plural/verb stems": lambda: patched(
        (tokens, "_STEMMER", _LightStemmer()), (tokens, "make_stemmer", _LightStemmer)
    ),
    "- identifier parts and joins": lambda: patched(
        (indexing, "split_chunk", _words_only), (index, "chunk_words", _words_only)
    ),
    "- field weights (all 1.0)": lambda: patched(
        (indexing, "FIELD_WEIGHTS", _fields(section=1.0, description=1.0, children=1.0))
    ),
    "- description field": lambda: patched((indexing, "FIELD_WEIGHTS", _fields(description=0.0))),
    "- children field": lambda: patched((indexing, "FIELD_WEIGHTS", _fields(children=0.0))),
    "- title phrases": lambda: patched((index, "PHRASE_WEIGHT", 0.0)),
    "- stop words": lambda: patched(
        (tokens, "STOP_WORDS", frozenset()),
        (indexing, "STOP_WORDS", frozenset()),
        (index, "STOP_WORDS", frozenset()),
    ),
    "- depth boost": lambda: patched((indexing, "DEPTH_PENALTY", 0.0)),
    "- exact-title boost": lambda: patched((index, "EXACT_TITLE_BOOST", 1.0)),
    "- typo correction": lambda: patched((index.Vocabulary, "correct", lambda self, w: None)),
}


def _delta(a: float, b: float) -> str:
    return f"{a:.3f} ({a - b:+.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", default=",".join(NAMES))
    parser.add_argument("--ablation", action="store_true", help="also run Pinax without each part")
    args = parser.parse_args()
    names = [n for n in args.corpora.split(",") if n]
    if not (CORPORA / "eval").is_dir():
        sys.exit(f"no DEV sets under {CORPORA}: set PINAX_SHARED")

    print("# DEV sets: plain rank-bm25 baseline vs Pinax (Pinax's change in brackets)\n")
    print(
        "| corpus | n | base R@1 | base R@10 | base MRR@10 | base typo R@10 "
        "| base typo-edited R@10 | Pinax R@1 | Pinax R@10 | Pinax MRR@10 | Pinax typo R@10 "
        "| typo-edited R@10 | bars |"
    )
    print("|---" * 13 + "|")
    started = time.perf_counter()
    failures = []
    for name in names:
        base, ours = baseline(name), pinax(name)
        bars = ""
        if name in BARRED:
            ok = (
                ours.r10 - base.r10 >= RECALL_BAR
                and ours.mrr - base.mrr >= MRR_BAR
                and ours.typo_r10 >= TYPO_BAR * ours.r10
            )
            bars = "pass" if ok else "FAIL"
            if not ok:
                failures.append(name)
        print(
            f"| {name} | {len(rows(name))} | {base.r1:.3f} | {base.r10:.3f} | {base.mrr:.3f} "
            f"| {base.typo_r10:.3f} | {base.typo_edited_r10:.3f} "
            f"| {_delta(ours.r1, base.r1)} | {_delta(ours.r10, base.r10)} "
            f"| {_delta(ours.mrr, base.mrr)} | {_delta(ours.typo_r10, base.typo_r10)} "
            f"| {_delta(ours.typo_edited_r10, base.typo_edited_r10)} | {bars} |",
            flush=True,
        )
    verdict = f"FAIL on {', '.join(failures)}" if failures else "all pass"
    print(
        f"\nbars on {', '.join(BARRED)}: R@10 +{RECALL_BAR}, MRR@10 +{MRR_BAR} over the baseline, "
        f"typo R@10 >= {TYPO_BAR} x clean R@10: {verdict} ({time.perf_counter() - started:.0f} s)"
    )
    if args.ablation:
        ablation(names)


def ablation(names: list[str]) -> None:
    print("\n# Ablation: Pinax without each part (R@10 / MRR@10 / typo R@10 per corpus)\n")
    print("| variant | " + " | ".join(names) + " | mean R@10 | mean MRR@10 |")
    print("|---" * (len(names) + 3) + "|")
    for label, make in ABLATIONS.items():
        with make():  # type: ignore[attr-defined]
            results = [pinax(name) for name in names]
        cells = [f"{r.r10:.3f} / {r.mrr:.3f} / {r.typo_r10:.3f}" for r in results]
        mean_r10 = sum(r.r10 for r in results) / len(results)
        mean_mrr = sum(r.mrr for r in results) / len(results)
        print(
            f"| {label} | " + " | ".join(cells) + f" | {mean_r10:.3f} | {mean_mrr:.3f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
