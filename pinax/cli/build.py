"""`pinax build`: a manifest from a docs site or a file it publishes."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from pinax.cli.common import (
    AllowPrivateOption,
    HeaderOption,
    HeadersFileOption,
    LayoutOption,
    LogLevelOption,
    SiteUrlOption,
    credentials_or_fail,
    fail,
    safe,
    setup_logging,
)
from pinax.errors import PinaxError


def build(
    source: Annotated[
        str,
        typer.Argument(
            metavar="SOURCE",
            help="A docs site URL, a published llms.txt / sitemap.xml[.gz] / objects.inv "
            "(URL or file), or a folder of documentation sources (Markdown, MDX, reST, HTML).",
            show_default=False,
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Manifest file to write (default: stdout)."),
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="Manifest name (default: from the host).")
    ] = None,
    version: Annotated[
        str | None,
        typer.Option(
            "--version",
            help="The version the docs are of, e.g. 5.2 (default: where the source states "
            "it: package.json, pyproject.toml, a Sphinx conf.py, an objects.inv header, the URL).",
        ),
    ] = None,
    versions: Annotated[
        str | None,
        typer.Option(
            "--versions",
            metavar="list|all|V1,V2",
            help="The versions the site publishes (mike's versions.json, Read the Docs, a "
            "Docusaurus folder's versions.json): list prints them; all, or a comma list, "
            "builds one manifest per version into the -o folder, as NAME@VERSION.json.",
            show_default=False,
        ),
    ] = None,
    package: Annotated[
        list[str] | None,
        typer.Option(
            "--package",
            metavar="ECOSYSTEM:NAME",
            help="A package these docs document, e.g. pypi:django (repeatable; default: "
            "the package of the manifest's name).",
        ),
    ] = None,
    title: Annotated[str | None, typer.Option("--title", help="Site title.")] = None,
    site_url: SiteUrlOption = None,
    layout: LayoutOption = None,
    include: Annotated[
        list[str] | None,
        typer.Option("--include", help="Keep only URLs matching this glob (repeatable)."),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option("--exclude", help="Leave out URLs matching this glob (repeatable)."),
    ] = None,
    max_pages: Annotated[
        int | None,
        typer.Option(
            "--max-pages", min=1, help="At most this many pages (default: 50000; crawl: 1000)."
        ),
    ] = None,
    titles: Annotated[
        Literal["slug", "fetch"],
        typer.Option("--titles", help="slug: titles from URLs; fetch: from each page."),
    ] = "slug",
    lang: Annotated[
        str | None, typer.Option("--lang", help="Sitemap language to keep (default: the site's).")
    ] = None,
    allow_host: Annotated[
        list[str] | None,
        typer.Option("--allow-host", help="Also fetch from this host (repeatable)."),
    ] = None,
    allow_private: AllowPrivateOption = None,
    header: HeaderOption = None,
    headers_file: HeadersFileOption = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, max=64, help="Requests at once.")
    ] = 8,
    delay: Annotated[
        float, typer.Option("--delay", min=0, help="Seconds between requests to one host.")
    ] = 0.1,
    lastmod: Annotated[
        bool, typer.Option("--lastmod", help="Keep sitemap <lastmod> dates.")
    ] = False,
    outline: Annotated[
        bool,
        typer.Option(
            "--outline",
            help="Read each page and record its headings (h2-h6 of the main content, with "
            "anchors); with --titles fetch, one request per page gives both.",
        ),
    ] = False,
    content: Annotated[
        bool,
        typer.Option(
            "--content",
            help="Also record each page's main text by section in <stem>.content.jsonl.gz "
            "beside the -o manifest (implies --outline).",
        ),
    ] = False,
    symbols: Annotated[
        str | None,
        typer.Option(
            "--symbols",
            help="An objects.inv (URL or file) whose API symbols join the pages (default: "
            "the site's own, looked for at the docs root, then the host root).",
        ),
    ] = None,
    no_symbols: Annotated[
        bool, typer.Option("--no-symbols", help="Record no API symbols.")
    ] = False,
    check: Annotated[
        bool,
        typer.Option("--check", help="Compare with the -o file; exit 1 if it is out of date."),
    ] = False,
    max_removed: Annotated[
        float,
        typer.Option(
            "--max-removed",
            min=0,
            max=1,
            help="Refuse to write when a larger share of pages vanished.",
        ),
    ] = 0.2,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Warnings only.")] = False,
    log_level: LogLevelOption = "warning",
) -> None:
    """Build a manifest from a docs site or a file it publishes."""
    setup_logging(log_level)
    from pinax.builder import (
        BuildOptions,
        ConsoleReporter,
        previous_texts,
        publish_manifest,
        run_build,
    )
    from pinax.manifest import dump, load
    from pinax.pages import default_cache_dir

    if check and output is None:
        fail("--check compares with a manifest file: give it with -o FILE")
    if content and output is None:
        fail("--content writes its file beside the manifest: give it with -o FILE")
    outline = outline or content
    if symbols and no_symbols:
        fail("--symbols and --no-symbols contradict each other: give one")
    previous = ()
    if outline and output is not None and output.exists():
        try:  # a rebuild reuses the outlines of pages the site says are unchanged
            previous = load(output).pages
        except PinaxError:
            previous = ()
    reporter = ConsoleReporter(quiet=quiet)
    options = BuildOptions(
        name=name,
        title=title,
        site_url=site_url,
        layout=layout,
        include=tuple(include or ()),
        exclude=tuple(exclude or ()),
        max_pages=max_pages,
        titles=titles,
        lang=lang,
        allow_hosts=tuple(allow_host or ()),
        allow_private=tuple(allow_private or ()),
        concurrency=concurrency,
        delay=delay,
        lastmod=lastmod,
        outline=outline,
        previous=previous,
        content=content,
        check=check,
        previous_texts=previous_texts(output, reporter) if content and output else {},
        symbols=symbols,
        no_symbols=no_symbols,
        cache_dir=default_cache_dir() if outline else None,
        credentials=credentials_or_fail(header, headers_file),
    )
    if versions is not None:
        if version is not None:
            fail("--version labels one build and --versions builds each: give one")
        if check:
            fail("--check compares one manifest: not with --versions")
        _each_version(source, versions, output, options, name, package, max_removed, reporter)
        return
    texts: list | None = [] if content else None
    try:
        manifest = run_build(source, options, reporter, texts)
        manifest = _versioned(manifest, source, name, version, package, reporter)
        if output is None:
            sys.stdout.write(safe(dump(manifest)))
            return
        outcome = publish_manifest(
            manifest, output, check, max_removed, reporter, texts, options.previous_texts
        )
    except PinaxError as exc:
        fail(exc.message)
    if outcome.exit_code:
        raise typer.Exit(outcome.exit_code)


def _each_version(
    source: str,
    spec: str,
    output: Path | None,
    options: Any,
    name: str | None,
    packages: list[str] | None,
    max_removed: float,
    reporter: Any,
) -> None:
    """`--versions`: print what the source publishes (`list`), or build each version asked
    into the `-o` folder as `NAME@VERSION.json` (a version that fails is said, the others
    still built; exit 1 if any failed)."""
    from dataclasses import replace

    from pinax.builder import (
        choose_versions,
        folder_name,
        list_versions,
        publish_manifest,
        run_build,
        version_file,
    )

    listing_only = spec.strip().lower() == "list"
    if not listing_only and output is None:
        fail("--versions builds one manifest per version: give the folder with -o DIR")
    if output is not None and output.exists() and not output.is_dir():
        fail(f"-o {output}: with --versions, -o names a folder (NAME@VERSION.json go in it)")
    try:
        listing = list_versions(source, options, reporter)
        if listing is None:
            fail(
                f"{source}: no list of versions found (mike's versions.json, Read the Docs, "
                "a Docusaurus versions.json beside versioned_docs/)"
            )
        if listing_only:
            reporter.note(f"{len(listing.versions)} versions, from {listing.kind}: {listing.where}")
            for found in listing.versions:
                aliases = f"\t({', '.join(found.aliases)})" if found.aliases else ""
                sys.stdout.write(safe(f"{found.version}\t{found.source}{aliases}\n"))
            return
        chosen = choose_versions(listing, spec)
    except PinaxError as exc:
        fail(exc.message)
    assert output is not None
    output.mkdir(parents=True, exist_ok=True)
    if name is None and listing.kind == "Docusaurus":  # one name for every version's folder
        name = folder_name(Path(listing.where).parent.resolve())
        reporter.note(f"the manifests are named {name} (the site's folder; --name sets another)")
    failed = []
    for found in chosen:
        texts: list | None = [] if options.content else None
        try:
            site_url = found.site_url or options.site_url
            each = replace(options, name=name or options.name, site_url=site_url, previous=())
            manifest = run_build(found.source, each, reporter, texts)
            manifest = _versioned(manifest, found.source, name, found.version, packages, reporter)
            path = version_file(output, manifest.name, found.version)
            outcome = publish_manifest(manifest, path, False, max_removed, reporter, texts, {})
            if outcome.exit_code:
                failed.append(found.version)
        except PinaxError as exc:
            reporter.warn(f"version {found.version} ({found.source}) not built: {exc.message}")
            failed.append(found.version)
    if failed:
        fail(f"{len(failed)} of {len(chosen)} versions not built: {', '.join(failed)}", code=1)


def _versioned(
    manifest: Any,
    source: str,
    name: str | None,
    version: str | None,
    packages: list[str] | None,
    reporter: Any,
) -> Any:
    """The manifest labelled with its version and packages: as given, else as the source
    states them (a folder build is named after the package it documents), said where."""
    from pinax.builder import (
        labelled,
        stated_by_folder,
        stated_by_inventory,
        stated_by_url,
    )

    stated = None
    local = Path(source) if "://" not in source else None
    if local is not None and local.is_dir():
        stated = stated_by_folder(local)
    elif local is not None and local.name.endswith(".inv"):
        stated = stated_by_inventory(local)
    if stated is None or not stated.version:
        by_url = stated_by_url(manifest.url) or (stated_by_url(source) if local is None else None)
        stated = by_url or stated
    given_name = name is not None or not (local is not None and local.is_dir())
    labelled_manifest, note = labelled(manifest, stated, version, packages, given_name)
    if note:
        reporter.note(note)
    return labelled_manifest
