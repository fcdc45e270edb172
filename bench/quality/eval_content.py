"""Searching what pages say (the quality bars content search was held to), with content off beside
it.

    python -m bench.quality.eval_content                 # questions, anchor-text sets, all together
    python -m bench.quality.eval_content --weights 0.5,1,1.5,2   # content weights to compare
    python -m bench.quality.eval_content --lexical-only
        # as if the embedding model were not installed

The DEV question sets (`eval/<name>.questions.jsonl`) and the anchor-text DEV and typo sets
of ../shared/corpora, over the shared manifests with their outlines joined and their
`content/<name>.jsonl.gz` as each manifest's content (`--content NAME=PATH` for the CLI). Metrics
as docs-mcp-server defines them: every graded page is relevant; MRR@5 is 1/rank of the first
relevant page in the top 5; Hit@5 whether one is there; Recall@5 the share of relevant pages
in the top 5. URLs compared without fragment, query or trailing slash. Beside them, plain
rank-bm25 over section chunks (page title + heading + text; a page scores as its best
section), the reference content search is measured against. The search p50 is each question's first
search with content (after a pass without), wall time and, in brackets, this thread's CPU time
(steadier when other work shares the machine).
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench.harness.bm25 import plain_tokens
from bench.harness.corpora import CORPORA, NAMES, outlined_manifest, rows
from bench.harness.runs import lexical_only
from bench.harness.scoring import Scores, first_rank, score
from pinax.library import Library
from pinax.tools import CONTENT_WEIGHT

QUESTION_SETS = ("react", "fastapi", "kubernetes", "django")
WITH_CONTENT = ("react", "fastapi", "kubernetes", "django", "drf", "adk", "textual")
MRR_MEAN, MRR_FLOOR, TROUBLE_BAR, HIT_BAR, SECTION_BAR, NO_LOSS = 0.80, 0.72, 0.75, 0.92, 0.70, 0.01
HIGH_PRECISION = 0.80


def key(url: str) -> str:
    return url.split("#")[0].split("?")[0].rstrip("/")


def questions(name: str) -> list[dict]:
    path = CORPORA / "eval" / f"{name}.questions.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def library(names: tuple[str, ...] | list[str], content: bool = True) -> Library:
    """The outlined shared manifests, with their content files where there are any."""
    loaded = Library([outlined_manifest(n) for n in names])
    if content:
        for docs in loaded.all():
            path = CORPORA / "content" / f"{docs.name}.jsonl.gz"
            if path.exists():
                docs.content_path = path
        loaded.load_contents()
    return loaded


@dataclass
class Asked:
    mrr: float
    hit: float
    recall: float
    trouble: float
    named: float  # of questions whose right page is first, how many name its section


def ask(search: Callable[[str], list[tuple[str, str | None]]], name: str) -> Asked:
    """`search(query)` gives the top 5 as (url, heading named)."""
    mrr = hit = recall = 0.0
    trouble: list[float] = []
    named = first = 0
    rows_ = questions(name)
    for row in rows_:
        relevant = {key(u) for u in row["expected"]}
        found = search(row["query"])[:5]
        urls = [key(url) for url, _ in found]
        rank = next((i + 1 for i, u in enumerate(urls) if u in relevant), None)
        reciprocal = 1 / rank if rank else 0.0
        mrr += reciprocal
        hit += rank is not None
        recall += len(relevant & set(urls)) / len(relevant)
        if row["intent"] == "troubleshooting":
            trouble.append(reciprocal)
        answer = key(row["expected"][row["grades"].index(3)]) if 3 in row["grades"] else None
        if urls and urls[0] == answer:
            first += 1
            heading = found[0][1]
            wanted = row["section"]
            named += (heading is None and wanted is None) or (
                heading is not None and wanted is not None and heading.split(" > ")[-1] == wanted
            )
    n = len(rows_)
    return Asked(mrr / n, hit / n, recall / n, sum(trouble) / len(trouble), named / max(first, 1))


TIMES: list[float] = []  # each search's seconds, for the latency line
CPU_TIMES: list[float] = []  # ... and this thread's CPU seconds (steadier on a shared machine)


def pinax(loaded: Library, docs: str | None, weight: float) -> Callable[[str], list]:
    def search(query: str) -> list[tuple[str, str | None]]:
        started, cpu = time.perf_counter(), time.thread_time()
        hits = loaded.search(query, 5, docs, content_weight=weight).hits
        CPU_TIMES.append(time.thread_time() - cpu)
        TIMES.append(time.perf_counter() - started)
        return [(h.url, h.heading) for h in hits]

    return search


def bm25_sections(name: str) -> Callable[[str], list]:
    """rank-bm25 over section chunks: page title + heading + text; a page by its best."""
    from rank_bm25 import BM25Okapi

    chunks, owners = [], []
    with gzip.open(CORPORA / "content" / f"{name}.jsonl.gz", "rt") as lines:
        for line in lines:
            page = json.loads(line)
            title = page["sections"][0]["heading"] if page["sections"] else ""
            for section in page["sections"]:
                chunks.append(plain_tokens(f"{title} {section['heading']} {section['text']}"))
                owners.append(page["url"])
    bm25 = BM25Okapi(chunks)

    def search(query: str) -> list[tuple[str, str | None]]:
        scores = bm25.get_scores(plain_tokens(query))
        seen: list[str] = []
        for at in scores.argsort()[::-1]:
            if owners[at] not in seen:
                seen.append(owners[at])
            if len(seen) == 5:
                break
        return [(url, None) for url in seen]

    return search


def anchor_scores(loaded: Library, name: str, docs: str | None, weight: float) -> Scores:
    def rank_of(row: dict) -> int | None:
        found = loaded.search(row["query"], 10, docs, content_weight=weight)
        return first_rank([hit.url for hit in found.hits], row["expected"])

    return score(rank_of, rows(name), rows(name, typo=True))


def confidence_precision(together: Library) -> list[str]:
    """How often a top hit marked high is right, over every anchor-text DEV query and every
    DEV question, all eight loaded (the bar: at least 0.80), content on."""
    right: dict[str, int] = {}
    shown: dict[str, int] = {}
    for name in NAMES:
        asked = [(r["query"], r["expected"]) for r in rows(name)]
        if name in QUESTION_SETS:
            asked += [(q["query"], q["expected"]) for q in questions(name)]
        for query, expected in asked:
            hits = together.search(query, 1).hits
            if hits:
                level = hits[0].confidence
                shown[level] = shown.get(level, 0) + 1
                right[level] = right.get(level, 0) + (
                    key(hits[0].url) in {key(u) for u in expected}
                )
    print("\n| confidence (content on, all eight) | top hits | right | precision |")
    print("|---|---|---|---|")
    for level in ("high", "medium", "low"):
        count = shown.get(level, 0)
        share = right.get(level, 0) / count if count else 1.0
        print(f"| {level} | {count} | {right.get(level, 0)} | {share:.3f} |")
    high = shown.get("high", 0)
    return [] if not high or right.get("high", 0) / high >= HIGH_PRECISION else ["high precision"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", default="", help="content weights to compare")
    parser.add_argument("--no-anchor", action="store_true", help="questions only")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument(
        "--lexical-only",
        action="store_true",
        help="search as if the embedding model were not installed (words alone)",
    )
    args = parser.parse_args()
    if args.lexical_only:
        lexical_only()
    started = time.perf_counter()
    failures: list[str] = []
    print(f"# DEV questions: content weight {CONTENT_WEIGHT} vs 0 (content off)\n")
    print(
        "| corpus | off MRR@5 | MRR@5 | Hit@5 | Recall@5 | trouble MRR@5 | section named "
        "| rank-bm25 sections MRR@5 | search p50 ms (CPU) |"
    )
    print("|---" * 9 + "|")
    means: list[Asked] = []
    for name in QUESTION_SETS:
        loaded = library([name])
        off = ask(pinax(loaded, None, 0.0), name)
        TIMES.clear()
        CPU_TIMES.clear()
        on = ask(pinax(loaded, None, CONTENT_WEIGHT), name)
        latency = sorted(TIMES)[len(TIMES) // 2] * 1000
        cpu = sorted(CPU_TIMES)[len(CPU_TIMES) // 2] * 1000
        means.append(on)
        base = "-" if args.no_baseline else f"{ask(bm25_sections(name), name).mrr:.3f}"
        if on.mrr < MRR_FLOOR or on.mrr < off.mrr:
            failures.append(f"{name} MRR@5")
        print(
            f"| {name} | {off.mrr:.3f} | {on.mrr:.3f} | {on.hit:.3f} | {on.recall:.3f} "
            f"| {on.trouble:.3f} | {on.named:.2f} | {base} | {latency:.2f} ({cpu:.2f}) |",
            flush=True,
        )
        for extra in [float(w) for w in args.weights.split(",") if w]:
            other = ask(pinax(loaded, None, extra), name)
            print(
                f"|   weight {extra} | | {other.mrr:.3f} | {other.hit:.3f} | {other.recall:.3f} "
                f"| {other.trouble:.3f} | {other.named:.2f} | |"
            )
    mean = {
        f: sum(getattr(a, f) for a in means) / len(means)
        for f in ("mrr", "hit", "trouble", "named")
    }
    print(
        f"\nmean MRR@5 {mean['mrr']:.3f} (bar {MRR_MEAN}), troubleshooting {mean['trouble']:.3f} "
        f"(bar {TROUBLE_BAR}), Hit@5 {mean['hit']:.3f} (bar {HIT_BAR}), section named "
        f"{mean['named']:.2f} (bar {SECTION_BAR})"
    )
    failures += [] if mean["mrr"] >= MRR_MEAN else ["mean MRR@5"]
    failures += [] if mean["trouble"] >= TROUBLE_BAR else ["troubleshooting"]
    failures += [] if mean["hit"] >= HIT_BAR else ["Hit@5"]
    failures += [] if mean["named"] >= SECTION_BAR else ["section named"]
    if not args.no_anchor:
        print("\n# Anchor-text DEV sets, each alone and all eight together (mdn without content)\n")
        print(
            "| corpus | off R@10 | on R@10 | off MRR@10 | on MRR@10 | off typo R@10 | on typo R@10 "
            "| together off R@10 | together on R@10 |"
        )
        print("|---" * 9 + "|")
        together = library(NAMES)
        for name in NAMES:
            alone = library([name]) if name in WITH_CONTENT else library([name], content=False)
            off, on = (
                anchor_scores(alone, name, None, 0.0),
                anchor_scores(alone, name, None, CONTENT_WEIGHT),
            )
            t_off = anchor_scores(together, name, None, 0.0)
            t_on = anchor_scores(together, name, None, CONTENT_WEIGHT)
            for what, a, b in (
                ("R@10", off.r10, on.r10),
                ("MRR@10", off.mrr, on.mrr),
                ("typo", off.typo_r10, on.typo_r10),
                ("together", t_off.r10, t_on.r10),
            ):
                if b < a - NO_LOSS:
                    failures.append(f"{name} {what}")
            print(
                f"| {name} | {off.r10:.3f} | {on.r10:.3f} | {off.mrr:.3f} | {on.mrr:.3f} "
                f"| {off.typo_r10:.3f} | {on.typo_r10:.3f} | {t_off.r10:.3f} | {t_on.r10:.3f} |",
                flush=True,
            )
        failures += confidence_precision(together)
    verdict = f"FAIL: {', '.join(failures)}" if failures else "every bar met"
    print(f"\n{verdict} ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
