"""Answer parsing (option index from a model's response) and the metrics: ADTScore, per-category accuracy."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import leakproof_qa.builders.neoqa as engine
from leakproof_qa.builders import metrics
from leakproof_qa.builders.neoqa.answers import parse_answer

OPTIONS = [
    "Unanswerable",
    "Whether the program would be robust enough",
    "Whether the program",
    "45 days",
    "5 days",
    "Whether the program would include a mentorship initiative",
    "4 days",
]


@pytest.mark.parametrize(
    "response,expected",
    [
        ("Reasoning...\nAnswer: 3", 2),
        ("Answer: [2]", 1),
        ("**Answer:** 4", 3),
        ("answer: answer: 7", 6),
        ("Answer: 1\nOn reflection the evidence is missing.\nAnswer: 1.", 0),
        ("First I thought Answer: 2, but no.\nAnswer: 6", 5),
        ("Answer: 9", None),  # out of range, and no option text either
        ("I cannot tell.", None),
    ],
)
def test_number_answers(response: str, expected: int | None) -> None:
    assert parse_answer(response, OPTIONS) == expected


@pytest.mark.parametrize("index", [0, 3, 5])
def test_text_answer_returns_the_original_index_not_a_length_sorted_one(index: int) -> None:
    by_length = sorted(OPTIONS, key=lambda option: -len(option))
    assert by_length.index(OPTIONS[index]) != index  # where the release's parser would have pointed
    assert parse_answer(f"The articles agree.\nAnswer: {OPTIONS[index]}", OPTIONS) == index


def test_text_answer_prefers_the_longest_matching_option() -> None:
    assert parse_answer("Answer: Whether the program would be robust enough", OPTIONS) == 1
    assert parse_answer("Answer: Whether the program.", OPTIONS) == 2  # a shorter option, not a prefix match
    assert parse_answer('Answer: "unanswerable"', OPTIONS) == 0


def test_an_option_stated_by_its_own_text_alone_is_read() -> None:
    assert parse_answer("Distractor 1 of QA1", ["Gold of QA1", "Distractor 1 of QA1"]) == 1
    assert parse_answer("Both articles say so.\n45 days.", OPTIONS) == 3
    assert parse_answer("I cannot tell which one it is.", OPTIONS) is None


def test_text_answers_that_start_with_a_number() -> None:
    assert parse_answer("Answer: 5 days", OPTIONS) == 4  # the option "5 days", not option number 5
    assert parse_answer("Answer: 45 days", OPTIONS) == 3
    assert parse_answer("Answer: [3] Whether the program", OPTIONS) == 2


def test_accuracy_and_harmonic_mean() -> None:
    assert metrics.accuracy([True, False, True, True]) == 0.75
    with pytest.raises(ValueError, match="zero instances"):
        metrics.accuracy([])
    assert metrics.adt_score(0.8, 0.4) == pytest.approx(2 * 0.8 * 0.4 / 1.2)
    assert metrics.adt_score(1.0, 0.0) == 0.0 and metrics.adt_score(0.0, 0.0) == 0.0
    assert math.isnan(metrics.adt_score(math.nan, 0.5))
    with pytest.raises(ValueError):
        metrics.harmonic_mean(-0.1, 0.5)


def test_neoqa_category_columns() -> None:
    assert metrics.neoqa_category("multi-hop", "sufficient") == "multi-hop/answerable"
    assert metrics.neoqa_category("time-span", "insufficient") == "time-span/insufficient"
    assert metrics.neoqa_category("false-premise", "unanswerable") == "false-premise"
    with pytest.raises(ValueError, match="unknown NeoQA category"):
        metrics.neoqa_category("yes-no", "unanswerable")


def test_neoqa_scores_by_hand() -> None:
    instances = [
        {"instance_id": "a", "category": "multi-hop", "answerable": "sufficient", "gold_answer_idx": 1},
        {"instance_id": "b", "category": "time-span", "answerable": "sufficient", "gold_answer_idx": 2},
        {"instance_id": "c", "category": "multi-hop", "answerable": "insufficient", "gold_answer_idx": 0},
        {"instance_id": "d", "category": "false-premise", "answerable": "unanswerable", "gold_answer_idx": 0},
        {"instance_id": "e", "category": "uncertain-specificity", "answerable": "unanswerable", "gold_answer_idx": 4},
    ]
    predictions = {"a": 1, "b": None, "c": 0, "d": 0, "e": 1}
    scores = metrics.neoqa_scores(instances, predictions)
    assert scores["accuracy_answerable"] == 0.5
    assert scores["accuracy_deflection"] == pytest.approx(2 / 3)
    assert scores["adt_score"] == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert scores["accuracy"] == 0.6 and scores["count"] == 5
    assert scores["per_category"] == {
        "multi-hop/answerable": 1.0,
        "time-span/answerable": 0.0,
        "multi-hop/insufficient": 1.0,
        "false-premise": 1.0,
        "uncertain-specificity": 0.0,
    }
    with pytest.raises(ValueError, match="no prediction for instance 'e'"):
        metrics.neoqa_scores(instances, {"a": 1, "b": 2, "c": 0, "d": 0})


def test_oracle_and_always_deflect_on_the_fixture(encrypted_release: Path) -> None:
    rows = list(engine.PreparedSplit(encrypted_release, "neoqa", "test", key=23456))
    oracle = metrics.neoqa_scores(rows, {r["instance_id"]: r["gold_answer_idx"] for r in rows})
    assert oracle["adt_score"] == 1.0
    deflect = metrics.neoqa_scores(rows, {r["instance_id"]: r["answer_options"].index("Unanswerable") for r in rows})
    assert (deflect["accuracy_answerable"], deflect["accuracy_deflection"], deflect["adt_score"]) == (0.0, 1.0, 0.0)
    # an oracle that reads its answers back through the parser scores the same
    parsed = {
        r["instance_id"]: parse_answer(f"...\nAnswer: {r['gold_answer_idx'] + 1}", r["answer_options"]) for r in rows
    }
    assert metrics.neoqa_scores(rows, parsed)["adt_score"] == 1.0
