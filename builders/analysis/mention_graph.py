"""The mention graph and attribute lines of a row's documents, read from their text alone: how far each person is from
the person the question names ("article X names Y", either way), who states each value and when each subject was
born. What the option probes and the two-sample tests of gold against decoys (option_views.py) measure options by."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .prompt_view import ATTRIBUTES, LINE, NAME, Prompt, named_in, per_prompt

FAR = 9  # the distance of a person the mention graph does not join to the named person
_DATE = re.compile(r"(\d{4})-\d\d-\d\d")


@dataclass(frozen=True)
class Attributes:
    """The attribute lines of a row's documents: who states each value, and each subject's year of birth."""

    holders: dict[str, frozenset[str]]  # value -> the subjects whose article states it
    born: dict[str, int]  # subject -> year of birth


@per_prompt
def attributes(p: Prompt) -> Attributes:
    """Who states each value, and each subject's year of birth."""
    holders: dict[str, set[str]] = {}
    born: dict[str, int] = {}
    for document in p.row["documents"]:
        for line in str(document["text"]).splitlines():
            match = LINE.match(line.strip().lstrip("-* "))
            if match and match.group(1) in ATTRIBUTES:
                predicate, subject, value = match.groups()
                holders.setdefault(value, set()).add(subject)
                date = _DATE.fullmatch(value)
                if predicate == "date of birth" and date:
                    born[subject] = int(date.group(1))
    return Attributes({v: frozenset(s) for v, s in holders.items()}, born)


@per_prompt
def distances(p: Prompt) -> dict[str, int]:
    """Person -> the fewest mention-graph links from a person the question names (a shown article and each name its
    family or friend lines give are joined)."""
    linked: dict[str, set[str]] = {}
    for person, naming in p.mentions.items():
        for title in naming:
            linked.setdefault(person, set()).add(title)
            linked.setdefault(title, set()).add(person)
    found = {name: 0 for name in named_in(p.question)}
    frontier = list(found)
    while frontier:
        reached = []
        for person in frontier:
            for other in sorted(linked.get(person, ())):
                if other not in found:
                    found[other] = found[person] + 1
                    reached.append(other)
        frontier = reached
    return found


def people_of(p: Prompt, index: int) -> list[str]:
    """The people an option is about: its names, or those whose articles state its values."""
    items = p.options[index].split(", ")
    if all(NAME.fullmatch(item) for item in items):
        return items
    holders = attributes(p).holders
    return sorted({person for item in items for person in holders.get(item, ())})


def birth_year(date: str) -> int | None:
    """The year of a date ("1009-04-24" -> 1009), None for any other value."""
    found = _DATE.fullmatch(date)
    return int(found.group(1)) if found else None
