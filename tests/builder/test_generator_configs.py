"""Generator configs are untrusted input: read as data only (JS/TS literals, YAML with its
tags as plain values, TOML, `ast` literals), in one pass, with a warning naming the file and
what was assumed when a value is computed rather than written."""

from __future__ import annotations

from pathlib import Path

from pinax.builder import BuildOptions, FolderSource
from pinax.builder.generators import detect
from pinax.builder.generators.jsliteral import UNKNOWN, read_module
from pinax.builder.generators.mkdocs import load_yaml
from pinax.builder.generators.sphinx import conf_literals
from pinax.builder.report import Reporter


def test_js_literals_are_read_and_the_rest_is_unknown() -> None:
    module = read_module(
        """
        import { defineConfig } from 'vitepress'
        // srcDir: 'commented-out'
        const sidebar = [{ text: 'Intro', link: '/guide/intro' }, ...more]
        const base = process.env.BASE || '/'
        export default defineConfig<Theme>({
          title: `Plain ${'template'}`,
          description: 'It\\'s "quoted"',
          srcDir: "./src",   /* a block comment */
          cleanUrls: true,
          rewrites: { 'packages/a/index.md': 'a/index.md' } as const,
          base,
          themeConfig: { sidebar },
          head() { return [] },
          lastUpdated: 0x10,
        })
        """
    )
    config = module.export
    assert config["srcDir"] == "./src" and config["cleanUrls"] is True
    assert config["description"] == 'It\'s "quoted"' and config["lastUpdated"] == 16
    assert config["title"] is UNKNOWN and config["base"] is UNKNOWN
    assert config["rewrites"] == {"packages/a/index.md": "a/index.md"}
    assert config["themeConfig"]["sidebar"] == [{"text": "Intro", "link": "/guide/intro"}]
    assert "srcDir" in config and "head" not in config
    exported = read_module("const c = { url: 'https://x.dev', baseUrl: '/d/' }\nmodule.exports = c")
    assert exported.export == {"url": "https://x.dev", "baseUrl": "/d/"}


def test_hostile_js_is_read_in_one_pass() -> None:
    """Inputs that make a backtracking tokenizer or a recursive reader quadratic or blow
    the stack: each is read (to UNKNOWN or partial values), not hung on."""
    n = 50_000
    hostile = [
        "export default " + "[" * n + "]" * n,
        "export default {" + "/*" * n,
        'export default { a: "' + '"' * n,
        "export default { a: " + "`" * n,
        "export default " + "defineConfig(" * n,
        "export default {" + "a: 'x', " * n + "}",
        "const a = " + "'\\" * n,
    ]
    for source in hostile:
        read_module(source)
    assert len(read_module(hostile[5]).export) == 1  # one key, n times


def test_yaml_aliases_and_deep_nesting_are_bounded(tmp_path: Path) -> None:
    laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 12):
        prev, name = chr(96 + i), chr(97 + i)
        laughs += f"{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
    laughs += "nav: [*l, {Home: index.md}]\nsite_name: Laughs\n"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    (tmp_path / "mkdocs.yml").write_text(laughs)
    site = detect(tmp_path)  # 5**11 nav leaves by reference: walked within a budget
    assert site is not None and site.title == "Laughs"
    assert load_yaml("[" * 100_000 + "]" * 100_000) is None  # too deep: not a config


def test_conf_py_literals_and_what_is_not(tmp_path: Path) -> None:
    values, unread = conf_literals(
        "project = 'P'\nversion: str = '1.2'\nrelease = get()\nroot_doc = 'contents'\n"
    )
    assert values == {"project": "P", "version": "1.2", "root_doc": "contents"}
    assert unread == {"release"}
    assert conf_literals("def (:\n") == (None, set())
    assert conf_literals("x = " + "(" * 100_000)[0] is None


def test_a_config_that_is_not_literal_is_one_warning_naming_it(tmp_path: Path) -> None:
    (tmp_path / ".vitepress").mkdir()
    (tmp_path / ".vitepress" / "config.ts").write_text(
        "import shared from './shared'\nexport default makeIt(shared)\n"
    )
    (tmp_path / "index.md").write_text("# Home\n")
    (tmp_path / "guide.md").write_text("# Guide\n")
    reporter = Reporter()
    source = FolderSource(tmp_path, BuildOptions(site_url="https://x.dev/"))
    manifest = source.build(reporter).manifest
    source.build(reporter)  # a rebuild says nothing again
    assert len(reporter.warnings) == 1
    warning = reporter.warnings[0]
    assert "config.ts" in warning and "assumed srcDir '.'" in warning
    assert sorted(p.url for p in manifest.pages) == ["https://x.dev/", "https://x.dev/guide.html"]


def test_mkdocs_prefers_index_to_readme_and_reads_docs_given_below_the_config(
    tmp_path: Path,
) -> None:
    (tmp_path / "documentation").mkdir()
    (tmp_path / "documentation" / "README.md").write_text("# Read me\n")
    (tmp_path / "documentation" / "index.md").write_text("# Index\n")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: S\nsite_url: https://s.dev/\n"
        "docs_dir: documentation\nuse_directory_urls: false\n"
    )
    for given in (tmp_path, tmp_path / "documentation"):
        manifest = FolderSource(given, BuildOptions()).build(Reporter()).manifest
        assert [(p.url, p.title) for p in manifest.pages] == [("https://s.dev/index.html", "Index")]


def test_a_folder_given_inside_or_beside_the_pages_keeps_its_place_in_the_site(
    tmp_path: Path,
) -> None:
    """Hugo's `content/en/docs` given alone: its pages at their URLs in the whole site.
    Docusaurus' `docs/` given while the site serves its newest version: the version in
    progress, at `/docs/next/`."""
    import shutil

    fixtures = Path(__file__).parent / "fixtures"
    hugo = FolderSource(fixtures / "hugo-hugodocs" / "content" / "en" / "functions", BuildOptions())
    urls = {page.url for page in hugo.build(Reporter()).manifest.pages}
    assert urls == {
        "https://gohugo.io/functions/",
        "https://gohugo.io/functions/strings/",
        "https://gohugo.io/functions/strings/contains/",
    }
    site = tmp_path / "rn"
    shutil.copytree(fixtures / "docusaurus-react-native-website", site)
    current = FolderSource(site / "docs", BuildOptions()).build(Reporter()).manifest
    assert {page.url for page in current.pages} == {
        "https://reactnative.dev/docs/next/environment-setup",
        "https://reactnative.dev/docs/next/flexbox",
    }


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def urls_of(folder: Path, **options: object) -> set[str]:
    source = FolderSource(folder, BuildOptions(**options))  # type: ignore[arg-type]
    return {page.url for page in source.build(Reporter()).manifest.pages}


def test_layouts_of_config_folders_languages_and_builders(tmp_path: Path) -> None:
    vitepress = write(
        tmp_path / "vp",
        {
            ".vitepress/config/index.ts": "export default { cleanUrls: true }\n",
            "guide/a.md": "# A\n",
        },
    )
    assert urls_of(vitepress, site_url="https://v.dev/") == {"https://v.dev/guide/a"}
    hugo = write(
        tmp_path / "hugo",
        {
            "config/_default/hugo.toml": 'baseURL = "https://h.dev/"\ncontentDir = "content"\n',
            "content/docs/_index.md": "# Docs\n",
            "content/docs/Setup.md": "# Setup\n",
        },
    )
    assert urls_of(hugo) == {"https://h.dev/docs/", "https://h.dev/docs/setup/"}
    folder_i18n = write(
        tmp_path / "mk",
        {
            "mkdocs.yml": "site_name: M\nsite_url: https://m.dev/\nplugins:\n  - i18n:\n"
            "      docs_structure: folder\n      languages:\n"
            "        - locale: en\n          default: true\n        - locale: fr\n",
            "docs/en/index.md": "# Home\n",
            "docs/en/guide.md": "# Guide\n",
            "docs/fr/guide.md": "# Guide fr\n",
        },
    )
    assert urls_of(folder_i18n) == {
        "https://m.dev/",
        "https://m.dev/guide/",
        "https://m.dev/fr/guide/",
    }
    suffix_i18n = write(
        tmp_path / "mks",
        {
            "mkdocs.yml": "site_name: S\nsite_url: https://s.dev/\nplugins:\n  - i18n:\n"
            "      languages:\n        - locale: en\n          default: true\n"
            "        - locale: de\n",
            "docs/guide.md": "# Guide\n",
            "docs/guide.de.md": "# Anleitung\n",
            "docs/release.notes.md": "# Notes\n",
        },
    )
    assert urls_of(suffix_i18n) == {
        "https://s.dev/guide/",
        "https://s.dev/de/guide/",
        "https://s.dev/release.notes/",
    }
    sphinx = write(
        tmp_path / "sp",
        {
            ".readthedocs.yaml": "version: 2\nsphinx:\n  configuration: docs/conf.py\n"
            "  builder: dirhtml\n",
            "docs/conf.py": "project = 'D'\nhtml_baseurl = 'https://d.dev/'\n",
            "docs/index.rst": "Home\n====\n",
            "docs/usage.rst": "Usage\n=====\n",
        },
    )
    assert urls_of(sphinx / "docs") == {"https://d.dev/", "https://d.dev/usage/"}


def test_a_config_split_over_files_is_read_through_its_relative_imports(tmp_path: Path) -> None:
    """Pinia's layout: `.vitepress/config/index.ts` spreads `sharedConfig` from `./shared`,
    whose regex literals hold quotes and backticks; a package import is never read."""
    from pinax.builder.generators.jsliteral import read_config

    write(
        tmp_path,
        {
            ".vitepress/config/index.ts": "import { defineConfig } from 'vitepress'\n"
            "import { sharedConfig as shared } from './shared'\n"
            "import en from './en'\n"
            "export default defineConfig({ ...shared, locales: { root: { ...en } } })\n",
            ".vitepress/config/shared.ts": "const r = /[\\s~`!@#'\"]+/g\nconst half = 6 / 2\n"
            "export const sharedConfig = defineConfig({ title: 'Split', cleanUrls: true })\n",
            ".vitepress/config/en.ts": "export default { themeConfig: { sidebar: [\n"
            "  { text: 'The Guide', link: '/guide' }] } }\n",
            "guide.md": "# Guide page\n",
        },
    )
    config = read_config(tmp_path / ".vitepress" / "config" / "index.ts").export
    assert config["title"] == "Split" and config["cleanUrls"] is True
    source = FolderSource(tmp_path, BuildOptions(site_url="https://s.dev/"))
    manifest = source.build(Reporter()).manifest
    assert manifest.name == "split"
    # the sidebar is read (through the imports) as a label: the page keeps its own H1
    assert source.site is not None and source.site.nav_labels == {"guide.md": "The Guide"}
    assert [(p.url, p.title) for p in manifest.pages] == [("https://s.dev/guide", "Guide page")]
