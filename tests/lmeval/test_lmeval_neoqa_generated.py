"""The NeoQA lm-eval tasks on a generated configuration (`neoqa_generate`): no release files, the oracle scores 1.0,
a model that always or never deflects scores ADTScore 0, and the logs and results say the data is ours (CC BY 4.0)."""

from __future__ import annotations

import pytest
from lm_eval.api.instance import Instance

from leakproof_qa.leakproof_eval import TaskSetupError
from leakproof_qa.leakproof_eval.models import AlwaysDeflectLM, NoWeightsLM, OracleLM
from leakproof_qa.leakproof_eval.neoqa_tasks import CATEGORY_METRICS, METRICS, NOT_EVALUATED, release_from
from leakproof_qa.leakproof_eval.texts import texts
from tests.lmeval.harness import evaluate, scores

pytestmark = pytest.mark.integration

TASKS = ("neoqa", "neoqa_gen")
ALL_METRICS = (*METRICS, *CATEGORY_METRICS)
NAME = "t3_s1"


def metadata(cache: str, name: str = NAME, **more: object) -> dict[str, object]:
    return {"neoqa_generate": name, "neoqa_cache_dir": cache, **more}


class NeverDeflectLM(NoWeightsLM):
    """The best model that never deflects: the gold when it is an answer, else the first answer option."""

    def option(self, request: Instance) -> int:
        options = texts(request.doc["release"])["instances"][request.doc["instance_id"]]["options"]
        gold = request.doc["gold_answer_idx"]
        return (
            gold if options[gold] != "Unanswerable" else next(i for i, o in enumerate(options) if o != "Unanswerable")
        )

    def respond(self, request: Instance) -> str:
        return f"Answer: {self.option(request) + 1}"

    def chooses(self, request: Instance) -> bool:
        return request.idx == self.option(request)


def test_the_oracle_scores_exactly_one_on_a_generated_configuration(universes):
    results = evaluate(OracleLM(), TASKS, **metadata(universes))
    assert scores(results, "neoqa") == {name: 1.0 for name in ALL_METRICS}
    assert scores(results, "neoqa_gen") == {name: 1.0 for name in ALL_METRICS} | {"parsed": 1.0}


@pytest.mark.parametrize("model", [AlwaysDeflectLM(), NeverDeflectLM()], ids=["always deflect", "never deflect"])
def test_always_or_never_deflecting_scores_adt_zero(universes, model):
    results = evaluate(model, TASKS, **metadata(universes))
    for task in TASKS:
        got = scores(results, task)
        assert got["adt_score"] == 0.0
        assert {got["accuracy_answerable"], got["accuracy_deflection"]} == {0.0, 1.0}


def test_the_results_name_the_generated_configuration_and_its_settings(universes):
    results = evaluate(OracleLM(), ["neoqa"], **metadata(universes, "t3_s1_optimal-evidence"))
    resolved = results["configs"]["neoqa"]["metadata"]["neoqa_resolved"]
    assert resolved["configuration"] == "t3_s1_optimal-evidence"
    assert resolved["license"] == "CC BY 4.0"
    assert (resolved["timelines"], resolved["seed"], resolved["events"], resolved["articles_per_event"]) == (
        3,
        1,
        10,
        12,
    )


@pytest.mark.parametrize(
    "more, says",
    [
        ({"neoqa_generate": "t3_x1"}, "neoqa_generate: bad NeoQA configuration name 't3_x1'"),
        ({"neoqa_generate": "t3_s1_news"}, "choose an instance set"),
        ({"neoqa_data_dir": "/somewhere"}, "reads no release files"),
        ({"neoqa_split": "dev"}, "has one split, 'test'"),
    ],
)
def test_a_bad_generated_configuration_is_one_line(universes, more, says):
    with pytest.raises(TaskSetupError, match=says) as error:
        release_from(metadata(universes) | more)
    assert "\n" not in str(error.value)


def test_generated_prompts_are_logged_in_full_as_ours_under_cc_by(universes):
    results = evaluate(OracleLM(), TASKS, log_samples=True, **metadata(universes))
    for task in TASKS:
        logged = results["samples"][task]
        assert logged and all(sample["doc"]["license"] == "CC BY 4.0" for sample in logged)
        prompts = [sample["arguments"][0][0] for sample in logged]  # each request's context
        assert all("Article 1:" in prompt for prompt in prompts)
        assert not any("withheld" in prompt for prompt in prompts)


def test_a_category_no_evaluated_document_falls_in_is_not_evaluated_rather_than_nan(universes):
    results = evaluate(OracleLM(), ["neoqa"], limit=2, **metadata(universes))
    got = scores(results, "neoqa")
    assert got["adt_score"] == 1.0  # the first two documents hold both sides
    missing = [name for name in CATEGORY_METRICS if got[name] == NOT_EVALUATED]
    assert missing and all(got[name] in (1.0, NOT_EVALUATED) for name in CATEGORY_METRICS)
