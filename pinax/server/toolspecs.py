"""What each tool looks like to a client: description, arguments, result schema. Data only.

One `ToolSpec` per tool is the single place its public face is declared; the MCP binding
(app.py) and the docs' tool reference (reference.py) are built from these. Adding an
argument or a result field is one line here. An argument is published only when the
implementation in `tools.py` accepts it, so a spec may run ahead of the code.

Models invent argument names (`q` for `query`, `library` for `docs`); `bind` accepts the
common ones as aliases where that is unambiguous and rejects anything else with a message
that lists what the tool takes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from pinax.errors import InvalidArgs
from pinax.pages import DEFAULT_MAX_TOKENS, MAX_MAX_TOKENS, MIN_MAX_TOKENS
from pinax.search import RANKING, content_formula, meaning_formula
from pinax.tools import (
    DEFAULT_LIMIT,
    DEFAULT_SECTION_LIMIT,
    MAX_CURSOR_LENGTH,
    MAX_HEADING_LENGTH,
    MAX_LIMIT,
    MAX_QUERY_LENGTH,
    MAX_SECTION_LIMIT,
    MAX_URL_LENGTH,
)

Schema = dict[str, Any]


@dataclass(frozen=True)
class Arg:
    name: str
    schema: Schema  # JSON schema of the value, with a description and examples
    required: bool = False
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    args: tuple[Arg, ...]
    output: Schema  # JSON schema of a successful result; undeclared fields validate too
    open_world: bool = False  # reaches outside the loaded manifests (the live web)

    def accepted(self, implementation: Callable[..., Any]) -> tuple[Arg, ...]:
        """The arguments the implementation takes (all of them if it takes **kwargs)."""
        params = inspect.signature(implementation).parameters
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            return self.args
        return tuple(arg for arg in self.args if arg.name in params)


def input_schema(args: tuple[Arg, ...]) -> Schema:
    schema: Schema = {"type": "object", "properties": {a.name: a.schema for a in args}}
    required = [a.name for a in args if a.required]
    if required:
        schema["required"] = required
    return schema


def bind(spec: ToolSpec, args: tuple[Arg, ...], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword arguments for the implementation: aliases resolved, nulls dropped, all checked."""
    names = {a.name: a.name for a in args} | {alias: a.name for a in args for alias in a.aliases}
    given: dict[str, tuple[str, Any]] = {}
    for key, value in arguments.items():
        name = names.get(key)
        if name is None:
            takes = ", ".join(a.name for a in args) or "no arguments"
            raise InvalidArgs(f"{spec.name} has no argument {key!r}; it takes: {takes}")
        if value is None:
            continue
        if name in given and given[name][1] != value:
            raise InvalidArgs(f"{given[name][0]!r} and {key!r} both set {name}; give it once")
        given[name] = (key, value)
    for arg in args:
        if arg.required and arg.name not in given:
            raise InvalidArgs(f"{spec.name} needs {arg.name!r}: {arg.schema['description']}")
    return {name: value for name, (_, value) in given.items()}


# Building blocks ------------------------------------------------------------------------


def _string(description: str, **extra: Any) -> Schema:
    return {"type": "string", "description": description, **extra}


def _integer(description: str, **extra: Any) -> Schema:
    return {"type": "integer", "description": description, **extra}


def _object(description: str, required: tuple[str, ...] = (), **properties: Schema) -> Schema:
    """An object with these known fields; further fields are allowed (newer servers add some)."""
    schema: Schema = {"type": "object", "description": description, "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema | {"additionalProperties": True}


def _list(description: str, items: Schema) -> Schema:
    return {"type": "array", "description": description, "items": items}


DOCS = Arg(
    "docs",
    _string(
        "Name of a documentation set from list_docs, e.g. 'react'. Omit to use every set.",
        minLength=1,
        examples=["react"],
    ),
    aliases=("library", "site", "manifest"),
)
# Searching, several sets loaded: a query that names no library is answered from all of them
# (bench/eval_sections.py: DEV recall@10 .85 alone, .74 with all eight, for django).
SEARCH_DOCS = replace(
    DOCS,
    schema={
        **DOCS.schema,
        "description": DOCS.schema["description"]
        + " Name it when the question is about one library: a query that names none is "
        "answered from every set loaded.",
    },
)
DOCS_OF_ROW = _string("The documentation set of this row (when several were used)")
VERSION_HELP = (
    "The version of the docs to use, e.g. '5.2' (the same as docs='django@5.2'); a version not "
    "loaded is refused with the loaded ones, never replaced. Omit: the project's, else the highest."
)
VERSION = Arg("version", _string(VERSION_HELP, minLength=1, examples=["5.2"]), aliases=("ver",))
VERSION_OF_ROW = _string("The version of the docs this row came from, when they state one")
SCOPE = _object(
    "With a project: what a call naming no docs covers (its libraries at its versions, and "
    "docs of no package), the libraries whose version is not loaded, and those whose docs "
    "state no version",
)
# What an answer says of the versions it chose (merged into each listing's result schema).
SAID: dict[str, Schema] = {
    "version": _string("The version of the named docs used (the highest when none was asked)"),
    "versions": _list("Every loaded version of the named docs, when several are", _string("")),
    "highest_only": {
        "type": "object",
        "description": "Libraries loaded at several versions, searched at their highest only "
        "(name one with `docs` and `version` for another)",
        "additionalProperties": True,
    },
    "scope": SCOPE,
}
URL = _string("Page URL; read it with get_page")
TITLE = _string("Page title")
SECTION = _string("URL path of the page's parent, e.g. '/reference/react'")
PAGE_ROW = _object(
    "A page",
    ("url", "title", "section"),
    url=URL,
    title=TITLE,
    section=SECTION,
    docs=DOCS_OF_ROW,
    version=VERSION_OF_ROW,
)


LIST_DOCS = ToolSpec(
    name="list_docs",
    title="List documentation sets",
    description=(
        "List the documentation sets this server indexes: name, title, site url and page "
        "count, and the version and packages each documents. Call it when you do not know "
        "which docs are loaded; pass a name (or name@version) as `docs` to the other tools."
    ),
    args=(),
    output=_object(
        "The loaded documentation sets",
        ("docs",),
        docs=_list(
            "One entry per documentation set",
            _object(
                "A documentation set",
                ("name", "title", "url", "pages"),
                name=_string("Its name: the `docs` argument of the other tools"),
                title=_string("Its title"),
                url=_string("The site's base URL"),
                pages=_integer("How many pages it lists", minimum=0),
                version=_string(
                    "The version of the software the docs are of, as they publish it; "
                    "several versions of one library are one entry each"
                ),
                packages=_list(
                    "The packages these docs document, as 'ecosystem:name' (absent: the "
                    "package of its own name; empty: none)",
                    _string("e.g. 'pypi:django'"),
                ),
                content=_object(
                    "Whether what its pages say is searched too (present where it has a "
                    "content file): state ready, indexing (searched without it until ready) "
                    "or unavailable (reason says why)",
                    ("state",),
                    state={"type": "string", "enum": ["ready", "indexing", "unavailable"]},
                    pages=_integer("Pages with text", minimum=0),
                    reason=_string("Why the content is not searched"),
                    note=_string("What of the content file was left out"),
                ),
                hosts=_list(
                    "Hosts other than the site's that some of its pages are on (present only "
                    "then): get_page reads any page on them too",
                    _string("A host, e.g. raw.githubusercontent.com"),
                ),
                stale=_object(
                    "Present when its manifest changed but the change did not load: this set "
                    "is what it was before, since `since`; `error` says why",
                    ("since", "error"),
                    since=_string("When the failed change was first seen (UTC, ISO 8601)"),
                    error=_string("Why the change did not load"),
                ),
            ),
        ),
        unavailable=_list(
            "Documentation the server was started with but could not load (its site was "
            "unreachable, say); present only when some is missing",
            _object(
                "A source that did not load",
                ("source", "reason"),
                source=_string("The --docs value, e.g. a site URL"),
                reason=_string("Why it did not load"),
            ),
        ),
        scope=SCOPE,
    ),
)

LIST_SECTIONS = ToolSpec(
    name="list_sections",
    title="List sections",
    description=(
        "List the top-level URL sections of a documentation set (or of all) with their page "
        "counts, largest first: an overview of what the docs cover. Then list a section's "
        "pages with get_section_pages."
    ),
    args=(DOCS, VERSION),
    output=_object(
        "Top-level sections",
        ("sections",),
        docs=_string("The documentation set, when one was given"),
        **SAID,
        sections=_list(
            "Sections, largest first",
            _object(
                "A section",
                ("section", "pages"),
                section=_string("URL path prefix; pass it to get_section_pages"),
                pages=_integer("How many pages lie in it", minimum=0),
                docs=DOCS_OF_ROW,
                version=VERSION_OF_ROW,
            ),
        ),
    ),
)

SEARCH_PAGES = ToolSpec(
    name="search_pages",
    title="Search pages",
    description=(
        "Search documentation pages by title, URL, section and the headings inside each page "
        "(typo-tolerant). Returns the best pages first: url, title, section, a 0..1 score and, "
        "when a heading of the page answers, that heading and its anchor. Use it to find the "
        "page about an API or topic, then read it with get_page(url), or just the part that "
        "answers with get_page(url, section=anchor or heading)."
    ),
    args=(
        Arg(
            "query",
            _string(
                "What to look for: an API name, a topic or a few words, e.g. 'useEffect cleanup'",
                minLength=1,
                maxLength=MAX_QUERY_LENGTH,
                examples=["useEffect cleanup", "queryset filter"],
            ),
            required=True,
            aliases=("q", "search", "keywords"),
        ),
        Arg(
            "limit",
            _integer(
                f"Most results to return, 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT}), e.g. 5",
                minimum=1,
                maximum=MAX_LIMIT,
                default=DEFAULT_LIMIT,
                examples=[5],
            ),
            aliases=("max_results", "top_k"),
        ),
        SEARCH_DOCS,
        VERSION,
        Arg(
            "explain",
            {
                "type": "boolean",
                "description": "Also say how each result matched (default false)",
                "default": False,
            },
        ),
        Arg(
            "threshold",
            {
                "type": "number",
                "description": "Leave out results scoring below this, 0 to 1, e.g. 0.3",
                "minimum": 0,
                "maximum": 1,
                "examples": [0.3],
            },
            aliases=("min_score",),
        ),
        Arg(
            "lexical_weight",
            {
                "type": "number",
                "description": "How much matching words count, 0 to 1 (default "
                f"{RANKING.lexical_weight}; 0 turns words off). {meaning_formula()}",
                "minimum": 0,
                "maximum": 1,
                "examples": [RANKING.lexical_weight],
            },
        ),
        Arg(
            "embedding_weight",
            {
                "type": "number",
                "description": "How much closeness in meaning of the query to the page's "
                "title or headings counts, 0 to 1 "
                f"(default {RANKING.embedding_weight}; 0: words only)",
                "minimum": 0,
                "maximum": 1,
                "examples": [RANKING.embedding_weight],
            },
        ),
        Arg(
            "content_weight",
            {
                "type": "number",
                "description": "The share of the score that what the pages say gives, 0 to 1 "
                f"(default {RANKING.content_weight}; 0: titles and headings only), where the "
                f"docs have content indexed (list_docs says). {content_formula()}",
                "minimum": 0,
                "maximum": 1,
                "examples": [RANKING.content_weight],
            },
        ),
    ),
    output=_object(
        "Matching pages, best first",
        ("query", "results"),
        query=_string("The query as searched"),
        results=_list(
            "The pages found, best first",
            _object(
                "A page found",
                ("url", "title", "section", "score"),
                url=URL,
                title=TITLE,
                section=SECTION,
                score={
                    "type": "number",
                    "minimum": 0,
                    "maximum": 1,
                    "description": "Relevance, comparable across documentation sets",
                },
                heading=_string(
                    "The heading inside the page that answers ('Parent > Child' where its "
                    "text repeats on the page): pass it, or the anchor, as get_page's section"
                ),
                anchor=_string("That symbol's or heading's id on the page, where known"),
                symbol=_string(
                    "The API name on the page that answers (from the site's objects.inv): "
                    "pass it, or the anchor, as get_page's section"
                ),
                kind=_string("That symbol's kind: module, class, function, method, ..."),
                snippet=_string(
                    "Where the page's text matched: at most 240 characters of that section "
                    "around the matched words, plain text"
                ),
                indexed_at=_string(
                    "When the matched text was read (get_page gives the page as it is now)"
                ),
                confidence={
                    "type": "string",
                    "enum": ["high", "medium", "low"],
                    "description": f"high: score >= {RANKING.high_score} and "
                    f"{RANKING.high_margin} ahead of the next hit (a clear answer), "
                    f"medium: score >= {RANKING.medium_score}, else low",
                },
                docs=DOCS_OF_ROW,
                version=VERSION_OF_ROW,
                explain=_object(
                    "With explain: the matched terms (per field), boosts and reference "
                    "score; with meaning on, the lexical and embedding parts and their weights; "
                    "with content, the titles_and_headings and content parts"
                ),
            ),
        ),
        **SAID,
        also_matched={
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
            "description": "Words the docs lack, each with the known words searched beside "
            "it (corrections, completions): what was typed is always searched as typed",
        },
        strategy={
            "type": "string",
            "enum": ["bm25", "fuzzy", "substring"],
            "description": "bm25: words as typed; fuzzy: corrections or completions added; "
            "substring: found inside longer words",
        },
        pages_searched=_integer("How many pages the search covered", minimum=0),
        latency_ms={"type": "number", "minimum": 0, "description": "Search time, milliseconds"},
    ),
)

GET_SECTION_PAGES = ToolSpec(
    name="get_section_pages",
    title="List the pages of a section",
    description=(
        "List the pages whose URL path starts with a section prefix (any depth), "
        f"{DEFAULT_SECTION_LIMIT} at a time (use offset for more). Use it to browse a section "
        "from list_sections or search_pages; then read a page with get_page(url)."
    ),
    args=(
        Arg(
            "section",
            _string(
                "URL path prefix from list_sections, e.g. '/reference/react'; a full URL works too",
                minLength=1,
                maxLength=MAX_URL_LENGTH,
                examples=["/reference/react"],
            ),
            required=True,
            aliases=("path", "prefix"),
        ),
        DOCS,
        VERSION,
        Arg(
            "limit",
            _integer(
                f"Most pages to return, 1 to {MAX_SECTION_LIMIT} (default {DEFAULT_SECTION_LIMIT})",
                minimum=1,
                maximum=MAX_SECTION_LIMIT,
                default=DEFAULT_SECTION_LIMIT,
            ),
            aliases=("max_results",),
        ),
        Arg(
            "offset",
            _integer(
                "How many pages to skip: next_offset from the previous call (default 0)",
                minimum=0,
                default=0,
            ),
        ),
    ),
    output=_object(
        "The pages of a section",
        ("section", "total", "pages"),
        docs=_string("The documentation set, when one was given"),
        **SAID,
        section=_string("The prefix that matched"),
        total=_integer("How many pages the section has in all", minimum=0),
        pages=_list("The pages, in manifest order", PAGE_ROW),
        truncated={"type": "boolean", "description": "True when more pages follow"},
        next_offset=_integer("Pass as offset to get the next pages", minimum=0),
    ),
)

GET_PAGE = ToolSpec(
    name="get_page",
    title="Read a page",
    description=(
        "Read a documentation page as clean Markdown, fetched live from the site (through a "
        "cache), with its final url and title. Only pages of the loaded docs can be read: "
        "take the url from search_pages or get_section_pages."
    ),
    args=(
        Arg(
            "url",
            _string(
                "Page URL from search_pages or get_section_pages, "
                "e.g. 'https://react.dev/reference/react/useState'",
                minLength=1,
                maxLength=MAX_URL_LENGTH,
                examples=["https://react.dev/reference/react/useState"],
            ),
            required=True,
            aliases=("link", "href", "page_url"),
        ),
        Arg(
            "max_tokens",
            _integer(
                f"Token budget of the answer, {MIN_MAX_TOKENS} to {MAX_MAX_TOKENS} "
                f"(default {DEFAULT_MAX_TOKENS}); a longer page comes with its outline and a "
                "next_cursor",
                minimum=MIN_MAX_TOKENS,
                maximum=MAX_MAX_TOKENS,
                default=DEFAULT_MAX_TOKENS,
                examples=[4000],
            ),
        ),
        Arg(
            "section",
            _string(
                "Read only this part of the page: a heading's text or anchor from the outline, "
                "e.g. 'Usage', or 'Heading > Subheading' for a name in an entry's subheadings "
                "(the heading's anchor or text, then the name as listed), e.g. "
                "'python-3130-beta-1 > Library'; or an API name or its anchor from a search "
                "hit's symbol, e.g. 'json.dumps' (that entry only)",
                minLength=1,
                maxLength=MAX_HEADING_LENGTH,
                examples=["Usage", "python-3130-beta-1 > Library"],
            ),
            aliases=("heading", "anchor"),
        ),
        Arg(
            "cursor",
            _string(
                "next_cursor from the previous call, to read the following part",
                minLength=1,
                maxLength=MAX_CURSOR_LENGTH,
            ),
        ),
    ),
    output=_object(
        "A page as Markdown",
        ("url", "title", "source", "cached", "fetched_at", "markdown"),
        url=_string("The page's URL after redirects and redirect stubs"),
        requested_url=_string("The URL asked for, when it differs from url"),
        docs=_string("The loaded docs the page belongs to, when they state a version"),
        version=_string("The version of those docs"),
        title=TITLE,
        source=_string(
            "Where the Markdown came from: markdown-twin (the manifest's Markdown version), "
            "markdown-alternate (a Markdown version the page advertises), negotiated (the page "
            "served Markdown when asked), html (main content converted from HTML) or file (read "
            "from a served docs folder on disk)",
            enum=["markdown-twin", "markdown-alternate", "negotiated", "html", "file"],
        ),
        source_url=_string("The URL the text was read from"),
        fetched_at=_string("When the site last served or confirmed this text (ISO 8601)"),
        content_hash=_string("sha256 of the whole page's Markdown"),
        cached={"type": "boolean", "description": "True when not fetched anew for this call"},
        cache=_string(
            "hit, revalidated (the site confirmed the cached copy), miss or stale",
            enum=["hit", "revalidated", "miss", "stale"],
        ),
        stale={
            "type": "boolean",
            "description": "True when the site failed and an older copy is served",
        },
        age={"type": "number", "minimum": 0, "description": "Seconds since fetched_at"},
        stale_reason=_string("Why the live fetch failed, when stale"),
        removed_hidden=_integer(
            "Characters of text a person would not see (hidden elements, HTML comments, "
            "invisible characters) left out of the page, when there were any",
            minimum=0,
        ),
        total_tokens=_integer("Estimated tokens of the whole page", minimum=0),
        section=_object(
            "The section returned, when one was asked for: a heading's, or an API entry's "
            "(symbol: its signature and description only)",
            ("anchor",),
            heading=_string("Its heading text (a heading's section)"),
            symbol=_string("The API name (an API entry's section)"),
            anchor=_string("Its anchor"),
        ),
        truncated={"type": "boolean", "description": "True when more text follows (next_cursor)"},
        outline=_list(
            "The page's (or section's) headings, when it is over the budget: every heading an "
            "entry, or on a crowded page the shallow levels, each deeper heading named in its "
            "listed ancestor's subheadings",
            _object(
                "A heading",
                ("level", "heading", "anchor", "tokens"),
                level=_integer("1 to 6", minimum=1, maximum=6),
                heading=_string("Its text"),
                anchor=_string("Pass as section to read it"),
                tokens=_integer("Estimated tokens of the section with its subsections", minimum=0),
                subheadings=_list(
                    "Headings inside this one without an entry of their own, in page order, "
                    "by text (or #anchor where the text repeats); read one with section "
                    "'<anchor> > <subheading>'",
                    {"type": "string"},
                ),
            ),
        ),
        outline_truncated={
            "type": "boolean",
            "description": "True when some headings are not named at all (a small max_tokens); "
            "open a listed section to see its outline, or read on with next_cursor",
        },
        next_cursor=_string("Pass as cursor to read the following part"),
        markdown=_string("The page content (or the requested part) as Markdown"),
    ),
    open_world=True,
)

SPECS: tuple[ToolSpec, ...] = (LIST_DOCS, LIST_SECTIONS, SEARCH_PAGES, GET_SECTION_PAGES, GET_PAGE)
