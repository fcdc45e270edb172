"""Tool results as text a model reads comfortably: one line per row, no nulls, no JSON noise.

The structured result stays the contract; this is its reading copy (the MCP text block and
the resources). Fields a renderer does not know (newer code adds some) are still shown, as
`name: value` lines, so nothing in the structured result is hidden from a text-only reader.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

Row = dict[str, Any]


def render(tool: str, data: Row) -> str:
    return RENDERERS[tool](data)


def _value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return ", ".join(_value(v) for v in value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _shown(value: Any) -> bool:
    return value is not None and value != "" and value != [] and value != {}


def _extras(data: Row, known: Iterable[str]) -> str:
    skip = set(known)
    return "\n".join(
        f"{key}: {_value(value)}"
        for key, value in data.items()
        if key not in skip and _shown(value)
    )


def _row_extras(row: Row, known: Iterable[str]) -> str:
    skip = set(known)
    parts = [
        f"{key} {_value(value)}" for key, value in row.items() if key not in skip and _shown(value)
    ]
    return f"; {'; '.join(parts)}" if parts else ""


def _join(*blocks: str) -> str:
    return "\n".join(block for block in blocks if block)


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _tag(row: Row) -> str:
    """` [react]` for a row of a fanned-out result, naming its documentation set, and
    ` [django@5.2]` / ` [version 5.2]` for a row of versioned docs."""
    docs, version = row.get("docs"), row.get("version")
    if docs and version:
        return f" [{docs}@{version}]"
    if version:
        return f" [version {version}]"
    return f" [{docs}]" if docs else ""


def _page_line(row: Row) -> str:
    section = f" ({row['section']})" if row.get("section") else ""
    extra = _row_extras(row, ("url", "title", "section", "docs", "version"))
    return f"- {row.get('title') or row['url']}{_tag(row)}{section}: {row['url']}{extra}"


def render_list_docs(data: Row) -> str:
    docs = data["docs"]
    lines = [
        f"- {d['name']}{'@' + d['version'] if d.get('version') else ''}: {d['title']}, "
        f"{d['url']} ({plural(d['pages'], 'page')})"
        f"{_row_extras(d, ('name', 'version', 'title', 'url', 'pages'))}"
        for d in docs
    ]
    head = f"{plural(len(docs), 'documentation set')} (pass a name as `docs`):"
    missing = [
        f"- not loaded: {m['source']} ({m['reason']})" for m in data.get("unavailable") or ()
    ]
    return _join(head, *lines, *missing, _extras(data, ("docs", "unavailable")))


def render_list_sections(data: Row) -> str:
    sections = data["sections"]
    where = f" of {data['docs']}" if data.get("docs") else ""
    where += f" {data['version']}" if data.get("docs") and data.get("version") else ""
    head = f"{plural(len(sections), 'section')}{where}, largest first:"
    lines = [
        f"- {s['section']}{_tag(s)}: "
        f"{plural(s['pages'], 'page')}{_row_extras(s, ('section', 'pages', 'docs', 'version'))}"
        for s in sections
    ]
    return _join(head, *lines, _extras(data, ("docs", "version", "sections")))


def render_search_pages(data: Row) -> str:
    results = data["results"]
    head = f"{plural(len(results), 'result')} for {data['query']!r}"
    added = data.get("also_matched") or {}
    if added:
        also = "; ".join(f"{word} -> {', '.join(known)}" for word, known in added.items())
        head += f" (also matched: {also})"
    lines = []
    for n, row in enumerate(results, 1):
        extra = _row_extras(row, ("url", "title", "section", "score", "docs", "version", "snippet"))
        lines.append(
            f"{n}. {row['title']}{_tag(row)}: {row['url']} "
            f"(section {row['section']}; score {row['score']:.2f}{extra})"
        )
        if row.get("snippet"):
            lines.append(f"   {row['snippet']}")
    if not results:
        lines.append("Try other words, or browse with list_sections.")
    known = ("query", "results", "also_matched")
    return _join(head + (":" if results else ""), *lines, _extras(data, known))


def render_get_section_pages(data: Row) -> str:
    pages = data["pages"]
    where = f" in {data['docs']}" if data.get("docs") else ""
    where += f" {data['version']}" if data.get("docs") and data.get("version") else ""
    head = f"Section {data['section']}{where}: {plural(data['total'], 'page')}"
    if len(pages) < data["total"]:
        head += f", {len(pages)} shown"
    lines = [_page_line(row) for row in pages]
    more = (
        f"More pages: call again with offset={data['next_offset']}."
        if data.get("next_offset") is not None
        else ""
    )
    known = ("docs", "version", "section", "total", "pages", "truncated", "next_offset")
    return _join(head + ":", *lines, more, _extras(data, known))


def render_get_page(data: Row) -> str:
    """A short header (title, URL, source and age; the section asked for; staleness), then
    the outline and the Markdown. A model reads the page: provenance, hashes and token counts
    stay in the structured result."""
    head = [f"title: {data.get('title') or data['url']}", f"url: {data['url']}"]
    if data.get("version"):
        head.append(f"docs: {data.get('docs', '?')} {data['version']}")
    source = f"source: {data.get('source', '?')}"
    if data.get("fetched_at"):
        source += f", fetched {data['fetched_at']}"
    if isinstance(data.get("age"), int | float):
        source += f" ({_age(data['age'])} ago)"
    if data.get("stale"):
        source += f"; stale copy: {data.get('stale_reason') or 'the site did not answer'}"
    head.append(source)
    section = data.get("section")
    if isinstance(section, dict) and section.get("heading"):
        head.append(f"section: {section['heading']} (#{section.get('anchor', '')})")
    entries = data.get("outline") or ()
    outline = [_outline_line(entry) for entry in entries]
    if outline:
        paths = any(entry.get("subheadings") for entry in entries)
        also = ", or 'anchor > subheading' for one of its subheadings" if paths else ""
        outline.insert(0, f"Outline (pass a heading or #anchor as `section` to read it{also}):")
    more = (
        f"More text follows: call again with cursor={data['next_cursor']}"
        if data.get("next_cursor")
        else ""
    )
    return f"{_join(*head, *outline, more)}\n\n{data.get('markdown', '')}"


def _age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f} {unit}"
    return f"{seconds:.0f} s"


def _outline_line(entry: Row) -> str:
    """One heading of a page outline; subheadings split by " | " (their text may hold commas)."""
    line = (
        f"{'  ' * (entry['level'] - 1)}- {entry['heading']} (#{entry['anchor']}, "
        f"~{entry['tokens']} tokens)"
    )
    names = entry.get("subheadings")
    return f"{line}; subheadings: {' | '.join(names)}" if names else line


RENDERERS: dict[str, Callable[[Row], str]] = {
    "list_docs": render_list_docs,
    "list_sections": render_list_sections,
    "search_pages": render_search_pages,
    "get_section_pages": render_get_section_pages,
    "get_page": render_get_page,
}
