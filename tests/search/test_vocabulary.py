"""The vocabulary's lookups: a term by its text, a word as written, from the dict a small
vocabulary gets and from the binary search a large one keeps."""

from __future__ import annotations

from pathlib import Path

import pytest

from pinax.library import Library
from pinax.search import vocabulary as vocabulary_module

MANIFEST = Path(__file__).resolve().parents[2] / "manifests" / "drf.json"


@pytest.mark.parametrize("dict_max", [0, vocabulary_module.DICT_MAX])
def test_a_term_and_a_word_are_found_alike_either_way(
    monkeypatch: pytest.MonkeyPatch, dict_max: int
) -> None:
    monkeypatch.setattr(vocabulary_module, "DICT_MAX", dict_max)  # before the first lookup
    vocabulary = Library.load([MANIFEST]).get("drf").index.vocabulary
    texts = [bytes(t).decode() for t in vocabulary.terms]
    absent = ["", "zzzz", "serializ" * 10, texts[0] + "x", "é"]
    assert [vocabulary.term(t) for t in texts] == list(range(len(texts)))
    assert [vocabulary.term(t) for t in absent] == [-1] * len(absent)
    assert vocabulary.term_ids(texts + absent) == [*range(len(texts)), *[-1] * len(absent)]
    assert (vocabulary._ids is not None) == (dict_max > 0)
    words = [bytes(w).decode() for w in vocabulary.words]
    assert all(vocabulary.has_word(w) for w in words)
    assert not any(vocabulary.has_word(w) for w in absent)


def test_words_containing_a_piece_most_frequent_first_and_none_for_a_stranger() -> None:
    vocabulary = Library.load([MANIFEST]).get("drf").index.vocabulary
    found = [vocabulary.word_text(w) for w in vocabulary.containing("seriali", 3)]
    assert found and all("seriali" in word for word in found)
    assert vocabulary.containing("sponsors", 3) == vocabulary.containing("qqqq", 3) == []
