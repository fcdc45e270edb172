"""Search over one manifest: BM25F from postings, with typo and partial-word rescue.

The arrays come from `pinax.search.indexing.build` (or from the on-disk store, memory-mapped):

- `terms` (sorted stems), `term_idf`, `term_max` (a term's highest posting weight);
- `post_start`/`post_doc`/`post_weight`: per term, its pages in page order with their final
  BM25F weights; `impact_start`/`impact_doc`: the pages of long terms in descending weight
  order, with `bound_start`/`impact_bound` the weight at every 256th place;
- `words`, `word_term`, `word_df`, `word_blob`, `delete_key`, `delete_word`: the vocabulary as
  written, for corrections (see `pinax.search.vocabulary`);
- `field_avg` (average field lengths), `title_key` (fingerprint of each title's content
  words) and `doc_depth` (URL depth below the base path).

The k best pages come from `pinax.search.topk` (exact, in proportion to the postings read).
Every query word is searched as typed. Beside a word the index does not know, a correction
(edit distance) or completions (prefix) may be added at a lower weight, or, when nothing else
of the query is found, known words containing it (substring); never for short words, words
with digits or one part of an identifier (see `_rescuable`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np

from pinax.search.content import ContentIndex
from pinax.search.indexing import (
    FIELD_B,
    FIELD_WEIGHTS,
    FIELDS,
    K1,
    content_key,
    depth_prior,
)
from pinax.search.kernels import Kernels
from pinax.search.postings import idf
from pinax.search.ranking import RANKING
from pinax.search.semantic import Vectors
from pinax.search.symbol_field import EXACT, SYMBOL, dotted_names, name_terms, symbol_text
from pinax.search.tokens import (
    MEMBER,
    PART_WEIGHT,
    STOP_WORDS,
    chunk_words,
    chunks,
    phrases,
    query_words,
    stem,
    stem_form,
    typed_as_code,
    words,
    written_as_names,
)
from pinax.search.topk import TopK
from pinax.search.vocabulary import Vocabulary

# The query-time rules of the title index (see `pinax.search.ranking`, where each is measured).
PHRASE_WEIGHT = RANKING.phrase_weight
CORRECTION_WEIGHT = RANKING.correction_weight
SUBSTRING_WEIGHT = RANKING.substring_weight
SYMBOL_WORD_SHARE = RANKING.symbol_word_share
NAME_WEIGHT = RANKING.name_weight
EXACT_TITLE_BOOST = RANKING.exact_title_boost
COMPLETIONS = 3  # known words a partial word may stand for
MAX_LITERAL = 3  # words this short are searched as typed only (`str`, `iso`, `non`)
BOOST_POOL = 10  # extra candidates ranked before the boosts are applied
HEADING_COVER = 0.5  # a hit names a heading that covers at least this share of the query
# What a page scores per query word that appears once in its title and once in its slug
# (both of average length), relative to the word's IDF: 2 * (K1 + 1) / (K1 + 2).
WHOLE_QUERY = 2 * (K1 + 1) / (K1 + 2)


class Term(NamedTuple):
    """One index term a query looks up, and how it came from the query."""

    term: int
    weight: float
    word: str  # the query word (lower-case, as typed)
    text: str  # the index term (a stem)
    match: str  # "exact", "phrase", "fuzzy", "prefix" or "substring"
    matched_word: str | None = None  # the known word a typo was corrected or completed to


@dataclass
class Plan:
    """What a query looks up in one index."""

    terms: list[Term] = field(default_factory=list)
    reference: float = 0.0  # the raw score of a page that covers the whole query once
    # What the reference is made of: (a query word's weight, the stem it counts by, known
    # here or not), so that a pooled reference can be made with other IDFs.
    counted: list[tuple[float, str]] = field(default_factory=list)
    # A typed word the index lacks -> the known words added beside it (corrections,
    # completions, words containing it).
    also_matched: dict[str, list[str]] = field(default_factory=dict)
    title_key: int = 0
    whole: frozenset[str] = frozenset()  # query words typed whole (not parts of a name)

    @property
    def strategy(self) -> str:
        matches = {t.match for t in self.terms}
        if "substring" in matches:
            return "substring"
        return "fuzzy" if matches & {"fuzzy", "prefix"} else "bm25"


@dataclass(slots=True)
class Ranked:
    """One index's results, best first: page numbers, 0..1 scores (comparable across
    indexes) and, when asked for, where each score comes from."""

    pages: list[int]
    scores: list[float]
    explain: list[dict[str, Any]] | None = None


HIGH_SCORE, HIGH_MARGIN = RANKING.high_score, RANKING.high_margin
MEDIUM_SCORE = RANKING.medium_score


def confidence(score: float, margin: float) -> str:
    """A hit's label from its score and its lead over the next hit (`margin`): a strong hit
    that others match as well is a choice among equals, not a sure answer (measured on the
    DEV sets with every manifest loaded: see bench/eval_sections.py)."""
    if score >= HIGH_SCORE and margin >= HIGH_MARGIN:
        return "high"
    return "medium" if score >= MEDIUM_SCORE else "low"


def known_words(query: str, indexes: Sequence[SearchIndex]) -> frozenset[str]:
    """The query's words that one of `indexes` knows: a word one manifest knows is not a typo,
    so no other manifest corrects it."""
    written = {w for chunk in chunks(query) for w, _ in chunk_words(chunk)}
    return frozenset(w for w in written if any(index.knows(w) for index in indexes))


def text_words(query: str, contents: Sequence[ContentIndex]) -> frozenset[str]:
    """The query's words that some page text uses (see `ContentIndex.knows`): known words,
    never corrected into others ("protect" is not "project" where the text says protect)."""
    if not contents:
        return frozenset()
    written = {w for chunk in chunks(query) for w, _ in chunk_words(chunk)}
    return frozenset(w for w in written if any(c.knows(w) for c in contents))


def pooled(
    plans: Sequence[Plan], indexes: Sequence[SearchIndex], names: Sequence[str] = ()
) -> list[Plan]:
    """The plans of one query over several indexes, re-weighted as if the indexes were one:
    each term's IDF is its IDF over all their pages, so that a word distinctive of one
    library and common in another weighs as it would in the whole, and every page's 0..1
    score is measured against the same reference (a word one index lacks counts there by its
    frequency over all of them too, not as a word nobody has). A library's own name typed
    (`django`, with the indexes' `names`) says which library is meant, not which of its pages:
    there it weighs no more than its own IDF, as when searched alone, while the other
    libraries count it by its pooled IDF."""
    size = sum(index.size for index in indexes)
    texts = {t.text for plan in plans for t in plan.terms} | {
        text for plan in plans for _, text in plan.counted
    }
    counts = [{text: index.frequency(text) for text in texts} for index in indexes]
    pooled_idf = {text: float(idf(sum(c[text] for c in counts), size)) for text in texts}
    result = []
    for at, (plan, index, count) in enumerate(zip(plans, indexes, counts, strict=True)):
        weights = pooled_idf
        own = stem(names[at].lower()) if at < len(names) and names[at].isalnum() else None
        if own is not None and count.get(own):
            weights = {**pooled_idf, own: min(pooled_idf[own], float(idf(count[own], index.size)))}
        terms = [
            t._replace(weight=t.weight * weights[t.text] / index._term_idf.item(t.term))
            for t in plan.terms
        ]
        reference = WHOLE_QUERY * sum(weight * weights[text] for weight, text in plan.counted)
        result.append(replace(plan, terms=terms, reference=reference))
    return result


def _rescuable(word: str, weight: float) -> bool:
    """Whether a word the index lacks may have a correction or completion added beside it:
    not one part of an identifier (`json` of `json.dumps`: the whole name is what was
    meant), not three letters or fewer (`str`, `iso`), no digits (`8601`, `k8s`)."""
    return weight >= 1.0 and len(word) > MAX_LITERAL and word.isalpha()


class SearchIndex:
    """BM25F search over one manifest's pages.

    `fields_of(doc)` gives a page's field texts in `FIELDS` order; it is only called to
    explain a hit.
    """

    def __init__(
        self,
        arrays: dict[str, np.ndarray],
        fields_of: Callable[[int], Sequence[str]] | None = None,
    ) -> None:
        self.size = len(arrays["doc_depth"])
        self.vocabulary = Vocabulary(arrays)
        self._fields_of = fields_of
        self._term_idf = arrays["term_idf"]
        self._title_key = memoryview(arrays["title_key"])  # read an item at a time
        self._field_avg = arrays["field_avg"]
        self._depth = arrays["doc_depth"]
        self._symbols = len(arrays["term_symbol"]) > 0  # else no `§word` or `=Name` term either
        self._headings = len(arrays["heading_title_id"]) > 0  # else no heading to name
        self._unknown_idf = float(idf(0.0, self.size)) if self.size else 1.0
        # Title and heading vectors, when the index was built with the embedding model.
        self.vectors = Vectors(arrays) if Vectors.present(arrays) else None
        self.kernels = Kernels(arrays)  # (surface.py reads which texts have a stem)
        self._topk = TopK(arrays, self.kernels)

    def frequency(self, text: str) -> int:
        """How many pages have a term (a stem or phrase; 0 if the index lacks it)."""
        term = self.vocabulary.term(text)
        return self._topk.df(term) if term >= 0 else 0

    def knows(self, word: str) -> bool:
        """Whether a query word (lower-case, as typed) is in the vocabulary: a symbol's word,
        or a stem the word is written as or is a usual form of (see `_stem_only`)."""
        term, symbol = self.vocabulary.term_ids([stem(word), SYMBOL + word])
        if symbol >= 0:
            return True
        return term >= 0 and (stem_form(word) or self.vocabulary.has_word(word))

    # -- planning ------------------------------------------------------------------------------

    def plan(self, query: str, trusted: frozenset[str] = frozenset()) -> Plan:
        """The terms a query looks up. Every word is searched as typed; a word the index
        lacks counts in the reference as unknown, and a correction or completion of it may
        be added beside it, at a lower weight (never for `trusted` words, known elsewhere:
        not typos, just absent here; see `_rescuable` for which words may be rescued)."""
        weights: dict[str, float] = {}
        parts_of: dict[str, list[str]] = {}
        coded: set[str] = set()  # words of chunks written as code: their symbols count fully
        for chunk in chunks(query):
            tokens = query_words(chunk)
            for word, weight in tokens:  # a part twice in one name counts as a whole word
                part = sum(x for w, x in tokens if w == word) if weight < 1.0 else weight
                weights[word] = max(min(part, 1.0), weights.get(word, 0.0))
            if len(tokens) > 1:
                parts_of[tokens[-1][0]] = [w for w, _ in tokens[:-1]]
            if len(tokens) > 1 or typed_as_code(chunk):
                coded.update(w for w, _ in tokens)
        content = {w: x for w, x in weights.items() if w not in STOP_WORDS}
        if content:  # stop words are searched only in a query of nothing else
            weights = content
        names = written_as_names(query)
        coded |= names
        stems = [stem(w) for w in weights]
        full = [s for s, x in zip(stems, weights.values(), strict=True) if x >= 1.0]
        full = [s for s in full if s not in STOP_WORDS]
        pairs = phrases(full)
        named = [SYMBOL + w for w in weights] if self._symbols else []
        ids = self.vocabulary.term_ids(stems + named + pairs)
        symbol_ids = ids[len(stems) : len(stems) + len(named)] or [-1] * len(stems)
        whole = frozenset(w for w, x in weights.items() if x >= 1.0)
        dotted = dotted_names(query)
        plan = Plan(title_key=content_key(full), whole=whole | frozenset(dotted))
        plain = []  # plain words nothing was added for: looked for inside known words
        for (word, weight), text, term, symbol in zip(
            weights.items(), stems, ids, symbol_ids, strict=False
        ):
            if term >= 0:
                self._add(plan, Term(term, weight, word, text, "exact"), weight)
                if symbol >= 0:  # beside the word: as much as a name typed as code, else less
                    share = weight * (1.0 if word in coded else SYMBOL_WORD_SHARE)
                    plan.terms.append(Term(symbol, share, word, SYMBOL + word, "exact"))
                elif self._stem_only(word, weight, trusted):
                    self._correct_beside(plan, word, weight, text)
                continue
            if symbol >= 0:  # a word only symbols have: found as typed
                self._add(plan, Term(symbol, weight, word, SYMBOL + word, "exact"), weight)
                continue
            self._count(plan, weight, text, self._unknown_idf)  # as typed: a word unknown here
            if word in trusted or not _rescuable(word, weight):
                continue
            parts = parts_of.get(word)
            rescued = self._rescue(plan, word, weight, parts, word in names)
            if not rescued and parts is None and word not in names:
                plain.append((word, weight))
        for word, weight in plain:
            # Substrings of known words, only when nothing else of the query was found.
            inside = [] if plan.terms else self.vocabulary.containing(word, COMPLETIONS)
            for found in inside:
                self._add_word(plan, word, found, weight * SUBSTRING_WEIGHT, "substring")
        for pair, term in zip(pairs, ids[len(stems) + len(named) :], strict=True):
            if term >= 0:  # a bonus: not part of the reference
                plan.terms.append(Term(term, PHRASE_WEIGHT, pair, pair, "phrase"))
        if dotted:
            self._names(plan, dotted)
        if self._symbols:
            self._exact_names(plan, query)
        return plan

    def _exact_names(self, plan: Plan, query: str) -> None:
        """A name typed with its case and underscores (`run_streamed`, `MessagePump`,
        `DISABLED`) is also looked up as a symbol's last part exactly so written: a bonus
        beside its words (not in the reference), full for a name typed as code, a quarter
        for a plain word, as in the symbol field. A stop word is looked up only when typed
        as code (`.a`, `a()`, `A_B`): "what is a session" names no attribute `a`."""
        names = written_as_names(query)
        typed = [
            c
            for c in dict.fromkeys(chunks(query))
            if "." not in c
            and (c.lower() not in STOP_WORDS or typed_as_code(c) or c.lower() in names)
        ]
        if "." in query:  # `.a`: a stop word typed as a member's name
            typed += [m for m in MEMBER.findall(query) if m not in typed]
        for chunk, term in zip(
            typed, self.vocabulary.term_ids([EXACT + c for c in typed]), strict=True
        ):
            if term >= 0:
                coded = typed_as_code(chunk) or chunk.lower() in names
                share = NAME_WEIGHT if coded else NAME_WEIGHT * SYMBOL_WORD_SHARE
                word = chunk_words(chunk)[-1][0] if chunk_words(chunk) else chunk.lower()
                plan.terms.append(Term(term, share, word, EXACT + chunk, "exact"))

    def _stem_only(self, word: str, weight: float, trusted: frozenset[str]) -> bool:
        """Whether the index knows a typed word only as the stem of other words (`composion`
        by `compos` of `composables`): not written so anywhere, nor one of its stem's usual
        forms, nor known elsewhere (`trusted`): no evidence that the word exists."""
        return (
            word not in trusted
            and _rescuable(word, weight)
            and not stem_form(word)
            and not self.vocabulary.has_word(word)
        )

    def _correct_beside(self, plan: Plan, word: str, weight: float, text: str) -> None:
        """A correction of a word known only by its stem, beside the stem's match."""
        corrected = self.vocabulary.correct(word)
        if corrected is None:
            return
        found = self.vocabulary.word_text(corrected)  # (a longer word holding it: a real part)
        if stem(found) != text and word not in found:
            self._add_word(plan, word, corrected, weight * CORRECTION_WEIGHT, "fuzzy")

    def _names(self, plan: Plan, names: list[str]) -> None:
        """A dotted name typed (`json.dumps`, `Agent.run()`) is also looked up whole, as a
        symbol's name (see `indexing.name_terms`); it counts in the reference wherever it is
        (by its own frequency, so that pooled indexes weigh it alike)."""
        for name, term in zip(names, self.vocabulary.term_ids(names), strict=True):
            if term >= 0:
                self._add(plan, Term(term, NAME_WEIGHT, name, name, "exact"), NAME_WEIGHT)
            else:
                self._count(plan, NAME_WEIGHT, name, self._unknown_idf)

    def _rescue(
        self, plan: Plan, word: str, weight: float, parts: list[str] | None, named: bool
    ) -> bool:
        """Add beside a word the index lacks its correction (edit distance), else its
        completions (prefix), from title, heading and symbol words. A whole identifier
        (`parts`: it was written in several) is never read as one of its own parts; a
        word written as a code name (`named`: `__init__`, `dumps()`) is not completed."""
        vocabulary = self.vocabulary
        corrected = vocabulary.correct(word)
        if corrected is not None and vocabulary.word_text(corrected) not in (parts or ()):
            self._add_word(plan, word, corrected, weight * CORRECTION_WEIGHT, "fuzzy")
            return True
        if named:
            return False
        completions = vocabulary.complete(word, COMPLETIONS)
        for rank, found in enumerate(completions):
            share = CORRECTION_WEIGHT if rank == 0 else CORRECTION_WEIGHT / 2
            self._add_word(plan, word, found, weight * share, "prefix")
        return bool(completions)

    def _add_word(self, plan: Plan, word: str, found: int, weight: float, match: str) -> None:
        """A known word added beside a typed one; the typed word alone is in the reference."""
        vocabulary = self.vocabulary
        term = int(vocabulary.word_term[found])
        known = vocabulary.word_text(found)
        added = plan.also_matched.setdefault(word, [])
        if known not in added:
            added.append(known)
        plan.terms.append(Term(term, weight, word, vocabulary.term_text(term), match, known))
        symbol = vocabulary.term(SYMBOL + known)
        if symbol >= 0 and symbol != term:  # the known word as a name, too
            plan.terms.append(Term(symbol, weight, word, SYMBOL + known, match, known))

    def _add(self, plan: Plan, term: Term, counted: float) -> None:
        plan.terms.append(term)
        if counted:
            self._count(plan, counted, term.text, self._term_idf.item(term.term))

    @staticmethod
    def _count(plan: Plan, weight: float, text: str, term_idf: float) -> None:
        """A query word in the reference (what a page covering the query once scores), and
        what it was made of (for `pooled`): its weight, and the stem it counts by (also for
        a word this index lacks: another may have it)."""
        plan.reference += weight * term_idf * WHOLE_QUERY
        plan.counted.append((weight, text))

    # -- searching -----------------------------------------------------------------------------

    def run(self, plan: Plan, limit: int, explain: bool = False, depth: int = 0) -> Ranked:
        """The best `limit` pages for a plan, best first (ties in manifest order); a title
        that is the query boosts its page from as deep as the best `max(limit, depth)` (and
        `BOOST_POOL` more)."""
        if not plan.terms or plan.reference <= 0:
            return Ranked([], [])
        found, raw = self.top(plan.terms, max(limit, depth) + BOOST_POOL)  # best first
        docs, scores = found, raw
        key = plan.title_key
        if key and key in map(self._title_key.__getitem__, found):
            # A title that is the query boosts its page: ranked anew (ties in manifest order;
            # a few dozen candidates, which plain Python ranks faster than numpy).
            ranked = sorted(
                (-score * (EXACT_TITLE_BOOST if self._title_key[doc] == key else 1.0), doc)
                for score, doc in zip(raw, found, strict=True)
            )
            docs, scores = [doc for _, doc in ranked], [-score for score, _ in ranked]
        # 0..1 by coverage of the query: 0.9 for a page that has every query word once in
        # its title and slug (raw = reference), approaching 1 for stronger matches.
        scale = -RANKING.calibration / plan.reference
        result = Ranked(
            docs[:limit], [round(1.0 - math.exp(score * scale), 4) for score in scores[:limit]]
        )
        if explain:
            unboosted = dict(zip(found, raw, strict=True))
            result.explain = [
                self.explain(doc, plan, unboosted[doc], score / unboosted[doc])
                for doc, score in zip(docs[:limit], scores[:limit], strict=True)
            ]
        return result

    def candidates(self, plan: Plan, count: int) -> tuple[list[int], list[float]]:
        """The best `count` pages for a plan and their raw scores, best first (ties in page
        order): what a re-ranker starts from, before any result is made."""
        if not plan.terms or plan.reference <= 0:
            return [], []
        return self.top(plan.terms, count)

    def best_headings(self, docs: list[int], plan: Plan) -> list[int]:
        """For each page, the heading that answers the part of the query its title does not:
        the heading covering most of that part (words weighted by IDF), if it covers at
        least half of it; else -1 (also when the title covers the whole query). Ties: the
        first heading of the page. Each heading's text is looked up in the few texts that
        have each query term (see `kernels.Kernels.best_headings`)."""
        weights = self._content_weights(plan) if self._headings else None
        if not weights:
            return [-1] * len(docs)
        return self.kernels.best_headings(docs, weights, HEADING_COVER)

    def best_symbols(self, docs: list[int], plan: Plan) -> list[int]:
        """For each page, the symbol (its number over all pages) whose name answers the
        query: one whose words cover every whole word of the query that the page's title
        lacks (all of them if it lacks none; a dotted name typed always counts), the one
        covering most of the query (words weighted by IDF) among those; else -1. Ties: the
        most specific name (fewest words), then the first. The page's names that have each
        query term are found by binary search in the term's names (see
        `kernels.Kernels.best_symbols`)."""
        if not self._symbols:
            return [-1] * len(docs)
        words = _QueryWords(plan, self._term_idf)
        if not words.by_symbol_term:
            return [-1] * len(docs)
        return self.kernels.best_symbols(
            docs, words.by_symbol_term, words.weight, words.whole, words.regular, PART_WEIGHT
        )

    def _content_weights(self, plan: Plan, symbols: bool = False) -> dict[int, float]:
        """The plan's terms (no phrases) weighted by their IDF: what a place covers; with
        `symbols`, only the terms of the symbol field (`§word`, dotted names)."""
        weights: dict[int, float] = {}
        for t in plan.terms:
            if symbols and not (t.text.startswith((SYMBOL, EXACT)) or "." in t.text):
                continue
            if t.match != "phrase":
                weights[t.term] = weights.get(t.term, 0.0) + t.weight * self._term_idf.item(t.term)
        return weights

    def top(self, terms: Sequence[Term], k: int) -> tuple[list[int], list[float]]:
        """Up to k best pages for weighted terms and their raw scores, best first (ties: the
        lower page number first; see `TopK.top`)."""
        return self._topk.top(terms, k)

    def postings(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        """A term's pages (in page order) and their weights."""
        return self._topk.postings(term)

    # -- explaining ----------------------------------------------------------------------------

    def explain(self, doc: int, plan: Plan, raw: float, boost: float) -> dict[str, Any]:
        """Where a hit's score comes from: per query term, its contribution and how that
        splits over the page's fields; the boosts; and the reference that maps it to 0..1."""
        texts = list(self._fields_of(doc)) if self._fields_of else []
        fields = [
            _symbol_counts(text) if FIELDS[f] == "symbol" else _term_counts(text)
            for f, text in enumerate(texts)
        ]
        averages = self._field_avg
        norms = [
            (1 - FIELD_B[f]) + FIELD_B[f] * length / averages[f]
            for f, (_, length) in enumerate(fields)
        ]
        terms = []
        for t in plan.terms:
            docs, values = self.postings(t.term)
            at = int(np.searchsorted(docs, doc))
            value = float(values[at]) * t.weight if at < len(docs) and docs[at] == doc else 0.0
            entry: dict[str, Any] = {
                "word": t.word,
                "term": t.text,
                "match": t.match,
                "weight": round(t.weight, 3),
                "score": round(value, 4),
            }
            if t.matched_word:
                entry["matched_word"] = t.matched_word
            # BM25F: each field adds its weight x frequency / length norm to the saturated sum.
            shares = [
                FIELD_WEIGHTS[f] * counts.get(t.text, 0.0) / norms[f]
                for f, (counts, _) in enumerate(fields)
            ]
            if t.match == "phrase":
                shares = [1.0 if field == "phrase" else 0.0 for field in FIELDS]
            if value and sum(shares):
                entry["fields"] = {
                    FIELDS[f]: round(value * share / sum(shares), 4)
                    for f, share in enumerate(shares)
                    if share
                }
            terms.append(entry)
        depth = float(depth_prior(self._depth[doc : doc + 1])[0])
        return {
            "terms": terms,
            "bm25f": round(raw, 4),  # the sum of the terms' scores (depth included)
            "boosts": {"depth": round(depth, 4), "exact_title": round(boost, 4)},
            "reference": round(plan.reference, 4),
        }


class _QueryWords:
    """A plan's query words as bits 0..61 (more are not asked for by name): each word's
    weight (IDF-weighted), which are whole words (not parts of a name), the regular terms
    each has (to tell the title's words), and which symbol-field terms stand for which word
    (`§word`, dotted names)."""

    def __init__(self, plan: Plan, term_idf: np.ndarray) -> None:
        bits: dict[str, int] = {}
        self.weight: list[float] = []
        self.whole = 0  # a bit mask
        self.regular: list[tuple[int, int]] = []  # (bit, term)
        self.by_symbol_term: dict[int, int] = {}  # term -> bit
        for t in plan.terms:
            if t.match == "phrase":
                continue
            # A name typed exactly (`=show_facets`) is a bit of its own, never required: the
            # name whose last part is so written covers more than one only alike in its words
            # (`ShowFacets`), so the hit names the one typed.
            key = t.text if t.text.startswith(EXACT) else t.word
            if key not in bits:
                if len(bits) >= 62:
                    continue
                bits[key] = len(bits)
                self.weight.append(0.0)
            bit = bits[key]
            self.weight[bit] = max(self.weight[bit], t.weight * term_idf.item(t.term))
            if key in plan.whole:
                self.whole |= 1 << bit
            if t.text.startswith((SYMBOL, EXACT)) or "." in t.text:
                self.by_symbol_term.setdefault(t.term, bit)
            elif (bit, t.term) not in self.regular:
                self.regular.append((bit, t.term))


def _symbol_counts(names: str) -> tuple[dict[str, float], float]:
    """`_term_counts` of the symbol field, from its names (space-separated), as indexing
    files them: each word of a name's suffixes once a page, unstemmed, and its dotted
    names."""
    counts: dict[str, float] = {}
    for name in names.split():
        for word, weight in words(symbol_text(name)):
            counts[SYMBOL + word] = max(weight, counts.get(SYMBOL + word, 0.0))
        for term in [*name_terms(name), EXACT + name.rsplit(".", 1)[-1]]:
            counts[term] = 1.0
    return counts, sum(counts.values())


def _term_counts(text: str) -> tuple[dict[str, float], float]:
    """How often each term occurs in a field's text (parts at half weight), and the field's
    length as the index counts it (stop words left out)."""
    counts: dict[str, float] = {}
    length = 0.0
    for word, weight in words(text):
        key = stem(word)
        counts[key] = counts.get(key, 0.0) + weight
        if word not in STOP_WORDS:
            length += weight
    return counts, length
