"""A folder of documentation sources as docs: built, searched, read back from disk.

The real sources are the shared fixtures' `source.md` / `source.rst` files (what each
generator's author wrote), laid out as a docs folder in a temporary directory at test time.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import sys
from pathlib import Path

import anyio
import pytest

from pinax.builder import BuildOptions, FolderSource, is_docs_folder
from pinax.builder.ignore import ignored, parse_gitignore
from pinax.builder.layouts import page_path
from pinax.builder.report import Reporter
from pinax.errors import FetchFailed, InvalidArgs, PinaxError
from pinax.pages import rst_to_markdown, split_front_matter
from pinax.tools import Tools
from tests.conftest import shared_path
from tests.support.work import HANG, assert_linear

FIXTURES = ("fixtures", "sites")


def lay_out(target: Path) -> dict[str, dict]:
    """Every fixture's source in `target/<generator>/<name>.<ext>`, Markdown given front matter
    with the page's real title; {relative path: meta} of what was written."""
    written: dict[str, dict] = {}
    for meta_file in sorted(shared_path(*FIXTURES).glob("*/*/meta.json")):
        meta = json.loads(meta_file.read_text())
        source = next(iter(sorted(meta_file.parent.glob("source.*"))), None)
        if source is None:
            continue
        relative = f"{meta_file.parent.parent.name}/{meta_file.parent.name}{source.suffix}"
        body = source.read_bytes()
        if source.suffix == ".md":
            head = f"---\ntitle: {json.dumps(meta['title'])}\ndescription: real source\n---\n"
            body = head.encode() + body
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        (target / relative).write_bytes(body)
        written[relative] = meta
    return written


@pytest.fixture
def docs_folder(tmp_path: Path) -> tuple[Path, dict[str, dict]]:
    folder = tmp_path / "docs"
    written = lay_out(folder)
    return folder, written


def open_folder(folder: Path, cache: Path, **options) -> tuple[Tools, FolderSource]:
    source = FolderSource(folder, BuildOptions(**options))
    built = source.build(Reporter())
    files = {url: (source.root, path) for url, path in built.files.items()}
    return Tools.open([], cache, folders=[(built.manifest, files)]), source


def test_fixture_sources_are_built_searched_and_read_back(
    docs_folder: tuple[Path, dict[str, dict]], tmp_path: Path
) -> None:
    folder, written = docs_folder
    tools, source = open_folder(folder, tmp_path / "cache")
    pages = {page.url: page for page in tools.library.all()[0].pages}
    assert len(pages) == len(written)
    by_path = {path: url for url, path in source.build(Reporter()).files.items()}
    missed_titles, missed_headings = [], []
    for relative, meta in written.items():
        page = pages[by_path[relative]]
        if relative.endswith(".md"):
            assert page.title == meta["title"] and page.description == "real source"
        elif relative.startswith("sphinx/"):  # a reST title, inline markup as Sphinx shows it
            assert page.title == meta["title"], relative
        found = tools.search_pages(page.title, limit=10)["results"]
        if page.url not in [hit["url"] for hit in found]:
            missed_titles.append(page.title)
        if page.outline:
            heading = page.outline[0].title
            found = tools.search_pages(f"{page.title} {heading}", limit=10)["results"]
            if not any(hit["url"] == page.url for hit in found):
                missed_headings.append(heading)
    # Titles shared by several sources ("Lists", "The basics") may push one out of the top ten.
    assert len(missed_titles) <= 2, missed_titles
    assert len(missed_headings) <= 3, missed_headings
    for relative in written:
        if "huge" in relative:
            continue  # 2 MB: a hundred windows; its first is read in the next check
        text = read_whole(tools, by_path[relative])
        assert "description: real source" not in text  # front matter is never text
        original = (folder / relative).read_bytes().decode("utf-8", "replace")
        if relative.endswith(".rst"):  # rendered (roles, hidden doctests): its words, then
            from tests.support.extraction import markdown_text, prf, reference_from_source, words

            reference = reference_from_source(original, "rst", written[relative]["title"], False)
            recall = prf(words(markdown_text(text, html=False)), words(reference.text))[1]
            assert recall >= 0.95, (relative, recall)
            continue
        lines = _prose_lines(split_front_matter(original)[1])
        shown = sum(line in text for line in lines)
        assert shown >= 0.9 * len(lines), (relative, shown, len(lines))


def read_whole(tools: Tools, url: str) -> str:
    """A page's whole Markdown through get_page, window after window."""
    parts, cursor = [], None
    for _ in range(200):
        page = anyio.run(lambda c=cursor: tools.get_page(url, max_tokens=20_000, cursor=c))
        assert page["source"] == "file" and page["cached"] is False
        parts.append(page["markdown"])
        cursor = page.get("next_cursor")
        if not page["truncated"] or cursor is None:
            break
    return "\n".join(parts)


def _prose_lines(text: str) -> list[str]:
    """Plain lines of a source: no markup that cleaning or heading conversion rewrites."""
    return [
        line.strip()
        for line in text.splitlines()
        if len(line.strip()) > 20 and not re.search(r"[<>]|^\s*(\.\. |#|[=\-~^*+`'\"]{3,})", line)
    ]


def test_rst_titles_become_headings_with_their_labels() -> None:
    source = shared_path(*FIXTURES, "sphinx", "requests-faq", "source.rst").read_text()
    markdown = rst_to_markdown(source)
    assert markdown.startswith("# Frequently Asked Questions {#faq}")
    assert "\n## Encoded Data?\n" in markdown and "==========" not in markdown


def test_front_matter_yaml_and_toml() -> None:
    meta, body = split_front_matter('---\ntitle: "A: b"\ntags: [x]\ndraft: true\n---\n# H\n')
    assert meta == {"title": "A: b", "draft": "true"} and body == "# H\n"
    meta, body = split_front_matter('+++\ntitle = "Hugo"\nslug = "x"\n+++\nText')
    assert meta == {"title": "Hugo", "slug": "x"} and body == "Text"
    assert split_front_matter("---\nnever closed\n# H") == ({}, "---\nnever closed\n# H")
    assert split_front_matter("--- not front matter\n") == ({}, "--- not front matter\n")


@pytest.mark.parametrize(
    ("generator", "layout", "docs_root", "site"),
    [
        ("mkdocs-material", "mkdocs", "docs/", "https://squidfunk.github.io/mkdocs-material/"),
        ("hugo-docsy", "hugo", "docsy.dev/content/en/", "https://www.docsy.dev/"),
        ("docusaurus", "docusaurus", "docs/", "https://prettier.io/docs/"),
    ],
)
def test_layouts_give_the_urls_the_generators_published(
    generator: str, layout: str, docs_root: str, site: str
) -> None:
    """The fixtures' real source paths map to the URLs their real sites serve."""
    from urllib.parse import urljoin

    checked = 0
    for meta_file in sorted(shared_path(*FIXTURES, generator).glob("*/meta.json")):
        meta = json.loads(meta_file.read_text())
        source_path = meta["source_path"]
        if not source_path.startswith(docs_root) or "/blog/" in source_path:
            continue
        url = urljoin(site, page_path(source_path[len(docs_root) :], layout, {}))
        if layout == "docusaurus":  # this site sets `trailingSlash: true`
            url = url.rstrip("/") + "/"
        assert url == meta["url"], source_path
        checked += 1
    assert checked >= 5


def test_sphinx_layout_publishes_html() -> None:
    assert page_path("user/quickstart.rst", "sphinx", {}) == "user/quickstart.html"
    assert page_path("guide/_index.md", "hugo", {}) == "guide/"
    assert page_path("Guide/Intro.md", "hugo", {"slug": "start"}) == "guide/start/"
    assert page_path("guide/01-intro.mdx", "docusaurus", {"slug": "/x/y"}) == "x/y"
    assert page_path("guide/README.md", "mkdocs", {}) == "guide/"
    assert page_path("a b/c.md", "plain", {}) == "a%20b/c.md"


def test_what_a_docs_tool_ignores(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    for name in (
        "index.md",
        "guide/a.md",
        "guide/b.md",
        "guide/keep.md",
        "node_modules/pkg/readme.md",
        ".hidden/x.md",
        "_build/html/index.html",
        "deep/_build/kept.md",
        "drafts/wip.md",
        "notes.txt",
    ):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(f"# {name}\n")
    (folder / "draft.md").write_text("---\ndraft: true\n---\n# Draft\n")
    (folder / ".gitignore").write_text("drafts/\nguide/*.md\n!guide/keep.md\n")
    outside = tmp_path / "secret.md"
    outside.write_text("# Secret\n")
    (folder / "leak.md").symlink_to(outside)
    (folder / "alias.md").symlink_to(folder / "index.md")
    source = FolderSource(folder, BuildOptions())
    paths = sorted(path for path, _ in source.scan())
    assert paths == ["alias.md", "deep/_build/kept.md", "draft.md", "guide/keep.md", "index.md"]
    built = source.build(Reporter())
    assert sorted(built.files.values()) == [p for p in paths if p != "draft.md"]
    excluded = FolderSource(folder, BuildOptions(exclude=("/deep/*",))).build(Reporter())
    assert "deep/_build/kept.md" not in excluded.files.values()


def test_gitignore_matching() -> None:
    rules = parse_gitignore("*.log\n/top.md\ndoc/**/gen/\n!keep.log\n[ab]?.md\n", ())
    assert ignored(rules, ("x", "y.log"), False) and not ignored(rules, ("keep.log",), False)
    assert ignored(rules, ("top.md",), False) and not ignored(rules, ("x", "top.md"), False)
    assert ignored(rules, ("doc", "a", "b", "gen"), True)
    assert not ignored(rules, ("doc", "a", "b", "gen"), False)  # folders only
    assert ignored(rules, ("b1.md",), False) and not ignored(rules, ("c1.md",), False)
    nested = parse_gitignore("*.md\n", ("sub",))
    assert ignored(nested, ("sub", "x.md"), False) and not ignored(nested, ("x.md",), False)
    # No pattern backtracks its way to exponential (or polynomial) time.
    pattern = parse_gitignore("*a*a*a*a*a*a*a*a*b\n", ())
    assert not ignored(pattern, ("a" * 5000,), False)
    assert_linear(lambda n: ignored(pattern, ("a" * n,), False), 2000)


def test_a_docs_folder_is_told_from_a_folder_of_manifests(tmp_path: Path) -> None:
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "a.json").write_text('{"pinax_manifest": 1}')
    (tmp_path / "empty").mkdir()
    (tmp_path / "site" / "docs").mkdir(parents=True)
    (tmp_path / "site" / "_category_.json").write_text("{}")  # Docusaurus', not a manifest
    (tmp_path / "site" / "intro.md").write_text("# Intro")
    (tmp_path / "manifests" / "README.md").write_text("# What these manifests are")
    assert not is_docs_folder(tmp_path / "manifests")
    assert not is_docs_folder(Path(__file__).resolve().parents[2] / "manifests")
    assert not is_docs_folder(tmp_path / "empty")
    assert is_docs_folder(tmp_path / "site")


def test_get_page_reads_only_inside_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nAlpha text.\n")
    (folder / "b.md").write_text("# B\n\nBeta text.\n")
    (folder / "c.md").write_text("# C\n")
    outside = tmp_path / "secret.md"
    outside.write_text("# Secret\n\nnot for the model\n")
    tools, _ = open_folder(folder, tmp_path / "cache")

    def read(url: str) -> dict:
        return anyio.run(lambda: tools.get_page(url))

    assert "Alpha text." in read((folder / "a.md").as_uri())["markdown"]
    for url in (
        outside.as_uri(),
        (folder / "a.md").as_uri().replace("/docs/a.md", "/docs/../secret.md"),
        "file:///etc/passwd",
    ):
        with pytest.raises(InvalidArgs, match="not a page of a served docs folder"):
            read(url)
    # A listed page whose file became a symlink out of the folder, or a FIFO, is refused.
    (folder / "b.md").unlink()
    (folder / "b.md").symlink_to(outside)
    with pytest.raises(InvalidArgs, match="leads out of the docs folder"):
        read((folder / "b.md").as_uri())
    (folder / "c.md").unlink()
    os.mkfifo(folder / "c.md")
    with pytest.raises(FetchFailed, match="not a regular file"):
        read((folder / "c.md").as_uri())


def test_with_a_site_url_pages_carry_real_links_and_read_from_disk(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    (folder / "guide").mkdir(parents=True)
    (folder / "mkdocs.yml").write_text("site_name: x\n")
    (folder / "index.md").write_text("# Home\n\nWelcome.\n")
    (folder / "guide" / "setup.md").write_text("# Setup\n\n## Install {#install}\n\nRun it.\n")
    tools, _ = open_folder(folder, tmp_path / "cache", site_url="https://docs.example.com/")
    hit = tools.search_pages("install setup")["results"][0]
    assert hit["url"] == "https://docs.example.com/guide/setup/" and hit["anchor"] == "install"
    page = anyio.run(lambda: tools.get_page(hit["url"], section="install"))
    assert page["source"] == "file" and "Run it." in page["markdown"]
    with pytest.raises(PinaxError):  # the folder's site is read from disk only
        anyio.run(lambda: tools.get_page("https://docs.example.com/other/"))


def test_a_rebuild_reads_only_changed_files(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(20):
        (folder / f"p{i}.md").write_text(f"# Page {i}\n")
    source = FolderSource(folder, BuildOptions())
    source.build(Reporter())
    assert source.reads == 20
    (folder / "p3.md").write_text("# Page three, renamed\n")
    (folder / "p4.md").unlink()
    built = source.build(Reporter())
    assert source.reads == 21 and len(built.manifest.pages) == 19
    assert "Page three, renamed" in {page.title for page in built.manifest.pages}


def test_pinax_build_of_a_folder(tmp_path: Path) -> None:
    from tests.support.serving import run_pinax

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "intro.rst").write_text("Intro\n=====\n\nSection\n-------\n")
    out = tmp_path / "m.json"
    args = ("build", str(folder), "--url", "https://x.org/", "--layout", "sphinx", "-o", str(out))
    result = run_pinax(*args)
    assert result.returncode == 0, result.stderr
    manifest = json.loads(out.read_text())
    page = manifest["pages"][0]
    assert page["url"] == "https://x.org/intro.html" and page["title"] == "Intro"
    assert page["outline"] == [{"level": 2, "title": "Section", "anchor": "section"}]  # Sphinx id


@pytest.mark.anyio
async def test_serve_a_folder_over_stdio_and_a_change_is_searchable_soon(tmp_path: Path) -> None:
    from mcp import Client, StdioServerParameters

    folder = tmp_path / "docs"
    shutil.copytree(shared_path(*FIXTURES, "mkdocs-material"), tmp_path / "src")
    folder.mkdir()
    for source in sorted((tmp_path / "src").glob("*/source.md")):
        (folder / f"{source.parent.name}.md").write_bytes(source.read_bytes())
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pinax", "serve", "--docs", str(folder), "--cache-dir", str(tmp_path / "c")],
        env={"PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    async with Client(params) as client:
        listed = (await client.call_tool("list_docs", {})).structured_content["docs"]
        assert listed[0]["pages"] == len(list(folder.glob("*.md")))
        (folder / "zebra.md").write_text("# Zebra crossings\n\n## Quagga stripes\n\nText.\n")
        # How soon is bench's to say (bench/bench_folder.py); here: it comes.
        with anyio.fail_after(HANG):
            while True:
                found = await client.call_tool("search_pages", {"query": "quagga stripes"})
                hits = found.structured_content["results"]
                if hits and hits[0]["url"].endswith("/zebra.md"):
                    break
                await anyio.sleep(0.05)
        page = await client.call_tool("get_page", {"url": hits[0]["url"]})
        assert page.structured_content["source"] == "file"
        assert "Text." in page.structured_content["markdown"]


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "---\n" + "key: value\n" * (4 * n),  # front matter that never closes
        lambda n: "x\n" + "=" * (2 * n) + "\n" + "x" * (2 * n) + "\n",  # a long adornment
        lambda n: "Title\n=====\n" * n,  # a title on every other line
        lambda n: ("`" * 3 + "\n# not a heading\n") * n,  # fences all the way
        lambda n: "# " + "#" * (4 * n) + " x\n",  # a heading made of markers
    ],
    ids=["front matter", "adornment", "titles", "fences", "markers"],
)
def test_hostile_sources_parse_in_linear_time(make) -> None:
    """Counted, not timed: 8 times the input costs about 8 times the CPU (tests/work.py)."""
    from pinax.builder.folder import parse_source

    runs = itertools.count()

    def parse(n: int) -> None:
        # Each run's text differs, so no run is answered from the conversion cache.
        text = (make(n) + f"\n\nrun {next(runs)}\n").encode()
        for name in ("page.md", "page.rst"):
            parse_source(name, text)

    assert_linear(parse, 6_000)


def test_html_and_mdx_sources(tmp_path: Path) -> None:
    """A saved HTML page is a page (title, outline, extraction); MDX imports are no text."""
    fixture = shared_path(*FIXTURES, "mkdocs-material", "reference-lists")
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(fixture / "page.html", folder / "lists.html")
    (folder / "tabs.mdx").write_text(
        'import Tabs from "@theme/Tabs";\n\n# Tabs\n\nPick one.\n\n```js\nimport a from "b";\n```\n'
    )
    tools, _ = open_folder(folder, tmp_path / "cache")
    pages = {page.url.rsplit("/", 1)[1]: page for page in tools.library.all()[0].pages}
    assert pages["lists.html"].title == "Lists" and len(pages["lists.html"].outline) >= 3
    html = anyio.run(lambda: tools.get_page(pages["lists.html"].url))
    assert html["source"] == "file" and "Using unordered lists" in html["markdown"]
    assert "Skip to content" not in html["markdown"]  # extracted, not the whole page
    mdx = anyio.run(lambda: tools.get_page(pages["tabs.mdx"].url))["markdown"]
    assert mdx.startswith("# Tabs") and 'import a from "b";' in mdx


def test_the_layout_is_read_from_the_generators_config(tmp_path: Path) -> None:
    from pinax.builder.layouts import detect

    (tmp_path / "site" / "content" / "en").mkdir(parents=True)
    (tmp_path / "site" / "hugo.toml").write_text("baseURL = 'https://x.org/'\n")
    assert detect(tmp_path / "site" / "content" / "en") == "hugo"
    (tmp_path / "proj" / "docs").mkdir(parents=True)
    (tmp_path / "proj" / "mkdocs.yml").write_text("site_name: x\n")
    assert detect(tmp_path / "proj" / "docs") == "mkdocs"
    (tmp_path / "proj" / "docs" / "conf.py").write_text("project = 'x'\n")
    assert detect(tmp_path / "proj" / "docs") == "sphinx"
    assert detect(tmp_path) == "plain"


@pytest.mark.slow
def test_a_folder_of_10000_markdown_files_builds(tmp_path: Path) -> None:
    from bench.speed.folder import make_folder
    from tests.support.serving import run_pinax

    make_folder(tmp_path / "docs", 10_000)
    # How fast is bench/bench_folder.py's to say; here: it builds them all.
    result = run_pinax("build", str(tmp_path / "docs"), "-o", str(tmp_path / "m.json"), "-q")
    assert result.returncode == 0, result.stderr
    assert len(json.loads((tmp_path / "m.json").read_text())["pages"]) == 10_000


def test_build_content_of_a_folder_gives_each_page_its_text_by_section(
    tmp_path: Path, docs_folder: tuple[Path, dict[str, dict]]
) -> None:
    from pinax.manifest import companion_path, read_page_texts
    from tests.support.serving import run_pinax

    folder, _ = docs_folder
    out = tmp_path / "m.json"
    result = run_pinax("build", str(folder / "mkdocs-material"), "--content", "-o", str(out))
    assert result.returncode == 0, result.stderr
    pages = {p["url"]: p for p in json.loads(out.read_text())["pages"]}
    texts = list(read_page_texts(companion_path(out)))
    assert {t.url for t in texts} == set(pages)
    for text in texts:
        outline = pages[text.url].get("outline", [])
        assert [s.heading for s in text.sections[1:]] == [h["title"] for h in outline]
        assert text.fetched_at and "---" not in text.sections[0].text[:4]  # no front matter


def test_a_served_folders_text_is_searched_without_a_content_file(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "guide.md").write_text(
        "# Guide\n\nIntro.\n\n## Setup\n\nRun the installer.\n\n## Troubleshooting\n\n"
        "When the spinner never stops, the proxy blocks the websocket upgrade.\n"
    )
    (folder / "other.md").write_text("# Other\n\nNothing here.\n")
    source = FolderSource(folder, BuildOptions())
    built = source.build(Reporter())
    files = {url: (source.root, path) for url, path in built.files.items()}
    texts = {built.manifest.name: lambda: source.texts(built)}
    tools = Tools.open([], tmp_path / "c", folders=[(built.manifest, files)], folder_texts=texts)
    tools.library.load_contents()
    (best, *_) = tools.search_pages("spinner never stops loading behind a proxy")["results"]
    assert best["title"] == "Guide" and best["heading"] == "Troubleshooting"
    assert "websocket upgrade" in best["snippet"]
