"""A synthetic manifest of any size, shaped like the real ones, for search benchmarks at scale.

    python -m bench.harness.synth --pages 1000000 --out /tmp/synth-1m.json [--seed 7] [--outlines]

The first pass over the templates copies every page of the real manifests in
../shared/corpora/manifests (or $PINAX_SHARED) unchanged, so real queries keep their real
answers. Every later page takes a real page as its template: a title drawn from a word-level
Markov chain trained on the real titles (starting from the template title's first word), a
URL slug made from that title in the template's slug style (kebab-case, snake_case, as-is),
under a section that is the template's section with its last segment replaced by a generated
one, reused often so that sections hold many pages. Templates that have a description get a
generated one. The vocabulary therefore is the real titles' vocabulary, and the URL shapes are
the real URL shapes.

With outlines, copied pages keep their real outline (../shared/corpora/outlines) and every
generated page gets a real page's outline shape (its levels; at most 16 headings, about 7 on
average), each heading a real heading's text or one drawn from a Markov chain over them, with
an anchor made from the text.

With symbols, every generated page gets 0 to 10 API symbols (about 5), drawn from the real
inventories of ../shared/corpora/published (name, kind and anchor as `pinax build` records
them).
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import random
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import urlsplit

from bench.harness.corpora import SHARED
from pinax.manifest import Manifest, Symbol, from_dict

MANIFESTS = SHARED / "corpora" / "manifests"
OUTLINES = SHARED / "corpora" / "outlines"
MAX_SYNTHETIC_HEADINGS = 16
START, END = "\x02", "\x03"
REUSE = 0.8  # chance that a generated page joins an existing generated section


class Chain:
    """A word-level Markov chain (order 1) over whitespace-separated words."""

    def __init__(self, texts: list[str]) -> None:
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        for text in texts:
            words = [START, *text.split(), END]
            for prev, word in itertools.pairwise(words):
                counts[prev][word] += 1
        self._next: dict[str, tuple[list[str], list[int]]] = {}
        for prev, following in counts.items():
            words = sorted(following)
            self._next[prev] = (words, list(itertools.accumulate(following[w] for w in words)))

    def sample(self, rng: random.Random, first: str = START, max_words: int = 12) -> str:
        words = [] if first == START else [first]
        prev = first
        while len(words) < max_words:
            choices, cumulative = self._next.get(prev) or self._next[START]
            prev = choices[bisect.bisect(cumulative, rng.random() * cumulative[-1])]
            if prev == END:
                break
            words.append(prev)
        return " ".join(words)


def slug_like(title: str, template: str) -> str:
    """A URL segment from a title, in the style of the template segment."""
    words = re.findall(r"[A-Za-z0-9]+", title) or ["page"]
    if "_" in template:
        slug = "_".join(words)
        return slug if template[:1].isupper() else slug.lower()
    if "-" in template or template.islower():
        return "-".join(w.lower() for w in words)
    if "." in template:
        return ".".join(words[:3])
    return "".join(w[:1].upper() + w[1:] for w in words[:3])


def load_real(outlines: bool = False) -> list[tuple[dict, dict]]:
    """(manifest header, page) for every page of every real manifest (`outlines`: with their
    real outlines)."""
    paths = sorted(MANIFESTS.glob("*.json"))
    if not paths:
        sys.exit(f"no manifests under {MANIFESTS}: set PINAX_SHARED")
    pages = []
    for path in paths:
        data = json.loads(path.read_text())
        header = {"name": data["name"], "url": data["url"]}
        found = real_outlines(data["name"]) if outlines else {}
        for page in data["pages"]:
            if found.get(page["url"]):
                page["outline"] = found[page["url"]]
            pages.append((header, page))
    return pages


def real_outlines(name: str) -> dict[str, list[dict]]:
    """A shared manifest's outlines by page URL, as manifest entries (no anchors: the shared
    outlines have none)."""
    found = {}
    for line in (OUTLINES / f"{name}.jsonl").read_text().splitlines():
        entry = json.loads(line)
        found[entry["url"]] = [
            {"level": level, "title": text.strip()[:500]}
            for level, text in entry["headings"]
            if text.strip() and 2 <= level <= 6  # a few pages have a second H1: not below it
        ]
    return found


def real_symbols() -> list[dict]:
    """Every symbol of the shared inventories, as manifest entries."""
    from pinax.builder import inventory

    found = []
    for path in sorted((SHARED / "corpora" / "published").rglob("objects.inv")):
        parsed = inventory.parse(path.read_bytes(), str(path), 50 << 20)
        for page in inventory.symbols(parsed, "https://x.example/").values():
            found += [s.to_dict() for s in page]
    return found


def cpython_size(seed: int = 7) -> Manifest:
    """540 pages with 11,000 distinct symbols between them (about 20 a page, some with
    hundreds), names drawn from the real inventories and made unique per module."""
    rng = random.Random(seed)
    pool = real_symbols()
    pages = []
    made = 0
    for i in range(540):
        module = f"mod{i}"
        wanted = min(int(rng.paretovariate(1.2) * 8), 600, 11_000 - made)
        if i == 539:
            wanted = 11_000 - made
        names: dict[str, str] = {}
        while len(names) < wanted:
            found = rng.choice(pool)
            names.setdefault(f"{module}.{found['name'].rsplit('.', 1)[-1]}", found["kind"])
        symbols = [Symbol(name, kind, name) for name, kind in names.items()]
        made += len(symbols)
        pages.append(
            {
                "url": f"https://docs.example/3/library/{module}.html",
                "title": f"{module} module",
                "symbols": [s.to_dict() for s in symbols],
            }
        )
    return from_dict(
        {"pinax_manifest": 1, "name": "cpython", "url": "https://docs.example/3", "pages": pages}
    )


def generate(count: int, seed: int = 7, outlines: bool = False, symbols: bool = False) -> dict:
    """A manifest dict with `count` pages (`outlines`: each with an outline; `symbols`: each
    generated page with about 5 symbols)."""
    rng = random.Random(seed)
    pool = real_symbols() if symbols else []
    real = load_real(outlines)
    titles = Chain([p["title"] for _, p in real])
    headings = [h["title"] for _, p in real for h in p.get("outline", ())]
    heading_chain = Chain(headings) if headings else None
    descriptions = Chain([p["description"] for _, p in real if p.get("description")])
    sections: dict[str, list[str]] = defaultdict(list)
    seen: set[str] = set()
    pages = []
    order = list(range(len(real)))
    for cycle in itertools.count():
        if cycle:
            rng.shuffle(order)
        for i in order:
            if len(pages) == count:
                return {
                    "pinax_manifest": 1,
                    "name": f"synthetic-{count}",
                    "url": "https://synthetic.example/",
                    "title": f"Synthetic docs ({count:,} pages)",
                    "pages": pages,
                }
            _, template = real[i]
            page = _generated(template, titles, descriptions, rng) if cycle else dict(template)
            if cycle:
                page["url"] = _place(page, template, sections, rng)
                if heading_chain is not None:
                    shape = real[rng.randrange(len(real))][1].get("outline", ())
                    page["outline"] = _outline(shape, headings, heading_chain, rng)
                if pool:
                    page["symbols"] = rng.sample(pool, rng.randint(0, 10))
            url = page["url"]
            n = 2
            while url in seen:
                url = f"{page['url'].rstrip('/')}-{n}" + ("/" if page["url"].endswith("/") else "")
                n += 1
            seen.add(url)
            page["url"] = url
            page["section"] = _parent(url)
            pages.append(page)
    raise AssertionError("unreachable")


def _generated(template: dict, titles: Chain, descriptions: Chain, rng: random.Random) -> dict:
    first = template["title"].split()[0] if template["title"].split() else START
    page = {"url": template["url"], "title": titles.sample(rng, first)}
    if template.get("description"):
        page["description"] = descriptions.sample(rng, max_words=30)
    return page


def _outline(shape: list[dict], real: list[str], chain: Chain, rng: random.Random) -> list[dict]:
    """Headings at the levels of a real outline, half of them real texts, half generated."""
    outline = []
    for entry in shape[:MAX_SYNTHETIC_HEADINGS]:
        text = real[rng.randrange(len(real))] if rng.random() < 0.5 else chain.sample(rng)
        anchor = "-".join(re.findall(r"[a-z0-9]+", text.lower()))[:60]
        heading = {"level": entry["level"], "title": text}
        if anchor:
            heading["anchor"] = anchor
        outline.append(heading)
    return outline


def _place(page: dict, template: dict, sections: dict[str, list[str]], rng: random.Random) -> str:
    parts = urlsplit(template["url"])
    path = parts.path
    trailing = path.endswith("/") and len(path) > 1
    segments = [s for s in path.split("/") if s]
    slug_template = segments[-1] if segments else "index"
    parent = "/".join(segments[:-1])
    pool = sections[parent]
    if pool and rng.random() < REUSE:
        section = pool[min(int(rng.paretovariate(1.0)) - 1, len(pool) - 1)]
    else:
        head, _, last = parent.rpartition("/")
        segment = slug_like(" ".join(page["title"].split()[:2]), last or slug_template)
        section = f"{head}/{segment}" if head else segment
        pool.append(section)
    slug = slug_like(page["title"], slug_template)
    built = "/".join(s for s in (section, slug) if s)
    return f"{parts.scheme}://{parts.netloc}/{built}" + ("/" if trailing else "")


def _parent(url: str) -> str:
    path = urlsplit(url).path.rstrip("/")
    return path.rsplit("/", 1)[0] or "/"


def write(manifest: dict, out: Path) -> None:
    """The manifest in `pinax.manifest.dump`'s layout (sorted keys, one page per line)."""
    head = {k: v for k, v in manifest.items() if k != "pages"}
    lines = ["{"]
    lines += [
        f"  {json.dumps(k)}: {json.dumps(head[k], ensure_ascii=False)}," for k in sorted(head)
    ]
    lines.append('  "pages": [')
    rows = [f"    {json.dumps(p, ensure_ascii=False, sort_keys=True)}" for p in manifest["pages"]]
    lines.append(",\n".join(rows))
    lines += ["  ]", "}"]
    tmp = out.with_suffix(out.suffix + ".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(out)


def ensure(
    count: int, folder: Path, seed: int = 7, outlines: bool = False, symbols: bool = False
) -> Path:
    """The synthetic manifest of `count` pages in `folder`, generated once."""
    extra = ("-outlines" if outlines else "") + ("-symbols" if symbols else "")
    out = folder / f"synthetic-{count}-s{seed}{extra}.json"
    if not out.exists():
        folder.mkdir(parents=True, exist_ok=True)
        write(generate(count, seed, outlines, symbols), out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--outlines", action="store_true", help="give every page an outline")
    parser.add_argument("--symbols", action="store_true", help="about 5 API symbols a page")
    args = parser.parse_args()
    write(generate(args.pages, args.seed, args.outlines, args.symbols), args.out)
    print(f"wrote {args.pages:,} pages to {args.out}")


if __name__ == "__main__":
    main()
