# cython: language_level=3, boundscheck=True, wraparound=False, initializedcheck=False
"""The search's innermost loops, compiled: a query's top k over its terms' postings, the
heading and the symbol each hit names, and the known words a typo may stand for.

Each of these loops touches a few hundred to a few thousand numbers. Written with numpy, a
query paid one to three microseconds for each of some sixty array calls, most of its time;
here each loop is one call. Everything read comes from an index file that may be tampered
with (the cache folder is untrusted), so every index is bounds-checked: a bad number is an
`IndexError`, never a read out of bounds, and the work arrays are left clean either way.

`pinax.search.index` is the only user; the arrays are those `pinax.search.indexing` builds.
Rebuilt by `pip install -e .` (tests/test_kernels.py says when the build is older than this
file).
"""

import numpy as np

cimport cython
from cpython cimport array
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport qsort


# Templates of small work arrays: `array.clone` makes one in a tenth of numpy's time.
cdef array.array INT64 = array.array("q"), DOUBLE = array.array("d")
cdef array.array BYTE = array.array("B"), UINT64 = array.array("Q"), INT32 = array.array("i")
cdef array.array FLOAT = array.array("f")


cdef class Offsets:
    """A CSR offsets array as the store keeps it: uint32 where every offset fits, else
    int64 (see `pagetable.narrow`)."""

    cdef const uint32_t[::1] narrow
    cdef const int64_t[::1] wide
    cdef bint is_wide
    cdef readonly Py_ssize_t length

    def __init__(self, array):
        self.is_wide = array.dtype == np.int64
        if self.is_wide:
            self.wide = array
        else:
            self.narrow = np.asarray(array, dtype=np.uint32)
        self.length = len(array)

    cdef inline int64_t at(self, Py_ssize_t i) except -1:
        if i < 0 or i >= self.length:
            raise IndexError(f"offset {i} outside 0..{self.length - 1}")
        return self.wide[i] if self.is_wide else self.narrow[i]


cdef class Kernels:
    """The loops of one index, over views of its arrays (made once: a view costs a little
    each time it is taken)."""

    cdef Offsets post_start
    cdef const int32_t[::1] post_doc
    cdef const float[::1] post_weight
    cdef int64_t postings  # of both arrays
    cdef const float[::1] term_max
    cdef Offsets heading_start
    cdef const int32_t[::1] heading_text
    cdef Offsets term_text_start
    cdef const int32_t[::1] term_text
    cdef Offsets title_term_start
    cdef const int32_t[::1] title_term
    cdef Offsets symbol_start
    cdef Offsets term_symbol_start
    cdef const int32_t[::1] term_symbol
    cdef const uint8_t[::1] term_symbol_part
    cdef const uint16_t[::1] symbol_size

    def __init__(self, arrays):
        self.post_start = Offsets(arrays["post_start"])
        self.post_doc = arrays["post_doc"]
        self.post_weight = arrays["post_weight"]
        self.postings = min(self.post_doc.shape[0], self.post_weight.shape[0])
        self.term_max = arrays["term_max"]
        self.heading_start = Offsets(arrays["outline_start"])
        self.heading_text = arrays["heading_title_id"]
        self.term_text_start = Offsets(arrays["term_text_start"])
        self.term_text = arrays["term_text"]
        self.title_term_start = Offsets(arrays["title_term_start"])
        self.title_term = arrays["title_term"]
        self.symbol_start = Offsets(arrays["symbol_start"])
        self.term_symbol_start = Offsets(arrays["term_symbol_start"])
        self.term_symbol = arrays["term_symbol"]
        self.term_symbol_part = arrays["term_symbol_part"].view(np.uint8)
        self.symbol_size = arrays["symbol_size"]

    def top(self, dict weights, Py_ssize_t k, float[::1] scores, uint8_t[::1] seen,
            int32_t[::1] touched):
        """The k best pages for weighted terms (`{term: weight}`) and their raw scores, best
        first (ties: the lower page number first), as two lists; exact.

        Terms are added up strongest first (by the most a term can give a page), each in
        `scores` (float32), the pages reached listed in `touched` and marked in `seen`: all
        three page-sized work arrays (`touched` one place more), left as they came (zero) on
        return. Once the terms left could not lift a page nobody reached into the k best (the
        weak, common ones of a long query), they are only looked up, by galloping search, for
        the pages that can still get there."""
        cdef Py_ssize_t count = len(weights), i
        cdef size_t pages = scores.shape[0]
        cdef double bar, total
        if seen.shape[0] < pages or touched.shape[0] <= pages:
            raise ValueError("the work arrays are smaller than the scores (and one more place)")
        if k <= 0 or not count:
            return [], []
        cdef _Terms terms = self._terms(weights, k)
        total = terms.left[0]
        try:
            for i in range(count):
                # A page nobody reached scores at most what the terms left can give; the
                # k-th best so far is at most what the terms added can. (Worth a look only
                # when much is left to read.)
                if (i and terms.reached >= k and terms.left[i] < total - terms.left[i]
                        and terms.unread[i] > max(FEW, 2 * terms.reached)):
                    bar = _kth(scores, touched, terms.reached, k)
                    if terms.left[i] * SLACK < bar:
                        self._look_up(terms, i, scores, touched, bar)
                        break
                self._add(terms, terms.order[i], scores, seen, touched)
            return _best(scores, touched, terms.reached, k)
        finally:
            with cython.boundscheck(False):  # the pages listed were checked
                for i in range(terms.reached):
                    scores[touched[i]] = 0.0
                    seen[touched[i]] = 0

    cdef _Terms _terms(self, dict weights, Py_ssize_t k):
        """The query's terms: where their postings are, their factors, and the most each can
        add to a page; strongest first."""
        cdef Py_ssize_t count = len(weights), i, j, at
        cdef _Terms terms = _Terms(count, k)
        for i, (term, weight) in enumerate(weights.items()):
            terms.first[i] = self.post_start.at(term)
            terms.last[i] = self.post_start.at(term + 1)
            if terms.first[i] < 0 or terms.last[i] < terms.first[i] or terms.last[i] > self.postings:
                raise IndexError(
                    f"postings {terms.first[i]}..{terms.last[i]} outside 0..{self.postings}"
                )
            terms.factor[i] = <float>weight
            terms.most[i] = <double>(self.term_max[term] * terms.factor[i])
            at = i  # insertion sort: strongest first, ties in the query's order
            while at and terms.most[terms.order[at - 1]] < terms.most[i]:
                terms.order[at] = terms.order[at - 1]
                at -= 1
            terms.order[at] = i
        terms.left[count] = 0.0
        terms.unread[count] = 0
        for j in range(count - 1, -1, -1):
            terms.left[j] = terms.left[j + 1] + terms.most[terms.order[j]]
            terms.unread[j] = terms.unread[j + 1] + terms.last[terms.order[j]] - terms.first[terms.order[j]]
        return terms

    @cython.boundscheck(False)  # places checked against the postings, pages against `pages`
    cdef int _add(self, _Terms terms, Py_ssize_t i, float[::1] scores, uint8_t[::1] seen,
                  int32_t[::1] touched) except -1:
        """Every posting of term `i` added up, each page reached listed once (counted in
        `terms.reached` as it goes: a bad page stops the loop with the work arrays' state
        known)."""
        cdef Py_ssize_t reached = terms.reached
        cdef int64_t p
        cdef int32_t doc
        cdef size_t pages = scores.shape[0]
        cdef float factor = terms.factor[i]
        for p in range(terms.first[i], terms.last[i]):
            doc = self.post_doc[p]
            if <size_t>doc >= pages:
                terms.reached = reached
                raise IndexError(f"page {doc} outside 0..{pages - 1}")
            # Listed, and counted only if new: no branch on the mark, which is as likely
            # set as not for a query's later terms (`touched` has a place past the pages).
            touched[reached] = doc
            reached += 1 - seen[doc]
            seen[doc] = 1
            scores[doc] += self.post_weight[p] * factor
        terms.reached = reached
        return 0

    cdef int _look_up(self, _Terms terms, Py_ssize_t next_term, float[::1] scores,
                      int32_t[::1] touched, double bar) except -1:
        """Terms `next_term` onwards (in strength order) added to the pages that can still
        reach `bar` (the k-th best so far), found in each term's postings by galloping
        search: the others are out of the k best whatever they have. After each term the
        bar rises to the k-th best again, and the pages that can no longer reach it are
        dropped."""
        cdef Py_ssize_t i, j, kept, k = terms.k
        cdef int64_t p, end
        cdef int32_t doc
        cdef Py_ssize_t term
        cdef int32_t[::1] able = array.clone(INT32, terms.reached, False)
        able[:] = touched[: terms.reached]
        kept = _able(scores, able, terms.reached, terms.left[next_term], bar)
        if kept:  # in page order, as the postings are
            qsort(&able[0], kept, sizeof(int32_t), _ascending)
        for i in range(next_term, terms.count):
            term = terms.order[i]
            p = terms.first[term]
            end = terms.last[term]
            for j in range(kept):
                doc = able[j]
                p = _gallop(self.post_doc, p, end, doc)
                if p < end and self.post_doc[p] == doc:
                    scores[doc] += self.post_weight[p] * terms.factor[term]
            if i + 1 < terms.count:  # (the k best have always reached the bar: kept >= k)
                bar = _kth(scores, able, kept, k)
                kept = _able(scores, able, kept, terms.left[i + 1], bar)
        return 0

    def best_headings(self, list docs, dict weights, double cover):
        """For each page, the heading that answers what its title does not: the one whose
        text has the largest weight of the query terms (`{term: weight}`) missing from the
        title, if that is at least `cover` of their total weight; the first of equals; -1
        where none does (also when the title has every term)."""
        cdef Py_ssize_t count = len(weights), j, at
        cdef int64_t h, first, last, title_first, title_last
        cdef int32_t text
        cdef double total, score, most
        cdef int64_t[::1] terms = array.clone(INT64, count, False)
        cdef double[::1] values = array.clone(DOUBLE, count, False)
        cdef uint8_t[::1] titled = array.clone(BYTE, count, True)
        for j, (term, value) in enumerate(weights.items()):
            terms[j] = term
            values[j] = value
        best = [-1] * len(docs)
        for at in range(len(docs)):
            doc = docs[at]
            first = self.heading_start.at(doc)
            last = self.heading_start.at(doc + 1)
            if first == last:
                continue
            title_first = self.title_term_start.at(doc)
            title_last = self.title_term_start.at(doc + 1)
            total = 0.0
            for j in range(count):
                titled[j] = _holds(self.title_term, title_first, title_last, terms[j])
                if not titled[j]:
                    total += values[j]
            if total == 0.0:
                continue
            most = 0.0
            for h in range(first, last):
                text = self.heading_text[h]
                score = 0.0
                for j in range(count):
                    if not titled[j] and self._has_text(terms[j], text):
                        score += values[j]
                if score > most and score >= cover * total:
                    best[at] = h
                    most = score
        return best

    def best_symbols(self, list docs, dict terms, list weights, uint64_t whole, list regular,
                     double part_weight):
        """For each page, the symbol whose name answers the query, or -1 (see
        `SearchIndex.best_symbols` for the rule). The query's words are bits: `terms` maps
        each symbol-field term to its word's bit (0..61), `weights[bit]` is the word's
        weight, `whole` has the bits of words typed whole (0: all count), and `regular`
        lists (bit, term) for the word's plain terms, which the page's title may have. A
        name's word found as a part of it counts `part_weight` of the word."""
        cdef Py_ssize_t count = len(weights), at, b, i, reached, widest = 0
        cdef int64_t first, last, low, high, p, title_first, title_last
        cdef uint64_t every = (<uint64_t>1 << count) - 1, found, need, required, mask
        cdef int32_t s, best
        cdef double score, most
        cdef double[::1] weight = array.array("d", weights)
        cdef int64_t[::1] term_of = array.array("q", terms)
        cdef int64_t[::1] bit_of = array.array("q", terms.values())
        cdef int64_t[::1] regular_bit = array.array("q", [b for b, _ in regular])
        cdef int64_t[::1] regular_term = array.array("q", [t for _, t in regular])
        if not 0 < count <= 62:
            raise ValueError(f"{count} query words: 1 to 62 are named by bits")
        if whole == 0:
            whole = every
        result = [-1] * len(docs)
        for at in range(len(docs)):
            widest = max(widest, self.symbol_start.at(docs[at] + 1) - self.symbol_start.at(docs[at]))
        if widest == 0:
            return result
        # Per symbol of one page: the words its name has whole, as parts; which were reached.
        cdef uint64_t[::1] whole_words = array.clone(UINT64, widest, True)
        cdef uint64_t[::1] part_words = array.clone(UINT64, widest, True)
        cdef int32_t[::1] touched = array.clone(INT32, widest, False)
        for at in range(len(docs)):
            first = self.symbol_start.at(docs[at])
            last = self.symbol_start.at(docs[at] + 1)
            if first == last:
                continue
            found = 0
            reached = 0
            for i in range(len(term_of)):
                low = _lower(self.term_symbol, self.term_symbol_start.at(term_of[i]),
                             self.term_symbol_start.at(term_of[i] + 1), first)
                high = _lower(self.term_symbol, low, self.term_symbol_start.at(term_of[i] + 1),
                              last)
                if low < high:
                    found |= <uint64_t>1 << bit_of[i]
                for p in range(low, high):
                    s = self.term_symbol[p] - <int32_t>first
                    if whole_words[s] == 0 and part_words[s] == 0:
                        touched[reached] = s
                        reached += 1
                    if self.term_symbol_part[p]:
                        part_words[s] |= <uint64_t>1 << bit_of[i]
                    else:
                        whole_words[s] |= <uint64_t>1 << bit_of[i]
            # The whole words the page's title lacks (all of them if it lacks none).
            title_first = self.title_term_start.at(docs[at])
            title_last = self.title_term_start.at(docs[at] + 1)
            need = 0
            for b in range(count):
                if whole >> b & 1:
                    need |= <uint64_t>1 << b
                    for i in range(len(regular_term)):
                        if regular_bit[i] == b and _holds(
                            self.title_term, title_first, title_last, regular_term[i]
                        ):
                            need &= ~(<uint64_t>1 << b)
                            break
            required = need if need else whole
            best = -1
            most = 0.0
            if found & required == required:
                most = -1.0
                for i in range(reached):  # the best score first, then among the tied
                    s = touched[i]
                    mask = whole_words[s] | part_words[s]
                    if mask & required == required:
                        score = _covered(whole_words[s], part_words[s], weight, part_weight)
                        if score > most:
                            most = score
                for i in range(reached):
                    s = touched[i]
                    mask = whole_words[s] | part_words[s]
                    if mask & required != required:
                        continue
                    score = _covered(whole_words[s], part_words[s], weight, part_weight)
                    if score >= most * (1 - 1e-6) and (
                        best < 0
                        or self.symbol_size[first + s] < self.symbol_size[first + best]
                        or (self.symbol_size[first + s] == self.symbol_size[first + best]
                            and s < best)
                    ):
                        best = s
            for i in range(reached):
                whole_words[touched[i]] = 0
                part_words[touched[i]] = 0
            if best >= 0:
                result[at] = first + best
        return result

    def texts_with(self, list docs, list terms):
        """For each page, which of its texts have one of `terms` (stems): -1 for its title,
        else the numbers of its headings (of all pages' headings), in order."""
        cdef Py_ssize_t count = len(terms), j, at
        cdef int64_t h, first, last
        cdef int32_t text
        cdef int64_t[::1] wanted = array.clone(INT64, count, False)
        for j in range(count):
            wanted[j] = terms[j]
        found = []
        for at in range(len(docs)):
            doc = docs[at]
            texts = []
            first = self.title_term_start.at(doc)
            last = self.title_term_start.at(doc + 1)
            for j in range(count):
                if _holds(self.title_term, first, last, wanted[j]):
                    texts.append(-1)
                    break
            for h in range(self.heading_start.at(doc), self.heading_start.at(doc + 1)):
                text = self.heading_text[h]
                for j in range(count):
                    if self._has_text(wanted[j], text):
                        texts.append(h)
                        break
            found.append(texts)
        return found

    cdef bint _has_text(self, int64_t term, int32_t text) except -1:
        """Whether a heading text has a term: a binary search in the term's texts."""
        cdef int64_t end = self.term_text_start.at(term + 1)
        cdef int64_t at = _lower(self.term_text, self.term_text_start.at(term), end, text)
        return at < end and self.term_text[at] == text


cdef bint _holds(const int32_t[::1] values, int64_t first, int64_t last, int64_t wanted) except -1:
    """Whether `values[first:last]` (a title's few terms) holds `wanted`."""
    cdef int64_t i
    for i in range(first, last):
        if values[i] == wanted:
            return True
    return False


# A page's score added up in float32 can exceed the sum of its terms' bounds (in float64) by
# rounding, at most a few parts in ten million for a query's terms: bounds are widened by this.
cdef double SLACK = 1.0 + 1e-5
cdef int64_t FEW = 4096  # postings left to read below which pruning is not worth a look


cdef class _Terms:
    """A query's terms as the posting loops read them (see `Kernels._terms`)."""

    cdef Py_ssize_t count
    cdef int64_t[::1] first, last  # each term's postings
    cdef float[::1] factor  # its weight in the query
    cdef double[::1] most  # the most it can add to a page
    cdef int64_t[::1] order  # strongest first
    cdef double[::1] left  # left[i]: the most the terms order[i:] can add together
    cdef int64_t[::1] unread  # unread[i]: the postings of the terms order[i:]
    cdef Py_ssize_t reached  # pages reached so far (listed in the work array `touched`)
    cdef Py_ssize_t k  # pages wanted

    def __cinit__(self, Py_ssize_t count, Py_ssize_t k):
        self.count = count
        self.k = k
        self.reached = 0
        self.first = array.clone(INT64, count, False)
        self.last = array.clone(INT64, count, False)
        self.factor = array.clone(FLOAT, count, False)
        self.most = array.clone(DOUBLE, count, False)
        self.order = array.clone(INT64, count, False)
        self.left = array.clone(DOUBLE, count + 1, False)
        self.unread = array.clone(INT64, count + 1, False)


cdef int64_t _gallop(const int32_t[::1] values, int64_t low, int64_t end, int32_t wanted) except -1:
    """The first place from `low` in `values[:end]` (ascending) holding `wanted` or more:
    steps doubling from `low`, then a binary search in the last step (cheap for the many
    lookups of ascending pages in one long list)."""
    cdef int64_t step = 1, high = low
    while high < end and values[high] < wanted:
        low = high + 1
        high = low + step
        step <<= 1
    if high > end:
        high = end
    return _lower(values, low, high, wanted)


def spread(const int32_t[::1] pages, const float[::1] values, float factor, float[::1] scores):
    """Adds one term's postings (`values` times `factor`) to `scores` at their `pages`, all
    checked first, so a bad page changes nothing (what numpy's `add.at` did, unbuffered)."""
    cdef Py_ssize_t p, count = pages.shape[0]
    cdef size_t size = scores.shape[0]
    if values.shape[0] != count:
        raise ValueError("postings and weights differ in length")
    for p in range(count):
        if <size_t>pages[p] >= size:
            raise IndexError(f"page {pages[p]} outside 0..{size - 1}")
    with cython.boundscheck(False):
        for p in range(count):
            scores[pages[p]] += values[p] * factor


def look_up(const int32_t[::1] pages, const float[::1] values, float factor,
            const int32_t[::1] docs, float[::1] total):
    """Adds to `total[j]` what one term's postings (`pages` ascending, their `values`, times
    `factor`) give page `docs[j]`, for pages in any order: each found by galloping search
    from the last one's place while they ascend, from the start when they do not (what
    numpy's searchsorted, a mask and a gather did, without their temporary arrays)."""
    cdef Py_ssize_t j, count = docs.shape[0]
    cdef int64_t p = 0, end = pages.shape[0]
    cdef int32_t doc, previous = -1
    if values.shape[0] != end or total.shape[0] != count:
        raise ValueError("postings and weights, or pages and totals, differ in length")
    for j in range(count):
        doc = docs[j]
        if doc < previous:
            p = 0
        previous = doc
        p = _gallop(pages, p, end, doc)
        if p < end and pages[p] == doc:
            total[j] += values[p] * factor


cdef double _kth(float[::1] scores, int32_t[::1] touched, Py_ssize_t reached, Py_ssize_t k) except? -1:
    """The k-th best score of the `reached` pages in `touched` (1 <= k <= reached): the root
    of a heap of the k best (see `_offer`)."""
    cdef float[::1] heap_score = array.clone(FLOAT, k, False)
    cdef int32_t[::1] heap_doc = array.clone(INT32, k, False)
    cdef Py_ssize_t i, size = 0
    for i in range(reached):
        size = _offer(heap_score, heap_doc, size, k, scores[touched[i]], touched[i])
    return heap_score[0]


cdef Py_ssize_t _able(float[::1] scores, int32_t[::1] pages, Py_ssize_t count, double left,
                      double bar) except -1:
    """The pages (in order, kept at the front) whose score with `left` more could reach
    `bar`; how many."""
    cdef Py_ssize_t i, kept = 0
    for i in range(count):
        if (scores[pages[i]] + left) * SLACK >= bar:
            pages[kept] = pages[i]
            kept += 1
    return kept


cdef int _ascending(const void* a, const void* b) noexcept nogil:
    """qsort's comparison of two int32 pages."""
    cdef int32_t x = (<const int32_t*>a)[0], y = (<const int32_t*>b)[0]
    return (x > y) - (x < y)


ctypedef fused sorted_t:  # what binary searches read: pages, texts, names (int32), keys (uint32)
    int32_t
    uint32_t


cdef int64_t _lower(const sorted_t[::1] values, int64_t low, int64_t high, int64_t wanted) except -1:
    """The first place in `values[low:high]` (ascending) holding `wanted` or more."""
    cdef int64_t middle
    while low < high:
        middle = (low + high) >> 1
        if values[middle] < wanted:
            low = middle + 1
        else:
            high = middle
    return low


cdef double _covered(uint64_t whole, uint64_t part, double[::1] weight, double part_weight):
    """What a name covers of the query: each word's weight, whole or as a part of it."""
    cdef double total = 0.0
    cdef Py_ssize_t b
    for b in range(weight.shape[0]):
        if whole >> b & 1:
            total += weight[b]
        elif part >> b & 1:
            total += weight[b] * part_weight
    return total


cdef inline bint _worse(float score, int32_t doc, float other, int32_t other_doc):
    """Whether (score, doc) ranks below (other, other_doc): lower, or equal and later."""
    return score < other or (score == other and doc > other_doc)


@cython.boundscheck(False)  # the pages listed were checked; the heap's places stay below m
cdef _best(float[::1] scores, int32_t[::1] touched, Py_ssize_t reached, Py_ssize_t k):
    """The k best of the `reached` pages in `touched`, best first, as lists (pages, scores):
    a heap of the k best seen (its root the worst of them), emptied from the back."""
    cdef Py_ssize_t size = 0, i, m = max(0, min(k, reached))
    cdef int32_t doc
    cdef float score
    cdef int32_t[::1] heap_doc = array.clone(INT32, m, False)
    cdef float[::1] heap_score = array.clone(FLOAT, m, False)
    for i in range(reached):
        size = _offer(heap_score, heap_doc, size, m, scores[touched[i]], touched[i])
    while size > 1:  # the worst to the back, one at a time: best first
        size -= 1
        score, doc = heap_score[size], heap_doc[size]
        heap_score[size], heap_doc[size] = heap_score[0], heap_doc[0]
        _sift_down(heap_score, heap_doc, size, score, doc)
    return [heap_doc[i] for i in range(m)], [heap_score[i] for i in range(m)]


@cython.boundscheck(False)  # places below `size`, itself below the arrays' length `m`
cdef inline Py_ssize_t _offer(float[::1] heap_score, int32_t[::1] heap_doc, Py_ssize_t size,
                              Py_ssize_t m, float score, int32_t doc):
    """(score, doc) offered to a heap of at most `m` of the best (its root the worst of them,
    see `_worse`) that holds `size`: kept if there is room or it beats the root. The heap's
    new size."""
    cdef Py_ssize_t c = size
    if size < m:  # room: sift up
        while c > 0 and _worse(score, doc, heap_score[(c - 1) >> 1], heap_doc[(c - 1) >> 1]):
            heap_score[c] = heap_score[(c - 1) >> 1]
            heap_doc[c] = heap_doc[(c - 1) >> 1]
            c = (c - 1) >> 1
        heap_score[c] = score
        heap_doc[c] = doc
        return size + 1
    if _worse(heap_score[0], heap_doc[0], score, doc):
        _sift_down(heap_score, heap_doc, size, score, doc)
    return size


@cython.boundscheck(False)  # places below `size`, itself at most the arrays' length
cdef inline void _sift_down(float[::1] heap_score, int32_t[::1] heap_doc, Py_ssize_t size,
                            float score, int32_t doc):
    """Put (score, doc) at the root of a heap of `size` and let it sink to its place."""
    cdef Py_ssize_t c = 0, child
    while True:
        child = 2 * c + 1
        if child >= size:
            break
        if child + 1 < size and _worse(heap_score[child + 1], heap_doc[child + 1],
                                       heap_score[child], heap_doc[child]):
            child += 1
        if not _worse(heap_score[child], heap_doc[child], score, doc):
            break
        heap_score[c] = heap_score[child]
        heap_doc[c] = heap_doc[child]
        c = child
    heap_score[c] = score
    heap_doc[c] = doc


def filed_near(const uint32_t[::1] keys, const int32_t[::1] words, bytes word,
               int deleted):
    """The words (numbers) filed, in a deletion index, under the strings made of `word`
    (UTF-8) with `deleted` characters taken out: 1, the word itself and every string one
    deletion away; 2, every string two away. `keys` (CRC-32s, as `zlib.crc32` makes them)
    ascending, `words[i]` filed under `keys[i]` (see `pinax.search.vocabulary`)."""
    cdef const unsigned char[::1] text = word
    cdef Py_ssize_t length = len(word), count = 0, i, j
    cdef set found = set()
    cdef int64_t filed = min(keys.shape[0], words.shape[0])
    cdef int64_t[::1] starts = array.clone(INT64, length + 1, False)  # each character's
    for i in range(length):
        if text[i] & 0xC0 != 0x80:  # not a UTF-8 continuation byte
            starts[count] = i
            count += 1
    starts[count] = length
    if deleted == 1:
        _look_for(keys, words, filed, _crc(text, 0, length, 0), found)
        for i in range(count):
            _look_for(keys, words, filed, _crc(text, starts[i + 1], length,
                                               _crc(text, 0, starts[i], 0)), found)
    elif deleted == 2:
        for i in range(count):
            for j in range(i + 1, count):
                _look_for(keys, words, filed, _crc(text, starts[j + 1], length,
                          _crc(text, starts[i + 1], starts[j], _crc(text, 0, starts[i], 0))),
                          found)
    return found


cdef int _look_for(const uint32_t[::1] keys, const int32_t[::1] words, int64_t filed,
                   uint32_t key, set found) except -1:
    """Add the words filed under `key` to `found`."""
    cdef int64_t at = _lower(keys, 0, filed, key)
    while at < filed and keys[at] == key:
        found.add(words[at])
        at += 1
    return 0


cdef uint32_t _crc(const unsigned char[::1] text, Py_ssize_t start, Py_ssize_t end,
                   uint32_t crc) except? 0:
    """`zlib.crc32(text[start:end], crc)`: a CRC-32 (zlib's), carried on from `crc`."""
    cdef Py_ssize_t i
    crc = ~crc
    for i in range(start, end):
        crc = CRC_TABLE[(crc ^ text[i]) & 0xFF] ^ (crc >> 8)
    return ~crc


cdef uint32_t CRC_TABLE[256]  # zlib's (the reflected polynomial 0xEDB88320), made at import


cdef void _make_crc_table() noexcept:
    cdef uint32_t entry, byte, bit
    for byte in range(256):
        entry = byte
        for bit in range(8):
            entry = (entry >> 1) ^ (0xEDB88320 if entry & 1 else 0)
        CRC_TABLE[byte] = entry


_make_crc_table()
