"""Meaning beside words: a static embedding that re-ranks lexical candidates and rescues
queries that share no word with any page.

The model is WordLlama's `l2_supercat_256` (32,000 token vectors of 256 dimensions, float16)
with its tokenizer, both shipped inside the `wordllama` wheel (pinned: 0.4.0.post1). They are
read straight from the installed package's folder, never through `WordLlama.load` (which, in
that version, looks for them at a path the wheel does not have and would go to the network):
nothing is ever downloaded. A text's vector is the mean of its tokens' vectors (as WordLlama
pools), made unit length.

At index build every distinct title and heading text gets a vector, kept as int8 codes
(`round(127 x unit vector)`, 256 bytes a text) in the memory-mapped index, and each page a
binary code (the signs, 32 bytes) for the rescue scan over titles. A query costs one
tokenization and a few dozen dot products.

The model loads lazily (or in the background: `preload`), so start-up never waits for it; a
missing or broken model makes search lexical, with one warning line.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import struct
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pinax.errors import InternalError

log = logging.getLogger("pinax.search")

PACKAGE = "wordllama"
MODEL_ID = "wordllama-0.4.0.post1-l2_supercat_256"
WEIGHTS = "weights/l2_supercat_256.safetensors"
TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
DIMS = 256
SCALE = 127.0  # int8 codes of unit vectors
BATCH = 4096  # texts embedded at a time while building (their token vectors: ~25 MB)
# How close in meaning a title must be to stand in when words found nothing: gibberish and
# typos far from any word ("qqqqqqqq", "Frms") come within 0.2 of some title, while "login
# password" is 0.43 from "Authentication" and "logger" 0.54 from "Logging".
RESCUE_MIN = 0.25
SCAN = 1 << 16  # title codes compared at a time while rescuing


class ModelError(InternalError):
    """Raised when the embedding model's files are missing or not what this code reads;
    search then goes on by words alone (with a warning)."""


def model_folder() -> Path | None:
    """The installed `wordllama` package's folder, found without importing it (its
    `__init__` configures logging and imports more than the files we read)."""
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def state() -> str:
    """What an index built now would hold: the model's id if its files are there, else
    "lexical" (part of the index cache key, so installing the model re-indexes)."""
    folder = model_folder()
    if folder is not None and (folder / WEIGHTS).is_file() and (folder / TOKENIZER).is_file():
        return MODEL_ID
    return "lexical"


class Model:
    """WordLlama's token vectors (memory-mapped float16) and its tokenizer."""

    def __init__(self, weights: Path, tokenizer: Path) -> None:
        self.vectors = _safetensors_matrix(weights)
        from tokenizers import Tokenizer

        try:
            self.tokenizer = Tokenizer.from_file(str(tokenizer))
        except Exception as exc:  # the Rust side raises its own kinds
            raise ModelError(f"cannot read the tokenizer {tokenizer}: {exc}") from None
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        if self.tokenizer.get_vocab_size() > len(self.vectors):
            raise ModelError("the tokenizer knows more tokens than the weights have")

    def embed_one(self, text: str) -> np.ndarray:
        """One text's unit vector (zeros if it has no token): the query's path, ~35 us."""
        ids = self.tokenizer.encode(text, add_special_tokens=False).ids
        if not ids:
            return np.zeros(DIMS, dtype=np.float32)
        vector = self.vectors[ids].sum(axis=0, dtype=np.float32)
        norm = float(np.sqrt(vector @ vector))
        return vector / norm if norm > 0 else vector

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors (float32, one row per text; zeros for a text with no token)."""
        out = np.zeros((len(texts), DIMS), dtype=np.float32)
        for first, block in self._unit_blocks(texts):
            out[first : first + len(block)] = block
        return out

    def codes(self, texts: Sequence[str]) -> np.ndarray:
        """int8 codes of the unit vectors (`round(127 x v)`), made `BATCH` texts at a time:
        a million pages' texts never sit in memory as float32."""
        out = np.zeros((len(texts), DIMS), dtype=np.int8)
        for first, block in self._unit_blocks(texts):
            out[first : first + len(block)] = np.rint(block * SCALE)
        return out

    def _unit_blocks(self, texts: Sequence[str]) -> Iterator[tuple[int, np.ndarray]]:
        """(first text's number, unit vectors of up to `BATCH` texts from it).

        The tokenizer starts every word with its own token (no token spans a space), so a
        text's tokens are its words' tokens: each distinct word is tokenized once (a million
        pages' titles and headings have a few tens of thousands), and a text's vector is the
        sum of its words' sums, made unit length (the same direction as the tokens' mean)."""
        words: dict[str, int] = {}
        index: list[int] = []  # word numbers, text after text
        counts = np.zeros(len(texts), dtype=np.int64)
        whole: list[int] = []  # texts with runs of spaces: tokenized as they are
        for at, text in enumerate(texts):
            parts = text.split(" ")
            if "" in parts:
                whole.append(at)
                continue
            counts[at] = len(parts)
            index.extend([words.setdefault(w, len(words)) for w in parts])
        sums = self._sums(list(words))
        del words
        positions = np.asarray(index, dtype=np.int64)
        del index
        ends = np.cumsum(counts)
        odd = np.asarray(whole, dtype=np.int64)
        for first in range(0, len(texts), BATCH):
            last = min(first + BATCH, len(texts))
            block = np.zeros((last - first, DIMS), dtype=np.float32)
            lo = int(ends[first - 1]) if first else 0
            _add_runs(block, sums[positions[lo : int(ends[last - 1])]], counts[first:last])
            mine = odd[(odd >= first) & (odd < last)]
            if len(mine):
                block[mine - first] = self._sums([texts[at] for at in mine.tolist()])
            norms = np.linalg.norm(block, axis=1, keepdims=True)
            np.divide(block, norms, out=block, where=norms > 0)
            yield first, block

    def _sums(self, texts: list[str]) -> np.ndarray:
        """The sum of each text's token vectors (float32)."""
        out = np.zeros((len(texts), DIMS), dtype=np.float32)
        for first in range(0, len(texts), BATCH):
            batch = texts[first : first + BATCH]
            encoded = self.tokenizer.encode_batch_fast(batch, add_special_tokens=False)
            counts = np.fromiter((len(e.ids) for e in encoded), dtype=np.int64, count=len(batch))
            ids = np.fromiter(
                (i for e in encoded for i in e.ids), dtype=np.int64, count=int(counts.sum())
            )
            rows = self.vectors[ids].astype(np.float32)  # reduceat is slow on float16
            _add_runs(out[first : first + len(batch)], rows, counts)
        return out


def _add_runs(out: np.ndarray, rows: np.ndarray, counts: np.ndarray) -> None:
    """out[i] = the sum of the next counts[i] rows (float32), for every i with a row."""
    if not len(rows):
        return
    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    has = counts > 0
    out[has] = np.add.reduceat(rows, starts[has], axis=0)


def _safetensors_matrix(path: Path) -> np.ndarray:
    """The one float16 matrix of a safetensors file, memory-mapped (only the rows a query
    reads come into memory). The format: an 8-byte header length, a JSON header, the data."""
    try:
        with open(path, "rb") as file:
            (length,) = struct.unpack("<Q", file.read(8))
            header = json.loads(file.read(length))
        entry = header["embedding.weight"]
        rows, dims = entry["shape"]
        start, end = entry["data_offsets"]
    except (OSError, ValueError, KeyError, TypeError, struct.error) as exc:
        raise ModelError(f"cannot read the weights {path}: {exc}") from None
    if entry.get("dtype") != "F16" or dims != DIMS or end - start != rows * dims * 2:
        raise ModelError(f"unexpected weights in {path}: {entry}")
    try:
        mapped = np.memmap(path, np.float16, "r", 8 + length + start, (rows, dims))
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot map the weights {path}: {exc}") from None
    return np.asarray(mapped)  # a plain view: indexes faster than a memmap


_lock = threading.Lock()
_loaded: dict[str, Any] = {}  # "model": Model | None, once tried


def model() -> Model | None:
    """The model, loaded on first use (about 0.15 s); None, after one warning, if it is
    missing or broken: search is then lexical."""
    if "model" not in _loaded:
        with _lock:
            if "model" not in _loaded:
                _loaded["model"] = _load()
    return _loaded["model"]


def _load() -> Model | None:
    folder = model_folder()
    if folder is None:  # the default install: words only, as documented (a line at info level)
        log.info("search by meaning is off (the %s extra is not installed)", PACKAGE)
        return None
    try:
        return Model(folder / WEIGHTS, folder / TOKENIZER)
    except (ModelError, ImportError) as exc:  # installed but broken: worth a warning
        log.warning("search by meaning is off (%s); searching by words only", exc)
        return None


def preload() -> None:
    """Load the model in a background thread, so the first search does not wait for it."""
    threading.Thread(target=model, name="pinax-embedding", daemon=True).start()


def forget() -> None:
    """Forget the loaded model (tests: load it again, e.g. from another folder)."""
    with _lock:
        _loaded.clear()


def query_vector(query: str, corrected: Mapping[str, str] | None = None) -> np.ndarray | None:
    """A query's unit vector, or None when there is no model or the query has no token.

    `corrected` maps a typed word (lower case) the index lacks to the known word search
    corrected it to: the vector is of the query as search understood it. A misspelt word's
    tokens are pieces of nothing ("serker renderinv" is near no title), and they pulled
    pages whose words did match below pages close in meaning to noise."""
    meaning = query_meaning(query, corrected)
    if meaning is None:
        return None
    vector = meaning.vector
    return vector if vector.any() else None


class QueryMeaning:
    """A query's unit vector (see `query_vector`), made only when first asked for: an index
    of titles alone wants it only to explain a hit or to rescue a query whose words found
    nothing, so most searches there never tokenize the query (~20 us)."""

    def __init__(self, loaded: Model, text: str) -> None:
        self._model = loaded
        self._text = text
        self._vector: np.ndarray | None = None

    @property
    def vector(self) -> np.ndarray:
        if self._vector is None:
            self._vector = self._model.embed_one(self._text)
        return self._vector


def query_meaning(query: str, corrected: Mapping[str, str] | None = None) -> QueryMeaning | None:
    """`query_vector` to be made when needed, or None when there is no model or the query has
    no token. Only the empty text has none: the tokenizer's byte fallback gives any
    character a token, and no token's vector is zero (only the impossible exact cancellation
    of several could make their sum zero)."""
    loaded = model()
    if loaded is None:
        return None
    if corrected:
        query = " ".join(corrected.get(word.lower(), word) for word in query.split())
    return QueryMeaning(loaded, query) if query else None


# -- at index build ---------------------------------------------------------------------------


def build_vectors(
    titles: Sequence[str], heading_texts: Sequence[str], heading_text_of: np.ndarray
) -> dict[str, np.ndarray]:
    """The arrays `Vectors` reads: int8 codes of every distinct title and heading text
    (`vec_text`), each page's and heading's row in it (`vec_title`, `vec_heading`) and each
    page's title signs packed (`vec_sign`). Headings come as distinct texts and each
    heading's number among them (`heading_text_of`). Empty when there is no model."""
    loaded = model()
    if loaded is None:
        return {}
    rows: dict[str, int] = {}
    title_row = np.fromiter(
        (rows.setdefault(t, len(rows)) for t in titles), dtype=np.int32, count=len(titles)
    )
    text_row = np.fromiter(
        (rows.setdefault(h, len(rows)) for h in heading_texts),
        dtype=np.int32,
        count=len(heading_texts),
    )
    heading_row = text_row[heading_text_of] if len(heading_text_of) else text_row[:0]
    codes = loaded.codes(list(rows))
    del rows
    signs = np.zeros((len(titles), DIMS // 8), dtype=np.uint8)
    for first in range(0, len(titles), SCAN):  # a bounded scratch array here too
        signs[first : first + SCAN] = np.packbits(
            codes[title_row[first : first + SCAN]] > 0, axis=1
        )
    return {
        "vec_text": codes,
        "vec_title": title_row,
        "vec_heading": heading_row,
        "vec_sign": signs,
    }


# -- at query time ----------------------------------------------------------------------------


class Vectors:
    """One index's title and heading vectors: a candidate's embedding score and rescue."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self._text = arrays["vec_text"]
        self._title = arrays["vec_title"]
        self._heading = arrays["vec_heading"]
        self._sign = arrays["vec_sign"].view(np.uint64)  # a title's 256 signs as 4 words
        self._heading_start = arrays["outline_start"]  # a page's: from [page] to [page + 1]
        # Titles alone re-rank worse than words do (the DEV sets without outlines lose up to
        # 0.012 recall@10): meaning re-ranks only an index whose pages have headings.
        self.reranks = len(self._heading) > 0

    @staticmethod
    def present(arrays: dict[str, np.ndarray]) -> bool:
        return "vec_text" in arrays

    def score(self, query: np.ndarray, docs: Sequence[int]) -> tuple[list[float], list[int]]:
        """Each page's embedding score (the best cosine, floored at 0, between the query and
        its title or any of its headings: one matrix product over them all) and the heading
        that gave it where it beats the title (the first such), else -1."""
        best, which = self._closest(query, docs)
        return np.clip(best, 0.0, 1.0).tolist(), which.tolist()

    def _closest(self, query: np.ndarray, docs: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """(each page's best cosine, the heading that gave it or -1 for the title)."""
        pages = np.asarray(docs, dtype=np.int64)
        first = self._heading_start[pages].astype(np.int64)  # stored narrow (uint32)
        counts = self._heading_start[pages + 1].astype(np.int64) - first
        offsets = np.cumsum(counts) - counts
        total = int(counts.sum())
        headings = np.arange(total) + np.repeat(first - offsets, counts)
        rows = np.concatenate([self._title[pages], self._heading[headings]])
        cosines = self._text[rows].astype(np.float32) @ (query / SCALE)
        best = cosines[: len(pages)].copy()
        which = np.full(len(pages), -1, dtype=np.int64)
        has = counts > 0
        if total:
            inside = cosines[len(pages) :]
            top = np.maximum.reduceat(inside, offsets[has])
            at = np.where(inside == np.repeat(top, counts[has]), np.arange(total), total)
            first_top = np.minimum.reduceat(at, offsets[has])
            beats = top > best[has]
            best[has] = np.maximum(best[has], top)
            which[np.flatnonzero(has)[beats]] = headings[first_top[beats]]
        return best, which

    def nearest(self, query: np.ndarray, count: int, exclude: set[int]) -> list[int]:
        """Up to `count` pages whose titles are closest in meaning (cosine `RESCUE_MIN` or
        more), none of `exclude`: the title signs shortlist (Hamming distance), their int8
        codes decide."""
        size = len(self._title)
        if not size or count <= 0:
            return []
        short = min(size, max(64, count * 8) + len(exclude))
        if short == size:  # every title is on the shortlist
            pages = np.arange(size)
        else:
            signs = np.packbits(query > 0).view(np.uint64)
            distance = np.empty(size, dtype=np.int32)
            for first in range(0, size, SCAN):  # a bounded scratch array, even at 1M pages
                block = np.bitwise_count(self._sign[first : first + SCAN] ^ signs)
                distance[first : first + SCAN] = block.sum(axis=1, dtype=np.int32)
            pages = np.argpartition(distance, short - 1)[:short]
        cosines = self._text[self._title[pages]].astype(np.float32) @ (query / SCALE)
        order = np.lexsort((pages, -cosines))
        close = order[cosines[order] >= RESCUE_MIN]
        return [p for p in pages[close].tolist() if p not in exclude][:count]
