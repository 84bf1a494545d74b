"""Agents without weights, as models behind the runner's one code path: they read the conversation and reply.

  * `oracle`: follows the question's evidence: a Search for an attribute-start question's value, then
    RetrieveArticle for each article of the question's required set (the fewest calls that prove the answer
    complete), then Finish with the gold answer. F1 1.0 with exactly the minimal number of calls, or the
    tools, the runner or the scoring are wrong;
  * `random-walk`: retrieves the person the question names, then a random name from each observation, for
    a few steps, and finishes with a random name it saw: a floor.
Both answer in the format the mode asks: tool calls in `tools` mode, "Thought k: ... Action k: Tool[arg]"
text in `react` mode (the runner tells them apart by whether it offers tools).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from leakproof_qa.builders.rng import below, stream

from .runner import Task
from .tools import FINISH, Episode, name_of, tools_of

_QUESTION = re.compile(r"^Question: (.*)$", re.MULTILINE)
_NAME = re.compile(r"(?<![A-Za-z])[A-Z][A-Za-z]+ [A-Z][A-Za-z]+(?![A-Za-z])")
_EXAMPLES_END = "(END OF EXAMPLES)"
WALK_STEPS = 3
ATOMIC = {tool.name: tool for tool in tools_of("atomic")}  # the tools the baselines call (tools.TOOLS)
RETRIEVE, SEARCH = name_of(Episode.retrieve_article), name_of(Episode.search)


def _question(messages: Sequence[dict[str, Any]]) -> str:
    text = str(messages[0].get("content") or "")
    return _QUESTION.findall(text.split(_EXAMPLES_END)[-1])[-1]


def _step(messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None) -> int:
    """How many actions this conversation has taken so far."""
    if tools:
        return sum(len(m.get("tool_calls") or []) for m in messages if m.get("role") == "assistant")
    return str(messages[-1].get("content") or "").split(_EXAMPLES_END)[-1].count("\nObservation ")


def _reply(tool: str, argument: str, step: int, tools: Sequence[dict[str, Any]] | None) -> dict[str, Any]:
    """One action in the mode's format."""
    if tools:
        arguments = ATOMIC[tool].arguments_of(argument)
        call = {
            "id": f"call_{step}",
            "type": "function",
            "function": {"name": tool, "arguments": json.dumps(arguments)},
        }
        return {"message": {"role": "assistant", "content": None, "tool_calls": [call]}, "usage": {}}
    text = f" I follow the plan. Action {step + 1}: {tool}[{argument}]"
    return {"message": {"role": "assistant", "content": text}, "usage": {}}


class OracleModel:
    """Replays each question's evidence: the fewest tool calls that prove the answer, then the gold answer."""

    def __init__(self, tasks: Sequence[Task]) -> None:
        self.plans: dict[str, list[tuple[str, str]]] = {}
        for task in tasks:
            plan = [(SEARCH, task.start_value)] if task.start_value is not None else []
            plan += [(RETRIEVE, title) for title in task.required]
            self.plans[task.question] = plan + [(FINISH, ",".join(task.gold))]

    def complete(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] | None = None,
        stop: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        plan = self.plans[_question(messages)]
        step = min(_step(messages, tools), len(plan) - 1)
        return _reply(*plan[step], step, tools)


class RandomWalkModel:
    """Wanders from the named person through names it reads, then answers with one of them (seeded per question)."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def complete(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] | None = None,
        stop: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        question = _question(messages)
        step = _step(messages, tools)
        seen = self._names(messages, tools) or _NAME.findall(question) or ["Nobody"]
        rng = stream(self.seed, "random-walk", question, step)
        name = seen[below(rng, len(seen))]
        if step >= WALK_STEPS:
            return _reply(FINISH, name, step, tools)
        return _reply(RETRIEVE, name, step, tools)

    @staticmethod
    def _names(messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None) -> list[str]:
        if tools:
            observed = [str(m.get("content") or "") for m in messages if m.get("role") == "tool"]
            last = observed[-1] if observed else ""
        else:  # the scratchpad after the examples: its last observation, if any
            _, found, last = (
                str(messages[-1].get("content") or "").split(_EXAMPLES_END)[-1].rpartition("\nObservation ")
            )
            last = last if found else ""
        return _NAME.findall(last)
