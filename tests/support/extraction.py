"""Extraction quality: the metrics of ../shared/fixtures/README.md and the WCXB word F1.

One implementation for the benches (bench.quality.extract, outline, content_build) and the
tests (tests/pages/test_extract_quality.py, test_build_content.py): in tests/, so that a test needs
no bench to score a page. The same functions score Pinax and the naive baselines.

Fixture metrics (one page = rendered HTML + the author's source):
- word F1: multiset F1 of the output's words against the source's words plus the title's.
- fenced-code recall: share of the source's code blocks found in the output, a block counting
  when one fenced block of the output holds at least 90% of its non-blank lines.
- code-language recall: of the found blocks whose source declares a language, the share whose
  output fence names the same language (aliases such as py/python, sh/bash count as equal).
- heading recall: share of the source's headings (plus the front-matter title, where the page
  takes its H1 from there) that appear, same words, as a Markdown heading of the output.
- boilerplate leak: share of the output's words (occurrences) whose word never occurs in the
  source or title.

Interpretations (documented because the README leaves them open):
- Words are lowercase runs of letters, digits and underscore (as WCXB), with leading and
  trailing underscores stripped, so `__init__` and Markdown `_emphasis_` score alike.
- Source and output are reduced to plain text before counting: link and image targets,
  fence lines and backslash escapes go; link text, image alt text and code stay. The author's
  source also loses its HTML tags and comments, attribute lists (`{ #id }`, `{: .note }`),
  reference-link and abbreviation definitions, template tags (Liquid, Hugo shortcodes, MDX
  import/export) and the names of admonition/tab/container markers (`!!! note "Title"`,
  `=== "Tab"`, `::: tip`) keep their title, or their type word when untitled. A fence's
  `title="..."` is visible text. Extracted Markdown holds no HTML, so `<form>` there is text.
- Markdown sources are parsed the CommonMark way for fences (a closing fence indented 4+
  spaces deeper is code), MyST directive fences (```{note}) hold Markdown, ```{code-block}
  holds code, ```{toctree}/{contents}/{include} is generated and left out; Docsy `tabpane`
  shortcodes render each `tab` as a code block in its `lang` (unless text=true).
- reStructuredText: section titles (under/overlined), literal blocks (`::`), doctest blocks
  and code directives are parsed; directive names, options, role names, targets, comments
  and substitution definitions are dropped, directive arguments, role contents and
  footnotes kept; `:hide:` doctests and testsetup/testcleanup (never rendered) left out.
- Code lines are compared whitespace-collapsed, after stripping leading `>`, `#`, `~` and
  spaces (blockquote prefixes, shell prompts, hidden-line markers) and the markers sites
  rewrite (mkdocs-material annotations `(1)!`, VitePress `[!code ...]`), on both sides
  alike. Hugo `{{</* x */>}}` escapes are undone in the source; source lines holding a live
  template call (`{{% param %}}`, `{{ site.x }}`) render to values it does not hold and are
  left out of their block.
- Include directives (`--8<--`, `{{#include}}`, `<<< @/`, `{{% readfile %}}`) are not
  comparable: such source blocks are left out, and each is paired with the largest output
  code block that renders no source block (the included file), which is left out of F1 and
  leak too. Every method is scored this way.
- Headings: a leading section number ("4.1. ") is not heading text, and an output heading
  may carry up to two more words than the source's (a badge or version label).
- Caveats the fixtures README lists (generated content, unexpanded Markdown includes,
  Docsy section indexes) are otherwise left in: they cap every method equally.

WCXB (documentation pages): word-level precision, recall and F1 exactly as the benchmark's
evaluate.py (lowercase `\\w+` multiset) on the output reduced to plain text; `with`/`without`
snippets are looked up case-insensitively in that plain text (see `_Haystack`: Markdown marks,
typographic quotes and whitespace are normalized on both sides, because the snippets come
from a DOM text dump, "calling\\nfetch()\\n, which"), averaged per page like evaluate.py.
"""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

# ---------------------------------------------------------------- words and plain text

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """Lowercase word tokens; leading/trailing underscores stripped (see module docstring)."""
    out = []
    for token in _WORD.findall(text.lower()):
        token = token.strip("_")
        if token:
            out.append(token)
    return out


def wcxb_words(text: str) -> list[str]:
    """WCXB's own tokenizer: lowercase `\\w+` runs."""
    return _WORD.findall(text.lower())


def prf(predicted: list[str], reference: list[str]) -> tuple[float, float, float]:
    """Multiset precision, recall, F1 (WCXB's word_f1)."""
    if not reference:
        return (1.0, 1.0, 1.0) if not predicted else (0.0, 0.0, 0.0)
    if not predicted:
        return 0.0, 0.0, 0.0
    overlap = sum((Counter(predicted) & Counter(reference)).values())
    p, r = overlap / len(predicted), overlap / len(reference)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


_FENCE = re.compile(r"^(?P<indent>[ \t>]*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*?)\s*$")
_FENCE_TITLE = re.compile(r'title="([^"]*)"')
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\((?:[^()\s]|\([^)]*\))*(?:\s+\"[^\"]*\")?\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_FOOTNOTE_REF = re.compile(r"\[\^[^\]]+\]:?")
_REF_DEF = re.compile(r"^\s*\[[^\]^]+\]:\s+\S+.*$", re.M)
_ABBR_DEF = re.compile(r"^\s*\*\[[^\]]+\]:.*$", re.M)
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TAG = re.compile(r"</?[A-Za-z][\w.:-]*(?:\s+[^<>]*?)?/?>")
_ATTR_LIST = re.compile(r"\{:?\s*(?:[#.:]|[\w-]+=)[^{}\n]*\}|\{:\s*[^{}\n]*\}")
_TEMPLATE = re.compile(r"\{\{[<%].*?[%>]\}\}|\{%.*?%\}|\{\{.*?\}\}", re.S)
_MDX_IMPORT = re.compile(r"^(?:import|export)\s.*$", re.M)
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_ADMONITION = re.compile(r"^(\s*)(?:!!!|\?\?\?\+?|===|:{3,})\s*([\w-]*)\s*(.*)$")
_SNIPPET_IMPORT = re.compile(r"^\s*<<<\s+@/")
_CODE_INCLUDE = re.compile(
    r"--8<--|\{\{#(?:rustdoc_)?include|^\s*<<<\s|<!--\s*@include|\{\{[<%]\s*readfile"
)


def _admonition_line(match: re.Match[str]) -> str:
    indent, kind, rest = match.groups()
    title = rest.strip().strip('"').strip()
    if title:
        return f"{indent}{title}"
    return f"{indent}{kind}" if kind not in ("code-group", "") else ""


def _strip_inline(text: str, html: bool = True) -> str:
    """Markdown inline syntax (and embedded HTML, in an author's source) reduced to its
    visible text. Extracted Markdown holds no HTML: a `<form>` there is text."""
    if html:
        text = _COMMENT.sub(" ", text)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _FOOTNOTE_REF.sub(" ", text)
    text = _AUTOLINK.sub(r"\1", text)
    if html:
        text = _TAG.sub(" ", text)
        text = _ATTR_LIST.sub(" ", text)
        text = _TEMPLATE.sub(" ", text)
    return _ESCAPE.sub(r"\1", text)


def markdown_text(markdown: str | list[Block], html: bool = True) -> str:
    """Plain text of a Markdown document (or its blocks): the syntax dropped, the visible
    text kept. `html=False` for extracted Markdown (see `_strip_inline`)."""
    prose: list[str] = []
    out: list[str] = []
    blocks = split_blocks(markdown) if isinstance(markdown, str) else markdown
    for block in blocks:
        if block.code is None:
            prose.append(block.text)
        else:
            out.append(_prose_text("\n".join(prose), html))
            prose = []
            out.append("\n".join(block.code))
    out.append(_prose_text("\n".join(prose), html))
    return "\n".join(out)


def _prose_text(text: str, html: bool = True) -> str:
    if html:
        text = _COMMENT.sub(" ", text)
        text = _REF_DEF.sub("", text)
        text = _ABBR_DEF.sub("", text)
        text = _MDX_IMPORT.sub("", text)
        text = "\n".join(_ADMONITION.sub(_admonition_line, line) for line in text.splitlines())
    return _strip_inline(text, html)


@dataclass
class Block:
    """A run of prose (`code is None`) or one fenced code block."""

    text: str = ""
    code: list[str] | None = None
    language: str = ""


def split_blocks(markdown: str) -> list[Block]:
    """Prose runs and fenced code blocks, fences found at any indent or blockquote depth."""
    blocks: list[Block] = []
    prose: list[str] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            prose.append(lines[i])
            i += 1
            continue
        fence, indent = match["fence"], match["indent"]
        info = match["info"].strip()
        code: list[str] = []
        i += 1
        while i < len(lines):
            closing = _FENCE.match(lines[i])
            if (
                closing
                and closing["fence"][0] == fence[0]
                and len(closing["fence"]) >= len(fence)
                and not closing["info"]
                and len(closing["indent"]) <= len(indent) + 3  # deeper is code (CommonMark)
            ):
                break
            code.append(_dedent_prefix(lines[i], indent))
            i += 1
        i += 1
        if prose:
            blocks.append(Block("\n".join(prose)))
            prose = []
        myst = _MYST_DIRECTIVE.match(info)
        if myst:
            blocks.extend(_myst_directive(myst.group(1), myst.group(2).strip(), code))
            continue
        title = _FENCE_TITLE.search(info)
        if title:  # rendered above the block
            prose.append(title.group(1))
        blocks.append(Block(code=code, language=fence_language(info)))
    if prose:
        blocks.append(Block("\n".join(prose)))
    return blocks


_MYST_DIRECTIVE = re.compile(r"^\{([\w:-]+)\}\s*(.*)$")
_MYST_OPTION = re.compile(r"^\s*:[\w-]+:(?:\s.*)?$")
_MYST_CODE = frozenset({"code-block", "code", "sourcecode", "code-cell"})
_MYST_GENERATED = frozenset({"toctree", "contents", "include", "literalinclude", "raw", "eval-rst"})


def _myst_directive(name: str, argument: str, body: list[str]) -> list[Block]:
    """A MyST directive fence (```{note}): code, nothing (generated), or Markdown content."""
    lines = [line for line in body if not _MYST_OPTION.match(line)]
    if name in _MYST_CODE:
        return [Block(code=lines, language=fence_language(argument))]
    if name in _MYST_GENERATED:
        return []
    return split_blocks("\n".join([argument or name, *lines]))


def _dedent_prefix(line: str, prefix: str) -> str:
    """A code line without its container prefix (list indent, blockquote markers)."""
    i = 0
    for char in prefix:
        if i < len(line) and line[i] in " \t>" and (line[i] == char or char in " \t>"):
            i += 1
    return line[i:]


def fence_language(info: str) -> str:
    """The language a fence's info string names: `py title="x"`, `{ .yaml }`, `rust,ignore`."""
    info = info.strip()
    if info.startswith("{"):
        match = re.search(r"\.([\w+#-]+)", info)
        return match.group(1).lower() if match else ""
    first = re.split(r"[\s,{:]", info, maxsplit=1)[0] if info else ""
    return "" if "=" in first else first.strip(".").lower()


# ---------------------------------------------------------------- reStructuredText

_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+<>:._])\1{2,}\s*$")
_RST_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+(?:\|[^|]+\|\s+)?([\w:.-]+)::\s*(.*)$")
_RST_COMMENT_OR_TARGET = re.compile(r"^(\s*)\.\.(?:\s|$)")
_RST_FOOTNOTE_DEF = re.compile(r"^\s*\.\.\s+\[[^\]]+\]\s+(.*)$")
_RST_OPTION = re.compile(r"^\s+:[\w -]+:(?:\s.*)?$")
_RST_ROLE = re.compile(r":[\w:.+-]+:`([^`]*)`")
_RST_LINK = re.compile(r"`([^`<]*?)\s*<[^>`]*>`__?")
_RST_REF = re.compile(r"`([^`]+)`__?")
_RST_ROLE_TARGET = re.compile(r"^(.*?)\s*<[^>]*>$")
_RST_FOOTNOTE = re.compile(r"\[(?:#[\w-]*|\*|\d+)\]_")
_RST_CODE_DIRECTIVES = frozenset(
    {"code-block", "code", "sourcecode", "doctest", "testcode", "testoutput", "literalinclude"}
)


@dataclass
class RstDocument:
    """What the metrics need from a reStructuredText source."""

    text: str
    headings: list[str]
    code_blocks: list[tuple[list[str], str]]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _rst_role(match: re.Match[str]) -> str:
    content = match.group(1)
    target = _RST_ROLE_TARGET.match(content)
    if target and target.group(1):
        content = target.group(1)
    return content.lstrip("~!")


def _rst_inline(text: str) -> str:
    text = _RST_ROLE.sub(_rst_role, text)
    text = _RST_LINK.sub(r"\1", text)
    text = _RST_REF.sub(r"\1", text)
    return _RST_FOOTNOTE.sub(" ", text)


def parse_rst(source: str) -> RstDocument:
    """Headings, literal/code blocks and visible text of a reStructuredText document."""
    lines = source.splitlines()
    text: list[str] = []
    headings: list[str] = []
    blocks: list[tuple[list[str], str]] = []
    i = 0
    literal_indent: int | None = None
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        # Section titles: text underlined (optionally overlined) with punctuation.
        if (
            stripped
            and i + 1 < len(lines)
            and _RST_UNDERLINE.match(lines[i + 1])
            and not _RST_UNDERLINE.match(line)
            and len(lines[i + 1].strip()) >= len(stripped) - 1
            and _indent(line) == 0
        ):
            title = _rst_inline(stripped)
            headings.append(title)
            text.append(title)
            i += 2
            continue
        directive = _RST_DIRECTIVE.match(line)
        if directive:
            indent, name, argument = directive.groups()
            body, i = _rst_body(lines, i + 1, len(indent))
            name = name.split(":")[-1]
            if name in ("testsetup", "testcleanup") or any(ln.strip() == ":hide:" for ln in body):
                continue  # never rendered
            if name in _RST_CODE_DIRECTIVES:
                code = [ln for ln in body if not _RST_OPTION.match(ln)]
                language = "pycon" if name == "doctest" else argument.strip().lower()
                if name != "literalinclude":
                    blocks.append((_dedent(code), language))
                    text.extend(code)
                continue
            if name in ("image", "figure", "toctree", "highlight", "include", "raw", "only"):
                body = [] if name != "figure" else body
                argument = ""
            if name in ("note", "warning", "seealso", "tip", "important", "caution", "danger"):
                argument = f"{name} {argument}"
            text.append(_rst_inline(argument))
            # Directive content is parsed again (admonitions hold paragraphs and code).
            inner = [ln for ln in body if not _RST_OPTION.match(ln)]
            nested = parse_rst("\n".join(_dedent(inner)))
            text.append(nested.text)
            headings.extend(nested.headings)
            blocks.extend(nested.code_blocks)
            continue
        footnote = _RST_FOOTNOTE_DEF.match(line)
        if footnote:  # rendered at the end of the page
            body, i = _rst_body(lines, i + 1, _indent(line))
            text.append(_rst_inline(" ".join([footnote.group(1), *body])))
            continue
        if _RST_COMMENT_OR_TARGET.match(line):  # comment, target or substitution
            _, i = _rst_body(lines, i + 1, _indent(line))
            continue
        if literal_indent is not None and stripped == "":
            i += 1
            continue
        if literal_indent is not None:
            base, literal_indent = literal_indent, None
            if _indent(line) > base:
                body, i = _rst_body(lines, i, base)
                blocks.append((_dedent(body), ""))
                text.extend(body)
                continue
        if stripped.startswith(">>>"):  # doctest block: runs until a blank line
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            blocks.append((_dedent(block), "pycon"))
            text.extend(block)
            continue
        if stripped.endswith("::"):
            literal_indent = _indent(line)
            stripped = stripped[:-2]
        text.append(_rst_inline(stripped))
        i += 1
    return RstDocument("\n".join(text), headings, blocks)


def _rst_body(lines: list[str], i: int, indent: int) -> tuple[list[str], int]:
    """The indented block after a directive (lines indented deeper than `indent`)."""
    body: list[str] = []
    while i < len(lines):
        line = lines[i]
        if line.strip() and _indent(line) <= indent:
            break
        body.append(line)
        i += 1
    while body and not body[-1].strip():
        body.pop()
    return body, i


def _dedent(lines: list[str]) -> list[str]:
    indents = [_indent(ln) for ln in lines if ln.strip()]
    cut = min(indents) if indents else 0
    return [ln[cut:] for ln in lines]


# ---------------------------------------------------------------- headings and code

_ATX = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
_ANNOTATION = re.compile(r"\s*#?\s*\(\d+\)!?")
_VITEPRESS_MARK = re.compile(r"\s*(?://|#|<!--)?\s*\[!!?code[^\]]*\]\s*(?:-->)?")
_HUGO_ESCAPE = re.compile(r"\{\{([<%])/\*\s*(.*?)\s*\*/([>%])\}\}")
_TEMPLATE_CALL = re.compile(r"\{\{[<%](?!/\*)|\{\{\s*(?:site|page)\.")
_CODE_LINE_PREFIX = re.compile(r"^[\s>#~]+")
_LANGUAGE_ALIASES = {
    "py": "python",
    "python3": "python",
    "py3": "python",
    "pycon": "python",
    "sh": "bash",
    "shell": "bash",
    "zsh": "bash",
    "console": "bash",
    "shell-session": "bash",
    "js": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
    "jsx": "javascript",
    "ts": "typescript",
    "tsx": "typescript",
    "yml": "yaml",
    "md": "markdown",
    "mdx": "markdown",
    "rs": "rust",
    "htm": "html",
    "xml": "html",
    "vue-html": "html",
    "text": "",
    "txt": "",
    "plain": "",
    "plaintext": "",
    "none": "",
    "default": "python",
}


def normalize_language(language: str) -> str:
    language = language.lower().strip().removesuffix("-vue")  # VitePress: js-vue is js
    return _LANGUAGE_ALIASES.get(language, language)


_SECTION_NUMBER = re.compile(r"^\s*(?:\d+\.)+\s+")


def heading_key(text: str) -> str:
    """A heading's words; a leading section number ("4.1. ") is not part of its text."""
    return " ".join(words(_SECTION_NUMBER.sub("", _strip_inline(text))))


def markdown_headings(markdown: str) -> list[str]:
    """ATX and setext headings outside code blocks, as word keys."""
    found: list[str] = []
    for block in split_blocks(markdown):
        if block.code is not None:
            continue
        lines = block.text.splitlines()
        for i, line in enumerate(lines):
            match = _ATX.match(line)
            if match:
                found.append(heading_key(match.group(2)))
            elif (
                i
                and _SETEXT.match(line)
                and lines[i - 1].strip()
                and not lines[i - 1].lstrip().startswith(("-", "*", "|", ">"))
                and (i < 2 or not lines[i - 2].strip())
            ):
                found.append(heading_key(lines[i - 1]))
    return [key for key in found if key]


def code_line(line: str) -> str:
    """A code line for comparison (the same normalization on both sides)."""
    line = _VITEPRESS_MARK.sub("", line)
    line = _ANNOTATION.sub("", line)
    return " ".join(_CODE_LINE_PREFIX.sub("", line).split())


def _source_code_line(line: str) -> str:
    if _TEMPLATE_CALL.search(line):  # rendered to a value the source does not hold
        return ""
    line = _HUGO_ESCAPE.sub(r"{{\1 \2 \3}}", line)
    for escaped, plain in (("{{%/*", "{{%"), ("{{</*", "{{<"), ("*/%}}", "%}}"), ("*/>}}", ">}}")):
        line = line.replace(escaped, plain)
    return code_line(line)


# ---------------------------------------------------------------- scoring one page


@dataclass
class Reference:
    """What a page should yield: words, headings, code blocks (lines, language).

    `includes` counts the source's code blocks that are include directives: the page shows
    the included file there, which the source does not hold (see `score_page`).
    """

    text: str
    headings: list[str]
    code_blocks: list[tuple[list[str], str]]
    includes: int = 0


def _is_include(lines: list[str]) -> bool:
    return any(_CODE_INCLUDE.search(line) for line in lines)


def reference_from_source(
    source: str, source_format: str, title: str, title_heading: bool
) -> Reference:
    if source_format == "rst":
        doc = parse_rst(source)
        text, headings = doc.text, [heading_key(h) for h in doc.headings]
        raw_blocks = doc.code_blocks
    else:
        source = _hugo_tabpanes(source.replace("\\{{#", "{{#"))  # mdBook's escaped {{#
        parts = split_blocks(source)
        text = markdown_text([b for b in parts if b.code is None or not _is_include(b.code)])
        headings = markdown_headings(source)
        raw_blocks = [(b.code, b.language) for b in parts if b.code is not None]
        # VitePress `<<< @/file` imports a code block from a file the source does not hold.
        raw_blocks += [
            ([line], "")
            for b in parts
            if b.code is None
            for line in b.text.splitlines()
            if _SNIPPET_IMPORT.match(line)
        ]
    blocks = []
    includes = 0
    for lines, language in raw_blocks:
        if _is_include(lines):
            includes += 1
            continue
        keys = [key for key in (_source_code_line(line) for line in lines) if key]
        if keys:
            blocks.append((keys, language))
    if title_heading:
        headings = [heading_key(title), *headings]
    return Reference(f"{title}\n{text}", [h for h in headings if h], blocks, includes)


_TABPANE = re.compile(r"\{\{<\s*tabpane\b([^>]*)>\}\}(.*?)\{\{<\s*/tabpane\s*>\}\}", re.S)
_TAB = re.compile(
    r"\{\{<\s*tab\b([^>]*?)\s*/>\}\}|\{\{<\s*tab\b([^>]*?)>\}\}(.*?)\{\{<\s*/tab\s*>\}\}", re.S
)
_SHORTCODE_ARG = re.compile(r'(\w+)=(?:"([^"]*)"|(\S+))')


def _hugo_tabpanes(source: str) -> str:
    """Docsy `tabpane` shortcodes render each `tab` as a code block (unless text=true)."""

    def tabpane(match: re.Match[str]) -> str:
        pane = {k: a or b for k, a, b in _SHORTCODE_ARG.findall(match.group(1))}
        if pane.get("text") == "true":
            return match.group(0)
        parts = []
        for tab in _TAB.finditer(match.group(2)):
            args = {k: a or b for k, a, b in _SHORTCODE_ARG.findall(tab.group(1) or tab.group(2))}
            parts.append(args.get("header", ""))
            if tab.group(3) and tab.group(3).strip():
                language = args.get("lang") or pane.get("lang", "")
                parts.append(f"```{language}\n{tab.group(3).strip(chr(10))}\n```")
        return "\n\n".join(parts)

    return _TABPANE.sub(tabpane, source)


@dataclass
class Scores:
    """One page's scores; None where the page has nothing to measure."""

    f1: float
    precision: float
    recall: float
    leak: float
    code: float | None
    language: float | None
    headings: float | None
    words: int
    details: dict = field(default_factory=dict)


def score_page(markdown: str, reference: Reference) -> Scores:
    blocks = split_blocks(markdown)
    out_blocks = [
        ({key for key in map(code_line, b.code) if key}, normalize_language(b.language))
        for b in blocks
        if b.code is not None
    ]
    # Which output block renders each source block: the one holding most of its lines;
    # ties go to a block in the wanted language (a rendered example beside its source),
    # then to the block closest in size.
    matches: list[tuple[int, float]] = []
    for lines, language in reference.code_blocks:
        wanted = normalize_language(language)
        best, best_index, best_key = 0.0, -1, (0.0, False, 0)
        for index, (out_lines, out_language) in enumerate(out_blocks):
            share = sum(1 for line in lines if line in out_lines) / len(lines)
            key = (share, out_language == wanted, -abs(len(out_lines) - len(lines)))
            if share > 0 and key > best_key:
                best, best_index, best_key = share, index, key
        matches.append((best_index, best))
    # Pair each include directive of the source with an output code block that renders no
    # source block (the included file, which the source does not hold; the largest such
    # blocks first): both are left out.
    claimed = {index for index, share in matches if share >= 0.5}
    code_blocks = [b for b in blocks if b.code is not None]
    unclaimed = sorted(
        (i for i in range(len(code_blocks)) if i not in claimed and out_blocks[i][0]),
        key=lambda i: -len(out_blocks[i][0]),
    )
    unclaimed = [id(code_blocks[i]) for i in unclaimed]
    skipped = set(unclaimed[: reference.includes])
    out_words = words(markdown_text([b for b in blocks if id(b) not in skipped], html=False))
    ref_words = words(reference.text)
    precision, recall, f1 = prf(out_words, ref_words)
    vocabulary = set(ref_words)
    leaked = [w for w in out_words if w not in vocabulary]
    leak = len(leaked) / len(out_words) if out_words else 0.0

    found = languages = language_hits = 0
    missed_code: list[str] = []
    missed_language: list[str] = []
    for (lines, language), (index, best) in zip(reference.code_blocks, matches, strict=True):
        wanted = normalize_language(language)
        best_language = out_blocks[index][1] if index >= 0 else ""
        if best >= 0.9:
            found += 1
            if wanted:
                languages += 1
                if best_language == wanted:
                    language_hits += 1
                else:
                    missed_language.append(f"{language}->{best_language or '-'}")
        else:
            missed_code.append(f"{best:.2f} {lines[0][:60]}")
    heading_hits, missed_headings = _match_headings(reference.headings, markdown_headings(markdown))
    blocks = len(reference.code_blocks)
    return Scores(
        f1=f1,
        precision=precision,
        recall=recall,
        leak=leak,
        code=found / blocks if blocks else None,
        language=language_hits / languages if languages else None,
        headings=heading_hits / len(reference.headings) if reference.headings else None,
        words=len(out_words),
        details={
            "leaked": Counter(leaked).most_common(15),
            "missed_code": missed_code,
            "missed_language": missed_language,
            "missed_headings": missed_headings,
        },
    )


def _match_headings(wanted: list[str], found: list[str]) -> tuple[int, list[str]]:
    """Source headings found as output headings: same words, or the same words followed by
    at most two more (a badge or version label a component adds to the rendered heading)."""
    pool = Counter(found)
    missed = []
    hits = 0
    for key in wanted:
        match = key if pool[key] else None
        if match is None:
            match = next(
                (
                    h
                    for h in pool
                    if pool[h]
                    and h.startswith(key + " ")
                    and len(h.split()) - len(key.split()) <= 2
                ),
                None,
            )
        if match is None:
            missed.append(key)
        else:
            pool[match] -= 1
            hits += 1
    return hits, missed


# ---------------------------------------------------------------- WCXB


_TYPOGRAPHY = str.maketrans(
    {"‘": "'", "’": "'", "“": "'", "”": "'", '"': "'", "–": "-", "—": "-", "\u00a0": " "}
)
# Line-start syntax (blockquote markers, list bullets and numbers), table pipes, permalink
# symbols and icon-font glyphs: left out on both sides.
_LINE_MARKS = re.compile(r"^[ \t]*(?:>[ \t]?)*(?:(?:[-*+]|\d{1,3}[.)])[ \t]+)?", re.M)
_SYMBOLS = re.compile("[|#¶\ue000-\uf8ff]")
_EMPHASIS = re.compile(r"(?<![\w*`~])[*`~]+(?=\S)|(?<=\S)[*`~]+(?![\w*`~])")


def _normalize_snippet_text(text: str) -> str:
    """Markdown marks and symbols out, typographic quotes and dashes as ASCII, lowercase."""
    text = _LINE_MARKS.sub("", text)
    text = _SYMBOLS.sub(" ", text)
    return _EMPHASIS.sub("", text).translate(_TYPOGRAPHY).replace("…", "...").lower()


class _Haystack:
    """Snippet lookup that ignores whitespace but not word boundaries.

    The ground-truth snippets come from a DOM text dump with line breaks around inline
    elements ("calling\\nfetch()\\n, which"), so whitespace is left out of the comparison;
    a match must still start at a word boundary of the text ("sign in" is not found in
    "design") and, for short snippets, end at one ("log in" is not "login"); long snippets may
    stop mid-word. Line-start Markdown marks are left out too."""

    def __init__(self, text: str) -> None:
        self.text = _normalize_snippet_text(text)
        self.positions = [i for i, char in enumerate(self.text) if not char.isspace()]
        self.squeezed = "".join(self.text[i] for i in self.positions)

    def __contains__(self, snippet: str) -> bool:
        needle = "".join(_normalize_snippet_text(snippet).split())
        if not needle:
            return True
        start = self.squeezed.find(needle)
        while start != -1:
            first = self.positions[start]
            before = self.text[first - 1] if first else " "
            end = self.positions[start + len(needle) - 1] + 1
            after = self.text[end] if end < len(self.text) else " "
            starts = not (before.isalnum() and needle[0].isalnum())
            # Long snippets may stop mid-word; short ones are whole words ("log in" ≠ "login").
            ends = len(needle) >= 40 or not (after.isalnum() and needle[-1].isalnum())
            if starts and ends:
                return True
            start = self.squeezed.find(needle, start + 1)
        return False


def wcxb_scores(markdown: str, truth: dict) -> dict[str, float]:
    text = markdown_text(markdown, html=False)
    precision, recall, f1 = prf(wcxb_words(text), wcxb_words(truth["main_content"]))
    haystack = _Haystack(text)
    with_ = truth.get("with") or []
    without = truth.get("without") or []
    found = sum(1 for s in with_ if s in haystack)
    leaked = sum(1 for s in without if s in haystack)
    return {
        "f1": f1,
        "precision": precision,
        "recall": recall,
        "with": found / len(with_) if with_ else 1.0,
        "without": leaked / len(without) if without else 0.0,
    }


# ---------------------------------------------------------------- the data


@dataclass
class Fixture:
    """One page of ../shared/fixtures/sites."""

    generator: str
    name: str
    path: Path
    meta: dict

    @property
    def key(self) -> str:
        return f"{self.generator}/{self.name}"

    @property
    def url(self) -> str:
        return self.meta["url"]

    def html_bytes(self) -> bytes:
        data = (self.path / self.meta["page_file"]).read_bytes()
        return gzip.decompress(data) if self.meta["page_file"].endswith(".gz") else data

    def reference(self) -> Reference:
        source = (self.path / self.meta["source_file"]).read_text(encoding="utf-8")
        return reference_from_source(
            source,
            self.meta["source_format"],
            self.meta["title"],
            bool(self.meta.get("title_from_front_matter")),
        )


def fixtures(root: Path) -> Iterator[Fixture]:
    """Every fixture under `root` (fixtures/sites), hard cases included, in a stable order."""
    for meta_path in sorted(root.glob("*/*/meta.json")):
        folder = meta_path.parent
        yield Fixture(folder.parent.name, folder.name, folder, json.loads(meta_path.read_text()))


@dataclass
class WcxbPage:
    """One WCXB documentation page: the served HTML and the human-reviewed ground truth."""

    page_id: str
    url: str
    html_path: Path
    truth: dict

    def html_bytes(self) -> bytes:
        return gzip.decompress(self.html_path.read_bytes())


def wcxb_pages(root: Path) -> Iterator[WcxbPage]:
    """The pages of corpora/wcxb-docs (`root` is that folder)."""
    for truth_path in sorted((root / "dev").glob("*.json")):
        data = json.loads(truth_path.read_text())
        html_path = truth_path.with_name(truth_path.stem + ".html.gz")
        yield WcxbPage(truth_path.stem, data["url"], html_path, data["ground_truth"])
