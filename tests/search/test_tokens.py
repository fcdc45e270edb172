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
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from pinax.search.tokens import (
    CHUNK,
    MAX_TOKEN_LENGTH,
    PART_WEIGHT,
    chunks,
    query_words,
    split_chunk,
    split_chunks,
    typed_as_code,
)
from tests.conftest import shared_path


def expected(batch: list[str], segments: bool) -> tuple[list[str], list[bool], list[int]]:
    splits = [split_chunk(chunk, segments) for chunk in batch]
    words = [word for split in splits for word, _ in split]
    halves = [weight < 1.0 for split in splits for _, weight in split]
    return words, halves, [len(split) for split in splits]


def check(batch: list[str]) -> None:
    for segments in (True, False):  # (the symbol field and the content; the text fields)
        words, half, count = split_chunks(batch, segments)
        assert (words, half.tolist(), count.tolist()) == expected(batch, segments)
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


def test_each_segment_of_a_long_dotted_name_is_joined_as_a_word_of_its_own() -> None:
    """A name too long to join whole still yields each of its segments joined, so the word
    typed alone (`SHA1PasswordHasher`) meets the name written in full; a short one keeps its
    whole join last (the query side reads a chunk's last word as its whole)."""
    long = dict(split_chunk("django.contrib.auth.hashers.SHA1PasswordHasher"))
    assert (
        long["sha1passwordhasher"]
        == 1.0
        == dict(split_chunk("SHA1PasswordHasher"))["sha1passwordhasher"]
    )
    assert long["sha"] == long["hashers"] < 1.0 and "djangocontrib" not in long
    short = split_chunk("URLField.assume_scheme")
    assert short[-1] == ("urlfieldassumescheme", 1.0)
    assert {w for w, x in short if x == 1.0} == {"urlfield", "assumescheme", short[-1][0]}
    assert split_chunk("json.dumps") == (("json", 0.5), ("dumps", 0.5), ("jsondumps", 1.0))
    check(["django.contrib.auth.hashers.SHA1PasswordHasher", "a_b.c_d", "x.y", "Aé.bC_d"])
    assert "sha1passwordhasher" not in dict(
        split_chunk("django.contrib.auth.hashers.SHA1PasswordHasher", segments=False)
    )


def test_a_query_weighs_a_dotted_names_segments_as_parts() -> None:
    """Typed inside a longer name, a segment is a part of the name asked for: its join is
    at part weight in a query (the index holds it whole), the whole name's join stays full."""
    typed = dict(query_words("agents.runtime_session_manager.sandboxagent"))
    assert typed["runtimesessionmanager"] == PART_WEIGHT == typed["runtime"]
    assert dict(split_chunk("agents.runtime_session_manager.x"))["runtimesessionmanager"] == 1.0
    assert query_words("URLField.assume_scheme")[-1] == ("urlfieldassumescheme", 1.0)
    assert dict(query_words("URLField.assume_scheme"))["urlfield"] == PART_WEIGHT
    assert query_words("SHA1PasswordHasher") == split_chunk("SHA1PasswordHasher")


def test_typed_as_code_is_a_capital_past_the_first_letter_or_an_underscore() -> None:
    """Its quick answer for a word whose letters are all lower-case is the rule's own, for
    every character of Unicode after a first letter (`ϒ` and `Ⓐ` are capitals too)."""
    assert typed_as_code("MessagePump") and typed_as_code("DISABLED") and typed_as_code("a_b")
    assert not typed_as_code("A") and not typed_as_code("Schema") and not typed_as_code("31")

    def rule(chunk: str) -> bool:
        return "_" in chunk or any(c.isupper() for c in chunk[1:])

    for point in range(sys.maxunicode + 1):
        for chunk in ("a" + chr(point), "Ab1" + chr(point) + "c"):
            assert typed_as_code(chunk) == rule(chunk), hex(point)
