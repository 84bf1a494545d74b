"""Scoring, on hand-worked examples: answer-level P/R/F1 and exact match, deflection, ADTScore, CReSt's unified
score, citations."""

from __future__ import annotations

import math

import pytest

from leakproof_qa.builders.metrics import (
    DEFLECTION,
    adt_score,
    answer_judgement,
    answer_scores,
    answer_set,
    citation_scores,
    instance_scores,
    is_deflection,
    read_response,
    unified_points,
    unified_score,
)


def test_answers_are_split_on_commas_stripped_and_lower_cased():
    assert answer_set(" Ann Lee,bo LI ,, ") == {"ann lee", "bo li"}
    assert answer_set(["Ann Lee", "Bo Li, Cy Wu"]) == {"ann lee", "bo li", "cy wu"}


def test_precision_recall_f1_by_hand():
    # predicted {ann lee, bo li, cy wu}, gold {ann lee, bo li, di ng}: 2 hits
    scores = answer_scores("Ann Lee, Bo Li, Cy Wu", ["Ann Lee", "Bo Li", "Di Ng"])
    assert scores["precision"] == pytest.approx(2 / 3)
    assert scores["recall"] == pytest.approx(2 / 3)
    assert scores["f1"] == pytest.approx(2 / 3)
    assert scores["exact_match"] == 0.0
    # one of two gold answers, nothing extra: P = 1, R = 1/2, F1 = 2/3
    half = answer_scores("bo li", ["Ann Lee", "Bo Li"])
    assert (half["precision"], half["recall"], half["f1"]) == (1.0, 0.5, pytest.approx(2 / 3))


def test_exact_match_ignores_order_case_and_spaces_and_counts_compare_as_text():
    assert answer_scores("bo li ,ANN LEE", ["Ann Lee", "Bo Li"])["exact_match"] == 1.0
    assert answer_scores("3", ["3"])["f1"] == 1.0
    assert answer_scores("three", ["3"])["f1"] == 0.0
    assert answer_scores("", ["Ann Lee"]) == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "exact_match": 0.0}


DEFLECTION_TABLE = [  # (answer, is a deflection)
    (DEFLECTION, True),
    ("Insufficient information.", True),
    ("insufficient evidence", True),
    ("I cannot answer because the question is unanswerable with the documents.", True),  # CReSt's refusal
    ("The answer cannot be determined from the documents", True),
    ("It can't be determined.", True),
    ("cannot determine", True),
    ("There is not enough information to say.", True),
    ("Not enough evidence.", True),
    ("I don't know", True),
    ("I don\u2019t know.", True),
    ("I do not know", True),
    ("We dont know", True),
    ("Unknown", True),
    ("unknown.", True),
    ("The answer is unknown", True),
    ("The mother of Ann Lee is unknown.", True),
    ("N/A", True),
    ("The documents do not mention her father.", True),
    ("Her father is not mentioned in the documents.", True),
    ("I am unable to answer this question.", True),
    ("It is impossible to tell from the evidence.", True),
    ("The evidence is not sufficient.", True),
    ("There is no information about Bo Li.", True),
    ("No answer", True),
    ("Ann Lee", False),
    ("Ann Lee, Bo Li", False),
    ("3", False),
    ("0", False),
    ("Unknownson Lee", False),
    ("Ann Unknown", False),
    ("Unknown Lee", False),
    ("The information is sufficient: Bo Li", False),
    ("Noel Knowles", False),
    ("None", False),  # an answer: no such person
    ("Nobody", False),
    ("1990-05-01", False),
    ("", False),
]


@pytest.mark.parametrize("text, expected", DEFLECTION_TABLE)
def test_deflection_detection_follows_the_table(text, expected):
    assert is_deflection(text) is expected


def test_a_gold_list_holding_the_deflection_is_a_deflection():
    assert is_deflection([DEFLECTION]) and not is_deflection(["Ann Unknown", "Bo Li"])


def test_unified_points_follow_crest_table_2():
    gold = ["Ann Lee", "Bo Li"]
    assert unified_points("Bo Li, Ann Lee", gold, answerable=True) == 1.0  # correct
    assert unified_points("Bo Li", gold, answerable=True) == 0.5  # partially correct
    assert unified_points("Cy Wu", gold, answerable=True) == 0.0  # wrong
    assert unified_points("unanswerable", gold, answerable=True) == -1.0  # refused an answerable question
    assert unified_points(DEFLECTION, [DEFLECTION], answerable=False) == 1.0  # refused an unanswerable one
    assert unified_points("Ann Lee", [DEFLECTION], answerable=False) == 0.0  # answered it
    assert answer_judgement("Bo Li, Cy Wu", gold) == "partial"


def test_unified_score_is_the_mean_of_the_two_sides():
    # answerable: 1, 0.5, -1 -> mean 1/6; unanswerable: 1, 0 -> mean 1/2; unified (1/6 + 1/2) / 2 = 1/3
    assert unified_score([1.0, 0.5, -1.0], [1.0, 0.0]) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="at least one answerable and one unanswerable"):
        unified_score([1.0], [])


def test_citation_precision_and_recall_by_hand():
    assert citation_scores([0, 2, 5], [2, 3]) == {"citation_precision": pytest.approx(1 / 3), "citation_recall": 0.5}
    assert citation_scores([], [1]) == {"citation_precision": 0.0, "citation_recall": 0.0}
    assert citation_scores([], []) == {"citation_precision": 1.0, "citation_recall": 1.0}


def test_scoring_a_small_set_of_instances_by_hand():
    instances = [
        {"instance_id": "a", "answerable": "sufficient", "answer": ["Ann Lee", "Bo Li"], "citations": [1, 3]},
        {"instance_id": "b", "answerable": "sufficient", "answer": ["2"], "citations": [0]},
        {"instance_id": "c", "answerable": "insufficient", "answer": [DEFLECTION], "citations": [1]},
        {"instance_id": "d", "answerable": "insufficient", "answer": [DEFLECTION], "citations": []},
    ]
    predictions = {
        "a": {"answer": "Ann Lee", "citations": [1]},  # P 1, R 1/2, F1 2/3, partial (0.5); cites P 1, R 1/2
        "b": {"answer": "2", "citations": [0, 4]},  # exact (1); cites P 1/2, R 1
        "c": {"answer": "Insufficient information"},  # deflected (1)
        "d": {"answer": "Bo Li"},  # answered by shortcut (0)
    }
    scores = instance_scores(instances, predictions)
    assert scores["precision"] == 1.0
    assert scores["recall"] == pytest.approx(0.75)
    assert scores["f1"] == pytest.approx((2 / 3 + 1) / 2)
    assert scores["exact_match"] == 0.5
    assert scores["accuracy_answerable"] == 0.5 and scores["accuracy_deflection"] == 0.5
    assert scores["adt_score"] == pytest.approx(adt_score(0.5, 0.5)) == pytest.approx(0.5)
    assert scores["unified_score"] == pytest.approx(((0.5 + 1) / 2 + (1 + 0) / 2) / 2)
    assert scores["citation_precision"] == pytest.approx(0.75) and scores["citation_recall"] == pytest.approx(0.75)
    assert scores["count"] == 4


def test_a_missing_prediction_is_an_error_and_one_sided_sets_are_undefined():
    one = [{"instance_id": "a", "answerable": "sufficient", "answer": ["x"], "citations": []}]
    with pytest.raises(ValueError, match="no prediction for instance 'a'"):
        instance_scores(one, {})
    scores = instance_scores(one, {"a": {"answer": "x"}})
    assert scores["exact_match"] == 1.0 and math.isnan(scores["adt_score"]) and math.isnan(scores["unified_score"])


def test_scores_per_category_pair_the_answerable_side_with_each_kind_of_instance_to_deflect():
    instances = [
        {"instance_id": "a", "answerable": "sufficient", "answer": ["Ann Lee"], "citations": [0]},
        {"instance_id": "b", "answerable": "sufficient", "answer": ["Bo Li"], "citations": [0]},
        {"instance_id": "c", "answerable": "insufficient", "answer": [DEFLECTION], "citations": []},
        {
            "instance_id": "d",
            "answerable": "unanswerable",
            "unanswerable_kind": "false_premise_relation",
            "answer": [DEFLECTION],
            "citations": [],
        },
        {
            "instance_id": "e",
            "answerable": "unanswerable",
            "unanswerable_kind": "false_premise_relation",
            "answer": [DEFLECTION],
            "citations": [],
        },
        {
            "instance_id": "f",
            "answerable": "unanswerable",
            "unanswerable_kind": "uncertain_specificity",
            "answer": [DEFLECTION],
            "citations": [],
        },
    ]
    predictions = {
        "a": {"answer": "Ann Lee"},  # correct (1)
        "b": {"answer": "I don't know"},  # refused an answerable question (-1)
        "c": {"answer": "insufficient information"},  # right (1)
        "d": {"answer": "Ann Lee"},  # took the false premise (0)
        "e": {"answer": "unanswerable"},  # right (1)
        "f": {"answer": "Cy Wu"},  # took the qualifier (0)
    }
    scores = instance_scores(instances, predictions)
    assert scores["accuracy_answerable"] == 0.5 and scores["accuracy_deflection"] == 0.5
    assert list(scores["per_category"]) == [
        "answerable",
        "insufficient",
        "false_premise_relation",
        "uncertain_specificity",
    ]
    assert scores["per_category"]["answerable"] == {"accuracy": 0.5, "count": 2}
    assert scores["per_category"]["insufficient"] == {
        "accuracy": 1.0,
        "count": 1,
        "adt_score": pytest.approx(2 / 3),
        "unified_score": pytest.approx((0 + 1) / 2),
    }
    assert scores["per_category"]["false_premise_relation"] == {
        "accuracy": 0.5,
        "count": 2,
        "adt_score": 0.5,
        "unified_score": pytest.approx((0 + 0.5) / 2),
    }
    assert scores["per_category"]["uncertain_specificity"] == {
        "accuracy": 0.0,
        "count": 1,
        "adt_score": 0.0,
        "unified_score": 0.0,
    }


def test_multiple_choice_scores_count_the_gold_option_only():
    from leakproof_qa.builders.metrics import choice_scores

    instances = [
        {"instance_id": "a", "answerable": "sufficient", "gold_answer_idx": 2},
        {"instance_id": "b", "answerable": "insufficient", "gold_answer_idx": 0},
        {
            "instance_id": "c",
            "answerable": "unanswerable",
            "unanswerable_kind": "nonexistent_person",
            "gold_answer_idx": 0,
        },
        {
            "instance_id": "d",
            "answerable": "unanswerable",
            "unanswerable_kind": "nonexistent_person",
            "gold_answer_idx": 0,
        },
    ]
    scores = choice_scores(instances, {"a": 2, "b": 0, "c": 1, "d": None})
    assert scores["accuracy_answerable"] == 1.0 and scores["accuracy_deflection"] == pytest.approx(1 / 3)
    assert scores["adt_score"] == pytest.approx(adt_score(1.0, 1 / 3)) and scores["accuracy"] == 0.5
    assert scores["per_category"] == {"answerable": 1.0, "insufficient": 1.0, "nonexistent_person": 0.0}
    assert scores["count"] == 4


def test_read_response_reads_any_string_and_a_number_too_long_to_be_a_document_is_no_citation():
    assert read_response("Answer: Ann [" + "9" * 5000 + "] [2]") == {"answer": "Ann", "citations": [1]}
    assert read_response("Answer: Ann [123456789, 1234567890]")["citations"] == [123456788]
