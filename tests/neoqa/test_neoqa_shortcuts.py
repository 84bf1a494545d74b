"""Only reading tells (spec/validity.md), for generated NeoQA: probes that see only what a prompt shows, trained on
one generated configuration (t100_s1, t100_s2) and scored on the other, in both directions, stay within 0.05 of
their fair baselines in each instance set apart; the gold's rank among number options is uniform (chi-square).

The probes are builders/analysis/neoqa_shortcuts.py and the neoqa_*.py beside it; tests/neoqa/
test_neoqa_shortcut_probes.py shows, on invented rows, that each finds the leak it looks for."""

from __future__ import annotations

import pytest

from leakproof_qa.builders.analysis.neoqa_options import P_LEVEL, rank_tests
from leakproof_qa.builders.analysis.neoqa_shortcuts import (
    INSTANCE_SETS,
    Configuration,
    configuration,
    set_findings,
    table,
)

MARGIN = 0.05
NAMES = ("t100_s1", "t100_s2")
PROBES = {  # every held probe of a set, as the table names it (up to its first " (" or ":" detail)
    "day look-up: the question's day is written anywhere in the documents -> answer / refuse",
    "day look-up: the question's day lies after the question's date -> answer / refuse",
    "day look-up: how many sentences of the documents state the question's day -> answer / refuse",
    "day look-up: how near the question's day the nearest stated day lies -> answer / refuse",
    "place look-up: the question's place is named anywhere in the documents -> answer / refuse",
    "look-ups of the day and place, boosted trees -> answer / refuse",
    "pick an option the documents mention",
    "pick the option the documents mention most",
    "pick the option the documents mention least",
    "pick the option the documents mention first",
    "option surface, boosted trees -> the top-scored option",
    "number options: pick the smallest",
    "number options: pick the largest",
    "number options: pick the middle one",
    "number options: pick the rank most often gold in training",
    "how the documents name the options, boosted trees -> answer / refuse",
    "document shape, boosted trees -> sufficient / insufficient",
    "question text -> answer / refuse",
    "document surface -> answer / refuse",
    "lm-eval position -> answer / refuse",
}


NUMBER_PROBES = {probe for probe in PROBES if probe.startswith("number options")}


@pytest.fixture(scope="module")
def configurations() -> dict[str, Configuration]:
    """Both configurations' rows of every set, generated and read once for every test here."""
    return {name: configuration(name) for name in NAMES}


@pytest.mark.slow
@pytest.mark.parametrize("subset", INSTANCE_SETS)
@pytest.mark.parametrize("train, test", [NAMES, NAMES[::-1]], ids=lambda name: name)
def test_no_probe_of_the_prompt_gets_more_than_the_margin_above_its_baseline(configurations, train, test, subset):
    findings = set_findings(
        configurations[train].sets[subset],
        configurations[test].sets[subset],
        configurations[test].ordered[subset],
        subset,
    )
    named = {f.probe.split(" (")[0] for f in findings if f.held}
    printed = {f.probe.split(" (")[0] for f in findings}
    # the number rules are held where a set has enough number rows with two options or more (FEW_NUMBERS); where it
    # has fewer they are printed, and the rank's chi-square below holds every set's number rows pooled
    assert PROBES - NUMBER_PROBES <= named and NUMBER_PROBES <= printed, f"probes missing: {sorted(PROBES - named)}"
    over = [f for f in findings if f.held and not f.margin <= MARGIN]
    assert not over, f"{len(over)} probes over the margin:\n" + table({subset: over})
    grouping = next(f for f in findings if f.probe.startswith("whole release"))
    assert not grouping.held  # NeoQA's contrastive design, printed beside, not held


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_the_gold_rank_among_number_options_is_uniform(configurations, name):
    tests = rank_tests([p for prompts in configurations[name].sets.values() for p in prompts])
    assert tests[0].rows >= 200  # enough questions for the test to see a leak of the size the issue names
    rejected = [f for f in tests if f.score < P_LEVEL]
    assert not rejected, table({"all sets": rejected})
