"""A question as the verifier reads it, from its words alone.

    Who is CHAIN?  |  What is the ATTRIBUTE of CHAIN?  |  How many RELATIONS does CHAIN have?
    CHAIN  -> the RELATION of CHAIN | START
    START  -> the person whose ATTRIBUTE is VALUE | NAME | NAME PREMISE | NAME's RELATION NAME
    PREMISE -> (whose occupation is VALUE) | (who lives in VALUE) | ... (data/attributes.tsv)

A relation premise "X's brother-in-law Y" names Y, and the question then asks about Y.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

from .words import Relation, attributes, plurals, relations


class Unreadable(ValueError):
    """A question the verifier's grammar does not read."""


@dataclass(frozen=True)
class AttributePremise:
    """The question states that `person` has `value` as their attribute `key`."""

    person: str
    key: str
    value: str


@dataclass(frozen=True)
class RelationPremise:
    """The question states that `person` is the `relation` of `of`."""

    of: str
    relation: Relation
    person: str


@dataclass(frozen=True)
class Question:
    """What a question asks: its kind, the relations it walks (innermost first), where it starts, its premise."""

    kind: str  # who, what or count
    hops: tuple[Relation, ...]  # in the order they are walked, from the start outwards
    asked: str | Relation | None  # what: the attribute key; count: the relation counted
    start: str | tuple[str, str]  # a person's name, or (attribute key, value) for "the person whose ... is ..."
    premise: AttributePremise | RelationPremise | None = None

    @property
    def names(self) -> list[str]:
        """Every person the question names."""
        named = [self.start] if isinstance(self.start, str) else []
        if isinstance(self.premise, RelationPremise):
            named.append(self.premise.of)
        return named


@cache
def _longest_first(table: str) -> list[str]:
    """The words of a table, longest first, so that no word is taken for the start of a longer one."""
    words = (
        list(attributes()) if table == "attributes" else list(plurals()) if table == "plurals" else list(relations())
    )
    return sorted(words, key=len, reverse=True)


@lru_cache(maxsize=4096)
def read_question(text: str) -> Question:
    """The question `text` asks; Unreadable if it is not in the grammar (remembered: a question's rows share it)."""
    if text.startswith("Who is ") and text.endswith("?"):
        return _chain("who", None, text[len("Who is ") : -1])
    if text.startswith("What is the ") and text.endswith("?"):
        rest = text[len("What is the ") : -1]
        for wording in _longest_first("attributes"):
            if rest.startswith(wording + " of "):
                return _chain("what", attributes()[wording].key, rest[len(wording) + 4 :])
    if text.startswith("How many ") and text.endswith(" have?"):
        rest = text[len("How many ") : -len(" have?")]
        for plural in _longest_first("plurals"):
            if rest.startswith(plural + " does "):
                return _chain("count", plurals()[plural], rest[len(plural) + 6 :])
    raise Unreadable(f"cannot read the question {text!r}")


def _chain(kind: str, asked: str | Relation | None, text: str) -> Question:
    hops: list[Relation] = []
    words = _longest_first("relations")
    while True:
        word = next((w for w in words if text.startswith(f"the {w} of ")), None)
        if word is None:
            break
        hops.append(relations()[word])
        text = text[len(f"the {word} of ") :]
    start, premise = _start(text)
    bare = not hops and kind != "count" and not isinstance(premise, RelationPremise)  # "Who is Ann Lee?"
    if isinstance(start, str) and (bare or start.startswith("the ") or " of " in start):
        raise Unreadable(f"cannot read the start {text!r}")
    return Question(kind, tuple(reversed(hops)), asked, start, premise)


def _start(text: str) -> tuple[str | tuple[str, str], AttributePremise | RelationPremise | None]:
    if text.startswith("the person whose "):
        rest = text[len("the person whose ") :]
        for wording in _longest_first("attributes"):
            if rest.startswith(wording + " is "):
                return (attributes()[wording].key, rest[len(wording) + 4 :]), None
        raise Unreadable(f"cannot read the start {text!r}")
    if text.endswith(")"):
        for attribute in attributes().values():
            before, _, after = attribute.premise.partition("{value}")
            name, found, value = text.partition(" " + before)
            if attribute.premise and found and value.endswith(after):
                return name, AttributePremise(name, attribute.key, value[: len(value) - len(after)])
        raise Unreadable(f"cannot read the premise in {text!r}")
    return _relation_premise(text)


def _relation_premise(text: str) -> tuple[str, RelationPremise | None]:
    at = text.find("'s ")
    while at >= 0:
        after = text[at + 3 :]
        word = next((w for w in _longest_first("relations") if after.startswith(w + " ")), None)
        if word is not None:
            person = after[len(word) + 1 :]
            return person, RelationPremise(text[:at], relations()[word], person)
        at = text.find("'s ", at + 1)
    if not text or "(" in text:
        raise Unreadable(f"cannot read the start {text!r}")
    return text, None
