"""PhantomWiki through lm_eval itself: no-weights models bound the scores, and lm_eval scores exactly as builders.metrics."""

from __future__ import annotations

import hashlib
import math

import pytest
from conftest import evaluate, scores
from lm_eval.api.instance import Instance

import phantom_wiki
from builders import metrics
from leakproof_eval.models import AlwaysDeflectLM, ConstantLM, NoWeightsLM, OracleLM
from leakproof_eval.phantom_wiki_tasks import CITATION_METRICS, EVIDENCE_METRICS, gold_response, read_response

QUESTION_METRICS = ("precision", "recall", "f1", "exact_match")
EVIDENCE_TASKS = ("phantom_wiki_instances", "phantom_wiki_rag")
CITE_TASKS = ("phantom_wiki_instances_cite", "phantom_wiki_rag_cite")
ALL_TASKS = ("phantom_wiki_questions", *EVIDENCE_TASKS, *CITE_TASKS)


def metric_names(task: str) -> tuple[str, ...]:
    if task == "phantom_wiki_questions":
        return QUESTION_METRICS
    return EVIDENCE_METRICS + (CITATION_METRICS if task in CITE_TASKS else ())


@pytest.mark.parametrize("config", ["n50_s1", "n500_s1"])
def test_the_oracle_scores_exactly_one_on_every_metric_of_every_task(universes, config):
    results = evaluate(OracleLM(), ALL_TASKS, phantom_wiki_config=config, phantom_wiki_cache_dir=universes)
    for task in ALL_TASKS:
        assert scores(results, task) == {name: 1.0 for name in metric_names(task)}, task
    every = phantom_wiki.load_dataset(f"{config}_instances", split="test", cache_dir=universes).num_rows
    assert results["results"]["phantom_wiki_instances"]["sample_len"] == every  # no limit: every instance


@pytest.mark.parametrize("config", ["n50_s1", "n500_s1"])
def test_always_deflecting_is_right_exactly_on_the_insufficient_side_and_scores_adt_zero(universes, config):
    results = evaluate(AlwaysDeflectLM(), ALL_TASKS, phantom_wiki_config=config, phantom_wiki_cache_dir=universes)
    assert scores(results, "phantom_wiki_questions") == {name: 0.0 for name in QUESTION_METRICS}
    for task in EVIDENCE_TASKS + CITE_TASKS:
        expected = {name: 0.0 for name in metric_names(task)} | {"accuracy_deflection": 1.0}
        # unified: refusing every answerable question scores -1, refusing every insufficient one +1: mean 0
        assert scores(results, task) == expected, task


@pytest.mark.parametrize("config", ["n50_s1", "n500_s1"])
def test_a_constant_answer_scores_zero_everywhere(universes, config):
    results = evaluate(ConstantLM(), ALL_TASKS, phantom_wiki_config=config, phantom_wiki_cache_dir=universes)
    for task in ALL_TASKS:
        assert scores(results, task) == {name: 0.0 for name in metric_names(task)}, task


def test_the_group_reports_the_mean_f1_of_its_three_tasks(universes):
    results = evaluate(MixedLM(), ["phantom_wiki"], limit=60, phantom_wiki_config="n50_s1", phantom_wiki_cache_dir=universes)
    tasks = ["phantom_wiki_questions", "phantom_wiki_instances", "phantom_wiki_rag"]
    f1 = [results["results"][task]["f1,answer"] for task in tasks]
    assert results["results"]["phantom_wiki"]["f1,answer"] == pytest.approx(sum(f1) / 3)
    assert results["group_subtasks"]["phantom_wiki"] == tasks


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


@pytest.mark.parametrize("task", EVIDENCE_TASKS + CITE_TASKS)
def test_lm_eval_scores_equal_builders_metrics_on_the_same_predictions(universes, task):
    results = evaluate(MixedLM(), [task], log_samples=True, phantom_wiki_config="n50_s1", phantom_wiki_cache_dir=universes)
    samples = results["samples"][task]
    predictions = {}
    for sample in samples:
        prediction = sample["filtered_resps"][0]
        assert prediction == read_response(sample["resps"][0][0])  # what was scored is what the model said
        predictions[sample["doc"]["id"]] = prediction if sample["doc"]["cite"] else {"answer": prediction["answer"]}
    rows = [{"instance_id": s["doc"]["id"], "answerable": s["doc"]["answerable"], "answer": s["doc"]["answer"],
             "citations": s["doc"]["citations"]} for s in samples]
    expected = metrics.instance_scores(rows, predictions)
    got = scores(results, task)
    assert got == {name: expected[name] for name in metric_names(task)}
    assert all(0 < value < 1 for value in got.values()), got  # a mixed model: every metric strictly between


def test_question_scores_are_answer_scores_per_question_and_their_mean(universes):
    results = evaluate(MixedLM(), ["phantom_wiki_questions"], log_samples=True, phantom_wiki_config="n50_s1",
                       phantom_wiki_cache_dir=universes)
    samples = results["samples"]["phantom_wiki_questions"]
    for sample in samples:
        expected = metrics.answer_scores(read_response(sample["resps"][0][0])["answer"], sample["doc"]["answer"])
        assert {name: sample[name] for name in QUESTION_METRICS} == expected
    for name in QUESTION_METRICS:
        assert scores(results, "phantom_wiki_questions")[name] == pytest.approx(
            sum(s[name] for s in samples) / len(samples), abs=1e-12)


@pytest.mark.parametrize("task", EVIDENCE_TASKS)
def test_a_limit_of_twenty_scores_both_sides(universes, task):
    results = evaluate(AlwaysDeflectLM(), [task], limit=20, phantom_wiki_config="n500_s1", phantom_wiki_cache_dir=universes)
    got = scores(results, task)
    assert results["results"][task]["sample_len"] == 20
    assert (got["accuracy_answerable"], got["accuracy_deflection"], got["adt_score"]) == (0.0, 1.0, 0.0)
    assert not any(math.isnan(value) for value in got.values())


@pytest.mark.parametrize("response, answer, citations", [
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
])
def test_a_response_is_read_as_its_answer_line_and_cited_document_numbers(response, answer, citations):
    assert read_response(response) == {"answer": answer, "citations": citations}
