"""The task folder: where it is, what it holds, how --metadata picks a universe, and the order --limit cuts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from lm_eval import simple_evaluate

from leakproof_qa import leakproof_eval
from leakproof_qa.builders.metrics import ANSWERABLE_LABEL
from leakproof_qa.leakproof_eval import TaskSetupError
from leakproof_qa.leakproof_eval.ordering import interleaved
from tests.lmeval.harness import ROOT, task_manager

pytestmark = pytest.mark.integration

TASKS = {
    "phantom_wiki_questions",
    "phantom_wiki_instances",
    "phantom_wiki_instances_cite",
    "phantom_wiki_rag",
    "phantom_wiki_rag_cite",
    "phantom_wiki_mc",
    "phantom_wiki_long",
    "neoqa",
    "neoqa_gen",
}


@pytest.mark.parametrize("module", ["phantom_wiki", "leakproof_qa"])
def test_tasks_path_prints_the_folder_to_include(module, tmp_path):
    done = subprocess.run([sys.executable, "-m", module, "tasks-path"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout.strip() == leakproof_eval.tasks_path()
        and (ROOT / "leakproof_eval" / "tasks" / "utils.py").is_file()
    )


def test_the_folder_holds_the_tasks_a_group_and_tags():
    manager = task_manager()
    assert set(manager.all_subtasks) == TASKS
    assert manager.all_groups == ["phantom_wiki"]
    assert set(manager.all_tags) == {"phantom_wiki_tasks", "phantom_wiki_citations", "neoqa_tasks"}
    assert manager.task_index["phantom_wiki_citations"].tags == {"phantom_wiki_instances_cite", "phantom_wiki_rag_cite"}


@pytest.mark.parametrize("name", ["oracle", "always_deflect", "constant"])
def test_the_no_weights_models_are_usable_by_name_through_simple_evaluate(universes, name):
    import leakproof_qa.leakproof_eval.models  # noqa: F401  (what `python -m leakproof_qa run` imports)

    results = simple_evaluate(
        model=name,
        model_args="",
        tasks=["phantom_wiki_rag"],
        limit=10,
        bootstrap_iters=0,
        task_manager=task_manager(phantom_wiki_config="n50_s1", phantom_wiki_cache_dir=universes),
    )
    expected = {"oracle": 1.0, "always_deflect": 0.0, "constant": 0.0}[name]
    assert results["results"]["phantom_wiki_rag"]["adt_score,answer"] == expected


def test_registering_the_models_keeps_lm_eval_own_models():
    code = (
        "import leakproof_qa.leakproof_eval.models\nfrom lm_eval.api.registry import get_model\n"
        "print(get_model('oracle').__name__, get_model('dummy').__name__, get_model('local-completions').__name__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == ["OracleLM", "DummyLM", "LocalCompletionsAPI"], done.stderr[-2000:]


@pytest.mark.parametrize(
    "metadata, message",
    [
        ({"phantom_wiki_colour": "blue"}, "unknown metadata key phantom_wiki_colour; the keys are "),
        ({"phantom_wiki_config": "n50"}, "phantom_wiki_config: bad configuration name 'n50'"),
        ({"phantom_wiki_config": "n50_s1_rag"}, "give 'n50_s1' without the _rag suffix"),
        (
            {"phantom_wiki_config": "n50_s1", "phantom_wiki_seed": "seven"},
            "phantom_wiki_seed='seven' must be a whole number",
        ),
        (
            {"phantom_wiki_config": "n50_s1", "phantom_wiki_distractors": "sneaky"},
            "distractors='sneaky' is out of range",
        ),
        ({"phantom_wiki_config": "n50_s1", "phantom_wiki_size": 6000}, "no model reads above 5000 people"),
    ],
)
def test_bad_metadata_is_a_one_line_error_naming_the_key(metadata, message):
    with pytest.raises(TaskSetupError) as error:
        task_manager(**metadata).load(["phantom_wiki_questions"])
    assert message in str(error.value) and "\n" not in str(error.value)


def docs(task: str, **metadata) -> list[dict]:
    """The documents of one task, in lm_eval's order."""
    return list(task_manager(**metadata).load([task])["tasks"][task].eval_docs)


def docs_and_prompts(task: str, **metadata) -> list[tuple[dict, str]]:
    """The documents of one task with the prompt lm_eval sends for each."""
    built = task_manager(**metadata).load([task])["tasks"][task]
    return [(doc, built.doc_to_text(doc)) for doc in built.eval_docs]


def test_seed_size_and_settings_in_the_metadata_reach_the_universe(universes):
    shown = docs_and_prompts(
        "phantom_wiki_instances",
        phantom_wiki_config="n500_s1",
        phantom_wiki_size=60,
        phantom_wiki_seed=3,
        phantom_wiki_questions_per_template=2,
        phantom_wiki_instance_documents=4,
        phantom_wiki_document_format="html",
        phantom_wiki_cache_dir=universes,
    )
    assert {doc["universe"].split("#")[0] for doc, _ in shown} == {"n60_s3_instances"}
    assert len({doc["question_id"] for doc, _ in shown}) <= 2 * 50  # two questions per template
    sufficient = [doc for doc, _ in shown if doc["answerable"] == "sufficient"]
    sizes = [(len(doc["document_titles"]), len(doc["citations"])) for doc in sufficient]
    # 4 documents, unless a row of the question's family shows more of its own (every row draws from one range)
    assert all(cited <= shown for shown, cited in sizes)
    assert any(shown == 4 > cited for shown, cited in sizes)
    assert all("<article>\n<h1>" in prompt for _, prompt in shown)


def test_two_seeds_give_two_universes_and_one_seed_the_same_prompts_every_time(tmp_path):
    first = docs_and_prompts(
        "phantom_wiki_questions",
        phantom_wiki_config="n50_s1",
        phantom_wiki_seed=11,
        phantom_wiki_cache_dir=str(tmp_path / "a"),
    )
    again = docs_and_prompts(
        "phantom_wiki_questions",
        phantom_wiki_config="n50_s1",
        phantom_wiki_seed=11,
        phantom_wiki_cache_dir=str(tmp_path / "b"),
    )  # generated afresh, not read from a cache
    other = docs_and_prompts(
        "phantom_wiki_questions",
        phantom_wiki_config="n50_s1",
        phantom_wiki_seed=12,
        phantom_wiki_cache_dir=str(tmp_path / "a"),
    )
    assert [prompt for _, prompt in first] == [prompt for _, prompt in again]
    corpus = first[0][1].split("(END EVIDENCE)")[0]
    other_corpus = other[0][1].split("(END EVIDENCE)")[0]
    assert corpus != other_corpus
    names = {line[2:] for line in corpus.splitlines() if line.startswith("# ")}
    other_names = {line[2:] for line in other_corpus.splitlines() if line.startswith("# ")}
    assert len(names) == len(other_names) == 50 and len(names & other_names) < 5  # different people
    assert {doc["question"] for doc, _ in first} != {doc["question"] for doc, _ in other}


def test_the_question_prompt_is_the_papers_zero_shot_prompt_over_the_whole_corpus(universes):
    import phantom_wiki

    corpus = phantom_wiki.load_dataset("n50_s1_corpus", split="test", cache_dir=universes)
    doc, prompt = docs_and_prompts(
        "phantom_wiki_questions", phantom_wiki_config="n50_s1", phantom_wiki_cache_dir=universes
    )[0]
    evidence = "\n\n".join(row["article"].strip() for row in corpus)
    assert prompt == (
        f"You are given the following evidence:\n(BEGIN EVIDENCE)\n{evidence}\n(END EVIDENCE)\n"
        "You will be provided a question. Your task is to provide an answer according to these instructions:\n"
        "- The output must be one of the following: a name (if there is only one correct answer); or a list of "
        "names separated by ',' (if there are multiple correct answers).\n"
        "- DO NOT include any additional information in your answer.\n\n"
        f"Question: {doc['question']}\nAnswer:"
    )


def test_cite_prompts_number_the_documents_the_citations_point_at(universes):
    for doc, prompt in docs_and_prompts(
        "phantom_wiki_instances_cite", phantom_wiki_config="n50_s1", phantom_wiki_cache_dir=universes
    )[:50]:
        assert prompt.count("\nDocument [") == len(doc["document_titles"])
        for position in doc["citations"]:
            title = doc["document_titles"][position]
            assert f"Document [{position + 1}]\n# {title}\n" in prompt


@pytest.mark.parametrize(
    "task, config",
    [("phantom_wiki_instances", "n50_s1"), ("phantom_wiki_instances", "n500_s1"), ("phantom_wiki_rag", "n500_s1")],
)
def test_every_prefix_of_two_or_more_documents_holds_both_sides_in_proportion(universes, task, config):
    ordered = docs(task, phantom_wiki_config=config, phantom_wiki_cache_dir=universes)
    answerable = [doc["answerable"] == "sufficient" for doc in ordered]
    share = sum(answerable) / len(ordered)
    seen = 0
    for length, flag in enumerate(answerable, 1):
        seen += flag
        assert abs(seen - share * length) <= 3, length
        if length >= 2:
            assert 0 < seen < length, length
    assert len({doc["id"] for doc in ordered}) == len(ordered)


def test_no_position_tells_a_label():
    """Every k-th row is answerable about as often as any row (before 0.8.0 row 0 always was, and then every 20th or
    21st); the order opens with one row of each side, so a prefix of two holds both."""
    rows = [(i, i % 8 == 0) for i in range(400)]  # one row in eight answerable
    firsts = [interleaved(rows, lambda r: r[1], seed=seed, label="x")[0][1] for seed in range(200)]
    assert 0.3 < sum(firsts) / len(firsts) < 0.7  # one of each side opens the order, either first
    ordered = interleaved(rows, lambda r: r[1], seed=1, label="x")
    for period in range(2, 25):
        for phase in range(period):
            picked = [row[1] for row in ordered[phase::period]]
            assert sum(picked) / len(picked) < 0.4, (period, phase)


def test_neoqa_documents_interleave_the_answerable_and_must_deflect_sides(neoqa_release):
    ordered = docs(
        "neoqa",
        neoqa_data_dir=str(neoqa_release),
        neoqa_decryption_key=23456,
        neoqa_cache_dir=str(neoqa_release / "cache"),
    )
    sides = [doc["answerable"] == ANSWERABLE_LABEL for doc in ordered]
    assert all(any(sides[:n]) and not all(sides[:n]) for n in range(2, len(sides) + 1))


def test_interleaving_is_a_seeded_permutation():
    rows = [(i, i % 7 == 0) for i in range(100)]
    once = interleaved(rows, lambda r: r[1], seed=5, label="x")
    assert once == interleaved(rows, lambda r: r[1], seed=5, label="x")
    assert once != interleaved(rows, lambda r: r[1], seed=6, label="x")
    assert sorted(once) == rows


def test_the_wrapper_reports_bad_metadata_in_one_line(monkeypatch, capsys):
    import lm_eval.tasks

    from leakproof_qa.leakproof_eval.__main__ import main

    class OnlyTheseTasks(lm_eval.tasks.TaskManager):  # skips indexing lm_eval's built-in tasks (~20 s); nothing else
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, include_defaults=False, **kwargs)

    monkeypatch.setattr(lm_eval.tasks, "TaskManager", OnlyTheseTasks)
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    code = main(["run", "--model", "oracle", "--tasks", "phantom_wiki_rag", "--metadata", '{"phantom_wiki_colour": 1}'])
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 2 and last.startswith("leakproof_eval: unknown metadata key phantom_wiki_colour; the keys are")


def test_every_function_a_task_yaml_names_is_defined_under_that_name():
    """A YAML's `!function utils.X` finds X in tasks/utils.py, and X is a function (or class) named X in leakproof_eval:
    no alias stands between the YAML and the code."""
    import importlib.util
    import re

    folder = Path(leakproof_eval.tasks_path())
    spec = importlib.util.spec_from_file_location("task_utils", folder / "utils.py")
    assert spec and spec.loader
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    named = {name for path in folder.iterdir() for name in re.findall(r"!function utils\.(\w+)", path.read_text())}
    assert len(named) > 40
    for name in sorted(named):
        function = getattr(utils, name)
        assert function.__name__ == name and function.__module__.startswith("leakproof_qa.leakproof_eval."), name
