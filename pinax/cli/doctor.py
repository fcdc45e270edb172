"""`pinax doctor`: what a person asks when something is off, answered in one screen.

Versions; the cache folder and its health; each library given with `--docs` (pages, outline
coverage, whether its search index is fresh, whether its site answers, what its robots.txt
says and whether it serves Markdown); and the client set-up `pinax config stdio` would print.
Problems (a manifest that does not load, a site that cannot be reached, a cache that cannot
be written) make the exit code 1, each said in a line; warnings do not.

The site checks make three small requests per library, with short timeouts, through the same
fetcher and address policy as get_page (so `--allow-private` matters here as it does there).
"""

from __future__ import annotations

import json
import os
import platform
import sys
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any

import typer

from pinax.cli.cache import cache_folder, cache_report, human_bytes
from pinax.cli.common import (
    AllowPrivateOption,
    CacheDirOption,
    JsonOption,
    OptionalDocsOption,
    ProjectOption,
    SiteUrlOption,
    json_errors,
    plural,
    resolve_sources,
)
from pinax.errors import PinaxError

MARKDOWN_TYPES = ("text/markdown", "text/x-markdown")


@dataclass
class Findings:
    """What the checks found: the report, and what is broken or merely worth knowing."""

    report: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def versions() -> dict[str, str]:
    from pinax import __version__

    found = {"pinax": __version__, "python": platform.python_version()}
    for package in ("mcp", "httpx"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "not installed"
    found["platform"] = platform.platform(terse=True)
    return found


def check_cache(folder: Path, findings: Findings) -> dict[str, Any]:
    """The cache folder: where, writable, and what it holds (looking creates nothing)."""
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    writable = os.access(existing, os.W_OK | os.X_OK)
    entry: dict[str, Any] = {"folder": str(folder), "exists": folder.is_dir(), "writable": writable}
    if not writable:
        findings.problems.append(
            f"cache folder {folder} cannot be written ({existing} is not writable): pages "
            "and indexes cannot be kept; set --cache-dir or PINAX_CACHE_DIR"
        )
    try:
        report = cache_report(folder)
    except PinaxError as exc:
        findings.problems.append(f"the page cache cannot be read: {exc.message}")
        return entry
    entry.update(
        pages=report["entries"],
        damaged=report["damaged"],
        bytes=report["bytes"],
        indexes=report["indexes"],
        manifests=report["manifests"],
    )
    if report["damaged"]:
        findings.warnings.append(
            f"{plural(report['damaged'], 'cached page')} damaged (dropped when next read; "
            "`pinax cache clear` empties the cache)"
        )
    return entry


def check_manifest(path: Path, folder: Path, findings: Findings) -> dict[str, Any] | None:
    from pinax import manifest as manifest_io
    from pinax.tools import index_freshness

    entry: dict[str, Any] = {"file": str(path), "index": index_freshness(path, folder)}
    try:
        loaded = manifest_io.load(path)
    except PinaxError as exc:
        findings.problems.append(f"manifest does not load: {exc.message}")
        return None
    pages = loaded.pages
    outlined = sum(1 for page in pages if getattr(page, "outline", None))
    entry.update(
        name=loaded.name,
        url=loaded.url,
        pages=len(pages),
        outlines=round(outlined / len(pages), 3) if pages else 0.0,
        markdown_twins=sum(1 for page in pages if page.markdown_url),
        first_page=pages[0].url if pages else None,
    )
    if loaded.version is not None:
        entry["version"] = loaded.version
    if loaded.packages is not None:
        entry["packages"] = list(loaded.packages)
    entry["content"] = check_content(path, loaded.content, findings, loaded.name)
    if entry["index"] != "fresh":
        findings.warnings.append(
            f"{loaded.name}: search index {entry['index']}: the next start indexes it "
            "(pinax search or serve)"
        )
    return entry


def _content_note(entry: dict[str, Any]) -> str:
    content = entry.get("content")
    if not content:
        return ""
    if content["state"] != "ready":
        return "; content unavailable (see warnings)"
    return f"; content for {plural(content['pages'], 'page')}"


def check_content(
    manifest: Path, declared: str | None, findings: Findings, name: str
) -> dict[str, Any] | None:
    """The manifest's content file, read through: how many pages it gives text for, or
    why search will go without it (a warning: the docs are served all the same)."""
    from pinax.manifest import companion_path, read_page_texts

    try:
        path = companion_path(manifest, declared)
        if not path.exists():
            return None
        pages = sum(1 for _ in read_page_texts(path))
    except (PinaxError, OSError) as exc:
        findings.warnings.append(f"{name}: served without content: {exc}")
        return {"file": str(manifest), "state": "unavailable"}
    return {"file": str(path), "pages": pages, "state": "ready"}


async def check_sites(entries: list[dict[str, Any]], allow_private: list[str]) -> None:
    """Fill in each library's `site`: reachable, robots.txt, Markdown (concurrently)."""
    import anyio

    from pinax.pages import AddressPolicy, Fetcher, Limits, UrlPolicy, site_origins

    try:
        addresses = AddressPolicy.from_env(allow_private)
    except PinaxError as exc:
        for entry in entries:
            entry["site"] = {"reachable": False, "error": exc.message}
        return
    urls = [u for e in entries for u in (e["url"], e["first_page"]) if u]
    policy = UrlPolicy(site_origins(urls), addresses)
    limits = Limits(connect_timeout=3.0, read_timeout=5.0, total_timeout=8.0)
    fetcher = Fetcher(policy.check, limits, addresses=addresses)
    async with fetcher.open_client() as client, anyio.create_task_group() as group:
        for entry in entries:
            group.start_soon(check_site, entry, fetcher, client)


async def check_site(entry: dict[str, Any], fetcher: Any, client: Any) -> None:
    from urllib.robotparser import RobotFileParser

    from pinax.errors import FetchFailed

    site: dict[str, Any] = {"url": entry["url"]}
    entry["site"] = site
    try:
        answer = await fetcher.get(entry["url"], client=client)
        site.update(reachable=True, status=answer.status)
    except FetchFailed as exc:
        site.update(reachable=exc.status is not None, status=exc.status, error=exc.message)
    except PinaxError as exc:  # refused by the address policy, say
        site.update(reachable=False, error=exc.message)
    if not site["reachable"]:
        return
    root = entry["url"].split("/", 3)
    robots_url = "/".join(root[:3]) + "/robots.txt"
    try:
        robots = await fetcher.get(robots_url, client=client)
        parser = RobotFileParser()
        parser.parse(robots.body.decode(robots.charset or "utf-8", "replace").splitlines())
        page = entry["first_page"] or entry["url"]
        site["robots"] = "allows pinax" if parser.can_fetch("pinax", page) else "disallows pinax"
    except FetchFailed as exc:
        site["robots"] = "none (all allowed)" if exc.status in (404, 410) else "unreadable"
    except PinaxError:
        site["robots"] = "unreadable"
    site["markdown"] = "twins listed" if entry["markdown_twins"] else "not offered"
    if entry["first_page"]:
        try:
            page = await fetcher.get(
                entry["first_page"], headers={"Accept": "text/markdown"}, client=client
            )
            if page.media_type in MARKDOWN_TYPES:
                site["markdown"] = "served on request"
        except PinaxError:
            pass  # a page that fails here fails get_page too, which reports it then


def diagnose(
    docs: list[str],
    cache_dir: Path | None,
    allow_private: list[str],
    site_url: str | None,
    check_network: bool = True,
    projects: list[Path] | None = None,
) -> Findings:
    import anyio

    from pinax.cli.config import pinax_command, serve_args, snippet

    findings = Findings()
    folder = cache_folder(cache_dir)
    findings.report["versions"] = versions()
    findings.report["cache"] = check_cache(folder, findings)
    libraries: list[dict[str, Any]] = []
    folders: list[dict[str, Any]] = []
    if docs:
        others, folders = check_folders(docs, site_url, findings)
        try:
            sources = resolve_sources(others, cache_dir, allow_private, site_url)
        except PinaxError as exc:
            findings.problems.append(exc.message)
            sources = None
        if sources is not None:
            for missing in sources.unavailable:
                findings.problems.append(f"--docs {missing['source']}: {missing['reason']}")
            if not sources.paths and not sources.unavailable and len(others) == len(docs):
                findings.problems.append("--docs named no manifest files")
            for path in sources.paths:
                entry = check_manifest(path, folder, findings)
                if entry is not None:
                    libraries.append(entry)
    else:
        findings.warnings.append(
            "no --docs given: pass the ones your client starts `pinax serve` with"
        )
    if check_network and libraries:
        anyio.run(check_sites, libraries, allow_private)
    for entry in libraries:
        site = entry.get("site") or {}
        if check_network and not site.get("reachable"):
            findings.problems.append(
                f"{entry['name']}: site {entry['url']} cannot be reached: "
                f"{site.get('error', 'no answer')}"
            )
        elif site.get("robots") == "disallows pinax":
            findings.warnings.append(f"{entry['name']}: robots.txt disallows Pinax")
    findings.report["docs"] = libraries
    findings.report["folders"] = folders
    if projects:
        check_projects(projects, libraries, folders, findings)
    args = serve_args(docs, cache_dir, allow_private, site_url)
    findings.report["client"] = {
        "command": pinax_command(),
        "stdio": json.loads(snippet("stdio", args)),
    }
    findings.report["problems"] = findings.problems
    findings.report["warnings"] = findings.warnings
    return findings


def check_projects(
    projects: list[Path],
    libraries: list[dict[str, Any]],
    folders: list[dict[str, Any]],
    findings: Findings,
) -> None:
    """Each project's dependencies, where each was read, and which loaded docs answer for it
    (`project_lines` in the report); a file that cannot be read is a warning naming it."""
    from pinax.tools import project_report

    for folder in projects:
        if not folder.is_dir():
            findings.problems.append(f"--project {folder}: not a folder")
    loaded = [(e["name"], e.get("version"), e.get("packages")) for e in libraries]
    loaded += [(f["name"], None, []) for f in folders]
    lines, data = project_report([p for p in projects if p.is_dir()], loaded)
    findings.report["projects"] = data
    findings.report["project_lines"] = lines
    for project in data:
        findings.warnings.extend(project["warnings"])


def check_folders(
    docs: list[str], site_url: str | None, findings: Findings
) -> tuple[list[str], list[dict[str, Any]]]:
    """(the other `--docs`, what each docs folder builds to), a folder that does not build
    being a problem."""
    from pinax.cli.folders import DocsFolders, split_docs

    others, paths = split_docs(docs)
    found = []
    for path in paths:
        try:
            ((manifest, _),) = DocsFolders([path], site_url).build()
        except PinaxError as exc:
            findings.problems.append(f"--docs {path}: {exc.message}")
            continue
        found.append({"name": manifest.name, "folder": str(path), "pages": len(manifest.pages)})
    return others, found


def screen(report: dict[str, Any]) -> list[str]:
    v = report["versions"]
    lines = [
        f"pinax {v['pinax']} (Python {v['python']}, mcp {v['mcp']}, httpx {v['httpx']}) "
        f"on {v['platform']}"
    ]
    cache = report["cache"]
    state = "writable" if cache["writable"] else "NOT writable"
    if not cache["exists"]:
        state += ", not created yet"
    held = ""
    if "pages" in cache:
        held = (
            f"; {plural(cache['pages'], 'cached page')} ({human_bytes(cache['bytes'])}), "
            f"{plural(cache['indexes']['files'], 'search index', 'search indexes')}, "
            f"{plural(cache['manifests']['files'], 'built manifest')}"
        )
    lines.append(f"cache: {cache['folder']}: {state}{held}")
    for entry in report["docs"]:
        lines.append(
            f"{entry['name']}{'@' + entry['version'] if entry.get('version') else ''}: "
            f"{plural(entry['pages'], 'page')} ({entry['file']}); outlines "
            f"{entry['outlines']:.0%}; search index {entry['index']}{_content_note(entry)}"
        )
        site = entry.get("site")
        if site is None:
            continue
        if site.get("reachable"):
            said = f"reachable (HTTP {site['status']})"
            said += f"; robots.txt {site.get('robots', '-')}; Markdown {site.get('markdown')}"
        else:
            said = f"NOT reachable: {site.get('error', 'no answer')}"
        lines.append(f"  site {site['url']}: {said}")
    for entry in report.get("folders", []):
        lines.append(
            f"{entry['name']}: {plural(entry['pages'], 'page')} (docs folder {entry['folder']}, "
            f"read from disk)"
        )
    lines.extend(report.get("project_lines", []))
    client = report["client"]["stdio"]["mcpServers"]["pinax"]
    lines.append(f"client (pinax config stdio): {json.dumps(client)}")
    for warning in report["warnings"]:
        lines.append(f"warning: {warning}")
    for problem in report["problems"]:
        lines.append(f"problem: {problem}")
    lines.append(
        f"{plural(len(report['problems']), 'problem')} found"
        if report["problems"]
        else "ok: nothing is broken"
    )
    return lines


def doctor(
    docs: OptionalDocsOption = None,
    cache_dir: CacheDirOption = None,
    allow_private: AllowPrivateOption = None,
    site_url: SiteUrlOption = None,
    offline: Annotated[
        bool, typer.Option("--offline", help="Do not contact the sites (no reachability check).")
    ] = False,
    as_json: JsonOption = False,
    project: ProjectOption = None,
) -> None:
    """Check the set-up: versions, cache, each library and its site, the client snippet,
    and (--project) what each project depends on and which docs answer for it;
    exit 1 when something is broken."""
    json_errors(as_json)
    findings = diagnose(
        docs or [], cache_dir, allow_private or [], site_url, not offline, project or []
    )
    if as_json:
        typer.echo(json.dumps(findings.report, indent=2))
        if findings.problems:  # the report says what; stderr says that something is broken
            first = findings.problems[0]
            more = f" (and {len(findings.problems) - 1} more)" if len(findings.problems) > 1 else ""
            typer.echo(f"pinax: error: {first}{more}", err=True)
    else:
        for line in screen(findings.report):
            typer.echo(line)
    sys.stdout.flush()
    if findings.problems:
        raise typer.Exit(1)
