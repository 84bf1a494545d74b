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
import os
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from leakproof_qa.builders import __version__
from leakproof_qa.builders.locks import FolderBusy, held
from leakproof_qa.builders.metrics import answer_scores, read_response, required_recall
from leakproof_qa.builders.phantomwiki.required import RequiredSets, starts_from_attribute
from leakproof_qa.builders.phantomwiki.rows import Generated
from leakproof_qa.builders.phantomwiki.solver import parse_literal

from .client import EndpointError
from .tools import RETRIEVING, Corpus, Episode, format_pred, parse_action, prompt_tools, schemas

PROMPTS = Path(__file__).with_name("prompts")
MODES = ("tools", "react")
TRAJECTORIES = "trajectories.jsonl"
SCORES = "scores.json"
RUN_FILE = "run.json"
LOCK = ".agent-run.lock"


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
    scores: dict[str, float | None] = {**answer_scores(state.answer or [], task.gold)}
    # the share of the question's required articles it read (None for a task that names none)
    scores["retrieval_recall"] = required_recall(episode.retrieved, task.required) if task.required else None
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
        if not calls and state.steps == 1:
            _refuse_ignored_tools(message.get("content") or "", tools)
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


_ECHO_MIN_CHARS = 24


def _without_echoes(content: str, prompt_text: str) -> str:
    """The model's lines less those that repeat a line of its prompt (a weak model echoes the tool list and the
    prompt's `Finish[]` example, which are no actions of its own)."""
    shown = {" ".join(line.split()) for line in prompt_text.splitlines() if len(line.strip()) >= _ECHO_MIN_CHARS}
    return "\n".join(line for line in content.splitlines() if " ".join(line.split()) not in shown)


class ToolsIgnored(EndpointError):
    """The endpoint answered a tools request in text that names the tools: it ignores `tools`; one line."""


def _refuse_ignored_tools(content: str, tools: Sequence[dict[str, Any]]) -> None:
    """A ToolsIgnored when a question's first reply calls no tool yet writes a tool's name or is empty: the
    endpoint dropped `tools` (llama.cpp's server without --jinja does) and the model echoes the prompt or writes
    calls as text, which would be scored as its answer."""
    names = [tool["function"]["name"] for tool in tools]
    written = [name for name in names if re.search(rf"\b{name}\b", content)]
    if written or not content.strip():
        said = f"wrote {written[0]!r} as text" if written else "wrote nothing"
        raise ToolsIgnored(
            f"the endpoint sent no tool call for a question's first step and {said}: it ignores `tools` (llama.cpp's "
            "server needs --jinja) or the model cannot call tools; nothing was scored; run --mode react instead"
        )


def _run_react(model: Model, episode: Episode, task: Task, max_steps: int, state: _State) -> None:
    scratchpad, template = "", prompt("react", episode.variant)
    while state.steps < max_steps and not state.finished:
        state.steps += 1
        step = state.steps
        text = template.format(question=task.question, scratchpad=scratchpad) + f"\nThought {step}:"
        reply = model.complete([{"role": "user", "content": text}], stop=[f"Observation {step}:"])
        state.add_usage(reply["usage"])
        content = reply["message"].get("content") or ""
        written = format_pred(content)
        state.messages.append({"role": "assistant", "content": written})
        action = parse_action(format_pred(_without_echoes(content, text)), step)
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


class RunError(RuntimeError):
    """The output folder cannot be used as asked (another run's, in use, damaged, not writable); one line."""


_NUMBERS = ("precision", "recall", "f1", "exact_match")


def _problem(row: Any) -> str | None:
    """What makes a parsed line not a trajectory the runner wrote, or None."""
    if not isinstance(row, dict):
        return f"a JSON {type(row).__name__}, not an object"
    expected: tuple[tuple[str, type | tuple[type, ...]], ...] = (
        ("id", str),
        ("finished", bool),
        ("steps", int),
        ("minimum_calls", int),
        ("tool_calls", list),
        *((name, (int, float)) for name in _NUMBERS),
    )
    for key, kind in expected:
        value = row.get(key)
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            return f"{key!r} missing" if key not in row else f"{key!r} is {type(value).__name__}"
    if not all(isinstance(call, dict) and isinstance(call.get("tool"), str) for call in row["tool_calls"]):
        return "'tool_calls' holds an entry without a tool name"
    return None


def _slim(row: dict[str, Any]) -> dict[str, Any]:
    """What the summary needs of a trajectory (no messages, no observations): a resumed run holds this much only."""
    slim = {key: value for key, value in row.items() if key != "messages"}
    slim["tool_calls"] = [{"tool": call["tool"]} for call in row["tool_calls"]]
    return slim


def _scan(path: Path, keep: Callable[[dict[str, Any]], dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], int, bool]:
    """(the trajectories of `path` by id, the bytes they fill, whether the last one lacks its newline).

    A last line without its newline that is not a whole trajectory was cut by an interruption: it is left out.
    Any other line that is not a trajectory is a RunError naming it: damage, not an interruption.
    """
    done: dict[str, dict[str, Any]] = {}
    whole, unterminated = 0, False
    if not path.exists():
        return done, whole, unterminated
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            last = not raw.endswith(b"\n")
            try:
                row = json.loads(raw)
                problem = _problem(row)
            except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past Python's stack
                row, problem = None, "not JSON"
            if problem and last:
                break
            if problem:
                raise RunError(
                    f"{path} line {number} is not a trajectory ({problem}): delete that line to rerun its question, "
                    "or pass --overwrite to start again"
                )
            done[row["id"]] = keep(row)
            whole, unterminated = whole + len(raw), last
    return done, whole, unterminated


def read_trajectories(path: Path) -> dict[str, dict[str, Any]]:
    """The trajectories written so far, by question id (a last line cut short by an interruption is left out; any
    other line that is not a trajectory is a RunError)."""
    return _scan(path, lambda row: row)[0]


def _resume(path: Path) -> dict[str, dict[str, Any]]:
    """The trajectories already written (slim), the file repaired for appending: a cut last line is cut off the file
    (one truncation, so no moment loses a whole line), a whole last line lacking its newline gets it."""
    done, whole, unterminated = _scan(path, _slim)
    if path.exists() and path.stat().st_size != whole:
        os.truncate(path, whole)
        with path.open("rb") as handle:
            os.fsync(handle.fileno())
    if unterminated:
        with path.open("ab") as handle:
            handle.write(b"\n")
    return done


def _write_atomically(path: Path, text: str) -> None:
    """Write a whole file by a temporary file and a rename, synced: a kill leaves the old file or the new one."""
    partial = path.with_name(path.name + ".partial")
    with partial.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, path)


def _identity(out: Path, record: dict[str, Any], overwrite: bool) -> None:
    """Refuse a folder holding another run (one line naming the first difference); record this run in run.json."""
    if overwrite:
        for name in (TRAJECTORIES, SCORES, RUN_FILE):
            (out / name).unlink(missing_ok=True)
    again = "give another --out, or pass --overwrite to start again"
    path = out / RUN_FILE
    if path.exists():
        try:
            recorded = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, OSError):
            recorded = None
        if not isinstance(recorded, dict):
            raise RunError(f"{path} is damaged, so what run {out} holds is unknown; {again}")
        for key in sorted(set(recorded) | set(record)):
            if recorded.get(key) != record.get(key):
                was, now = _shown(recorded.get(key)), _shown(record.get(key))
                raise RunError(f"--out {out} holds a run with {key} {was}, not {now}; {again}")
        return
    if (out / TRAJECTORIES).exists():
        raise RunError(f"--out {out} holds trajectories but no {RUN_FILE} saying which run made them; {again}")
    _write_atomically(path, json.dumps(record, indent=2, sort_keys=True) + "\n")


def _shown(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."


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
    identity: Mapping[str, Any] | None = None,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Run every task not yet in `out/trajectories.jsonl`, append each trajectory as it ends, and score them all.

    `out/run.json` records the run (mode, tools, step limit, package version and `identity`: the universe, the model,
    the endpoint); a folder holding a different run is refused unless `overwrite`, and a folder another runner
    holds is refused, naming it.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    record = {"mode": mode, "tools": variant, "max_steps": max_steps, "package_version": __version__}
    record.update(identity or {})
    try:
        with held(out / LOCK, f"--out {out}", "wait for that run to end, or give another --out"):
            _identity(out, record, overwrite)
            summary = _run_tasks(model, corpus, tasks, out, mode, variant, max_steps, concurrency, progress)
            _write_atomically(out / SCORES, json.dumps(summary, indent=2) + "\n")
    except FolderBusy as error:
        raise RunError(str(error)) from None
    except OSError as error:
        where = f" {error.filename}" if error.filename else f" in {out}"
        raise RunError(
            f"cannot write{where}: {error.strerror or error}; the trajectories already written are kept and a rerun "
            "resumes from them"
        ) from None
    return summary


def _run_tasks(
    model: Model,
    corpus: Corpus,
    tasks: Sequence[Task],
    out: Path,
    mode: str,
    variant: str,
    max_steps: int,
    concurrency: int,
    progress: Callable[[int, int], None] | None,
) -> dict[str, Any]:
    """The episodes of the tasks not yet done, appended as each ends; the summary of all."""
    path = out / TRAJECTORIES
    done = _resume(path)
    todo = [task for task in tasks if task.id not in done]
    lock, failed = threading.Lock(), threading.Event()
    with path.open("a", encoding="utf-8") as handle:

        def one(task: Task) -> None:
            if failed.is_set():  # the first failure ends the run: no new question starts
                return
            try:
                trajectory = run_episode(model, corpus, task, mode, variant, max_steps)
            except BaseException:
                failed.set()
                raise
            line = json.dumps(trajectory) + "\n"
            with lock:
                handle.write(line)
                handle.flush()  # in the kernel's hands: a killed run keeps every line written
                done[task.id] = _slim(trajectory)
                if progress:
                    progress(len(done), len(tasks))

        with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            futures = [pool.submit(one, task) for task in todo]
            try:
                for future in as_completed(futures):
                    future.result()
            except BaseException:
                failed.set()
                for future in futures:
                    future.cancel()
                raise
    summary = summarise([done[task.id] for task in tasks])
    summary["max_steps"] = max_steps
    return summary


def summarise(trajectories: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Mean answer scores and tool calls per question against the minimum; `step_limit` counts the questions that
    ended at the step limit (an episode ends unfinished only there)."""
    count = len(trajectories)

    def mean(key: str) -> float:
        values = [float(t[key]) for t in trajectories if t.get(key) is not None]
        return sum(values) / len(values) if values else float("nan")

    calls = sum(len(t["tool_calls"]) for t in trajectories)
    minimum = sum(t["minimum_calls"] for t in trajectories)
    return {
        "questions": count,
        "finished": sum(t["finished"] for t in trajectories),
        "step_limit": sum(not t["finished"] for t in trajectories),
        "precision": mean("precision"),
        "recall": mean("recall"),
        "f1": mean("f1"),
        "exact_match": mean("exact_match"),
        "retrieval_recall": mean("retrieval_recall"),
        "tool_calls_per_question": calls / count if count else float("nan"),
        "minimum_calls_per_question": minimum / count if count else float("nan"),
        "retrieve_calls": sum(1 for t in trajectories for c in t["tool_calls"] if c["tool"] in RETRIEVING),
    }


def table(summary: dict[str, Any]) -> str:
    """The summary as a markdown table."""
    limit = f" (--max-steps {summary['max_steps']})" if "max_steps" in summary else ""
    rows = [
        ("questions", f"{summary['questions']}"),
        ("finished", f"{summary['finished']}"),
        ("stopped at the step limit" + limit, f"{summary['step_limit']}"),
        ("F1", f"{summary['f1']:.3f}"),
        ("exact match", f"{summary['exact_match']:.3f}"),
        ("precision", f"{summary['precision']:.3f}"),
        ("recall", f"{summary['recall']:.3f}"),
        ("required articles retrieved (recall)", f"{summary['retrieval_recall']:.3f}"),
        ("tool calls per question", f"{summary['tool_calls_per_question']:.2f}"),
        ("minimum per question", f"{summary['minimum_calls_per_question']:.2f}"),
    ]
    return "\n".join(["| metric | value |", "|---|---:|", *(f"| {name} | {value} |" for name, value in rows)])
