"""The wordings of a question family: the question, its true-premise controls and its unanswerable variants.

A premise rewrites the question's anchor (the person it names; data/variants.tsv holds the wordings) and only the
documents tell whether it holds. Every wording appears both true and not:
  * relation, "Geri Adey's cousin Lanny Widgeon": a control names one of her cousins, which narrows the question to
    that person (its answer and required set are recomputed, a part of the question's); the variant
    `false_premise_relation` names a real person, preferably related to her some other way, who is not her cousin
    (his article is shown; her required walk lists all her cousins, so the documents refute it);
  * attribute, "Leonard Rende (whose occupation is dentist)", "(whose hobby is ...)", "(born on ...)": a control
    states his own value; the variant `false_premise_attribute` a value held by someone in the question's family;
  * place, "(who was born in Oslo)", "(who lives in Oslo)", "(who went to Ashgrove Academy)": about half the people
    have each place (data/places.tsv). A control states his own; `false_premise_attribute` another one when he has
    one; `uncertain_specificity` one when his article states none, so the universe cannot tell;
  * `nonexistent_person`: the anchor's surname changed (NeoQA: "change the last name only") to one the universe uses,
    preferably in the question's family, so that nobody has that full name. A look-up by nature: the name has no
    article.
The gold answer of every variant is the deflection. Only questions that start from a named person have forms other
than their own wording (an attribute-start question has no anchor to rewrite; nor a false closed-world count: most
values are held by one person, so a stated count other than 1 would tell the label by its number alone).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .. import tsv
from ..rng import pick, shuffled, stream
from .kinship import Kinship
from .relations import DATA_DIR, IS_FEMALE, IS_MALE, places, relations
from .solver import Literal, Solver, parse_literal
from .vocabulary import load_vocabulary

CONFIRMED, REFUTED, UNKNOWN = "confirmed", "refuted", "unknown"
PREMISE_ATTRIBUTES: tuple[str, ...] = ("job", "hobby", "dob")
PLACES: tuple[str, ...] = tuple(places())
PLAIN = "plain"
_NAME = r"[A-Z][A-Za-z]+ [A-Z][A-Za-z]+"
ATTEMPTS = 1000  # random draws before a kind is given up for one question (never reached in practice)


@dataclass(frozen=True)
class Form:
    """One wording of a family's question: what it asks, the premise it states, and whether that premise holds."""

    key: str  # unique in the family: "question", "relation:Name", "job+", "job-", "nonexistent:Name", ...
    wording: str  # what the text shows: PLAIN, "relation", or the premise's attribute (job, hobby, dob, a place)
    question: str
    query: tuple[str, ...]  # the query its answer comes from: the question's, or narrowed to the person a premise names
    answer: tuple[str, ...]  # that query's answer (what a reader who trusts the premise would give)
    premise: str = ""  # e.g. cousin("Geri Adey", "Lanny Widgeon"), job("Leonard Rende", "dentist"), person("Geri X")
    status: str = ""  # CONFIRMED (true in the universe), REFUTED (false), UNKNOWN (the universe does not say)
    kind: str = ""  # the unanswerable kind, "" for the question and its controls
    named: str = ""  # another real person the premise names (relation premises), whose article is always shown


def plain_form(text: str, query: Sequence[str], answer: Sequence[str]) -> Form:
    """A question as it is worded: no premise."""
    return Form("question", PLAIN, text, tuple(query), tuple(answer))


@dataclass(frozen=True)
class Anchored:
    """A question that starts from a named person, as its variants and controls rewrite it."""

    base: Form  # the question as worded
    first: Literal  # its innermost literal, the one that names the anchor
    name: str  # the anchor's name
    person: int  # the anchor's id
    near: tuple[int, ...]  # the people of the question's required set, by name (whose values variants borrow)


@lru_cache(maxsize=1)
def wordings() -> dict[str, str]:
    """Premise key (relation, or an attribute) -> wording, from data/variants.tsv."""
    return {key: wording for key, wording in tsv.rows(DATA_DIR / "variants.tsv")}


def _replace_last(text: str, old: str, new: str) -> str:
    head, found, tail = text.rpartition(old)
    if not found:
        raise ValueError(f"{old!r} is not in the question {text!r}")
    return head + new + tail


def _gender(relation: str) -> str | None:
    """The gender a relation's people have (its path ends with a gender step), None for parent, sibling, friend, ..."""
    steps = relations()[relation].steps
    return {IS_FEMALE: "female", IS_MALE: "male"}.get(steps[-1][0]) if steps else None


def narrowed_query(query: Sequence[str], name: str) -> tuple[str, ...]:
    """The query with its innermost relation hop replaced by one of its people: `name` in place of the variable."""
    inner = parse_literal(query[-1])
    variable = inner.target
    rest = list(query[:-1])
    rest[-1] = re.sub(rf"(?<![A-Za-z_0-9]){re.escape(variable)}(?![A-Za-z_0-9])", f'"{name}"', rest[-1], count=1)
    return tuple(rest)


class FormMaker:
    """The forms of the question families of one universe."""

    def __init__(self, kinship: Kinship, solver: Solver, seed: int, bank: Sequence[str]) -> None:
        self.kinship = kinship
        self.solver = solver
        self.universe = kinship.universe
        self.seed = seed
        self.bank = tuple(bank)
        self._surnames: tuple[str, ...] | None = None
        self._genders: dict[str, list[int]] = {}  # gender -> its people (nonexistent people's given names)
        self._given: dict[str, dict[str, int]] = {}  # gender -> given name -> how many have it
        self._held: dict[str, dict[int, tuple[str, ...]]] = {}  # gender -> holders -> given names (names_held_by)
        self._answers: dict[tuple[str, ...], list[str]] = {}  # narrowed query -> its answers

    def anchored(
        self, text: str, query: Sequence[str], answer: Sequence[str], near: Collection[int]
    ) -> Anchored | None:
        """The question as its wordings rewrite it, or None when it starts from an attribute value (no anchor)."""
        first = parse_literal(query[-1])
        if first.inverse:
            return None
        name = first.source.strip()[1:-1]
        ordered = tuple(sorted(near, key=self.universe.names.__getitem__))
        return Anchored(plain_form(text, query, answer), first, name, self.universe.ids[name], ordered)

    def variants(
        self, key: str, text: str, query: Sequence[str], answer: Sequence[str], near: Collection[int], per_kind: int
    ) -> list[Form]:
        """Up to `per_kind` unanswerable variants of each kind that applies; `near` = the people of the question's
        required set (the family whose values and names the variants borrow)."""
        question = self.anchored(text, query, answer, near)
        if question is None or per_kind <= 0:
            return []
        out: list[Form] = []
        for kind, (variant, _) in WORDINGS_OF_KIND.items():
            rng = stream(self.seed, "variants", key, kind)
            for _ in range(per_kind):
                made = variant(self, rng, question, {f.key for f in out})
                if made is not None:
                    out.append(made)
        return out

    def control(
        self, kind: str, rng: random.Random, key: str, text: str, query: Sequence[str], answer: Sequence[str]
    ) -> Form:
        """A form of the question a reader must answer, worded as the variants of `kind` are: a true premise of the
        same wording (plain for nonexistent_person, or when no true premise of that wording exists)."""
        question = self.anchored(text, query, answer, ())
        if question is None:
            return plain_form(text, query, answer)
        return WORDINGS_OF_KIND[kind][1](self, rng, question) or question.base

    def _attribute_choices(self, person: int) -> list[str]:
        """The premise attributes a false or confirmed attribute premise about `person` draws from (the same set)."""
        return [a for a in (*PREMISE_ATTRIBUTES, *PLACES) if self.universe.attribute(a)[person] is not None]

    def _true_attribute(self, rng: random.Random, q: Anchored) -> Form | None:
        choices = self._attribute_choices(q.person)
        return self._confirmed_attribute(q, pick(rng, choices)) if choices else None

    def _true_place(self, rng: random.Random, q: Anchored) -> Form | None:
        held = [p for p in PLACES if self.universe.attribute(p)[q.person] is not None]
        return self._confirmed_attribute(q, pick(rng, held)) if held else None

    def _plain(self, rng: random.Random, q: Anchored) -> Form | None:
        return None  # a nonexistent person's question reads as plainly as the question itself

    def _relation_phrase(self, q: Anchored, other: str) -> str:
        singular = relations()[q.first.predicate].singular
        phrase = wordings()["relation"].format(anchor=q.name, relation=singular, person=other)
        return _replace_last(q.base.question, f"the {singular} of {q.name}", phrase)

    def _true_relation(self, rng: random.Random, q: Anchored) -> Form | None:
        base, first = q.base, q.first
        if first.kind != "relation" or len(base.query) < 2:  # "Who is X's cousin Y?" would ask nothing
            return None
        names = self.universe.names
        variable = parse_literal(base.query[0]).target  # the answer variable: the outermost literal's output
        for other in shuffled(rng, sorted(self.kinship.targets(first.predicate, q.person), key=names.__getitem__)):
            query = narrowed_query(base.query, names[other])
            answer = self._answers.get(query)
            if answer is None:
                answer = self._answers[query] = self.solver.solve(list(query), variable).answers
            if answer:
                premise = f'{first.predicate}("{q.name}", "{names[other]}")'
                return Form(
                    f"relation:{names[other]}",
                    "relation",
                    self._relation_phrase(q, names[other]),
                    query,
                    tuple(answer),
                    premise,
                    CONFIRMED,
                    named=names[other],
                )
        return None

    def _false_relation(self, rng: random.Random, q: Anchored, taken: set[str]) -> Form | None:
        base, first = q.base, q.first
        if first.kind != "relation" or len(base.query) < 2:
            return None
        names = self.universe.names
        true = set(self.kinship.targets(first.predicate, q.person)) | {q.person}
        gender = _gender(first.predicate)  # "X's husband Y" names a man: a first name tells the gender

        def fits(other: int) -> bool:
            return other not in true and (gender is None or self.universe.gender(other) == gender)

        choices = self.kinship.choices(q.person, self.bank)
        related = sorted({y for _, y, _ in choices if fits(y)}, key=names.__getitem__)
        candidates = [p for p in related or [p for p in q.near if fits(p)] if f"relation-:{names[p]}" not in taken]
        if not candidates:
            return None
        other = names[pick(rng, candidates)]
        premise = f'{first.predicate}("{q.name}", "{other}")'
        return Form(
            f"relation-:{other}",
            "relation",
            self._relation_phrase(q, other),
            base.query,
            base.answer,
            premise,
            REFUTED,
            "false_premise_relation",
            other,
        )

    def _confirmed_attribute(self, q: Anchored, attribute: str) -> Form:
        value = self.universe.attribute(attribute)[q.person]
        assert value is not None
        return self._attribute_form(q, attribute, value, CONFIRMED, "", f"{attribute}+")

    def _attribute_form(self, q: Anchored, attribute: str, value: str, status: str, kind: str, key: str) -> Form:
        base = q.base
        phrase = wordings()[attribute].format(name=q.name, value=value)
        premise = f'{attribute}("{q.name}", "{value}")'
        return Form(
            key, attribute, _replace_last(base.question, q.name, phrase), base.query, base.answer, premise, status, kind
        )

    def _borrowed(self, rng: random.Random, attribute: str, near: Sequence[int], wrong: set[str | None]) -> str | None:
        """A value of `attribute` held by someone in the question's family (else by anyone) and not in `wrong`."""
        values = self.universe.attribute(attribute)
        held = sorted({v for v in (values[p] for p in near) if v is not None} - wrong)
        if held:
            return pick(rng, held)
        for _ in range(ATTEMPTS):
            other = values[pick(rng, range(len(values)))]
            if other not in wrong:
                return other
        return None

    def _false_attribute(self, rng: random.Random, q: Anchored, taken: set[str]) -> Form | None:
        choices = [a for a in self._attribute_choices(q.person) if f"{a}-" not in taken]
        if not choices:
            return None
        attribute = pick(rng, choices)
        value = self._borrowed(rng, attribute, q.near, {self.universe.attribute(attribute)[q.person], None})
        if value is None:
            return None
        return self._attribute_form(q, attribute, value, REFUTED, "false_premise_attribute", f"{attribute}-")

    def _uncertain(self, rng: random.Random, q: Anchored, taken: set[str]) -> Form | None:
        unheld = [p for p in PLACES if self.universe.attribute(p)[q.person] is None and f"{p}?" not in taken]
        if not unheld or not self.universe.places:
            return None
        place = pick(rng, unheld)
        value = self._borrowed(rng, place, q.near, {None})
        if value is None:
            return None
        return self._attribute_form(q, place, value, UNKNOWN, "uncertain_specificity", f"{place}?")

    def _nonexistent(self, rng: random.Random, q: Anchored, taken: set[str]) -> Form | None:
        """A person who does not exist: a given name of the anchor's gender with a surname the universe uses,
        preferably in the question's family. The given name is held by as many people of the universe as share the
        given name of someone drawn at random (their namesakes), so a namesake under another surname in the
        documents is as likely as a missing anchor's: neither the anchor's own given name (whose article the row
        shows) nor a name only this person lacks would do."""
        base, anchor = q.base, q.name
        own_given, surname = anchor.rsplit(" ", 1)
        ids, names = self.universe.ids, self.universe.names
        gender = self.universe.gender(q.person)
        holders = self.given_names(gender)
        someone = names[pick(rng, self.people_of_gender(gender))].rsplit(" ", 1)[0]
        alike = [g for g in self.names_held_by(gender).get(holders[someone] - 1, ()) if g != own_given]
        if not alike:
            return None
        given = pick(rng, alike)
        family = sorted({names[p].rsplit(" ", 1)[1] for p in q.near} - {surname})
        candidates = [s for s in shuffled(rng, family) if f"{given} {s}" not in ids and f"nonexistent:{s}" not in taken]
        if not candidates:  # a surname the universe uses elsewhere
            everyone = self.surnames()
            for _ in range(ATTEMPTS):
                other = pick(rng, everyone)
                if other != surname and f"{given} {other}" not in ids and f"nonexistent:{other}" not in taken:
                    candidates = [other]
                    break
        if not candidates:
            return None
        name = f"{given} {candidates[0]}"
        return Form(
            f"nonexistent:{candidates[0]}",
            PLAIN,
            _replace_last(base.question, anchor, name),
            base.query,
            base.answer,
            f'person("{name}")',
            REFUTED,
            "nonexistent_person",
        )

    def given_names(self, gender: str) -> dict[str, int]:
        """Given name -> how many people of one gender have it (made once per gender)."""
        found = self._given.get(gender)
        if found is None:
            found = self._given[gender] = dict(
                Counter(self.universe.names[p].rsplit(" ", 1)[0] for p in self.people_of_gender(gender))
            )
        return found

    def names_held_by(self, gender: str) -> dict[int, tuple[str, ...]]:
        """Holders -> the given names of one gender that many people hold, sorted (0: the vocabulary's unused ones)."""
        found = self._held.get(gender)
        if found is None:
            vocab = load_vocabulary()
            listed = vocab.female_first_names if gender == "female" else vocab.male_first_names
            holders = self.given_names(gender)
            grouped: dict[int, list[str]] = {}
            for name in sorted(set(listed) | set(holders)):
                grouped.setdefault(holders.get(name, 0), []).append(name)
            found = self._held[gender] = {count: tuple(names) for count, names in grouped.items()}
        return found

    def people_of_gender(self, gender: str) -> list[int]:
        """Everyone of one gender, by id (made once per gender)."""
        found = self._genders.get(gender)
        if found is None:
            found = self._genders[gender] = [p for p in range(len(self.universe)) if self.universe.gender(p) == gender]
        return found

    def surnames(self) -> tuple[str, ...]:
        """The surnames people of this universe have, sorted."""
        if self._surnames is None:
            self._surnames = tuple(sorted({name.rsplit(" ", 1)[1] for name in self.universe.names}))
        return self._surnames


Variant = Callable[[FormMaker, random.Random, Anchored, set[str]], "Form | None"]
Control = Callable[[FormMaker, random.Random, Anchored], "Form | None"]
WORDINGS_OF_KIND: dict[str, tuple[Variant, Control]] = {
    # kind: (how its variant is made, how a control worded alike is made)
    "false_premise_relation": (FormMaker._false_relation, FormMaker._true_relation),
    "false_premise_attribute": (FormMaker._false_attribute, FormMaker._true_attribute),
    "nonexistent_person": (FormMaker._nonexistent, FormMaker._plain),
    "uncertain_specificity": (FormMaker._uncertain, FormMaker._true_place),
}
"""Each unanswerable kind with its maker and its control's: one table, so no kind can be paired with another's."""
KINDS: tuple[str, ...] = tuple(WORDINGS_OF_KIND)


@lru_cache(maxsize=1)
def _premise_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(predicate or "relation", pattern) for each wording; the relation pattern captures the relation too."""
    singular = "|".join(sorted((re.escape(r.singular) for r in relations().values()), key=len, reverse=True))
    out = []
    for key, wording in wordings().items():
        pattern = re.escape(wording)
        for field, group in (
            ("anchor", f"({_NAME})"),
            ("person", f"({_NAME})"),
            ("name", f"({_NAME})"),
            ("relation", f"({singular})"),
            ("value", "(.+?)"),
        ):
            pattern = pattern.replace(re.escape("{" + field + "}"), group)
        out.append((key, re.compile(pattern)))
    return tuple(out)


def _premise_matches(question: str) -> list[tuple[str, re.Match[str]]]:
    return [(key, match) for key, pattern in _premise_patterns() for match in pattern.finditer(question)]


def read_premises(question: str) -> list[tuple[str, str, str]]:
    """The premises a question's wording states, as (predicate, subject, value): the inverse of the wordings.

    E.g. "Who is the brother of Geri Adey's cousin Lanny Widgeon?" -> [("cousin", "Geri Adey", "Lanny Widgeon")].
    """
    by_singular = {rel.singular: name for name, rel in relations().items()}
    found = []
    for key, match in _premise_matches(question):
        if key == "relation":
            anchor, relation, person = match.groups()
            found.append((by_singular[relation], anchor, person))
        else:
            name, value = match.groups()
            found.append((key, name, value))
    return found


def named_people(question: str) -> list[str]:
    """The full names a question's text names, in order (a premise's value, such as a school, is not a name)."""
    return list(_named_people(question))


@lru_cache(maxsize=1 << 12)
def _named_people(question: str) -> tuple[str, ...]:
    """named_people, read once per question text (each row of a form asks it)."""
    for key, match in _premise_matches(question):
        if key != "relation":
            start, end = match.span(2)
            question = question[:start] + "-" * (end - start) + question[end:]
    return tuple(re.findall(rf"(?<![A-Za-z]){_NAME}(?![A-Za-z])", question))
