"""The README and the pages of docs/ work as written: every Python block runs on its own in a fresh process, the
README's shell blocks run in order as a new user would run them, and every `python -m phantom_wiki`, `python -m
leakproof_qa run` and `python -m neoqa` command line in a shell block of any page is one its command line accepts.

A block the machine cannot run here (the Hub, datasets 3.x, a GPU, a model server) says so in an HTML comment on the
line before it: `<!-- not run by the tests: the reason -->`.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from leakproof_qa.builders.cli.phantomwiki import parser

ROOT = Path(__file__).resolve().parents[1]
PAGES = {
    path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
}
_BLOCK = re.compile(r"^```(?P<language>\w*)\n(?P<code>.*?)^```", re.MULTILINE | re.DOTALL)
_NOT_RUN = re.compile(r"<!-- not run by the tests: (?P<why>.+?) -->\s*$")


def blocks(language: str) -> list:
    """(line number, code) of each block in `language`; a block marked as not run is skipped, with its reason."""
    found = []
    for page, text in PAGES.items():
        for match in _BLOCK.finditer(text):
            if match.group("language") != language:
                continue
            line = text.count("\n", 0, match.start()) + 1
            before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            marked = _NOT_RUN.search(before)
            marks = [pytest.mark.skip(reason=marked.group("why"))] if marked else []
            found.append(pytest.param(match.group("code"), id=f"{page}:{line}", marks=marks))
    return found


@pytest.mark.slow
@pytest.mark.integration
@pytest.mark.parametrize("code", blocks("python"))
def test_each_python_block_runs_on_its_own(code, tmp_path):
    env = {
        **os.environ,
        "HF_DATASETS_CACHE": str(tmp_path / "cache"),
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(ROOT),
        "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
    }
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]


def command_lines(module: str = "phantom_wiki") -> list[str]:
    """Every `python -m MODULE ...` command of the shell blocks (marked or not), continuation lines joined."""
    found = []
    for block in blocks("bash"):
        code = block.values[0].replace("\\\n", " ")
        for line in code.splitlines():
            words = shlex.split(line.split(" #", 1)[0]) if "python" in line else []
            words = [w for w in words if not re.fullmatch(r"[A-Z_]+=.*", w)]  # VAR=value in front of a command
            if words[:3] in (["python", "-m", module], [".venv/bin/python", "-m", module]):
                found.append(shlex.join(words[3:]))
    return found


def test_the_readme_shows_the_main_commands():
    commands = {line.split()[0] for line in command_lines()}
    assert {"generate", "publish", "list", "prolog", "agent"} <= commands


@pytest.mark.parametrize("arguments", command_lines())
def test_each_command_line_in_the_readme_is_accepted(arguments):
    faces = {"agent": lambda rest: 0, "mcp": lambda rest: 0, "tasks-path": lambda rest: 0}
    try:
        parser(faces).parse_args(shlex.split(arguments))
    except SystemExit as stop:
        assert stop.code == 0, f"python -m phantom_wiki {arguments}"


@pytest.mark.parametrize("arguments", [line for line in command_lines("leakproof_qa") if line.startswith("run ")])
def test_each_lm_eval_run_in_the_docs_names_known_tasks_and_good_metadata(arguments):
    from leakproof_qa.leakproof_eval.__main__ import parse
    from leakproof_qa.leakproof_eval.preflight import metadata_problem, unknown_task

    _, parsed = parse(shlex.split(arguments)[1:])
    tasks, metadata = list(parsed.tasks or []), parsed.metadata or {}
    assert tasks and parsed.model, arguments
    assert unknown_task(tasks) is None and metadata_problem(tasks, metadata) is None, arguments


@pytest.mark.parametrize("arguments", command_lines("leakproof_qa"))
def test_each_leakproof_qa_command_in_the_docs_is_a_command(arguments):
    from leakproof_qa.leakproof_eval.__main__ import COMMANDS

    assert shlex.split(arguments)[0] in COMMANDS


@pytest.mark.parametrize("arguments", command_lines("neoqa"))
def test_each_neoqa_command_in_the_docs_names_a_configuration_or_a_command(arguments):
    import leakproof_qa.builders.neoqa as engine

    words = shlex.split(arguments)
    takes_a_name = words[0] in ("publish", "generate", "generate-many")
    name = words[1] if takes_a_name and len(words) > 1 and not words[1].startswith("-") else words[0]
    if words[0] == "generate-many":
        name += "_s1"  # a name without its seed: the first of --seeds
    if name != "list" and "--data-dir" not in words:
        engine.check_config(name)  # a one-line ConfigError if the docs name no configuration


def readme_shell_blocks() -> list[str]:
    """The README's shell blocks that are not marked as not run, in order."""
    text = PAGES["README.md"]
    found = []
    for match in _BLOCK.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        if match.group("language") == "bash" and not _NOT_RUN.search(before):
            found.append(match.group("code"))
    return found


@pytest.mark.slow
@pytest.mark.integration
def test_the_readme_shell_blocks_run_in_order_as_a_new_user_runs_them(tmp_path):
    """In a fresh folder whose `.venv` is this interpreter: each block under `bash -e`, every command exit 0."""
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
    (venv / "python").chmod(0o755)
    (venv / "activate").write_text(f"export PATH={shlex.quote(str(venv))}:$PATH\n")
    env = {
        **os.environ,
        "PATH": f"{venv}:{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "HF_HOME": str(tmp_path / "hf"),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
    }
    for code in readme_shell_blocks():
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", code],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        assert done.returncode == 0, f"{code}\n{done.stderr[-3000:]}"
