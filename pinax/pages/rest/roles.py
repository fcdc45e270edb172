"""Sphinx's interpreted-text roles as harmless renderers: what each shows on the published
page, as docutils nodes the Markdown writer knows.

API cross-references (`:class:`, `:func:`, `:meth:`, `:setting:`, `:py:obj:` ..., and any
role not known here) show their target as inline code: `~` keeps its last part, `!` and a
leading `.` are dropped, an explicit `Title <target>` shows the title, and `:func:` /
`:meth:` add `()` as Sphinx's `add_function_parentheses` does. Document links (`:ref:`,
`:doc:`, `:term:`) show their title as text; a `:ref:` without one shows the title of the
section its label names when that is on the same page (else the label). The rest follow
Sphinx's HTML: `:pep:` is "PEP 8", `:abbr:` its abbreviation, `:guilabel:` without its `&`
accelerator, `:menuselection:` with `‣`, `:file:` / `:samp:` as code without `{}` marks.
Nothing here looks anything up or reaches outside the page.
"""

from __future__ import annotations

from docutils import nodes, utils
from docutils.parsers.rst.states import Inliner

from .state import state_of

_TEXT_ROLES = frozenset({"ref", "doc", "term", "numref", "any", "keyword-text", "download"})
_EMPHASIS = frozenset({"emphasis", "dfn", "title-reference", "title", "t", "cite", "var"})
_STRONG = frozenset({"strong", "command", "program", "makevar"})
_PLAIN = frozenset(
    {"sub", "subscript", "sup", "superscript", "mailheader", "mimetype", "newsgroup"}
    | {"manpage", "abbreviation", "ab", "acronym", "ac", "index", "sort", "default-role-error"}
)
_CALLS = frozenset({"func", "meth", "py:func", "py:meth", "c:func", "cpp:func", "js:func"})
# Common extlinks roles, as most projects caption them (a conf.py's own win).
_EXTLINKS = {"issue": "#%s", "pr": "#%s", "ticket": "#%s", "gh": "#%s", "user": "@%s"}
MAX_ROLE_TEXT = 2000  # characters of one role's text that are rendered


def split_title(text: str) -> tuple[str | None, str]:
    """(the explicit title or None, the target) of `Title <target>`."""
    text = " ".join(text.split())
    if text.endswith(">") and "<" in text:  # Sphinx: `^(.+?)\s*<([^<]*?)>$`
        at = text.rindex("<")
        title = text[:at].rstrip()
        return (title or None), text[at + 1 : -1]
    return None, text


def api_text(role: str, text: str) -> str:
    """What an API cross-reference shows (see the module docstring)."""
    title, target = split_title(text)
    if title is not None:
        return title
    short = target.startswith("~") or target.startswith("!~")
    target = target.lstrip("!~").lstrip(".")
    if short:
        target = target.rsplit(".", 1)[-1]
    if role in _CALLS and target and not target.endswith(")"):
        target += "()"
    return target


def render(
    role: str, rawtext: str, text: str, extlinks: dict[str, str] | None = None
) -> list[nodes.Node]:
    """The nodes a role shows (role name lower case; `extlinks`: conf.py's captions)."""
    text = utils.unescape(text)[:MAX_ROLE_TEXT]
    name = role.removeprefix("std:")
    caption = (extlinks or {}).get(name) or _EXTLINKS.get(name)
    if caption is not None:  # sphinx.ext.extlinks: `:issue:`5730`` shows `#5730`
        title, target = split_title(text)
        return [nodes.Text(title or caption.replace("%s", target))]
    if name in ("literal", "code", "kbd", "regexp", "token"):
        return [nodes.literal(rawtext, text)]
    if name in _EMPHASIS:
        return [nodes.emphasis(rawtext, text)]
    if name in _STRONG:
        return [nodes.strong(rawtext, text)]
    if name in _PLAIN:
        return [nodes.Text(text)]
    if name == "abbr":
        return [nodes.Text(split_abbreviation(text))]
    if name in ("pep", "pep-reference", "rfc", "rfc-reference"):
        label = "PEP" if name.startswith("pep") else "RFC"
        title, target = split_title(text)
        return [nodes.Text(title or f"{label} {target.split('#', 1)[0]}")]
    if name == "guilabel":
        return [nodes.Text(_accelerator(text))]
    if name == "menuselection":
        return [nodes.Text(_accelerator(text).replace("-->", "\u2023"))]
    if name in ("file", "samp"):
        return [nodes.literal(rawtext, text.replace("{", "").replace("}", ""))]
    if name == "math":
        return [nodes.math(rawtext, text)]
    if name in _TEXT_ROLES:
        title, target = split_title(text)
        if title is not None:
            return [nodes.Text(title)]
        target = target.lstrip("!~")
        if name in ("ref", "numref"):
            return [nodes.inline(rawtext, target, reflabel=target)]
        return [nodes.Text(target)]
    return [nodes.literal(rawtext, api_text(name, text))]


def split_abbreviation(text: str) -> str:
    """`LIFO (last-in, first-out)` shows as `LIFO`."""
    text = " ".join(text.split())
    if text.endswith(")") and " (" in text:
        return text[: text.index(" (")]
    return text


def _accelerator(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def sphinx_inliner() -> Inliner:
    """docutils' inline parser with every interpreted-text role rendered by `render`: no
    role is unknown, none is an error, and none reaches the registry docutils keeps for the
    whole process (a page's `.. role::` cannot change another page). The method is set on
    the instance: docutils builds its patterns from the class's own attributes, which a
    subclass would not carry."""
    inliner = Inliner()

    def interpreted(rawsource: str, text: str, role: str, lineno: int):
        state = state_of(inliner.document)
        name = role.lower() or state.default_role or "title-reference"
        return render(name, rawsource, text, state.extlinks), []

    inliner.interpreted = interpreted  # type: ignore[method-assign]
    return inliner
