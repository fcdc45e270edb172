"""HTML -> Markdown extraction: one behaviour per test, on small pages and real fixtures."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinax.cli import app
from pinax.pages.extract import Extracted, decode_html, extract
from tests.conftest import shared_path

URL = "https://docs.example.org/guide/page.html"


def page(body: str, head: str = "", url: str = URL) -> Extracted:
    html = f"<!doctype html><html><head>{head}</head><body><main>{body}</main></body></html>"
    return extract(html, url)


def md(body: str, head: str = "") -> str:
    return page(body, head).markdown


def fixture(key: str) -> tuple[str, dict]:
    folder = shared_path("fixtures", "sites", key)
    meta = json.loads((folder / "meta.json").read_text())
    data = (folder / meta["page_file"]).read_bytes()
    if meta["page_file"].endswith(".gz"):
        data = gzip.decompress(data)
    return decode_html(data, None), meta


# ---------------------------------------------------------------- code blocks


@pytest.mark.parametrize(
    ("html", "language"),
    [
        ('<div class="language-yaml highlight"><pre><code>a: 1</code></pre></div>', "yaml"),
        ('<pre><code class="language-rust">fn main() {}</code></pre>', "rust"),
        (
            '<div class="highlight-python notranslate"><div class="highlight"><pre>x = 1'
            "</pre></div></div>",
            "python",
        ),
        (
            '<div class="highlight-default"><div class="highlight"><pre>x</pre></div></div>',
            "python",
        ),
        ('<pre class="chroma"><code class="language-Go" data-lang="Go">go</code></pre>', "go"),
        ('<pre class="brush: js notranslate">let a</pre>', "js"),
        ("<pre><code>plain</code></pre>", ""),
    ],
)
def test_code_block_keeps_its_language(html: str, language: str) -> None:
    assert f"```{language}\n" in md(html)


def test_code_block_with_fences_inside_gets_a_longer_fence() -> None:
    out = md('<pre><code class="language-markdown">```py\nprint(1)\n```</code></pre>')
    assert out.startswith("````markdown\n```py\nprint(1)\n```\n````")


def test_code_chrome_and_line_numbers_stay_out() -> None:
    html = (
        '<div class="language-sh"><button class="copy">Copy code</button><span class="lang">sh'
        '</span><pre><code><span class="line">npm i</span>\n<span class="line">npm t</span>'
        "</code></pre></div>"
        '<div class="language-py highlight"><table class="highlighttable"><tr><td class="linenos">'
        '<div class="linenodiv"><pre>1\n2</pre></div></td><td class="code"><div><pre><code>a = 1'
        "\nb = 2</code></pre></div></td></tr></table></div>"
        "<pre><div><span>1</span><div>first()</div></div><div><span>2</span><div>second()</div>"
        "</div></pre>"
    )
    out = md(html)
    assert "```sh\nnpm i\nnpm t\n```" in out
    assert "```py\na = 1\nb = 2\n```" in out
    assert "```\nfirst()\nsecond()\n```" in out
    assert "Copy" not in out


def test_terminal_animation_shows_its_markup_as_text() -> None:
    # FastAPI-style docs: termynal types the block out as HTML, coloured output and all.
    code = '$ &lt;font color="#4E9A06"&gt;fastapi&lt;/font&gt; dev &lt;u&gt;main.py&lt;/u&gt;'
    animated = (
        f'<div class="termy"><div class="highlight"><pre><code>{code}</code></pre></div></div>'
    )
    assert md(animated) == "```\n$ fastapi dev main.py\n```\n"
    assert '<font color="#4E9A06">' in md(f"<pre><code>{code}</code></pre>")


def test_code_block_in_a_toolbar_wrapper_is_not_page_chrome() -> None:
    # Prism's toolbar plugin wraps each block in div.code-toolbar ("toolbar" names chrome).
    html = (
        "<html><body><article><h1>T</h1>"
        + "<p>Real text about the topic here.</p>" * 5
        + '<div class="code-toolbar"><pre class="language-js"><code>let answer = 42;</code></pre>'
        '<div class="toolbar"><button>Copy</button></div></div></article></body></html>'
    )
    assert "```js\nlet answer = 42;\n```" in extract(html, URL).markdown


def test_docusaurus_token_lines_become_lines() -> None:
    html = (
        '<pre class="prism-code language-js"><code><div class="token-line">a()<br></div>'
        '<div class="token-line">b()<br></div></code></pre>'
    )
    assert "```js\na()\nb()\n```" in md(html)


# ---------------------------------------------------------------- text structure


def test_headings_keep_levels_and_lose_permalinks() -> None:
    html = (
        '<h1>Title<a class="headerlink" href="#title">¶</a></h1>'
        '<h2 id="x"><a class="header" href="#x">Inside a self-link</a></h2>'
        '<h3>Docusaurus<a class="hash-link" href="#d">\u200b</a></h3><h4>Four</h4>'
    )
    assert md(html) == "# Title\n\n## Inside a self-link\n\n### Docusaurus\n\n#### Four\n"


def test_nested_lists_keep_their_nesting() -> None:
    html = "<ul><li>a<ul><li>b<ol start='3'><li>c</li><li>d</li></ol></li></ul></li><li>e</li></ul>"
    assert md(html) == "- a\n  - b\n    3. c\n    4. d\n- e\n"


def test_tables_become_gfm_tables() -> None:
    html = (
        "<table><thead><tr><th>Name</th><th>Pipe</th></tr></thead><tbody>"
        "<tr><td><code>x</code></td><td>a | b</td></tr><tr><td colspan='2'>wide</td></tr>"
        "</tbody></table>"
    )
    assert md(html) == "| Name | Pipe |\n|---|---|\n| `x` | a \\| b |\n| wide |  |\n"


def test_layout_table_becomes_blocks() -> None:
    html = (
        "<table><tr><td><h2>Left</h2><p>one</p></td>"
        "<td><table><tr><td>in</td></tr></table></td></tr></table>"
    )
    out = md(html)
    assert "## Left" in out and "one" in out and "|" not in out


def test_admonitions_are_blockquotes_with_their_title() -> None:
    html = (
        '<div class="admonition note"><p class="admonition-title">Note</p><p>Body text.</p></div>'
        '<div class="theme-admonition theme-admonition-tip alert"><div class="admonitionHeading_x">'
        'tip</div><div class="admonitionContent_y"><p>Tip text.</p></div></div>'
    )
    html += (
        '<details class="warning"><summary>Careful</summary><p>Collapsed.</p></details>'
        "<details><summary>More</summary><p>Plain disclosure.</p></details>"
    )
    out = md(html)
    assert "> **Note**\n>\n> Body text." in out
    assert "> **tip**\n>\n> Tip text." in out
    assert "> **Careful**\n>\n> Collapsed." in out
    assert "**More**\n\nPlain disclosure." in out


def test_inline_formatting_links_and_images() -> None:
    html = (
        "<p>Use <code>x_y</code>, <em>this</em> and <strong>that</strong>: "
        '<a href="../other.html#frag">other</a>, <a href="javascript:void(0)">js</a>.</p>'
        '<p><img src="/img/a b.png" alt="Diagram">'
        '<img src="data:image/png;base64,AAAA" alt="inline"></p>'
    )
    out = md(html)
    assert "`x_y`, *this* and **that**" in out
    assert "[other](https://docs.example.org/other.html#frag)" in out
    assert "js." in out and "javascript:" not in out
    assert "![](https://docs.example.org/img/a%20b.png)" in out
    assert "Diagram" not in out and "inline" in out
    assert "base64" not in out


def test_alt_text_is_not_page_text_unless_it_is_all_there_is() -> None:
    html = (
        '<figure><img src="/tree.svg" alt="A diagram of three boxes">'
        "<figcaption>Figure 1. A commit and its tree</figcaption></figure>"
        '<p><a href="https://video.example.org/v1"><img src="/thumb.png" alt="Intro talk"></a></p>'
        "<table><tr><th>Feature</th><th>Chrome</th></tr>"
        '<tr><td>Grid</td><td><img src="/yes.svg" alt="Yes"></td></tr></table>'
    )
    out = md(html)
    assert "![](https://docs.example.org/tree.svg)" in out
    assert "diagram" not in out and "Figure 1. A commit and its tree" in out
    assert (
        "[![Intro talk](https://docs.example.org/thumb.png)](https://video.example.org/v1)" in out
    )
    assert "| Grid | Yes |" in out


def test_base_href_resolves_links() -> None:
    out = md('<a href="x.html">x</a>', head='<base href="https://cdn.example.org/v2/">')
    assert "[x](https://cdn.example.org/v2/x.html)" in out


def test_sphinx_api_signature_is_code() -> None:
    html = (
        '<dl class="py function"><dt class="sig sig-object py" id="json.dump">'
        '<span class="sig-prename">json.</span><span class="sig-name">dump</span>(obj, fp)'
        '<a class="headerlink" href="#json.dump">¶</a></dt><dd><p>Serialize.</p></dd></dl>'
    )
    assert md(html) == "`json.dump(obj, fp)`\n\nSerialize.\n"


# ---------------------------------------------------------------- invisible text


def test_hidden_content_never_reaches_the_agent() -> None:
    html = (
        "<p>Visible.</p><p hidden>hidden attr</p><p aria-hidden='true'>aria</p>"
        "<p style='display: none'>styled</p><template><p>template</p></template>"
        "<!-- a comment --><p>Zero\u200bwidth\u202ebidi\u2066text</p>"
        "<span class='sr-only'>screen reader</span><script>var secret = 1</script>"
    )
    out = md(html)
    assert out == "Visible.\n\nZerowidthbiditext\n"


def test_hidden_tab_panels_are_kept_and_labelled() -> None:
    html = (
        '<div class="tabs-container"><ul role="tablist"><li role="tab">npm</li>'
        '<li role="tab">yarn</li></ul><div><div role="tabpanel"><pre><code class="language-sh">'
        'npm i</code></pre></div><div role="tabpanel" hidden><pre><code class="language-sh">'
        "yarn add</code></pre></div></div></div>"
    )
    assert md(html) == "**npm**\n\n```sh\nnpm i\n```\n\n**yarn**\n\n```sh\nyarn add\n```\n"


def test_generator_tab_sets_are_labelled() -> None:
    mkdocs = (
        '<div class="tabbed-set tabbed-alternate"><input id="t1" type="radio" checked>'
        '<input id="t2" type="radio"><div class="tabbed-labels"><label for="t1">pip</label>'
        '<label for="t2">docker</label></div><div class="tabbed-content">'
        '<div class="tabbed-block"><p>Use pip.</p></div>'
        '<div class="tabbed-block"><p>Use docker.</p></div></div></div>'
    )
    vitepress = (
        '<div class="vp-code-group"><div class="tabs"><input type="radio" checked>'
        '<label data-title="npm">npm</label><input type="radio"><label data-title="yarn">yarn'
        '</label></div><div class="blocks"><div class="language-sh active"><pre><code>npm i'
        '</code></pre></div><div class="language-sh"><pre><code>yarn add</code></pre></div>'
        "</div></div>"
    )
    assert md(mkdocs) == "**pip**\n\nUse pip.\n\n**docker**\n\nUse docker.\n"
    assert md(vitepress) == "**npm**\n\n```sh\nnpm i\n```\n\n**yarn**\n\n```sh\nyarn add\n```\n"


def test_react_streamed_segments_are_shown_where_they_belong() -> None:
    html = (
        '<main><p>Before.</p><template id="B:1"></template><p>After.</p></main>'
        '<div hidden id="S:1"><p>Streamed in.</p></div><script>$RC("B:1","S:1")</script>'
    )
    assert extract(html, URL).markdown == "Before.\n\nStreamed in.\n\nAfter.\n"


def test_docusaurus_hidden_tabs_on_a_real_page() -> None:
    html, meta = fixture("docusaurus/browser")
    assert '<div role="tabpanel" class="tabItem_Ymn6" hidden="">' in html
    out = extract(html, meta["url"]).markdown
    # The selected panel and the hidden one, each under its tab's label.
    module = out.index("**Module worker**\n\n```js\nimport * as prettier")
    classic = out.index("**Classic worker**\n\n```js\nimportScripts(")
    assert module < classic


def test_cookie_consent_dialog_is_dropped() -> None:
    html, meta = fixture("hard-cases/cookie-banner-mkdocs-material")
    out = extract(html, meta["url"]).markdown.lower()
    assert "unordered lists" in out
    for marker in meta["boilerplate_markers"]:
        assert marker.lower() not in out


# ---------------------------------------------------------------- decoding


def test_windows_1252_page_decodes_like_its_utf8_twin() -> None:
    folder = shared_path("fixtures", "sites", "hard-cases", "non-utf8-windows-1252-sphinx")
    raw = (folder / "page.html").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")
    text = decode_html(raw, None)
    assert "\ufffd" not in text and "â€" not in text
    twin, meta = fixture("sphinx/requests-advanced")
    assert extract(text, meta["url"]).markdown == extract(twin, meta["url"]).markdown


@pytest.mark.parametrize(
    ("body", "charset", "expected"),
    [
        ("café ‘x’".encode("cp1252"), None, "café ‘x’"),  # sniffed: not UTF-8
        ("café".encode(), "iso-8859-1", "café"),  # a wrong single-byte label loses to UTF-8
        ("<meta charset='koi8-r'>мир".encode("koi8-r"), None, "<meta charset='koi8-r'>мир"),
        ("мир".encode("koi8-r"), "koi8-r", "мир"),  # the header wins
        (b"\xef\xbb\xbfbom", "latin-1", "bom"),  # the BOM wins over everything
        (b"plain", "no-such-charset", "plain"),
    ],
)
def test_decode_html(body: bytes, charset: str | None, expected: str) -> None:
    assert decode_html(body, charset) == expected


def test_mojibake_in_the_page_itself_is_repaired() -> None:
    assert "we’re" in md("<p>we\u00e2\u0080\u0099re here</p>")


# ---------------------------------------------------------------- page signals


def test_meta_refresh_stub_reports_its_target() -> None:
    for key in ("hard-cases/redirect-stub-mkdocs-redirects", "hard-cases/redirect-stub-mdbook"):
        html, meta = fixture(key)
        found = extract(html, meta["url"])
        assert found.refresh_url == meta["redirect_to_absolute"]
        assert not found.js_shell


def test_slow_refresh_is_not_a_redirect() -> None:
    head = '<meta http-equiv="refresh" content="60; url=/elsewhere">'
    assert page("<p>" + "words " * 50 + "</p>", head).refresh_url is None


def test_markdown_alternate_is_reported() -> None:
    html, meta = fixture("hugo-docsy/language")
    found = extract(html, meta["url"])
    assert found.markdown_alternate is not None
    assert found.markdown_alternate.startswith("https://") and found.markdown_alternate.endswith(
        ".md"
    )


def test_javascript_shell_is_flagged_not_returned_as_content() -> None:
    html, meta = fixture("hard-cases/js-shell-docsify")
    found = extract(html, meta["url"])
    assert found.js_shell and found.word_count < 25
    assert "window.$docsify" not in found.markdown and "loadSidebar" not in found.markdown


def test_a_real_page_is_not_a_js_shell() -> None:
    html, meta = fixture("mdbook/cli-build")
    found = extract(html, meta["url"])
    assert not found.js_shell and found.refresh_url is None
    assert found.title == "The build command" and found.word_count > 100


def test_next_js_anti_flicker_veil_is_not_hidden_content() -> None:
    html = (
        '<html><body><div style="visibility:hidden"><main><h1>Guide</h1>'
        + "<p>Real words here.</p>" * 20
        + "</main></div><script>reveal()</script></body></html>"
    )
    found = extract(html, URL)
    assert found.title == "Guide" and not found.js_shell


# ---------------------------------------------------------------- main content


def test_main_content_without_page_chrome() -> None:
    html = (
        "<html><body><header><a href='/'>Site</a><nav><a href='/a'>A</a><a href='/b'>B</a></nav>"
        "</header><div class='layout'><aside class='sidebar'><a href='/x'>X</a><a href='/y'>Y</a>"
        "</aside><div class='content'><h1>Page title</h1>"
        + "<p>Some real paragraph text about the topic.</p>"
        * 5
        + "<div class='feedback'>Was this page helpful?</div><p>Last updated on March 3, 2025</p>"
        "<p><a href='/p'>Previous Setup</a> <a href='/n'>Next Usage</a></p>"
        "</div></div><footer>© 2025 Example</footer></body></html>"
    )
    out = extract(html, URL).markdown
    assert out.startswith("# Page title\n\nSome real paragraph")
    for chrome in ("Site", "X", "helpful", "Last updated", "©", "Previous", "Next"):
        assert chrome not in out


def test_adjacent_label_spans_stay_separate_words() -> None:
    html = "<h4><span>customer</span><span>nullable string</span></h4><p><b>W</b>ord</p>"
    assert md(html) == "#### customer nullable string\n\n**W**ord\n"


def test_adjacent_links_stay_separate_words() -> None:
    html = (
        "<p>Endpoints</p><div>"
        '<a href="/api/create"><span>POST</span><span>/v1/charges</span></a>'
        '<a href="/api/get"><span>GET</span><span>/v1/charges/:id</span></a></div>'
    )
    assert md(html) == (
        "Endpoints\n\n[POST/v1/charges](https://docs.example.org/api/create) "
        "[GET/v1/charges/:id](https://docs.example.org/api/get)\n"
    )


def test_table_of_contents_of_own_sections_is_dropped() -> None:
    html = (
        "<h1>Guide</h1><div class='toc'><p>Contents</p><ul><li><a href='#setup'>Setup</a></li>"
        "<li><a href='#usage'>Usage</a></li></ul></div>"
        "<h2 id='setup'>Setup</h2><p>Install it first.</p><h2 id='usage'>Usage</h2><p>Run it.</p>"
    )
    assert md(html) == "# Guide\n\n## Setup\n\nInstall it first.\n\n## Usage\n\nRun it.\n"


def test_table_of_contents_of_other_pages_among_the_text_is_kept() -> None:
    # DocBook (PostgreSQL and others): a chapter's page opens with the list of its sections,
    # each on its own page; that list is the page's text. A "toc" sidebar of the site is not.
    html = (
        "<html><body><div class='sidebar-wrap'><div class='toc'>"
        + "".join(f"<a href='/docs/p{i}.html'>Other page {i}</a>" for i in range(9))
        + "</div></div><div id='docContent'><div class='chapter'><div class='titlepage'>"
        "<h2>Chapter 11. Indexes</h2></div><div class='toc'><p><b>Table of Contents</b></p>"
        "<dl class='toc'><dt><a href='indexes-intro.html'>11.1. Introduction</a></dt>"
        "<dt><a href='indexes-types.html'>11.2. Index Types</a></dt></dl></div>"
        "<p>Indexes are a common way to enhance database performance.</p></div></div>"
        "</body></html>"
    )
    out = extract(html, URL).markdown
    assert "[11.1. Introduction](https://docs.example.org/guide/indexes-intro.html)" in out
    assert "Table of Contents" in out and "Indexes are a common way" in out
    assert "Other page" not in out


def test_page_feedback_prompts_are_dropped() -> None:
    html = "<h1>T</h1>" + "<p>Real text about the topic.</p>" * 3
    for prompt in ("Is this page useful?", "Did this page help you?", "Was this helpful?"):
        html_with_prompt = html + f"<div><span>{prompt}<button>Yes</button></span></div>"
        assert prompt not in md(html_with_prompt)


def test_no_text_is_added_to_the_page() -> None:
    html = "<h1>T</h1><p>Alpha beta.</p><ul><li>gamma</li></ul><pre><code>delta</code></pre>"
    words = re.findall(r"\w+", md(html))
    assert words == ["T", "Alpha", "beta", "gamma", "delta"]


# ---------------------------------------------------------------- CLI


def test_cli_extract_file_and_stdin(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text("<main><h1>Hi</h1><p><a href='b.html'>b</a></p></main>", encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(app, ["extract", str(path), "--url", "https://x.org/a/"])
    assert result.exit_code == 0
    assert result.stdout == "# Hi\n\n[b](https://x.org/a/b.html)\n"
    result = runner.invoke(app, ["extract", "-", "--json"], input=path.read_bytes())
    assert result.exit_code == 0
    assert json.loads(result.stdout)["title"] == "Hi"


def test_cli_extract_missing_file_fails_clearly(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["extract", str(tmp_path / "missing.html")])
    assert result.exit_code == 2
    assert "cannot read" in result.stderr


def test_pathological_pages_do_not_crash() -> None:
    assert extract("", URL).markdown == ""
    deep = "<div>" * 5000 + "deep text" + "</div>" * 5000
    assert extract(deep, URL).markdown == "deep text\n"
