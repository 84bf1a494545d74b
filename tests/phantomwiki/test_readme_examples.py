"""The README's command-line examples do what their comments say (issue 29, item 7): the Prolog export, the
re-solver and swipl run on files the lines before them make, the examples write to folders the quickstart has not
filled, and the RL item holds the documents the README names."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from leakproof_qa.phantom_env.rl import PhantomWikiDataset

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "phantom_wiki.md").read_text(encoding="utf-8")
BLOCK = PAGE.split("## Command line\n\n```bash\n", 1)[1].split("```", 1)[0]
QUICKSTART = (ROOT / "scripts" / "quickstart.sh").read_text(encoding="utf-8")


def lines(command: str) -> list[str]:
    """The command-line block's lines that start with `command` (comments dropped)."""
    return [line.split("  #", 1)[0].strip() for line in BLOCK.splitlines() if line.startswith(command)]


@pytest.mark.integration
def test_the_prolog_export_re_solves_and_answers_in_swipl_as_the_readme_says(tmp_path):
    for name in ("prolog", "generate n500_s1 ", "resolve"):
        (line,) = lines(f"python -m phantom_wiki {name}")
        done = subprocess.run([sys.executable, *shlex.split(line)[1:]], capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, (line, done.stderr)
    assert done.stdout.startswith("reproduced 500 of 500 stored answers")
    (swipl,) = [line for line in BLOCK.splitlines() if line.startswith("swipl ")]
    query, answer = re.fullmatch(r'swipl \S+\s+# \?- (aunt\(".+?", Y\))\.  Y = (".+?")', swipl).groups()
    if shutil.which("swipl") is None:
        pytest.skip("swipl is not installed")
    program = shlex.split(swipl)[1]
    done = subprocess.run(
        ["swipl", "-g", f"forall({query}, (print(Y), nl)), halt", program], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0 and done.stdout.splitlines()[0] == answer


def test_no_example_writes_into_a_folder_the_quickstart_filled_without_overwrite():
    filled = set(re.findall(r"--out (\S+)", QUICKSTART))
    for line in lines("python -m phantom_wiki generate"):
        out = re.search(r"--out (\S+)", line).group(1)
        assert out not in filled or "--overwrite" in line, line


def test_an_rl_item_holds_the_required_articles_and_as_many_others_as_distractors_asks():
    plain = PhantomWikiDataset("n50_s1", seed=7, size=3)
    shown = PhantomWikiDataset("n50_s1", seed=7, size=3, distractors=2)
    assert plain[1]["metadata"]["documents"] == []
    titles = [d["title"] for d in shown[1]["metadata"]["documents"]]
    required = shown[1]["metadata"]["required_titles"]
    assert set(required) <= set(titles) and len(titles) == len(required) + 2
