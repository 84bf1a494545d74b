"""A generated configuration too small for its subset says so in one line, and what would give rows, instead of
`datasets`' bare 'Instruction "test" corresponds to no data!'."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import neoqa
from leakproof_qa.dataset_loading import NoRowsError

REPO = Path(__file__).resolve().parents[2]
EMPTY = "t2_e3_s1_context-ablation"  # 3 events of about 12 articles: no question has 80 unrelated earlier articles


def test_loading_an_empty_subset_says_why_and_what_gives_rows(tmp_path):
    with pytest.raises(NoRowsError) as error:
        neoqa.load_dataset(EMPTY, split="test", cache_dir=str(tmp_path))
    said = str(error.value)
    assert "\n" not in said and said.startswith(f"{EMPTY} has no rows: its 2 timeline(s) of 3 events hold no question")
    assert "more events per timeline" in said
    with pytest.raises(NoRowsError, match="has no rows"):  # every split at once, as datasets.load_dataset gives them
        neoqa.load_dataset(EMPTY, cache_dir=str(tmp_path))


@pytest.mark.integration
def test_the_command_line_says_it_in_one_line(tmp_path):
    env = os.environ | {"PYTHONPATH": str(REPO), "HF_DATASETS_DISABLE_PROGRESS_BARS": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "neoqa", EMPTY, "--cache-dir", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.strip().splitlines() == [done.stderr.strip()] and "has no rows" in done.stderr


def test_more_events_give_the_same_subset_rows(tmp_path):
    rows = neoqa.load_dataset("t2_e8_s1_context-ablation", split="test", cache_dir=str(tmp_path))
    assert len(rows) > 0
