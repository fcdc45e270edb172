"""HTML -> main content -> Markdown, and what the page says about itself.

The pipeline: decode (`decode_html`) -> parse (selectolax/lexbor) -> drop what a reader cannot
see -> find the main content -> drop the boilerplate inside it -> normalize code blocks, tabs,
admonitions, headings and links -> convert (markdownify) -> tidy. See `content`, `normalize`
and `converter` for each step. The page's own signals (a meta-refresh stub, a Markdown
alternate, a JavaScript-only shell) are reported for the reader to act on.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin

from selectolax.lexbor import LexborHTMLParser, LexborNode

from pinax.errors import FetchFailed
from pinax.pages.converter import to_markdown
from pinax.pages.entries import mark_entries, take_entries
from pinax.pages.fetch import usable_charset
from pinax.pages.headings import Document
from pinax.pages.main_content import drop_boilerplate, drop_invisible, find_main
from pinax.pages.normalize import mark_task_lists, normalize
from pinax.pages.outline import PageHeading, aligned_headings, mark_anchors
from pinax.pages.text import count_invisible, strip_invisible

# A UTF-8 lead byte read as Latin-1/cp1252, then 1-3 continuation bytes read the same way.
_MOJIBAKE = re.compile(
    "[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192"
    "\u02c6\u02dc\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]{1,3}"
)
_MOJIBAKE_SIGN = re.compile("[\u0080-\u009f]|\u00e2\u20ac")
_CHARSET = re.compile(rb"""<meta[^<>]+charset\s*=\s*["']?\s*([\w:.-]+)""", re.I)
_REFRESH = re.compile(r"\s*+(\d++(?:\.\d*+)?)?\s*+[;,]?\s*+(?:url\s*+=\s*+)?", re.I)
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_WORD = re.compile(r"\w+")
# WHATWG: these labels mean windows-1252 in every browser.
_WINDOWS_1252 = frozenset(
    "iso-8859-1 iso8859-1 latin1 latin-1 l1 ascii us-ascii cp819 ibm819 iso-ir-100 "
    "windows-1252 cp1252".split()
)
_REFRESH_MAX_DELAY = 10.0  # seconds; a slower refresh is a notice, not a redirect stub
_JS_SHELL_WORDS = 25

# Pages are hostile input: lexbor's tree building slows down quadratically with nesting depth,
# so a page nested deeper than MAX_NESTING is refused before it is parsed.
MAX_NESTING = 512  # real docs pages nest 20 to 30 deep (see tests/test_limits.py)
NESTING_CHECK_FROM = 10_000  # tags; fewer parse in well under a second however they nest
# A start or end tag's name; the rest of the tag is read by _TAG_REST, in one pass.
_TAG_NAME = re.compile(r"<(/?)([a-zA-Z][^\t\n\f\r />]*)")
# Up to the tag's `>`: attribute values in quotes may hold `>` and `/>`. Possessive, so a tag
# that never ends is read once, to the end of the page, and never again (linear time).
_TAG_REST = re.compile(r"""(?:[^>"'=]++|=[\t\n\f\r ]*+(?:"[^"]*+"|'[^']*+')?|["'])*+>""")
# Elements whose content is text, not tags (the parser reads to their end tag).
_RAW_TEXT = frozenset("script style textarea title xmp iframe noembed noframes plaintext".split())
_RAW_END = {name: re.compile(rf"</{name}[\t\n\f\r />]", re.I) for name in _RAW_TEXT}
# Elements that never wrap content, or whose end tag may be left out (the parser closes them).
_NOT_NESTING = frozenset(
    "area base br col embed hr img input link meta param source track wbr keygen frame "
    "p li dt dd tr td th option optgroup thead tbody tfoot colgroup caption rb rt rtc rp "
    "html head body".split()
)
_FOREIGN = frozenset({"svg", "math"})  # inside these, `<x/>` really is empty


@dataclass(frozen=True)
class Extracted:
    """What `extract` found on a page.

    title: the page's title: the first H1 of the main content, else of the page, else its
        og:title, else its <title>.
    markdown: the main content as Markdown ("" when there is none).
    refresh_url: absolute target of a `<meta http-equiv=refresh>` redirect (delay <= 10 s), for
        the reader to follow within its allow-list; None when the page is not a redirect stub.
    markdown_alternate: absolute href of `<link rel=alternate type=text/markdown>`, a cleaner
        source of the same page when the site offers one.
    js_shell: the page renders in the browser: scripts and (almost) no main-content text.
    word_count: words in `markdown`.
    headings: one per Markdown heading (see `Document`), with its clean text and the anchor
        the page gives it (see outline.py); what `pinax build --outline` records.
    removed: characters of hidden text (hidden elements, invisible characters) left out.
    """

    title: str
    markdown: str
    refresh_url: str | None = None
    markdown_alternate: str | None = None
    js_shell: bool = False
    word_count: int = 0
    headings: tuple[PageHeading, ...] = ()
    removed: int = 0
    entries: tuple[tuple[str, int, int], ...] = ()  # API entries: (id, start, end) in markdown

    def shell_problem(self, url: str) -> str:
        """Why a JavaScript shell has no content to give: get_page's error and
        `pinax extract`'s, in the same words."""
        return (
            f"{url}: the page renders in the browser (JavaScript): its HTML holds almost no "
            f"text ({self.word_count} words), and Pinax does not run scripts; look for the same "
            "content in another page of these docs"
        )


def decode_html(body: bytes, charset: str | None = None) -> str:
    """Text of an HTML body: BOM, the header's charset, `<meta charset>`, then sniffing.

    Declared single-byte charsets are read as windows-1252 (as browsers do), and valid UTF-8
    with non-ASCII text wins over a declared single-byte charset (a common server default that
    would otherwise turn every UTF-8 character into mojibake).
    """
    for bom, name in (
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ):
        if body.startswith(bom):
            return body[len(bom) :].decode(name, errors="replace")
    declared = [charset] if charset else []
    match = _CHARSET.search(body[:8192])
    if match:
        declared.append(match.group(1).decode("ascii", "replace"))
    utf8 = _utf8(body)
    for name in declared:
        name = name.strip().lower()
        if name in _WINDOWS_1252:
            if utf8 is not None and not utf8.isascii():
                return utf8
            name = "cp1252"
        usable = usable_charset(name)  # not e.g. punycode, which decodes in quadratic time
        if usable is None:
            continue
        if usable == "utf-8":  # as browsers do: a bad byte becomes U+FFFD, the rest stays
            return utf8 if utf8 is not None else body.decode("utf-8", errors="replace")
        try:
            return body.decode(usable)
        except UnicodeDecodeError:
            continue
    if utf8 is not None:
        return utf8
    try:
        return body.decode("cp1252")
    except UnicodeDecodeError:
        return body.decode("latin-1")


def _utf8(body: bytes) -> str | None:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return None


def repair_mojibake(text: str) -> str:
    """Undo UTF-8 text that was decoded as Latin-1/windows-1252 before it reached us (the page
    itself says "weâ€™re"). Only runs of such characters that decode as UTF-8 change, and only
    on pages showing the telltale C1 controls or "â€"."""
    if not _MOJIBAKE_SIGN.search(text):
        return text
    return _MOJIBAKE.sub(_unmangle, text)


def _unmangle(match: re.Match[str]) -> str:
    run = match.group(0)
    for codec in ("cp1252", "latin-1"):
        try:
            return run.encode(codec).decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            continue
    return run


def nesting(html: str) -> int:
    """How deep the parser will nest the page's elements, in linear time, read the way the
    parser reads them: `<div/>` opens a div (outside SVG and MathML), an end tag closes only an
    element that is open (and every element opened inside it), attribute values may hold `>`,
    and script, style and the like hold text, not tags. Comments and doctypes are skipped.
    """
    stack: list[str] = []
    open_count: dict[str, int] = {}
    deepest = 0
    position = 0
    while (start := html.find("<", position)) >= 0:
        if html.startswith("<!--", start):
            end = html.find("-->", start + 4)
            if end < 0:
                break
            position = end + 3
            continue
        tag = _TAG_NAME.match(html, start)
        if tag is None:
            position = start + 1
            continue
        rest = _TAG_REST.match(html, tag.end())
        if rest is None:  # the tag never ends: the rest of the page is inside it
            break
        position = rest.end()
        closing, name = tag.group(1), tag.group(2).lower()
        if name in _NOT_NESTING:
            continue
        if closing:
            if open_count.get(name):
                while True:  # every element opened inside it closes with it
                    popped = stack.pop()
                    open_count[popped] -= 1
                    if popped == name:
                        break
            continue
        foreign = open_count.get("svg") or open_count.get("math")
        if foreign and html[position - 2] == "/":
            continue
        stack.append(name)
        open_count[name] = open_count.get(name, 0) + 1
        deepest = max(deepest, len(stack))
        if name in _RAW_TEXT:
            end = _RAW_END[name].search(html, position)
            if end is None:
                break
            position = end.start()
    return deepest


def extract(html: str, url: str, stopped: Callable[[], bool] = lambda: False) -> Extracted:
    """The page's title, its main content as Markdown, and its signals (see `Extracted`).

    `stopped` is asked between steps: once it says True (the call was cancelled or ran out of
    time), the work ends with `FetchFailed` instead of running on for nobody.
    """
    depth = nesting(html) if html.count("<") > NESTING_CHECK_FROM else 0
    if depth > MAX_NESTING:
        raise FetchFailed(
            f"{url}: the page nests elements {depth:,} deep (the limit is {MAX_NESTING}); "
            "refused to parse it"
        )

    def step() -> None:
        if stopped():
            raise FetchFailed(f"{url}: extraction stopped (the call was cancelled or timed out)")

    step()
    tree = LexborHTMLParser(repair_mojibake(html))
    step()
    base = _base_url(tree, url)
    refresh_url = _refresh_url(tree, base)
    alternate = _markdown_alternate(tree, base)
    has_scripts = tree.css_first("script") is not None
    mark_task_lists(tree)
    removed = drop_invisible(tree)
    step()
    main = find_main(tree)
    if main is None:
        return Extracted(
            _title(tree, None),
            "",
            refresh_url,
            alternate,
            has_scripts and not refresh_url,
            removed=removed,
        )
    drop_boilerplate(main)
    mark_anchors(main)  # before normalize drops the permalinks
    entry_ids = mark_entries(main)
    step()
    normalize(tree, main, base)
    step()
    title = _title(tree, main)
    try:
        converted = to_markdown(main)
    except RecursionError:  # markup nested thousands deep: keep its text, line by line
        converted = "\n".join(line.strip() for line in main.text(separator="\n").splitlines())
    removed += count_invisible(converted)
    markdown, entries = take_entries(tidy(converted), entry_ids)
    words = len(_WORD.findall(markdown))
    js_shell = refresh_url is None and has_scripts and words < _JS_SHELL_WORDS
    titles = [(h.level, h.title) for h in Document(markdown).headings]
    headings = aligned_headings(main, titles)
    return Extracted(
        title, markdown, refresh_url, alternate, js_shell, words, headings, removed, tuple(entries)
    )


def tidy(markdown: str) -> str:
    """Invisible characters out, NBSP as spaces, trailing spaces and blank-line runs trimmed
    (blank lines inside fenced code are kept as they are)."""
    markdown = strip_invisible(markdown).replace("\u00a0", " ")
    markdown = "\n".join(line.rstrip(" \t") for line in markdown.split("\n")).strip("\n")
    if "\n\n\n" in markdown:
        markdown = _collapse_blank_runs(markdown)
    return markdown + "\n" if markdown else ""


def _collapse_blank_runs(markdown: str) -> str:
    out: list[str] = []
    fence: str | None = None
    blank = 0
    for line in markdown.split("\n"):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
        elif fence is not None and match and line.strip() == fence[0] * len(line.strip()):
            fence = None if len(line.strip()) >= len(fence) else fence
        if fence is None and not line:
            blank += 1
            if blank > 1:
                continue
        else:
            blank = 0
        out.append(line)
    return "\n".join(out)


def _base_url(tree: LexborHTMLParser, url: str) -> str:
    base = tree.css_first("base[href]")
    href = (base.attributes.get("href") or "").strip() if base is not None else ""
    return urljoin(url, href) if href else url


def _refresh_url(tree: LexborHTMLParser, base: str) -> str | None:
    for meta in tree.css("meta[http-equiv]"):
        if (meta.attributes.get("http-equiv") or "").strip().lower() != "refresh":
            continue
        content = meta.attributes.get("content") or ""
        match = _REFRESH.match(content)
        rest = content[match.end() :].strip()
        if not rest:
            continue
        delay = float(match.group(1) or 0)
        target = rest.strip("'\" ")
        if target and delay <= _REFRESH_MAX_DELAY:
            return urljoin(base, target)
    return None


def _markdown_alternate(tree: LexborHTMLParser, base: str) -> str | None:
    for link in tree.css("link[rel][href]"):
        attributes = link.attributes
        rel = (attributes.get("rel") or "").lower().split()
        kind = (attributes.get("type") or "").lower()
        if "alternate" in rel and kind in ("text/markdown", "text/x-markdown"):
            return urljoin(base, (attributes.get("href") or "").strip())
    return None


def _title(tree: LexborHTMLParser, main: LexborNode | None) -> str:
    headings = [main.css_first("h1") if main is not None else None, tree.css_first("h1")]
    og = tree.css_first('meta[property="og:title"]')
    title = tree.css_first("title")
    for text in (
        *(h.text(separator=" ") for h in headings if h is not None),
        og.attributes.get("content") or "" if og is not None else "",
        title.text() if title is not None else "",
    ):
        cleaned = _clean_text(text)
        if cleaned:
            return cleaned
    return ""


def _clean_text(text: str) -> str:
    return " ".join(strip_invisible(text).split()).rstrip("¶#").strip()
