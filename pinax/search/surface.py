"""A stem shared by unrelated words (`customer`, `custom`): where the title index has both
written forms, a page whose title or headings have the form typed comes before one found by
the stem alone.

Only words the index has as written, whose stem other written words with another base share
(`customer` beside `custom`, `customize`), are looked at; the candidates' titles and headings
are read for them (a few dozen pages, only for such queries; of each, only the texts the
index lists under one of the stems).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from pinax.search.tokens import LEMMAS, STOP_WORDS, stem, words

if TYPE_CHECKING:
    from pinax.search.collection import Collection
    from pinax.search.fusion import Candidate
    from pinax.search.vocabulary import Vocabulary

SAME_STEM_LOOKED = 200  # written words of one stem looked through, at most


PLAIN_FORMS = frozenset(("", "s", "es", "e", "ed", "d", "ing", "ies", "y"))


def base(word: str) -> str:
    """A word's family among those of its stem: "" for the stem's plain forms (`custom`,
    `customs`; `charge`, `charged`; `shown` of `show`), else the word without a plural's
    `s` (`customer` of `customers`, `customize`)."""
    root = stem(word)
    if root.endswith("i") and not word.startswith(root):
        root = root[:-1] + "y"
    if word in LEMMAS or (word.startswith(root) and word[len(root) :] in PLAIN_FORMS):
        return ""
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def ambiguous_words(vocabulary: Vocabulary, query: str) -> frozenset[str]:
    """The query's words (whole, no stop words) the index has as written whose stem some
    other written word with another base shares."""
    found = set()
    table = vocabulary.words
    for word, weight in words(query):
        if weight < 1.0 or word in STOP_WORDS or not word.isalpha() or len(word) < 4:
            continue
        root = stem(word)
        term = vocabulary.term(root)
        if term < 0 or not vocabulary.has_word(word):
            continue
        key = root.encode()
        low, high = table.searchsorted([key, key + b"\xff"]).tolist()
        high = min(high, low + SAME_STEM_LOOKED)
        mine = base(word)
        terms = vocabulary.word_term[low:high].tolist()
        others = zip(table[low:high].tolist(), terms, strict=True)
        if any(of == term and base(other.decode()) != mine for other, of in others):
            found.add(word)
    return frozenset(found)


@functools.lru_cache(maxsize=4096)  # titles and headings recur from query to query
def word_families(text: str) -> frozenset[tuple[str, str]]:
    """The (stem, family) of each word of a title or heading (see `base`)."""
    return frozenset((stem(word), base(word)) for word, _ in words(text))


def surface_first(
    found: list[Candidate], collection: Collection, typed: frozenset[str], share: float, look: int
) -> list[Candidate]:
    """One manifest's candidates (best first), those of the first `look` whose title and
    headings have a typed word's stem only in another family (`custom` for `customer`),
    not the typed one, scoring `share` of their score; ranked anew. Only the texts the index
    says have one of the stems are read (a page's few, of its tens of headings)."""
    wanted = {(stem(word), base(word)) for word in typed}
    stems = {root for root, _ in wanted}
    terms = [collection.index.vocabulary.term(root) for root in stems]
    # (a page found by a passage was found by its text, which keeps stems only: no say here)
    looked = [at for at, hit in enumerate(found[:look]) if hit.passage < 0]
    holding = collection.index.kernels.texts_with([found[at].doc for at in looked], terms)
    pages = collection.pages
    changed = False
    result = list(found)
    for at, numbers in zip(looked, holding, strict=True):
        hit = found[at]
        texts = [pages.title(hit.doc) if n < 0 else pages.heading_title(n) for n in numbers]
        families = {pair for text in texts for pair in word_families(text) if pair[0] in stems}
        if families and not wanted & families:
            result[at] = hit._replace(score=round(hit.score * share, 4))
            changed = True
    if not changed:
        return found
    ranked = sorted(result, key=lambda hit: (-hit.score, hit.rank))
    return [hit._replace(rank=rank) for rank, hit in enumerate(ranked)]
