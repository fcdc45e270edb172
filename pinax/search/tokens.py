"""Words for search: identifier-aware tokens, English stems and stop words.

Pages and queries go through the same analysis, so `PaymentIntent`, `payment_intents` and
`payment-intents` meet. A run of letters and digits joined by `.`, `_`, `-`, `/` or `:` is one
chunk; a chunk of several parts (split at those separators and at case changes) yields each
part at half weight plus the parts joined (`paymentintents`) at full weight, so the exact
identifier outranks its loose words; a dotted name's segments are joined each on its own too
(`sha1passwordhasher` of `django.contrib.auth.hashers.SHA1PasswordHasher`), at part weight in
a query (`query_words`). Every token is stemmed with the Snowball English stemmer
(`intents` -> `intent`, `configuring` -> `configur`), which measured clearly better than
plural-and-verb-form stripping alone on the DEV sets. Stop words are kept in the index but
left out of field lengths and of queries that have other words.
"""

from __future__ import annotations

import functools
import itertools
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import Stemmer  # PyStemmer: the Snowball stemmers in C

from pinax.search.ranking import RANKING

PART_WEIGHT = RANKING.part_weight  # an identifier's part beside the whole (baked in)
MAX_PARTS_JOINED = 4  # longer chunks are slugs of words, not identifiers: no joined token
MAX_TOKEN_LENGTH = 48  # longer tokens are dropped

STOP_WORDS = frozenset(
    "a an and are as at be by can do does for from how i in into is it its of on or our that "
    "the this to us we what when where which why will with you your".split()
)

_POSSESSIVE = re.compile(r"['’]s\b")
CHUNK = re.compile(r"[^\W_]+(?:[._\-/:][^\W_]+)*")
_SEPARATOR = re.compile(r"[._\-/:]")
# Words inside an identifier: a plural acronym (APIs, URLs: not `AP` + `Is`), an acronym before
# a capitalised word (HTML in HTMLElement), a (capitalised) word, an acronym, a number.
_CASE_PARTS = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_PARTS_OR_BREAK = re.compile(r"\n|" + _CASE_PARTS.pattern)  # case parts of chunks, one a line


def make_stemmer() -> Any:
    """A Snowball English (Porter 2) stemmer."""
    return Stemmer.Stemmer("english")


_STEMMER = make_stemmer()
_STEMMER_LOCK = threading.Lock()

Token = tuple[str, float]  # (lower-case word as written, weight)


def chunks(text: str) -> list[str]:
    """The runs of letters and digits (with their inner separators) of a text."""
    if "'" in text or "’" in text:
        text = _POSSESSIVE.sub("", text)
    return CHUNK.findall(text)


MEMBER = re.compile(r"(?<![\w.])\.([^\W\d]\w*)")  # `.a`: a member's name typed alone


def typed_as_code(chunk: str) -> bool:
    """Whether one chunk is written as a code name by its letters: an underscore, or a
    capital past the first letter (`MessagePump`, `DISABLED`); `a` and `A` are words."""
    rest = chunk[1:]  # (all its cased letters lower-case: none is a capital; most words)
    return "_" in chunk or (not rest.islower() and any(c.isupper() for c in rest))


def written_as_names(text: str) -> set[str]:
    """The one-word chunks of a text written as code names (`__init__`, `dumps()`: an
    underscore beside them, or call parentheses after), lower-cased: identifiers, not words
    to complete."""
    if "_" not in text and "(" not in text:  # most queries: nothing to look for
        return set()
    if "'" in text or "’" in text:
        text = _POSSESSIVE.sub("", text)
    found = set()
    for match in CHUNK.finditer(text):
        start, end = match.span()
        before = text[start - 1] if start else ""
        after = text[end] if end < len(text) else ""
        if before == "_" or after in ("_", "("):
            found.add(match.group(0).lower())
    return found


def words(text: str) -> list[Token]:
    """The words of a text as written (lower-cased, unstemmed), each with its weight."""
    return [token for chunk in chunks(text) for token in chunk_words(chunk)]


@functools.lru_cache(maxsize=1 << 17)
def chunk_words(chunk: str) -> tuple[Token, ...]:
    """The words of a chunk: its parts at half weight and the parts joined, or itself."""
    return split_chunk(chunk)


def query_words(chunk: str) -> tuple[Token, ...]:
    """`chunk_words` as a query weighs them: the segment joins of a dotted name typed (not
    its whole) at part weight, as its parts are. A segment typed inside a longer name is a
    part of that name, not the name asked for: at full weight, the page of a module path's
    segment (`runtime_session_manager`) outranked the name's own (eval_symbols, lower)."""
    tokens = chunk_words(chunk)
    if "." not in chunk or len(tokens) < 2:
        return tokens
    whole = "".join(w for w, x in tokens if x < 1.0)
    return tuple((w, x if x < 1.0 or w == whole else PART_WEIGHT) for w, x in tokens)


def split_chunk(chunk: str, segments: bool = True) -> tuple[Token, ...]:
    """`chunk_words` without its cache (for builds, where most chunks are seen once). With
    `segments`, a dotted name's segments are joined each on its own too
    (`sha1passwordhasher` of `django.contrib.auth.hashers.SHA1PasswordHasher`): the whole
    is too long to join, but each segment is a name someone may type alone."""
    if _one_word(chunk):
        return ((chunk.lower(), 1.0),) if len(chunk) <= MAX_TOKEN_LENGTH else ()
    dotted = segments and "." in chunk
    pieces = [_parts(s) for s in chunk.split(".")] if dotted else [_parts(chunk)]
    parts = list(itertools.chain.from_iterable(pieces))
    if len(parts) <= 1:
        return tuple((p, 1.0) for p in parts)
    found = [(p, PART_WEIGHT) for p in parts]
    joined = "".join(parts)
    whole = len(parts) <= MAX_PARTS_JOINED and len(joined) <= MAX_TOKEN_LENGTH
    if len(pieces) > 1:  # before the whole: a chunk's last word is its whole join
        for segment in pieces:
            word = "".join(segment)
            fits = 1 < len(segment) <= MAX_PARTS_JOINED and len(word) <= MAX_TOKEN_LENGTH
            if fits and not (whole and word == joined):
                found.append((word, 1.0))
    if whole:
        found.append((joined, 1.0))
    return tuple(found)


def _parts(piece: str) -> list[str]:
    """The lower-cased parts of a chunk or segment (case parts of ASCII; pieces between
    separators beyond it, where letters have no case parts here), too-long ones dropped."""
    if piece.isascii():  # separators are simply not matched
        parts = _CASE_PARTS.findall(piece)
    else:
        parts = [p for p in _SEPARATOR.split(piece) if p]
    return [p.lower() for p in parts if len(p) <= MAX_TOKEN_LENGTH]


def split_chunks(
    batch: Sequence[str], segments: bool = True
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """`split_chunk` of many chunks, for builds: the words of all (flat), which of them are
    half weight, and how many each chunk has. ASCII chunks (without dots, with `segments`)
    are cut by one regular expression over them all (a one-word chunk is its own single
    case part there), others one by one."""
    cut = _bulk if segments else str.isascii
    bulk = np.fromiter(map(cut, batch), dtype=bool, count=len(batch))
    if bulk.all():
        return _split_ascii(batch)
    words, half, count = _split_ascii(list(itertools.compress(batch, bulk)))
    others = [split_chunk(c, segments) for c in itertools.compress(batch, ~bulk)]
    other_count = np.fromiter(map(len, others), dtype=np.int64, count=len(others))
    owner = np.concatenate(
        [
            np.repeat(np.flatnonzero(bulk), count),
            np.repeat(np.flatnonzero(~bulk), other_count),
        ]
    )
    order = np.argsort(owner, kind="stable")  # back in chunk order
    tokens = list(itertools.chain.from_iterable(others))
    everything = np.array([*words, *(w for w, _ in tokens)], dtype=object)
    halves = np.concatenate([half, np.array([w < 1.0 for _, w in tokens], dtype=bool)])
    counts = np.zeros(len(batch), dtype=np.int64)
    counts[bulk] = count
    counts[~bulk] = other_count
    return everything[order].tolist(), halves[order], counts


def _bulk(chunk: str) -> bool:
    """Whether `_split_ascii` cuts a chunk: ASCII without dots (a dotted name's segments
    are joined one by one, by `split_chunk`)."""
    return chunk.isascii() and "." not in chunk


def _split_ascii(batch: Sequence[str]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """`split_chunks` of ASCII chunks: their case parts found in one pass over them all."""
    found = _PARTS_OR_BREAK.findall("\n".join(batch))
    items = " ".join(found).lower().split(" ") if found else []  # lower-cased, one for one
    del found
    is_break = np.fromiter(map("\n".__eq__, items), dtype=bool, count=len(items))
    length = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
    keep = ~is_break & (length <= MAX_TOKEN_LENGTH)
    owner = np.cumsum(is_break)[keep]  # the chunk of each part kept
    parts = np.bincount(owner, minlength=len(batch))
    joined_length = np.bincount(owner, weights=length[keep], minlength=len(batch))
    joins = (parts > 1) & (parts <= MAX_PARTS_JOINED) & (joined_length <= MAX_TOKEN_LENGTH)
    count = parts + joins
    start = np.cumsum(count) - count
    words = np.empty(int(count.sum()), dtype=object)
    half = np.zeros(len(words), dtype=bool)
    at = np.arange(len(owner)) + (np.cumsum(joins) - joins)[owner]
    words[at] = list(itertools.compress(items, keep))
    half[at] = parts[owner] > 1
    joined = "".join(itertools.compress(items, keep | is_break)).split("\n")
    words[(start + parts)[joins]] = list(itertools.compress(joined, joins))
    return words.tolist(), half, count


def _one_word(piece: str) -> bool:
    """Letters only, lower-case or capitalised: no case change to split at."""
    return piece.isalpha() and (piece.islower() or piece[1:].islower())


def phrases(stems: Sequence[str]) -> list[str]:
    """Adjacent pairs of content-word stems, joined by a space: a title's phrases, which a
    query that keeps the two words together matches as well."""
    return [f"{a} {b}" for a, b in itertools.pairwise(stems) if len(a) + len(b) < MAX_TOKEN_LENGTH]


# Past participles in -n the stemmer leaves alone (`shown` stays `shown`), each with the verb
# it is a form of: stemmed as that verb, so "shown" meets "show" and "shows" in both indexes
# (baked: a change bumps both formats). Only these: a past tense or an irregular plural is
# often another word (`broke`, `ran`, `left`, `children` beside `child` measured worse on
# the DEV questions: bench/quality/eval_content.py).
LEMMAS = {
    form: base
    for base, forms in (
        ("arise", "arisen"),
        ("begin", "begun"),
        ("bite", "bitten"),
        ("blow", "blown"),
        ("break", "broken"),
        ("choose", "chosen"),
        ("draw", "drawn"),
        ("drive", "driven"),
        ("eat", "eaten"),
        ("fall", "fallen"),
        ("fly", "flown"),
        ("forbid", "forbidden"),
        ("forget", "forgotten"),
        ("freeze", "frozen"),
        ("get", "gotten"),
        ("give", "given"),
        ("go", "gone"),
        ("grow", "grown"),
        ("hide", "hidden"),
        ("know", "known"),
        ("override", "overridden"),
        ("rewrite", "rewritten"),
        ("ride", "ridden"),
        ("rise", "risen"),
        ("see", "seen"),
        ("shake", "shaken"),
        ("show", "shown"),
        ("speak", "spoken"),
        ("steal", "stolen"),
        ("strike", "stricken"),
        ("take", "taken"),
        ("throw", "thrown"),
        ("undo", "undone"),
        ("wake", "woken"),
        ("wear", "worn"),
        ("withdraw", "withdrawn"),
        ("write", "written"),
    )
    for form in forms.split()
}


@functools.lru_cache(maxsize=1 << 18)
def stem(word: str) -> str:
    """The index term of a lower-case word (its Snowball English stem, an irregular form's
    of the word it is a form of: `LEMMAS`; digits left alone)."""
    if len(word) <= 2 or not word.isalpha():
        return word
    with _STEMMER_LOCK:  # a stemmer object is not safe to share between threads
        return _STEMMER.stemWord(LEMMAS.get(word, word))


# What an English word adds to its stem when it is one of that stem's usual forms
# (`protects`, `petite`, `overkill`, `hooks`): a typed word so formed, whose stem an index
# knows, is that word; one formed otherwise (`composion`: `compos` + `ion`, as in
# `composables`) is no evidence the word exists (set by hand; see `stem_form`).
INFLECTIONS = frozenset(("", "s", "es", "e", "ed", "d", "ing", "l", "ly", "y", "ies", "er", "ers"))


def stem_mark(root: str) -> str:
    """Letters every word of a stem holds (its first three, short of its last: `use` of
    `using`, `lazi` of `lazy`): a text without them has no word of that stem."""
    return root[: max(1, min(3, len(root) - 1))]


_NOT_WORD = re.compile(r"[\W_]+")


def holds_marks(text: str, marks: Iterable[str]) -> bool:
    """Whether a text, lower-cased and without separators (`Re-rendering` as `rerendering`,
    where `re-render` is one token too), holds every one of `marks` (see `stem_mark`)."""
    squashed = _NOT_WORD.sub("", text.lower())
    return all(mark in squashed for mark in marks)


def stem_form(word: str) -> bool:
    """Whether a lower-case word is its stem plus one of the usual `INFLECTIONS`: an index
    that knows the stem knows the word."""
    if word in LEMMAS:  # `shown`: a form of `show`
        return True
    root = stem(word)
    if root.endswith("i") and not word.startswith(root):  # `lengthy` -> `lengthi`
        root = root[:-1] + "y"
    return word.startswith(root) and word[len(root) :] in INFLECTIONS


def stemmer() -> Callable[[list[str]], list[str]]:
    """`stem` of many words at once, for one thread's use (builds): no cache, no lock, and
    the stemmer's own loop over the words it changes."""
    stem_words = make_stemmer().stemWords

    def stem_all(words: list[str]) -> list[str]:
        alpha = np.fromiter(map(str.isalpha, words), dtype=bool, count=len(words))
        length = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
        stemmed = alpha & (length > 2)  # what `stem` changes
        stems = np.array(words, dtype=object)
        plain = list(itertools.compress(words, stemmed))
        stems[stemmed] = stem_words(list(map(LEMMAS.get, plain, plain)))
        return stems.tolist()

    return stem_all
