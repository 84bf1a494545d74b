"""Premise look-ups: can a reader tell a false premise (or an unsupported place) from its true-premise control by
looking the question's detail up in the documents, without linking it to the fact it qualifies?

The rows: those whose question states a day (any date pattern) or a place ("in <Capitalised Words>"), found in the
question text alone, labelled sufficient (answer) or unanswerable (refuse); insufficient rows are the shape probes'.
Each look-up is a one-feature rule whose direction and threshold are fitted on the training configuration, scored
by balanced accuracy against 0.5:
  * the question's day is written anywhere in the documents (a sentence or an article's date);
  * the day lies after the question's date;
  * how many sentences of the documents state the day; how many days from it the nearest stated day lies;
  * the question's place is named anywhere in the documents;
and boosted trees over all of them (with how many articles name the place, how far the day lies before the
question's date, what share of the stated days it is, how many days the documents state). Printed apart: every
name in the question is named in the documents -> answer, on every row (a look-up that a careful reader makes too).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import date

from .neoqa_fit import boosted_finding, fitted_rule
from .neoqa_view import Shown, label_of, names_in
from .probing import LOOK_UP, Finding, balanced_accuracy

FAR = 400  # days: the nearest stated day when the documents state none
ONE_LABEL = "(one label only: not held)"
NO_ROWS = "(no such rows: not held)"
BOOSTED = "look-ups of the day and place, boosted trees -> answer / refuse"


def written_anywhere(p: Shown, day: date) -> float:
    """1 when the documents write the day: in a sentence, or as an article's date."""
    return float(day in p.stated or any(a.day == day for a in p.articles))


def after_question(p: Shown, day: date) -> float:
    """1 when the day lies after the question's date."""
    return float(day > p.day)


def stating_sentences(p: Shown, day: date) -> float:
    """How many sentences of the documents state the day."""
    return float(p.stated[day])


def nearest_stated(p: Shown, day: date) -> float:
    """How many days from the question's day the nearest day the documents state lies (0: the day itself)."""
    return float(min((abs((day - d).days) for d in p.stated), default=FAR))


DAY_RULES: dict[str, Callable[[Shown, date], float]] = {
    "day look-up: the question's day is written anywhere in the documents": written_anywhere,
    "day look-up: the question's day lies after the question's date": after_question,
    "day look-up: how many sentences of the documents state the question's day": stating_sentences,
    "day look-up: how near the question's day the nearest stated day lies": nearest_stated,
}


def place_named(p: Shown, place: str) -> float:
    """1 when the documents name the place."""
    return float(p.mentions(place) > 0)


_ASKS_DAYS = re.compile(r"\s*how many days\b", re.IGNORECASE)


def premise_rows(prompts: Sequence[Shown]) -> list[Shown]:
    """The sufficient and unanswerable rows whose question states a day or a place as a premise: not a question that
    asks for the days between two facts, whose facts' own places and days are what it asks about (their sufficient
    rows would stand here without their insufficient ones)."""
    return [
        p
        for p in prompts
        if p.label in ("sufficient", "unanswerable")
        and (p.question_day or p.place)
        and not _ASKS_DAYS.match(p.question)
    ]


def look_ups(p: Shown) -> list[float]:
    """Every look-up of the row's day and place (zeros, and FAR for the nearest day, where the question states
    none)."""
    day, place, stated = p.question_day, p.place, p.stated
    on_day = [0.0, 0.0, 0.0, 0.0, FAR, 0.0, 0.0]
    if day:
        on_day = [1.0, written_anywhere(p, day), after_question(p, day), stated[day], nearest_stated(p, day)]
        on_day += [float((p.day - day).days), stated[day] / max(1, sum(stated.values()))]
    named = [0.0, 0.0, 0.0]
    if place:
        named = [1.0, float(p.naming(place).times), float(p.naming(place).articles)]
    return on_day + named + [float(len(stated))]


def _held(train: Sequence[Shown], test: Sequence[Shown]) -> str:
    """Why a probe is not held (a side holds one label only), or nothing when both sides hold both labels."""
    return "" if len(set(label_of(train))) == len(set(label_of(test))) == 2 else ONE_LABEL


def _rule(name: str, train: Sequence[Shown], test: Sequence[Shown], value: Callable[[Shown], float]) -> Finding:
    """A one-feature rule fitted on `train`, scored on `test`."""
    if not train or not test:
        return Finding(f"{name} -> answer / refuse", "balanced accuracy", float("nan"), 0.5, len(test), NO_ROWS)
    guesses, words = fitted_rule([value(p) for p in train], label_of(train), [value(p) for p in test])
    return Finding(
        f"{name} -> answer / refuse (fitted: {words})",
        "balanced accuracy",
        balanced_accuracy(label_of(test), guesses),
        0.5,
        len(test),
        _held(train, test),
    )


def _on_day(rule: Callable[[Shown, date], float]) -> Callable[[Shown], float]:
    return lambda p: rule(p, p.question_day) if p.question_day else 0.0


def names_found(p: Shown) -> bool:
    """True when the documents name every name the question holds."""
    return all(p.mentions(name) for name in names_in(p.question))


def name_look_up(test: Sequence[Shown]) -> Finding:
    """Every name the question holds is named in the documents -> answer, on every row: printed apart, since a row
    whose documents lack a name the question holds lacks a fact the careful reader needs too."""
    return Finding(
        "name look-up: every name in the question is named in the documents -> answer / refuse",
        "balanced accuracy",
        balanced_accuracy(label_of(test), ["answer" if names_found(p) else "refuse" for p in test]),
        0.5,
        len(test),
        LOOK_UP,
    )


def premise_findings(train: Sequence[Shown], test: Sequence[Shown]) -> list[Finding]:
    """Each look-up of the day (rows stating one) and of the place (rows naming one), and the boosted look-up probe
    (rows stating either), all on sufficient and unanswerable rows."""
    fit, scored = premise_rows(train), premise_rows(test)
    fit_days, scored_days = [p for p in fit if p.question_day], [p for p in scored if p.question_day]
    findings = [_rule(name, fit_days, scored_days, _on_day(rule)) for name, rule in DAY_RULES.items()]
    fit_places, scored_places = [p for p in fit if p.place], [p for p in scored if p.place]
    findings.append(
        _rule(
            "place look-up: the question's place is named anywhere in the documents",
            fit_places,
            scored_places,
            lambda p: place_named(p, p.place or ""),
        )
    )
    if fit and scored:
        findings.append(replace(boosted_finding(BOOSTED, look_ups, fit, scored), apart=_held(fit, scored)))
    else:
        findings.append(Finding(BOOSTED, "balanced accuracy", float("nan"), 0.5, len(scored), NO_ROWS))
    return [*findings, name_look_up(test)]
