"""The lazy reader of the NeoQA shortcut audit, on invented rows: it reads days, numbers and places from text as a
prompt writes them, and each probe finds the leak it looks for (and stays at its baseline where the rows hold
none), so that the audit's margins on generated rows mean something."""

from __future__ import annotations

import random
from datetime import date, timedelta

import pytest

from leakproof_qa.builders.analysis.neoqa_options import (
    chi_square_p,
    number_findings,
    number_rows,
    option_findings,
    rank_tests,
    refusal_finding,
)
from leakproof_qa.builders.analysis.neoqa_premise import premise_findings
from leakproof_qa.builders.analysis.neoqa_shortcuts import order_finding, shape_finding
from leakproof_qa.builders.analysis.neoqa_view import (
    days_in,
    names_in,
    number_in,
    place_in,
    read_article,
    read_rows,
    unit_of,
)

START = date(2026, 1, 1)
TOWNS = ["Oakton", "Elmsford", "Pinebury", "Ashcombe", "Birchley", "Cedarholt", "Larchmont", "Willowby"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]  # fmt: skip


def written(day: date) -> str:
    return f"{MONTHS[day.month - 1]} {day.day}, {day.year}"


# --- reading the text -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, days",
    [
        ("On March 3, 2025, Ann Lee joined Acme.", [date(2025, 3, 3)]),
        ("Ann Lee joined Acme on 3 March 2025 and left on 4th of April 2025.", [date(2025, 3, 3), date(2025, 4, 4)]),
        ("Date: 2025-03-03", [date(2025, 3, 3)]),
        ("Filed 3/14/2025 by Mar. 5, 2025", [date(2025, 3, 14), date(2025, 3, 5)]),
        ("On Sept 9, 2025 nothing.", [date(2025, 9, 9)]),
        ("The fair opens on June 4.", [date(2026, 6, 4)]),  # no year: the reader's year
        ("On February 30, 2025 nothing happened.", []),  # no such day
        ("Ann Lee joined 3 organisations in 2025.", []),
        ("Harrow Fair drew 3 Marlholt families and 12 Junebury ones.", []),  # a town is no month
    ],
)
def test_days_are_read_in_every_common_written_form(text, days):
    assert days_in(text, 2026) == days


def test_a_day_without_a_year_is_skipped_when_no_year_is_known():
    assert days_in("The fair opens on June 4.") == []


@pytest.mark.parametrize(
    "text, value, unit",
    [
        ("$8.7M", 8.7e6, "$"),
        ("$1.2 million", 1.2e6, "$"),
        ("1,250 visitors", 1250, "visitors"),
        ("45%", 45, "%"),
        ("12 days", 12, "days"),
        ("3.5 kg", 3.5, "kg"),
        ("about 40 tonnes", 40, "about tonnes"),
        ("€300", 300, "€"),
    ],
)
def test_numbers_are_read_with_their_scale_and_unit(text, value, unit):
    assert number_in(text) == pytest.approx(value)
    assert unit_of(text) == unit


def test_a_name_holds_no_number():
    assert number_in("Juno Ombry") is None


@pytest.mark.parametrize(
    "question, place",
    [
        ("Which town did the person whom Acme appointed as spokesperson in Hollowridge visit?", "Hollowridge"),
        ("Which event did the firm that moved in New Harbor Bay announce?", "New Harbor Bay"),
        ("In which town did Harrow Fair open?", None),  # "In" opens the question: no place detail
        ("Which product did Acme launch in March 2026?", None),  # a month is no place
        ("How many visitors did Harrow Fair draw?", None),
    ],
)
def test_a_place_is_in_and_capitalised_words(question, place):
    assert place_in(question) == place


def test_names_are_capitalised_runs_after_the_first_word():
    question = "Which town did the person whom Cobalt Logistics appointed on June 4, 2026 in New Harbor visit?"
    assert names_in(question) == ["Cobalt Logistics", "New Harbor"]


def test_an_article_counts_the_sentences_that_state_each_day():
    article = read_article(
        {
            "headline": "Acme grows",
            "date": "2026-03-10",
            "passages": [
                "On March 3, 2026, Ann Lee joined Acme. Bo Ray left Acme on 3 March 2026.",
                "On March 9 it rained.",
            ],
        }
    )
    assert article.stated == {date(2026, 3, 3): 2, date(2026, 3, 9): 1}
    assert article.sentences == 3
    assert article.find("Acme") == (3, 0)  # whole words, the headline first
    assert article.find("Ac") == (0, -1)


# --- invented rows ------------------------------------------------------------------------------------------------


def _row(question: str, day: date, options: list[str], gold: int, label: str, documents: list[dict], key: str) -> dict:
    return {
        "question": question,
        "date": day.isoformat(),
        "answer_options": options,
        "gold_answer_idx": gold,
        "answerable": label,
        "documents": documents,
        "question_id": key,
        "instance_id": key + label,
    }


def _document(key: str, day: date, lines: list[str]) -> dict:
    return {"article_id": key, "headline": "News from the valley", "date": day.isoformat(), "passages": lines}


def premise_rows(seed: int, leaky: bool, n: int = 300) -> list[dict]:
    """Pairs of a true-premise control and a false premise on the day of the bridge fact (Ann joined Acme on d1, a
    day before she visited a town): the false day is, when `leaky`, a day near d1 that no document states, else the
    day a third article states for another fact, drawn as d1 is."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        d2 = START + timedelta(days=rng.randrange(300))
        d1, d3 = (d2 - timedelta(days=d) for d in rng.sample(range(1, 20), 2))
        town = rng.choice(TOWNS)
        documents = [
            _document(f"{seed}-{i}-a", d1, [f"On {written(d1)}, Ann Lee{i} joined Acme{i}.", "Residents cheered."]),
            _document(f"{seed}-{i}-b", d2, [f"On {written(d2)}, Ann Lee{i} visited {town}.", "It rained."]),
            _document(f"{seed}-{i}-c", d3, [f"On {written(d3)}, Bo Ray{i} joined Zeta{i}.", "It was cold."]),
        ]
        rng.shuffle(documents)
        options = [*rng.sample(TOWNS, 6), "Unanswerable"]
        if town not in options:
            options[0] = town
        shifts = [s for s in (-3, -2, 2, 3) if d1 + timedelta(days=s) not in (d2, d3)]
        false_day = d1 + timedelta(days=rng.choice(shifts)) if leaky else d3
        for day, label in ((d1, "sufficient"), (false_day, "unanswerable")):
            question = f"Which town did the person who joined Acme{i} on {written(day)} visit?"
            gold = options.index(town) if label == "sufficient" else 6
            rows.append(_row(question, d2 + timedelta(days=2), options, gold, label, documents, f"{seed}-{i}"))
    return rows


def _finding(findings, start: str):
    return next(f for f in findings if f.probe.startswith(start))


def test_the_day_look_up_finds_a_false_day_that_no_document_states():
    findings = premise_findings(read_rows(premise_rows(1, leaky=True)), read_rows(premise_rows(2, leaky=True)))
    assert _finding(findings, "day look-up: the question's day is written anywhere").score == 1.0
    assert _finding(findings, "day look-up: how near").score == 1.0
    assert _finding(findings, "look-ups of the day and place, boosted trees").score > 0.95


def test_the_day_look_up_stays_at_chance_when_the_false_day_is_stated_for_another_fact():
    findings = premise_findings(read_rows(premise_rows(1, leaky=False)), read_rows(premise_rows(2, leaky=False)))
    assert _finding(findings, "day look-up: the question's day is written anywhere").score == 0.5
    assert _finding(findings, "look-ups of the day and place, boosted trees").margin < 0.05


def option_rows(seed: int, leaky: bool, n: int = 300) -> list[dict]:
    """Sufficient rows whose two articles name the gold and, when not `leaky`, every decoy as often."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        options = [*rng.sample(TOWNS, 6), "Unanswerable"]
        gold = rng.randrange(6)
        named = [options[gold]] if leaky else options[:6]
        lines = [f"Ann Lee{i} visited {town} on {written(START)}." for town in named]
        documents = [_document(f"{seed}-{i}-{k}", START, rng.sample(lines, len(lines))) for k in range(2)]
        rows.append(_row("Which town did she visit?", START, options, gold, "sufficient", documents, f"{seed}-{i}"))
    return rows


def test_the_option_probes_find_a_gold_that_alone_is_mentioned():
    findings = option_findings(read_rows(option_rows(1, leaky=True)), read_rows(option_rows(2, leaky=True)))
    assert _finding(findings, "pick an option the documents mention").score == 1.0
    assert _finding(findings, "option surface, boosted trees").score == 1.0


def test_the_option_probes_stay_at_chance_when_every_option_is_mentioned_alike():
    findings = option_findings(read_rows(option_rows(1, leaky=False)), read_rows(option_rows(2, leaky=False)))
    mentioned = _finding(findings, "pick an option the documents mention")
    assert mentioned.score == mentioned.baseline == pytest.approx(1 / 6)
    assert _finding(findings, "option surface, boosted trees").margin < 0.05


def refusal_rows(seed: int, leaky: bool, n: int = 300) -> list[dict]:
    """A sufficient row whose articles name every option once (the gold in the article stating the answer), and an
    insufficient one without that article: when `leaky` nothing names the gold then, else another article does
    (as options made from what the row shows would be)."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        options = [*rng.sample(TOWNS, 6), "Unanswerable"]
        gold = options[rng.randrange(6)]
        others = _document(
            f"{seed}-{i}-a", START, [f"Bo Ray{i} visited {town}." for town in options[:6] if town != gold]
        )
        answer = _document(f"{seed}-{i}-b", START, [f"Ann Lee{i} visited {gold}."])
        rows.append(_row("Which town did Ann visit?", START, options, options.index(gold), "sufficient",
                         [others, answer], f"{seed}-{i}"))  # fmt: skip
        shown = [others] if leaky else [others, _document(f"{seed}-{i}-c", START, [f"{gold} held a fair."])]
        rows.append(_row("Which town did Ann visit?", START, options, 6, "insufficient", shown, f"{seed}-{i}"))
    return rows


def leaky_and_fair(probe, rows):
    """The probe trained on rows of seed 1 and scored on rows of seed 2, with the leak and without."""
    return [probe(read_rows(rows(1, leaky)), read_rows(rows(2, leaky))) for leaky in (True, False)]


def test_the_refusal_probe_finds_options_that_name_what_an_insufficient_row_no_longer_shows():
    leaky, fair = leaky_and_fair(refusal_finding, refusal_rows)
    assert leaky.score == 1.0
    assert fair.margin < 0.05


def span_rows(seed: int, smallest: bool, n: int = 1000) -> list[dict]:
    """Time-span rows whose gold is the smallest of its six numbers when `smallest`, else at a uniform rank."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        spans = sorted(rng.sample(range(1, 90), 6))
        gold_span = spans[0] if smallest else rng.choice(spans)
        options = [f"{s} days" for s in rng.sample(spans, 6)] + ["Unanswerable"]
        gold = options.index(f"{gold_span} days")
        question = f"How many days passed between the day Acme{i} opened and the day Acme{i} closed?"
        rows.append(_row(question, START, options, gold, "sufficient", [], f"{seed}-{i}"))
    return rows


def test_the_number_rules_and_the_rank_test_find_a_gold_that_is_always_the_smallest():
    train, test = read_rows(span_rows(1, smallest=True)), read_rows(span_rows(2, smallest=True))
    findings = number_findings(train, test)
    assert _finding(findings, "number options: pick the smallest").score == 1.0
    assert _finding(findings, "number options counting 'days': pick the smallest").score == 1.0
    assert _finding(findings, "number options: pick the rank most often gold in training").score == 1.0
    assert chi_square_p(number_rows(test))[1] < 1e-9
    assert [f.score < 1e-9 for f in rank_tests(test)] == [True, True]  # all number rows, and those counting days


def test_the_number_rules_stay_near_chance_and_the_rank_test_keeps_uniform_ranks():
    train, test = read_rows(span_rows(1, smallest=False)), read_rows(span_rows(2, smallest=False))
    assert all(abs(f.margin) < 0.05 for f in number_findings(train, test))
    assert chi_square_p(number_rows(test))[1] > 0.01


def shape_rows(seed: int, one_fewer: bool, n: int = 300) -> list[dict]:
    """A sufficient row with two articles (as optimal-evidence shows) and an insufficient one with one article
    fewer (`one_fewer`) or another in its place, dated alike."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        for label, shown in (("sufficient", 2), ("insufficient", 1 if one_fewer else 2)):
            documents = [
                _document(f"{seed}-{i}-{label}-{k}", START + timedelta(days=rng.randrange(30)), ["It rained."] * 3)
                for k in range(shown)
            ]
            rows.append(_row("Which town?", START + timedelta(days=30), ["A", "B", "Unanswerable"], 0, label,
                             documents, f"{seed}-{i}"))  # fmt: skip
    return rows


def test_the_shape_probe_finds_an_insufficient_row_with_one_article_fewer():
    leaky, fair = leaky_and_fair(shape_finding, shape_rows)
    assert leaky.score == 1.0
    assert fair.margin < 0.05


def test_the_order_probe_finds_labels_dealt_with_a_period():
    rows = read_rows(shape_rows(1, False))  # sufficient, insufficient, sufficient, ...: a period of two
    assert order_finding(rows).score == 1.0
    assert order_finding(sorted(rows, key=lambda p: random.Random(p.row["instance_id"]).random())).margin < 0.1
