"""Only reading tells (spec/validity.md), for generated NeoQA: probes that see only what a prompt shows, trained on
one generated configuration and scored on another, stay near their fair baselines, in both directions."""

from __future__ import annotations

import pytest

from leakproof_qa.builders.analysis.neoqa_shortcuts import audit
from leakproof_qa.builders.neoqa.generate import GeneratedSplit
from leakproof_qa.builders.neoqa.settings import settings_from
from leakproof_qa.leakproof_eval.ordering import interleaved

MARGIN = 0.05
NAMES = ("t100_s1", "t100_s2")


@pytest.fixture(scope="module")
def rows() -> dict[str, list[dict]]:
    return {name: list(GeneratedSplit(settings_from(name)[0], "neoqa")) for name in NAMES}


@pytest.mark.slow
@pytest.mark.parametrize("train, test", [NAMES, NAMES[::-1]], ids=lambda name: name)
def test_no_probe_of_the_surface_gets_more_than_the_margin_above_its_baseline(rows, train, test):
    seed = settings_from(test)[0].seed
    ordered = interleaved(rows[test], lambda r: r["answerable"] == "sufficient", seed, "neoqa/test")  # as neoqa_load
    findings = audit(rows[train], rows[test], ordered)
    held = [f for f in findings if f.held]
    assert {f.probe.split(" (")[0] for f in held} == {
        "question text -> answer / refuse",
        "options -> gold option",
        "document surface -> answer / refuse",
        "lm-eval position -> answer / refuse",
    }
    for finding in held:
        assert finding.margin <= MARGIN, finding
    grouping = next(f for f in findings if f.probe.startswith("whole release"))
    assert not grouping.held and grouping.score > 0.8  # NeoQA's contrastive design, printed beside, not held
