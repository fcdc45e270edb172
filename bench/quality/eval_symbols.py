"""API lookup by name (a symbol's name finds its page): identifier sets from real inventories, with
symbols, without, and beside rank-bm25 over the same fields, in the same run.

    python -m bench.quality.eval_symbols  # every inventory, sets of up to 150 names each
    python -m bench.quality.eval_symbols --per-set 50    # quicker

Identifier sets come from the inventories of ../shared/corpora/published (read, never
changed): each documented name (the symbols `pinax build` records) with the pages that
document it as the answer, as people type it: qualified (`agents.run.Runner.run`), bare
where no other name shares the last part (`run_streamed`), lower-case
(`agents.run.runner.run`) and called (`run_streamed()`). Every inventory's manifest and the
eight shared DEV manifests are loaded together and searched with no `docs` argument.
"With symbols": the manifests as `pinax build` makes them from the inventory; "without": the
same pages with the older "API: ..." description instead. rank-bm25 (`BM25Okapi`) indexes
the same pages over the same fields (URL path, title, section, description, and the symbol
names with their suffixes where Pinax has them).

Then the anchor-text DEV sets of the two sites that publish an inventory (adk, textual),
with the shared manifest as it is and with the inventory's symbols joined by URL, as
`pinax build --symbols` joins them: recall@10 and MRR@10 must not fall by more than .01.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, replace

import numpy as np

from bench.harness.bm25 import page_tokens, plain_tokens
from bench.harness.corpora import CORPORA, NAMES, rows
from bench.harness.scoring import first_rank
from pinax import manifest as manifest_io
from pinax.builder import inventory
from pinax.builder.symbols import normalised
from pinax.library import Library
from pinax.manifest import Manifest
from pinax.search.symbol_field import symbol_text

PUBLISHED = CORPORA / "published"
INVENTORIES = {  # manifest name: (inventory, the site it was published on)
    "openai-agents": ("openai-agents-python/objects.inv", "https://openai.github.io/openai-agents-python/"),
    "textual-api": ("textual/objects.inv", "https://textual.textualize.io/"),
    "adk-api": ("google-adk/api-reference/python/objects.inv", "https://adk.dev/api-reference/python/"),
    "mcp-python-sdk": ("mcp-python-sdk/objects.inv", "https://modelcontextprotocol.github.io/python-sdk/"),
    "torchao": ("pytorch/ao/stable/objects.inv", "https://docs.pytorch.org/ao/stable/"),
}  # fmt: skip
CALLABLE = {"function", "method"}
# The bars symbols were held to (with symbols, all loaded together).
BARS = {"qualified": (0.95, 0.98), "bare": (0.90, 0.95)}
NO_LOSS = 0.01


def parsed(name: str) -> tuple[inventory.Inventory, str]:
    path, site = INVENTORIES[name]
    data = (PUBLISHED / path).read_bytes()
    return inventory.parse(data, path, 50 << 20), site


def inventory_manifest(name: str, with_symbols: bool) -> Manifest:
    found, site = parsed(name)
    pages = inventory.pages(found, site, with_symbols)
    return Manifest(name, site.rstrip("/"), found.project or name, tuple(pages))


@dataclass
class Query:
    text: str
    expected: set[str]
    name: str  # the symbol meant
    form: str  # qualified, bare, lower, call


def identifier_sets(name: str, per_set: int) -> list[Query]:
    """Up to `per_set` queries of each form, drawn with a fixed seed."""
    found, site = parsed(name)
    pages: dict[str, set[str]] = defaultdict(set)
    kinds: dict[str, str] = {}
    for url, symbols in inventory.symbols(found, site).items():
        for symbol in symbols:
            pages[symbol.name].add(url)
            kinds.setdefault(symbol.name, symbol.kind)
    by_last: dict[str, set[str]] = defaultdict(set)
    for full in pages:
        by_last[full.rsplit(".", 1)[-1]].add(full)
    qualified = [Query(n, pages[n], n, "qualified") for n in sorted(pages) if "." in n]
    unique = [n for n in sorted(pages) if len(by_last[n.rsplit(".", 1)[-1]]) == 1 and "." in n]
    bare = [Query(n.rsplit(".", 1)[-1], pages[n], n, "bare") for n in unique]
    lower = [Query(q.text.lower(), q.expected, q.name, "lower") for q in qualified]
    call = [
        Query(q.text + "()", q.expected, q.name, "call") for q in bare if kinds[q.name] in CALLABLE
    ]
    drawn = random.Random(0)
    queries = []
    for group in (qualified, bare, lower, call):
        queries += drawn.sample(group, min(per_set, len(group)))
    return queries


@dataclass
class Tally:
    n: int = 0
    hit1: int = 0
    top3: int = 0
    named: int = 0  # the first hit is right and names the symbol

    def add(self, rank: int | None, named: bool = False) -> None:
        self.n += 1
        self.hit1 += rank == 1
        self.top3 += rank is not None and rank <= 3
        self.named += rank == 1 and named

    def cells(self) -> str:
        n = max(1, self.n)
        return f"{self.hit1 / n:.3f} | {self.top3 / n:.3f}"


def shared_manifests() -> list[Manifest]:
    return [manifest_io.load(CORPORA / "manifests" / f"{n}.json") for n in NAMES]


class Okapi:
    """rank-bm25 over every loaded page: URL path, title, section, description, symbols."""

    def __init__(self, manifests: list[Manifest]) -> None:
        from rank_bm25 import BM25Okapi

        self.urls = [p.url for m in manifests for p in m.pages]
        documents = []
        for m in manifests:
            for p in m.pages:
                extra = " ".join([p.description or "", *(symbol_text(s.name) for s in p.symbols)])
                documents.append(page_tokens(p.url, p.title, p.section) + plain_tokens(extra))
        self.bm25 = BM25Okapi(documents)

    def rank(self, query: Query) -> int | None:
        scores = self.bm25.get_scores(plain_tokens(query.text))
        top = np.argsort(-scores, kind="stable")[:10]
        return first_rank([self.urls[i] for i in top], list(query.expected))


def lookups(per_set: int) -> None:
    shared = shared_manifests()
    queries = {name: identifier_sets(name, per_set) for name in INVENTORIES}
    systems = {}
    for label, symbols in (("with symbols", True), ("without", False)):
        manifests = [inventory_manifest(n, symbols) for n in INVENTORIES] + shared
        started = time.perf_counter()
        library = Library(manifests)
        for docs in library.all():
            docs.index  # noqa: B018  # built now, not inside the first query's time
        built = time.perf_counter() - started
        systems[label] = (library, Okapi(manifests), built)
    print("\n## API names, every manifest loaded together (Hit@1 | top 3)\n")
    print(
        "| inventory | form | n | Pinax with symbols: Hit@1 | top 3 | names it "
        "| Pinax without: Hit@1 | top 3 | rank-bm25 with symbol fields: Hit@1 | top 3 "
        "| rank-bm25 without: Hit@1 | top 3 |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    totals: dict[tuple[str, str], Tally] = defaultdict(Tally)
    for name, group in queries.items():
        by_form: dict[tuple[str, str], Tally] = defaultdict(Tally)
        for query in group:
            for label, (library, okapi, _) in systems.items():
                hits = library.search(query.text, 10, lexical_weight=1.0, embedding_weight=0.0).hits
                rank = first_rank([h.url for h in hits], list(query.expected))
                named = bool(hits) and hits[0].symbol == query.name
                for key in ((query.form, label), ("all", label)):
                    by_form[key].add(rank, named)
                    totals[key].add(rank, named)
                base = okapi.rank(query)
                for key in ((query.form, f"bm25 {label}"), ("all", f"bm25 {label}")):
                    by_form[key].add(base)
                    totals[key].add(base)
        for form in ("qualified", "bare", "lower", "call"):
            _row(name, form, by_form)
    for form in ("qualified", "bare", "lower", "call", "all"):
        _row("**all**", form, totals)
    failures = []
    for form, (hit1, top3) in BARS.items():
        tally = totals[form, "with symbols"]
        if tally.hit1 / max(1, tally.n) < hit1 or tally.top3 / max(1, tally.n) < top3:
            failures.append(f"{form} with symbols")
    plain, base = totals["qualified", "without"], totals["qualified", "bm25 without"]
    if plain.hit1 < base.hit1:
        failures.append("qualified without symbols below rank-bm25")
    print(f"\nindexes built in {', '.join(f'{s[2]:.1f} s' for s in systems.values())}")
    print("bars: " + ("all met" if not failures else "NOT MET: " + ", ".join(failures)))


def _row(name: str, form: str, tallies: dict[tuple[str, str], Tally]) -> None:
    ours = tallies[form, "with symbols"]
    if not ours.n:
        return
    named = f"{ours.named / max(1, ours.hit1):.3f}"
    print(
        f"| {name} | {form} | {ours.n} | {ours.cells()} | {named} "
        f"| {tallies[form, 'without'].cells()} | {tallies[form, 'bm25 with symbols'].cells()} "
        f"| {tallies[form, 'bm25 without'].cells()} |",
        flush=True,
    )


def with_inventory(manifest: Manifest, name: str) -> Manifest:
    """A shared manifest with the symbols of a site's inventory joined by normalised URL."""
    found, site = parsed(name)
    by_url = {normalised(u): s for u, s in inventory.symbols(found, site).items()}
    pages = tuple(replace(p, symbols=by_url.get(normalised(p.url), ())) for p in manifest.pages)
    joined = sum(1 for p in pages if p.symbols)
    print(f"{manifest.name}: {name}'s symbols joined to {joined} of {len(pages)} pages")
    return replace(manifest, pages=pages)


def anchor_text() -> None:
    print("\n## Anchor-text DEV sets, without and with the site's symbols\n")
    results = []
    for dev, name in (("adk", "adk-api"), ("textual", "textual-api")):
        plain = manifest_io.load(CORPORA / "manifests" / f"{dev}.json")
        for label, manifest in (("without", plain), ("with", with_inventory(plain, name))):
            library = Library([manifest])
            ranks = [
                first_rank([h.url for h in library.search(r["query"], 10).hits], r["expected"])
                for r in rows(dev)
            ]
            recall = sum(r is not None for r in ranks) / len(ranks)
            mrr = sum(1 / r for r in ranks if r) / len(ranks)
            results.append((dev, label, len(ranks), recall, mrr))
    print("\n| corpus | symbols | n | R@10 | MRR@10 |")
    print("|---|---|---|---|---|")
    for dev, label, n, recall, mrr in results:
        print(f"| {dev} | {label} | {n} | {recall:.3f} | {mrr:.3f} |")
    for (dev, _, _, r0, m0), (_, _, _, r1, m1) in zip(results[::2], results[1::2], strict=True):
        ok = r1 >= r0 - NO_LOSS and m1 >= m0 - NO_LOSS
        print(f"{dev}: {'no loss' if ok else 'LOSS'} (R@10 {r1 - r0:+.3f}, MRR@10 {m1 - m0:+.3f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-set", type=int, default=150)
    parser.add_argument("--no-anchor-text", action="store_true")
    args = parser.parse_args()
    if not PUBLISHED.is_dir():
        sys.exit(f"no inventories under {PUBLISHED}: set PINAX_SHARED")
    started = time.perf_counter()
    lookups(args.per_set)
    if not args.no_anchor_text:
        anchor_text()
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
