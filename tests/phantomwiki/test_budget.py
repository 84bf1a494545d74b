"""A universe or question count the machine cannot hold is refused up front, in one line, not after memory runs out."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

import phantom_wiki
from leakproof_qa.builders.phantomwiki import budget
from leakproof_qa.builders.phantomwiki.config import ConfigError, settings_from

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "name, knobs, says",
    [
        ("n10000000000_s1", {}, "n10000000000_s1 with questions_per_template=10 needs about 72,000.4 GB"),
        ("n50_s1", {"questions_per_template": 10**7}, "questions_per_template=10000000 needs about 75,000.3 GB"),
    ],
)
def test_a_configuration_beyond_the_machine_is_refused_before_any_work(name, knobs, says, tmp_path, monkeypatch):
    monkeypatch.delenv(budget.LIMIT_VARIABLE, raising=False)
    began = time.perf_counter()
    with pytest.raises(ConfigError) as error:
        phantom_wiki.load_dataset(name, cache_dir=str(tmp_path), **knobs)
    assert time.perf_counter() - began < 5
    assert says in str(error.value) and "set LEAKPROOF_MEMORY_LIMIT=off" in str(error.value)
    assert "\n" not in str(error.value)


def test_the_estimate_follows_the_measured_peaks():
    assert 7.0e9 < budget.estimate(settings_from("n1000000_s1")[0]) < 8.0e9  # measured: 7.1 GB (README)
    assert budget.estimate(settings_from("n5000_s1")[0]) < 0.5e9  # measured: 0.34 GB


@pytest.mark.parametrize(
    "value, limit", [("64G", 64 * 1024**3), ("512M", 512 * 1024**2), ("1000", 1000), ("off", None)]
)
def test_the_limit_can_be_set_or_turned_off(monkeypatch, value, limit):
    monkeypatch.setenv(budget.LIMIT_VARIABLE, value)
    assert budget._limit() == limit
    if limit is None:
        budget.check(settings_from("n10000000000_s1")[0])  # no refusal: the user knows better


def test_a_limit_that_is_not_a_size_is_one_line(monkeypatch):
    monkeypatch.setenv(budget.LIMIT_VARIABLE, "lots")
    with pytest.raises(ConfigError, match="LEAKPROOF_MEMORY_LIMIT='lots' is not a size"):
        budget.check(settings_from("n50_s1")[0])


def test_the_command_line_says_it_in_one_line(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "phantom_wiki",
            "generate",
            "n50_s1",
            "--questions-per-template",
            "10000000",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "needs about" in done.stderr


def test_universes_made_at_once_are_held_to_the_budget_together(monkeypatch):
    settings = settings_from("n1000000_s1")[0]  # about 7.1 GB
    monkeypatch.setenv(budget.LIMIT_VARIABLE, "10G")
    budget.check(settings)  # one at a time fits
    with pytest.raises(ConfigError, match=r"\(2 at once: --num-proc 1 makes one at a time\) needs about 15"):
        budget.check(settings, at_once=2)
