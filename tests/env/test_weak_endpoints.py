"""What a small real model's endpoint did to the agent (issue 38), and what the runner does about it: an endpoint
that ignores `tools` is one line, not a score; a ReAct step is read at the action the runner asked for, not at an
echoed tool list; `--max-tokens` reaches the endpoint."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from leakproof_qa.phantom_env.client import ChatClient
from leakproof_qa.phantom_env.runner import TRAJECTORIES, ToolsIgnored, prompt, read_trajectories, run, tasks_of
from leakproof_qa.phantom_env.tools import parse_action
from tests.env.chat_standin import ChatStandIn
from tests.env.test_runner import universe

REPO = Path(__file__).resolve().parents[2]


class Echoes:
    """An endpoint that drops `tools` and a base model that repeats the prompt (what llama.cpp's server did)."""

    def complete(self, messages: Any, tools: Any = None, stop: Any = None) -> dict[str, Any]:
        return {"message": {"role": "assistant", "content": messages[-1]["content"]}, "usage": {}}


class WritesCallsAsText:
    def complete(self, messages: Any, tools: Any = None, stop: Any = None) -> dict[str, Any]:
        return {"message": {"role": "assistant", "content": 'RetrieveArticle({"entity": "Bo Lee"})'}, "usage": {}}


@pytest.mark.parametrize("model", [Echoes(), WritesCallsAsText()])
def test_an_endpoint_that_ignores_tools_ends_the_run_in_one_line_and_scores_nothing(model, tmp_path):
    generated, corpus = universe("n500_s1")
    tasks = tasks_of(generated)[:10]
    with pytest.raises(ToolsIgnored) as raised:
        run(model, corpus, tasks, tmp_path, mode="tools", max_steps=5)
    assert (
        "\n" not in str(raised.value) and "ignores `tools`" in str(raised.value) and "--mode react" in str(raised.value)
    )
    assert (tmp_path / TRAJECTORIES).read_text() == ""  # no question reported finished


def test_an_echoed_tool_list_is_not_the_action_the_step_asked_for():
    listing = prompt("react").format(question="Who?", scratchpad="").split("\n")[2]  # "(1) RetrieveArticle[..."
    assert "RetrieveArticle[{entity}]" in listing
    assert parse_action(listing) == ("RetrieveArticle", "{entity}")  # the reference's reading: the first one
    assert parse_action(listing, step=1) is None  # a placeholder is no call
    written = f"{listing} Action 1: Search[meditation]. Action 2: Finish[Bo Lee]"
    assert parse_action(written, step=1) == ("Search", "meditation")
    assert parse_action(written, step=2) == ("Finish", "bo lee")
    assert parse_action("I will look. RetrieveArticle[Aida Wang]", step=3) == ("RetrieveArticle", "aida wang")


@pytest.mark.integration
def test_max_tokens_reaches_the_endpoint_and_names_the_run(tmp_path):
    from leakproof_qa.phantom_env.baselines import OracleModel

    generated, _ = universe("n500_s1")
    with ChatStandIn(OracleModel(tasks_of(generated)), max_requests=1000) as server:
        done = subprocess.run(
            [sys.executable, "-m", "phantom_wiki", "agent", "n500_s1", "--base-url", server.base_url]
            + ["--model", "scripted", "--mode", "react", "--max-tokens", "96", "--limit", "1", "--out", "run"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"},
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert {request["max_tokens"] for request in server.requests} == {96}
    assert '"max_tokens": 96' in (tmp_path / "run" / "run.json").read_text()


def test_a_client_sends_its_max_tokens():
    assert ChatClient("http://127.0.0.1:9/v1", "m", max_tokens=64).max_tokens == 64


class EchoesThePromptThenActs:
    """A weak ReAct model: repeats the prompt's lines (its `Finish[]` example among them), then acts."""

    def __init__(self) -> None:
        self.steps = 0

    def complete(self, messages: Any, tools: Any = None, stop: Any = None) -> dict[str, Any]:
        self.steps += 1
        shown = messages[-1]["content"].split("(END OF EXAMPLES)")[0].splitlines()[1:7]
        action = "Search[meditation]" if self.steps == 1 else "Finish[Bo Lee]"
        content = "\n".join([" I will follow the rules.", *shown, f"Action {self.steps}: {action}"])
        return {"message": {"role": "assistant", "content": content}, "usage": {}}


def test_a_react_step_that_echoes_the_prompt_is_read_at_its_own_action(tmp_path):
    generated, corpus = universe("n500_s1")
    tasks = tasks_of(generated)[:1]
    run(EchoesThePromptThenActs(), corpus, tasks, tmp_path, mode="react", max_steps=5)
    trajectory = next(iter(read_trajectories(tmp_path / TRAJECTORIES).values()))
    assert [call["tool"] for call in trajectory["tool_calls"]] == ["Search", "Finish"]
    assert trajectory["answer"] == ["bo lee"]
