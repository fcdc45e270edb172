"""A section's plain text made in one pass where it can be: the same text as the careful way.

The content build cleans every section (`pinax.search.content.plain`): get_page's hidden-text
rules, then tags, control characters, link targets, fence lines, icons and marks. It once
parsed a section's Markdown up to three times (a `budget.Document` for comments, another for
hidden markup, a third for tags) and ran an expression per step; now the code fences found
once serve every step that can use them, and ASCII text goes through byte tables. The
reference below is that earlier, careful way, kept here as the oracle.
"""

from __future__ import annotations

import gzip
import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinax.pages.budget import Document
from pinax.pages.hidden import attributes, drop_hidden_markup
from pinax.pages.text import (
    Fences,
    _drop_comments,
    clean_markdown_counted,
    code_test,
    strip_invisible,
    visible_text,
)
from pinax.search.content import plain
from tests.conftest import SHARED, shared_path
from tests.support.work import assert_linear

_TAG = re.compile(r"</?[A-Za-z][^<>]{0,2000}>")
_NEVER_SHOWN = ("<style", "<script", "<template", "<noscript", "<head", "<title")
_HIDING_TAG = re.compile(r"<[A-Za-z][^<>]*?(?i:hidden|style)")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_LINK_TARGET = re.compile(r"\]\([^)\s]{0,2000}\)")
_ICON = re.compile(r":[a-z][a-z0-9_]*(?:-[a-z0-9_]+)+:")
_FENCE = re.compile(r"^ {0,3}(?:```|~~~)[^\n]*$", re.M)
_MARKS = str.maketrans("", "", "*`|[]!")
_MARK_RUNS = re.compile(r"[*`|\[\]!]+")


def careful_clean(text: str) -> tuple[str, int]:
    """Served Markdown cleaned with a full Document parse for each step that needs fences."""
    cleaned = strip_invisible(text)
    removed = len(text) - len(cleaned)
    if "<" not in cleaned:
        return cleaned, removed
    if "<!--" in cleaned:
        dropped = _drop_comments(cleaned, Document(cleaned))
        removed += len(cleaned) - len(dropped)
        cleaned = dropped
    lower = cleaned.lower()
    if not (any(tag in lower for tag in _NEVER_SHOWN) or _HIDING_TAG.search(cleaned)):
        return cleaned, removed
    cleaned, hidden = drop_hidden_markup(cleaned, code_test(cleaned, Document(cleaned)))
    return cleaned, removed + hidden


def careful_visible(markdown: str) -> str:
    text = careful_clean(markdown)[0]
    if "<" in text:
        in_code = code_test(text, Document(text))
        text = _TAG.sub(lambda tag: tag.group() if in_code(tag.start()) else "", text)
    return _CONTROL.sub("", text)


def careful_plain(markdown: str) -> str:
    text = _ICON.sub("", _FENCE.sub("", _LINK_TARGET.sub("", careful_visible(markdown))))
    text = text.translate(_MARKS) if text.isascii() else _MARK_RUNS.sub("", text)
    return " ".join(text.split())


PIECES = [
    "<!-- note -->",
    "<!--",
    "-->",
    "```",
    "````",
    "~~~",
    "\n```\n",
    "\n",
    " ",
    "  ",
    "`",
    "text ",
    "Word",
    "<div hidden>x</div>",
    '<span aria-hidden="true">y</span>',
    '<p style="display:none">z</p>',
    "<style>.h{display:none}</style>",
    '<i class="h">q</i>',
    "<script>s</script>",
    "<b>",
    "</b>",
    "<template>t</template>",
    "<HEAD><title>T</title>",
    '<a href="x">l</a>',
    "[a](b)",
    "![i](j.png)",
    "**",
    "|",
    ":octicons-x-24:",
    "\u200b",
    "\x00",
    "\x1f",
    "\x7f",
    "é",
    "\u00ad",
    "\r\n",
    "\t",
    '<td style="color: red">c</td>',
    '<TD STYLE="opacity:0">c</TD>',
    "<div id=k>d</div>",
    "<style>#k{visibility:hidden}</style>",
    "<noscript>n</noscript>",
    "a < b",
    "<3",
    "  ```py\n",
    "\t~~~~\n",
    "    ```\n",
    '<input HIDDEN value="v">',
]


def mixes(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choices(PIECES, k=rng.randint(1, 40))) for _ in range(count)]


def same_everywhere(text: str) -> None:
    assert Fences(text).fences == Document(text).fences
    assert clean_markdown_counted(text) == careful_clean(text)
    assert visible_text(text) == careful_visible(text)
    assert plain(text) == careful_plain(text)


def test_random_mixes_of_comments_fences_and_hiding_markup_clean_the_same() -> None:
    for text in mixes(3000, seed=25):
        same_everywhere(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES) | st.text(max_size=6), max_size=30))
def test_any_text_cleans_the_same(pieces: list[str]) -> None:
    same_everywhere("".join(pieces))


@pytest.mark.parametrize("name", ["kubernetes", "django", "react", "textual"])
def test_real_sections_clean_the_same(name: str) -> None:
    with gzip.open(shared_path("corpora", "content", f"{name}.jsonl.gz"), "rt") as lines:
        texts = [s["text"] for line in lines for s in json.loads(line)["sections"]]
    for text in texts:
        same_everywhere(text)


def test_fixture_sources_clean_the_same() -> None:
    sources = sorted(shared_path("fixtures", "sites").rglob("source.*"))
    assert sources, f"no fixture sources under {SHARED}"
    for source in sources:
        same_everywhere(source.read_bytes().decode("utf-8", "replace"))


def test_fences_are_found_as_a_document_finds_them() -> None:
    for text in [
        "```\ncode\n```",
        "  ```py\n<b>\n  ```  \nafter",
        "````\n```\nstill code\n````\nout",
        "~~~\n```\n~~~",
        "text ```not a fence```\n",
        "\t```\nx",  # never closed: to the end
        "``` a\n``` b\n```",  # a closing line holds nothing after its marks
        " ~~~```\n~~~",
    ]:
        assert Fences(text).fences == Document(text).fences, text


def test_hiding_attributes_are_read_whatever_their_case() -> None:
    """Tags whose attributes cannot hide are passed over unread: the look-out words are
    matched lower-cased, as attribute names are read."""
    hidden = [
        "<div HIDDEN>x</div>",
        '<span ARIA-HIDDEN="TRUE">x</span>',
        '<p Style="DISPLAY: NONE">x</p>',
        "<style>.secret{display:none}</style><em CLASS='secret'>x</em>",
        "<style>#k{opacity:0}</style><em ID=k>x</em>",
    ]
    for text in hidden:
        kept, removed = drop_hidden_markup(text, lambda position: False)
        assert "x" not in kept and removed, text
    shown = '<p class="secret" id="k" title="hidden words">x</p>'
    assert "hidden" in attributes(' title="hidden words"')["title"]
    assert drop_hidden_markup(shown, lambda position: False) == (shown, 0)


def test_a_long_line_of_fence_marks_is_read_in_linear_time() -> None:
    """A line is looked at once from its first mark: a 1 MB line of a quarter million
    marks (and as many lines of one) costs about as much per mark as a short one."""
    makes = (lambda n: "```x" * n, lambda n: "~~~ " * n, lambda n: "a" * (2 * n) + "```" * n)
    for make in makes:
        text = make(250_000)
        assert Fences(text).fences == Document(text).fences

        def read(n: int, make=make) -> None:
            text = make(n)
            Fences(text)
            Document(text)
            plain(text)

        assert_linear(read, 20_000)  # compared with 8 times the input, not timed
