"""NeoQA through lm_eval on the invented fixture release: bounds, builders.metrics scoring, and no release text in
logs."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest
from lm_eval import simple_evaluate
from lm_eval.api.instance import Instance
from lm_eval.loggers import EvaluationTracker

import neoqa
from leakproof_qa.builders import metrics
from leakproof_qa.builders.neoqa import parse_answer, strip_markup
from leakproof_qa.leakproof_eval import TaskSetupError
from leakproof_qa.leakproof_eval.__main__ import main as leakproof_main
from leakproof_qa.leakproof_eval.models import AlwaysDeflectLM, ConstantLM, NoWeightsLM, OracleLM
from leakproof_qa.leakproof_eval.neoqa_tasks import CATEGORY_METRICS, METRICS
from tests.lmeval.harness import evaluate, scores, task_manager
from tests.neoqa import make_fixture_release

pytestmark = pytest.mark.integration

TASKS = ("neoqa", "neoqa_gen")
ALL_METRICS = (*METRICS, *CATEGORY_METRICS)


def metadata(release: Path, config: str = "neoqa", **more: object) -> dict[str, object]:
    return {
        "neoqa_data_dir": str(release),
        "neoqa_decryption_key": 23456,
        "neoqa_config": config,
        "neoqa_cache_dir": str(release / "cache"),
        **more,
    }


def instances(release: Path, config: str = "neoqa") -> list[dict]:
    return neoqa.load_dataset(
        config,
        split="test",
        data_dir=str(release),
        decryption_key=23456,
        cache_dir=str(release / "cache"),
        include_documents=False,
    ).to_list()


@pytest.mark.parametrize("config", ["neoqa", "optimal-evidence", "context-ablation"])
def test_the_oracle_scores_exactly_one_on_every_metric(neoqa_release, config):
    results = evaluate(OracleLM(), TASKS, **metadata(neoqa_release, config))
    assert scores(results, "neoqa") == {name: 1.0 for name in ALL_METRICS}
    assert scores(results, "neoqa_gen") == {name: 1.0 for name in ALL_METRICS} | {"parsed": 1.0}


def test_always_deflecting_is_right_exactly_on_the_must_deflect_side(neoqa_release):
    results = evaluate(AlwaysDeflectLM(), TASKS, **metadata(neoqa_release))
    rows = instances(neoqa_release)
    share = sum(r["answerable"] != metrics.ANSWERABLE_LABEL for r in rows) / len(rows)
    expected = {"adt_score": 0.0, "accuracy_answerable": 0.0, "accuracy_deflection": 1.0, "accuracy": share} | {
        name: float(not name.endswith("_answerable")) for name in CATEGORY_METRICS
    }
    assert scores(results, "neoqa") == expected
    assert scores(results, "neoqa_gen") == expected | {"parsed": 1.0}


def test_a_constant_answer_scores_zero_and_in_multiple_choice_scores_option_one(neoqa_release):
    results = evaluate(ConstantLM(), TASKS, **metadata(neoqa_release))
    assert scores(results, "neoqa_gen") == {name: 0.0 for name in ALL_METRICS} | {"parsed": 0.0}
    # multiple choice: every option equally likely, so lm_eval takes the first, whichever is gold
    rows = instances(neoqa_release)
    first = metrics.neoqa_scores(rows, {r["instance_id"]: 0 for r in rows})
    expected = {name: first[name] for name in METRICS} | {
        name: first["per_category"][category] for name, category in CATEGORY_METRICS.items()
    }
    assert scores(results, "neoqa") == expected and expected["accuracy"] < 1


class MixedLM(NoWeightsLM):
    """Picks the gold, a wrong option, the deflection option, an option by its text, or nothing readable, per
    instance."""

    def kind(self, request: Instance) -> int:
        return int(hashlib.sha256(request.doc["instance_id"].encode()).hexdigest(), 16) % 5

    def respond(self, request: Instance) -> str:
        doc = request.doc
        gold = doc["gold_answer_idx"] + 1
        return [
            f"Answer: {gold}",
            f"Answer: {gold % len(doc['choices']) + 1}",
            "**Answer:** Unanswerable",
            f"It must be option {gold}.",
            f"Thinking...\nAnswer: [{gold}]",
        ][self.kind(request)]

    def chooses(self, request: Instance) -> bool:
        gold = request.doc["gold_answer_idx"]
        return request.idx == [gold, (gold + 1) % len(request.doc["choices"]), 0, gold, 1][self.kind(request)]


def test_lm_eval_scores_equal_builders_metrics_on_the_same_predictions(neoqa_release):
    results = evaluate(MixedLM(), TASKS, log_samples=True, **metadata(neoqa_release))
    rows = {r["instance_id"]: r for r in instances(neoqa_release)}
    for task in TASKS:
        predictions = {}
        for sample in results["samples"][task]:
            row = rows[sample["doc"]["instance_id"]]
            if task == "neoqa_gen":
                predicted = sample["filtered_resps"][0]
                assert predicted == parse_answer(sample["resps"][0][0], row["answer_options"])
            else:
                likelihoods = [resp[0] for resp in sample["filtered_resps"]]
                predicted = likelihoods.index(max(likelihoods))
            predictions[row["instance_id"]] = predicted
        expected = metrics.neoqa_scores(list(rows.values()), predictions)
        got = scores(results, task)
        assert {name: got[name] for name in METRICS} == {name: expected[name] for name in METRICS}, task
        assert {name: got[name] for name in CATEGORY_METRICS} == {
            name: expected["per_category"][category] for name, category in CATEGORY_METRICS.items()
        }, task
        assert 0 < got["adt_score"] < 1, task


def release_texts() -> set[str]:
    """Every text of the fixture release a model reads: headlines, passages, questions, answer options."""
    found = set()
    for split in ("dev", "test"):
        records = make_fixture_release.release_records(split)
        for article in records["news"]:
            found.update([strip_markup(article["headline"]), *(strip_markup(p) for p in article["passages"])])
        for question in records["questions"]:
            found.update([question["question"], *question["answer_options"]])
    return {text for text in found if len(text) > 12}  # not "Unanswerable", "45 days": words anyone may write


def test_logged_samples_and_results_files_hold_ids_but_no_release_text(neoqa_release, tmp_path):
    tracker = EvaluationTracker(output_path=str(tmp_path / "out"))
    names = list(TASKS)
    manager = task_manager(**metadata(neoqa_release))
    tasks = manager.load(names)["tasks"]
    prompts = "\n".join(task.doc_to_text(doc) for task in tasks.values() for doc in task.eval_docs)
    shown = [text for text in release_texts() if text in prompts]
    assert len(shown) > 100  # the model reads the release text ...
    results = simple_evaluate(
        model=OracleLM(),
        tasks=list(tasks.values()),
        task_manager=manager,
        log_samples=True,
        evaluation_tracker=tracker,
        bootstrap_iters=0,
    )
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)  # what `lm_eval --log_samples` writes
    for task in names:
        tracker.save_results_samples(task_name=task, samples=samples[task])
    written = "\n".join(path.read_text() for path in (tmp_path / "out").rglob("*") if path.is_file())
    assert "samples_neoqa_gen" in " ".join(p.name for p in (tmp_path / "out").rglob("*"))
    leaked = [text for text in shown if text in written]
    assert not leaked, leaked[:3]  # ... and none of it reaches the files
    assert all(row["instance_id"] in written for row in instances(neoqa_release))
    assert "NeoQA prompt withheld from logs (CC BY-ND 4.0)" in written
    assert '"license": "CC BY-ND 4.0"' in written  # each logged document, and neoqa_resolved in the results file


def test_the_prompt_numbers_the_options_from_one_and_multiple_choice_ends_in_answer(neoqa_release):
    task = task_manager(**metadata(neoqa_release)).load(["neoqa"])["tasks"]["neoqa"]
    rows = {
        r["instance_id"]: r
        for r in neoqa.load_dataset(
            "neoqa",
            split="test",
            data_dir=str(neoqa_release),
            decryption_key=23456,
            cache_dir=str(neoqa_release / "cache"),
        )
    }
    for doc in task.eval_docs:
        text, row = task.doc_to_text(doc), rows[doc["instance_id"]]
        assert text.endswith("\nAnswer:") and row["question"] in text
        for number, option in enumerate(row["answer_options"], 1):
            assert f"\n{number}. {option}\n" in text
        for document in row["documents"]:
            assert document["headline"] in text and all(p in text for p in document["passages"])
        assert task.doc_to_choice(doc)[task.doc_to_target(doc)] == str(row["gold_answer_idx"] + 1)


@pytest.mark.parametrize(
    "extra, message",
    [
        ({"neoqa_data_dir": None}, "NeoQA needs its release files"),
        ({"neoqa_decryption_key": 7}, "key"),
        ({"neoqa_config": "news"}, "choose an instance set"),
        ({"neoqa_split": "train"}, "no split 'train'"),
        ({"neoqa_colour": "blue"}, "unknown metadata key neoqa_colour"),
    ],
)
def test_bad_metadata_is_a_one_line_error(neoqa_release, extra, message):
    with pytest.raises(TaskSetupError, match=message) as error:
        task_manager(**metadata(neoqa_release) | extra).load(["neoqa"])
    assert "\n" not in str(error.value)


def test_the_wrapper_refuses_to_push_neoqa_samples_to_the_hub(capsys, tmp_path):
    out = tmp_path / "out"
    code = leakproof_main(
        [
            "run",
            "--model",
            "oracle",
            "--tasks",
            "neoqa",
            "--log_samples",
            "--output_path",
            str(out),
            "--hf_hub_log_args",
            "hub_results_org=me,push_samples_to_hub=True",
        ]
    )
    assert code == 2 and "refusing to push NeoQA samples" in capsys.readouterr().err
    assert not out.exists()  # refused before lm_eval ran


@pytest.mark.parametrize(
    "args, refused",
    [
        (["--tasks", "neoqa", "--hf_hub_log_args", "push_samples_to_hub=True"], True),
        (["--tasks", "neoqa_gen", "--hf_hub_log_args", "hub_results_org=me,push_samples_to_hub=1"], True),
        (["-t", "neoqa_tasks", "--hf_hub_log_args", '{"push_samples_to_hub": true}'], True),
        (["--tasks", "neoqa", "--hf_hub_log_args", "push_results_to_hub=True,push_samples_to_hub=False"], False),
        (["--tasks", "phantom_wiki", "--hf_hub_log_args", "push_samples_to_hub=True"], False),
        (  # a generated configuration is ours, CC BY 4.0
            [
                "--tasks",
                "neoqa",
                "--metadata",
                '{"neoqa_generate": "t3_s1"}',
                "--hf_hub_log_args",
                "push_samples_to_hub=1",
            ],
            False,
        ),
    ],
)
def test_the_wrapper_refuses_exactly_the_runs_that_would_push_neoqa_samples(args, refused, monkeypatch):
    from leakproof_qa.leakproof_eval.__main__ import _pushes_neoqa_samples, parse

    monkeypatch.setattr(sys, "argv", list(sys.argv))
    assert _pushes_neoqa_samples(parse(args)[1]) is refused  # the arguments as lm_eval's own parser reads them
