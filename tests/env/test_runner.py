"""Agents run end to end: baselines through the runner's one code path, and a scripted agent over real HTTP."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import pytest

from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.rows import Generated, generate
from leakproof_qa.phantom_env.baselines import OracleModel, RandomWalkModel
from leakproof_qa.phantom_env.client import ChatClient, EndpointError
from leakproof_qa.phantom_env.runner import RUN_FILE, TRAJECTORIES, RunError, read_trajectories, run, table, tasks_of
from leakproof_qa.phantom_env.tools import Corpus
from tests.env.chat_standin import ChatStandIn
from tests.full_disk import small_disk

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
    assert summary["retrieval_recall"] == 1.0  # it read every required article


def test_a_random_walk_is_a_floor_far_below(tmp_path):
    generated, corpus = universe("n500_s1")
    tasks = tasks_of(generated)
    walk = run(RandomWalkModel(seed=1), corpus, tasks, tmp_path, mode="tools")
    assert walk["finished"] == 500 and walk["f1"] < 0.05
    trajectories = read_trajectories(tmp_path / TRAJECTORIES).values()
    for task, trajectory in zip(tasks, trajectories):  # its recall: the share of required articles it retrieved
        read = {c["argument"].lower() for c in trajectory["tool_calls"] if c["tool"] == "RetrieveArticle"}
        assert trajectory["retrieval_recall"] == sum(t.lower() in read for t in task.required) / len(task.required)
    assert 0 < walk["retrieval_recall"] < 0.5


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


def test_the_step_limit_ends_an_episode_unfinished_and_the_table_counts_it(tmp_path):
    generated, corpus = universe("n500_s1")
    task = next(t for t in tasks_of(generated) if t.minimum_calls >= 3)
    summary = run(OracleModel([task]), corpus, [task], tmp_path, max_steps=2)
    assert summary["finished"] == 0 and summary["f1"] == 0.0 and summary["step_limit"] == 1
    assert "| stopped at the step limit (--max-steps 2) | 1 |" in table(summary)


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


def agent(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "phantom_wiki", "agent", *arguments], cwd=REPO, capture_output=True, text=True
    )


def test_a_rerun_with_another_model_is_refused_naming_the_difference_and_asks_nothing(tmp_path):
    out = str(tmp_path / "run")
    assert agent("n50_s1", "--model", "oracle", "--mode", "tools", "--max-steps", "200", "--out", out).returncode == 0
    recorded = json.loads((tmp_path / "run" / RUN_FILE).read_text())
    assert recorded["universe"] == "n50_s1" and recorded["settings"]["size"] == 50
    assert {"model", "base_url", "mode", "tools", "max_steps", "package_version"} <= set(recorded)
    with ChatStandIn(OracleModel([]), max_requests=5) as server:
        other = agent("n50_s1", "--base-url", server.base_url, "--model", "scripted", "--mode", "react", "--out", out)
        assert server.requests == []
    assert other.returncode == 2 and other.stderr.count("\n") == 1
    assert f'--out {out} holds a run with base_url null, not "{server.base_url}"' in other.stderr
    assert "--overwrite" in other.stderr and "F1" not in other.stdout
    longer = agent("n50_s1", "--model", "oracle", "--mode", "tools", "--max-steps", "1000", "--out", out)
    assert longer.returncode == 2 and "holds a run with max_steps 200, not 1000" in longer.stderr
    again = agent("n50_s1", "--model", "oracle", "--mode", "tools", "--max-steps", "1000", "--out", out, "--overwrite")
    assert again.returncode == 0 and json.loads((tmp_path / "run" / RUN_FILE).read_text())["max_steps"] == 1000


def test_a_folder_of_trajectories_without_run_json_is_refused(tmp_path):
    (tmp_path / TRAJECTORIES).write_text("")
    generated, corpus = universe("n500_s1")
    with pytest.raises(RunError, match="holds trajectories but no run.json"):
        run(OracleModel([]), corpus, tasks_of(generated)[:1], tmp_path)


class Waiting:
    """A model that holds its first call until released: a runner kept busy."""

    def __init__(self) -> None:
        import threading

        self.called, self.release = threading.Event(), threading.Event()

    def complete(self, messages, tools=None, stop=None):
        self.called.set()
        self.release.wait(30)
        return {"message": {"role": "assistant", "content": "Answer: x"}, "usage": {}}


def test_a_second_runner_on_the_same_out_is_refused_naming_the_first(tmp_path):
    import threading

    generated, corpus = universe("n500_s1")
    tasks = tasks_of(generated)[:2]
    busy = Waiting()
    first = threading.Thread(target=run, args=(busy, corpus, tasks, tmp_path))
    first.start()
    try:
        assert busy.called.wait(30)
        with pytest.raises(RunError) as error:
            run(OracleModel(tasks), corpus, tasks, tmp_path, max_steps=NO_LIMIT)
    finally:
        busy.release.set()
        first.join(30)
    said = str(error.value)
    assert f"--out {tmp_path} is in use by process {os.getpid()}" in said and "\n" not in said
    assert len(read_trajectories(tmp_path / TRAJECTORIES)) == 2  # the first run's, nothing asked twice


@pytest.mark.parametrize(
    "line, says",
    [
        ("{}", "line 2 is not a trajectory ('id' missing)"),
        ("[1, 2]", "line 2 is not a trajectory (a JSON list, not an object)"),
        ("not json", "line 2 is not a trajectory (not JSON)"),
        ("[" * 100_000, "line 2 is not a trajectory (not JSON)"),
    ],
)
def test_a_line_that_is_not_a_trajectory_is_one_line_naming_it(tmp_path, line, says):
    generated, corpus = universe("n500_s1")
    tasks = tasks_of(generated)[:3]
    run(OracleModel(tasks), corpus, tasks, tmp_path, max_steps=NO_LIMIT)
    path = tmp_path / TRAJECTORIES
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], line, *lines[1:]]) + "\n")
    with pytest.raises(RunError) as error:
        run(OracleModel(tasks), corpus, tasks, tmp_path, max_steps=NO_LIMIT)
    assert says in str(error.value) and "\n" not in str(error.value)


def test_a_row_without_tool_calls_is_named_too(tmp_path):
    generated, corpus = universe("n500_s1")
    tasks = tasks_of(generated)[:1]
    run(OracleModel(tasks), corpus, tasks, tmp_path, max_steps=NO_LIMIT)
    path = tmp_path / TRAJECTORIES
    row = json.loads(path.read_text())
    del row["tool_calls"]
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(RunError, match="line 1 is not a trajectory \\('tool_calls' missing\\)"):
        run(OracleModel(tasks), corpus, tasks, tmp_path, max_steps=NO_LIMIT)


KILLED_REPAIR = """
import os, sys
from pathlib import Path
from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.rows import generate
from leakproof_qa.phantom_env.baselines import OracleModel
from leakproof_qa.phantom_env.runner import run, tasks_of
from leakproof_qa.phantom_env.tools import Corpus

when = sys.argv[2]
truncate = os.truncate
def killed(path, length):
    if when == "after":
        truncate(path, length)
    os._exit(9)  # as SIGKILL: no cleanup
os.truncate = killed
generated = generate(settings_from("n500_s1")[0])
tasks = tasks_of(generated)[:4]
run(OracleModel(tasks), Corpus.from_generated(generated), tasks, Path(sys.argv[1]), max_steps=10_000)
"""


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_kill_during_the_resume_repair_keeps_every_trajectory(tmp_path, when):
    generated, corpus = universe("n500_s1")
    tasks = tasks_of(generated)[:4]
    run(OracleModel(tasks), corpus, tasks, tmp_path, max_steps=NO_LIMIT)
    path = tmp_path / TRAJECTORIES
    saved = path.read_text().splitlines(keepends=True)[:3]
    path.write_text("".join(saved) + saved[0][:50])  # killed while writing the fourth
    killed = subprocess.run([sys.executable, "-c", KILLED_REPAIR, str(tmp_path), when], cwd=REPO, capture_output=True)
    assert killed.returncode == 9, killed.stderr
    assert path.read_text().startswith("".join(saved))  # the repair never had the saved lines out of the file
    assert run(OracleModel(tasks), corpus, tasks, tmp_path, max_steps=NO_LIMIT)["f1"] == 1.0
    assert path.read_text().splitlines(keepends=True)[:3] == saved and len(read_trajectories(path)) == 4


class AsksNothing:
    """A model that must not be called: every question is already done."""

    def complete(self, messages, tools=None, stop=None):
        raise AssertionError("a question was asked again")


def test_a_whole_last_line_without_its_newline_is_kept(tmp_path):
    generated, corpus = universe("n500_s1")
    tasks = tasks_of(generated)[:2]
    run(OracleModel(tasks), corpus, tasks, tmp_path, max_steps=NO_LIMIT)
    path = tmp_path / TRAJECTORIES
    path.write_text(path.read_text().rstrip("\n"))
    assert run(AsksNothing(), corpus, tasks, tmp_path, max_steps=NO_LIMIT)["f1"] == 1.0
    assert path.read_text().endswith("}\n") and len(path.read_text().splitlines()) == 2


def test_a_full_disk_is_one_line_and_keeps_what_was_written(tmp_path):
    generated, corpus = universe("n500_s1")
    tasks = tasks_of(generated)
    with small_disk(tmp_path / "disk", 64 << 10) as disk:
        with pytest.raises(RunError) as error:
            run(OracleModel(tasks), corpus, tasks, disk / "run", max_steps=NO_LIMIT)
        said = str(error.value)
        assert "No space left on device" in said and "a rerun resumes" in said and "\n" not in said
        kept = read_trajectories(disk / "run" / TRAJECTORIES)
        assert 0 < len(kept) < len(tasks) and all(row["f1"] == 1.0 for row in kept.values())


def test_out_under_a_file_or_an_unreachable_endpoint_is_one_line_at_once(tmp_path):
    (tmp_path / "file").write_text("x")
    under = agent("n50_s1", "--model", "oracle", "--out", str(tmp_path / "file" / "run"))
    assert under.returncode == 2 and under.stderr.count("\n") == 1 and "Not a directory" in under.stderr
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    began = time.monotonic()
    gone = agent("n50_s1", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m", "--out", str(tmp_path / "r"))
    assert time.monotonic() - began < 20 and gone.returncode == 2 and gone.stderr.count("\n") == 1
    assert f"cannot reach http://127.0.0.1:{port}/v1/chat/completions: Connection refused" in gone.stderr


@pytest.mark.parametrize("command", [["agent", "--help"], ["tasks-path", "--help"]])
def test_the_faces_help_works_and_says_the_defaults(command):
    done = subprocess.run([sys.executable, "-m", "phantom_wiki", *command], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith(f"usage: python -m phantom_wiki {command[0]}")
    if command[0] == "agent":
        for default in ("(default react)", "(default atomic)", "(default 1)", "(default 0)", "(default 50"):
            assert default in " ".join(done.stdout.split()), default
