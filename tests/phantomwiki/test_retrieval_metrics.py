"""Retrieval scored on its own: recall@k of the required set, MRR and nDCG@k of the required articles, sufficiency;
by hand on small rankings, and on n500_s1's BM25 rankings against a computation written here."""

from __future__ import annotations

import math

import pytest

from leakproof_qa.builders import metrics
from leakproof_qa.builders.phantomwiki.instances import rag_required
from leakproof_qa.builders.phantomwiki.required import RequiredSets
from leakproof_qa.builders.retrieval import Bm25Index
from tests.phantomwiki.pw_universes import generated, rag


def test_hand_made_rankings_give_their_known_values():
    ranked = ["a", "b", "c", "d", "e"]
    required = {"b", "e", "x"}  # x is never retrieved
    assert metrics.recall_at_k(ranked, required, 1) == 0.0
    assert metrics.recall_at_k(ranked, required, 4) == pytest.approx(1 / 3)
    assert metrics.recall_at_k(ranked, required, 5) == pytest.approx(2 / 3)
    assert metrics.reciprocal_rank(ranked, required) == 0.5
    assert metrics.reciprocal_rank(["c", "d"], required) == 0.0
    # DCG@5 = 1/log2(3) + 1/log2(6) = 1.017783; ideal (three relevant first) = 1 + 1/log2(3) + 1/2 = 2.130930
    assert metrics.ndcg_at_k(ranked, required, 5) == pytest.approx(0.477624, abs=1e-6)
    assert metrics.ndcg_at_k(["b", "e", "x", "a"], required, 4) == pytest.approx(1.0)
    assert metrics.ndcg_at_k(["a", "b"], {"b"}, 2) == pytest.approx(1 / math.log2(3))


def test_per_question_scores_and_their_means():
    rankings = {"q1": ["a", "b", "c", "d"], "q2": ["x", "y", "z", "w"]}
    required = {"q1": ["a", "b"], "q2": ["w"]}
    scores = metrics.retrieval_scores(rankings, required, ks=(1, 4))
    assert scores["per_question"]["q1"] == {
        "mrr": 1.0,
        "recall@1": 0.5,
        "ndcg@1": 1.0,
        "sufficient@1": 0.0,
        "recall@4": 1.0,
        "ndcg@4": 1.0,
        "sufficient@4": 1.0,
    }
    assert scores["per_question"]["q2"]["mrr"] == 0.25
    assert scores["per_question"]["q2"]["ndcg@4"] == pytest.approx(1 / math.log2(5))
    assert scores["mrr"] == 0.625 and scores["recall@4"] == 1.0 and scores["sufficient@1"] == 0.0
    assert scores["sufficient@4"] == 1.0 and scores["count"] == 2


@pytest.mark.parametrize(
    "call, says",
    [
        (lambda: metrics.recall_at_k(["a"], [], 1), "needs at least one relevant"),
        (lambda: metrics.retrieval_scores({"q": ["a"]}, {}, (4,)), "no required articles for 'q'"),
        (lambda: metrics.retrieval_scores({"q": ["a"]}, {"q": ["a"]}, (0,)), r"ks=\[0\] must be whole numbers"),
    ],
)
def test_misuse_is_one_line(call, says):
    with pytest.raises(ValueError, match=says):
        call()


def test_bm25_on_n500_s1_agrees_with_a_computation_written_here():
    """Each plain question's BM25 top-10 over the corpus, scored here from first principles and by
    builders.metrics against the rows' own required sets (which equal the rule's required set)."""
    g = generated("n500_s1")
    index = Bm25Index([a.article for a in g.articles])
    titles = [a.title for a in g.articles]
    sets = RequiredSets(g.universe)
    required_by_row = rag_required(g)
    rows = [r for r in rag("n500_s1", rag_rows="all") if not r["premise"]]
    assert len(rows) == len(g.questions)
    queries = {q.id: q for q in g.questions}
    rankings, required = {}, {}
    for row in rows:
        q = queries[row["question_id"]]
        assert required_by_row[row["instance_id"]] == sets.titles(q.query)
        rankings[row["instance_id"]] = [titles[i] for i in index.retrieve([q.question], 10)[0]]
        required[row["instance_id"]] = sets.titles(q.query)
        assert rankings[row["instance_id"]][:4] == row["retrieved_titles"]
    scores = metrics.retrieval_scores(rankings, required, ks=(4, 10))
    recall4, mrr, ndcg10, enough4 = [], [], [], []
    for key, ranked in rankings.items():
        wanted = required[key]
        recall4.append(sum(t in wanted for t in ranked[:4]) / len(wanted))
        hits = [rank for rank, t in enumerate(ranked, 1) if t in wanted]
        mrr.append(1 / hits[0] if hits else 0.0)
        dcg = sum(1 / math.log2(rank + 1) for rank in hits if rank <= 10)
        ndcg10.append(dcg / sum(1 / math.log2(rank + 1) for rank in range(1, min(10, len(wanted)) + 1)))
        enough4.append(all(t in ranked[:4] for t in wanted))
    assert scores["recall@4"] == pytest.approx(sum(recall4) / len(recall4))
    assert scores["mrr"] == pytest.approx(sum(mrr) / len(mrr))
    assert scores["ndcg@10"] == pytest.approx(sum(ndcg10) / len(ndcg10))
    assert scores["sufficient@4"] == pytest.approx(sum(enough4) / len(enough4))
    # the rows' exact label agrees: a plain row is sufficient exactly when its top-4 holds the required set
    assert [r["retrieved_sufficient"] for r in rows] == [
        bool(scores["per_question"][r["instance_id"]]["sufficient@4"]) for r in rows
    ]
    assert 0 < scores["recall@4"] < scores["recall@10"] < 1
