"""reST pages read as Markdown, scored as extraction is (bench/quality.py's fixture metrics)
on the shared fixtures' Sphinx pages whose source is reST: the docutils conversion
(pinax.pages.rest), the line-based reading it replaces (section titles only), and the HTML
the real site rendered, extracted by get_page (the ceiling a source reading aims at).
Beside the scores: how many headings carry the anchor the published page gives them.

    python -m bench.quality.rest_pages            # the table
    python -m bench.quality.rest_pages --pages    # per page
    python -m bench.quality.rest_pages --folder DIR [--folder DIR ...]   # real Sphinx docs folders

With `--folder` (a Sphinx project's docs folder, e.g. Django's `docs/`): every reST page
built as `pinax build` does and read back through get_page; counted are the pages read
exactly (else by the linear fallback), reST syntax left outside code (`leftovers`) in
get_page's Markdown and in the folder's indexed text (what snippets show), code blocks
without a language, and the API objects of the page's object directives found first by
their qualified name (`search_pages`), and opened by it (`get_page(section=name)`: at its
entry, or for a cross-reference target such as a Django setting, at the section it heads).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

from pinax.pages import decode_html, extract_page, rst_to_markdown, source_page
from tests.support.extraction import fixtures, score_page

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PINAX_SHARED", ROOT.parent / "shared")).resolve()
SITES = SHARED / "fixtures" / "sites"
METRICS = ("f1", "code", "language", "headings", "leak")


_FENCE = re.compile(r"^[ \t>]*(`{3,}|~{3,})(.*)$")
_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
_LEFTOVERS = {
    "role": re.compile(r"(?<![\w:]):(?:[A-Za-z][\w.+-]*:)+\x00"),
    "link": re.compile(r"\x00__?(?!\w)"),
    "directive": re.compile(r"^[ \t>]*\.\. [\w.:+-]+::", re.M),
    "comment": re.compile(r"^[ \t>]*\.\.(?: |$)", re.M),
    "backticks": re.compile(r"`"),
    "substitution": re.compile(r"(?<![\w|])\|[A-Za-z][\w -]{0,30}\|(?![\w|])"),
}


def leftovers(markdown: str) -> list[tuple[str, str]]:
    """reST syntax left outside code in Markdown: (kind, line) for each line holding some.
    Code blocks and inline code are the example, never counted."""
    found = []
    fence: str | None = None
    for line in markdown.split("\n"):
        opener = _FENCE.match(line)
        if fence is not None:
            if opener and opener.group(1).startswith(fence) and not opener.group(2).strip():
                fence = None
            continue
        if opener:
            fence = opener.group(1)
            continue
        text = _SPAN.sub("\x00", line)
        for kind, pattern in _LEFTOVERS.items():
            if pattern.search(text):
                found.append((kind, line))
                break
    return found


def unlabelled_fences(markdown: str) -> int:
    """Code blocks opened without a language."""
    count = 0
    fence: str | None = None
    for line in markdown.split("\n"):
        opener = _FENCE.match(line)
        if fence is not None:
            if opener and opener.group(1).startswith(fence) and not opener.group(2).strip():
                fence = None
            continue
        if opener:
            fence = opener.group(1)
            count += not opener.group(2).strip()
    return count


def rest(text: str) -> Any:
    """A reST page as get_page reads it (pinax.pages.rest, through the door)."""
    return source_page(text.encode("utf-8"), ".rst")


def rest_fixtures() -> list:
    return [f for f in fixtures(SITES) if f.meta.get("source_format") == "rst"]


def anchors_agree(source: str, html: bytes, url: str) -> tuple[int, int]:
    """(headings whose anchor is the page's own, headings compared): the converted page's
    headings and the rendered page's, in order, paired by their words."""
    ours = [(_words(title), anchor) for _, title, anchor in rest(source).headings]
    extracted = extract_page(decode_html(html, None), url)
    theirs = [(_words(h.title), h.anchor) for h in extracted.headings]
    compared = same = at = 0
    for words, anchor in theirs:
        found = next((i for i in range(at, len(ours)) if ours[i][0] == words), None)
        if found is None or not anchor:
            continue
        compared += 1
        same += ours[found][1] == anchor
        at = found + 1
    return same, compared


def _words(title: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", re.sub(r"^[0-9.]+\s", "", title.lower())))


def run(per_page: bool) -> dict[str, dict[str, float | None]]:
    methods = {
        "rest (docutils)": lambda f: (
            rest(f.path.joinpath(f.meta["source_file"]).read_text()).markdown
        ),
        "titles only (before)": lambda f: rst_to_markdown(
            f.path.joinpath(f.meta["source_file"]).read_text()
        ),
        "rendered HTML": lambda f: extract_page(decode_html(f.html_bytes(), None), f.url).markdown,
    }
    table: dict[str, dict[str, float | None]] = {}
    for name, method in methods.items():
        rows = []
        for fixture in rest_fixtures():
            scores = score_page(method(fixture), fixture.reference())
            rows.append(scores)
            if per_page:
                shown = " ".join(
                    f"{m}={getattr(scores, m):.3f}" if getattr(scores, m) is not None else f"{m}=-"
                    for m in METRICS
                )
                print(f"{name:22} {fixture.key:40} {shown}")
        table[name] = {
            m: statistics.fmean(v)
            if (v := [getattr(r, m) for r in rows if getattr(r, m) is not None])
            else None
            for m in METRICS
        }
    same = compared = 0
    for fixture in rest_fixtures():
        if fixture.generator != "sphinx":
            continue  # the hard cases' sources are not their pages' own (a rendered NEWS file)
        source = fixture.path.joinpath(fixture.meta["source_file"]).read_text()
        a, b = anchors_agree(source, fixture.html_bytes(), fixture.url)
        same, compared = same + a, compared + b
    table["anchors"] = {"same": same, "compared": compared}
    return table


def folder_report(folder: Path, show: int = 10) -> dict[str, Any]:
    """The `--folder` counts for one Sphinx docs folder (see the module docstring)."""
    import tempfile

    import anyio

    from pinax.builder import BuildOptions, ConsoleReporter, FolderSource
    from pinax.errors import PinaxError
    from pinax.tools import Tools

    started = time.perf_counter()
    source = FolderSource(folder, BuildOptions(layout="sphinx"))
    built = source.build(ConsoleReporter(quiet=True))
    texts = source.texts(built)
    files = {url: (source.root, path) for url, path in built.files.items()}
    built_seconds = time.perf_counter() - started
    report: dict[str, Any] = {"pages": len(built.manifest.pages), "build_s": built_seconds}
    kinds: Counter[str] = Counter()
    examples: list[str] = []
    with tempfile.TemporaryDirectory() as cache:
        tools = Tools.open([], Path(cache), folders=[(built.manifest, files)])
        exact = unlabelled = 0
        for page in built.manifest.pages:
            markdown = _whole(tools, page.url)
            exact += not markdown.startswith("\0")
            unlabelled += unlabelled_fences(markdown)
            for kind, line in leftovers(markdown):
                kinds["page:" + kind] += 1
                examples.append(f"{built.files[page.url]}: {kind}: {line[:120]}")
        for text in texts:
            for section in text.sections:
                for kind, line in leftovers(section.text):
                    kinds["text:" + kind] += 1
                    examples.append(f"{text.url.rsplit('/', 1)[-1]} (text): {kind}: {line[:120]}")
        symbols = [(page, s) for page in built.manifest.pages for s in page.symbols]
        first = opened = 0
        missed: list[str] = []
        for page, symbol in symbols:
            hits = tools.search_pages(symbol.name, limit=3)["results"]
            if hits and hits[0]["url"] == page.url:
                first += 1
            else:
                missed.append(f"{symbol.name} ({built.files[page.url]})")
            try:
                found = anyio.run(lambda u=page.url, n=symbol.name: tools.get_page(u, section=n))
            except PinaxError:
                continue
            first_line = found["markdown"].split("\n", 1)[0]
            by_heading = (symbol.anchor or "").startswith("std-") and symbol.name in first_line
            opened += found.get("section", {}).get("anchor") == symbol.anchor or by_heading
    report |= {
        "unlabelled_fences": unlabelled,
        "leftovers": dict(kinds),
        "symbols": len(symbols),
        "found_first": first,
        "opened": opened,
        "missed": missed[:show],
        "examples": examples[:show],
    }
    return report


def _whole(tools: Any, url: str) -> str:
    import anyio

    parts, cursor = [], None
    for _ in range(500):
        page = anyio.run(lambda c=cursor: tools.get_page(url, max_tokens=20_000, cursor=c))
        parts.append(page["markdown"])
        cursor = page.get("next_cursor")
        if not page["truncated"] or cursor is None:
            break
    return "\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", action="store_true", help="a row per page")
    parser.add_argument("--folder", action="append", type=Path, help="a Sphinx docs folder")
    args = parser.parse_args()
    if args.folder:
        for folder in args.folder:
            report = folder_report(folder)
            print(folder)
            for key, value in report.items():
                print(f"  {key}: {value}")
        return
    table = run(args.pages)
    anchors = table.pop("anchors")
    print(f"{len(rest_fixtures())} reST fixture pages")
    print(f"{'method':22} " + " ".join(f"{m:>9}" for m in METRICS))
    for name, row in table.items():
        cells = " ".join(f"{row[m]:9.3f}" if row[m] is not None else f"{'-':>9}" for m in METRICS)
        print(f"{name:22} {cells}")
    shown = f"{anchors['same']}/{anchors['compared']}"
    print(f"headings with the published page's anchor (Sphinx fixtures): {shown}")


if __name__ == "__main__":
    main()
