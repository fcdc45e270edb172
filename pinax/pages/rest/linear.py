"""The linear reading of a reST page too big, too deep or too slow for docutils: section
titles as headings (pinax.pages.sourcetext), roles as their text in code, and literal
blocks (`::`, `code-block`, `sourcecode`, `code`) fenced with their language. One pass over
the lines, each looked at a bounded number of times; no directive is otherwise read."""

from __future__ import annotations

import re

_ROLE = re.compile(r":[A-Za-z0-9_.+:-]{1,60}:`([^`\n]{1,500})`")
_CODE = re.compile(r"[ \t]*\.\. (?:code-block|sourcecode|code)::[ \t]*(\S*)[ \t]*$")
_OPTION = re.compile(r"[ \t]+:[\w-]+:")


def fallback_markdown(text: str, language: str = "python") -> str:
    """`text` (reST) as Markdown, linearly (see the module docstring)."""
    from pinax.pages.sourcetext import rst_to_markdown

    markdown = _ROLE.sub(lambda m: f"`{m.group(1).lstrip('~!')}`", rst_to_markdown(text))
    return fence_literals(markdown, language)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def fence_literals(text: str, language: str) -> str:
    """Indented literal blocks after `::` or a code directive, fenced."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        directive = _CODE.match(line)
        if directive is None and not line.rstrip().endswith("::"):
            out.append(line)
            i += 1
            continue
        indent = _indent(line)
        j = i + 1
        while j < len(lines) and (
            not lines[j].strip()
            or (directive and _OPTION.match(lines[j]) and _indent(lines[j]) > indent)
        ):
            j += 1
        k = j
        while k < len(lines) and (not lines[k].strip() or _indent(lines[k]) > indent):
            k += 1
        body = lines[j:k]
        while body and not body[-1].strip():
            body.pop()
        if not body:
            out.append(line)
            i += 1
            continue
        if directive is None:
            lead = line.rstrip()[:-2].rstrip()
            if lead:
                out.append(lead + ":" if not lead.endswith(" ") else lead)
        cut = min(_indent(b) for b in body if b.strip())
        fence = "```"
        while any(fence in b for b in body):
            fence += "`"
        tag = (directive.group(1) if directive else "") or language
        out.extend(["", fence + tag, *(b[cut:] for b in body), fence, ""])
        i = k
    return "\n".join(out)
