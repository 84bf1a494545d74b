"""The 44 family relations plus `friend` (v1 semantics) and the person attributes, read from data/."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .. import tsv

DATA_DIR = Path(__file__).with_name("data")

# Steps of a relation path (see data/relations.tsv).
TO_PARENT, TO_CHILD, TO_FRIEND, IS_FEMALE, IS_MALE, NOT_NODE = range(6)
_STEP_CODES = {"P": TO_PARENT, "C": TO_CHILD, "F": TO_FRIEND, "female": IS_FEMALE, "male": IS_MALE}

# Family relations stated in articles; parent, child and sibling follow from them.
ARTICLE_RELATIONS = ("sister", "brother", "mother", "father", "son", "daughter", "wife", "husband")


@dataclass(frozen=True)
class Relation:
    """`name(X, Y)`: Y is the `singular` of X, reached from X by `steps`."""

    name: str
    difficulty: int
    singular: str
    plural: str
    steps: tuple[tuple[int, int], ...]

    @property
    def generations(self) -> int:
        """How many generations above X its Y is (each step to a parent +1, to a child -1): mother and aunt 1, son
        and nephew -1, sibling and friend 0."""
        return sum((op == TO_PARENT) - (op == TO_CHILD) for op, _ in self.steps)

    @property
    def moves(self) -> int:
        """How many people its path moves through (steps to a parent, child or friend): mother 1, cousin 4."""
        return sum(op in (TO_PARENT, TO_CHILD, TO_FRIEND) for op, _ in self.steps)


@dataclass(frozen=True)
class Attribute:
    """A person attribute: `name(X, Value)`, worded as `wording` in questions and articles."""

    name: str
    wording: str
    in_questions: bool


def _parse_steps(path: str) -> tuple[tuple[int, int], ...]:
    steps = []
    for token in path.split():
        if token.startswith("neq:"):
            steps.append((NOT_NODE, int(token[4:])))
        else:
            steps.append((_STEP_CODES[token], 0))
    return tuple(steps)


@lru_cache(maxsize=1)
def relations() -> dict[str, Relation]:
    """All relations by name, in the order of data/relations.tsv."""
    table = {}
    for name, difficulty, singular, plural, path in tsv.rows(DATA_DIR / "relations.tsv"):
        table[name] = Relation(name, int(difficulty), singular, plural, _parse_steps(path))
    return table


@lru_cache(maxsize=1)
def attributes() -> dict[str, Attribute]:
    """All attributes by name, in the order of data/attributes.tsv."""
    return {
        name: Attribute(name, wording, flag == "yes") for name, wording, flag in tsv.rows(DATA_DIR / "attributes.tsv")
    }


@dataclass(frozen=True)
class Place:
    """A place some people have and others do not: each person has it with a probability drawn per universe in
    [low, high], its value drawn from the vocabulary file `values`."""

    name: str
    low: float
    high: float
    values: str


@lru_cache(maxsize=1)
def places() -> dict[str, Place]:
    """The places people may or may not have (data/places.tsv), by name."""
    return {
        name: Place(name, float(low), float(high), values)
        for name, low, high, values in tsv.rows(DATA_DIR / "places.tsv")
    }


def question_attributes() -> tuple[str, ...]:
    """Attributes that questions ask about or select by (gender is left out, as in v1)."""
    return tuple(name for name, attr in attributes().items() if attr.in_questions)


def relation_bank(easy_mode: bool) -> tuple[str, ...]:
    """Relations questions may use: all of them, or only difficulty 1 in easy mode."""
    return tuple(name for name, rel in relations().items() if not easy_mode or rel.difficulty == 1)
