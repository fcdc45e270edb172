"""The `pinax` command as a user runs it: a real process, real manifests."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import shared_path
from tests.support.serving import run_pinax


def pinax(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_pinax(*args, stdin=stdin, timeout=60)


def manifest(name: str) -> str:
    return str(shared_path("corpora", "manifests", f"{name}.json"))


def test_search_prints_a_table() -> None:
    done = pinax(
        "search", "--docs", manifest("react"), "use a ref to manipulate the dom", "-n", "3"
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 6
    assert lines[0].endswith("Manipulating the DOM with Refs")
    assert lines[1].strip() == "https://react.dev/learn/manipulating-the-dom-with-refs"
    assert lines[3].strip() == "https://react.dev/reference/react/useRef"


def test_search_json() -> None:
    done = pinax(
        "search", "--docs", manifest("react"), "--docs", manifest("django"), "--json", "forms"
    )
    answer = json.loads(done.stdout)
    assert answer["query"] == "forms" and len(answer["results"]) == 10
    assert {r["docs"] for r in answer["results"]} <= {"react", "django"}


def test_search_explains_and_cuts_at_a_threshold(tmp_path: Path) -> None:
    args = ["search", "--docs", manifest("react"), "--cache-dir", str(tmp_path), "usestate hook"]
    done = pinax(*args, "--explain", "-n", "2")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 6  # score and title, URL, explanation: per hit
    assert lines[1].strip() == "https://react.dev/reference/react/useState"
    assert "usest" in lines[2] and "(title" in lines[2]  # the stem, with the fields it hit
    assert list(tmp_path.glob("indexes/*.pxi")), "the on-disk index goes to --cache-dir"

    everything = json.loads(pinax(*args, "--json").stdout)["results"]
    cut = json.loads(pinax(*args, "--json", "--threshold", "0.5").stdout)["results"]
    assert cut == [r for r in everything if r["score"] >= 0.5]
    assert 0 < len(cut) < len(everything)


def test_batch_queries_from_stdin_in_order() -> None:
    """Every input line gets its answer line, blank ones included, so answer n is query n's."""
    queries = ["useEffect", "", "  state management ", "x" * 600, "   ", "lazy loading"]
    done = pinax(
        "search", "--docs", manifest("react"), "--in", "react", stdin="\n".join(queries) + "\n"
    )
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    # A bad query is echoed by its first 80 characters only (issue 38).
    assert [r["query"] for r in rows] == [q.strip()[:80] + "..." * (len(q) > 80) for q in queries]
    assert rows[0]["results"][0]["url"] == "https://react.dev/reference/react/useEffect"
    assert [r.get("error", {}).get("code") for r in rows] == [
        None,
        "invalid_args",
        None,
        "invalid_args",
        "invalid_args",
        None,
    ]
    assert rows[1]["error"]["message"] == "query must not be empty"


def test_bad_manifest_stops_with_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {"pinax_manifest": 1, "name": "x", "url": "https://x.org", "pages": [{"title": "A"}]}
        )
    )
    for command in (["search", "--docs", str(bad), "q"], ["serve", "--docs", str(bad)]):
        done = pinax(*command)
        assert done.returncode == 2
        assert done.stderr == f"pinax: error: {bad}: pages[0].url: missing\n"
        assert done.stdout == ""


def test_duplicate_names_stop_start_up(tmp_path: Path) -> None:
    copy = tmp_path / "react-copy.json"
    copy.write_text(Path(manifest("react")).read_text())
    done = pinax("serve", "--docs", manifest("react"), "--docs", str(copy))
    assert done.returncode == 2
    assert manifest("react") in done.stderr and str(copy) in done.stderr
    assert "Traceback" not in done.stderr


def test_unknown_docs_name_is_a_clear_error() -> None:
    done = pinax("search", "--docs", manifest("react"), "--in", "raect", "hooks")
    assert done.returncode == 1
    assert "did you mean 'react'?" in done.stderr


def test_search_says_what_it_matched_beside_what_was_typed() -> None:
    done = pinax("search", "--docs", manifest("django"), "serializr", "-n", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "also matched: serializr -> serializer"
    assert "searched for" not in done.stdout
    answer = json.loads(pinax("search", "--docs", manifest("django"), "--json", "serializr").stdout)
    assert answer["also_matched"] == {"serializr": ["serializer"]}
    assert "did_you_mean" not in answer


def test_build_adds_symbols_to_a_manifest_and_check_counts_them(tmp_path: Path) -> None:
    inventory = str(shared_path("corpora", "published", "textual", "objects.inv"))
    target = tmp_path / "textual.json"
    target.write_text(Path(manifest("textual")).read_text())
    check = pinax("build", str(target), "--symbols", inventory, "--check", "-o", str(target))
    assert check.returncode == 1
    assert "(2253 symbols added or removed)" in check.stdout + check.stderr
    done = pinax("build", str(target), "--symbols", inventory, "-o", str(target))
    assert done.returncode == 0, done.stderr
    assert f"{inventory}: 2253 symbols on 115 pages" in done.stderr
    pages = json.loads(target.read_text())["pages"]
    app = next(p for p in pages if p["url"] == "https://textual.textualize.io/api/app/")
    wanted = {"name": "textual.app.App", "kind": "class", "anchor": "textual.app.App"}
    assert wanted in app["symbols"]
    both = pinax("build", str(target), "--symbols", inventory, "--no-symbols")
    assert both.returncode != 0 and "contradict" in both.stderr
