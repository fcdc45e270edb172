"""Building the content index fast and small: words counted as a query counts them, worker
processes giving the same arrays, postings capped where a query stops reading, section
numbers in three bytes, and every packed or string array checked when read back."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinax import workers as content_workers
from pinax.manifest import PageText, Section
from pinax.search import content, content_build
from pinax.search.content import ContentIndex, query_terms
from pinax.search.content_build import _counted, build, section_ids
from pinax.search.store import load, save
from pinax.search.tokens import STOP_WORDS, chunks, split_chunk, stem
from tests.search.test_search_content import loaded, write_docs

ALPHABET = "abcXYZ019 ._-/:'’\n\x01é日Ab"


def reference(text: str) -> Counter[str]:
    """A text's weighted stem counts the plain way: chunks, their words, stems."""
    counts: Counter[str] = Counter()
    for chunk in chunks(text):
        for word, weight in split_chunk(chunk):
            if word not in STOP_WORDS:
                counts[stem(word)] += weight
    return counts


def counted(texts: list[str]) -> list[Counter[str]]:
    done = _counted(texts, [], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint32))
    found: list[Counter[str]] = [Counter() for _ in texts]
    for section, number, tf in zip(done.section, done.stem, done.tf, strict=True):
        found[section][done.stems[number]] += float(tf)
    return found


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=ALPHABET, max_size=40), max_size=6))
def test_a_batch_counts_the_words_a_query_would_find(texts: list[str]) -> None:
    assert counted(texts) == [reference(text) for text in texts]


def test_identifiers_possessives_and_breaks_are_cut_as_chunks_cuts_them() -> None:
    texts = [
        "React's useEffect runs twice in dev",
        "payment_intents.create() -- a..b x/y: foo-",
        "naïve café’s menu",
        "a\x01b",
        "",
    ]
    assert counted(texts) == [reference(text) for text in texts]


def pages(count: int) -> list[PageText]:
    words = "widget mount size layout padding cells margin render twice dev proxy".split()
    return [
        PageText(
            f"https://docs.example.com/p{i}",
            (
                Section(1, f"Page {i}", f"{words[i % 11]} page {i} lead text"),
                Section(2, "Usage", " ".join(words[(i + j) % 11] for j in range(i % 7 + 3))),
            ),
        )
        for i in range(count)
    ]


def table(folder: Path, count: int):
    import json

    rows = [
        {
            "url": page.url,
            "title": page.sections[0].heading,
            "outline": [{"level": 2, "title": "Usage", "anchor": "usage"}],
        }
        for page in pages(count)
    ]
    manifest = folder / "site.json"
    manifest.write_text(
        json.dumps(
            {"pinax_manifest": 1, "name": "site", "url": "https://docs.example.com/", "pages": rows}
        )
    )
    from pinax.library import Library

    return Library.load([manifest], index_dir=folder / "cache").all()[0].pages


def test_worker_processes_build_the_same_arrays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(content_build, "BATCH", 100)  # 8 batches: workers from the second on
    sent = []
    submit = content_workers.Workers.submit
    monkeypatch.setattr(
        content_workers.Workers, "submit", lambda self, item: sent.append(1) or submit(self, item)
    )
    given = table(tmp_path, 400)
    alone = build(pages(400), given, workers=0).arrays
    shared = build(pages(400), given, workers=2).arrays
    assert len(sent) == 7
    assert alone.keys() == shared.keys()
    for name, array in alone.items():
        assert array.dtype == shared[name].dtype and np.array_equal(array, shared[name]), name


def test_workers_that_die_cost_the_build_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(content_build, "BATCH", 100)
    monkeypatch.setattr(content_workers, "COMMAND", ("-c", "import sys; sys.exit(3)"))
    given = table(tmp_path, 400)
    alone = build(pages(400), given, workers=0).arrays
    shared = build(pages(400), given, workers=2).arrays
    for name, array in alone.items():
        assert np.array_equal(array, shared[name]), name
    assert "without workers" in caplog.text


def test_a_term_keeps_only_the_postings_a_query_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    given = table(tmp_path, 200)
    full = ContentIndex(build(pages(200), given, workers=0).arrays)
    monkeypatch.setattr(content_build, "POSTINGS_READ", 20)
    capped_arrays = build(pages(200), given, workers=0).arrays
    assert int(np.diff(capped_arrays["content_post_start"]).max()) == 20
    capped = ContentIndex(capped_arrays)
    assert np.array_equal(capped._idf, full._idf)  # idf from every section, kept or not
    monkeypatch.setattr("pinax.search.content.POSTINGS_READ", 20)
    monkeypatch.setattr("pinax.search.content.LEAST_READ", 5)
    for query in ("widget mount size", "render twice in dev", "proxy padding cells"):
        assert capped.search(query, 5) == full.search(query, 5)
    # A short query's reach: a share of the postings, as an index keeping only those would.
    monkeypatch.setattr(content_build, "POSTINGS_READ", 5)
    fewer = ContentIndex(build(pages(200), given, workers=0).arrays)
    for query in ("widget mount size", "render twice in dev", "proxy padding cells"):
        assert capped.search(query, 5, reach=0.25) == fewer.search(query, 5)
        assert capped.search(query, 5, reach=0.0) == fewer.search(query, 5)  # the least


def test_section_numbers_in_three_bytes_read_back_and_are_checked(tmp_path: Path) -> None:
    given = table(tmp_path, 300)
    arrays = build(pages(300), given, workers=0).arrays
    narrow = ContentIndex(arrays)
    packed = dict(arrays)
    packed["content_post_section"] = section_ids(arrays["content_post_section"], 1 << 20)
    assert len(packed["content_post_section"]) == 3 * len(arrays["content_post_level"]) + 1
    wide = ContentIndex(packed)
    wide.check(len(given), int(given.outline_start[-1]))
    postings = len(arrays["content_post_level"])
    assert np.array_equal(wide._posted(0, postings), narrow._posted(0, postings))
    for query in ("widget mount size", "render twice in dev"):
        assert wide.search(query, 5) == narrow.search(query, 5)
    packed["content_post_section"] = packed["content_post_section"].copy()
    packed["content_post_section"][5] = 0xFF  # a section far past the last
    with pytest.raises(ValueError, match="posted sections"):
        ContentIndex(packed).check(len(given), int(given.outline_start[-1]))
    packed["content_post_section"] = packed["content_post_section"][:-1]  # one byte short
    with pytest.raises(ValueError, match="postings"):
        ContentIndex(packed).check(len(given), int(given.outline_start[-1]))


@pytest.mark.parametrize(
    "name",
    [
        "content_terms_offsets",
        "content_heading_data",
        "content_block_first",
        "content_block_start",
        "content_zdict",
    ],
)
def test_tampered_strings_in_a_kept_index_are_rebuilt(tmp_path: Path, name: str) -> None:
    manifest = write_docs(tmp_path)
    loaded(manifest, tmp_path / "cache")
    (kept,) = (tmp_path / "cache" / "content").glob("*.pxc")
    sound = kept.read_bytes()
    arrays, meta = load(kept)
    arrays = {key: array.copy() for key, array in arrays.items()}
    if name.endswith("offsets"):
        arrays[name][1] = arrays[name][-1] + 5  # past the end of the data
    elif name == "content_heading_data":
        arrays["content_heading_data"] = np.frombuffer(b"\xff\xfe" * 8, dtype=np.uint8).copy()
        arrays["content_heading_offsets"][-1] = 16
    elif name == "content_zdict":  # more than deflate's window: never read
        arrays[name] = np.zeros(content.WINDOW + 1, dtype=np.uint8)
    else:  # a block past the last section, or its text past the end of the store
        arrays[name][-1] += 1
    save(kept, arrays, meta)
    again = loaded(manifest, tmp_path / "cache")
    assert again.search("blank widget needs a size", 3).hits[0].heading == "Troubleshooting"
    assert kept.read_bytes() == sound  # rebuilt, the same


def test_a_sections_text_reads_the_page_no_further_than_needed(tmp_path: Path) -> None:
    from pinax.search.content import plain

    given = table(tmp_path, 20)
    index = ContentIndex(build(pages(20), given, workers=0).arrays)
    expected = [plain(s.text) for page in pages(20) for s in page.sections]
    for section in [0, 1, 2, 0, 3, 5, 4]:  # a lead first (the page's start), then the rest
        assert index.text(section) == expected[section]
    assert all(whole for _, whole in index._recent.values())
    fresh = ContentIndex(build(pages(20), given, workers=0).arrays)
    assert fresh.text(0) == expected[0] and not fresh._recent[0][1]  # the start only, so far
    assert fresh.text(1) == expected[1] and fresh._recent[0][1]


def careful_search(index: ContentIndex, query: str, limit: int, reach: float) -> list[tuple]:
    """A content search worked out section by section: scores summed term after term in
    float32, the best `SECTIONS_RANKED` postings (and any tied with the last) kept, sections
    ranked by score then number, each page by its first."""
    read = max(content.LEAST_READ, int(content.POSTINGS_READ * min(max(reach, 0.0), 1.0)))
    terms = list(index.terms)
    scores: dict[int, np.float32] = {}
    read_sections: list[int] = []
    reference = 0.0
    for text, weight in query_terms(query).items():
        if text not in terms:
            reference += weight * index._unknown_idf
            continue
        term = terms.index(text)
        reference += weight * float(index._idf[term])
        start = int(index._post_start[term])
        end = min(int(index._post_start[term + 1]), start + read)
        step = np.float32(weight * float(index._quantum[term]))
        posted = zip(index._posted(start, end), index._post_level[start:end], strict=True)
        for section, level in posted:
            scores[int(section)] = np.float32(scores.get(int(section), 0.0) + level * step)
            read_sections.append(int(section))
    if not read_sections:
        return []
    if len(read_sections) > content.SECTIONS_RANKED:
        last = sorted((scores[s] for s in read_sections), reverse=True)[content.SECTIONS_RANKED - 1]
        scores = {s: v for s, v in scores.items() if v >= last}
    ranked = sorted(scores, key=lambda s: (-scores[s], s))
    found: dict[int, int] = {}
    for section in ranked:
        found.setdefault(int(index._section_page[section]), section)
    scale = content.CALIBRATION / max(reference, 1e-9)
    return [
        (page, round(1.0 - math.exp(-float(scores[s]) * scale), 4), s)
        for page, s in list(found.items())[:limit]
    ]


@pytest.mark.parametrize("ranked", [1000, 40])
def test_a_content_search_ranks_as_section_by_section_scoring_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ranked: int
) -> None:
    """Many ties (pages share their words): best first, then by section number, each page
    once; with 40 postings ranked, the cut keeps every section tied with the last."""
    monkeypatch.setattr(content, "SECTIONS_RANKED", ranked)
    index = ContentIndex(build(pages(300), table(tmp_path, 300), workers=0).arrays)
    words = "widget mount size layout padding cells margin render twice dev proxy nothing".split()
    queries = [" ".join(words[i : i + n]) for n in (1, 2, 3) for i in range(len(words) - n + 1)]
    for query in [*queries, "page 7 lead", "the", "widget widget render"]:
        for limit, reach in ((30, 1.0), (5, 0.0), (300, 0.5)):
            expected = careful_search(index, query, limit, reach)
            assert [tuple(hit) for hit in index.search(query, limit, reach)] == expected, query


def test_a_sections_text_is_read_from_its_block(tmp_path: Path) -> None:
    """Long pages are cut into blocks of whole sections; a section's text is the same read
    from its block, and reading a late section decompresses no earlier block."""
    from pinax.search.content import plain

    words = "widget mount size layout padding cells margin render twice dev proxy".split()
    long_pages = [
        PageText(
            page.url,
            tuple(
                Section(s.level, s.heading, f"{s.text} " + " ".join(words * (60 + 9 * i)))
                for s in page.sections
            ),
        )
        for i, page in enumerate(pages(12))
    ]
    arrays = build(long_pages, table(tmp_path, 12), workers=0).arrays
    index = ContentIndex(arrays)
    assert len(arrays["content_block_start"]) - 1 > index.pages  # pages of several blocks
    assert 0 < len(arrays["content_zdict"]) <= content.WINDOW
    expected = [plain(s.text) for page in long_pages for s in page.sections]
    for section in reversed(range(index.sections)):
        assert index.text(section) == expected[section]
        assert index.text(section, 100) == expected[section].encode()[:100].decode()
    fresh = ContentIndex(arrays)
    last = index.sections - 1
    assert fresh.text(last) == expected[last]
    assert list(fresh._recent) == [len(arrays["content_block_start"]) - 2]  # its block only


def test_blocks_hold_whole_sections_of_at_least_a_block_of_text() -> None:
    sizes = [10, 5000, 100, 100, 4000, 3000, 1]
    blocks = content_build._blocks(sizes)
    assert blocks == [(0, 2), (2, 5), (5, 7)]
    assert content_build._blocks([]) == [] and content_build._blocks([9]) == [(0, 1)]


@pytest.mark.parametrize("terms", [200, 70_000, (1 << 24) + 5])
def test_postings_are_ordered_by_term_then_weight_then_as_given(terms: int) -> None:
    rng = np.random.default_rng(terms)
    term = rng.integers(0, terms, 50_000).astype(np.int32)
    levels = rng.integers(1, 256, 50_000).astype(np.uint8)
    expected = np.lexsort((np.arange(len(term)), np.uint8(255) - levels, term))
    assert np.array_equal(content_build._by_term_and_level(term, levels, terms), expected)


def test_weights_are_worked_out_alike_in_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    term = rng.integers(0, 50, 10_000).astype(np.int32)
    section = np.sort(rng.integers(0, 700, 10_000)).astype(np.int32)
    tf = rng.integers(1, 9, 10_000).astype(np.float32) / 2
    idf, norm = rng.random(50).astype(np.float32) * 9, rng.random(700) + 0.5
    whole = (idf[term] * tf * (content.K1 + 1) / (tf + norm[section])).astype(np.float32)
    monkeypatch.setattr(content_build, "WEIGHED", 999)  # pieces, the last a short one
    assert np.array_equal(content_build._impacts(idf, term, tf, norm, section), whole)
    quantum = np.maximum(rng.random(50).astype(np.float32) / 255, 1e-30)
    levels = np.clip(np.rint(whole / quantum[term]), 1, 255).astype(np.uint8)
    assert np.array_equal(content_build._levels(whole, quantum, term), levels)


def test_query_stems_find_their_terms_and_nothing_else(tmp_path: Path) -> None:
    """Short stems are found by their first bytes alone; stems of eight bytes and more, and
    stems that begin like a term, by the terms themselves."""
    long_words = "internationalization internationalisation internal interned international"
    rows = [
        PageText(page.url, (Section(1, page.sections[0].heading, f"{long_words} configuring"),))
        for page in pages(5)
    ]
    index = ContentIndex(build(rows, table(tmp_path, 5), workers=0).arrays)
    terms = list(index.terms)
    assert any(len(term) > 8 for term in terms) and any(len(term) < 8 for term in terms)
    assert index._terms(terms) == list(range(len(terms)))
    index._known.clear()
    candidates = ["inter", "internationalizatio", "internationalizations", "zzz", "configure"]
    strangers = [word for word in candidates if word not in terms]
    assert {"internationalizatio", "internationalizations", "zzz"} <= set(strangers)
    found = index._terms([*strangers, *reversed(terms)])
    assert found == [-1] * len(strangers) + list(reversed(range(len(terms))))


def test_pieces_remembered_from_batch_to_batch_count_as_new_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker remembers each piece's words between batches, and forgets them all past a
    bound: the counts are the same either way."""
    texts = [
        "React's useEffect runs twice in dev",
        "payment_intents.create() -- a..b x/y: foo-",
        "the the and PaymentIntent payment-intents",
        "naïve café’s menu, useEffect again",
    ]
    expected = [reference(text) for text in texts]
    assert counted(texts) == expected  # learnt here (or before)
    assert counted(list(reversed(texts))) == list(reversed(expected))  # remembered
    monkeypatch.setattr(content_build, "_MAX_PIECES", 3)
    assert counted(texts) == expected  # forgotten at the start, learnt again
    assert len(content_build._WORDS.pieces) > 3  # (a batch is never cut short)
    assert counted(texts[1:]) == expected[1:]  # forgotten again
