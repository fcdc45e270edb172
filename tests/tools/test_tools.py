"""The tools called in-process on the real manifests: shapes, sections, errors and hints."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pinax.errors import InvalidArgs, NotFound
from pinax.library import Library
from pinax.tools import Tools


@pytest.fixture(scope="module")
def tools() -> Tools:
    from tests.conftest import shared_path

    folder = shared_path("corpora", "manifests")
    return Tools(Library.load([folder / f"{n}.json" for n in ("react", "django", "mdn")]))


@pytest.fixture
def tiny(tmp_path: Path) -> Tools:
    pages = [
        "/api/payment_intents",
        "/api/payment_intents/confirm",
        "/api/payment_intents/object/fields",
        "/api/payment_intents_old",
        "/api/charges",
        "/guides/start",
        "/about",
    ]
    data = {
        "pinax_manifest": 1,
        "name": "stripe",
        "url": "https://docs.stripe.com",
        "pages": [
            {"url": f"https://docs.stripe.com{p}", "title": p.rsplit("/", 1)[-1]} for p in pages
        ],
    }
    path = tmp_path / "stripe.json"
    path.write_text(json.dumps(data))
    return Tools(Library.load([path]))


def test_list_docs(tools: Tools) -> None:
    docs = tools.list_docs()["docs"]
    assert [d["name"] for d in docs] == ["react", "django", "mdn"]
    assert {d["name"]: d["pages"] for d in docs} == {"react": 223, "django": 667, "mdn": 14592}
    assert docs[0]["url"] == "https://react.dev"


def test_list_sections_are_top_level_below_the_base(tools: Tools) -> None:
    django = tools.list_sections("django")
    assert django["docs"] == "django"
    # The root entry lists every page below the base (as get_section_pages of it does).
    root, first = django["sections"][:2]
    assert root == {"section": "/en/dev", "pages": 667}
    assert first == {"section": "/en/dev/releases", "pages": 389}
    counts = [s["pages"] for s in django["sections"]]
    assert counts == sorted(counts, reverse=True)
    mdn = {s["section"] for s in tools.list_sections("mdn")["sections"]}
    assert {"/en-US/docs/Web", "/en-US/docs/Glossary"} <= mdn
    fanned = tools.list_sections()["sections"]
    assert {s["docs"] for s in fanned} == {"react", "django", "mdn"}


def test_section_counts_match_section_pages(tools: Tools) -> None:
    for section in tools.list_sections("react")["sections"]:
        listed = tools.get_section_pages(section["section"], "react", limit=1000)
        assert listed["total"] == section["pages"], section


def test_search_finds_known_pages(tools: Tools) -> None:
    cases = {
        ("use a ref to manipulate the dom", "react"): "https://react.dev/reference/react/useRef",
        ("useState", "react"): "https://react.dev/reference/react/useState",
        ("Array.prototype.map", "mdn"): (
            "https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/Array/map"
        ),
        ("model field reference", "django"): (
            "https://docs.djangoproject.com/en/dev/ref/models/fields/"
        ),
    }
    for (query, docs), url in cases.items():
        urls = [r["url"] for r in tools.search_pages(query, 5, docs)["results"]]
        assert url in urls, (query, urls)


def test_search_result_shape_and_fan_out(tools: Tools) -> None:
    answer = tools.search_pages("fetch api", limit=5)
    assert answer["query"] == "fetch api"
    rows = answer["results"]
    assert len(rows) == 5
    assert set(rows[0]) == {"url", "title", "section", "score", "docs", "confidence"}
    scores = [r["score"] for r in rows]
    assert scores == sorted(scores, reverse=True)
    assert all(0 < s <= 1 for s in scores)
    single = tools.search_pages("fetch api", limit=5, docs="mdn")["results"]
    assert "docs" not in single[0]


def test_fan_out_interleaves_by_score(tools: Tools) -> None:
    rows = tools.search_pages("state", limit=30)["results"]
    assert {r["docs"] for r in rows} >= {"react", "mdn"}


def test_typos_and_partial_words_are_rescued(tiny: Tools, tools: Tools) -> None:
    rows = tiny.search_pages("paymnt intnet")["results"]
    assert rows and all("payment_intents" in r["url"] for r in rows[:3])
    answer = tools.search_pages("intersectoin observer", docs="mdn")
    assert answer["results"][0]["url"].endswith("/Intersection_Observer_API")
    assert answer["also_matched"] == {"intersectoin": ["intersection"]}
    partial = tools.search_pages("useEffe", docs="react")["results"]
    assert partial[0]["url"].endswith("/useEffect")


def test_section_prefix_semantics(tiny: Tools) -> None:
    answer = tiny.get_section_pages("/api/payment_intents", "stripe")
    urls = [p["url"].removeprefix("https://docs.stripe.com") for p in answer["pages"]]
    assert urls == [
        "/api/payment_intents",
        "/api/payment_intents/confirm",
        "/api/payment_intents/object/fields",
    ]
    assert answer["total"] == 3 and "truncated" not in answer
    deep = tiny.get_section_pages("/api/payment_intents/object", "stripe")
    assert [p["title"] for p in deep["pages"]] == ["fields"]
    assert tiny.get_section_pages("/api/", "stripe")["total"] == 5
    full_url = tiny.get_section_pages("https://docs.stripe.com/guides")
    assert full_url["pages"][0]["docs"] == "stripe"


def test_section_below_the_base_path(tools: Tools) -> None:
    answer = tools.get_section_pages("/topics/db", "django")
    assert answer["section"] == "/en/dev/topics/db"
    assert answer["total"] == 18


def test_section_paging(tools: Tools) -> None:
    first = tools.get_section_pages("/en-US/docs/Glossary", "mdn", limit=100)
    assert first["total"] > 500 and len(first["pages"]) == 100
    assert first["truncated"] is True and first["next_offset"] == 100
    second = tools.get_section_pages("/en-US/docs/Glossary", "mdn", limit=100, offset=100)
    assert second["pages"][0] != first["pages"][0]


def test_did_you_mean_hints(tools: Tools, tiny: Tools) -> None:
    with pytest.raises(NotFound, match=r"no manifest named 'djagno' \(did you mean 'django'\?\)"):
        tools.list_sections("djagno")
    with pytest.raises(NotFound, match=r"no section '/apii' in stripe \(did you mean '/api'\?\)"):
        tiny.get_section_pages("/apii", "stripe")
    with pytest.raises(NotFound, match="no manifest named 'zzz'"):
        tools.search_pages("x", docs="zzz")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda t: t.search_pages(""), "query must not be empty"),
        (lambda t: t.search_pages("   "), "query must not be empty"),
        (lambda t: t.search_pages(42), "query must be a string, got int"),
        (lambda t: t.search_pages(["a"]), "query must be a string, got list"),
        (lambda t: t.search_pages("x" * 501), "the limit is 500"),
        (lambda t: t.search_pages("a\x00b"), "control characters"),
        (lambda t: t.search_pages("ok", limit=51), "limit must be between 1 and 50"),
        (lambda t: t.search_pages("ok", limit=0), "limit must be between 1 and 50"),
        (lambda t: t.search_pages("ok", limit=True), "limit must be an integer"),
        (lambda t: t.search_pages("ok", limit="ten"), "limit must be an integer"),
        (lambda t: t.search_pages("ok", docs=3), "docs must be a manifest name"),
        (lambda t: t.get_section_pages("ftp://x/api"), "must be a URL path, e.g. '/api'"),
        (lambda t: t.get_section_pages(None), "section must be a string"),
        (lambda t: t.get_section_pages("/a", offset=-1), "offset must be between"),
    ],
)
def test_invalid_arguments(tools: Tools, call, message: str) -> None:
    with pytest.raises(InvalidArgs, match=message):
        call(tools)


def test_lenient_numbers(tools: Tools) -> None:
    assert len(tools.search_pages("fetch", limit="3", docs="mdn")["results"]) == 3
    assert len(tools.search_pages("fetch", limit=3.0, docs="mdn")["results"]) == 3


def test_searching_never_loads_the_http_stack(tmp_path: Path) -> None:
    """The page reader (httpx, httpcore) is loaded on the first get_page, not at start-up."""
    manifest = Path(__file__).resolve().parents[2] / "manifests" / "drf.json"
    code = (
        "import sys\n"
        "import pinax.server.app\n"
        "from pinax.tools import Tools\n"
        "from pathlib import Path\n"
        f"tools = Tools.open([{str(manifest)!r}], Path({str(tmp_path)!r}))\n"
        "assert tools.search_pages('serializers')['results']\n"
        "print(sorted(m for m in ('httpx', 'httpcore') if m in sys.modules))\n"
        "assert tools.reader is not None\n"
        "print(sorted(m for m in ('httpx', 'httpcore') if m in sys.modules))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.splitlines() == ["[]", "['httpcore', 'httpx']"]
