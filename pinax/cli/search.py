"""`pinax search`: search the manifests from the shell, one query or a batch on stdin."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Annotated, Any

import typer

from pinax.cli.common import (
    AllowPrivateOption,
    CacheDirOption,
    ContentOption,
    ContentWeightOption,
    DocsFolderOption,
    EmbeddingWeightOption,
    ExcludeOption,
    FolderOptions,
    IncludeOption,
    JsonOption,
    LayoutOption,
    LexicalWeightOption,
    LogLevelOption,
    OptionalDocsOption,
    ProjectOption,
    SiteUrlOption,
    fail,
    fail_on,
    json_errors,
    load_tools,
    parse_contents,
    safe,
    safe_json,
    setup_logging,
    shipped_docs,
    shown,
    use_projects,
    warn,
    weights_or_fail,
    with_docs_folders,
)
from pinax.errors import PinaxError, VersionNotLoaded


def search(
    docs: OptionalDocsOption = None,
    query: Annotated[
        str | None,
        typer.Argument(
            metavar="QUERY",
            help="Words to search for. Omit to read one query per line from stdin.",
        ),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", metavar="N", help="Maximum results.")] = 10,
    within: Annotated[
        str | None,
        typer.Option(
            "--in",
            metavar="NAME",
            help="Search only these docs: a name, or name@version (e.g. django@5.2).",
        ),
    ] = None,
    version: Annotated[
        str | None,
        typer.Option(
            "--version",
            metavar="VERSION",
            help="The version of the --in docs (a version not loaded is refused: exit 2).",
        ),
    ] = None,
    project: ProjectOption = None,
    threshold: Annotated[
        float | None,
        typer.Option(
            "--threshold", metavar="SCORE", help="Leave out results scoring below this (0..1)."
        ),
    ] = None,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show how each result matched (terms, fields).")
    ] = False,
    lexical_weight: LexicalWeightOption = None,
    embedding_weight: EmbeddingWeightOption = None,
    content_weight: ContentWeightOption = None,
    content: ContentOption = None,
    as_json: JsonOption = False,
    cache_dir: CacheDirOption = None,
    allow_private: AllowPrivateOption = None,
    site_url: SiteUrlOption = None,
    docs_folder: DocsFolderOption = None,
    layout: LayoutOption = None,
    include: IncludeOption = None,
    exclude: ExcludeOption = None,
    log_level: LogLevelOption = "warning",
) -> None:
    """Search the manifests from the shell, as the search_pages tool does."""
    json_errors(as_json or query is None)  # a batch answers in JSON lines
    setup_logging(log_level)
    weights = weights_or_fail(lexical_weight, embedding_weight, content_weight)
    contents = parse_contents(content)
    docs, labels = shipped_docs(with_docs_folders(docs, docs_folder), project)
    tools = load_tools(
        docs,
        cache_dir,
        None,
        allow_private,
        False,
        site_url,
        contents=contents,
        folder_options=FolderOptions(layout, tuple(include or ()), tuple(exclude or ())),
        labels=labels,
    )
    tools.library.load_contents()  # a bad content file is warned about, not fatal
    use_projects(tools, project)
    for entry in tools.library.describe():
        if entry.get("content", {}).get("state") == "unavailable":
            warn(f"{entry['name']}: {entry['content']['reason']}")
    options = {
        "limit": limit,
        "docs": within,
        "version": version,
        "explain": explain,
        "threshold": threshold,
        "lexical_weight": weights[0],
        "embedding_weight": weights[1],
        "content_weight": weights[2],
    }
    if query is None:
        if sys.stdin.isatty():
            fail("give a QUERY, or pipe queries on standard input (one per line)")
        search_lines(tools, sys.stdin, options)
        return
    try:
        answer = tools.search_pages(query, **options)
    except VersionNotLoaded as exc:
        fail(exc.message, 2)
    except PinaxError as exc:
        fail_on(exc)
    if as_json:
        typer.echo(safe_json(answer, indent=2))
        return
    print_table(answer, within)


def search_lines(tools: Any, lines: Iterable[str], options: dict[str, Any]) -> None:
    """One JSON line per input line, in order, so answer n is query n's: a blank line or a
    bad query gets its error line, and the others go on."""
    write = sys.stdout.write
    for line in lines:
        text = line.strip()
        try:
            row: dict[str, Any] = tools.search_pages(text, **options)
        except PinaxError as exc:
            row = {"query": shown(text), **exc.to_dict()}
        write(safe_json(row) + "\n")


def print_table(answer: dict[str, Any], within: str | None = None) -> None:
    """Score, library and title, then the URL: the library on every row, as scores are
    compared across libraries."""
    if answer.get("also_matched"):
        typer.echo(safe(f"also matched: {also_matched(answer['also_matched'])}"))
    for name, chosen in (answer.get("highest_only") or {}).items():
        loaded = ", ".join(chosen["versions"])
        typer.echo(safe(f"{name}: searched at {chosen['version']} (loaded: {loaded})"))
    scope = answer.get("scope")
    if scope:
        typer.echo(
            safe(f"project scope: {', '.join(scope['project'] + scope['general']) or 'none'}")
        )
        for entry in scope["missing"]:
            loaded = ", ".join(entry["loaded"])
            typer.echo(safe(f"  not loaded: {entry['docs']} {entry['version']} (loaded: {loaded})"))
    results = answer["results"]
    if not results:
        typer.echo("no results")
        return
    for row in results:
        library = row.get("docs") or (within or "").partition("@")[0]
        if library and row.get("version"):
            library = f"{library}@{row['version']}"
        elif row.get("version"):
            library = f"version {row['version']}"
        where = f"[{library}] " if library else ""
        if row.get("symbol"):
            place = f" > {row['symbol']} ({row['kind']})"
        elif row.get("heading"):
            place = f" > {row['heading']}"
        else:
            place = ""
        typer.echo(safe(f"{row['score']:.2f}  {where}{row['title']}{place}"))
        anchor = f"#{row['anchor']}" if row.get("anchor") and "#" not in row["url"] else ""
        typer.echo(safe(f"      {row['url']}{anchor}"))
        if row.get("snippet"):
            typer.echo(safe(f"      {row['snippet']}"))
        if row.get("explain"):
            typer.echo(safe(f"      {explain_line(row['explain'])}"))


def also_matched(added: dict[str, list[str]]) -> str:
    """What was added beside the typed words: `serializr -> serializer; iso -> isolate`."""
    return "; ".join(f"{word} -> {', '.join(known)}" for word, known in added.items())


def explain_line(explain: dict[str, Any]) -> str:
    """A hit's explanation on one line: each matched term with its score and fields."""
    parts = []
    for term in explain["terms"]:
        if not term["score"]:
            continue
        how = "" if term["match"] == "exact" else f" {term['match']}"
        fields = ",".join(term.get("fields", {}))
        parts.append(f"{term['term']}{how}={term['score']:g}" + (f" ({fields})" if fields else ""))
    boosts = explain.get("boosts", {})
    if boosts.get("exact_title", 1) > 1:
        parts.append(f"exact title x{boosts['exact_title']:g}")
    line = "; ".join(parts) or "no term matched"
    weights = explain.get("weights", {})
    if "embedding" in explain:
        line += (
            f" | words {explain['lexical']:g} x{weights['lexical']:g}, "
            f"meaning {explain['embedding']:g} x{weights['embedding']:g}"
        )
    if "content" in explain:
        line += (
            f" | titles and headings {explain['titles_and_headings']:g}, "
            f"text {explain['content']:g} x{weights['content']:g}"
        )
    return line
