"""The front door: `--help` on each command lists its own options and the built-in models, and a mistake is one
line that suggests the nearest known name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from leakproof_qa.leakproof_eval import TaskSetupError
from leakproof_qa.leakproof_eval.help import BUILT_IN_MODELS, nearest
from leakproof_qa.leakproof_eval.phantom_wiki_tasks import universe_from

REPO = Path(__file__).resolve().parents[2]


def command(*arguments: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = os.environ | {"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", *arguments], cwd=cwd, env=env, capture_output=True, text=True)


def test_help_lists_the_commands_the_tasks_and_the_built_in_models():
    done = command("leakproof_qa", "--help")
    assert done.returncode == 0, done.stderr
    for word in ("run ARGS", "tokenizer NAME", "tasks-path", "report RESULTS", "phantom_wiki_mc", *BUILT_IN_MODELS):
        assert word in done.stdout


@pytest.mark.integration
def test_run_help_lists_its_own_options_the_models_and_then_lm_eval_s():
    done = command("leakproof_qa", "run", "--help")
    assert done.returncode == 0, done.stderr
    ours, _, theirs = done.stdout.partition("usage: lm-eval run")
    assert all(name in ours for name in BUILT_IN_MODELS) and "--no-log-samples" in ours and "max_length" in ours
    assert "--model_args" in theirs


def test_run_without_arguments_prints_its_usage_and_exits_2():
    done = command("leakproof_qa", "run")
    assert done.returncode == 2 and done.stderr.startswith("usage: python -m leakproof_qa run --model MODEL")
    assert done.stdout == ""


@pytest.mark.integration
@pytest.mark.parametrize(
    "arguments, says",
    [
        (["--model", "oracel", "--tasks", "phantom_wiki_rag"], "--model oracel: no such model (did you mean oracle?)"),
        (["--model", "hf", "--model_args", "pretrained=Qwen/No-Such-Model", "--tasks", "phantom_wiki_rag"], "HF_HUB"),
    ],
)
def test_a_mistaken_model_is_one_line_before_any_task_is_read(arguments, says, tmp_path):
    done = command("leakproof_qa", "run", *arguments, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and says in done.stderr, done.stderr[-2000:]


@pytest.mark.integration
@pytest.mark.slow
def test_a_mistyped_task_names_the_nearest(tmp_path, universes):
    done = command("leakproof_qa", "run", "--model", "oracle", "--tasks", "phantom_wiki_ragg", cwd=tmp_path)
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 2 and "Tasks not found: phantom_wiki_ragg" in last
    assert "did you mean phantom_wiki_rag?" in last


def test_an_unknown_metadata_key_names_the_nearest():
    with pytest.raises(TaskSetupError, match=r"phantom_wiki_retrival_k \(did you mean phantom_wiki_retrieval_k\?\)"):
        universe_from({"phantom_wiki_config": "n50_s1", "phantom_wiki_retrival_k": 3})
    assert nearest("zzzz", ["oracle"]) == ""


def test_a_bad_subsets_value_is_one_line():
    done = command("phantom_wiki", "generate", "n50_s1", "--subsets", "bogus", "--out", "x")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "invalid choice: 'bogus'" in done.stderr and "--help lists the options" in done.stderr


def test_prolog_help_names_every_file_it_writes_and_an_empty_default_shows():
    assert "program.pl" in command("phantom_wiki", "prolog", "--help").stdout
    assert "(default ''; " in command("phantom_wiki", "generate", "--help").stdout.replace("\n", " ").replace(
        "                        ", ""
    )
