"""The verifier's own word tables (data/): relation words of questions, article sentences, attributes, label strings."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).with_name("data")
LISTS = ("parent", "child", "sibling", "spouse", "friend")
"""The lists an article holds of its subject, and the steps a relation walks over them."""
GENDERS = ("female", "male")


@dataclass(frozen=True)
class Relation:
    """A relation word of a question: Y is X's `singular` when a walk of `steps` leads from X to Y."""

    singular: str
    plural: str
    steps: tuple[str, ...]  # parent, child, sibling, spouse, friend, female, male, or not:i


@dataclass(frozen=True)
class Attribute:
    """An attribute: its key, its wording in sentences and questions, and the premise that states it."""

    key: str
    wording: str
    premise: str  # e.g. "(who lives in {value})"; "" when no premise states it


def _rows(name: str) -> list[list[str]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line and not line.startswith("#")]


def _checked_steps(text: str) -> tuple[str, ...]:
    steps = tuple(text.split())
    for step in steps:
        if step not in LISTS + GENDERS and not (step.startswith("not:") and step[4:].isdigit()):
            raise ValueError(f"data/relations.tsv: unknown step {step!r}; expected a list, a gender or not:i")
    return steps


@lru_cache(maxsize=1)
def relations() -> dict[str, Relation]:
    """Relations by their singular word."""
    return {
        singular: Relation(singular, plural, _checked_steps(steps))
        for singular, plural, steps in _rows("relations.tsv")
    }


@lru_cache(maxsize=1)
def plurals() -> dict[str, Relation]:
    """Relations by their plural word (count questions: "How many sisters does ...")."""
    return {rel.plural: rel for rel in relations().values()}


@lru_cache(maxsize=1)
def sentence_words() -> dict[str, tuple[str, str | None]]:
    """Article sentence word -> (the list it belongs to, the gender it gives the object or None)."""
    return {word: (kind, None if gender == "-" else gender) for word, kind, gender in _rows("sentences.tsv")}


@lru_cache(maxsize=1)
def attributes() -> dict[str, Attribute]:
    """Attributes by their wording ("city of residence")."""
    return {
        wording: Attribute(key, wording, "" if premise == "-" else premise)
        for key, wording, premise in _rows("attributes.tsv")
    }


@lru_cache(maxsize=1)
def labels() -> dict[str, str]:
    """The label strings rows use: the deflection, the refusing option, the closed-world sentence."""
    return {name: text for name, text in _rows("labels.tsv")}
