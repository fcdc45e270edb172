"""Docs folders read as their generator publishes them, on excerpts of real repositories
(tests/builder/fixtures/<generator>-<repo>/, each with its PROVENANCE.md).

Each test builds the folder the way a user points Pinax at it (the repository root, or the
folder holding the generator's config) and checks the pages, URLs and titles against the
generator's own rules; where the shared corpora hold the site's published sitemap of the same
commit, against that sitemap.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pinax.builder import BuildOptions, FolderSource
from pinax.builder.generators import detect
from pinax.builder.report import Reporter
from tests.conftest import shared_path

FIXTURES = Path(__file__).parent / "fixtures"
NO_PROVENANCE = ("PROVENANCE.md",)  # the fixture's own note, at the top of some


def build(name: str, given: str = ".", **options: object) -> tuple[FolderSource, dict]:
    """The folder's source and {URL relative to its site: title} of its pages."""
    source = FolderSource(FIXTURES / name / given, BuildOptions(**options))  # type: ignore[arg-type]
    manifest = source.build(Reporter()).manifest
    return source, {p.url.removeprefix(manifest.url): p.title for p in manifest.pages}


def published(corpus: str) -> set[str]:
    text = shared_path("corpora", "published", corpus, "sitemap.xml").read_text()
    return set(re.findall(r"<loc>([^<]+)</loc>", text))


# VitePress


def test_vitepress_vue_docs_pages_are_the_markdown_under_src_dir() -> None:
    source, pages = build("vitepress-vuejs-docs")
    manifest = source.build(Reporter()).manifest
    assert source.layout == "vitepress"
    assert (manifest.name, manifest.title, manifest.url) == (
        "vue.js",
        "Vue.js",
        "https://vuejs.org/",
    )
    assert set(pages) == {
        "",
        "api/",
        "api/application.html",
        "examples/",
        "glossary/",
        "guide/introduction.html",
        "guide/quick-start.html",
        "guide/essentials/application.html",
        "guide/essentials/template-syntax.html",
        "partners/",
        "tutorial/",
    }
    # The sidebar's titles; never the README, `.vitepress/`, `public/`, example fragments
    # (template.html, description.txt), srcExclude's tutorial descriptions or `[id].md`.
    assert pages["guide/essentials/template-syntax.html"] == "Template Syntax"
    assert not any(part in url for url in pages for part in ("src/", ".md", "README", "step-1"))
    assert not {"template", "description", "README"} & set(pages.values())
    # `[partnerId].md` with its `[partnerId].paths.ts`: code makes those pages; one warning
    reporter = Reporter()
    FolderSource(FIXTURES / "vitepress-vuejs-docs", BuildOptions()).build(reporter)
    assert source.site is not None
    assert [w for w in reporter.warnings if "dynamic route" in w] == [
        f"{source.site.config}: skipped 1 dynamic route(s), whose pages a paths loader makes "
        "by running code (never run here): partners/[partnerId].md"
    ]


def test_vitepress_clean_urls_and_src_exclude() -> None:
    _, vite = build("vitepress-vite", "docs")
    assert {"", "guide/", "guide/features", "guide/cli", "config/", "config/server-options"} <= set(
        vite
    )
    assert all(not url.endswith((".html", ".md")) for url in vite)  # cleanUrls: true
    _, vitest = build("vitepress-vitest", "docs", site_url="https://vitest.dev/")
    # srcExclude: AGENTS.md, **/guide/cli-generated.md, **/guide/examples/*
    assert set(vitest) == {"", "team.html", "todo.html", "config/", "guide/", "guide/features.html"}


# MkDocs


def test_mkdocs_httpx_docs_dir_nav_titles_and_theme_templates() -> None:
    source, pages = build("mkdocs-httpx")
    assert source.layout == "mkdocs" and source.root.name == "docs"
    assert len(pages) == 23  # every Markdown file under docs_dir (all of them in nav:)
    assert pages["async/"] == "Async Support" and pages["advanced/proxies/"] == "Proxies"
    assert pages[""] == "Introduction"
    assert not any(url.startswith("docs/") or "overrides" in url or "nav" in url for url in pages)


@pytest.mark.parametrize(
    ("fixture", "corpus"),
    [
        ("mkdocs-mcp-python-sdk", "mcp-python-sdk"),
        ("mkdocs-django-rest-framework", "django-rest-framework"),
    ],
)
def test_mkdocs_urls_are_the_published_sitemap(fixture: str, corpus: str) -> None:
    """The fixture is the commit the sitemap was deployed from (PROVENANCE.md): the same
    pages at the same URLs, no more, no fewer."""
    source = FolderSource(FIXTURES / fixture, BuildOptions())
    manifest = source.build(Reporter()).manifest
    assert {page.url for page in manifest.pages} == published(corpus)


@pytest.mark.parametrize(
    ("fixture", "corpus", "expected"),
    [
        # mkdocs-online.yml (INHERIT mkdocs-common.yml, merged), Material's blog plugin
        # (posts at blog/YYYY/MM/DD/slug/), the exclude plugin's globs (snippets, _template)
        ("mkdocs-textual", "textual", 10),
        ("mkdocs-adk-docs", "google-adk", 6),  # exclude_docs: _includes
    ],
)
def test_mkdocs_excerpts_publish_only_sitemap_urls(
    fixture: str, corpus: str, expected: int
) -> None:
    """An excerpt of the deployed commit: each of its pages at a URL the sitemap lists."""
    manifest = FolderSource(FIXTURES / fixture, BuildOptions()).build(Reporter()).manifest
    urls = {page.url for page in manifest.pages}
    assert len(urls) == expected and urls <= published(corpus)


def test_mkdocs_config_tags_are_data_never_run(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: !ENV [SITE_NAME, 'Tagged Docs']\n"
        "site_url: https://tagged.example/\n"
        "markdown_extensions:\n"
        "  - pymdownx.emoji:\n"
        "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
        "hooks: !!python/object/apply:os.system ['touch pwned']\n"
    )
    site = detect(tmp_path)
    assert site is not None and site.generator == "mkdocs"
    assert site.site_url == "https://tagged.example/" and site.source == tmp_path / "docs"
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()


# Sphinx


def test_sphinx_name_and_title_come_from_conf_py() -> None:
    source, pages = build("sphinx-flask", "docs", site_url="https://flask.palletsprojects.com/")
    manifest = source.build(Reporter()).manifest
    assert (manifest.name, manifest.title) == ("flask", "Flask")
    assert "quickstart.html" in pages and "patterns/appfactories.html" in pages
    assert "CHANGES.html" not in pages  # outside the Sphinx source folder
    source, _ = build("sphinx-requests", "docs")
    assert source.build(Reporter()).manifest.name == "requests"


def test_sphinx_pages_are_the_documents_of_the_published_inventory() -> None:
    """torchao 0.17: `source_suffix` maps `.md` to MyST; `_templates/` is no page. Each page
    is a document (`std:doc`) of the objects.inv published for that version."""
    import zlib

    inventory = shared_path("corpora", "published", "pytorch", "ao", "stable", "objects.inv")
    body = zlib.decompress(inventory.read_bytes().split(b"\n", 4)[4]).decode()
    documents = {line.split()[0] for line in body.splitlines() if " std:doc " in line}
    source, pages = build("sphinx-torchao", "docs/source", site_url="https://docs.pytorch.org/ao/")
    assert source.build(Reporter()).manifest.name == "torchao"
    found = {url.removesuffix(".html") for url in pages}
    assert len(found) == 7 and found <= documents
    assert "contributing/benchmarking_api_guide" in found  # a MyST page


def test_sphinx_conf_py_is_read_as_literals_only(tmp_path: Path) -> None:
    (tmp_path / "index.rst").write_text("Home\n====\n")
    (tmp_path / "skip.rst").write_text("Skip\n====\n")
    (tmp_path / "conf.py").write_text(
        "import os\nos.system('touch pwned')\n"
        "project = 'Literal Project'\nrelease = os.environ.get('V', '1.0')\n"
        "exclude_patterns = ['skip.rst']\nhtml_baseurl = 'https://lit.example/en/'\n"
    )
    reporter = Reporter()
    source = FolderSource(tmp_path, BuildOptions())
    manifest = source.build(reporter).manifest
    assert not (tmp_path / "pwned").exists()
    assert (manifest.name, manifest.title) == ("literal-project", "Literal Project")
    assert [page.url for page in manifest.pages] == ["https://lit.example/en/index.html"]
    assert any("conf.py: release is not a literal" in w for w in reporter.warnings)


# Docusaurus, Hugo, Starlight, mdBook, Mintlify


def test_docusaurus_serves_the_newest_version_at_the_route() -> None:
    source, pages = build("docusaurus-react-native-website", "website")
    assert source.layout == "docusaurus" and source.root.name == "version-0.86"
    # front matter `id: environment-setup`; `_`-prefixed partials are no pages
    assert pages == {
        "docs/environment-setup": "Get Started with React Native",
        "docs/flexbox": "Layout with Flexbox",
        "docs/intro-react": "React Fundamentals",
        "docs/native-platform": "Native Platform",  # its sidebar item's label: Introduction
    }
    # The served version's sidebar, by doc id (front matter `id: native-platform` of
    # native-platforms.md): a label, the page keeps its title
    assert source.site is not None
    meta = {"id": "native-platform"}
    assert source.site.nav_label("native-platforms.md", meta) == "Introduction"
    _, prettier = build("docusaurus-prettier", "website", site_url="https://prettier.io/")
    assert set(prettier) == {"docs", "docs/cli", "docs/install", "docs/options", "docs/rationale"}


def test_hugo_content_dir_headless_sections_and_lower_case() -> None:
    source, pages = build("hugo-hugodocs")
    assert source.build(Reporter()).manifest.url == "https://gohugo.io/"
    assert pages["functions/strings/contains/"] == "strings.Contains"
    assert "about/" in pages and "getting-started/quick-start/" in pages
    assert not any(url.startswith("_common") for url in pages)  # cascade build.render: never


def test_starlight_mdbook_and_mintlify() -> None:
    _, starlight = build("starlight-starlight", "docs", site_url="https://starlight.astro.build/")
    assert set(starlight) == {
        "",
        "getting-started/",
        "de/getting-started/",
        "guides/authoring-content/",
        "reference/configuration/",
    }
    rbe = "https://doc.rust-lang.org/rust-by-example/"
    _, book = build("mdbook-rust-by-example", site_url=rbe, exclude=NO_PROVENANCE)
    assert book["hello/print/print_debug.html"] == "Debug"  # SUMMARY.md's title
    assert "index.html" in book and not any("README" in url for url in book)
    assert len(book) == 6  # only the chapters SUMMARY.md lists (of those in the excerpt)
    source, mint = build(
        "mintlify-mintlify-docs", site_url="https://mintlify.com/docs/", exclude=NO_PROVENANCE
    )
    assert source.layout == "mintlify"
    assert set(mint) == {"", "quickstart", "ai-native", "cli", "cli/install", "editor", "migration"}


# Sidebar labels: the page keeps its own title (what its <title> and H1 say); the label the
# sidebar shows names a page only when the page names itself nowhere.


def test_mintlify_sidebar_titles_are_labels_and_the_page_keeps_its_title() -> None:
    _, mint = build("mintlify-mintlify-docs", site_url="https://x.dev/", exclude=NO_PROVENANCE)
    assert mint["editor"] == "Editor overview"  # sidebarTitle: "Overview"
    source, mem0 = build("mintlify-mem0", "docs", site_url="https://docs.mem0.ai/")
    assert mem0 == {  # README.md: one of the files Mintlify never publishes
        "introduction": "Build AI apps that remember",
        "vibecoding": "Vibecoding with Mem0",  # sidebarTitle: "Vibecoding"
        "open-source/setup": "Self-Hosted Setup",  # sidebarTitle: "Self-Hosted Server"
    }
    assert source.site is not None
    assert source.site.nav_label("vibecoding.mdx", {"sidebartitle": "Vibecoding"}) == "Vibecoding"


def test_starlight_legacy_collections_skip_underscore_files_and_read_sidebar_labels() -> None:
    source, tauri = build("starlight-tauri-docs", site_url="https://v2.tauri.app/")
    assert tauri == {  # not 404.md, reference/_cli.mdx, _fragments/cta.mdx nor _it/...
        "": "Tauri 2.0",
        "start/": "What is Tauri?",
        "start/create-project/": "Create a Project",
    }
    assert source.site is not None and source.site.nav_labels == {
        "start/index.mdx": "What is Tauri?",
        "start/create-project.mdx": "Create a Project",
    }


def test_starlight_content_layer_keeps_underscore_folders(tmp_path: Path) -> None:
    """Astro 5's `docsLoader` globs `**/[^_]*.md`: a `_` file is skipped, a `_` folder not."""
    files = {
        "astro.config.mjs": "export default { integrations: [starlight({ title: 'T' })] }\n",
        "src/content.config.ts": "export const collections = { docs: defineCollection("
        "{ loader: docsLoader(), schema: docsSchema() }) }\n",
        "src/content/docs/a.md": "---\ntitle: A\n---\n",
        "src/content/docs/_b.md": "---\ntitle: B\n---\n",
        "src/content/docs/_c/d.md": "---\ntitle: D\n---\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    manifest = FolderSource(tmp_path, BuildOptions(site_url="https://t.dev/")).build(Reporter())
    assert sorted(p.url for p in manifest.manifest.pages) == [
        "https://t.dev/_c/d/",
        "https://t.dev/a/",
    ]


@pytest.mark.parametrize(
    ("generator", "files", "title"),
    [
        ("docusaurus", {"docusaurus.config.js": "export default {}\n"}, "sidebar_label"),
        ("mintlify", {"docs.json": '{"navigation": []}'}, "sidebarTitle"),
        ("starlight", {"astro.config.mjs": "export default {}\n"}, "sidebar:\n  label"),
    ],
)
def test_a_page_without_a_title_is_called_by_its_sidebar_label(
    tmp_path: Path, generator: str, files: dict[str, str], title: str
) -> None:
    folder = {"docusaurus": "docs/", "mintlify": "", "starlight": "src/content/docs/"}[generator]
    files = {**files, f"{folder}page-one.md": f"---\n{title}: Short label\n---\nText.\n"}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    source = FolderSource(tmp_path, BuildOptions(site_url="https://t.dev/"))
    pages = source.build(Reporter()).manifest.pages
    assert source.layout == generator
    assert [p.title for p in pages] == ["Short label"]  # not "page one", the file's name


# Anchors


RULES = {
    "vitepress": "vitepress",
    "mkdocs-material": "mkdocs",
    "docusaurus": "github",
    "mdbook": "mdbook",
    "hugo-docsy": "github",
    "sphinx": "sphinx",
}


@pytest.mark.parametrize("generator", sorted(RULES))
def test_heading_anchors_are_the_ids_the_generator_rendered(generator: str) -> None:
    """The shared fixtures hold each page's source and the HTML the generator made of it:
    the anchors of the source's outline are the ids on the rendered page."""
    from pinax.builder.folder import parse_source

    total = matched = 0
    for folder in sorted(shared_path("fixtures", "sites", generator).iterdir()):
        source = next(folder.glob("source.md"), None)
        if source is None:
            continue
        ids = set(re.findall(r"\bid=[\"']?([^\"'\s>]+)", (folder / "page.html").read_text()))
        for heading in parse_source(
            "page.md", source.read_bytes(), slug_rule=RULES[generator]
        ).outline:
            total += 1
            matched += heading.anchor in ids
    assert total > 100 and matched / total >= 0.98, (matched, total)


def test_the_generators_bench_reports_each_folder(capsys: pytest.CaptureFixture[str]) -> None:
    from bench.quality.generators import main

    sitemap = shared_path("corpora", "published", "mcp-python-sdk", "sitemap.xml")
    mcp = FIXTURES / "mkdocs-mcp-python-sdk"
    assert (
        main([str(mcp), str(FIXTURES / "vitepress-vuejs-docs"), f"--sitemap={mcp}={sitemap}"]) == 0
    )
    header, *rows = capsys.readouterr().out.strip().split("\n")
    table = [dict(zip(header.split("\t"), row.split("\t"), strict=True)) for row in rows]
    assert [row["generator"] for row in table] == ["mkdocs", "vitepress"]
    assert table[0]["in_sitemap"] == "13/13" and table[0]["sitemap_missing"] == "0"
    assert table[1]["urls_shaped"] == "11/11" and table[1]["pages"] == "11"
    hit, _, total = table[1]["links"].partition("/")
    assert int(total) > 0 and int(hit) <= int(total)


def test_the_generators_bench_checks_out_mirrored_repositories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--mirrors DIR`: the REPOS table's repositories DIR holds as bare git directories
    (here the Vue docs excerpt, committed), checked out and measured; the others skipped."""
    import shutil
    import subprocess

    from bench.quality.generators import main

    work = tmp_path / "work"
    shutil.copytree(FIXTURES / "vitepress-vuejs-docs", work)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(work)], check=True)
    subprocess.run([*git, "-C", str(work), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(work), "commit", "-qm", "x"], check=True)
    mirrors = tmp_path / "mirrors"
    bare = mirrors / "vuejs+docs" / "repo"
    subprocess.run([*git, "clone", "-q", "--bare", str(work), str(bare)], check=True)
    assert main(["--mirrors", str(mirrors)]) == 0
    out = capsys.readouterr()
    header, *rows = out.out.strip().split("\n")
    table = [dict(zip(header.split("\t"), row.split("\t"), strict=True)) for row in rows]
    assert [(row["generator"], row["pages"]) for row in table] == [("vitepress", "11")]
    assert "vitejs/vite: not in" in out.err


# Each site's config as its repository writes it (the parts that decide URLs), and where the
# sources lie in it: the shared fixtures' sources are laid out at their `source_path` under
# it, built, and each page must come out at the URL the real generator published it at.
SITES = {
    "vitepress": (
        "docs/.vitepress/config.ts",
        "export default defineConfig({ cleanUrls: true, rewrites: { 'en/:rest*': ':rest*' },\n"
        "  sitemap: { hostname: 'https://vitepress.dev' } })\n",
        "docs",
    ),
    "mkdocs-material": (
        "mkdocs.yml",
        "site_name: Material for MkDocs\nsite_url: https://squidfunk.github.io/mkdocs-material/\n"
        "plugins:\n  - search\n  - blog\n",
        ".",
    ),
    "docusaurus": (
        "website/docusaurus.config.js",
        "module.exports = { url: 'https://prettier.io', baseUrl: '/',\n"
        "  presets: [['classic', { docs: { path: '../docs' } }]] }\n",
        "website",
    ),
    "mdbook": ("guide/book.toml", '[book]\ntitle = "mdBook"\n', "guide"),
    "hugo-docsy": (
        "docsy.dev/hugo.yaml",
        "baseURL: https://www.docsy.dev/\ntitle: Docsy\ncontentDir: content/en\n",
        "docsy.dev",
    ),
}
SITE_URLS = {"mdbook": "https://rust-lang.github.io/mdBook/"}  # its site-url names no host


@pytest.mark.parametrize("generator", sorted(SITES))
def test_urls_are_the_ones_the_real_generator_published(tmp_path: Path, generator: str) -> None:
    import json

    config, text, given = SITES[generator]
    (tmp_path / config).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / config).write_text(text)
    expected = {}
    for meta_file in sorted(shared_path("fixtures", "sites", generator).glob("*/meta.json")):
        meta = json.loads(meta_file.read_text())
        path = meta["source_path"]
        if " " in path:  # several files concatenated (mdBook's print.html): no one source
            continue
        body = next(meta_file.parent.glob("source.*")).read_bytes()
        if "/posts/" in path and not body.startswith(b"---"):
            continue  # a blog post kept without its front matter: its date is not there
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
        expected[path] = meta["url"].rstrip("/")  # Docusaurus serves both `x` and `x/`
    options = BuildOptions(site_url=SITE_URLS.get(generator))
    source = FolderSource(tmp_path / given, options)
    built = source.build(Reporter())
    assert source.layout == generator.split("-")[0]
    found = {str(source.root / path): url.rstrip("/") for url, path in built.files.items()}
    wanted = {str(tmp_path / path): url for path, url in expected.items()}
    assert len(wanted) >= 8 and found == wanted


# Hugo URL settings


def test_hugo_permalinks_ugly_urls_and_front_matter_url(tmp_path: Path) -> None:
    """The settings as Hugo's own docs show them (gohugoio/hugoDocs at the fixture's commit,
    content/en/configuration/permalinks.md and ugly-urls.md, content-management/urls.md)."""
    files = {
        "hugo.toml": "baseURL = 'https://example.org/'\n"
        "[permalinks.page]\narticles = '/blog/:year/:month/:slug/'\n"
        "[permalinks.section]\narticles = '/blog/'\n"
        "[permalinks]\nposts = '/:year/:title/'\n"
        "notes = '/:06/:1/:2/:title/'\n"  # a Go time layout: not read, one warning
        "[uglyURLs]\nbooks = true\nfilms = false\n",
        "content/_index.md": "---\ntitle: Home\n---\n",
        "content/articles/_index.md": "---\ntitle: Articles\n---\n",
        "content/articles/first.md": "---\ntitle: First\ndate: 2024-03-05\nslug: one\n---\n",
        "content/articles/second.md": "---\ntitle: Second Article\ndate: 2023-11-30\n---\n",
        "content/posts/hello.md": "---\ntitle: Hello World\ndate: 2022-01-02T10:00:00Z\n---\n",
        "content/books/dune.md": "---\ntitle: Dune\n---\n",
        "content/films/alien.md": "---\ntitle: Alien\n---\n",
        "content/notes/n.md": "---\ntitle: N\ndate: 2021-01-01\n---\n",
        "content/posts/post-1.md": "+++\ntitle = 'My First Article'\n"
        "url = 'articles/my-first-article.html'\n+++\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    source = FolderSource(tmp_path, BuildOptions())
    reporter = Reporter()
    manifest = source.build(reporter).manifest
    urls = {p.title: p.url.removeprefix("https://example.org/") for p in manifest.pages}
    assert urls == {
        "Home": "",
        "Articles": "blog/",
        "First": "blog/2024/03/one/",
        "Second Article": "blog/2023/11/second-article/",
        "Hello World": "2022/hello-world/",
        "Dune": "books/dune.html",
        "Alien": "films/alien/",
        "N": "notes/n/",
        "My First Article": "articles/my-first-article.html",
    }
    assert source.site is not None
    assert any("permalinks.notes" in w and ":06" in w for w in source.site.warnings)


# Sphinx's builder


def test_sphinx_dirhtml_urls_are_the_ones_django_publishes(tmp_path: Path) -> None:
    """`sphinx-build -b dirhtml` is a command-line choice that `conf.py` never states:
    `--layout sphinx-dirhtml` says it. Django 5.2's docs (shared corpora) then give the URLs
    docs.djangoproject.com publishes (its published dev manifest: the same paths)."""
    import json

    from tests.builder.test_rest_symbols import DJANGO_SUBSET, django_docs

    docs = django_docs(tmp_path, (*DJANGO_SUBSET, "index.txt", "contents.txt"))
    site = "https://docs.djangoproject.com/en/dev/"
    manifest = shared_path("corpora", "manifests", "django.json")
    published = {page["url"] for page in json.loads(manifest.read_text())["pages"]}
    for layout, expected in (("sphinx", set()), ("sphinx-dirhtml", None)):
        source = FolderSource(docs, BuildOptions(site_url=site, layout=layout))
        urls = {page.url for page in source.build(Reporter()).manifest.pages}
        assert len(urls) == 11 and source.layout == "sphinx"
        if expected is None:  # every page at the URL the site serves it at
            assert urls <= published and f"{site}ref/settings/" in urls and site in urls
        else:  # the html builder's `ref/settings.html`: none of them
            assert urls & published == expected


def test_sphinx_html_file_suffix_and_read_the_docs_builder(tmp_path: Path) -> None:
    (tmp_path / "conf.py").write_text("project = 'P'\nhtml_file_suffix = '.htm'\n")
    (tmp_path / "guide.rst").write_text("Guide\n=====\n")
    source = FolderSource(tmp_path, BuildOptions(site_url="https://p.dev/"))
    assert [p.url for p in source.build(Reporter()).manifest.pages] == ["https://p.dev/guide.htm"]
    (tmp_path / ".readthedocs.yaml").write_text("version: 2\nsphinx:\n  builder: dirhtml\n")
    source = FolderSource(tmp_path, BuildOptions(site_url="https://p.dev/"))
    assert [p.url for p in source.build(Reporter()).manifest.pages] == ["https://p.dev/guide/"]


def test_docusaurus_sidebars_label_docs_by_id_categories_too(tmp_path: Path) -> None:
    """`sidebars.js` items label docs by id (number prefixes dropped, front matter `id`
    first); a category whose `link` opens a doc labels that doc."""
    files = {
        "docusaurus.config.js": "export default { title: 'T' }\n",
        "sidebars.js": "export default { docs: [\n"
        "  { type: 'doc', id: 'guides/intro', label: 'Start here' },\n"
        "  { type: 'category', label: 'The API', link: { type: 'doc', id: 'api' },\n"
        "    items: ['guides/other'] }] }\n",
        "docs/01-guides/02-intro.md": "Text.\n",
        "docs/reference.md": "---\nid: api\n---\nText.\n",
        "docs/01-guides/other.md": "# Other page\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    manifest = FolderSource(tmp_path, BuildOptions(site_url="https://t.dev/")).build(Reporter())
    titles = {p.url.removeprefix("https://t.dev/"): p.title for p in manifest.manifest.pages}
    assert titles == {
        "docs/guides/intro": "Start here",  # no title of its own: its label
        "docs/api": "The API",
        "docs/guides/other": "Other page",  # its own H1
    }


def test_hugo_doc_rooted_permalinks_and_path_case(tmp_path: Path) -> None:
    """Docsy's own site's `doc-rooted` config (google/docsy
    83c5cc14ee6a44190cacec20b8e1c15973df97fd, docsy.dev/config/doc-rooted/hugo.yaml,
    Apache-2.0): `:sections[1:]` slices publish the docs
    section at the site's root; and hugo-book's `disablePathToLower = true`
    (alex-shpak/hugo-book 162c806e991b63d8a8bbfcd1c8d41ad650ebd07e, exampleSite/hugo.toml,
    MIT) keeps a path's case."""
    files = {
        "hugo.yaml": "baseURL: https://www.docsy.dev/\n"
        "permalinks:\n  page:\n    docs: /:sections[1:]/:slug/\n"
        "  section:\n    docs: /:sections[1:]\n",
        "content/docs/_index.md": "---\ntitle: Docs\n---\n",
        "content/docs/get-started/_index.md": "---\ntitle: Get started\n---\n",
        "content/docs/get-started/basic.md": "---\ntitle: Basic setup\nslug: basic\n---\n",
        "content/docs/adding/bundle/index.md": "---\ntitle: A Bundle\n---\n",
        "content/blog/Post.md": "---\ntitle: Post\n---\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    manifest = FolderSource(tmp_path, BuildOptions()).build(Reporter()).manifest
    urls = {p.title: p.url.removeprefix("https://www.docsy.dev/") for p in manifest.pages}
    assert urls == {
        "Docs": "",
        "Get started": "get-started/",
        "Basic setup": "get-started/basic/",
        "A Bundle": "adding/a-bundle/",  # a leaf bundle's folder is no section
        "Post": "blog/post/",
    }
    (tmp_path / "hugo.yaml").write_text("baseURL: https://x.dev/\ndisablePathToLower: true\n")
    manifest = FolderSource(tmp_path, BuildOptions()).build(Reporter()).manifest
    assert "https://x.dev/blog/Post/" in {p.url for p in manifest.pages}
