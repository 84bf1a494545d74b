"""The command lines users run: lm_eval's own CLI with --include_path, and the `python -m leakproof_qa run` wrapper.

Two real runs, side by side (each spends ~20 s indexing lm_eval's built-in tasks): `--model dummy` through
plain `lm_eval`, and `--model local-completions` through the wrapper (which registers the no-weights models
first, so this also shows lm_eval's own models still resolve) against a bounded OpenAI-style server on
127.0.0.1; tests/lmeval/openai_server.py says what that server does not cover.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from lm_eval import simple_evaluate

import phantom_wiki
from leakproof_qa.leakproof_eval import tasks_path
from tests.lmeval.harness import task_manager
from tests.lmeval.openai_server import CompletionServer

pytestmark = [pytest.mark.integration, pytest.mark.slow]

LIMIT = 8


def _run(args: list[str], home: Path) -> subprocess.Popen:
    env = os.environ | {
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HOME": str(home / "hf"),
        "TOKENIZERS_PARALLELISM": "false",
    }
    return subprocess.Popen(
        [sys.executable, "-m", *args], cwd=home, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _results(out: Path) -> dict:
    found = sorted(out.rglob("results_*.json"))
    assert found, f"no results file under {out}"
    return json.loads(found[-1].read_text())


def oracle_behind_http(universes: str):
    """An answer function for the test server: reads the question from the prompt and gives its gold answer."""
    gold = {
        row["question"]: row["answer"] for row in phantom_wiki.load_dataset("n50_s1", split="test", cache_dir=universes)
    }

    def answer(prompt: str) -> str:
        return ", ".join(gold[re.findall(r"\nQuestion: (.*)\nAnswer:", prompt)[-1]])

    return answer


@pytest.fixture(scope="module")
def runs(universes, tmp_path_factory):
    """Start both runs at once (the local server answering one of them) and collect what each wrote."""
    home = tmp_path_factory.mktemp("cli")
    phantom = {"phantom_wiki_config": "n50_s1", "phantom_wiki_cache_dir": universes}
    with CompletionServer(oracle_behind_http(universes), max_requests=LIMIT) as server:
        started = {
            "dummy": _run(
                [
                    "lm_eval",
                    "--model",
                    "dummy",
                    "--tasks",
                    "phantom_wiki_questions,phantom_wiki_rag",
                    "--include_path",
                    tasks_path(),
                    "--limit",
                    "4",
                    "--metadata",
                    json.dumps(phantom),
                    "--output_path",
                    str(home / "dummy"),
                    "--log_samples",
                ],
                home,
            ),
            "local-completions": _run(
                [
                    "leakproof_qa",
                    "run",
                    "--model",
                    "local-completions",
                    "--model_args",
                    f"model=test-model,base_url={server.url},tokenizer_backend=none,max_retries=1,timeout=60",
                    "--tasks",
                    "phantom_wiki_questions",
                    "--limit",
                    str(LIMIT),
                    "--metadata",
                    json.dumps(phantom),
                    "--output_path",
                    str(home / "local-completions"),
                ],
                home,
            ),
        }
        finished = {name: (process.wait(timeout=600), process.stdout.read()) for name, process in started.items()}
        prompts = list(server.prompts)
    return {"home": home, "finished": finished, "prompts": prompts}


def test_lm_eval_runs_the_tasks_with_the_dummy_model_from_include_path(runs):
    code, output = runs["finished"]["dummy"]
    assert code == 0, output[-3000:]
    results = _results(runs["home"] / "dummy")
    assert results["results"]["phantom_wiki_questions"]["f1,answer"] == 0.0  # the dummy says "lol"
    assert results["results"]["phantom_wiki_rag"]["adt_score,answer"] == 0.0
    assert results["n-samples"]["phantom_wiki_rag"]["effective"] == 4
    samples = next((runs["home"] / "dummy").rglob("samples_phantom_wiki_rag_*.jsonl")).read_text().splitlines()
    assert len(samples) == 4 and all(json.loads(line)["resps"] == [["lol"]] for line in samples)
    assert "|phantom_wiki_rag" in output  # lm_eval printed its table


def test_the_wrapper_runs_local_completions_against_an_openai_style_server(runs):
    code, output = runs["finished"]["local-completions"]
    assert code == 0, output[-3000:]
    results = _results(runs["home"] / "local-completions")["results"]["phantom_wiki_questions"]
    assert results["f1,answer"] == results["exact_match,answer"] == 1.0
    assert len(runs["prompts"]) == LIMIT  # one request per document, none beyond the limit
    for prompt in runs["prompts"]:
        assert prompt.startswith("You are given the following evidence:\n(BEGIN EVIDENCE)\n# ")
        assert prompt.count("\n## Family\n") == 50  # the whole n = 50 corpus in context


def test_local_chat_completions_with_a_chat_template_gets_the_same_prompts_and_scores(universes):
    metadata = {"phantom_wiki_config": "n50_s1", "phantom_wiki_cache_dir": universes}
    with CompletionServer(oracle_behind_http(universes), max_requests=5) as server:
        results = simple_evaluate(
            model="local-chat-completions",
            model_args=f"model=test-model,base_url={server.chat_url}",
            apply_chat_template=True,
            tasks=["phantom_wiki_questions"],
            limit=5,
            task_manager=task_manager(**metadata),
            bootstrap_iters=0,
        )
    assert results["results"]["phantom_wiki_questions"]["f1,answer"] == 1.0
    assert len(server.prompts) == 5 and all(
        p.startswith("You are given the following evidence:") for p in server.prompts
    )


@pytest.mark.parametrize(
    "arguments, says",
    [
        (["--model", "oracle", "--tasks", "phantom_wiki_rag", "--metadata", "{bad"], "Invalid JSON"),
        (["--model", "oracle", "--tasks", "phantom_wiki_rag", "--limit", "0"], "--limit 0 must be above 0"),
        (["--model", "oracle", "--tasks", "no_such_task"], "Tasks not found: no_such_task"),
        (
            [
                "--model",
                "no_such_model",
                "--tasks",
                "phantom_wiki_rag",
                "--metadata",
                '{"phantom_wiki_config": "n50_s1"}',
            ],
            "--model no_such_model: no such model",
        ),
    ],
)
def test_a_bad_lm_eval_argument_is_one_line(tmp_path, arguments, says):
    env = os.environ | {"HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1"}  # nothing in the user's cache
    done = subprocess.run(
        [sys.executable, "-m", "leakproof_qa", "run", *arguments],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("leakproof_eval: ") and says in last


def test_a_no_weights_run_files_its_results_under_the_model_name_and_names_the_universe_it_evaluated(
    universes, tmp_path
):
    metadata = {"phantom_wiki_config": "n50_s1", "phantom_wiki_seed": 7, "phantom_wiki_cache_dir": universes}
    done = _run(
        [
            "leakproof_qa",
            "run",
            "--model",
            "oracle",
            "--tasks",
            "phantom_wiki_rag",
            "--limit",
            "4",
            "--output_path",
            str(tmp_path / "results"),
            "--metadata",
            json.dumps(metadata),
        ],
        tmp_path,
    )
    output = done.communicate(timeout=600)[0]
    assert done.returncode == 0, output[-2000:]
    assert [p.name for p in (tmp_path / "results").iterdir()] == ["oracle"]  # as lm_eval files a named model's
    assert list((tmp_path / "results" / "oracle").glob("samples_phantom_wiki_rag_*.jsonl"))  # logs by default
    resolved = _results(tmp_path / "results" / "oracle")["configs"]["phantom_wiki_rag"]["metadata"]
    assert resolved["phantom_wiki_config"] == "n50_s1"  # what was asked
    assert resolved["phantom_wiki_resolved"]["universe"] == "n50_s7"  # what was evaluated
    assert resolved["phantom_wiki_resolved"]["seed"] == 7 and resolved["phantom_wiki_resolved"]["retrieval_k"] == 4


def test_a_model_whose_packages_are_missing_says_what_to_install(tmp_path):
    if importlib.util.find_spec("torch") is not None:
        pytest.skip("torch is installed here, so --model hf can be built")
    arguments = [
        "--model",
        "hf",
        "--model_args",
        "pretrained=Qwen/Qwen2.5-0.5B-Instruct",
        "--tasks",
        "phantom_wiki_rag",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "leakproof_qa", "run", *arguments], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr[-2000:]
    assert "--model hf needs torch" in done.stderr and 'pip install "lm_eval[hf]"' in done.stderr
