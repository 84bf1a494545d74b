"""`python -m phantom_wiki show NAME --as prompt [--task T]` prints exactly what lm_eval sends for that row: the
prompts of a real lm_eval run (its logged requests) against the command's output, for a task of each subset and
each output type."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from leakproof_qa.leakproof_eval.models import OracleLM
from tests.lmeval.harness import ROOT, evaluate

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TASKS = {  # task -> the subset its documents are rows of
    "phantom_wiki_instances": "instances",
    "phantom_wiki_rag_cite": "rag",
    "phantom_wiki_mc": "instances",
    "phantom_wiki_questions": "questions",
}


@pytest.fixture(scope="module")
def logged(universes):
    """The requests lm_eval built in a real run of the oracle, per task: (document id, context, continuations)."""
    results = evaluate(
        OracleLM(),
        list(TASKS),
        limit=3,
        log_samples=True,
        phantom_wiki_config="n50_s1",
        phantom_wiki_cache_dir=universes,
    )
    return {
        task: [
            (sample["doc"]["id"], sample["arguments"][0][0], [arguments[1] for arguments in sample["arguments"]])
            for sample in results["samples"][task]
        ]
        for task in TASKS
    }


def show(home, *args: str) -> subprocess.CompletedProcess:
    env = os.environ | {"HF_HOME": str(home), "HF_DATASETS_OFFLINE": "1", "HF_DATASETS_DISABLE_PROGRESS_BARS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "phantom_wiki", "show", *args], capture_output=True, text=True, cwd=ROOT, env=env
    )


@pytest.mark.parametrize("task", list(TASKS))
def test_the_prompt_printed_is_byte_for_byte_the_one_lm_eval_sent(logged, tmp_path_factory, task):
    home = tmp_path_factory.mktemp("hf")
    doc_id, context, continuations = logged[task][-1]
    name = "n50_s1" + ("" if TASKS[task] == "questions" else "_" + TASKS[task])
    done = show(home, name, "--id", doc_id, "--as", "prompt", "--task", task)
    assert done.returncode == 0, done.stderr
    assert done.stdout == context + "\n"
    note = done.stderr.strip().splitlines()[-1]
    assert "is document 2 of" in note and "--limit 3 includes it" in note
    if task == "phantom_wiki_mc":
        assert ", ".join(repr(c) for c in continuations) in note and "log-likelihoods" in note
    else:
        assert "generated until ['\\n\\n', '\\nQuestion:'] or 256 tokens" in note


def test_without_a_task_the_subset_s_own_task_is_shown(logged, tmp_path_factory):
    doc_id, context, _ = logged["phantom_wiki_instances"][0]
    done = show(tmp_path_factory.mktemp("hf"), "n50_s1_instances", "--id", doc_id, "--as", "prompt")
    assert done.returncode == 0, done.stderr
    assert done.stdout == context + "\n" and "in phantom_wiki_instances" in done.stderr
