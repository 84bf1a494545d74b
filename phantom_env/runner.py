"""Run an agent over every question of a universe: the paper's ReAct text protocol or native tool calls.

A model is anything with `complete(messages, tools=None, stop=None) -> {"message": ..., "usage": ...}`: the
HTTP client for an OpenAI-compatible endpoint (client.ChatClient) or a baseline without weights
(baselines.py); all take this one code path. Each question is an episode with its own tools
(tools.Episode); its trajectory (messages, tool calls, observations, the final answer, the usage the
server reports, its scores) is one line of `trajectories.jsonl` in the output folder, written as soon as
the episode ends, so an interrupted run resumes where it stopped. `scores.json` holds the summary.

Modes:
  * `tools`: the tools as JSON function schemas; the model calls them natively; an assistant message
    without tool calls is read as the final answer;
  * `react`: the paper's prompt (prompts/react.txt) with the scratchpad of earlier Thought / Action /
    Observation steps; the model writes "Thought k: ... Action k: Tool[argument]" and generation stops
    before "Observation". (The reference asks twice per step, once for the thought, once for the action;
    one call per step reads the same text and halves the requests.)
Scores are the paper's answer precision, recall, F1 and exact match (builders.metrics.answer_scores).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from builders.metrics import answer_scores, read_response
from builders.phantomwiki.generate import Generated
from builders.phantomwiki.required import RequiredSets, starts_from_attribute
from builders.phantomwiki.solver import parse_literal

from .tools import Corpus, Episode, format_pred, parse_action, prompt_tools, schemas

PROMPTS = Path(__file__).with_name("prompts")
MODES = ("tools", "react")
TRAJECTORIES = "trajectories.jsonl"


class Model(Protocol):
    """A chat model: an endpoint client or a baseline."""

    def complete(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] | None = None,
        stop: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """The assistant's next message and the usage the server reports."""


@dataclass(frozen=True)
class Task:
    """One question as the runner and the baselines see it."""

    id: str
    question: str
    gold: list[str]
    query: list[str]
    required: list[str]  # the articles that prove the complete answer (builders/phantomwiki/required.py)

    @property
    def minimum_calls(self) -> int:
        """Tool calls an agent needs at least: one article per required person, and a Search for an attribute start."""
        return len(self.required) + (1 if starts_from_attribute(self.query) else 0)

    @property
    def start_value(self) -> str | None:
        """The attribute value an attribute-start question starts from."""
        first = parse_literal(self.query[-1])
        return first.source.strip()[1:-1] if first.inverse else None


def tasks_of(generated: Generated) -> list[Task]:
    """Every question of a generated universe as a task, in question order."""
    required = RequiredSets(generated.universe)
    return [
        Task(q.id, q.question, list(q.answer), list(q.query), required.titles(q.query)) for q in generated.questions
    ]


@cache
def prompt(name: str, variant: str = "atomic") -> str:
    """A prompt template shipped in prompts/ (data, not code), with the variant's tools listed (tools.TOOLS)."""
    text = (PROMPTS / f"{name}.txt").read_text(encoding="utf-8").rstrip("\n")
    return text.replace("{tool_list}", prompt_tools(variant, name))


def run_episode(
    model: Model, corpus: Corpus, task: Task, mode: str = "tools", variant: str = "atomic", max_steps: int = 50
) -> dict[str, Any]:
    """One question from start to Finish (or to the step limit): the trajectory, scored."""
    episode = Episode(corpus, variant)
    state = _State()
    if mode == "tools":
        _run_tools(model, episode, task, variant, max_steps, state)
    elif mode == "react":
        _run_react(model, episode, task, max_steps, state)
    else:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    scores = answer_scores(state.answer or [], task.gold)
    return {
        "id": task.id,
        "question": task.question,
        "gold": task.gold,
        "mode": mode,
        "tools": variant,
        "answer": state.answer,
        "finished": state.finished,
        "steps": state.steps,
        "tool_calls": state.calls,
        "minimum_calls": task.minimum_calls,
        "messages": state.messages,
        "usage": state.usage,
        **scores,
    }


class _State:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.calls: list[dict[str, str]] = []
        self.usage: dict[str, int] = {}
        self.answer: list[str] | None = None
        self.finished = False
        self.steps = 0

    def add_usage(self, usage: dict[str, Any]) -> None:
        for key, value in usage.items():
            if isinstance(value, int):
                self.usage[key] = self.usage.get(key, 0) + value

    def finish(self, answer: Iterable[str]) -> None:
        self.answer, self.finished = [a.strip() for a in answer if a.strip()], True


def _run_tools(model: Model, episode: Episode, task: Task, variant: str, max_steps: int, state: _State) -> None:
    state.messages.append({"role": "user", "content": prompt("tools", variant).format(question=task.question)})
    tools = schemas(variant)
    while state.steps < max_steps and not state.finished:
        state.steps += 1
        reply = model.complete(state.messages, tools=tools)
        state.add_usage(reply["usage"])
        message = {key: value for key, value in reply["message"].items() if key in ("role", "content", "tool_calls")}
        message["role"] = "assistant"
        state.messages.append(message)
        calls = message.get("tool_calls") or []
        if not calls:
            state.finish(read_response(message.get("content") or "")["answer"].split(","))
            break
        for call in calls:
            name = call.get("function", {}).get("name", "")
            argument, observation = episode.call_arguments(name, call.get("function", {}).get("arguments") or "{}")
            state.calls.append({"tool": name, "argument": argument, "observation": observation.text})
            if observation.finished:
                state.finish(observation.answer)
                break
            state.messages.append({"role": "tool", "tool_call_id": call.get("id", ""), "content": observation.text})


def _run_react(model: Model, episode: Episode, task: Task, max_steps: int, state: _State) -> None:
    scratchpad, template = "", prompt("react", episode.variant)
    while state.steps < max_steps and not state.finished:
        state.steps += 1
        step = state.steps
        text = template.format(question=task.question, scratchpad=scratchpad) + f"\nThought {step}:"
        reply = model.complete([{"role": "user", "content": text}], stop=[f"Observation {step}:"])
        state.add_usage(reply["usage"])
        written = format_pred(reply["message"].get("content") or "")
        state.messages.append({"role": "assistant", "content": written})
        action = parse_action(written)
        observation = episode.call(*action) if action else episode.call("", "")
        if action:
            state.calls.append({"tool": action[0], "argument": action[1], "observation": observation.text})
        if observation.finished:
            state.finish(observation.answer)
            break
        scratchpad += f"\nThought {step}: {written}\nObservation {step}: {observation.text}"
    state.messages.insert(
        0, {"role": "user", "content": template.format(question=task.question, scratchpad=scratchpad)}
    )


def read_trajectories(path: Path) -> dict[str, dict[str, Any]]:
    """The trajectories already written (a line cut short by an interruption is dropped and rerun)."""
    done: dict[str, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            done[row["id"]] = row
    return done


def run(
    model: Model,
    corpus: Corpus,
    tasks: Sequence[Task],
    out: Path,
    mode: str = "tools",
    variant: str = "atomic",
    max_steps: int = 50,
    concurrency: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Run every task not yet in `out/trajectories.jsonl`, append each trajectory as it ends, and score them all."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / TRAJECTORIES
    done = read_trajectories(path)
    if path.exists():  # drop a cut line so appends start on a fresh line
        path.write_text("".join(json.dumps(row) + "\n" for row in done.values()), encoding="utf-8")
    todo = [task for task in tasks if task.id not in done]
    lock = threading.Lock()

    def one(task: Task) -> None:
        trajectory = run_episode(model, corpus, task, mode, variant, max_steps)
        with lock, path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(trajectory) + "\n")
            done[task.id] = trajectory
            if progress:
                progress(len(done), len(tasks))

    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        for _ in pool.map(one, todo):
            pass
    summary = summarise([done[task.id] for task in tasks])
    (out / "scores.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def summarise(trajectories: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Mean answer scores and tool calls per question against the minimum."""
    count = len(trajectories)

    def mean(key: str) -> float:
        return sum(float(t[key]) for t in trajectories) / count if count else float("nan")

    calls = sum(len(t["tool_calls"]) for t in trajectories)
    minimum = sum(t["minimum_calls"] for t in trajectories)
    return {
        "questions": count,
        "finished": sum(t["finished"] for t in trajectories),
        "precision": mean("precision"),
        "recall": mean("recall"),
        "f1": mean("f1"),
        "exact_match": mean("exact_match"),
        "tool_calls_per_question": calls / count if count else float("nan"),
        "minimum_calls_per_question": minimum / count if count else float("nan"),
        "retrieve_calls": sum(
            1 for t in trajectories for c in t["tool_calls"] if c["tool"] in ("RetrieveArticle", "Search")
        ),
    }


def table(summary: dict[str, Any]) -> str:
    """The summary as a markdown table."""
    rows = [
        ("questions", f"{summary['questions']}"),
        ("finished", f"{summary['finished']}"),
        ("F1", f"{summary['f1']:.3f}"),
        ("exact match", f"{summary['exact_match']:.3f}"),
        ("precision", f"{summary['precision']:.3f}"),
        ("recall", f"{summary['recall']:.3f}"),
        ("tool calls per question", f"{summary['tool_calls_per_question']:.2f}"),
        ("minimum per question", f"{summary['minimum_calls_per_question']:.2f}"),
    ]
    return "\n".join(["| metric | value |", "|---|---:|", *(f"| {name} | {value} |" for name, value in rows)])
