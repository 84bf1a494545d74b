"""PhantomWikiDataset items in the shapes trainers read, and the reward in the signatures they call.

  * TRL's GRPOTrainer: `trl_dataset(data)` (columns `prompt`, conversational; `answer`; `metadata`) with
    `reward_funcs=phantom_env.rl.reward`, which TRL calls as `reward(prompts=..., completions=..., **columns)`;
  * verl: `verl_dataset(data).to_parquet(...)` (its columns: `data_source`, `prompt`, `ability`, `reward_model`
    with the `ground_truth` answers, `extra_info`) with `custom_reward_function.name=verl_compute_score`, which
    verl calls as `compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=...)`;
  * verifiers and prime-rl: the environment in environments/phantom_wiki_env, whose single-turn prompt is this one.
The prompt is prompts/single_turn.txt: the item's documents (when it has distractors), then its question.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .rl import PhantomWikiDataset, score_answer
from .runner import prompt

if TYPE_CHECKING:
    import datasets

DATA_SOURCE = "phantom_wiki"


def single_turn_prompt(question: str, documents: Iterable[Mapping[str, str]] = ()) -> str:
    """The one-turn prompt: the documents' texts (if any), then the question and how to give the answer."""
    shown = "".join(f"{document['text'].strip()}\n\n" for document in documents)
    return prompt("single_turn").format(question=question, documents=shown)


def _messages(item: Mapping[str, Any]) -> list[dict[str, str]]:
    return [{"role": "user", "content": single_turn_prompt(item["question"], item["metadata"]["documents"])}]


def trl_dataset(data: PhantomWikiDataset) -> datasets.Dataset:
    """The items as the `datasets.Dataset` GRPOTrainer trains on: a conversational `prompt` and the columns
    `reward` reads (`answer`, `metadata`)."""
    import datasets

    rows = [{"prompt": _messages(item), "answer": item["answer"], "metadata": item["metadata"]} for item in data]
    return datasets.Dataset.from_list(rows)


def verl_row(item: dict[str, Any]) -> dict[str, Any]:
    """One item in verl's RL dataset columns (a row of `data.train_files`; Ray Data maps items with it)."""
    return {
        "data_source": DATA_SOURCE,
        "prompt": _messages(item),
        "ability": "multi-hop question answering",
        "reward_model": {"style": "rule", "ground_truth": item["metadata"]["answers"]},
        "extra_info": {
            "index": item["metadata"]["index"],
            "universe": item["metadata"]["universe"],
            "hops": item["metadata"]["hops"],
        },
    }


def verl_dataset(data: PhantomWikiDataset) -> datasets.Dataset:
    """The items in verl's RL dataset columns (write them with `.to_parquet(path)` for `data.train_files`)."""
    import datasets

    return datasets.Dataset.from_list([verl_row(item) for item in data])


def verl_compute_score(
    data_source: str, solution_str: str, ground_truth: Sequence[str], extra_info: Mapping[str, Any] | None = None
) -> float:
    """verl's custom reward function: `score_answer` of the decoded response against the row's gold answers."""
    answers = [str(answer) for answer in ground_truth]
    return score_answer(solution_str, {"metadata": {"answers": answers}})
