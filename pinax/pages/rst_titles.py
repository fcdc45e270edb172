"""The linear reading of reST's section titles: each title as an ATX heading, its anchor as
docutils would give it (`rst_id`).

Its own module because both sides of the reST reading need it: sourcetext (which reads a
source through pinax.pages.rest) and rest's linear fallback (for a page too big, too deep or
too slow for docutils). One pass over the lines, no regex that can backtrack.
"""

from __future__ import annotations

import re

_RST_ADORNMENT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_RST_TARGET = re.compile(r"\.\. _([^:`]{1,200}):\s*$")
_ID_JUNK = re.compile(r"[^a-z0-9]+")
_RST_ROLE = re.compile(r":[A-Za-z0-9_.+-]{1,40}(?::[A-Za-z0-9_.+-]{1,40})?:`([^`\n]{1,300})`")
_RST_LITERAL = re.compile(r"``([^`\n]{1,300})``")


def rst_to_markdown(text: str) -> str:
    """The linear reading of reST (pinax.pages.rest's fallback for a page too big or too
    deep for docutils): section titles written as ATX headings (`## Title`), levels
    in the order their adornment styles first appear, as docutils assigns them; a
    `.. _label:` target just above a title becomes its `{#label}`. The rest is left as is:
    reST prose reads well as it is."""
    lines = text.split("\n")
    styles: list[tuple[str, bool]] = []
    out: list[str] = []
    i = 0
    while i < len(lines):
        found = _rst_title(lines, i)
        if found is None:
            out.append(lines[i])
            i += 1
            continue
        title, style, used = found
        if style not in styles:
            styles.append(style)
        level = min(styles.index(style) + 1, 6)
        label = _pending_target(out)  # the target line becomes the heading's {#id}
        suffix = f" {{#{label}}}" if label else ""
        out.append(f"{'#' * level} {_rst_inline(title)}{suffix}")
        i += used
    return "\n".join(out)


def _rst_title(lines: list[str], i: int) -> tuple[str, tuple[str, bool], int] | None:
    """(title, (adornment char, overlined), lines used) for a section title at line i."""
    line = lines[i].rstrip()
    if _is_adornment(line) and i + 2 < len(lines):  # overline, title, underline
        title = lines[i + 1].strip()
        under = lines[i + 2].rstrip()
        if title and under == line and len(line) >= len(title) and not _is_adornment(title):
            return title, (line[0], True), 3
        return None
    if not line.strip() or line[0] in " \t" or i + 1 >= len(lines):
        return None
    under = lines[i + 1].rstrip()
    if _is_adornment(under) and len(under) >= len(line.strip()) and not _is_adornment(line):
        if i > 0 and lines[i - 1].strip() and not _RST_TARGET.match(lines[i - 1].strip()):
            return None  # the last line of a paragraph over a transition, not a title
        return line.strip(), (under[0], False), 2
    return None


def _rst_inline(title: str) -> str:
    """A section title's inline markup as Sphinx shows it: a role (`:mod:`!json``) as code
    with its text only, a ``literal`` as code, `---` as an em dash."""
    title = _RST_ROLE.sub(lambda m: f"`{_role_text(m.group(1))}`", title)
    title = _RST_LITERAL.sub(r"`\1`", title)
    return title.replace(" --- ", " \u2014 ").replace(" -- ", " \u2013 ")


def _role_text(text: str) -> str:
    text = text.lstrip("!~")
    if text.endswith(">") and " <" in text:  # :ref:`the text <target>`
        text = text[: text.rindex(" <")]
    return text


def _is_adornment(line: str) -> bool:
    return len(line) >= 3 and line[0] in _RST_ADORNMENT and line == line[0] * len(line)


def _pending_target(out: list[str]) -> str | None:
    """The label of a `.. _label:` line just before a title (blank lines between allowed),
    taken out of `out` with the blanks after it."""
    for back in range(1, min(len(out), 3) + 1):
        line = out[-back].strip()
        if not line:
            continue
        match = _RST_TARGET.match(line)
        if match is None:
            return None
        del out[-back:]
        return rst_id(match.group(1))
    return None


def rst_id(text: str) -> str:
    """The id docutils gives a section or a target: lower case, runs of anything but
    letters and digits as one '-'."""
    return _ID_JUNK.sub("-", text.lower()).strip("-")
