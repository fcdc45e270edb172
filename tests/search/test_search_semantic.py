"""Search by meaning: WordLlama's shipped model read offline, the blended score and its
weights, rescue by title meaning, and lexical search when the model is missing or broken."""

from __future__ import annotations

import json
import logging
import shutil
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from mcp import Client, StdioServerParameters

from pinax.errors import InvalidArgs
from pinax.library import Library, index_state
from pinax.manifest import Heading, Manifest, Page
from pinax.search import index_cache, semantic
from pinax.tools import EMBEDDING_WEIGHT, LEXICAL_WEIGHT, Tools
from tests.cli.test_cli import pinax

TITLES = [
    "Sending email",
    "Database transactions",
    "Caching framework",
    "Pagination",
    "Time zones",
    "Logging",
    "Authentication",
    "File uploads",
]


def example(outlines: dict[str, list[str]] | None = None) -> Manifest:
    outlines = outlines or {}
    pages = tuple(
        Page(
            url=f"https://docs.example.com/{title.lower().replace(' ', '-')}",
            title=title,
            section="/",
            outline=tuple(
                Heading(2, h, h.lower().replace(" ", "-")) for h in outlines.get(title, [])
            ),
        )
        for title in TITLES
    )
    return Manifest(name="example", url="https://docs.example.com", title="Example", pages=pages)


def write(manifest: Manifest, folder: Path) -> Path:
    pages = [
        {
            "url": p.url,
            "title": p.title,
            "outline": [
                {"level": h.level, "title": h.title, "anchor": h.anchor} for h in p.outline
            ],
        }
        for p in manifest.pages
    ]
    path = folder / "example.json"
    path.write_text(
        json.dumps(
            {"pinax_manifest": 1, "name": manifest.name, "url": manifest.url, "pages": pages}
        )
    )
    return path


@pytest.fixture
def fresh_model() -> Iterator[None]:
    """The model loaded anew by the test, and again by whatever runs after it."""
    semantic.forget()
    yield
    semantic.forget()


def test_the_shipped_model_loads_and_embeds_without_the_network(
    monkeypatch: pytest.MonkeyPatch, fresh_model: None
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network touched: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    model = semantic.model()
    assert model is not None
    vectors = model.embed(["Skipping re-rendering when props are unchanged", "Sending email", ""])
    query = semantic.query_vector("stop a component from re-rendering")
    assert query is not None and abs(float(query @ query) - 1.0) < 1e-5
    assert vectors[0] @ query > vectors[1] @ query + 0.2
    assert not vectors[2].any()  # no token, no direction
    library = Library([example()])  # an index built with its vectors, offline too
    assert library.search("login password", 3).hits[0].title == "Authentication"


def test_the_weights_are_read_as_the_wheel_ships_them(fresh_model: None) -> None:
    """The memory-mapped matrix is the safetensors file's, as its own reader gives it."""
    from safetensors.numpy import load_file

    folder = semantic.model_folder()
    assert folder is not None
    expected = load_file(str(folder / semantic.WEIGHTS))["embedding.weight"]
    model = semantic.model()
    assert model is not None
    assert model.vectors.shape == (32000, semantic.DIMS)
    assert np.array_equal(model.vectors, expected)
    ids = model.tokenizer.encode("useEffect cleanup", add_special_tokens=False).ids
    mean = expected[ids].astype(np.float32).mean(axis=0)
    assert np.allclose(
        model.embed(["useEffect cleanup"])[0], mean / np.linalg.norm(mean), atol=1e-6
    )


def test_meaning_rescues_a_query_that_shares_no_word() -> None:
    library = Library([example()])
    assert library.search("login password", 3, embedding_weight=0).hits == []
    hits = library.search("login password", 3).hits
    assert hits[0].title == "Authentication"  # the closest title first
    assert all(h.confidence == "low" and 0 < h.score < 0.2 for h in hits)
    # Gibberish is close to nothing: no page stands in for it.
    assert library.search("zzqx blorp", 3).hits == []
    # Words found something: nothing is added to it.
    assert [h.title for h in library.search("logging", 3).hits] == ["Logging"]


def test_meaning_reorders_candidates_and_names_the_heading(tmp_path: Path) -> None:
    outlines = {
        "Caching framework": ["Setting up the cache", "Cache versioning"],
        "Logging": ["Configuring logging", "Sending log records by email"],
        "Sending email": ["Quick example", "Preventing header injection"],
    }
    tools = Tools.open([write(example(outlines), tmp_path)], cache_dir=tmp_path / "cache")
    words = tools.search_pages("email", explain=True, embedding_weight=0)["results"]
    both = tools.search_pages("email", explain=True)["results"]
    assert {r["title"] for r in words} == {r["title"] for r in both}
    assert "embedding" not in words[0]["explain"]
    for row in both:
        parts = row["explain"]
        blended = LEXICAL_WEIGHT * parts["lexical"] + EMBEDDING_WEIGHT * parts["embedding"]
        assert row["score"] == pytest.approx(blended, abs=1e-3)  # the defaults add up to 1
        assert parts["weights"] == {"lexical": LEXICAL_WEIGHT, "embedding": EMBEDDING_WEIGHT}
    meaning = tools.search_pages("email", lexical_weight=0, embedding_weight=1)["results"]
    scores = [r["score"] for r in meaning]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)
    # Words name no heading of "Caching framework" for this query; meaning does.
    named = tools.search_pages("cache versions")["results"][0]
    assert (named["title"], named.get("heading")) == ("Caching framework", "Cache versioning")
    assert named["anchor"] == "cache-versioning"


def test_meaning_reads_the_query_as_words_corrected_it() -> None:
    """A misspelt word is embedded as the word search corrected it to, not as typed."""
    library = Library([example()])
    typed = library.search("cachng framwork", 3, explain=True)
    assert typed.also_matched == {"cachng": ["caching"], "framwork": ["framework"]}
    clean = library.search("caching framework", 3, explain=True)
    assert typed.hits[0].title == clean.hits[0].title == "Caching framework"
    assert typed.hits[0].explain["embedding"] == clean.hits[0].explain["embedding"]
    corrected = semantic.query_vector(
        "cachng framwork", {"cachng": "caching", "framwork": "framework"}
    )
    as_typed = semantic.query_vector("cachng framwork")
    assert corrected is not None and as_typed is not None
    assert np.allclose(corrected, semantic.query_vector("caching framework"))
    assert not np.allclose(corrected, as_typed)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"lexical_weight": 1.5}, "lexical_weight must be between 0 and 1"),
        ({"embedding_weight": -0.1}, "embedding_weight must be between 0 and 1"),
        ({"embedding_weight": "lots"}, "embedding_weight must be a number"),
        ({"lexical_weight": 0, "embedding_weight": 0}, "both 0"),
    ],
)
def test_weights_outside_their_range_are_invalid_args(arguments: dict, message: str) -> None:
    tools = Tools(Library([example()]))
    with pytest.raises(InvalidArgs, match=message):
        tools.search_pages("email", **arguments)


@pytest.mark.parametrize("broken", ["missing", "truncated"])
def test_a_missing_or_broken_model_leaves_word_search_and_one_warning(
    broken: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    fresh_model: None,
) -> None:
    folder = semantic.model_folder()
    assert folder is not None
    if broken == "truncated":
        (tmp_path / "weights").mkdir()
        (tmp_path / "tokenizers").mkdir()
        shutil.copy(folder / semantic.TOKENIZER, tmp_path / semantic.TOKENIZER)
        data = (folder / semantic.WEIGHTS).read_bytes()
        (tmp_path / semantic.WEIGHTS).write_bytes(data[: len(data) // 2])
    monkeypatch.setattr(semantic, "model_folder", lambda: tmp_path)
    caplog.set_level(logging.WARNING, logger="pinax")
    library = Library([example()])
    for query in ("email", "login password", "time zones"):
        hits = library.search(query, 5).hits
        lexical = library.search(query, 5, embedding_weight=0).hits
        assert hits == lexical
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "search by meaning is off" in warnings[0].getMessage()
    assert library.all()[0].index.vectors is None


def test_the_cli_takes_the_weights(tmp_path: Path) -> None:
    path = str(write(example(), tmp_path))
    cache = ("--cache-dir", str(tmp_path / "cache"))
    found = pinax("search", "--docs", path, *cache, "--json", "login password")
    assert json.loads(found.stdout)["results"][0]["title"] == "Authentication"
    words = pinax(
        "search", "--docs", path, *cache, "--json", "--embedding-weight", "0", "login password"
    )
    assert json.loads(words.stdout)["results"] == []
    explained = pinax("search", "--docs", path, *cache, "--explain", "email")
    assert "meaning" in explained.stdout and f"x{EMBEDDING_WEIGHT}" in explained.stdout
    bad = pinax("search", "--docs", path, *cache, "--lexical-weight", "2", "email")
    assert bad.returncode == 2 and "--lexical-weight must be between 0 and 1" in bad.stderr
    off = pinax("serve", "--docs", path, *cache, "--lexical-weight", "0", "--embedding-weight", "0")
    assert off.returncode == 2 and "both 0" in off.stderr


@pytest.mark.anyio
async def test_an_mcp_client_sets_the_weights_and_serve_its_defaults(tmp_path: Path) -> None:
    path = write(example(), tmp_path)

    def server(*extra: str) -> StdioServerParameters:
        return StdioServerParameters(
            command=sys.executable,
            args=[
                "-m",
                "pinax",
                "serve",
                "--docs",
                str(path),
                "--cache-dir",
                str(tmp_path),
                *extra,
            ],
            env={"PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        )

    async with Client(server()) as client:
        found = await client.call_tool("search_pages", {"query": "login password"})
        assert found.structured_content["results"][0]["title"] == "Authentication"
        off = await client.call_tool(
            "search_pages", {"query": "login password", "embedding_weight": 0}
        )
        assert off.structured_content["results"] == []
        bad = await client.call_tool("search_pages", {"query": "email", "lexical_weight": 3})
        assert bad.is_error and "lexical_weight must be between 0 and 1" in bad.content[0].text
    async with Client(server("--embedding-weight", "0")) as client:
        found = await client.call_tool("search_pages", {"query": "login password"})
        assert found.structured_content["results"] == []


def test_the_index_store_keeps_the_vectors_and_is_keyed_by_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_model: None
) -> None:
    path = write(example({"Logging": ["Configuring logging"]}), tmp_path)
    folder = tmp_path / "indexes"
    built = Library.load([path], index_dir=folder)
    mapped = Library.load([path], index_dir=folder)  # the saved file, memory-mapped
    assert mapped.all()[0].index_file is not None
    for library in (built, mapped):
        assert library.search("login password", 3).hits[0].title == "Authentication"
    with_model = index_cache(folder).version
    monkeypatch.setattr(semantic, "model_folder", lambda: None)
    assert index_cache(folder).version != with_model  # installing the model re-indexes
    assert index_state(path, folder) == "stale"


def test_titles_alone_make_the_query_vector_only_to_rescue_or_explain(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Meaning re-ranks only pages with headings: over titles alone the query is embedded
    only when its vector has a say (a rescue, an explanation), and the answers are the same."""
    library = Library([example()])  # titles only
    model = semantic.model()
    assert model is not None
    made: list[str] = []
    embed_one = model.embed_one
    monkeypatch.setattr(model, "embed_one", lambda text: made.append(text) or embed_one(text))
    assert [h.title for h in library.search("logging", 3).hits] == ["Logging"]
    assert made == []  # words found it: meaning had no say
    explained = library.search("logging", 3, explain=True).hits[0]
    assert explained.explain is not None and explained.explain["embedding"] > 0
    assert made == ["logging"]
    assert library.search("login password", 3).hits[0].title == "Authentication"
    assert made == ["logging", "login password"]  # words found nothing: the vector rescues


def test_every_text_but_the_empty_one_has_a_vector() -> None:
    """What `query_meaning` stands on: the tokenizer gives any character a token (its byte
    fallback: a sample of every Unicode plane's characters), and no token's vector is zero."""
    model = semantic.model()
    assert model is not None
    assert np.asarray(model.vectors, dtype=np.float32).any(axis=1).all()
    texts = [chr(c) for c in range(0, sys.maxunicode + 1, 61) if not 0xD800 <= c <= 0xDFFF]
    texts += [" ", "\u200b", "<unk>", "<s>", "</s>", "\ufeff"]
    encoded = model.tokenizer.encode_batch_fast(texts, add_special_tokens=False)
    assert [text for text, tokens in zip(texts, encoded, strict=True) if not tokens.ids] == []
    assert all(semantic.query_vector(text) is not None for text in texts[-6:])
    assert semantic.query_meaning("") is None and semantic.query_vector("") is None


def test_the_rescue_shortlists_titles_by_their_signs_as_a_byte_table_would() -> None:
    """`nearest` counts differing signs four 64-bit words at a time: the same shortlist, so
    the same pages, as counting them a byte at a time from a table (its earlier way)."""
    manifest = Path(__file__).resolve().parents[2] / "manifests" / "drf.json"
    index = Library.load([manifest]).get("drf").index
    vectors = index.vectors
    assert vectors is not None and len(vectors._title) > 64  # (a shortlist is made)
    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
    signs = vectors._sign.view(np.uint8)

    def by_table(query: np.ndarray, count: int, exclude: set[int]) -> list[int]:
        distance = table[signs ^ np.packbits(query > 0)].sum(axis=1, dtype=np.int32)
        short = min(len(distance), max(64, count * 8) + len(exclude))
        pages = np.argpartition(distance, short - 1)[:short]
        cosines = vectors._text[vectors._title[pages]].astype(np.float32) @ (query / 127.0)
        order = np.lexsort((pages, -cosines))
        close = order[cosines[order] >= semantic.RESCUE_MIN]
        return [p for p in pages[close].tolist() if p not in exclude][:count]

    model = semantic.model()
    assert model is not None
    queries = [model.embed_one(t) for t in ("sponsors", "throttling", "login password", "tests")]
    random = np.random.default_rng(7).standard_normal((40, semantic.DIMS)).astype(np.float32)
    found = 0
    for query in [*queries, *random]:
        for count, exclude in ((1, set()), (5, set()), (5, {3, 10}), (9, set(range(0, 70, 3)))):
            expected = by_table(query, count, exclude)
            assert vectors.nearest(query, count, exclude) == expected
            found += len(expected)
    assert found  # (some titles are close enough to stand in)
