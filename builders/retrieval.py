"""BM25 retrieval over a corpus: our own BM25+ as the engine, `rank-bm25` as a selectable pure-Python reference.

The "bm25plus" engine (ours; called "bm25s" until 0.8.0) builds the same BM25+ score matrix as the `bm25s` library
(k1, b, delta, idf, the non-occurrence term, float64), bit for bit, but with whole-array numpy operations instead of
a Python loop per document (5 s less at 100,000 articles); tests/phantomwiki/test_retrieval.py holds the two equal.

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
from collections.abc import Iterable, Sequence

import numpy as np

ENGINES = ("bm25plus", "rank_bm25")
K1, B, DELTA = 1.5, 0.75, 1.0
TOKEN_BY_TOKEN = 1024  # postings per distinct query token above which a query is scored token by token
_TOKEN = re.compile(r"[0-9a-z]+(?:-[0-9a-z]+)*")


def tokenize(text: str) -> list[str]:
    """Lower-cased alphanumeric tokens; hyphenated dates and names stay whole."""
    return _TOKEN.findall(text.lower())


def top_k(scores: np.ndarray, k: int, exclude: Sequence[int] = ()) -> list[int]:
    """Indices of the k highest scores (ties by lower index), leaving out `exclude`."""
    negated = -np.asarray(scores, dtype=np.float64)  # a new array: `scores` is never changed
    if len(exclude):
        left_out = list(set(exclude))  # distinct, as np.unique would give them (which imports numpy.ma, 30 ms)
        negated[left_out] = np.inf
        allowed = len(negated) - len(left_out)
    else:
        allowed = len(negated)
    k = min(k, allowed)
    if k <= 0:
        return []
    kth = np.partition(negated, k - 1)[k - 1]
    candidates = np.flatnonzero(negated <= kth)
    order = np.lexsort((candidates, negated[candidates]))
    return [int(i) for i in candidates[order][:k]]


class TermCounts:
    """Each document's distinct tokens with their counts, as three int32 arrays (`docs`, `tokens`, `counts`, by
    document then token id), the vocabulary (token -> id, in order of first occurrence) and each document's length.

    Counted in batches of about `batch` tokens, so at a million articles neither a Python list of tokens per
    document nor one array of every token is ever held.
    """

    def __init__(self, texts: Iterable[str], batch: int = 1 << 22) -> None:
        self.vocab: dict[str, int] = {}
        lengths = array("q")
        docs: list[np.ndarray] = []
        tokens: list[np.ndarray] = []
        counts: list[np.ndarray] = []
        flat, first = array("i"), 0
        vocab = self.vocab
        for text in texts:
            ids = [vocab.setdefault(token, len(vocab)) for token in tokenize(text)]  # a new token's id: its rank
            flat.extend(ids)
            lengths.append(len(ids))
            if len(flat) >= batch:
                self._count(flat, lengths[first:], first, (docs, tokens, counts))
                flat, first = array("i"), len(lengths)
        self._count(flat, lengths[first:], first, (docs, tokens, counts))
        self.lengths = np.frombuffer(lengths, dtype=np.int64)
        self.docs = _joined(docs)
        self.tokens = _joined(tokens)
        self.counts = _joined(counts)

    def __len__(self) -> int:
        return len(self.lengths)

    def _count(self, flat: array, lengths: array, first: int, into: tuple[list, list, list]) -> None:
        """Append the (doc, token, count) triples of the documents first, first + 1, ... whose tokens are `flat`."""
        if not lengths:
            return
        width = max(len(self.vocab), 1)
        owner = np.repeat(np.arange(first, first + len(lengths), dtype=np.int64), np.frombuffer(lengths, np.int64))
        keys, count = np.unique(owner * width + np.frombuffer(flat, dtype=np.int32), return_counts=True)
        for out, values in zip(into, (keys // width, keys % width, count)):
            out.append(values.astype(np.int32))


def _joined(chunks: list[np.ndarray]) -> np.ndarray:
    """One array of `chunks`, emptying the list as it goes (so the chunks and the whole are not held twice over)."""
    whole = np.empty(sum(len(chunk) for chunk in chunks), dtype=np.int32)
    at = 0
    while chunks:
        chunk = chunks.pop(0)
        whole[at : at + len(chunk)] = chunk
        at += len(chunk)
    return whole


class Bm25PlusMatrix:
    """The BM25+ matrix `bm25s` builds (`method="bm25+"`, float64), as its CSC arrays and non-occurrence term.

    Per document d and token t: idf(t) * ((k1 + 1) tf / (k1 (1 - b + b |d| / avgdl) + tf) + delta) - idf(t),
    with idf(t) = log((N + 1) / df(t)); a query adds idf(t) of each of its tokens to every document. Each value
    is computed by the same operations in the same order as bm25s, so it is the same double.
    """

    def __init__(self, texts: Iterable[str]) -> None:
        corpus = TermCounts(texts)
        n_docs, n_vocab, lengths = len(corpus), len(corpus.vocab), corpus.lengths
        average = lengths.mean()
        docs, tokens, tf = corpus.docs, corpus.tokens, corpus.counts
        self.vocab = corpus.vocab
        del corpus  # its arrays are replaced one by one below, each freed as it goes
        df = np.bincount(tokens, minlength=n_vocab)
        # math.log, as bm25s computes each idf (numpy's vectorised log may differ in the last bit)
        idf = np.array([math.log((n_docs + 1) / int(f)) if f else 0.0 for f in df.tolist()], dtype=np.float64)
        norm = K1 * (1 - B + B * lengths.astype(np.float64) / average)  # per document, as bm25s's scalar
        # Column order (by token, documents ascending) first, then each value in place: the same operations on the
        # same operands as bm25s (a + b and a * b are exact whatever the operand order), a third of the memory.
        order = np.argsort(tokens, kind="stable")
        tokens = tokens[order]  # one array at a time, so at most one is held twice
        docs = docs[order]
        tf = tf[order]
        del order
        values = tf.astype(np.float64)
        del tf
        denominator = norm[docs]
        denominator += values
        values *= K1 + 1
        values /= denominator
        del denominator
        values += DELTA
        weight = idf[tokens]
        del tokens
        values *= weight
        values -= weight
        del weight
        self.data = values
        self.indices = docs
        self.indptr = np.concatenate([[0], np.cumsum(df)]).astype(np.int64)
        self.nonoccurrence = idf  # the tfc of a token a document lacks is exactly delta = 1
        self.size = n_docs


class Bm25Index:
    """A BM25+ index over `texts`; `engine` is "bm25plus" (ours: fast, the default) or "rank_bm25" (reference)."""

    def __init__(self, texts: Sequence[str], engine: str = "bm25plus") -> None:
        if engine not in ENGINES:
            raise ValueError(f"unknown BM25 engine {engine!r}; expected one of {', '.join(ENGINES)}")
        if not texts:
            raise ValueError("a BM25 index needs at least one document")
        self.engine = engine
        self.size = len(texts)
        if engine == "bm25plus":
            self._matrix = Bm25PlusMatrix(texts)
        else:
            from rank_bm25 import BM25Plus

            self._model = BM25Plus([tokenize(text) for text in texts], k1=K1, b=B, delta=DELTA)

    def scores(self, query: str) -> np.ndarray:
        """The BM25+ score of every document for `query` (a float64 array, one per document)."""
        if self.engine == "rank_bm25":
            return np.asarray(self._model.get_scores(tokenize(query)), dtype=np.float64)
        return self.scores_of(self.token_ids(query))

    def token_ids(self, text: str) -> np.ndarray:
        """The index's ids of the tokens of `text` that it knows, in order (tokens of two texts joined by a line break
        are the tokens of each: a query of many parts can be put together from its parts' ids)."""
        vocab = self._matrix.vocab
        return np.asarray([vocab[token] for token in tokenize(text) if token in vocab], dtype=np.int64)

    def scores_of(self, ids: np.ndarray) -> np.ndarray:
        """`scores` of a query given as its token ids (only the multiset of ids counts)."""
        if not len(ids):
            return np.zeros(self.size, dtype=np.float64)
        # A long query repeats tokens: score each distinct token once, weighted by its count (bm25s's own
        # get_scores adds token by token, which is slow for queries of many articles). Every document's sum is built
        # token by token in id order, whichever of the two ways below adds them, so the doubles are the same.
        unique, weights = np.unique(ids, return_counts=True)
        matrix = self._matrix
        indptr, indices, data = matrix.indptr, matrix.indices, matrix.data
        starts, ends = indptr[unique], indptr[unique + 1]
        lengths = ends - starts
        scores: np.ndarray
        if lengths.sum() > TOKEN_BY_TOKEN * len(unique):  # long postings: add each token's slice where it occurs
            scores = np.zeros(self.size, dtype=np.float64)
            for start, end, weight in zip(starts.tolist(), ends.tolist(), weights.tolist()):
                if end - start == self.size:  # in every document, in document order ("the", "of", ...)
                    scores += data[start:end] * weight
                else:
                    scores[indices[start:end]] += data[start:end] * weight
        else:  # short postings: every position from starts[i] to ends[i], i by i, in one pass of numpy
            take = np.arange(int(lengths.sum()), dtype=np.int64) + np.repeat(
                starts - np.cumsum(lengths) + lengths, lengths
            )
            scores = np.bincount(indices[take], weights=data[take] * np.repeat(weights, lengths), minlength=self.size)
        scores += float(np.dot(matrix.nonoccurrence[unique], weights))
        return scores

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
