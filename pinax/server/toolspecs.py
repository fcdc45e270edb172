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

from dataclasses import replace

from pinax.pages import DEFAULT_MAX_TOKENS, MAX_MAX_TOKENS, MIN_MAX_TOKENS
from pinax.search import RANKING, content_formula, meaning_formula
from pinax.server.specs import (
    Arg,
    Schema,
    ToolSpec,
    integer_schema,
    list_schema,
    object_schema,
    string_schema,
)
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

DOCS = Arg(
    "docs",
    string_schema(
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
DOCS_OF_ROW = string_schema("The documentation set of this row (when several were used)")
VERSION_HELP = (
    "The version of the docs to use, e.g. '5.2' (the same as docs='django@5.2'); a version not "
    "loaded is refused with the loaded ones, never replaced. Omit: the project's, else the highest."
)
VERSION = Arg(
    "version", string_schema(VERSION_HELP, minLength=1, examples=["5.2"]), aliases=("ver",)
)
VERSION_OF_ROW = string_schema("The version of the docs this row came from, when they state one")
SCOPE = object_schema(
    "With a project: what a call naming no docs covers (its libraries at its versions, and "
    "docs of no package), the libraries whose version is not loaded, and those whose docs "
    "state no version",
)
# What an answer says of the versions it chose (merged into each listing's result schema).
SAID: dict[str, Schema] = {
    "version": string_schema(
        "The version of the named docs used (the highest when none was asked)"
    ),
    "versions": list_schema(
        "Every loaded version of the named docs, when several are", string_schema("")
    ),
    "highest_only": {
        "type": "object",
        "description": "Libraries loaded at several versions, searched at their highest only "
        "(name one with `docs` and `version` for another)",
        "additionalProperties": True,
    },
    "scope": SCOPE,
}
URL = string_schema("Page URL; read it with get_page")
TITLE = string_schema("Page title")
SECTION = string_schema("URL path of the page's parent, e.g. '/reference/react'")
PAGE_ROW = object_schema(
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
    output=object_schema(
        "The loaded documentation sets",
        ("docs",),
        docs=list_schema(
            "One entry per documentation set",
            object_schema(
                "A documentation set",
                ("name", "title", "url", "pages"),
                name=string_schema("Its name: the `docs` argument of the other tools"),
                title=string_schema("Its title"),
                url=string_schema("The site's base URL"),
                pages=integer_schema("How many pages it lists", minimum=0),
                version=string_schema(
                    "The version of the software the docs are of, as they publish it; "
                    "several versions of one library are one entry each"
                ),
                packages=list_schema(
                    "The packages these docs document, as 'ecosystem:name' (absent: the "
                    "package of its own name; empty: none)",
                    string_schema("e.g. 'pypi:django'"),
                ),
                content=object_schema(
                    "Whether what its pages say is searched too (present where it has a "
                    "content file): state ready, indexing (searched without it until ready) "
                    "or unavailable (reason says why)",
                    ("state",),
                    state={"type": "string", "enum": ["ready", "indexing", "unavailable"]},
                    pages=integer_schema("Pages with text", minimum=0),
                    reason=string_schema("Why the content is not searched"),
                    note=string_schema("What of the content file was left out"),
                ),
                hosts=list_schema(
                    "Hosts other than the site's that some of its pages are on (present only "
                    "then): get_page reads any page on them too",
                    string_schema("A host, e.g. raw.githubusercontent.com"),
                ),
                stale=object_schema(
                    "Present when its manifest changed but the change did not load: this set "
                    "is what it was before, since `since`; `error` says why",
                    ("since", "error"),
                    since=string_schema("When the failed change was first seen (UTC, ISO 8601)"),
                    error=string_schema("Why the change did not load"),
                ),
            ),
        ),
        unavailable=list_schema(
            "Documentation the server was started with but could not load (its site was "
            "unreachable, say); present only when some is missing",
            object_schema(
                "A source that did not load",
                ("source", "reason"),
                source=string_schema("The --docs value, e.g. a site URL"),
                reason=string_schema("Why it did not load"),
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
    output=object_schema(
        "Top-level sections",
        ("sections",),
        docs=string_schema("The documentation set, when one was given"),
        **SAID,
        sections=list_schema(
            "Sections, largest first",
            object_schema(
                "A section",
                ("section", "pages"),
                section=string_schema("URL path prefix; pass it to get_section_pages"),
                pages=integer_schema("How many pages lie in it", minimum=0),
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
            string_schema(
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
            integer_schema(
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
    output=object_schema(
        "Matching pages, best first",
        ("query", "results"),
        query=string_schema("The query as searched"),
        results=list_schema(
            "The pages found, best first",
            object_schema(
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
                heading=string_schema(
                    "The heading inside the page that answers ('Parent > Child' where its "
                    "text repeats on the page): pass it, or the anchor, as get_page's section"
                ),
                anchor=string_schema("That symbol's or heading's id on the page, where known"),
                symbol=string_schema(
                    "The API name on the page that answers (from the site's objects.inv): "
                    "pass it, or the anchor, as get_page's section"
                ),
                kind=string_schema("That symbol's kind: module, class, function, method, ..."),
                snippet=string_schema(
                    "Where the page's text matched: at most 240 characters of that section "
                    "around the matched words, plain text"
                ),
                indexed_at=string_schema(
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
                explain=object_schema(
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
        pages_searched=integer_schema("How many pages the search covered", minimum=0),
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
            string_schema(
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
            integer_schema(
                f"Most pages to return, 1 to {MAX_SECTION_LIMIT} (default {DEFAULT_SECTION_LIMIT})",
                minimum=1,
                maximum=MAX_SECTION_LIMIT,
                default=DEFAULT_SECTION_LIMIT,
            ),
            aliases=("max_results",),
        ),
        Arg(
            "offset",
            integer_schema(
                "How many pages to skip: next_offset from the previous call (default 0)",
                minimum=0,
                default=0,
            ),
        ),
    ),
    output=object_schema(
        "The pages of a section",
        ("section", "total", "pages"),
        docs=string_schema("The documentation set, when one was given"),
        **SAID,
        section=string_schema("The prefix that matched"),
        total=integer_schema("How many pages the section has in all", minimum=0),
        pages=list_schema("The pages, in manifest order", PAGE_ROW),
        truncated={"type": "boolean", "description": "True when more pages follow"},
        next_offset=integer_schema("Pass as offset to get the next pages", minimum=0),
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
            string_schema(
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
            integer_schema(
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
            string_schema(
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
            string_schema(
                "next_cursor from the previous call, to read the following part",
                minLength=1,
                maxLength=MAX_CURSOR_LENGTH,
            ),
        ),
    ),
    output=object_schema(
        "A page as Markdown",
        ("url", "title", "source", "cached", "fetched_at", "markdown"),
        url=string_schema("The page's URL after redirects and redirect stubs"),
        requested_url=string_schema("The URL asked for, when it differs from url"),
        docs=string_schema("The loaded docs the page belongs to, when they state a version"),
        version=string_schema("The version of those docs"),
        title=TITLE,
        source=string_schema(
            "Where the Markdown came from: markdown-twin (the manifest's Markdown version), "
            "markdown-alternate (a Markdown version the page advertises), negotiated (the page "
            "served Markdown when asked), html (main content converted from HTML) or file (read "
            "from a served docs folder on disk)",
            enum=["markdown-twin", "markdown-alternate", "negotiated", "html", "file"],
        ),
        source_url=string_schema("The URL the text was read from"),
        fetched_at=string_schema("When the site last served or confirmed this text (ISO 8601)"),
        content_hash=string_schema("sha256 of the whole page's Markdown"),
        cached={"type": "boolean", "description": "True when not fetched anew for this call"},
        cache=string_schema(
            "hit, revalidated (the site confirmed the cached copy), miss or stale",
            enum=["hit", "revalidated", "miss", "stale"],
        ),
        stale={
            "type": "boolean",
            "description": "True when the site failed and an older copy is served",
        },
        age={"type": "number", "minimum": 0, "description": "Seconds since fetched_at"},
        stale_reason=string_schema("Why the live fetch failed, when stale"),
        removed_hidden=integer_schema(
            "Characters of text a person would not see (hidden elements, HTML comments, "
            "invisible characters) left out of the page, when there were any",
            minimum=0,
        ),
        total_tokens=integer_schema("Estimated tokens of the whole page", minimum=0),
        section=object_schema(
            "The section returned, when one was asked for: a heading's, or an API entry's "
            "(symbol: its signature and description only)",
            ("anchor",),
            heading=string_schema("Its heading text (a heading's section)"),
            symbol=string_schema("The API name (an API entry's section)"),
            anchor=string_schema("Its anchor"),
        ),
        truncated={"type": "boolean", "description": "True when more text follows (next_cursor)"},
        outline=list_schema(
            "The page's (or section's) headings, when it is over the budget: every heading an "
            "entry, or on a crowded page the shallow levels, each deeper heading named in its "
            "listed ancestor's subheadings",
            object_schema(
                "A heading",
                ("level", "heading", "anchor", "tokens"),
                level=integer_schema("1 to 6", minimum=1, maximum=6),
                heading=string_schema("Its text"),
                anchor=string_schema("Pass as section to read it"),
                tokens=integer_schema(
                    "Estimated tokens of the section with its subsections", minimum=0
                ),
                subheadings=list_schema(
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
        next_cursor=string_schema("Pass as cursor to read the following part"),
        markdown=string_schema("The page content (or the requested part) as Markdown"),
    ),
    open_world=True,
)

SPECS: tuple[ToolSpec, ...] = (LIST_DOCS, LIST_SECTIONS, SEARCH_PAGES, GET_SECTION_PAGES, GET_PAGE)
