"""Each page's commands write under one ignored folder, `runs/<page>/`, and read only what that page (or the
README's shared tokenizer) made: the pages run in any order and leave nothing untracked in the repository root."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_readme import _BLOCK, PAGES

ROOT = Path(__file__).resolve().parents[1]
_WRITES = re.compile(r"--(?:out|output_path)[ =](\S+)")
_RUNS_PATH = re.compile(r"(?<![\w/.-])(runs/[\w./-]+)")
SHARED = ("runs/tokenizer-qwen2.5", "runs/quickstart/")  # the README's tokenizer, scripts/quickstart.sh's universe


def folder(page: str) -> str:
    return "runs/readme/" if page == "README.md" else f"runs/{Path(page).stem}/"


def shell_blocks(page: str) -> list[str]:
    return [m.group("code").replace("\\\n", " ") for m in _BLOCK.finditer(PAGES[page]) if m.group("language") == "bash"]


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_command_writes_under_its_page_s_own_runs_folder(page):
    for code in shell_blocks(page):
        for line in code.splitlines():
            line = line.split(" #", 1)[0]
            if not re.search(r"python -m (phantom_wiki|leakproof_eval|neoqa)\b", line):
                continue
            for out in _WRITES.findall(line):
                if out in ("DIR", "DIR_OR_REPO") or out.startswith("$"):
                    continue
                assert out.startswith(folder(page)) or out in SHARED, f"{page}: {line.strip()}"


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_runs_path_a_page_reads_is_one_it_makes(page):
    for code in shell_blocks(page):
        for path in _RUNS_PATH.findall(code):
            assert path.startswith(folder(page)) or path.startswith(SHARED), f"{page} names {path}"


def test_runs_is_ignored_by_git():
    assert "runs/" in (ROOT / ".gitignore").read_text().splitlines()
