"""Agents run end to end: baselines through the runner's one code path, and a scripted agent over real HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from builders.phantomwiki.config import settings_from
from builders.phantomwiki.generate import Generated, generate
from phantom_env.baselines import OracleModel, RandomWalkModel
from phantom_env.client import ChatClient, EndpointError
from phantom_env.runner import TRAJECTORIES, read_trajectories, run, tasks_of
from phantom_env.tools import Corpus
from tests.env.chat_standin import ChatStandIn

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
NO_LIMIT = 10_000  # steps: above any question's minimum, so the oracle always finishes


@cache
def universe(name: str) -> tuple[Generated, Corpus]:
    generated = generate(settings_from(name)[0])
    return generated, Corpus.from_generated(generated)


@pytest.mark.parametrize("name", ["n500_s1", "n5000_s1"])
def test_the_oracle_answers_every_question_with_exactly_the_minimal_calls(name, tmp_path):
    generated, corpus = universe(name)
    tasks = tasks_of(generated)
    summary = run(OracleModel(tasks), corpus, tasks, tmp_path, mode="tools", max_steps=NO_LIMIT)
    assert summary["questions"] == summary["finished"] == 500 and summary["f1"] == summary["exact_match"] == 1.0
    for task, trajectory in zip(tasks, read_trajectories(tmp_path / TRAJECTORIES).values()):
        retrieved = [c["argument"] for c in trajectory["tool_calls"] if c["tool"] == "RetrieveArticle"]
        assert sorted(retrieved) == sorted(t.lower() for t in task.required)  # each required article, once
        assert len(trajectory["tool_calls"]) == task.minimum_calls + 1  # and Finish
    assert summary["tool_calls_per_question"] == summary["minimum_calls_per_question"] + 1


def test_a_random_walk_is_a_floor_far_below(tmp_path):
    generated, corpus = universe("n500_s1")
    tasks = tasks_of(generated)
    walk = run(RandomWalkModel(seed=1), corpus, tasks, tmp_path, mode="tools")
    assert walk["finished"] == 500 and walk["f1"] < 0.05


def test_the_react_mode_reads_the_papers_protocol(tmp_path):
    generated, corpus = universe("n500_s1")
    tasks = tasks_of(generated)[:40]
    summary = run(OracleModel(tasks), corpus, tasks, tmp_path, mode="react", max_steps=NO_LIMIT)
    assert summary["f1"] == 1.0
    trajectory = next(iter(read_trajectories(tmp_path / TRAJECTORIES).values()))
    prompt = trajectory["messages"][0]["content"]
    assert prompt.startswith("Solve a question answering task with interleaving Thought, Action, Observation steps.")
    assert "RetrieveArticle[{entity}]" in prompt and f"Question: {trajectory['question']}" in prompt
    assert "\nObservation 1: " in prompt


@pytest.mark.parametrize("mode", ["tools", "react"])
def test_a_scripted_agent_over_http_with_failures_runs_end_to_end_and_resumes(mode, tmp_path):
    generated, corpus = universe("n500_s1")
    tasks = [t for t in tasks_of(generated) if t.minimum_calls <= 6][:8]
    steps = sum(t.minimum_calls + 1 for t in tasks)
    failures = {2: 500, 5: 429, 9: 503}
    with ChatStandIn(OracleModel(tasks), max_requests=steps + len(failures), failures=failures, key="k") as server:
        client = ChatClient(server.base_url, "scripted", api_key="k", backoff=0.0)
        first = run(client, corpus, tasks[:5], tmp_path, mode=mode, max_steps=NO_LIMIT, concurrency=2)
        served = len(server.requests)
        summary = run(client, corpus, tasks, tmp_path, mode=mode, max_steps=NO_LIMIT, concurrency=2)
        assert len(server.requests) - served == sum(t.minimum_calls + 1 for t in tasks[5:])  # only the new questions
        assert len(server.requests) == steps + len(failures)  # nothing after the last question, retries counted
    assert first["f1"] == summary["f1"] == 1.0 and summary["questions"] == 8
    trajectories = read_trajectories(tmp_path / TRAJECTORIES)
    assert len(trajectories) == 8 and all(t["usage"]["total_tokens"] == 12 * t["steps"] for t in trajectories.values())
    if mode == "tools":
        assert any(m["role"] == "tool" for t in trajectories.values() for m in t["messages"])


def test_a_cut_trajectory_line_is_rerun(tmp_path):
    generated, corpus = universe("n500_s1")
    tasks = tasks_of(generated)[:3]
    run(OracleModel(tasks), corpus, tasks, tmp_path, max_steps=NO_LIMIT)
    path = tmp_path / TRAJECTORIES
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:2]) + "\n" + lines[2][:40])  # killed while writing the third
    assert run(OracleModel(tasks), corpus, tasks, tmp_path, max_steps=NO_LIMIT)["f1"] == 1.0
    assert [json.loads(line)["id"] for line in path.read_text().splitlines()] == [t.id for t in tasks]


def test_the_step_limit_ends_an_episode_unfinished(tmp_path):
    generated, corpus = universe("n500_s1")
    task = next(t for t in tasks_of(generated) if t.minimum_calls >= 3)
    summary = run(OracleModel([task]), corpus, [task], tmp_path, max_steps=2)
    assert summary["finished"] == 0 and summary["f1"] == 0.0


@pytest.mark.parametrize(
    "base_url, model, key, message",
    [
        ("http://127.0.0.1:9/v1", "scripted", None, "cannot reach http://127.0.0.1:9/v1/chat/completions"),
        (None, "no-such-model", "k", "has no such endpoint or model 'no-such-model' (HTTP 404)"),
        (None, "scripted", "wrong", "refused the API key (HTTP 401)"),
        ("ftp://example/v1", "scripted", None, "is not an http(s) URL"),
    ],
)
def test_a_bad_url_model_or_key_is_one_line(base_url, model, key, message):
    with ChatStandIn(OracleModel([]), max_requests=5, key="k") as server:
        with pytest.raises(EndpointError) as error:
            ChatClient(base_url or server.base_url, model, api_key=key, retries=1, backoff=0.0).complete(
                [{"role": "user", "content": "Question: x"}]
            )
    assert message in str(error.value) and "\n" not in str(error.value)


def test_the_command_line_runs_a_baseline_and_prints_the_scores(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "phantom_wiki",
            "agent",
            "n50_s1",
            "--model",
            "oracle",
            "--mode",
            "tools",
            "--max-steps",
            "200",
            "--limit",
            "20",
            "--out",
            str(tmp_path),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "| F1 | 1.000 |" in done.stdout and (tmp_path / "scores.json").is_file()
    bad = subprocess.run(
        [sys.executable, "-m", "phantom_wiki", "agent", "n50_s1", "--model", "gpt", "--out", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and bad.stderr.strip().count("\n") == 0 and "give --base-url" in bad.stderr
