"""Unanswerable variants of a question (NeoQA's question families), exact by construction from the universe.

Each variant rewrites the question's anchor (the person it names; data/variants.tsv holds the wordings)
so that it rests on a premise the universe refutes, or one it does not model at all:
  * false_premise_relation: "Geri Adey's cousin Lanny Widgeon" where Lanny Widgeon is a real person,
    preferably related to Geri Adey some other way, who is not her cousin. The parent's required set
    proves Geri Adey's cousins complete, so the documents refute the premise;
  * false_premise_attribute: "Leonard Rende (whose occupation is dentist)" when his article says
    otherwise (a value held by someone in the question's family where possible);
  * nonexistent_person: the anchor's surname changed (NeoQA: "change the last name only") to one from
    the question's family, so that nobody in the universe has that full name;
  * uncertain_specificity: "Leonard Rende (who lives in Oslo)": the universe models no place at all
    (data/places.txt), so the qualifier can be neither confirmed nor refuted.
The gold answer of every variant is the deflection. Only questions that start from a named person have
variants (an attribute-start question has no anchor to rewrite).
"""

from __future__ import annotations

import random
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..rng import pick, shuffled, stream
from .kinship import Kinship
from .relations import DATA_DIR, relations
from .solver import parse_literal
from .vocabulary import load_vocabulary

KINDS: tuple[str, ...] = (
    "false_premise_relation",
    "false_premise_attribute",
    "nonexistent_person",
    "uncertain_specificity",
)
REFUTED, UNKNOWN = "refuted", "unknown"
PREMISE_ATTRIBUTES: tuple[str, ...] = ("job", "hobby", "dob")
_NAME = r"[A-Z][A-Za-z]+ [A-Z][A-Za-z]+"
ATTEMPTS = 1000  # random draws before a kind is given up for one question (never reached in practice)


@dataclass(frozen=True)
class Variant:
    """One unanswerable variant: its question, the premise it rests on as a fact, and what the universe says of it."""

    kind: str
    question: str
    premise: str  # e.g. cousin("Geri Adey", "Lanny Widgeon"), job("Leonard Rende", "dentist"), person("Geri Widgeon")
    status: str  # REFUTED: the universe contradicts the premise; UNKNOWN: the universe does not model it


@lru_cache(maxsize=1)
def wordings() -> dict[tuple[str, str], str]:
    """(kind, key) -> wording, from data/variants.tsv."""
    lines = (DATA_DIR / "variants.tsv").read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines if line and not line.startswith("#")]
    return {(kind, key): wording for kind, key, wording in rows}


@lru_cache(maxsize=1)
def places() -> tuple[str, ...]:
    """The places uncertain-specificity qualifiers name, from data/places.txt."""
    lines = (DATA_DIR / "places.txt").read_text(encoding="utf-8").splitlines()
    return tuple(line for line in lines if line and not line.startswith("#"))


def qualifiers() -> tuple[str, ...]:
    """The predicates of uncertain-specificity qualifiers (none is a relation or attribute of the universe)."""
    return tuple(key for kind, key in wordings() if kind == "uncertain_specificity")


def _replace_last(text: str, old: str, new: str) -> str:
    head, found, tail = text.rpartition(old)
    if not found:
        raise ValueError(f"{old!r} is not in the question {text!r}")
    return head + new + tail


class VariantMaker:
    """Variants of the questions of one universe."""

    def __init__(self, kinship: Kinship, seed: int, bank: Sequence[str]) -> None:
        self.kinship = kinship
        self.universe = kinship.universe
        self.seed = seed
        self.bank = tuple(bank)

    def variants(
        self, question_id: str, text: str, query: Sequence[str], family: Collection[int], per_kind: int
    ) -> list[Variant]:
        """Up to `per_kind` variants of each kind that applies; `family` = the people of the question's required set."""
        first = parse_literal(query[-1])
        if first.inverse or per_kind <= 0:
            return []
        anchor = first.source.strip()[1:-1]
        person = self.universe.ids[anchor]
        near = sorted(family, key=self.universe.names.__getitem__)
        out: list[Variant] = []
        makers = (self._relation, self._attribute, self._nonexistent, self._uncertain)
        for kind, make in zip(KINDS, makers):
            rng = stream(self.seed, "variants", question_id, kind)
            out += make(rng, text, first, anchor, person, near, per_kind)
        return out

    def _relation(
        self, rng: random.Random, text: str, first, anchor: str, person: int, near: list[int], per_kind: int
    ) -> list[Variant]:
        if first.kind != "relation":
            return []
        names = self.universe.names
        true = set(self.kinship.targets(first.predicate, person)) | {person}
        related = sorted({y for _, y, _ in self.kinship.choices(person, self.bank)} - true, key=names.__getitem__)
        candidates = related or [p for p in near if p not in true]
        singular = relations()[first.predicate].singular
        wording = wordings()[("false_premise_relation", "relation")]
        out = []
        for other in shuffled(rng, candidates)[:per_kind]:
            phrase = wording.format(anchor=anchor, relation=singular, person=names[other])
            question = _replace_last(text, f"the {singular} of {anchor}", phrase)
            out.append(
                Variant("false_premise_relation", question, f'{first.predicate}("{anchor}", "{names[other]}")', REFUTED)
            )
        return out

    def _attribute(
        self, rng: random.Random, text: str, first, anchor: str, person: int, near: list[int], per_kind: int
    ) -> list[Variant]:
        out: list[Variant] = []
        used: set[tuple[str, str]] = set()
        for attribute in (shuffled(rng, PREMISE_ATTRIBUTES) * per_kind)[:per_kind]:
            values = self.universe.attribute(attribute)
            wrong = {values[person], None}
            held = {value for value in (values[p] for p in near) if value is not None}
            candidates = sorted(held - wrong - {v for a, v in used if a == attribute})
            for _ in range(ATTEMPTS):  # nobody in the family holds another value: one of anyone's
                if candidates:
                    break
                other = values[pick(rng, range(len(values)))]
                if other is not None and other not in wrong and (attribute, other) not in used:
                    candidates = [other]
            if not candidates:
                continue
            value = pick(rng, candidates)
            used.add((attribute, value))
            phrase = wordings()[("false_premise_attribute", attribute)].format(name=anchor, value=value)
            out.append(
                Variant(
                    "false_premise_attribute",
                    _replace_last(text, anchor, phrase),
                    f'{attribute}("{anchor}", "{value}")',
                    REFUTED,
                )
            )
        return out

    def _nonexistent(
        self, rng: random.Random, text: str, first, anchor: str, person: int, near: list[int], per_kind: int
    ) -> list[Variant]:
        given, surname = anchor.rsplit(" ", 1)
        ids = self.universe.ids
        family_names = sorted({self.universe.names[p].rsplit(" ", 1)[1] for p in near} - {surname})
        candidates = [s for s in shuffled(rng, family_names) if f"{given} {s}" not in ids]
        surnames = load_vocabulary().surnames
        for _ in range(ATTEMPTS):
            if len(candidates) >= per_kind:
                break
            other = pick(rng, surnames)
            if other != surname and f"{given} {other}" not in ids and other not in candidates:
                candidates.append(other)
        out = []
        for other in candidates[:per_kind]:
            name = f"{given} {other}"
            out.append(Variant("nonexistent_person", _replace_last(text, anchor, name), f'person("{name}")', REFUTED))
        return out

    def _uncertain(
        self, rng: random.Random, text: str, first, anchor: str, person: int, near: list[int], per_kind: int
    ) -> list[Variant]:
        out = []
        pairs = [(predicate, place) for predicate in qualifiers() for place in places()]
        for predicate, place in shuffled(rng, pairs)[:per_kind]:
            phrase = wordings()[("uncertain_specificity", predicate)].format(name=anchor, value=place)
            out.append(
                Variant(
                    "uncertain_specificity",
                    _replace_last(text, anchor, phrase),
                    f'{predicate}("{anchor}", "{place}")',
                    UNKNOWN,
                )
            )
        return out


@lru_cache(maxsize=1)
def _premise_patterns() -> tuple[tuple[str, str, re.Pattern[str]], ...]:
    """(kind, predicate or "relation", pattern) for each wording; the relation pattern captures the relation too."""
    singular = "|".join(sorted((re.escape(r.singular) for r in relations().values()), key=len, reverse=True))
    out = []
    for (kind, key), wording in wordings().items():
        pattern = re.escape(wording)
        for field, group in (
            ("anchor", f"({_NAME})"),
            ("person", f"({_NAME})"),
            ("name", f"({_NAME})"),
            ("relation", f"({singular})"),
            ("value", "(.+?)"),
        ):
            pattern = pattern.replace(re.escape("{" + field + "}"), group)
        out.append((kind, key, re.compile(pattern)))
    return tuple(out)


def read_premises(question: str) -> list[tuple[str, str, str]]:
    """The premises a question's wording states, as (predicate, subject, value): the inverse of the wordings.

    E.g. "Who is the brother of Geri Adey's cousin Lanny Widgeon?" -> [("cousin", "Geri Adey", "Lanny Widgeon")].
    """
    by_singular = {rel.singular: name for name, rel in relations().items()}
    found = []
    for _, key, pattern in _premise_patterns():
        for match in pattern.finditer(question):
            if key == "relation":
                anchor, relation, person = match.groups()
                found.append((by_singular[relation], anchor, person))
            else:
                name, value = match.groups()
                found.append((key, name, value))
    return found


def named_people(question: str) -> list[str]:
    """The full names a question's text names, in order."""
    return re.findall(rf"(?<![A-Za-z]){_NAME}(?![A-Za-z])", question)
