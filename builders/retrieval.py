"""BM25 retrieval over a corpus: `bm25s`'s scores as the engine, `rank-bm25` as a selectable pure-Python reference.

The "bm25s" engine builds the same BM25+ score matrix as the `bm25s` library (k1, b, delta, idf, the
non-occurrence term, float64), bit for bit, but with whole-array numpy operations instead of a Python loop
per document (5 s less at 100,000 articles); tests/phantomwiki/test_retrieval.py holds the two equal.

Both engines score with BM25+ (Lv and Zhai 2011; k1 = 1.5, b = 0.75, delta = 1): its idf,
log((N + 1) / df), is positive for every term, so words found in every article ("the", "of",
"family") neither go negative nor need an engine-specific floor, and both libraries compute the
same formula, so their rankings agree (up to float rounding between tied scores).

Tokens are lower-cased runs of letters and digits, joined across inner hyphens, so a name stays
a token ("o'brien" -> "o", "brien"; "Mary-Ann" -> "mary-ann") and a date stays one token
("1990-05-01"). No stop words are removed and no token is too short to keep.
Top-k is ordered by score, then by document index, so ties never depend on the engine's internals.
"""

from __future__ import annotations

import math
import re
from array import array
from collections.abc import Iterator, Sequence

import numpy as np

ENGINES = ("bm25s", "rank_bm25")
K1, B, DELTA = 1.5, 0.75, 1.0
_TOKEN = re.compile(r"[0-9a-z]+(?:-[0-9a-z]+)*")


def tokenize(text: str) -> list[str]:
    """Lower-cased alphanumeric tokens; hyphenated dates and names stay whole."""
    return _TOKEN.findall(text.lower())


def top_k(scores: np.ndarray, k: int, exclude: Sequence[int] = ()) -> list[int]:
    """Indices of the k highest scores (ties by lower index), leaving out `exclude`."""
    scores = np.asarray(scores, dtype=np.float64).copy()
    if len(exclude):
        scores[np.asarray(list(exclude), dtype=np.int64)] = -np.inf
    allowed = int(np.isfinite(scores).sum())
    k = min(k, allowed)
    if k <= 0:
        return []
    kth = np.partition(-scores, k - 1)[k - 1]
    candidates = np.nonzero(-scores <= kth)[0]
    order = np.lexsort((candidates, -scores[candidates]))
    return [int(i) for i in candidates[order][:k]]


class TokenIds:
    """A corpus as token ids: one flat int32 array plus offsets, not a Python list per document.

    bm25s accepts any object with `ids` (one id sequence per document) and `vocab` (token -> id);
    at a million articles, lists of token strings would need more memory than the whole universe.
    """

    def __init__(self, texts: Sequence[str]) -> None:
        self.vocab: dict[str, int] = {}
        flat, offsets = array("i"), array("q", [0])
        for text in texts:
            tokens = tokenize(text)
            for token in tokens:
                if token not in self.vocab:
                    self.vocab[token] = len(self.vocab)
            flat.extend(map(self.vocab.__getitem__, tokens))
            offsets.append(len(flat))
        self.flat = np.frombuffer(flat, dtype=np.int32)
        self.offsets = np.frombuffer(offsets, dtype=np.int64)
        self.ids = self

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __iter__(self) -> Iterator[list[int]]:
        for start, end in zip(self.offsets[:-1].tolist(), self.offsets[1:].tolist()):
            yield self.flat[start:end].tolist()


def _doc_term_counts(corpus: TokenIds, chunk: int = 1 << 22) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(doc, token, count) of every distinct token of every document, by document then token; at most `chunk`
    tokens are sorted at a time, so memory stays a small multiple of the token array."""
    vocab = max(len(corpus.vocab), 1)
    lengths = np.diff(corpus.offsets)
    docs, tokens, counts = [], [], []
    first = 0
    while first < len(corpus):
        last = int(np.searchsorted(corpus.offsets, corpus.offsets[first] + chunk, side="right")) - 1
        last = min(max(last, first + 1), len(corpus))
        begin, end = int(corpus.offsets[first]), int(corpus.offsets[last])
        owner = np.repeat(np.arange(first, last, dtype=np.int64), lengths[first:last])
        keys, count = np.unique(owner * vocab + corpus.flat[begin:end], return_counts=True)
        docs.append(keys // vocab)
        tokens.append(keys % vocab)
        counts.append(count)
        first = last
    return np.concatenate(docs), np.concatenate(tokens), np.concatenate(counts)


class Bm25PlusMatrix:
    """The BM25+ matrix `bm25s` builds (`method="bm25+"`, float64), as its CSC arrays and non-occurrence term.

    Per document d and token t: idf(t) * ((k1 + 1) tf / (k1 (1 - b + b |d| / avgdl) + tf) + delta) - idf(t),
    with idf(t) = log((N + 1) / df(t)); a query adds idf(t) of each of its tokens to every document. Each value
    is computed by the same operations in the same order as bm25s, so it is the same double.
    """

    def __init__(self, corpus: TokenIds) -> None:
        n_docs, n_vocab = len(corpus), len(corpus.vocab)
        lengths = np.diff(corpus.offsets)
        average = lengths.mean()
        docs, tokens, tf = _doc_term_counts(corpus)
        df = np.bincount(tokens, minlength=n_vocab)
        # math.log, as bm25s computes each idf (numpy's vectorised log may differ in the last bit)
        idf = np.array([math.log((n_docs + 1) / int(f)) if f else 0.0 for f in df.tolist()], dtype=np.float64)
        norm = K1 * (1 - B + B * lengths.astype(np.float64) / average)  # per document, as bm25s's scalar
        tf = tf.astype(np.float64)
        values = ((K1 + 1) * tf) / (norm[docs] + tf) + DELTA
        values = idf[tokens] * values
        values -= idf[tokens]
        order = np.argsort(tokens, kind="stable")
        self.data = values[order]
        self.indices = docs[order].astype(np.int32)
        self.indptr = np.concatenate([[0], np.cumsum(df)]).astype(np.int64)
        self.nonoccurrence = idf  # the tfc of a token a document lacks is exactly delta = 1
        self.vocab = corpus.vocab
        self.size = n_docs


class Bm25Index:
    """A BM25+ index over `texts`; `engine` is "bm25s" (fast, default) or "rank_bm25" (reference)."""

    def __init__(self, texts: Sequence[str], engine: str = "bm25s") -> None:
        if engine not in ENGINES:
            raise ValueError(f"unknown BM25 engine {engine!r}; expected one of {', '.join(ENGINES)}")
        if not texts:
            raise ValueError("a BM25 index needs at least one document")
        self.engine = engine
        self.size = len(texts)
        if engine == "bm25s":
            self._matrix = Bm25PlusMatrix(TokenIds(texts))
        else:
            from rank_bm25 import BM25Plus

            self._model = BM25Plus([tokenize(text) for text in texts], k1=K1, b=B, delta=DELTA)

    def scores(self, query: str) -> np.ndarray:
        """The BM25+ score of every document for `query` (a float64 array, one per document)."""
        tokens = tokenize(query)
        if self.engine == "rank_bm25":
            return np.asarray(self._model.get_scores(tokens), dtype=np.float64)
        vocab = self._matrix.vocab
        ids = [vocab[token] for token in tokens if token in vocab]
        if not ids:
            return np.zeros(self.size, dtype=np.float64)
        # A long query repeats tokens: score each distinct token once, weighted by its count
        # (bm25s's own get_scores adds token by token, which is slow for queries of many articles).
        unique, weights = np.unique(np.asarray(ids, dtype=np.int64), return_counts=True)
        matrix = self._matrix
        indptr, indices, data = matrix.indptr, matrix.indices, matrix.data
        starts, ends = indptr[unique], indptr[unique + 1]
        lengths = ends - starts
        # every position from starts[i] to ends[i], i by i, without a Python loop over the tokens
        take = np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        scores: np.ndarray = np.bincount(
            indices[take], weights=data[take] * np.repeat(weights, lengths), minlength=self.size
        )
        scores += float(np.dot(matrix.nonoccurrence[unique], weights))
        return scores.astype(np.float64)

    def retrieve(
        self, queries: Sequence[str], k: int, exclude: Sequence[Sequence[int]] | None = None
    ) -> list[list[int]]:
        """For each query, the indices of its top-k documents (best first), leaving out that query's `exclude`."""
        if k < 0:
            raise ValueError(f"k={k} must be at least 0")
        out = []
        for position, query in enumerate(queries):
            skip = exclude[position] if exclude is not None else ()
            out.append(top_k(self.scores(query), k, skip))
        return out
