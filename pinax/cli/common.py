"""What every `pinax` command shares: the common options, declared once, loading the tools,
durations, and `fail` (the one way a command reports an error and exits)."""

from __future__ import annotations

import json
import logging
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from pinax.errors import FetchFailed, InvalidArgs, PinaxError
from pinax.search import RANKING  # the ranking sheet alone: the rest of search loads on use

DOCS_HELP = (
    "A manifest file (JSON) or a folder of them, a docs site URL / llms.txt / sitemap / "
    "objects.inv to build one from (cached), or a folder of documentation sources (built in "
    "memory). Repeat for several docs sets."
)
DocsOption = Annotated[
    list[str],
    typer.Option("--docs", "-d", metavar="SOURCE", help=DOCS_HELP, show_default=False),
]
OptionalDocsOption = Annotated[
    list[str] | None,
    typer.Option("--docs", "-d", metavar="SOURCE", help=DOCS_HELP, show_default=False),
]
ProjectOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--project",
        metavar="DIR",
        help="A project folder: its dependencies, at the versions it uses (installed, "
        "locked, declared), are what a search naming no docs covers. Repeat for several.",
        show_default=False,
    ),
]
CacheDirOption = Annotated[
    Path | None,
    typer.Option(
        "--cache-dir",
        metavar="DIR",
        help="Cache folder: fetched pages, search indexes, manifests built on the fly "
        "[default: $PINAX_CACHE_DIR or the user cache folder]",
        show_default=False,
    ),
]
CacheRedisOption = Annotated[
    str | None,
    typer.Option(
        "--cache-redis",
        metavar="URL",
        envvar="PINAX_CACHE_REDIS",
        help="Share fetched pages with other Pinax processes through Redis or Valkey, e.g. "
        "redis://cache:6379/0 (needs pinax[team]) [default: $PINAX_CACHE_REDIS]",
        show_default=False,
    ),
]
TtlOption = Annotated[
    list[str] | None,
    typer.Option(
        "--ttl",
        metavar="[NAME=]SECONDS",
        help="Seconds a cached page stays fresh (default: the manifest's ttl, else 86400); "
        "NAME=SECONDS sets it for one docs (every version), NAME@VERSION=SECONDS for one "
        "version. Repeatable.",
        show_default=False,
    ),
]
AllowPrivateOption = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-private",
        metavar="CIDR",
        help="Let Pinax connect to this private network (CIDR, e.g. 10.20.0.0/16 for an "
        "intranet docs site), to build manifests and to read pages. Repeat for several; also "
        "$PINAX_ALLOW_PRIVATE, comma-separated. Loopback, private, link-local and other "
        "non-public addresses are refused otherwise.",
        show_default=False,
    ),
]
SiteUrlOption = Annotated[
    str | None,
    typer.Option(
        "--url",
        metavar="URL",
        help="Where a local file was published, the base of its relative links: the site of "
        "an llms.txt / sitemap / objects.inv given to --docs, or a saved page's own address.",
        show_default=False,
    ),
]
LayoutOption = Annotated[
    str | None,
    typer.Option(
        "--layout",
        metavar="GENERATOR",
        help="A docs folder's generator: vitepress, mkdocs, docusaurus, hugo, sphinx, "
        "starlight, mdbook, mintlify, or plain (the files as they are) [default: the one "
        "whose config file the folder holds, else plain]; sphinx-dirhtml: a Sphinx folder "
        "published by the dirhtml builder (x.rst at x/, as Django's docs are).",
        show_default=False,
    ),
]
DocsFolderOption = Annotated[
    list[str] | None,
    typer.Option(
        "--docs-folder",
        metavar="DIR",
        help="A folder of documentation sources, whatever JSON files it holds (as --docs "
        "dir:DIR). Repeatable.",
        show_default=False,
    ),
]
IncludeOption = Annotated[
    list[str] | None,
    typer.Option(
        "--include",
        metavar="GLOB",
        help="Keep only a docs folder's pages whose path matches this glob; one without '/' "
        "matches a name at any depth (repeatable).",
        show_default=False,
    ),
]
ExcludeOption = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude",
        metavar="GLOB",
        help="Leave out a docs folder's pages whose path matches this glob; one without '/' "
        "matches a name at any depth (repeatable).",
        show_default=False,
    ),
]


@dataclass(frozen=True)
class FolderOptions:
    """How the command's docs folders are built: generator, --include, --exclude."""

    layout: str | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


def with_docs_folders(docs: list[str] | None, docs_folder: list[str] | None) -> list[str]:
    """The --docs arguments with each --docs-folder as `dir:DIR`."""
    return [*(docs or ()), *(f"dir:{d}" for d in docs_folder or ())]


HeaderOption = Annotated[
    list[str] | None,
    typer.Option(
        "--header",
        metavar="ORIGIN=NAME: VALUE",
        help="A header for a site behind a login, sent to that origin only (never after a "
        "redirect elsewhere), e.g. 'docs.corp.com=Authorization: Bearer ${DOCS_TOKEN}': "
        "${VAR} is read from the environment. Repeatable.",
        show_default=False,
    ),
]
HeadersFileOption = Annotated[
    Path | None,
    typer.Option(
        "--headers-file",
        metavar="FILE",
        help="--header lines from a file (one per line, # comments); refused when other "
        "users may read it.",
        show_default=False,
    ),
]
LogLevelOption = Annotated[
    str,
    typer.Option(
        "--log-level", metavar="LEVEL", help="debug, info, warning or error (logs go to stderr)."
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
LexicalWeightOption = Annotated[
    float | None,
    typer.Option(
        "--lexical-weight",
        metavar="W",
        help=f"How much matching words count, 0..1 [default: {RANKING.lexical_weight}].",
        show_default=False,
    ),
]
EmbeddingWeightOption = Annotated[
    float | None,
    typer.Option(
        "--embedding-weight",
        metavar="W",
        help="How much closeness in meaning to titles and headings counts, 0..1 "
        f"(0: words only) [default: {RANKING.embedding_weight}].",
        show_default=False,
    ),
]


ContentWeightOption = Annotated[
    float | None,
    typer.Option(
        "--content-weight",
        metavar="W",
        help="The share of a score that what the pages say gives, where a manifest has "
        f"content, 0..1 (0: titles and headings only) [default: {RANKING.content_weight}].",
        show_default=False,
    ),
]
ContentOption = Annotated[
    list[str] | None,
    typer.Option(
        "--content",
        metavar="NAME=PATH",
        help="The content file (page text by section, .content.jsonl.gz) of manifest NAME, "
        "for a manifest you may not edit; else the one beside it is used. Repeatable.",
    ),
]


def credentials_or_fail(headers: list[str] | None, headers_file: Path | None) -> Any:
    """The `--header` and `--headers-file` credentials (None without any), or exit 2 saying
    what is wrong without ever repeating a value."""
    from pinax.pages import Credentials, read_headers_file

    lines = list(headers or [])
    try:
        if headers_file is not None:
            lines += read_headers_file(headers_file)
        return Credentials.parse(lines) if lines else None
    except PinaxError as exc:
        fail(exc.message)


def weights_or_fail(
    lexical: float | None, embedding: float | None, content: float | None = None
) -> tuple[float, float, float]:
    """The search weights the options give (defaults for those not given), or exit 2."""
    from pinax.tools import search_weights

    try:
        return search_weights(lexical, embedding, content)
    except PinaxError as exc:
        message = exc.message
        for name in ("lexical", "embedding", "content"):
            message = message.replace(f"{name}_weight", f"--{name}-weight")
        fail(message)


def parse_contents(values: list[str] | None) -> dict[str, Path]:
    """`--content NAME=PATH` values by manifest name, or exit 2."""
    found: dict[str, Path] = {}
    for value in values or []:
        name, sep, path = value.partition("=")
        if not sep or not name.strip() or not path.strip():
            fail(f"--content {value!r}: expected NAME=PATH (a manifest name and a file)")
        if name.strip() in found:
            fail(f"--content names {name.strip()!r} twice")
        found[name.strip()] = Path(path.strip())
    return found


# What a terminal acts on instead of showing: C0 controls but tab and newline (ESC starts
# escape sequences that can rewrite the screen, the title, the clipboard), DEL, C1 controls
# (U+009B is a CSI on its own) and the bidirectional overrides that reorder what is shown.
_TERMINAL_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def safe(text: str) -> str:
    """Remote text (titles, URLs, pages, messages) made safe to print on a terminal: every
    character a terminal would act on is shown as its escape (`\\x1b`), never sent raw."""
    return _TERMINAL_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def safe_json(value: Any, **options: Any) -> str:
    """`json.dumps(value, ensure_ascii=False)`, with what a terminal would act on written as
    JSON escapes (json leaves C1 and bidirectional controls raw): the same data, still JSON."""
    return safe(json.dumps(value, ensure_ascii=False, **options))


SHOWN_INPUT = 80  # characters of a bad input an error echoes back (a 5 MB query is not)
_json_errors = False  # set by a command given --json: its errors go to stdout as JSON too


def json_errors(on: bool) -> None:
    """With `on` (a command's --json), `fail` also writes the error as JSON on stdout, the
    shape the tools answer with: `{"error": {"code", "message"}}`. Every command resets it."""
    global _json_errors
    _json_errors = on


def shown(text: str) -> str:
    """A bad input as an error echoes it: at most SHOWN_INPUT characters."""
    return text if len(text) <= SHOWN_INPUT else text[:SHOWN_INPUT] + "..."


# The tools' errors speak to a model of tools; on the command line the same advice names the
# command (a person has no list_docs to call).
_CLI_WORDS = (
    ("(see list_docs)", "(`pinax doctor --docs ...` lists the loaded docs and their sites)"),
    ("call get_page without a section", "run `pinax page` without --section"),
    (
        "call get_page again without a cursor (or with a section)",
        "run `pinax page` again without --cursor (or with --section)",
    ),
    ("a cursor get_page returned", "a cursor `pinax page` printed (its next_cursor)"),
    ("get_page only fetches", "`pinax page` only fetches"),
    ("get_page reads files", "`pinax page` reads files"),
)


def cli_words(message: str) -> str:
    """A tool's error message as the CLI says it (its tool names made commands)."""
    for tool_words, command_words in _CLI_WORDS:
        message = message.replace(tool_words, command_words)
    return message


def fail(message: str, code: int = 2, kind: str | None = None) -> NoReturn:
    """Report an error on stderr, one line, and exit (2: bad input or start-up; 1: a failure).
    Under --json it is also a JSON line on stdout; `kind` is its code (by default
    invalid_args for exit 2, else internal)."""
    message = cli_words(message)
    typer.echo(f"pinax: error: {safe(message)}", err=True)
    if _json_errors:
        error = {"code": kind or ("invalid_args" if code == 2 else "internal"), "message": message}
        typer.echo(safe_json({"error": error}))
    raise typer.Exit(code)


def fail_on(exc: PinaxError, code: int = 1) -> NoReturn:
    """`fail` for a tool's error, keeping its code (not_found, fetch_failed...)."""
    fail(exc.message, code, exc.code)


def warn(message: str) -> None:
    typer.echo(f"pinax: warning: {message}", err=True)


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 page`, `2 pages`: counts people read."""
    return f"{count:,} {word if count == 1 else many or word + 's'}"


def setup_logging(level: str) -> None:
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        fail(f"unknown log level {level!r} (use debug, info, warning or error)")
    logging.basicConfig(
        level=numeric, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # The SDK's info lines carry session ids; below debug, only Pinax's own lines (tool name,
    # outcome, time) and warnings are logged.
    if numeric > logging.DEBUG:
        logging.getLogger("mcp").setLevel(max(numeric, logging.WARNING))


@dataclass
class DocsSources:
    """What the `--docs` arguments came to: manifest files, and the sources that could not
    be built (argument, reason), which the caller warns about instead of stopping."""

    paths: list[Path] = field(default_factory=list)
    unavailable: list[dict[str, str]] = field(default_factory=list)


def resolve_sources(
    docs: list[str],
    cache_dir: Path | None = None,
    allow_private: list[str] | None = None,
    site_url: str | None = None,
    credentials: Any = None,
) -> DocsSources:
    """The manifest files of the `--docs` arguments (a folder stands for its *.json files; a
    site URL or published file is built into the cache first, with `allow_private` and, for a
    local file, `site_url`). A source whose build fails is set aside, not fatal: the others
    still serve. A missing path or an empty folder is said at once."""
    from pinax.builder import resolve_docs
    from pinax.manifest import manifest_files
    from pinax.pages import AddressPolicy

    AddressPolicy.from_env(allow_private or ())  # a bad network is said on every command
    found = DocsSources()
    for arg in docs:
        if "://" not in arg and not Path(arg).expanduser().exists():
            raise InvalidArgs(
                f"--docs {arg}: no such file or folder (give a manifest file, a folder of "
                "them, or a docs site URL)"
            )
        try:
            path = resolve_docs(
                arg,
                cache_dir,
                allow_private=tuple(allow_private or ()),
                site_url=site_url,
                credentials=credentials,
            )
        except PinaxError as exc:
            found.unavailable.append({"source": arg, "reason": exc.message})
            continue
        files = manifest_files([path])
        if path.is_dir() and not files:
            warn(f"--docs {arg}: the folder holds no manifests (*.json files)")
        found.paths.extend(files)
    found.paths = manifest_files(found.paths)  # one file named twice loads once
    return found


def open_tools(
    docs: list[str],
    cache_dir: Path | None = None,
    ttl: list[str] | None = None,
    allow_private: list[str] | None = None,
    read_pages: bool = True,
    site_url: str | None = None,
    contents: dict[str, Path] | None = None,
    folders: Any = None,
    credentials: Any = None,
    folder_options: FolderOptions | None = None,
    cache_redis: str | None = None,
    labels: Any = None,
) -> Any:
    """Load the manifests and wire the tools (`read_pages`: get_page too). Sources that could
    not be built are warned about and listed by list_docs; if nothing at all loads because of
    them, that is the error. Docs folders are built in memory (`folders`: the `DocsFolders`
    a server keeps between reloads, else made here, with `site_url` and `layout`)."""
    from pinax.cli.folders import DocsFolders, split_docs
    from pinax.tools import Tools

    default, per_docs = parse_ttls(ttl or [])
    if folders is None:  # else `docs` are the other sources, split from the folders already
        docs, folder_paths = split_docs(docs)
        folders = DocsFolders(folder_paths, site_url, options=folder_options, labels=labels)
    built = folders.build() if folders else []
    sources = resolve_sources(docs, cache_dir, allow_private, site_url, credentials)
    for missing in sources.unavailable:
        warn(f"--docs {missing['source']} is not loaded: {missing['reason']}")
    if sources.unavailable and not sources.paths and not built:
        raise FetchFailed(
            "no docs loaded: "
            + "; ".join(f"{m['source']}: {m['reason']}" for m in sources.unavailable)
        )
    return Tools.open(
        sources.paths,
        cache_dir,
        default,
        per_docs,
        allow_private or (),
        read_pages,
        unavailable=sources.unavailable,
        contents=contents,
        folders=built,
        credentials=credentials,
        folder_texts=folders.texts() if folders else None,
        cache_redis=cache_redis,
    )


def load_tools(
    docs: list[str] | list[Path],
    cache_dir: Path | None = None,
    ttl: list[str] | None = None,
    allow_private: list[str] | None = None,
    read_pages: bool = True,
    site_url: str | None = None,
    need_docs: bool = True,
    contents: dict[str, Path] | None = None,
    credentials: Any = None,
    folder_options: FolderOptions | None = None,
    cache_redis: str | None = None,
    labels: Any = None,
) -> Any:
    """Load the manifests (exit 2 naming the file and place if one is bad) and wire the tools;
    `need_docs`: a command that searches has nothing to do with no manifest at all."""
    if not docs:
        fail("give at least one manifest (or docs site URL) with --docs")
    try:
        tools = open_tools(
            [str(d) for d in docs],
            cache_dir,
            ttl,
            allow_private,
            read_pages,
            site_url,
            credentials=credentials,
            contents=contents,
            folder_options=folder_options,
            cache_redis=cache_redis,
            labels=labels,
        )
    except PinaxError as exc:
        fail(exc.message)
    if need_docs and not len(tools.library):
        fail("no manifests loaded: --docs named no manifest files")
    return tools


def parse_ttls(values: list[str]) -> tuple[float | None, dict[str, float]]:
    """`--ttl SECONDS` (every manifest), `--ttl NAME=SECONDS` (every version of one docs) and
    `--ttl NAME@VERSION=SECONDS` (one version)."""
    default: float | None = None
    per_docs: dict[str, float] = {}
    for value in values:
        name, _, seconds = value.rpartition("=")
        number = parse_duration(seconds, "--ttl")
        if name:
            per_docs[name.strip()] = number
        else:
            default = number
    return default, per_docs


def parse_duration(text: str, option: str) -> float:
    """Seconds from `90`, `90s`, `15m`, `12h` or `7d`."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    value = text.strip().lower()
    scale = units.get(value[-1:], 0)
    try:
        number = float(value[:-1] if scale else value) * (scale or 1)
    except ValueError:
        fail(f"{option}: {text!r} is not a duration (e.g. 3600, 90s, 15m, 12h, 7d)")
    if not 0 <= number < float("inf"):
        fail(f"{option}: {text!r} must be a duration of 0 or more")
    return number


def use_projects(tools: Any, folders: list[Path] | None) -> None:
    """Make the project folders' dependencies the default scope (a folder that is not one
    exits 2); each project file that cannot be read is a warning naming it."""
    if not folders:
        return
    for folder in folders:
        if not Path(folder).is_dir():
            fail(f"--project {folder}: not a folder")
    tools.use_project_folders(folders)
    for warning in tools.project_warnings():
        warn(warning)


def shipped_docs(
    docs: list[str] | None, folders: list[Path] | None
) -> tuple[list[str], dict[Path, tuple[str, str, list[str]]]]:
    """`--docs` with the docs the projects' installed packages ship added (each labelled with
    its package and installed version), said on stderr."""
    docs = list(docs or [])
    if not folders:
        return docs, {}
    from pinax.tools import shipped_in as found_in

    labels = {}
    for path, name, version, packages in found_in([f for f in folders if Path(f).is_dir()]):
        warn(f"serving the docs {packages[0]} {version} ships: {path}")
        docs.append(str(path))
        labels[path] = (name, version, packages)
    return docs, labels
