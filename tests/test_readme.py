"""The README and the pages of docs/ work as written: every Python block runs on its own in a fresh process, and
every `python -m phantom_wiki` command line in a shell block is one the command line accepts.

A block the machine cannot run here (the Hub, datasets 3.x, a GPU) says so in an HTML comment on the line
before it: `<!-- not run by the tests: the reason -->`.
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


def command_lines() -> list[str]:
    """Every `python -m phantom_wiki ...` command of the shell blocks, continuation lines joined."""
    found = []
    for block in blocks("bash"):
        code = block.values[0].replace("\\\n", " ")
        for line in code.splitlines():
            words = shlex.split(line.split(" #", 1)[0]) if "python" in line else []
            words = [w for w in words if not re.fullmatch(r"[A-Z_]+=.*", w)]  # VAR=value in front of a command
            if words[:3] in (["python", "-m", "phantom_wiki"], [".venv/bin/python", "-m", "phantom_wiki"]):
                found.append(" ".join(words[3:]))
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
