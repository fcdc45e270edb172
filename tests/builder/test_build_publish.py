"""Deterministic output, `--check`, the guard against losing half a site, atomic writes."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from pinax import manifest as manifest_io
from pinax.builder.output import write_atomic
from pinax.builder.publish import CHANGED, REFUSED, publish
from pinax.builder.report import Reporter
from tests.support.build_support import published, run_build


@pytest.fixture(scope="module")
def textual():
    return run_build(published("textual", "sitemap.xml"))[0]


def test_output_is_deterministic_and_has_no_build_timestamp(textual) -> None:
    again, _ = run_build(published("textual", "sitemap.xml.gz"))
    text = manifest_io.dump(textual)
    assert text == manifest_io.dump(again)
    assert "2026-05-13" not in text  # <lastmod> is left out unless asked (it changes daily)
    assert text.count("\n") == len(textual.pages) + 8  # one page per line: diffs stay small


def test_first_write_then_unchanged_then_check(tmp_path, textual) -> None:
    path = tmp_path / "textual.json"
    reporter = Reporter()
    assert publish(textual, path, False, 0.2, reporter).written
    assert manifest_io.load(path) == textual
    stamp = path.stat().st_mtime_ns
    outcome = publish(textual, path, False, 0.2, reporter)
    assert not outcome.written and path.stat().st_mtime_ns == stamp
    assert publish(textual, path, True, 0.2, reporter).exit_code == 0


def test_check_reports_added_removed_and_retitled(tmp_path, textual) -> None:
    path = tmp_path / "textual.json"
    pages = list(textual.pages)
    old = replace(
        textual,
        pages=(
            replace(pages[0], title="Old title"),
            *pages[1:-3],
            replace(pages[-1], url=pages[-1].url + "old/"),
        ),
    )
    path.write_text(manifest_io.dump(old))
    reporter = Reporter()
    outcome = publish(textual, path, True, 0.2, reporter)
    assert outcome.exit_code == CHANGED and not outcome.written
    assert manifest_io.load(path) == old  # --check never writes
    report = reporter.notes[-1]
    assert report.startswith("299 -> 301 pages: 3 added, 1 removed, 1 retitled")
    assert f"  ~ {pages[0].url}: 'Old title' -> '{pages[0].title}'" in report
    assert f"  - {pages[-1].url}old/" in report
    assert f"  + {pages[-2].url}" in report


def test_check_of_a_missing_file_is_out_of_date(tmp_path, textual) -> None:
    outcome = publish(textual, tmp_path / "none.json", True, 0.2, Reporter())
    assert outcome.exit_code == CHANGED


def test_losing_more_than_the_allowed_share_is_refused_loudly(tmp_path, textual) -> None:
    path = tmp_path / "textual.json"
    path.write_text(manifest_io.dump(textual))
    before = path.read_bytes()
    # The Textual blog is 61 of 301 pages (20.3%): a refresh that loses it is over 20%.
    shrunk, _ = run_build(published("textual", "sitemap.xml"), exclude=("/blog/*",))
    reporter = Reporter()
    outcome = publish(shrunk, path, False, 0.2, reporter)
    assert outcome.exit_code == REFUSED and not outcome.written
    assert path.read_bytes() == before
    loud = reporter.warnings[0]
    assert "WARNING: 61 of 301 pages (20%) disappeared" in loud
    assert "not writing" in reporter.warnings[-1]
    assert publish(shrunk, path, False, 0.25, Reporter()).written


def test_write_is_all_or_nothing(tmp_path) -> None:
    path = tmp_path / "m.json"
    path.write_text("old\n")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(path, "x" * 100_000 + "\ud800")  # fails half-way through writing
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["m.json"]  # no temporary file left behind
