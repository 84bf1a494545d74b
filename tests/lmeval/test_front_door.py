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


LOADED = "import sys; from leakproof_qa.leakproof_eval.__main__ import main; code = main(sys.argv[1:]); " + (
    "print(sorted(m for m in ('lm_eval.api.task', 'lm_eval.tasks', 'datasets') if m in sys.modules)); sys.exit(code)"
)
"""Runs `python -m leakproof_qa ARGS` and prints which heavy modules it imported (lm_eval's tasks, `datasets`)."""


@pytest.mark.integration
@pytest.mark.parametrize(
    "arguments, says",
    [
        (
            ["--tasks", "phantom_wiki_ragg"],
            "--tasks phantom_wiki_ragg: no such task, group or tag in this package (did you mean phantom_wiki_rag?)",
        ),
        (
            ["--tasks", "phantom_wiki", "--metadata", '{"phantom_wiki_size": -5}'],
            "phantom_wiki_size=-5 is out of range: expected at least 1",
        ),
        (
            ["--tasks", "phantom_wiki_rag", "--metadata", '{"phantom_wiki_seed": 1.5}'],
            "phantom_wiki_seed=1.5 must be a whole number (at least 0)",
        ),
        (
            ["--tasks", "phantom_wiki_mc", "--metadata", '{"phantom_wiki_config": "n50_s1_rag"}'],
            "works on a whole universe: give 'n50_s1'",
        ),
        (
            ["--tasks", "phantom_wiki_tasks", "--metadata", '{"phantom_wiki_retrival_k": 3}'],
            "(did you mean phantom_wiki_retrieval_k?)",
        ),
        (
            ["--tasks", "phantom_wiki_long", "--metadata", '{"max_seq_lengths": 4096}'],
            "max_seq_lengths=4096 must be a list",
        ),
        (
            [
                "--tasks",
                "phantom_wiki_rag",
                "--metadata",
                '{"phantom_wiki_release": "releases/x", "phantom_wiki_release_passphrase_env": "NO_SUCH_VARIABLE_SET"}',
            ],
            "environment variable 'NO_SUCH_VARIABLE_SET' (phantom_wiki_release_passphrase_env) is not set",
        ),
        (["--tasks", "neoqa_gen"], "NeoQA needs its release files"),
        (["--tasks", "neoqa", "--metadata", '{"neoqa_generate": "t3_x1"}'], "bad NeoQA configuration name 't3_x1'"),
    ],
)
def test_bad_input_is_one_line_with_its_reason_before_lm_eval_or_datasets_load(arguments, says, tmp_path):
    env = os.environ | {"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", LOADED, "run", "--model", "oracle", *arguments],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and says in done.stderr, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"  # said before lm_eval indexed a task or `datasets` was imported


@pytest.mark.integration
@pytest.mark.parametrize("name", ["run", "tokenizer", "model", "tasks-path", "report"])
def test_every_command_says_what_it_does_with_help(name):
    done = command("leakproof_qa", name, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: python -m leakproof_qa {name}")
    assert len(done.stdout.splitlines()) > 3  # a description and the options, not only a usage line


@pytest.mark.integration
def test_a_misspelt_command_is_one_line_naming_the_nearest():
    done = command("leakproof_qa", "reprot", "runs/results")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "no command 'reprot' (did you mean report?)" in done.stderr and done.stdout == ""


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
