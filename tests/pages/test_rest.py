"""reST as Markdown (pinax.pages.rest): Sphinx's roles and directives rendered as the
published page shows them, headings with Sphinx's anchors, includes inside the repository
only, and hostile pages read cleanly."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from bench.quality.rest_pages import leftovers, unlabelled_fences
from pinax.pages.entries import CLOSE, END, START, take_entries
from pinax.pages.rest import area_of, convert
from pinax.pages.rst_titles import rst_to_markdown
from tests.support.work import HANG

FIXTURES = Path(__file__).parent / "fixtures" / "rst"


def md(text: str) -> str:
    return convert(text).markdown


def test_roles_render_as_sphinx_shows_them() -> None:
    text = (
        "See :class:`~flask.Flask`, :func:`json.dumps`, :meth:`!Flask.route`, "
        ":attr:`Title <a.b>`, :py:exc:`ValueError`, :setting:`DEBUG`, :ttag:`for`, "
        ":ref:`the tutorial <tutorial>`, :doc:`/intro/index`, :term:`WSGI`, "
        ":doc:`Getting Help</faq/help>`, "
        ":pep:`8`, :rfc:`2616#section-1`, :abbr:`LIFO (last-in, first-out)`, "
        ":guilabel:`&Cancel`, :menuselection:`Start --> Programs`, :file:`{dir}/x.py`, "
        ":kbd:`Ctrl+C`, :envvar:`HOME`, :rst:dir:`toctree`, :made-up:`thing`, `cite`.\n"
    )
    out = md(text)
    assert out.startswith("See `Flask`, `json.dumps()`, `Flask.route()`, `Title`,")
    assert "Getting Help," in out  # Sphinx's explicit title needs no blank before `<`
    for shown in ("`ValueError`", "`DEBUG`", "`for`", "the tutorial", "/intro/index", "WSGI"):
        assert shown in out
    for shown in ("PEP 8", "RFC 2616", "LIFO", "Cancel", "Start \u2023 Programs", "`dir/x.py`"):
        assert shown in out
    assert "`Ctrl+C`" in out and "`HOME`" in out and "`toctree`" in out and "`thing`" in out
    assert "*cite*" in out and "last-in" not in out
    assert leftovers(out) == []


def test_code_is_fenced_with_its_language() -> None:
    text = (
        "Title\n=====\n\nA literal block::\n\n    x = 1\n\n.. math::\n\n   e^{i\\pi} + 1 = 0\n\n"
        ".. code-block:: javascript\n   :linenos:\n   :caption: app.js\n\n   let a = 1;\n\n"
        ".. highlight:: console\n\nThen::\n\n    $ pip install x\n\n"
        ">>> print(1)\n1\n\n.. sourcecode:: text\n\n   plain\n"
    )
    out = md(text)
    assert "A literal block:\n\n```python\nx = 1\n```" in out
    assert "```math\ne^{i\\pi} + 1 = 0\n```" in out
    assert "**app.js**\n\n```javascript\nlet a = 1;\n```" in out and ":linenos:" not in out
    assert "Then:\n\n```console\n$ pip install x\n```" in out
    assert "```pycon\n>>> print(1)\n1\n```" in out and "```text\nplain\n```" in out
    assert unlabelled_fences(out) == 0


def test_directives_show_what_sphinx_prints() -> None:
    text = (
        "Page\n====\n\n.. currentmodule:: flask\n\n.. index:: single: x\n\n"
        ".. note:: Short note.\n\n.. warning::\n\n   Careful *here*.\n\n"
        ".. admonition:: About :class:`Flask`\n\n   Body.\n\n"
        ".. versionadded:: 2.0\n\n.. versionchanged:: 2.1 Now faster.\n\n"
        ".. deprecated:: 3.0\n   Use :func:`other`.\n\n"
        ".. toctree::\n   :maxdepth: 2\n\n   Install <install>\n   quickstart\n\n"
        ".. toctree::\n   :hidden:\n\n   secret\n\n"
        ".. autoclass:: flask.Flask\n   :members:\n\n"
        ".. only:: latex\n\n   Print only.\n\n.. only:: html\n\n   Web only.\n\n"
        ".. tabs::\n\n   .. group-tab:: Bash\n\n      .. code-block:: bash\n\n         ls\n\n"
        ".. raw:: html\n\n   <script>alert(1)</script>\n\n"
        ".. some-unknown-directive:: its argument\n   :opt: x\n\n   Its content.\n"
    )
    out = md(text)
    assert "> **Note**\n>\n> Short note." in out and "> **Warning**\n>\n> Careful *here*." in out
    assert "> **About `Flask`**\n>\n> Body." in out
    assert "*Added in version 2.0.*" in out and "*Changed in version 2.1:* Now faster." in out
    assert "*Deprecated since version 3.0:* Use `other()`." in out
    assert "- Install\n- quickstart" in out and "secret" not in out
    assert "Print only" not in out and "Web only." in out
    assert "**Bash**\n\n```bash\nls\n```" in out
    assert "alert" not in out and "autoclass" not in out and "maxdepth" not in out
    assert "its argument\n\nIts content." in out and ":opt:" not in out
    assert leftovers(out) == []


def test_headings_carry_the_anchors_sphinx_gives_them() -> None:
    text = (
        ".. _advanced:\n\nAdvanced Usage\n==============\n\n"
        ".. _session-objects:\n\nSession Objects\n---------------\n\nText.\n\n"
        ":mod:`!json` --- JSON encoder\n-----------------------------\n\n"
        ".. module:: json\n\nText.\n"
    )
    converted = convert(text)
    assert converted.title == "Advanced Usage"
    assert [(level, title, anchor) for level, title, anchor in converted.headings] == [
        (1, "Advanced Usage", "advanced-usage"),
        (2, "Session Objects", "session-objects"),
        (2, "json \u2014 JSON encoder", "module-json"),  # the module names its section
    ]
    assert converted.markdown.startswith("# Advanced Usage\n\n## Session Objects\n\nText.")
    assert "## `json` \u2014 JSON encoder" in converted.markdown


def test_the_fixture_pages_match_the_published_anchors() -> None:
    """Every heading of the shared Sphinx fixtures (reST sources) carries the id the
    published page gives it (bench/quality/rest_pages.py measures the same)."""
    from bench.quality.rest_pages import anchors_agree, rest_fixtures

    checked = 0
    for fixture in rest_fixtures():
        if fixture.generator != "sphinx":
            continue  # the hard cases' sources are not their pages' own
        source = fixture.path.joinpath(fixture.meta["source_file"]).read_text()
        same, compared = anchors_agree(source, fixture.html_bytes(), fixture.url)
        assert same == compared, fixture.key
        checked += compared
    if not checked:
        pytest.skip("no shared fixtures")
    assert checked >= 200


def test_include_is_followed_inside_the_repository(tmp_path: Path) -> None:
    """flask's docs/changes.rst is `.. include:: ../CHANGES.rst` (outside docs/, inside the
    repository): it reads as the changelog; its license page literalincludes ../LICENSE.txt."""
    docs = FIXTURES / "flask" / "docs"
    assert area_of(docs) == (FIXTURES / "flask").resolve()
    changes = convert((docs / "changes.rst").read_text(), docs / "changes.rst", docs)
    assert changes.markdown.startswith("# Changes\n\n## Version 3.2.0\n\nUnreleased\n")
    assert "Drop support for Python 3.9. #5730" in changes.markdown  # extlinks' caption
    assert [h[1] for h in changes.headings[:2]] == ["Changes", "Version 3.2.0"]
    license_page = convert((docs / "license.rst").read_text(), docs / "license.rst", docs)
    assert "```text\nCopyright 2010 Pallets" in license_page.markdown
    # Without a folder, nothing is included.
    assert convert((docs / "changes.rst").read_text()).markdown.strip() == "# Changes"


def test_requests_includes_its_history_file() -> None:
    docs = FIXTURES / "requests" / "docs"
    page = docs / "community" / "updates.rst"
    out = convert(page.read_text(), page, docs).markdown
    assert "Release History" in out and "dev" in out.lower()
    assert leftovers(out) == []


@pytest.mark.parametrize(
    "include",
    [
        "/etc/passwd",
        "../../../../../../../../etc/passwd",
        "../../outside.rst",
        "/../../outside.rst",
        "link.rst",  # a symlink leading out of the repository
        "/dev/zero",
        "docs",  # a folder
        "<../../../etc/passwd>",  # out of docutils' standard include folder
    ],
)
def test_include_outside_the_repository_is_refused(tmp_path: Path, include: str) -> None:
    repository = tmp_path / "repo"
    docs = repository / "docs"
    docs.mkdir(parents=True)
    (repository / "pyproject.toml").write_text("[project]\nname='x'\n")
    (tmp_path / "outside.rst").write_text("SECRET outside\n")
    os.symlink(tmp_path / "outside.rst", docs / "link.rst")
    page = docs / "page.rst"
    page.write_text(f"Page\n====\n\n.. include:: {include}\n\n.. literalinclude:: {include}\n")
    out = convert(page.read_text(), page, docs).markdown
    assert out.strip() == "# Page"
    assert "SECRET" not in out and "root:" not in out


def test_include_loops_and_raw_stay_bounded(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.rst").write_text("A text.\n\n.. include:: b.rst\n")
    (docs / "b.rst").write_text("B text.\n\n.. include:: a.rst\n\n.. include:: b.rst\n")
    page = docs / "page.rst"
    page.write_text("Loop\n====\n\n.. include:: a.rst\n\n.. raw:: html\n   :file: a.rst\n")
    converted = convert(page.read_text(), page, docs)
    assert converted.exact and converted.markdown.count("A text.") <= 64
    assert "B text." in converted.markdown and ":file:" not in converted.markdown


def test_a_changed_include_is_read_again(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "part.rst").write_text("First version.\n")
    page = docs / "page.rst"
    page.write_text("Page\n====\n\n.. include:: part.rst\n")
    assert "First version." in convert(page.read_text(), page, docs).markdown
    (docs / "part.rst").write_text("Second version, longer.\n")
    assert "Second version" in convert(page.read_text(), page, docs).markdown


@pytest.mark.parametrize(
    "text",
    [
        "".join(" " * i + "- x\n\n" for i in range(0, 400, 2)),  # nesting by indentation
        "- " * 5000 + "x\n",  # nesting by list markers on one line
        "\n".join(f"{' ' * i}quote" for i in range(300)),  # block quotes, ever deeper
        "+" + "-----+" * 60 + "\n" + ("|" + "  x  |" * 60 + "\n+" + "-----+" * 60 + "\n") * 20,
        "=" * 2000 + "  " + "=" * 2000 + "\n" + ("a  b\n" * 2000) + "=" * 2000 + "  " + "=" * 2000,
        ":role:`" * 20000,
        "`" * 100_000,
        "*" * 100_000 + "\n",
        ".. |x| replace:: |x|\n\n|x|\n",  # a substitution that names itself
        ".. role:: custom(raw)\n   :format: html\n\n:custom:`<b>x</b>`\n",
        "x" * 50_000 + "\n",  # longer than docutils' line limit
        ".. code-block::\n" + "   x\n" * 100_000,
        "Title\n=====\n" * 20_000,
        "\x00\ue000\ue001\ue002" * 1000,
        ".. csv-table:: T\n   :url: http://127.0.0.1:9/x.csv\n\n"
        ".. csv-table::\n   :file: /etc/passwd\n",
    ],
    ids=[
        "indent",
        "markers",
        "quotes",
        "grid-table",
        "simple-table",
        "roles",
        "backticks",
        "stars",
        "self-substitution",
        "custom-role",
        "long-line",
        "long-code",
        "many-titles",
        "markers-chars",
        "csv-table-files",
    ],
)
def test_hostile_pages_give_a_clean_result(text: str) -> None:
    converted = convert(text)
    assert isinstance(converted.markdown, str)
    assert not any(c in converted.markdown for c in "\ue000\ue001\ue002")
    assert "<b>" not in re.sub(r"`[^`]*`", "", converted.markdown)  # as code, never raw
    assert "root:" not in converted.markdown  # no file (nor URL) is read by a directive


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_a_deadline_swallowed_where_it_landed_is_raised_again() -> None:
    """The exception can land where it is printed and dropped (a weakref callback, a
    `__del__`): the deadline raises it again until the parse has stopped."""
    from pinax.pages.rest.deadline import Deadline, Overtime

    swallowed = []
    with pytest.raises(Overtime), Deadline(0.05):
        try:
            _spin(HANG)
        except Overtime:
            swallowed.append("as a weakref callback would")
        _spin(HANG)  # ran to its end (a hang) without the second raise
    assert swallowed == ["as a weakref callback would"]


def test_a_page_past_the_time_limit_is_read_by_the_fallback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A grid table of 300 columns reads at ~15 KB/s: past the deadline the parse stops
    and the linear reading answers (and is not kept: a quieter moment may parse it)."""
    from pinax.pages.rest import deadline

    table = (
        "+" + "-----+" * 300 + "\n" + ("|" + "  x  |" * 300 + "\n+" + "-----+" * 300 + "\n") * 60
    )
    monkeypatch.setattr(deadline, "SECONDS", 0.3)
    converted = convert("Tables\n======\n\n" + table)
    assert not converted.exact and converted.markdown.startswith("# Tables")
    monkeypatch.setattr(deadline, "SECONDS", 30.0)
    assert convert("Tables\n======\n\nText.\n").exact  # and nothing lands afterwards


def test_a_custom_role_does_not_reach_other_pages() -> None:
    convert(".. role:: raw-html(raw)\n   :format: html\n\nx\n")
    out = md(":raw-html:`<i>y</i>` and :class:`Z`\n")
    assert "<i>" not in re.sub(r"`[^`]*`", "", out) and "`Z`" in out
    from docutils.parsers.rst import roles

    assert "raw-html" not in roles._roles  # docutils' registry for the whole process


def test_outer_entry_closing_last_keeps_a_span() -> None:
    """take_entries: an entry closing at the very end after an inner one (a class whose
    last method ends the page) kept its span past the text and failed (IndexError)."""
    text = (
        f"{START}0{END}`class A`\n\n{START}1{END}`m()`\n\nText.\n\n{CLOSE}1{END}\n\n{CLOSE}0{END}\n"
    )
    clean, spans = take_entries(text, ["A", "A.m"])
    assert clean == "`class A`\n\n`m()`\n\nText.\n"
    assert spans == [("A", 0, len(clean) - 1), ("A.m", 11, len(clean) - 1)]


def test_the_fallback_is_the_titles_reading_with_roles_as_text_and_code_fenced() -> None:
    text = (
        "Title\n=====\n\nSee :class:`Flask`. Example::\n\n    x = 1\n\n    y = 2\n\nAfter.\n\n"
        ".. code-block:: console\n   :caption: c\n\n   $ ls\n\nEnd.\n\n" + " " * 200 + "deep\n"
    )
    converted = convert(text)
    assert not converted.exact
    assert converted.markdown.startswith("# Title\n\nSee `Flask`. Example:\n\n```python\nx = 1")
    assert "y = 2\n```\n\nAfter." in converted.markdown
    assert "```console\n$ ls\n```" in converted.markdown and ":caption:" not in converted.markdown
    assert rst_to_markdown("Title\n=====\n").startswith("# Title")


def test_fixture_folders_read_without_reST_syntax() -> None:
    """Every reST page of the kept excerpts (flask, requests) converts exactly, with no
    role or directive syntax left and every code block labelled."""
    pages = 0
    for project in ("flask", "requests"):
        docs = FIXTURES / project / "docs"
        for page in sorted(docs.rglob("*.rst")):
            converted = convert(page.read_text(), page, docs)
            assert converted.exact, page
            assert leftovers(converted.markdown) == [], page
            assert unlabelled_fences(converted.markdown) == 0, page
            pages += 1
    assert pages >= 9
