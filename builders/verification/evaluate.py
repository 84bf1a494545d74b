"""What a row's documents prove about its question: the answer (if they prove one) and the premise's status.

The answer is proven when, walking the question hop by hop from its start, every list read is complete (the
stepping person's own article is shown), every gender a step filters by is given by some sentence, a question that
starts from an attribute value has its closed-world count of holders met by shown articles, and any premise the
question states is confirmed: an attribute by the person's own article, a relation by some walk of shown facts.
"""

from __future__ import annotations

from dataclasses import dataclass

from .questions import AttributePremise, Question, RelationPremise
from .shown import Shown
from .words import GENDERS, LISTS, Relation, attributes, labels


class Unproven(Exception):
    """The documents leave something the answer needs open; the message says what."""


CONFIRMED, REFUTED, UNSTATED, OPEN = "confirmed", "refuted", "unstated", "open"
"""A premise's status: shown true, shown false, absent from the person's own article, or not decided."""
SAID = {
    CONFIRMED: "confirm its premise",
    REFUTED: "refute its premise",
    UNSTATED: "show the person's own article, which states no value of its premise's kind",
    OPEN: "leave its premise open",
}
"""What the documents do with a premise of each status, in words."""


@dataclass(frozen=True)
class Decision:
    """The answer the documents prove (None when they prove none, `why` saying what is open) and the premise's
    status ("" without a premise)."""

    answer: list[str] | None
    why: str
    premise: str


def walk(shown: Shown, relation: Relation, person: str, complete: bool) -> set[str]:
    """The people `relation` leads to from `person`: over complete lists (Unproven where one is not shown, or a
    gender is not given), or over every shown link (`complete` false: the people shown to be so related)."""
    paths: list[tuple[str, ...]] = [(person,)]
    for step in relation.steps:
        if step in LISTS:
            paths = [path + (other,) for path in paths for other in _listed(shown, path[-1], step, complete)]
        elif step in GENDERS:
            paths = [path for path in paths if _gender(shown, path[-1], complete) == step]
        else:
            node = int(step[len("not:") :])
            paths = [path for path in paths if path[-1] != path[node]]
    return {path[-1] for path in paths}


def _listed(shown: Shown, person: str, kind: str, complete: bool) -> set[str]:
    if not complete:
        return shown.known(person, kind)
    listed = shown.complete(person, kind)
    if listed is None:
        raise Unproven(f"the {kind} list of {person} is needed and {person}'s article is not shown")
    return set(listed)


def _gender(shown: Shown, person: str, complete: bool) -> str | None:
    gender = shown.gender(person)
    if gender is None and complete:
        raise Unproven(f"the gender of {person} is needed and no shown sentence gives it")
    return gender


def premise_status(shown: Shown, premise: AttributePremise | RelationPremise | None) -> str:
    """Whether the documents confirm, refute or leave open the question's premise ("" without one)."""
    if premise is None:
        return ""
    if isinstance(premise, AttributePremise):
        has_article, value = shown.value(premise.person, premise.key)
        if not has_article:
            return OPEN
        return CONFIRMED if value == premise.value else UNSTATED if value is None else REFUTED
    if premise.person in walk(shown, premise.relation, premise.of, complete=False):
        return CONFIRMED
    try:
        return REFUTED if premise.person not in walk(shown, premise.relation, premise.of, complete=True) else OPEN
    except Unproven:
        last = premise.relation.steps[-1]
        told = shown.gender(premise.person)
        return REFUTED if last in GENDERS and told is not None and told != last else OPEN


def holders_told(closed_world: str, key: str, value: str) -> int | None:
    """How many people the closed-world sentence says hold `value` as attribute `key` (None if it says nothing)."""
    template = labels()["closed_world"]
    for attribute in attributes().values():
        if attribute.key != key:
            continue
        for people in ("person has", "people have"):
            head, _, tail = template.format(
                count="\0", people=people, wording=attribute.wording, value=value
            ).partition("\0")
            text = closed_world.strip()
            count = text[len(head) : len(text) - len(tail)]
            if text.startswith(head) and text.endswith(tail) and count.isdigit():
                return int(count)
    return None


def _start(shown: Shown, question: Question, closed_world: str) -> set[str]:
    if isinstance(question.start, str):
        return {question.start}
    key, value = question.start
    holders = {person for person, article in shown.own.items() if article.values.get(key) == value}
    told = holders_told(closed_world, key, value)
    if told is None:
        raise Unproven(f"nothing says how many people have the {key} {value} (no closed-world sentence)")
    if len(holders) != told:
        raise Unproven(f"the shown articles give {len(holders)} of the {told} people with the {key} {value}")
    return holders


def _answer(shown: Shown, question: Question, closed_world: str) -> list[str]:
    frontier = _start(shown, question, closed_world)
    for relation in question.hops:
        frontier = set().union(*(walk(shown, relation, person, True) for person in sorted(frontier)))
    if question.kind == "who":
        return sorted(frontier)
    if question.kind == "what":
        assert isinstance(question.asked, str)
        values = set()
        for person in sorted(frontier):
            has_article, value = shown.value(person, question.asked)
            if not has_article:
                raise Unproven(f"the {question.asked} of {person} is asked and {person}'s article is not shown")
            values |= {value} if value is not None else set()
        return sorted(values)
    assert isinstance(question.asked, Relation)
    counted = question.asked
    return [str(n) for n in sorted({len(walk(shown, counted, person, True)) for person in frontier})]


def decide(shown: Shown, question: Question, closed_world: str = "") -> Decision:
    """What the documents prove: the answer or why none, and the premise's status."""
    status = premise_status(shown, question.premise)
    if status not in ("", CONFIRMED):
        return Decision(None, f"the documents {SAID[status]}", status)
    try:
        return Decision(_answer(shown, question, closed_world), "", status)
    except Unproven as open_point:
        return Decision(None, str(open_point), status)
