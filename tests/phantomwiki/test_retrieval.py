"""BM25 retrieval: names and dates survive tokenisation, and our BM25+ ranks as the rank-bm25 reference does and scores
as the bm25s library does."""

from __future__ import annotations

import numpy as np
import pytest

from leakproof_qa.builders.retrieval import Bm25Index, TermCounts, tokenize, top_k
from tests.phantomwiki.pw_universes import generated


def test_names_dates_and_short_words_survive_tokenisation():
    assert tokenize("The date of birth of Mary-Ann O'Neil is 1990-05-01.") == [
        "the",
        "date",
        "of",
        "birth",
        "of",
        "mary-ann",
        "o",
        "neil",
        "is",
        "1990-05-01",
    ]
    assert tokenize("Who is the son of Al Li?") == ["who", "is", "the", "son", "of", "al", "li"]


def test_term_counts_hold_each_documents_distinct_tokens_with_counts_by_first_occurrence_ids():
    corpus = TermCounts(["Al is the son of Al.", "", "The son: 1990-05-01"])
    assert corpus.vocab == {"al": 0, "is": 1, "the": 2, "son": 3, "of": 4, "1990-05-01": 5}
    assert corpus.lengths.tolist() == [6, 0, 3]
    triples = list(zip(corpus.docs.tolist(), corpus.tokens.tolist(), corpus.counts.tolist()))
    assert triples == [(0, 0, 2), (0, 1, 1), (0, 2, 1), (0, 3, 1), (0, 4, 1), (2, 2, 1), (2, 3, 1), (2, 5, 1)]


def test_term_counts_do_not_depend_on_the_batch_they_are_counted_in():
    texts = [article.article for article in generated("n500_s1").articles]
    whole, batched = TermCounts(texts), TermCounts(texts, batch=1_000)
    assert whole.vocab == batched.vocab
    for name in ("lengths", "docs", "tokens", "counts"):
        assert np.array_equal(getattr(whole, name), getattr(batched, name)), name


class _Bm25sCorpus:
    """Our tokenization in the shape bm25s indexes: `ids` (one id list per document, walked more than once) and
    `vocab`, with the ids TermCounts gives."""

    def __init__(self, texts: list[str]) -> None:
        self.vocab = TermCounts(texts).vocab
        self.ids = [[self.vocab[token] for token in tokenize(text)] for text in texts]


def test_top_k_orders_by_score_then_index_and_skips_excluded():
    scores = np.array([1.0, 3.0, 2.0, 3.0, 0.5])
    assert top_k(scores, 3) == [1, 3, 2]
    assert top_k(scores, 3, exclude=[1]) == [3, 2, 0]
    assert top_k(scores, 10, exclude=[0, 1]) == [3, 2, 4]
    assert top_k(scores, 0) == []


def test_an_index_excluded_twice_is_left_out_once():
    scores = np.array([1.0, 3.0, 2.0, 3.0, 0.5])
    assert top_k(scores, 10, exclude=[1, 1, np.int64(1), 3]) == [2, 0, 4]
    assert top_k(scores, 3, exclude=(4, 0, 4)) == [1, 3, 2]


def score_groups(scores: np.ndarray, indices: list[int]) -> list[set[int]]:
    """Indices grouped by equal score (to 1e-9), best first: the top-k up to ties."""
    groups: list[tuple[float, set[int]]] = []
    for i in indices:
        if groups and abs(groups[-1][0] - scores[i]) <= 1e-9 * max(1.0, abs(scores[i])):
            groups[-1][1].add(i)
        else:
            groups.append((scores[i], {i}))
    return [g for _, g in groups]


@pytest.mark.parametrize("name", ["n500_s1", "n500_s2"])
def test_ours_and_rank_bm25_give_the_same_top_k(name):
    g = generated(name)
    texts = [a.article for a in g.articles]
    fast, reference = Bm25Index(texts, "bm25plus"), Bm25Index(texts, "rank_bm25")
    queries = [q.question for q in g.questions[::5]]
    queries += [
        q.question + "\n" + texts[i] + "\n" + texts[(7 * i) % len(texts)] for i, q in enumerate(g.questions[:40])
    ]
    for query in queries:
        a, b = fast.scores(query), reference.scores(query)
        assert np.allclose(a, b, rtol=1e-9, atol=1e-9)
        k = 10
        top_a, top_b = fast.retrieve([query], k)[0], reference.retrieve([query], k)[0]
        groups_a, groups_b = score_groups(b, top_a), score_groups(b, top_b)
        # Same ranking, ties aside: equal-score groups match, except the last one, which k may cut.
        assert groups_a[:-1] == groups_b[:-1]
        assert [b[i] for i in top_a] == pytest.approx([b[i] for i in top_b], rel=1e-9)


def test_an_article_retrieves_itself_first():
    g = generated("n500_s1")
    texts = [a.article for a in g.articles]
    index = Bm25Index(texts)
    hits = index.retrieve(texts[:50], 1)
    assert [h[0] for h in hits] == list(range(50))


def test_a_question_nearly_always_finds_the_article_of_the_person_it_names():
    g = generated("n500_s1")
    index = Bm25Index([a.article for a in g.articles])
    titles = [a.title for a in g.articles]
    found = checked = 0
    for q in g.questions:
        name = next((t for t in titles if q.question.endswith(f"of {t}?")), None)
        if name:
            found += name in [titles[i] for i in index.retrieve([q.question], 4)[0]]
            checked += 1
    # Not always: a long article, or a first name shared with a friend, can push it to fifth place.
    assert checked >= 100 and found >= 0.95 * checked


def test_unknown_words_score_zero_and_k_is_capped_by_the_corpus():
    index = Bm25Index(["# Ann Lee\n", "# Bo Li\n"])
    assert index.scores("zebra").tolist() == [0.0, 0.0]
    assert index.retrieve(["ann"], 5) == [[0, 1]]
    assert index.retrieve(["ann", "li"], 1, exclude=[[0], [1]]) == [[1], [0]]


def test_a_bad_engine_or_empty_corpus_is_a_one_line_error():
    with pytest.raises(ValueError, match="unknown BM25 engine 'bm26'; expected one of bm25plus, rank_bm25"):
        Bm25Index(["x"], engine="bm26")
    with pytest.raises(ValueError, match="at least one document"):
        Bm25Index([])


def _bm25s_library(texts: list[str]):
    """The `bm25s` library's own BM25+ model over the same token ids (the reference for our vectorised build)."""
    import bm25s

    model = bm25s.BM25(k1=1.5, b=0.75, delta=1.0, method="bm25+", dtype="float64")
    model.index(_Bm25sCorpus(texts), create_empty_token=False, show_progress=False)
    return model


@pytest.mark.parametrize("name", ["n500_s1", "n3000_d10_s2"])
def test_the_score_matrix_is_the_one_the_bm25s_library_builds_bit_for_bit(name):
    texts = [article.article for article in generated(name).articles]
    ours = Bm25Index(texts)._matrix
    theirs = _bm25s_library(texts)
    data, indices, indptr = (theirs.scores[key] for key in ("data", "indices", "indptr"))
    assert np.array_equal(ours.indptr, indptr)
    assert np.array_equal(ours.nonoccurrence, theirs.nonoccurrence_array)
    for token in range(len(ours.vocab)):  # per token, the same documents with the same doubles
        a, b = slice(ours.indptr[token], ours.indptr[token + 1]), slice(indptr[token], indptr[token + 1])
        mine, reference = np.argsort(ours.indices[a]), np.argsort(indices[b])
        assert np.array_equal(ours.indices[a][mine], indices[b][reference])
        assert np.array_equal(ours.data[a][mine], data[b][reference]), token


def test_scores_equal_the_bm25s_library_scores():
    g = generated("n500_s1")
    texts = [article.article for article in g.articles]
    index, library = Bm25Index(texts), _bm25s_library(texts)
    for query in [q.question for q in g.questions[:40]] + texts[:5]:
        expected = library.get_scores(library.get_tokens_ids(tokenize(query)))
        assert np.allclose(index.scores(query), expected, rtol=1e-12, atol=0)  # bm25s sums token by token


def test_the_old_name_of_our_engine_still_works_with_a_one_line_warning():
    from leakproof_qa.builders.phantomwiki.config import settings_from

    with pytest.warns(DeprecationWarning, match="retriever='bm25s' is now called 'bm25plus'"):
        settings, _ = settings_from("n50_s1_rag", retriever="bm25s")
    assert settings.retriever == "bm25plus"
