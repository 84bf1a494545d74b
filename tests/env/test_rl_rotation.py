"""Universes that rotate (`universe_every=N`): each block of N items has its own universe, made on demand and kept
in a bounded LRU cache; items stay a pure function of the settings, the seed and i. And the dataset's inputs:
integers only, indices and slices as Python's sequences read them, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from leakproof_qa.builders.phantomwiki.config import ConfigError, parse_name
from leakproof_qa.phantom_env import rl
from leakproof_qa.phantom_env.rl import ROTATED_SEEDS, PhantomWikiDataset, cached_universes, score_answer

REPO = Path(__file__).resolve().parents[2]
ITEMS_IN_A_CHILD = """
import hashlib, json, sys
from leakproof_qa.phantom_env.rl import PhantomWikiDataset
data = PhantomWikiDataset("n50_s1", seed=4, size=300, universe_every=7, distractors=2)
print(hashlib.sha256(json.dumps([data[i] for i in (299, 0, 150, 7, 6)]).encode()).hexdigest())
"""


def test_each_block_of_items_comes_from_its_own_fresh_universe():
    data = PhantomWikiDataset("n100_s1", seed=3, size=1000, universe_every=100)
    names = [data.universe_of(i) for i in range(0, 1000, 100)]
    assert len(set(names)) == 10 and all(data.universe_of(i) == names[i // 100] for i in range(1000))
    for name in names:
        size, depth, seed, _ = parse_name(name)
        assert (size, depth) == (100, data.settings.depth) and seed >= ROTATED_SEEDS  # never an s1..s32
    item = data[250]
    assert item["metadata"]["universe"] == names[2] and score_answer(item["answer"], item) == 1.0
    other = PhantomWikiDataset("n100_s1", seed=4, size=1000, universe_every=100)
    assert not set(names) & {other.universe_of(i) for i in range(0, 1000, 100)}  # another seed, other universes
    assert PhantomWikiDataset("n100_s1", seed=3, size=5)[0]["metadata"]["universe"] == "n100_s1"  # no rotation


def test_a_rotated_item_is_the_same_in_any_order_and_in_another_process():
    data = PhantomWikiDataset("n50_s1", seed=4, size=300, universe_every=7, distractors=2)
    forward = [data[i] for i in range(300)]
    rl._WORLDS.clear()
    assert [data[i] for i in reversed(range(300))] == forward[::-1]
    digests = {
        subprocess.run(
            [sys.executable, "-c", ITEMS_IN_A_CHILD], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
        for _ in range(2)
    }
    assert len(digests) == 1 and len(next(iter(digests))) == 64


@pytest.mark.integration
def test_a_thousand_universes_hold_memory_bounded():
    script = """
import json
from leakproof_qa.phantom_env.rl import PhantomWikiDataset, cached_universes
def rss_mb():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 / 2**20
data = PhantomWikiDataset("n100_s1", seed=9, size=1000, universe_every=1)
readings, universes = [], set()
for i in range(1000):
    universes.add(data[i]["metadata"]["universe"])
    if i in (99, 999):
        readings.append(rss_mb())
print(json.dumps({"universes": len(universes), "cached": len(cached_universes()), "rss": readings}))
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True)
    report = json.loads(done.stdout)
    assert report["universes"] == 1000 and report["cached"] <= rl.WORLDS_KEPT
    after_100, after_1000 = report["rss"]
    assert after_1000 - after_100 < 30, report  # 900 more universes, a few MB of allocator noise at most


def test_the_cache_keeps_few_worlds_and_few_people(monkeypatch):
    rl._WORLDS.clear()
    data = PhantomWikiDataset("n50_s1", seed=1, size=40, universe_every=2)
    for i in range(40):
        data[i]
    assert len(cached_universes()) == rl.WORLDS_KEPT and cached_universes()[-1] == data.universe_of(39)
    monkeypatch.setattr(rl, "PEOPLE_KEPT", 250)  # two universes of 100 people fit, a third does not
    big = PhantomWikiDataset("n100_s1", seed=1, size=5, universe_every=1)
    for i in range(5):
        big[i]
    assert cached_universes() == [big.universe_of(3), big.universe_of(4)]
    monkeypatch.setattr(rl, "PEOPLE_KEPT", 10)  # the newest universe stays, whatever its size
    assert big[0] and cached_universes() == [big.universe_of(0)]


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"size": 1.5}, "size must be a whole number, got 1.5 (float)"),
        ({"size": "10"}, "size must be a whole number, got '10' (str)"),
        ({"size": True}, "size must be a whole number, got True (bool)"),
        ({"size": 10**30}, f"size={10**30} must be from 0 to {sys.maxsize}"),
        ({"size": -1}, "size=-1 must be from 0 to"),
        ({"seed": True}, "seed must be a whole number, got True (bool)"),
        ({"seed": -2}, "seed=-2 must be from 0 to"),
        ({"distractors": 2.0}, "distractors must be a whole number, got 2.0 (float)"),
        ({"universe_every": 0}, "universe_every=0 must be from 1 to"),
        ({"universe_every": "100"}, "universe_every must be a whole number"),
        ({"easy_mode": 1}, "easy_mode must be True or False, got 1"),
        ({"config": 500}, "config must be a universe name such as n500_s1, got 500"),
    ],
)
def test_bad_arguments_are_one_line_errors(arguments, message):
    with pytest.raises(ConfigError) as error:
        PhantomWikiDataset(**{"config": "n50_s1", **arguments})
    assert message in str(error.value) and "\n" not in str(error.value)


def test_indices_and_slices_read_as_pythons_sequences_do():
    data = PhantomWikiDataset("n50_s1", seed=2, size=10)
    items = list(data)
    assert data[-1] == items[-1] and data[-10] == items[0]
    assert data[0:2] == items[0:2] and data[::3] == items[::3] and data[-3:] == items[-3:] and data[5:2] == []
    for bad in ("1", 1.5, True, None):
        with pytest.raises(TypeError, match=f"dataset indices must be integers or slices, not {type(bad).__name__}"):
            data[bad]
    for outside in (10, -11, 10**30):
        with pytest.raises(IndexError, match=f"item {outside} is outside this dataset of 10 items"):
            data[outside]
    with pytest.raises(ConfigError, match="curriculum level True does not exist"):
        PhantomWikiDataset.level(True)
