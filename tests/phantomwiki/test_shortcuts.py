"""Only reading tells (spec/validity.md): probes that see only what a prompt shows, trained on one universe and
scored on another, stay near their fair baselines, both ways on two seeds (n500 here, n5000 in a slow test), and the
rules over dates over ten universes (too few questions ask several dates in one); the look-up and the whole-release
grouping figure are reported apart, never held."""

from __future__ import annotations

from functools import cache

import pytest

from leakproof_qa.builders.analysis.document_probes import missing_in_lists, namesake
from leakproof_qa.builders.analysis.grouping import grouped_labels
from leakproof_qa.builders.analysis.option_probes import (
    FEW_DATES,
    FEW_NAMES,
    count_findings,
    numbers,
    several_findings,
    smallest,
    smallest_positive,
)
from leakproof_qa.builders.analysis.probing import Finding, fit_threshold
from leakproof_qa.builders.analysis.prompt_view import UNANSWERABLE, hops, looks_up, read_prompt, read_prompts
from leakproof_qa.builders.analysis.rag_probes import short_answers
from leakproof_qa.builders.analysis.shortcuts import Universe, audit, balanced_accuracy, table
from tests.phantomwiki.pw_universes import instances, rag

MARGIN = 0.05  # balanced accuracy or accuracy above the fair baseline that a probe may reach on a held-out universe
PROBES = {  # every probe the tests hold, by the start of its name
    "question text -> label",
    "question text -> answer / refuse",
    "wording rule",
    "rag: at most k hops in the question text -> answer",
    "rag: at most k parent / child steps in the question's relation words -> answer",
    "document surface -> label",
    "document surface -> answer / refuse",
    "number of options -> label",
    "named person's article position -> label",
    "document surface and mention graph -> label",
    "document surface and mention graph -> answer / refuse",
    "document surface and mention graph -> sufficient / insufficient",
    "a person named by",
    "missing hub profile",
    "options -> the question's answer",
    "a whole shown list -> the question's answer",
    "option-feature scorer -> the question's answer",
    "an option holds a name or value no shown document states -> refuse",
    "sufficient rows with a wrong option no shown document states",
    "smallest positive number -> the question's count",
    "smallest number -> the question's count",
    "middle number -> the question's count",
    "the number at the rank counts take most often",
    "the option sitting closest to the named person (mention graph) -> the question's answer",
    "the unfound named person has a namesake",
}


@cache
def universe(name: str) -> Universe:
    return Universe.of(instances(name), rag(name))


NOT_YET: dict[str, float] = {  # probes still above MARGIN somewhere, each held at the level it reached
    # at n5000 (issue 46: +0.051 / +0.046, +0.032 / +0.056, +0.046 / +0.050; 0.14.0's rows +0.047 / +0.028,
    # +0.058 / +0.032, +0.043 / +0.050 on the same probes): an insufficient row lacks the mentions its missing article
    # made of people without an article, and its question is larger than most (more roles, more insufficient rows)
    "document surface and mention graph -> label": 0.06,
    "document surface and mention graph -> sufficient / insufficient": 0.065,
    "missing hub profile": 0.06,
}
TEN_UNIVERSES = [f"n500_s{seed}" for seed in range(1, 11)]  # where the date rules are held: a universe asks about
# 18 questions of several dates (about 140 rows, each question's rows sharing its gold and documents)


def _margin(probe: str) -> float:
    return next((bound for name, bound in NOT_YET.items() if probe.startswith(name)), MARGIN)


def held_over_the_margin(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.held and f.margin > _margin(f.probe)]


@pytest.fixture(scope="module", params=[("n500_s1", "n500_s2"), ("n500_s2", "n500_s1")], ids="->".join)
def findings(request) -> list[Finding]:
    train, test = request.param
    return audit(universe(train), universe(test))


def test_every_probe_is_run_and_held(findings):
    held = [f for f in findings if f.held]
    assert {name for name in PROBES if not any(f.probe.startswith(name) for f in held)} == set()
    assert all(f.rows > 0 and f.score == f.score for f in held)  # scored on rows, never NaN (which no margin fails)


def test_no_probe_of_the_surface_gets_more_than_the_margin_above_its_baseline(findings):
    over = held_over_the_margin(findings)
    assert not over, "\n" + table(over)


def test_the_look_up_finds_only_rows_to_refuse_and_no_more_than_its_share(findings):
    """A question naming someone without an article (a nonexistent person, a missing anchor) must be refused: one
    look-up, not a shortcut; it never points at a row to answer and finds about a quarter of the refusals."""
    precision = next(f for f in findings if f.metric == "precision")
    recall = next(f for f in findings if f.metric == "recall")
    assert not precision.held and not recall.held
    assert precision.score == 1.0 and recall.score < 0.35


def test_the_grouping_figure_is_printed_but_never_held(findings):
    grouping = [f for f in findings if f.probe.startswith("whole release")]
    assert grouping and not any(f.held for f in grouping)


@pytest.mark.slow
@pytest.mark.parametrize("train, test", [("n5000_s1", "n5000_s2"), ("n5000_s2", "n5000_s1")], ids=["s1->s2", "s2->s1"])
def test_at_n5000_no_probe_gets_more_than_the_margin_above_its_baseline(train, test):
    over = held_over_the_margin(audit(universe(train), universe(test)))
    assert not over, "\n" + table(over)


def test_over_ten_universes_no_rule_over_several_dates_or_names_finds_the_answer():
    """Closest, widest, middle, sharing most or least with the other options, earliest, latest, outlying dates; names
    the shown lines list together most, sharing most or least: each near chance among the options on every row whose
    options hold the question's answer (0.12.0: closest +0.075, sharing least +0.063, earliest +0.095, outlying +0.116;
    the name rules were held per universe until issue 46, whose rows mostly show two answers, so a universe's 50 or so
    questions move such a margin by about 0.07)."""
    pooled = [p for name in TEN_UNIVERSES for p in universe(name).instances]
    several = [f for f in several_findings(pooled) if f.apart in (FEW_DATES, FEW_NAMES)]
    assert len(several) == 11 and all(f.rows > 1000 for f in several)
    over = [f for f in several if f.margin > MARGIN]
    assert not over, "\n" + table(over)


# The probes' parts, on rows made by hand: each can tell, so a margin the audit reports near 0 is a finding.


def article(name: str, family: dict[str, list[str]], attributes: dict[str, str] | None = None) -> dict:
    lines = [f"# {name}", "", "## Family"]
    lines += [f"The {rel} of {name} {'are' if len(who) > 1 else 'is'} {', '.join(who)}." for rel, who in family.items()]
    lines += ["", "## Attributes"] + [f"The {k} of {name} is {v}." for k, v in (attributes or {}).items()]
    return {"title": name, "text": "\n".join(lines)}


def row(question: str, documents: list[dict], answerable: str = "sufficient", **fields) -> dict:
    return {"question": question, "documents": documents, "answerable": answerable, "closed_world": "", **fields}


def test_balanced_accuracy_weighs_each_label_alike():
    gold = ["a", "a", "a", "b"]
    assert balanced_accuracy(gold, ["a", "a", "a", "a"]) == 0.5  # the majority label scores chance
    assert balanced_accuracy(gold, ["a", "a", "b", "b"]) == pytest.approx((2 / 3 + 1) / 2)


def test_the_hops_of_a_question_are_read_from_its_words():
    assert hops("Who is the sibling of Diane Ozaki?") == 1
    assert hops("What is the date of birth of the son of Ann Lee (who lives in Oslo)?") == 2
    assert hops("How many sons does the friend of Ann Lee's brother Bo Lee have?") == 3
    assert hops("Who is the person whose hobby is rock pooling?") == 0
    assert hops("What is the occupation of the person whose occupation is flight engineer?") == 1


def test_a_prompt_is_read_from_its_articles_text():
    p = read_prompt(
        row(
            "Who is the son of Ann Lee?",
            [article("Ann Lee", {"sons": ["Bo Lee", "Cy Lee"], "husband": ["Al Lee"]}, {"hobby": "rock pooling"})],
            answer_options=["Bo Lee, Cy Lee", "Unanswerable"],
        )
    )
    assert p.people == {"Ann Lee", "Bo Lee", "Cy Lee", "Al Lee"} and p.values == {"rock pooling"}
    assert set(p.absent) == {"Bo Lee", "Cy Lee", "Al Lee"} and p.absent["Bo Lee"] == {"Ann Lee"}
    assert p.states("Cy Lee") and p.states("rock pooling") and not p.states("Dee Lee")
    assert not looks_up(p) and looks_up(read_prompt(row("Who is the son of Eve Lee?", p.row["documents"])))


def test_the_count_rules_pick_by_the_numbers_alone():
    options = ["2", "0", "Unanswerable", "1"]
    nums = numbers(read_prompt(row("How many sons does Ann Lee have?", [], answer_options=options)))
    assert nums == [(0, 1), (1, 3), (2, 0)]
    assert smallest_positive(nums) == 3 and smallest(nums) == 1
    rows = [
        row("How many sons?", [], answer_options=["0", str(n), str(n + 1), UNANSWERABLE], question_answer=[str(n)])
        for n in (1, 2, 3)
    ]
    found = {f.probe: f.score for f in count_findings(read_prompts([{**r, "gold_answer_idx": 1} for r in rows]))}
    assert found["smallest positive number -> the question's count (rows whose options hold it)"] == 1.0
    assert found["smallest number -> the question's count (rows whose options hold it)"] == 0.0


def test_the_hop_rule_finds_a_label_that_follows_length_and_not_one_that_does_not():
    short, long = "Who is the son of Ann Lee?", "Who is the son of the son of the son of Ann Lee?"
    follows = read_prompts([row(short, []), row(long, [], "insufficient")] * 5)
    assert short_answers(follows, follows).score == 1.0
    balanced = read_prompts([row(q, [], a) for q in (short, long) for a in ("sufficient", "insufficient")] * 5)
    assert short_answers(balanced, balanced).score == 0.5


def test_a_person_named_from_many_articles_without_their_own_tells_an_insufficient_row():
    named = [article(f"P{c} Lee", {"sister": ["Zoe Lee"]}) for c in "abcd"]
    alone = [article(f"P{c} Lee", {}) for c in "abcd"]
    rows = [row("Who is the sister of Pa Lee?", named, "insufficient"), row("Who is the sister of Pa Lee?", alone)] * 3
    found = missing_in_lists(read_prompts(rows), read_prompts(rows))
    assert found.score == 1.0 and found.held


def test_a_namesake_under_another_surname_is_found_only_for_a_person_without_an_article():
    documents = [article("Ann Lee", {"son": ["Bo Lee"]})]
    assert namesake(read_prompt(row("Who is the son of Ann Kim?", documents)))
    assert not namesake(read_prompt(row("Who is the son of Ann Lee?", documents)))
    assert not namesake(read_prompt(row("Who is the son of Cy Kim?", documents)))


def test_the_grouping_calls_a_row_lacking_what_every_other_row_shows_insufficient():
    a, b, c, d = (article(n, {}) for n in ("Ann Lee", "Bo Lee", "Cy Lee", "Dee Lee"))
    q, false = "Who is the son of Ann Lee (who lives in Oslo)?", "Who is the son of Ann Lee (who lives in Rome)?"
    family = [
        row(q, [a, b, c], question_family_id="f"),
        row(q, [a, c, d], "insufficient", question_family_id="f"),
        row(false, [a, b, c, d], "unanswerable", question_family_id="f"),
        row("Who is the son of Ann Kim?", [a, b, c], "unanswerable", question_family_id="f"),
    ]
    assert grouped_labels(read_prompts(family)) == ["sufficient", "insufficient", "unanswerable", "unanswerable"]


def test_a_threshold_is_fitted_where_it_separates_best():
    assert fit_threshold([0, 1, 2, 5, 6, 7], ["n", "n", "n", "y", "y", "y"], "y") == 5
