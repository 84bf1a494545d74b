"""The verifiers environment (environments/phantom_wiki_env) run by verifiers' own evaluation entry point, `vf-eval`,
with its own `null` harness (a chat program in a subprocess runtime, the tools as a per-rollout MCP server), against
a scripted agent behind an OpenAI-compatible stand-in on 127.0.0.1 (tests/env/chat_standin.py): rewards exact, the
tool calls the stand-in saw. The harness's chat program is a PEP 723 script that verifiers prepares with `uv` (from
the package index, cached after the first run). Not covered: a real model, sandboxed runtimes, prime-rl training."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("verifiers.v1", reason="the verifiers extra: pip install -e environments/phantom_wiki_env")

from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.rows import generate
from leakproof_qa.phantom_env.baselines import OracleModel
from leakproof_qa.phantom_env.rl import PhantomWikiDataset
from leakproof_qa.phantom_env.runner import tasks_of
from leakproof_qa.phantom_env.tools import Corpus, Episode
from tests.env.chat_standin import ChatStandIn

pytestmark = [pytest.mark.integration, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]
ENVIRONMENT = REPO / "environments" / "phantom_wiki_env"
WRONG = "Nobody Atall"


class AnswersEveryOther:
    """Single turn: the gold answer for even-numbered questions, a wrong one for odd (by `order`)."""

    def __init__(self, gold: dict[str, list[str]], order: list[str]) -> None:
        self.gold, self.order = gold, order

    def complete(self, messages: Any, tools: Any = None, stop: Any = None) -> dict[str, Any]:
        question = _question(messages)
        answer = self.gold[question] if self.order.index(question) % 2 == 0 else [WRONG]
        return {"message": {"role": "assistant", "content": f"Let me see.\nAnswer: {', '.join(answer)}"}, "usage": {}}


class OracleAnswering(OracleModel):
    """The oracle's tool calls, then its answer as the last reply's `Answer:` line (verifiers has no Finish tool);
    wrong on questions listed in `wrong`."""

    def __init__(self, tasks: Any, wrong: set[str]) -> None:
        super().__init__(tasks)
        self.wrong = wrong

    def complete(self, messages: Any, tools: Any = None, stop: Any = None) -> dict[str, Any]:
        reply = super().complete(messages, tools, stop)
        (call,) = reply["message"]["tool_calls"]
        if call["function"]["name"] != "Finish":
            return reply
        answer = json.loads(call["function"]["arguments"])["answer"]
        answer = [WRONG] if _question(messages) in self.wrong else answer
        return {"message": {"role": "assistant", "content": f"Answer: {', '.join(answer)}"}, "usage": {}}


def _question(messages: Any) -> str:
    content = next(m["content"] for m in messages if m["role"] == "user")
    text = content if isinstance(content, str) else "".join(part.get("text", "") for part in content)
    return text.rsplit("Question: ", 1)[1].strip()


def vf_eval(base_url: str, out: Path, count: int, *settings: str) -> list[dict[str, Any]]:
    """Run `vf-eval phantom-wiki-env` and return its traces (verifiers' traces.jsonl)."""
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ENVIRONMENT), str(REPO), os.environ.get("PYTHONPATH", "")]),
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "NO_KEY": "unused",
    }
    command = [
        shutil.which("vf-eval", path=environment["PATH"]) or "vf-eval",
        "phantom-wiki-env",
        *settings,
        "--model",
        "scripted",
        "--client.base-url",
        base_url,
        "--client.api-key-var",
        "NO_KEY",
        "--env.agent.harness.id",
        "null",
        "--env.agent.runtime.type",
        "subprocess",
        "-n",
        str(count),
        "--no-push",
        "--no-rich",
        "-o",
        str(out),
    ]
    done = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=600, cwd=out)
    assert done.returncode == 0, done.stderr[-3000:]
    (traces,) = out.glob("*/traces.jsonl")
    return [json.loads(line) for line in traces.read_text().splitlines()]


def rewards(episodes: list[dict[str, Any]]) -> dict[str, float]:
    """question -> reward, from verifiers' episodes."""
    found = {}
    for episode in episodes:
        (trace,) = episode["traces"]
        assert (
            episode["ok"] and trace["rewards"]["answer_f1"]["weight"] == 1.0 and set(trace["rewards"]) == {"answer_f1"}
        )
        question = _question([{"role": "user", "content": episode["task"]["data"]["prompt"]}])
        found[question] = trace["rewards"]["answer_f1"]["score"]
    return found


def test_vf_eval_single_turn_rewards_right_answers_one_and_wrong_ones_zero(tmp_path):
    items = list(PhantomWikiDataset("n50_s1", seed=5, size=4, distractors=2, universe_every=2))
    gold = {item["question"]: item["metadata"]["answers"] for item in items}
    order = [item["question"] for item in items]
    with ChatStandIn(AnswersEveryOther(gold, order), max_requests=8) as server:
        episodes = vf_eval(
            server.base_url,
            tmp_path,
            4,
            *("--env.taskset.config", "n50_s1", "--env.taskset.size", "4", "--env.taskset.seed", "5"),
            *("--env.taskset.distractors", "2", "--env.taskset.universe-every", "2"),
            *("--env.taskset.task.mode", "single_turn"),
        )
        asked = [_question(request["messages"]) for request in server.requests]
    assert rewards(episodes) == {question: 1.0 if i % 2 == 0 else 0.0 for i, question in enumerate(order)}
    assert sorted(asked) == sorted(order)  # one request per question: single turn
    prompts = [r["messages"][0]["content"] for r in server.requests]
    for item in items:  # each prompt shows its item's documents (required and distractors)
        shown = next(p for p in prompts if p.endswith(item["question"]))
        assert all(document["text"].strip() in shown for document in item["metadata"]["documents"])


def test_vf_eval_with_the_tools_rewards_exactly_and_the_agent_called_the_tables_tools(tmp_path):
    tasks = tasks_of(generate(settings_from("n50_d6_s1")[0]))[:4]  # the taskset's first four: 2 to 8 tool calls each
    wrong = {tasks[1].question}
    with ChatStandIn(OracleAnswering(tasks, wrong), max_requests=sum(t.minimum_calls + 1 for t in tasks)) as server:
        episodes = vf_eval(server.base_url, tmp_path, len(tasks), "--env.taskset.config", "n50_d6_s1")
        requests = list(server.requests)
    got = rewards(episodes)
    assert {t.question: got[t.question] for t in tasks} == {t.question: float(t.question not in wrong) for t in tasks}
    offered = {tool["function"]["name"] for request in requests for tool in request.get("tools") or []}
    assert offered == {"RetrieveArticle", "Search"}  # the table's atomic tools, Finish aside
    last = {}  # each conversation's last request holds all of its tool calls
    for request in requests:
        last[_question(request["messages"])] = request
    called = [
        (call["function"]["name"], json.loads(call["function"]["arguments"]))
        for request in last.values()
        for message in request["messages"]
        if message["role"] == "assistant"
        for call in message.get("tool_calls") or []
    ]
    assert len(called) == sum(t.minimum_calls for t in tasks)  # the fewest calls that prove each answer
    for task in tasks:
        assert all(("RetrieveArticle", {"entity": title}) in called for title in task.required)
        assert task.start_value is None or ("Search", {"attribute": task.start_value}) in called
    corpus = Corpus.from_generated(generate(settings_from("n50_d6_s1")[0]))
    observations = {str(m["content"]) for r in requests for m in r["messages"] if m["role"] == "tool"}
    for task in tasks:  # each observation the MCP tool server gave is the one Episode.call gives
        assert all(
            Episode(corpus).call("RetrieveArticle", title.lower()).text in observations for title in task.required
        )


def test_load_environment_builds_the_same_tasks_from_keyword_settings():
    sys.path.insert(0, str(ENVIRONMENT))
    from phantom_wiki_env import load_environment
    from pydantic import ValidationError

    env = load_environment(config="n50_s1", mode="single_turn", size=3, distractors=1, universe_every=2)
    tasks = list(env.taskset)
    items = list(PhantomWikiDataset("n50_s1", seed=0, size=3, distractors=1, universe_every=2))
    assert [t.data.universe for t in tasks] == [item["metadata"]["universe"] for item in items]
    assert [t.data.answers for t in tasks] == [item["metadata"]["answers"] for item in items]
    assert all(t.data.prompt.endswith(item["question"]) for t, item in zip(tasks, items))
    assert len(list(load_environment(config="n50_s1").taskset)) == len(tasks_of(generate(settings_from("n50_s1")[0])))
    with pytest.raises(ValidationError, match="sizes"):
        load_environment(config="n50_s1", sizes=3)
