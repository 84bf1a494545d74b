"""lm-eval misuses said before any work: metadata of the wrong type, a universe too large, a limit or results path
that cannot be, an endpoint that is not there (once, at once, not as lm_eval's retries and tracebacks)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest

from leakproof_qa.leakproof_eval import TaskSetupError
from leakproof_qa.leakproof_eval.__main__ import main
from leakproof_qa.leakproof_eval.neoqa_tasks import release_from
from tests.lmeval.harness import ROOT, task_manager


@pytest.mark.parametrize(
    "metadata, message",
    [
        ({"phantom_wiki_config": "n50_s1", "phantom_wiki_cache_dir": ["a"]}, "phantom_wiki_cache_dir=['a'] must be a"),
        ({"phantom_wiki_config": 5}, "phantom_wiki_config=5 must be a string"),
        ({"phantom_wiki_config": ["n50_s1"]}, "phantom_wiki_config=['n50_s1'] must be a string"),
        ({"phantom_wiki_config": "n50_s1", "phantom_wiki_size": 10**12}, "more than the"),
    ],
)
def test_metadata_of_the_wrong_type_or_too_large_is_one_line_before_any_work(tmp_path, monkeypatch, metadata, message):
    monkeypatch.chdir(tmp_path)  # a folder named "['a']" would appear here
    with pytest.raises(TaskSetupError) as error:
        task_manager(**metadata).load(["phantom_wiki_rag"])
    assert message in str(error.value) and "\n" not in str(error.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "metadata, message",
    [
        ({"neoqa_data_dir": ["x"]}, "neoqa_data_dir=['x'] must be a string"),
        ({"neoqa_data_dir": "x", "neoqa_split": 1}, "neoqa_split=1 must be a string"),
        ({"neoqa_data_dir": "x", "neoqa_config": ["neoqa"]}, "neoqa_config=['neoqa'] must be a string"),
        ({"neoqa_data_dir": "x", "neoqa_decryption_key": True}, "neoqa_decryption_key=True must be a whole number"),
        ({"neoqa_data_dir": "x", "neoqa_cache_dir": {"a": 1}}, "neoqa_cache_dir={'a': 1} must be a string"),
    ],
)
def test_neoqa_metadata_of_the_wrong_type_is_one_line(metadata, message):
    with pytest.raises(TaskSetupError, match=message.replace("[", r"\[").replace("]", r"\]")):
        release_from(metadata)


def closed_port() -> int:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        return free.getsockname()[1]


@pytest.mark.parametrize(
    "arguments, says",
    [
        (["--limit", "inf"], "--limit inf must be above 0 and finite"),
        (["--limit", "nan"], "--limit nan must be above 0 and finite"),
        (["--output_path", "/dev/null/x"], "--output_path /dev/null/x cannot be written (Not a directory)"),
        (["--output_path", "/dev/null/x/results.json"], "cannot be written (Not a directory)"),
    ],
)
def test_a_limit_or_results_path_that_cannot_be_is_one_line_and_exit_2(capsys, monkeypatch, arguments, says):
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    code = main(["run", "--model", "oracle", "--tasks", "phantom_wiki_rag", *arguments])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.count("\n") == 0 and says in err, err


@pytest.mark.integration
@pytest.mark.parametrize("model", ["local-chat-completions", "local-completions"])
def test_an_endpoint_that_is_not_running_is_said_once_at_once(tmp_path, model):
    port = closed_port()
    url = f"http://127.0.0.1:{port}/v1/" + ("chat/completions" if "chat" in model else "completions")
    began = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "leakproof_qa",
            "run",
            "--model",
            model,
            "--model_args",
            f"model=m,base_url={url},tokenizer_backend=none",
            "--tasks",
            "phantom_wiki_rag",
            "--limit",
            "2",
            "--output_path",
            str(tmp_path / "results"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=os.environ | {"HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1"},
    )
    assert done.returncode == 2 and time.monotonic() - began < 30
    assert done.stderr.strip() == (
        f"leakproof_eval: cannot reach {url}: Connection refused; is the server running, and is base_url in "
        "--model_args right?"
    )
