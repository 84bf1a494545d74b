"""The README's trainer recipes against the real libraries, on the CPU: TRL's GRPOTrainer runs a training step on
`trl_dataset` with `reward` (a tiny random model and a word-level tokenizer made here, so no weights are fetched),
and verl loads `verl_compute_score` through its own custom-reward loader and reads `verl_dataset`'s Parquet columns
as its reward manager does. Each is skipped where its library is not installed (verl is not in the test extras: its
pins would downgrade transformers and huggingface_hub); what none of them covers: a real model, GPUs, vLLM, Ray."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

from leakproof_qa.phantom_env.recipes import (
    DATA_SOURCE,
    single_turn_prompt,
    trl_dataset,
    verl_compute_score,
    verl_dataset,
)
from leakproof_qa.phantom_env.rl import PhantomWikiDataset, reward, score_answer

pytestmark = pytest.mark.integration


def test_trls_grpo_trainer_trains_a_step_on_the_dataset_calling_our_reward_with_its_columns(tmp_path):
    pytest.importorskip("torch")
    trl = pytest.importorskip("trl")
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    data = PhantomWikiDataset("n50_s1", seed=1, size=8, universe_every=4)
    dataset = trl_dataset(data)
    assert dataset.column_names == ["prompt", "answer", "metadata"]
    vocabulary = {"<pad>": 0, "<eos>": 1, "<unk>": 2}
    for row in dataset:
        for word in (row["prompt"][0]["content"] + " " + row["answer"]).replace(",", " ").split():
            vocabulary.setdefault(word, len(vocabulary))
    words = Tokenizer(models.WordLevel(vocabulary, unk_token="<unk>"))
    words.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=words, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")
    tokenizer.chat_template = "{% for message in messages %}{{ message['content'] }} {% endfor %}"
    config = GPT2Config(vocab_size=len(vocabulary), n_positions=512, n_embd=16, n_layer=1, n_head=1)
    model = GPT2LMHeadModel(config)
    calls: list[dict[str, Any]] = []

    def recorded(completions: Any, **columns: Any) -> list[float]:
        rewards = reward(completions, **columns)
        calls.append({"completions": completions, "columns": columns, "rewards": rewards})
        return rewards

    arguments = trl.GRPOConfig(
        output_dir=str(tmp_path),
        max_steps=1,
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=4,
        use_cpu=True,
        report_to=[],
        save_strategy="no",
    )
    trl.GRPOTrainer(
        model=model, reward_funcs=recorded, args=arguments, train_dataset=dataset, processing_class=tokenizer
    ).train()
    assert calls and {"answer", "metadata", "prompts", "trainer_state"} <= set(calls[0]["columns"])
    for call in calls:  # each reward is score_answer of that completion against its row's gold answers
        columns = call["columns"]
        for completion, answer, metadata, got in zip(
            call["completions"], columns["answer"], columns["metadata"], call["rewards"]
        ):
            text = completion[-1]["content"] if isinstance(completion, list) else completion
            assert got == score_answer(text, {"answer": answer, "metadata": metadata})
            assert metadata["universe"] in {data.universe_of(0), data.universe_of(4)}
    row = dataset[0]  # and the reward gives 1.0 to a right completion in TRL's conversational form
    right = [[{"role": "assistant", "content": f"Answer: {row['answer']}"}]]
    assert reward(right, answer=[row["answer"]], metadata=[row["metadata"]], trainer_state=None) == [1.0]


def test_verls_custom_reward_loader_calls_our_compute_score_on_its_parquet_columns(tmp_path):
    pytest.importorskip("verl")
    from omegaconf import OmegaConf
    from verl.trainer.ppo.reward import get_custom_reward_fn

    data = PhantomWikiDataset("n50_s1", seed=2, size=4, distractors=2)
    path = tmp_path / "train.parquet"
    verl_dataset(data).to_parquet(str(path))
    config = OmegaConf.create(
        {"reward": {"custom_reward_function": {"path": "pkg://phantom_env.recipes", "name": "verl_compute_score"}}}
    )
    compute_score = get_custom_reward_fn(config)
    import pandas

    for row, item in zip(pandas.read_parquet(path).to_dict("records"), data):
        assert row["data_source"] == DATA_SOURCE and list(row["prompt"])[0]["role"] == "user"
        arguments = {  # as verl's NaiveRewardManager calls it
            "data_source": row["data_source"],
            "solution_str": f"Thinking...\nAnswer: {item['answer']}",
            "ground_truth": row["reward_model"]["ground_truth"],
            "extra_info": row["extra_info"],
        }
        assert compute_score(**arguments) == 1.0
        assert compute_score(**{**arguments, "solution_str": "Answer: Nobody Atall"}) == 0.0


def test_the_verl_columns_and_signature_without_verl():
    data = PhantomWikiDataset("n50_s1", seed=2, size=3, distractors=1)
    rows = list(verl_dataset(data))
    assert [set(row) for row in rows] == [{"data_source", "prompt", "ability", "reward_model", "extra_info"}] * 3
    for row, item in zip(rows, data):
        assert row["prompt"] == [
            {"role": "user", "content": single_turn_prompt(item["question"], item["metadata"]["documents"])}
        ]
        assert row["reward_model"] == {"style": "rule", "ground_truth": item["metadata"]["answers"]}
    assert list(inspect.signature(verl_compute_score).parameters) == [
        "data_source",
        "solution_str",
        "ground_truth",
        "extra_info",
    ]
    assert verl_compute_score(DATA_SOURCE, f"Answer: {rows[0]['reward_model']['ground_truth'][0]}", ["x"]) == 0.0
    assert Path(single_turn_prompt.__code__.co_filename).name == "recipes.py"
