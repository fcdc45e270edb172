"""The index build's batch splitter gives exactly what the query side's splitter gives.

`split_chunks` (builds: all ASCII chunks cut by one regular expression) and `split_chunk`
(queries, one chunk at a time) must agree token for token, or indexed words and query words
would part ways: checked on every chunk of the real manifests and on generated chunks from
an alphabet of identifier shapes and awkward Unicode (case folding that changes length,
titlecase letters, ligatures).
"""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from pinax.search.tokens import CHUNK, MAX_TOKEN_LENGTH, chunks, split_chunk, split_chunks
from tests.conftest import shared_path


def expected(batch: list[str]) -> tuple[list[str], list[bool], list[int]]:
    splits = [split_chunk(chunk) for chunk in batch]
    words = [word for split in splits for word, _ in split]
    halves = [weight < 1.0 for split in splits for _, weight in split]
    return words, halves, [len(split) for split in splits]


def check(batch: list[str]) -> None:
    words, half, count = split_chunks(batch)
    assert (words, half.tolist(), count.tolist()) == expected(batch)
    assert all(type(word) is str for word in words)


def test_every_chunk_of_the_real_manifests() -> None:
    texts: list[str] = []
    for path in sorted(shared_path("corpora", "manifests").glob("*.json")):
        for page in json.loads(path.read_text())["pages"]:
            texts += [page["url"], page["title"], page.get("section") or ""]
            texts.append(page.get("description") or "")
    batch = list(dict.fromkeys(itertools.chain.from_iterable(map(chunks, texts))))
    assert len(batch) > 10_000
    check(batch)


def test_edge_chunks() -> None:
    longest = MAX_TOKEN_LENGTH
    check([])
    check(["a" * longest, "a" * (longest + 1), "Ab" * longest, "abcDef" * 9, "x" * longest + "Y"])
    check(["APIs", "HTMLElement", "URLs", "a.b.c.d.e", "A-B-C-D", "é", "éA", "İstanbul", "ǅemal"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="aAbBzZ09._-/:éÉßİıǅﬁKσςΣsS", max_size=14), max_size=8))
def test_generated_chunks(texts: list[str]) -> None:
    check([chunk for text in texts for chunk in CHUNK.findall(text)])
