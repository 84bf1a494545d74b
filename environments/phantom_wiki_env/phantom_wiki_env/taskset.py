"""PhantomWiki as a verifiers taskset (the `verifiers.v1` API): questions about a universe, made on demand.

Tasks are the universe's own questions (`size` unset: the questions `python -m phantom_wiki agent` runs), or `size`
procedural items of phantom_env.rl.PhantomWikiDataset (with `universe_every=N`, a fresh universe every N items; with
`distractors=K`, single-turn prompts carry the required articles and K others). `task.mode`: `single_turn` (one
reply) or `tools` (the paper's tools as a per-rollout MCP server, toolset.py; the agent answers in its last reply).
The reward is phantom_env.rl.score_answer on the last reply (answer-set F1 of its last `Answer:` line; declining a
question that has an answer scores 0, as builders.metrics scores refusals).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

import verifiers.v1 as vf
from pydantic import Field

from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.rows import generate
from leakproof_qa.phantom_env.recipes import single_turn_prompt
from leakproof_qa.phantom_env.rl import PhantomWikiDataset, score_answer
from leakproof_qa.phantom_env.runner import prompt, tasks_of


class PhantomWikiData(vf.TaskData):
    answer: str
    """The gold answers, joined by ", "."""
    answers: list[str]
    universe: str
    """The universe the question is about, e.g. n500_s1 (a rotated one for procedural items)."""
    easy_mode: bool = False
    tools: Literal["atomic", "bm25"] = "atomic"


class PhantomWikiTaskConfig(vf.TaskConfig):
    mode: Literal["tools", "single_turn"] = "tools"
    max_turns: int = Field(50, ge=1)
    """Model turns a rollout takes at most (the paper's 50 steps)."""
    server: vf.ToolsetConfig = vf.ToolsetConfig()
    """Where the tools' MCP server runs (verifiers' placement settings)."""


class PhantomWikiTask(vf.Task[PhantomWikiData, vf.State, PhantomWikiTaskConfig]):
    @classmethod
    def toolsets(cls, config: PhantomWikiTaskConfig) -> list[vf.Toolset]:
        if config.mode != "tools":
            return []
        from phantom_wiki_env.toolset import PhantomWikiTools

        return [PhantomWikiTools(config.server)]

    @vf.stop
    async def turn_limit(self, trace: vf.Trace) -> bool:
        return trace.num_turns >= (1 if self.config.mode == "single_turn" else self.config.max_turns)

    @vf.reward(weight=1.0)
    async def answer_f1(self, trace: vf.Trace) -> float:
        return score_answer(trace.last_reply, {"metadata": {"answers": self.data.answers}})


class PhantomWikiConfig(vf.TasksetConfig):
    config: str = "n500_s1"
    """The universe, e.g. n500_s1 or n5000_d10_s3 (no subset suffix)."""
    tools: Literal["atomic", "bm25"] = "atomic"
    """atomic: RetrieveArticle and Search (the paper's); bm25: Search by title or BM25, and Lookup."""
    size: int | None = Field(None, ge=0)
    """Unset: the universe's own questions; a number: that many procedural items."""
    seed: int = Field(0, ge=0)
    distractors: int = Field(0, ge=0)
    universe_every: int | None = Field(None, ge=1)
    task: PhantomWikiTaskConfig = PhantomWikiTaskConfig()


class PhantomWikiTaskset(vf.Taskset[PhantomWikiTask, PhantomWikiConfig]):
    def load(self) -> Iterable[PhantomWikiTask]:
        config = self.config
        for index, row in enumerate(_rows(config)):
            question, documents = row.pop("question"), row.pop("documents")
            if config.task.mode == "tools":
                text = prompt("tools_answer", config.tools).format(question=question)
            else:
                text = single_turn_prompt(question, documents)
            data = PhantomWikiData(idx=index, prompt=text, tools=config.tools, **row)
            yield PhantomWikiTask(data, config.task)


def _rows(config: PhantomWikiConfig) -> Iterable[dict[str, Any]]:
    """Each task's question, answers, universe and documents, from the universe's questions or procedural items."""
    if config.size is None:
        for task in tasks_of(generate(settings_from(config.config)[0])):
            yield {
                "id": task.id,
                "question": task.question,
                "answer": ", ".join(task.gold),
                "answers": task.gold,
                "universe": config.config,
                "documents": [],
            }
        return
    items = PhantomWikiDataset(
        config.config, config.seed, config.size, config.distractors, universe_every=config.universe_every
    )
    for item in items:
        metadata = item["metadata"]
        yield {
            "id": f"{metadata['universe']}-{metadata['seed']}-{metadata['index']}",
            "question": item["question"],
            "answer": item["answer"],
            "answers": metadata["answers"],
            "universe": metadata["universe"],
            "documents": metadata["documents"],
        }


def load_environment(mode: Literal["tools", "single_turn"] = "tools", max_turns: int = 50, **settings: Any) -> vf.Env:
    """verifiers' environment object (what `vf-eval phantom-wiki-env --env.taskset.* ...` runs): `settings` are
    PhantomWikiConfig's fields, e.g. load_environment(config="n500_s1", tools="bm25", size=1000, universe_every=100)."""
    task = PhantomWikiTaskConfig(mode=mode, max_turns=max_turns)
    taskset = PhantomWikiConfig(id="phantom-wiki-env", task=task, **settings)
    return vf.load_environment(vf.resolve_env_config({"taskset": taskset.model_dump()}))
