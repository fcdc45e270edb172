"""What to embed, and how, for search by meaning: variants of the page and query vectors,
measured in seconds against words alone, the way the shipped blend scores them.

    python -m bench.experiments.embedding_variants                     # every variant, pool 30
    python -m bench.experiments.embedding_variants --variants plain,context --pool 100

For each of the four barred DEV sets (outlines joined, as bench.quality.eval_semantic loads them),
the lexical candidates and their 0..1 scores come from the index itself (`plan`, `run`); each
variant embeds every page's texts exactly (float32: the shipped int8 codes round a little, so
`plain` lands within a query or two of eval_semantic) and scores a candidate as `fusion.blended`
does, by its best cosine, blended with the default weights. Reported per variant, on the mean
of the four:

- alone: recall@10 and MRR@10 of meaning alone over the lexical top `pool`, counting only
  queries whose page is in it (how well the embedding ranks by itself);
- blend: recall@10 and MRR@10 against words alone (embedding_weight 0), on the even rows, the
  odd rows and the typo set, and the recall@10 gain per set;
- best share: the recall@10 ceiling of any weighting of the two scores (each query's best
  embedding share of the blend, as in bench.experiments.tune_semantic).

The variants (VARIANTS): `plain` is what ships (a text's vector is the sum of its tokens'
vectors, made unit length: WordLlama's mean pooling). `sif` weights each token a / (a + p),
p its share of the manifest's title and heading tokens, on both sides; `common` removes the
first principal component of the text vectors from every vector; `context` embeds a heading
with its page's title (0.6 x the title's token sum + the heading's); `path` adds the URL
path's words as one more text of each page; `softmax` and `penalty` replace the best cosine
by a log-sum-exp (0.05) or by the best less 0.02 x log(the page's texts); `content-words`
drops the query's stop words.
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from bench.harness.corpora import BARRED, outlined_manifest, rows
from pinax.library import Library
from pinax.manifest import Manifest
from pinax.search.semantic import DIMS, model
from pinax.search.tokens import STOP_WORDS
from pinax.tools import EMBEDDING_WEIGHT, LEXICAL_WEIGHT

SHARES = np.linspace(0.0, 1.0, 21)
SIF_A, CONTEXT_TITLE, SOFT_TAU, PENALTY = 1e-3, 0.6, 0.05, 0.02


@dataclass
class Query:
    text: str  # as embedded: typos corrected as words corrected them
    expected: set[int]
    docs: list[int]  # the lexical ranking, best first
    scores: np.ndarray  # its 0..1 scores


@dataclass
class Corpus:
    name: str
    manifest: Manifest
    clean: list[Query]
    typo: list[Query]


class Embedder:
    """Token sums of texts (tokenized once each), optionally weighted per token."""

    def __init__(self) -> None:
        loaded = model()
        if loaded is None:
            raise SystemExit("the embedding model is not installed (pip install '.[semantic]')")
        self.tokenizer = loaded.tokenizer
        self.table = loaded.vectors.astype(np.float32)
        self._ids: dict[str, np.ndarray] = {}

    def ids(self, text: str) -> np.ndarray:
        found = self._ids.get(text)
        if found is None:
            encoded = self.tokenizer.encode(text, add_special_tokens=False).ids
            found = self._ids[text] = np.asarray(encoded, dtype=np.int64)
        return found

    def sums(self, texts: list[str], weights: np.ndarray | None = None) -> np.ndarray:
        out = np.zeros((len(texts), DIMS), dtype=np.float32)
        for at, text in enumerate(texts):
            ids = self.ids(text)
            if len(ids):
                rows = self.table[ids]
                out[at] = (rows if weights is None else rows * weights[ids, None]).sum(axis=0)
        return out


def unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def path_words(url: str) -> str:
    return " ".join(re.sub(r"[-_.]+", " ", part) for part in url.split("/")[3:]).strip()


@dataclass
class Space:
    """Every page's texts as unit vectors: page p's rows are vectors[start[p]:start[p + 1]],
    its title first."""

    start: np.ndarray
    vectors: np.ndarray
    query: Callable[[str], np.ndarray]

    def cosines(self, query: np.ndarray, pages: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """The cosines of the pages' texts, and where each page's run of them starts."""
        at = np.asarray(pages)
        first, counts = self.start[at], self.start[at + 1] - self.start[at]
        offsets = np.cumsum(counts) - counts
        rows = np.arange(counts.sum()) + np.repeat(first - offsets, counts)
        return self.vectors[rows] @ query, offsets


def space(corpus: Corpus, embedder: Embedder, variant: str) -> Space:
    """The page vectors and the query embedding of a variant (see the module docstring)."""
    pages = corpus.manifest.pages
    weights = None
    if variant == "sif":
        counts = np.zeros(len(embedder.table))
        for page in pages:
            for text in (page.title, *(h.title for h in page.outline)):
                np.add.at(counts, embedder.ids(text), 1)
        weights = (SIF_A / (SIF_A + counts / counts.sum())).astype(np.float32)
    texts, start = [], [0]
    for page in pages:
        texts += [page.title, *(h.title for h in page.outline)]
        if variant == "path":
            texts.append(path_words(page.url))
        start.append(len(texts))
    sums = embedder.sums(texts, weights)
    if variant == "context":
        for first, last in pairwise(start):
            sums[first + 1 : last] += CONTEXT_TITLE * sums[first]
    vectors = unit(sums)
    common = np.linalg.svd(vectors, full_matrices=False)[2][:1] if variant == "common" else None
    if common is not None:
        vectors = unit(vectors - (vectors @ common.T) @ common)

    def query(text: str) -> np.ndarray:
        if variant == "content-words":
            text = " ".join(w for w in text.split() if w.lower() not in STOP_WORDS) or text
        vector = unit(embedder.sums([text], weights))
        return unit(vector - (vector @ common.T) @ common)[0] if common is not None else vector[0]

    return Space(np.asarray(start), vectors, query)


def page_scores(variant: str, cosines: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """A page's embedding score from its texts' cosines."""
    best = np.maximum.reduceat(cosines, offsets)
    if variant == "softmax":
        counts = np.diff(np.append(offsets, len(cosines)))
        spread = np.exp((cosines - np.repeat(best, counts)) / SOFT_TAU)
        return best + SOFT_TAU * np.log(np.add.reduceat(spread, offsets))
    if variant == "penalty":
        return best - PENALTY * np.log(np.diff(np.append(offsets, len(cosines))))
    return best


def rank(docs: list[int], blend: np.ndarray, expected: set[int]) -> int | None:
    """The 1-based rank of the first expected page in the top 10 (ties by lexical rank, after
    rounding as `fusion.blended` does)."""
    order = np.lexsort((np.arange(len(blend)), -np.round(blend, 4)))[:10]
    return next((at + 1 for at, i in enumerate(order.tolist()) if docs[i] in expected), None)


def queries(library: Library, name: str, typo: bool, pool: int) -> list[Query]:
    docs = library.get(name)
    out = []
    for row in rows(name, typo=typo):
        plan = docs.index.plan(row["query"])
        ranked = docs.index.run(plan, pool)
        fixed = {t.word: t.matched_word for t in plan.terms if t.match == "fuzzy"}
        text = " ".join(fixed.get(w.lower()) or w for w in row["query"].split())
        found = (docs.pages.find(url) for url in row["expected"])
        expected = {page for page in found if page is not None}
        out.append(Query(text, expected, ranked.pages, np.asarray(ranked.scores)))
    return out


def measure(corpus: Corpus, sp: Space, variant: str) -> dict[str, np.ndarray]:
    """This variant's figures on one corpus (see the module docstring)."""
    weights = np.array([LEXICAL_WEIGHT, EMBEDDING_WEIGHT]) / (LEXICAL_WEIGHT + EMBEDDING_WEIGHT)
    found = {}
    for kind, set_ in (("clean", corpus.clean), ("typo", corpus.typo)):
        ranks = np.zeros((len(set_), 2))  # reciprocal ranks, 0 for a miss: words, blend
        alone, best = [], 0
        for at, query in enumerate(set_):
            if not query.docs:
                continue
            cosines, offsets = sp.cosines(sp.query(query.text), query.docs)
            meaning = np.clip(page_scores(variant, cosines, offsets), 0.0, 1.0)
            for column, blend in enumerate((query.scores, weights @ [query.scores, meaning])):
                ranks[at, column] = 1 / (rank(query.docs, blend, query.expected) or np.inf)
            if kind == "clean" and query.expected & set(query.docs):
                alone.append(1 / (rank(query.docs, meaning, query.expected) or np.inf))
            if kind == "clean":
                blends = [(1 - s) * query.scores + s * meaning for s in SHARES]
                best += any(rank(query.docs, b, query.expected) for b in blends)
        found[kind] = ranks
        if kind == "clean":
            found["alone"] = np.asarray(alone)
            found["best"] = np.asarray(best / len(set_) - np.mean(ranks[:, 0] > 0))
    return found


def summary(name: str, figures: list[dict[str, np.ndarray]]) -> str:
    """One table row: the mean of the corpora's figures."""

    def gains(ranks: np.ndarray) -> tuple[float, float]:
        return float(np.mean(ranks[:, 1] > 0) - np.mean(ranks[:, 0] > 0)), float(
            np.mean(ranks[:, 1] - ranks[:, 0])
        )

    cells = [
        np.mean([[np.mean(f["alone"] > 0), np.mean(f["alone"])] for f in figures], axis=0),
        np.mean([gains(f["clean"][0::2]) for f in figures], axis=0),
        np.mean([gains(f["clean"][1::2]) for f in figures], axis=0),
    ]
    typo = np.mean([gains(f["typo"])[0] for f in figures])
    each = " ".join(f"{gains(f['clean'])[0]:+.3f}" for f in figures)
    best = np.mean([f["best"] for f in figures])
    text = " | ".join(f"{a:+.4f} / {b:+.4f}" for a, b in cells[1:])
    return (
        f"| {name} | {cells[0][0]:.3f} / {cells[0][1]:.3f} | {text} | {typo:+.4f} | {each} "
        f"| {best:+.4f} |"
    )


VARIANTS = (
    "plain",
    "sif",
    "common",
    "context",
    "path",
    "softmax",
    "penalty",
    "content-words",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--pool", type=int, default=30)
    args = parser.parse_args()
    started = time.perf_counter()
    embedder = Embedder()
    corpora = []
    for name in BARRED:
        manifest = outlined_manifest(name)
        library = Library([manifest])
        clean, typo = (queries(library, name, t, args.pool) for t in (False, True))
        corpora.append(Corpus(name, manifest, clean, typo))
    print(f"# Embedding variants, lexical top {args.pool}, mean of {', '.join(BARRED)}\n")
    print(
        "| variant | alone R@10 / MRR@10 | even R@10 / MRR@10 gain | odd R@10 / MRR@10 gain "
        "| typo R@10 gain | R@10 gain per set | best share ceiling |"
    )
    print("|---" * 7 + "|")
    for variant in [v for v in args.variants.split(",") if v]:
        figures = [measure(c, space(c, embedder, variant), variant) for c in corpora]
        print(summary(variant, figures), flush=True)
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
