"""What a lazy reader can see of each option without reading the relation words, and two-sample tests that gold and
decoys look alike in it (spec/validity.md: "a decoy is the answer of a sibling question ... then test that their
distributions agree").

Per option, read from the row's text alone (prompt_view's reading, and the attribute lines again here):
  * distance: how many links of the mention graph ("article X names Y", either way) lie between the person the
    question names and the option's people (the nearest of them; a value's people are those whose article states it);
  * years: the option's people's years of birth (or its dates), less the named person's, on average;
  * mentions: how many shown articles name the option's people, on average;
  * shown: the share of the option's people with a shown article;
  * whole: whether one shown line lists exactly the option's names;
  * size: how many names or values the option holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .mention_graph import FAR, attributes, birth_year, distances, people_of
from .option_probes import FEW_SUFFICIENT, answer_option, choices, whole_list
from .probing import Finding, mean
from .prompt_view import Prompt, named_in

FEATURES = ("distance", "years", "mentions", "shown", "whole", "size")


def view(p: Prompt, index: int) -> dict[str, float | None]:
    """The features (FEATURES) of option `index`; years is None where no year of the named person or the option's
    people is shown."""
    items = p.options[index].split(", ")
    people = people_of(p, index)
    near, told = distances(p), attributes(p)
    anchor = next((told.born[n] for n in reversed(named_in(p.question)) if n in told.born), None)
    dates = [year for year in map(birth_year, items) if year is not None]
    years = dates if len(dates) == len(items) else [told.born[x] for x in people if x in told.born]
    return {
        "distance": float(min((near.get(x, FAR) for x in people), default=FAR)),
        "years": mean([y - anchor for y in years]) if years and anchor is not None else None,
        "mentions": mean([float(len(p.mentions.get(x, ()))) for x in people]) if people else 0.0,
        "shown": mean([float(x in p.titles) for x in people]) if people else 0.0,
        "whole": float(whole_list(p, p.options[index])),
        "size": float(len(items)),
    }


def names_or_values(p: Prompt) -> bool:
    """True when the row's options but "Unanswerable" are names or values, not numbers."""
    return all(not item.isdigit() for i in choices(p) for item in p.options[i].split(", "))


@dataclass(frozen=True)
class SampleTest:
    """A two-sample test of one feature: the golds' values against the decoys' (one decoy a row)."""

    feature: str
    gold: list[float]
    decoys: list[float]
    rank_sum: float  # p-value of the Mann-Whitney rank-sum test (where the values lie)
    spread: float  # p-value of the Kolmogorov-Smirnov test (how they spread)

    @property
    def p_value(self) -> float:
        return min(self.rank_sum, self.spread)


def golds_and_decoys(prompts: Sequence[Prompt]) -> list[tuple[dict[str, float | None], dict[str, float | None]]]:
    """(the gold's view, one decoy's view) of each sufficient row whose options are names or values and hold a decoy:
    the decoy shown first (each row's options come in their own seeded order), so that each row counts once."""
    out = []
    for p in prompts:
        gold = answer_option(p)
        if p.row["answerable"] != "sufficient" or gold is None or not names_or_values(p):
            continue
        decoy = next((i for i in choices(p) if i != gold), None)
        if decoy is not None:
            out.append((view(p, gold), view(p, decoy)))
    return out


def two_sample_tests(prompts: Sequence[Prompt]) -> list[SampleTest]:
    """For each feature, the golds' values against the decoys' over the rows of `golds_and_decoys`."""
    from scipy.stats import ks_2samp, mannwhitneyu

    pairs = golds_and_decoys(prompts)
    out = []
    for feature in FEATURES:
        gold = [v for g, _ in pairs if (v := g[feature]) is not None]
        decoys = [v for _, d in pairs if (v := d[feature]) is not None]
        same = set(gold) == set(decoys) and len(set(gold)) == 1  # one value on both sides: nothing to tell
        rank_sum = 1.0 if same else float(mannwhitneyu(gold, decoys).pvalue)
        spread = 1.0 if same else float(ks_2samp(gold, decoys).pvalue)
        out.append(SampleTest(feature, gold, decoys, rank_sum, spread))
    return out


def _pick(p: Prompt, measure: str, nearest: bool) -> float:
    """The share of the time "pick the option whose `measure` is least (or most)" picks the question's answer, ties
    broken at random (as a share); None-valued options are never picked."""
    found = {i: v for i in choices(p) if (v := view(p, i)[measure]) is not None}
    if not found:
        return 1 / len(choices(p))
    best = (min if nearest else max)(found.values())
    picked = [i for i, v in found.items() if v == best]
    return float(answer_option(p) in picked) / len(picked)


def nearest_findings(test: Sequence[Prompt]) -> list[Finding]:
    """ "Pick the option whose people sit closest to the person the question names" (mention-graph links), on every
    row whose options hold the question's answer (held) and on the sufficient rows (reported), against chance among
    the options but "Unanswerable"."""
    findings = []
    for which, keep, apart in (
        ("the question's answer (rows whose options hold it)", lambda p: True, ""),
        ("the gold option (sufficient rows)", lambda p: p.row["answerable"] == "sufficient", FEW_SUFFICIENT),
    ):
        rows = [p for p in test if keep(p) and answer_option(p) is not None and names_or_values(p)]
        findings.append(
            Finding(
                f"the option sitting closest to the named person (mention graph) -> {which}",
                "accuracy",
                mean([_pick(p, "distance", nearest=True) for p in rows]),
                mean([1 / len(choices(p)) for p in rows]),
                len(rows),
                apart,
            )
        )
    return findings
