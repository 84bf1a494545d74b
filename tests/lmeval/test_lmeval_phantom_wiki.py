"""PhantomWiki through lm_eval itself: no-weights models bound the scores, and lm_eval scores exactly as
builders.metrics."""

from __future__ import annotations

import hashlib
import math

import pytest
from lm_eval.api.instance import Instance

import phantom_wiki
from leakproof_qa.builders import metrics
from leakproof_qa.leakproof_eval.models import AlwaysDeflectLM, ConstantLM, NoWeightsLM, OracleLM
from leakproof_qa.leakproof_eval.phantom_wiki_tasks import (
    CHOICE_METRICS,
    CITATION_METRICS,
    EVIDENCE_METRICS,
    gold_response,
    read_response,
)
from tests.lmeval.harness import evaluate
from tests.lmeval.harness import scores as all_scores

RETRIEVAL = ("recall@", "mrr@", "ndcg@", "sufficient@")


def scores(results: dict, task: str) -> dict[str, float]:
    """A task's answer metrics: the model's, without RAG's retrieval metrics (those score BM25, whatever the model
    says: tests/lmeval/test_lmeval_long.py checks them)."""
    return {name: value for name, value in all_scores(results, task).items() if not name.startswith(RETRIEVAL)}


pytestmark = [pytest.mark.integration, pytest.mark.slow]

# 150 questions of n50 (few distractors) and of n500: these scores are properties of the model, not of how many
# questions there are (the oracle above reads every instance of both universes)
FEWER = {"phantom_wiki_questions_per_template": 3}
SMALLER = [("n50_s1", FEWER), ("n500_s1", FEWER)]

QUESTION_METRICS = ("precision", "recall", "f1", "exact_match")
EVIDENCE_TASKS = ("phantom_wiki_instances", "phantom_wiki_rag")
CITE_TASKS = ("phantom_wiki_instances_cite", "phantom_wiki_rag_cite")
ALL_TASKS = ("phantom_wiki_questions", *EVIDENCE_TASKS, *CITE_TASKS, "phantom_wiki_mc")
HEADLINE = ("phantom_wiki_instances", "phantom_wiki_rag", "phantom_wiki_mc")


def metric_names(task: str) -> tuple[str, ...]:
    if task == "phantom_wiki_questions":
        return QUESTION_METRICS
    if task == "phantom_wiki_mc":
        return CHOICE_METRICS
    return EVIDENCE_METRICS + (CITATION_METRICS if task in CITE_TASKS else ())


@pytest.mark.parametrize("config", ["n50_s1", "n500_s1"])
def test_the_oracle_scores_exactly_one_on_every_metric_of_every_task(universes, config):
    results = evaluate(OracleLM(), ALL_TASKS, phantom_wiki_config=config, phantom_wiki_cache_dir=universes)
    for task in ALL_TASKS:
        assert scores(results, task) == {name: 1.0 for name in metric_names(task)}, task
    every = phantom_wiki.load_dataset(f"{config}_instances", split="test", cache_dir=universes).num_rows
    assert results["results"]["phantom_wiki_instances"]["sample_len"] == every  # no limit: every instance


@pytest.mark.parametrize("config, knobs", SMALLER)
def test_always_deflecting_is_right_exactly_on_the_insufficient_side_and_scores_adt_zero(universes, config, knobs):
    results = evaluate(
        AlwaysDeflectLM(), ALL_TASKS, phantom_wiki_config=config, phantom_wiki_cache_dir=universes, **knobs
    )
    assert scores(results, "phantom_wiki_questions") == {name: 0.0 for name in QUESTION_METRICS}
    mc = scores(results, "phantom_wiki_mc")
    assert (mc["adt_score"], mc["accuracy_answerable"], mc["accuracy_deflection"]) == (0.0, 0.0, 1.0)
    for task in EVIDENCE_TASKS + CITE_TASKS:
        expected = {name: 0.0 for name in metric_names(task)} | {"accuracy_deflection": 1.0}
        # unified: refusing every answerable question scores -1, refusing every insufficient one +1: mean 0
        assert scores(results, task) == expected, task


@pytest.mark.parametrize("config, knobs", SMALLER)
def test_a_constant_answer_scores_zero_everywhere(universes, config, knobs):
    tasks = [task for task in ALL_TASKS if task != "phantom_wiki_mc"]  # in multiple choice a constant picks option 1
    results = evaluate(ConstantLM(), tasks, phantom_wiki_config=config, phantom_wiki_cache_dir=universes, **knobs)
    for task in tasks:
        assert scores(results, task) == {name: 0.0 for name in metric_names(task)}, task


def test_the_headline_is_the_mean_adt_score_of_the_three_evidence_settings(universes):
    results = evaluate(
        MixedLM(), ["phantom_wiki"], limit=60, phantom_wiki_config="n50_s1", phantom_wiki_cache_dir=universes
    )
    adt = [results["results"][task]["adt_score,answer"] for task in HEADLINE]
    assert results["results"]["phantom_wiki"]["adt_score,answer"] == pytest.approx(sum(adt) / 3)
    assert [key for key in results["results"]["phantom_wiki"] if "," in key and "stderr" not in key] == [
        "adt_score,answer"
    ]
    assert results["group_subtasks"]["phantom_wiki"] == list(HEADLINE)


class ParentAnswerLM(NoWeightsLM):
    """Never refuses: gives the question family's answer (its parent question's) to every instance and variant."""

    def respond(self, request: Instance) -> str:
        return ", ".join(request.doc["question_answer"])

    def chooses(self, request: Instance) -> bool:
        options = request.doc["answer_options"]
        return options[request.idx] == ", ".join(request.doc["question_answer"])


@pytest.mark.parametrize("config, knobs", SMALLER)
def test_a_model_that_never_refuses_scores_zero_on_every_unanswerable_kind_and_on_the_headline(
    universes, config, knobs
):
    results = evaluate(
        ParentAnswerLM(),
        ["phantom_wiki"],
        log_samples=True,
        phantom_wiki_config=config,
        phantom_wiki_cache_dir=universes,
        **knobs,
    )
    assert results["results"]["phantom_wiki"]["adt_score,answer"] < 0.5
    for task in HEADLINE:
        samples = results["samples"][task]
        kinds = {s["doc"]["unanswerable_kind"] for s in samples} - {""}
        every_kind = {
            "false_premise_relation",
            "false_premise_attribute",
            "nonexistent_person",
            "uncertain_specificity",
        }
        if task == "phantom_wiki_rag":  # 20 to 40 balanced rows at 3 questions a template: not every kind is drawn
            assert len(kinds) >= 2 and kinds <= every_kind
        else:
            assert kinds == every_kind
        if task == "phantom_wiki_mc":
            per_category = metrics.choice_scores(
                [
                    {
                        "instance_id": s["doc"]["id"],
                        "answerable": s["doc"]["answerable"],
                        "unanswerable_kind": s["doc"]["unanswerable_kind"],
                        "gold_answer_idx": s["doc"]["gold_answer_idx"],
                    }
                    for s in samples
                ],
                {
                    s["doc"]["id"]: s["filtered_resps"][0]
                    and max(range(len(s["filtered_resps"])), key=lambda i: s["filtered_resps"][i][0])
                    for s in samples
                },
            )["per_category"]
        else:
            rows = [
                {
                    "instance_id": s["doc"]["id"],
                    "answerable": s["doc"]["answerable"],
                    "answer": s["doc"]["answer"],
                    "unanswerable_kind": s["doc"]["unanswerable_kind"],
                    "citations": [],
                }
                for s in samples
            ]
            per_category = {
                name: values["accuracy"]
                for name, values in metrics.instance_scores(
                    rows, {s["doc"]["id"]: {"answer": s["filtered_resps"][0]["answer"]} for s in samples}
                )["per_category"].items()
            }
        assert {kind: per_category[kind] for kind in kinds} == {kind: 0.0 for kind in kinds}, task


class MixedLM(NoWeightsLM):
    """Right, partly right, wrong and declining in many phrasings, with and without citations: chosen per document."""

    def respond(self, request: Instance) -> str:
        doc = request.doc
        gold = doc["answer"]
        cited = "".join(f"[{p + 1}]" for p in doc.get("citations", [])[:1])
        kind = int(hashlib.sha256(doc["id"].encode()).hexdigest(), 16) % 9
        return [
            gold_response(doc),
            gold[0] + (" " + cited if doc.get("cite") else ""),
            "Nobody Atall, " + ", ".join(gold),
            "Nobody Atall",
            "I don't know.",
            "The answer cannot be determined from the documents.",
            f"<think>\nLet me see [9].\n</think>\nAnswer: {', '.join(gold)} [1][2]",
            f"Reasoning first.\nFinal answer: {gold[-1]}.",
            "",
        ][kind]

    def chooses(self, request: Instance) -> bool:
        """The gold option, the first option or "Unanswerable", chosen per document."""
        doc = request.doc
        kind = int(hashlib.sha256(doc["id"].encode()).hexdigest(), 16) % 3
        chosen = [doc["gold_answer_idx"], 0, doc["answer_options"].index("Unanswerable")][kind]
        return request.idx == chosen


@pytest.mark.parametrize("task", EVIDENCE_TASKS + CITE_TASKS)
def test_lm_eval_scores_equal_builders_metrics_on_the_same_predictions(universes, task):
    results = evaluate(
        MixedLM(), [task], log_samples=True, phantom_wiki_config="n50_s1", phantom_wiki_cache_dir=universes
    )
    samples = results["samples"][task]
    predictions = {}
    for sample in samples:
        prediction = sample["filtered_resps"][0]
        assert prediction == read_response(sample["resps"][0][0])  # what was scored is what the model said
        predictions[sample["doc"]["id"]] = prediction if sample["doc"]["cite"] else {"answer": prediction["answer"]}
    rows = [
        {
            "instance_id": s["doc"]["id"],
            "answerable": s["doc"]["answerable"],
            "answer": s["doc"]["answer"],
            "citations": s["doc"]["citations"],
        }
        for s in samples
    ]
    expected = metrics.instance_scores(rows, predictions)
    got = scores(results, task)
    assert got == {name: expected[name] for name in metric_names(task)}
    assert all(0 < value < 1 for value in got.values()), got  # a mixed model: every metric strictly between


def test_question_scores_are_answer_scores_per_question_and_their_mean(universes):
    results = evaluate(
        MixedLM(),
        ["phantom_wiki_questions"],
        log_samples=True,
        phantom_wiki_config="n50_s1",
        phantom_wiki_cache_dir=universes,
    )
    samples = results["samples"]["phantom_wiki_questions"]
    for sample in samples:
        expected = metrics.answer_scores(read_response(sample["resps"][0][0])["answer"], sample["doc"]["answer"])
        assert {name: sample[name] for name in QUESTION_METRICS} == expected
    for name in QUESTION_METRICS:
        assert scores(results, "phantom_wiki_questions")[name] == pytest.approx(
            sum(s[name] for s in samples) / len(samples), abs=1e-12
        )


@pytest.mark.parametrize("task", EVIDENCE_TASKS)
def test_a_limit_of_twenty_scores_both_sides(universes, task):
    results = evaluate(
        AlwaysDeflectLM(), [task], limit=20, phantom_wiki_config="n500_s1", phantom_wiki_cache_dir=universes
    )
    got = scores(results, task)
    assert results["results"][task]["sample_len"] == 20
    assert (got["accuracy_answerable"], got["accuracy_deflection"], got["adt_score"]) == (0.0, 1.0, 0.0)
    assert not any(math.isnan(value) for value in got.values())


@pytest.mark.parametrize(
    "response, answer, citations",
    [
        ("Ann Lee", "Ann Lee", []),
        ("  Ann Lee, Bo Li.\n\nMore text", "Ann Lee, Bo Li", []),
        ("Ann Lee, Bo Li [2][5]", "Ann Lee, Bo Li", [1, 4]),
        ("Ann Lee [1, 3]", "Ann Lee", [0, 2]),
        ("Ann Lee\n[4]", "Ann Lee", [3]),
        ("**Ann Lee**", "Ann Lee", []),
        ('"insufficient information"', "insufficient information", []),
        ("Let me think [7].\nAnswer: Bo Li [2]", "Bo Li", [1]),
        ("<think>Maybe Cy Wu.\n\nAnswer: Cy Wu</think>\nAnn Lee", "Ann Lee", []),
        ("1990-05-01.", "1990-05-01", []),
        ("", "", []),
    ],
)
def test_a_response_is_read_as_its_answer_line_and_cited_document_numbers(response, answer, citations):
    assert read_response(response) == {"answer": answer, "citations": citations}
