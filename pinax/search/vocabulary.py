"""An index's vocabulary: its terms, the words they were written as, and typo lookups.

Terms (stems) and words (as written, lower-case) are sorted fixed-width byte arrays, so a
lookup is a binary search and the arrays can be memory-mapped from disk as they are. Typos are
looked up through a deletion index (the idea of SymSpell): every plain word of 4+ letters is
filed under itself and each string one deletion away (two for words of 7+ letters), keyed by
CRC-32; a query word's own deletions then find every known word within its edit distance in a
few binary searches, which are checked with the exact optimal-string-alignment distance. No
query ever scans the whole vocabulary.
"""

from __future__ import annotations

import functools
import threading
import zlib
from collections.abc import Callable, Iterable, Sequence

import numpy as np
from rapidfuzz.distance import OSA

from pinax.search.kernels import filed_near
from pinax.search.ranking import RANKING

MIN_TYPO_LENGTH = RANKING.min_typo_length  # shorter words are never corrected
LONG_TYPO_LENGTH = RANKING.long_typo_length  # words this long may be two edits away
MIN_PREFIX_LENGTH = 4
MIN_SUBSTRING_LENGTH = 4
MAX_SUBSTRING_HITS = 1000
DICT_MAX = 300_000  # vocabularies up to this many terms are looked up in a dict
LOOKUPS_CACHED = 4096  # corrections and completions remembered per index


def deletions(word: str, distance: int) -> set[str]:
    """The word and every string up to `distance` (1 or 2) deletions away from it."""
    ones = _one_away(word)
    found = {word, *ones}
    if distance > 1:
        found |= _two_away(ones)
    return found


def _one_away(word: str) -> list[str]:
    """The strings one deletion away from a word, in order of the place deleted."""
    return [word[:i] + word[i + 1 :] for i in range(len(word))]


def _two_away(ones: list[str]) -> set[str]:
    """The strings two deletions away from a word, from `_one_away` of it: the string missing
    place i loses each place from i onwards, so every pair of places is taken once, not
    twice."""
    return {one[:j] + one[j + 1 :] for i, one in enumerate(ones) for j in range(i, len(one))}


def _filing_keys(variants: Iterable[str]) -> list[int]:
    """The keys words are filed under in the deletion index, and looked up by: CRC-32s."""
    return list(map(zlib.crc32, map(str.encode, variants)))


def sorted_strings(values: Sequence[str]) -> np.ndarray:
    """Sorted strings as a fixed-width bytes array, searchable with `np.searchsorted`."""
    encoded = [v.encode() for v in values]
    width = max((len(v) for v in encoded), default=1) or 1
    return np.array(encoded, dtype=f"S{width}")


def build_words(
    words: dict[str, int], sources: set[str], term_rank: np.ndarray
) -> dict[str, np.ndarray]:
    """Arrays for the written words (all but `word_df`, which the postings give: the
    document frequency of each word's term): `words` maps each to its term id (build
    order), `sources` holds the words corrections and completions may give (those of
    titles, headings and symbols: `word_source`), `term_rank` maps build ids to sorted ids."""
    ordered = sorted(words)
    ids = np.fromiter(map(words.__getitem__, ordered), dtype=np.int64, count=len(ordered))
    word_term = term_rank[ids]
    keys: list[int] = []
    owners: list[int] = []
    for i, word in enumerate(ordered):
        if word in sources and len(word) >= MIN_TYPO_LENGTH - 1 and word.isalpha():
            variants = deletions(word, 2 if len(word) >= LONG_TYPO_LENGTH - 2 else 1)
            keys.extend(_filing_keys(variants))
            owners.extend([i] * len(variants))
    key = np.array(keys, dtype=np.uint32)
    order = np.argsort(key, kind="stable")
    return {
        "words": sorted_strings(ordered),
        "word_term": word_term.astype(np.int32),
        "word_blob": np.frombuffer("\n".join(ordered).encode(), dtype=np.uint8),
        "word_source": np.fromiter(map(sources.__contains__, ordered), dtype=bool),
        "delete_key": key[order],
        "delete_word": np.array(owners, dtype=np.int32)[order],
    }


class Vocabulary:
    """Lookups in the vocabulary arrays of one index."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.terms = arrays["terms"]
        self.words = arrays["words"]
        self.word_term = arrays["word_term"]
        self.word_df = arrays["word_df"]
        self._blob = arrays["word_blob"]
        self._source = arrays["word_source"]
        self._delete_key = arrays["delete_key"]
        self._delete_word = arrays["delete_word"]
        self._text: bytes | None = None
        self._line_ends: np.ndarray | None = None
        self._ids: dict[bytes, int] | None = None
        self._lock = threading.Lock()
        # Words a query brings that the index lacks come back in later queries (a user's own
        # words, common English the docs do not use): look each up once.
        self.correct = functools.lru_cache(maxsize=LOOKUPS_CACHED)(self._correct)
        self.complete = functools.lru_cache(maxsize=LOOKUPS_CACHED)(self._complete)

    def prepare(self) -> None:
        """Do now what the first lookups would do (the term table, the distance code), so
        that the first query is as fast as the others."""
        self.term_ids(())
        _osa_distance()

    def term(self, text: str) -> int:
        """The id of a term (a stem), or -1."""
        if self._ids is not None:  # (the usual case: a dict, once made)
            return self._ids.get(text.encode(), -1)
        return self.term_ids([text])[0]

    def term_ids(self, texts: Sequence[str]) -> list[int]:
        """The ids of several terms (-1 for those not in the vocabulary)."""
        if self._ids is None and len(self.terms) <= DICT_MAX:
            with self._lock:  # a small vocabulary gets a dict: faster than binary search
                if self._ids is None:
                    self._ids = {t: i for i, t in enumerate(self.terms.tolist())}
        if self._ids is not None:
            get = self._ids.get
            return [get(t.encode(), -1) for t in texts]
        width = self.terms.dtype.itemsize
        keys = [t.encode() for t in texts]
        if not keys or not len(self.terms):
            return [-1] * len(keys)
        wanted = np.array(keys, dtype=self.terms.dtype)  # longer keys are cut: checked below
        at = np.minimum(np.searchsorted(self.terms, wanted), len(self.terms) - 1)
        hit = (self.terms[at] == wanted).tolist()
        return [
            int(a) if ok and len(k) <= width else -1
            for a, ok, k in zip(at.tolist(), hit, keys, strict=True)
        ]

    def has_word(self, word: str) -> bool:
        """Whether a lower-case word is written so in the indexed text (not just its stem)."""
        key = word.encode()
        if not len(self.words) or len(key) > self.words.dtype.itemsize:
            return False
        at = int(self.words.searchsorted(key))
        return at < len(self.words) and bytes(self.words[at]) == key

    def term_text(self, term: int) -> str:
        return bytes(self.terms[term]).decode()

    def word_text(self, word: int) -> str:
        return bytes(self.words[word]).decode()

    def _correct(self, word: str) -> int | None:
        """The known word (id) a mistyped word most probably meant: edit distance 1 for words
        of 5+ letters, 2 for 9+; the closest, then the most frequent, then the nearest in
        length. None if nothing is close.
        Words one edit away are looked for first, so a long word pays for two only if needed."""
        if len(word) < MIN_TYPO_LENGTH or not word.isalpha() or not len(self._delete_key):
            return None
        written = word.encode()
        near = filed_near(self._delete_key, self._delete_word, written, 1)
        found = self._closest(word, near, 1)
        if found is None and len(word) >= LONG_TYPO_LENGTH:
            two = filed_near(self._delete_key, self._delete_word, written, 2)
            found = self._closest(word, near | two, 2)
        return found

    def _closest(self, word: str, candidates: set[int], limit: int) -> int | None:
        distance_of = _osa_distance()
        best: tuple[int, int, int, str] | None = None
        chosen = None
        for candidate in candidates:
            text = self.word_text(candidate)
            distance = distance_of(word, text, score_cutoff=limit)
            if distance <= limit:
                # Ties: the most frequent, then the length closest to what was typed (a
                # substitution over a deletion: `templatez` is `templates`, not `template`).
                rank = (distance, -self.word_df.item(candidate), abs(len(text) - len(word)), text)
                if best is None or rank < best:
                    best, chosen = rank, candidate
        return chosen

    def _complete(self, prefix: str, limit: int) -> tuple[int, ...]:
        """Up to `limit` known words (ids) that start with a partial word: the most frequent,
        the shortest of them first (`useeffe` stands for `useeffect` before `useeffectevent`:
        the first counts most)."""
        if len(prefix) < MIN_PREFIX_LENGTH:
            return ()
        key = prefix.encode()
        lo = int(np.searchsorted(self.words, key, side="left"))
        hi = int(np.searchsorted(self.words, key + b"\xff", side="left"))
        found = np.arange(lo, hi)
        frequent = self._most_frequent(found[self._source[lo:hi]], limit)
        return tuple(sorted(frequent, key=lambda w: len(self.words[w])))

    def containing(self, needle: str, limit: int) -> list[int]:
        """Up to `limit` known words (ids) that contain a word, most frequent first."""
        if len(needle) < MIN_SUBSTRING_LENGTH:
            return []
        if self._text is None or self._line_ends is None:
            self._text = self._blob.tobytes()
            self._line_ends = np.flatnonzero(self._blob == 10)
        target = needle.encode()
        starts: list[int] = []
        at = self._text.find(target)
        while at >= 0 and len(starts) < MAX_SUBSTRING_HITS:
            starts.append(at)
            at = self._text.find(target, at + 1)
        if not starts:  # (most words a query brings that no title has)
            return []
        lines = np.searchsorted(self._line_ends, np.array(starts, dtype=np.int64))  # word ids
        found = np.array(sorted(set(lines.tolist())), dtype=np.int64)
        return self._most_frequent(found[self._source[found]], limit)

    def _most_frequent(self, found: np.ndarray, limit: int) -> list[int]:
        if not len(found):
            return []
        df = self.word_df[found]
        if len(found) > limit:
            keep = np.argpartition(-df, limit - 1)[:limit]
            found, df = found[keep], df[keep]
        return [int(w) for w in found[np.lexsort((found, -df))]]


def _osa_distance() -> Callable[..., int]:
    """rapidfuzz's optimal-string-alignment distance. rapidfuzz is imported with this module,
    in the thread that loads the docs: imported lazily, a server's warm-up thread and a
    request could import it at once, and its circular imports then fail in one of them."""
    return OSA.distance
