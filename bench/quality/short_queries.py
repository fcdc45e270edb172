"""Short queries and words only the page text uses: the DEV sets that chose content's share
of a short query (`Ranking.short_share`) and the whole share for a word only text knows.

    python -m bench.quality.short_queries                  # the sheet's rule, even and odd rows
    python -m bench.quality.short_queries --shares 0,0.25,0.5,1   # compare shares (even rows)

Two DEV sets per corpus with a content file (../shared/corpora/content/<name>.jsonl.gz):
- body-only words: words (4+ letters, no digits, no stop word) of the plain text (as the
  content index reads it) whose stem the text of 2 to 6 pages uses (the index keeps stems)
  and no title, heading or outline entry of the corpus has; a word finds its pages when one
  page using its stem is in the top 5. Every k-th such word in sorted order, at most
  `--words`.
- short queries: the anchor-text DEV rows of 1 to 4 words (../shared/corpora/eval), scored by
  R@10, MRR@10 and Hit@5 beside plain BM25 over sections (page title, heading and text; a
  page by its best section), measured in the same run.
Rows are split even/odd by their place: shares are compared on the even rows, the rule is
reported on the odd rows. With `--content-weight 0` beside, the anchor-text sets whole.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace

from bench.harness.bm25 import OkapiIndex, plain_tokens
from bench.harness.corpora import CORPORA, outlined_manifest, rows
from pinax.library import Library
from pinax.search import RANKING, Ranking, search_many
from pinax.search.content import plain
from pinax.search.tokens import STOP_WORDS, stem

NAMES = ("react", "fastapi", "kubernetes", "django", "drf", "adk", "textual")
BODY_BAR = 0.95
WORD = re.compile(r"[a-z]{4,}")


def key(url: str) -> str:
    return url.split("#")[0].split("?")[0].rstrip("/")


def pages_of(name: str) -> list[dict]:
    with gzip.open(CORPORA / "content" / f"{name}.jsonl.gz", "rt") as lines:
        return [json.loads(line) for line in lines]


def body_words(name: str, pages: list[dict], most: int, known: Callable[[str], bool]) -> list[dict]:
    """The body-only words of a corpus, each with the pages whose text uses it: those the
    content index knows (`known`; its tokens, not this regular expression's, decide)."""
    heading_stems: set[str] = set()
    manifest = outlined_manifest(name)
    for page in manifest.pages:
        for text in (page.title, *(h.title for h in page.outline or ())):
            heading_stems.update(stem(w) for w in WORD.findall(text.lower()))
    used: dict[str, set[str]] = defaultdict(set)  # stem -> pages whose text uses it
    forms: dict[str, set[str]] = defaultdict(set)  # stem -> its words
    for page in pages:
        for section in page["sections"]:
            heading_stems.update(stem(w) for w in WORD.findall(section["heading"].lower()))
            for word in set(WORD.findall(plain(section["text"]).lower())):
                root = stem(word)
                used[root].add(key(page["url"]))
                forms[root].add(word)
    found = sorted(
        min(forms[root])
        for root, urls in used.items()
        if 2 <= len(urls) <= 6 and root not in heading_stems and not forms[root] & STOP_WORDS
    )
    found = [w for w in found if known(w)]
    step = max(1, len(found) // most)
    return [{"query": w, "expected": sorted(used[stem(w)])} for w in found[::step][:most]]


def short_rows(name: str) -> list[dict]:
    return [r for r in rows(name) if 1 <= len(r["query"].split()) <= 4]


def sections_bm25(pages: list[dict]) -> Callable[[str], list[str]]:
    """Plain BM25 over sections: a page by its best section, the top 10 pages."""
    documents, owners = [], []
    for page in pages:
        title = page["sections"][0]["heading"] if page["sections"] else ""
        for section in page["sections"]:
            documents.append(plain_tokens(f"{title} {section['heading']} {section['text']}"))
            owners.append(key(page["url"]))
    index = OkapiIndex(documents)

    def search(query: str) -> list[str]:
        scores = index.get_scores(plain_tokens(query))
        seen: list[str] = []
        for at in scores.argsort()[::-1][:500]:
            if scores[at] <= 0:
                break
            if owners[at] not in seen:
                seen.append(owners[at])
                if len(seen) == 10:
                    break
        return seen

    return search


def measure(search: Callable[[str], list[str]], data: list[dict]) -> dict[str, float]:
    """R@10, MRR@10 and Hit@5 of `search(query) -> urls` on `data`."""
    r10 = mrr = hit5 = 0.0
    for row in data:
        wanted = {key(u) for u in row["expected"]}
        urls = [key(u) for u in search(row["query"])][:10]
        rank = next((i + 1 for i, u in enumerate(urls) if u in wanted), None)
        r10 += rank is not None
        mrr += 1 / rank if rank else 0.0
        hit5 += rank is not None and rank <= 5
    n = max(len(data), 1)
    return {"r10": r10 / n, "mrr": mrr / n, "hit5": hit5 / n, "n": len(data)}


def pinax(loaded: Library, ranking: Ranking) -> Callable[[str], list[str]]:
    selected = loaded.select(None)

    def search(query: str) -> list[str]:
        return [h.url for h in search_many(selected, query, 10, ranking).hits]

    return search


def half(data: list[dict], odd: bool) -> list[dict]:
    return data[int(odd) :: 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shares", default="", help="short_share values to compare (even rows)")
    parser.add_argument("--words", type=int, default=60, help="body-only words per corpus, most")
    parser.add_argument("--corpora", default=",".join(NAMES))
    args = parser.parse_args()
    started = time.perf_counter()
    shares = [float(x) for x in args.shares.split(",") if x]
    rule = RANKING
    print(f"# Short queries and body-only words (short_share {rule.short_share})\n")
    print(
        "| corpus | half | body-only n | found@5 | short n | R@10 | MRR@10 | Hit@5 "
        "| BM25 sections R@10 | MRR@10 | Hit@5 | anchor off R@10 | on R@10 | off MRR@10 "
        "| on MRR@10 |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    totals: dict[str, list[float]] = defaultdict(list)
    compare: dict[float, list[float]] = defaultdict(list)
    for name in args.corpora.split(","):
        pages = pages_of(name)
        loaded = Library([outlined_manifest(name)])
        for docs in loaded.all():
            docs.content_path = CORPORA / "content" / f"{name}.jsonl.gz"
        loaded.load_contents()
        content = loaded.all()[0].content
        assert content is not None, name
        words = body_words(name, pages, args.words, content.knows)
        short = short_rows(name)
        baseline = sections_bm25(pages)
        for share in shares:
            ranking = replace(rule, short_share=share)
            found = measure(pinax(loaded, ranking), half(words, False))
            asked = measure(pinax(loaded, ranking), half(short, False))
            compare[share].extend([found["hit5"], asked["mrr"], asked["r10"]])
            print(
                f"| {name} | even, share {share} | {found['n']} | {found['hit5']:.3f} "
                f"| {asked['n']} | {asked['r10']:.3f} | {asked['mrr']:.3f} | {asked['hit5']:.3f} "
                "| | | | | | | |"
            )
        anchors = rows(name)
        off = measure(pinax(loaded, replace(rule, content_weight=0.0)), anchors)
        on = measure(pinax(loaded, rule), anchors)
        for odd in (False, True):
            found = measure(pinax(loaded, rule), half(words, odd))
            asked = measure(pinax(loaded, rule), half(short, odd))
            plain = measure(baseline, half(short, odd))
            label = "odd" if odd else "even"
            totals[label + " body"].append(found["hit5"])
            totals[label + " short-bm25 hit5"].append(asked["hit5"] - plain["hit5"])
            totals[label + " short-bm25 mrr"].append(asked["mrr"] - plain["mrr"])
            print(
                f"| {name} | {label} | {found['n']} | {found['hit5']:.3f} | {asked['n']} "
                f"| {asked['r10']:.3f} | {asked['mrr']:.3f} | {asked['hit5']:.3f} "
                f"| {plain['r10']:.3f} | {plain['mrr']:.3f} | {plain['hit5']:.3f} "
                f"| {off['r10']:.3f} | {on['r10']:.3f} | {off['mrr']:.3f} | {on['mrr']:.3f} |"
            )
        totals["anchor r10 loss"].append(off["r10"] - on["r10"])
        totals["anchor mrr loss"].append(off["mrr"] - on["mrr"])
    for share, values in sorted(compare.items()):
        body = values[0::3]
        mrr = values[1::3]
        print(
            f"\neven rows, short_share {share}: body-only found@5 mean "
            f"{sum(body) / len(body):.3f}, short MRR@10 mean {sum(mrr) / len(mrr):.3f}"
        )
    print()
    for label, values in totals.items():
        worst = max(values) if "loss" in label else min(values)
        print(f"{label}: mean {sum(values) / len(values):+.3f}, worst {worst:+.3f}")
    body_odd = min(totals["odd body"])
    print(
        f"\nbody-only found@5 on odd rows: lowest corpus {body_odd:.3f} (bar {BODY_BAR}); "
        f"anchor loss with content on, worst R@10 {max(totals['anchor r10 loss']):+.3f}, "
        f"MRR@10 {max(totals['anchor mrr loss']):+.3f} (bar .005) "
        f"({time.perf_counter() - started:.0f} s)"
    )


if __name__ == "__main__":
    main()
