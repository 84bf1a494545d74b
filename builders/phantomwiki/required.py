"""The required set of a question: whose own articles a reader must read to prove the complete answer.

The rule, stated once here (the README and the lm-eval prompts say the same in words):
  * a person's own article is the complete source of their family (parents, children, siblings,
    spouses), friends and attributes; sentences in other articles are true but prove no list complete;
  * evaluating the question hop by hop from its anchor, along each relation's path as the reader walks
    it (reading.reader_paths: parent, child, sibling, spouse and friend lists), a reader needs the
    article of every person whose list or attribute it reads: the anchor, everyone in every
    intermediate set (also those that lead to no answer), every person a count counts from, and anyone
    whose gender a step must know when the sentence that reached them does not give it (a friend list
    names no gender; every family sentence does: sister, father, son, wife, ...).
That set is the question's required set. With all of it among the documents, the answer computed from
them is the gold answer and provably complete; with one of them missing, no reader can know the answer
is complete, so the gold answer is the deflection.

A question that starts from an attribute value ("the person whose hobby is tango") starts from every
holder of the value in the universe. No set of articles shows that nobody else holds it, so such a
question is decidable only with a closed-world statement (how many people hold the value, see
`closed_world_statement`) and every holder's article in the required set.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Protocol

from .paths import StepReader, walk
from .reading import TO_SIBLING, TO_SPOUSE, CompiledArticle, Names, Reading, parsed_query, reader_paths
from .relations import DATA_DIR, TO_CHILD, TO_FRIEND, TO_PARENT, attributes
from .solver import Literal, parse_literal
from .universe import Universe

_MOVES = (TO_PARENT, TO_CHILD, TO_FRIEND, TO_SIBLING, TO_SPOUSE)
_GENDER_GIVEN = frozenset(
    {TO_PARENT, TO_CHILD, TO_SIBLING, TO_SPOUSE}
)  # mother/father, son/daughter, sister/..., wife/...


ROLES = ("anchor", "answer", "bridge", "dead_end")
"""Roles of a required article, the role a missing one gives an insufficient instance (NeoQA figure 5: models fail
most where only a bridge is missing)."""


class Missing(LookupError):
    """A person whose own article the rule needs has none among the documents."""


def starts_from_attribute(query: Sequence[str]) -> bool:
    """Whether a chain query starts from an attribute value rather than a named person."""
    return parse_literal(query[-1]).inverse


@lru_cache(maxsize=1)
def _closed_world_template() -> str:
    return (DATA_DIR / "closed_world.txt").read_text(encoding="utf-8").strip()


def closed_world_statement(universe: Universe, query: Sequence[str]) -> str:
    """The sentence that makes an attribute-start question decidable ("Exactly 3 people have the hobby tango."); ""
    otherwise."""
    first = parse_literal(query[-1])
    if not first.inverse:
        return ""
    value = first.source.strip()[1:-1]
    count = len(_holders(universe, first.predicate, value))
    return _closed_world_template().format(
        count=count,
        people="person has" if count == 1 else "people have",
        attribute=attributes()[first.predicate].wording,
        value=value,
    )


def _holders(universe: Universe, attribute: str, value: str) -> list[int]:
    if attribute == "gender":
        return [p for p in range(len(universe)) if universe.gender(p) == value]
    return universe.holders(attribute, value)


class Source(Protocol):
    """What the rule reads: each person's own lists and attributes, and genders (from the universe or from
    documents)."""

    def listed(self, op: int, person: int) -> Iterable[int]:
        """The people `person`'s own article lists for one step (parent, child, sibling, spouse, friend)."""

    def attribute(self, person: int, name: str) -> str | None:
        """An attribute, read from the person's own article."""

    def gender(self, person: int, told: bool) -> str | None:
        """A gender: from the sentence that reached the person when `told`, else from their own article."""

    def start(self, literal: Literal) -> set[int]:
        """The people the innermost literal starts from: the named person, or every holder of the value."""

    def name(self, person: int) -> str:
        """A person's full name."""


def _paths(steps: StepReader, rel: str, start: int) -> list[tuple[int, ...]]:
    """The reader's paths of rel(start, Y), each read over the people's own lists, from `start` to a Y (`steps`:
    _step_reader of the source, made once per query)."""
    return walk(steps, reader_paths()[rel], start)


def _step_reader(source: Source) -> StepReader:
    """How the rule reads a step from `source`: each list from its person's own article, a gender from the sentence
    that reached the person (a mother is female) or else from their own article."""
    moves = {op: partial(source.listed, op) for op in _MOVES}
    return StepReader(moves, lambda told: partial(source.gender, told=told), told_by=_GENDER_GIVEN)


def _relation(steps: StepReader, rel: str, start: int) -> set[int]:
    """The Y with rel(start, Y), walking the reader's path over each person's own lists."""
    return {path[-1] for path in _paths(steps, rel, start)}


def evaluate(source: Source, query: Sequence[str]) -> list[str]:
    """A chain query's answers by the rule, sorted as gold answers are; Missing where the source lacks an article."""
    literals: Sequence[Literal] = parsed_query(tuple(query))
    frontier = source.start(literals[0])
    steps = _step_reader(source)
    if literals[0].inverse:
        literals = literals[1:]
    for lit in literals:
        if lit.kind == "relation":
            reached: set[int] = set()
            for person in sorted(frontier):
                reached |= _relation(steps, lit.predicate, person)
            frontier = reached
        elif lit.kind == "count":
            return [str(count) for count in sorted({len(_relation(steps, lit.predicate, p)) for p in sorted(frontier)})]
        else:  # an attribute of each person reached, read from their own article
            return sorted(
                {value for p in sorted(frontier) if (value := source.attribute(p, lit.predicate)) is not None}
            )
    return sorted(source.name(person) for person in frontier)


class UniverseSource:
    """The universe's own lists, which are what each article states; records whose article the rule reads."""

    def __init__(self, universe: Universe) -> None:
        self.universe = universe
        self.read: set[int] = set()

    def listed(self, op: int, person: int) -> Iterable[int]:
        u = self.universe
        self.read.add(person)
        if op == TO_PARENT:
            return u.parents[person]
        if op == TO_CHILD:
            return u.children[person]
        if op == TO_FRIEND:
            return u.friends[person]
        if op == TO_SIBLING:
            return {c for p in u.parents[person] for c in u.children[p]} - {person}
        return {p for c in u.children[person] for p in u.parents[c]} - {person}

    def attribute(self, person: int, name: str) -> str | None:
        self.read.add(person)
        return self.universe.gender(person) if name == "gender" else self.universe.attribute(name)[person]

    def gender(self, person: int, told: bool) -> str | None:
        if not told:
            self.read.add(person)
        return self.universe.gender(person)

    def start(self, literal: Literal) -> set[int]:
        constant = literal.source.strip()[1:-1]
        if literal.inverse:  # the closed world: every holder's own article states the value
            holders = set(_holders(self.universe, literal.predicate, constant))
            self.read |= holders
            return holders
        return {self.universe.ids[constant]}

    def name(self, person: int) -> str:
        return self.universe.names[person]


@dataclass(frozen=True)
class Shown:
    """Documents as the rule reads them: each subject's own article, and the genders their sentences give.

    A Reading (reading.py) has the same three fields and can stand in for a Shown.
    """

    own: dict[int, CompiledArticle]
    gender: dict[int, str]
    names: Names

    @classmethod
    def of(cls, articles: Iterable[CompiledArticle], names: Names) -> Shown:
        """The view of some compiled articles."""
        own: dict[int, CompiledArticle] = {}
        gender: dict[int, str] = {}
        for article in articles:
            own[article.subject] = article
            gender.update(article.genders)
        return cls(own, gender, names)

    def without(self, subject: int) -> Shown:
        """The same documents without one person's article. Its genders may stay: a gender the rule takes from a
        sentence is one that reached the person through a present article, and an untold one only from their own."""
        return Shown({p: a for p, a in self.own.items() if p != subject}, self.gender, self.names)


class DocumentSource:
    """The articles among a set of documents, each person's lists read from their own article only.

    `holders` is the closed-world count of an attribute-start question (how many hold the value in the universe).
    """

    def __init__(self, reading: Shown, holders: int | None = None) -> None:
        self.reading = reading
        self.holders = holders

    def _own(self, person: int) -> CompiledArticle:
        found = self.reading.own.get(person)
        if found is None:
            raise Missing(self.reading.names.names[person])
        return found

    def listed(self, op: int, person: int) -> Iterable[int]:
        own = self._own(person)
        if op == TO_PARENT:
            return [p for c, p in own.parents if c == person]
        if op == TO_CHILD:
            return [c for c, p in own.parents if p == person]
        pairs = own.siblings if op == TO_SIBLING else own.spouses if op == TO_SPOUSE else own.friends
        return [y for x, y in pairs if x == person]

    def attribute(self, person: int, name: str) -> str | None:
        own = self._own(person)
        if name == "gender":
            return next((g for p, g in own.genders if p == person), None)
        return next((value for (p, attr), value in own.attributes if p == person and attr == name), None)

    def gender(self, person: int, told: bool) -> str | None:
        return self.reading.gender.get(person) if told else self.attribute(person, "gender")

    def start(self, literal: Literal) -> set[int]:
        constant = literal.source.strip()[1:-1]
        if literal.inverse:
            holders = {p for p in self.reading.own if self.attribute(p, literal.predicate) == constant}
            if self.holders is None or len(holders) != self.holders:
                raise Missing(f"a holder of {literal.predicate} {constant!r}")
            return holders
        person = self.reading.names.ids.get(constant)
        if person is None:
            raise Missing(constant)
        return {person}

    def name(self, person: int) -> str:
        return self.reading.names.names[person]


def relation_premise(reading: Shown, relation: str, subject: int, other: int) -> bool | None:
    """What the documents say of the premise relation(subject, other): True when they confirm it (some path of the
    relation over the facts any shown article states, in either direction: a sibling list, a spouse, parent or child
    line, a friend line, whoever's article it is), False when they refute it (every list the relation reads from
    `subject` is there and none reaches `other`), None when they do neither."""
    if other in Reading(reading.own.values(), reading.names).targets(relation, subject):
        return True
    try:
        _relation(_step_reader(DocumentSource(reading)), relation, subject)
    except Missing:
        return None
    return False


class _Proving(DocumentSource):
    """The documents read as the most careful reader may: a list is complete only from its person's own article (as by
    the rule), but a gender is known from any sentence that gives it, whoever's article states it."""

    def gender(self, person: int, told: bool) -> str | None:
        found = self.reading.gender.get(person)
        return found if found is not None or told else self.attribute(person, "gender")


def provable(
    articles: Iterable[CompiledArticle], names: Names, query: Sequence[str], holders: int | None = None
) -> list[str] | None:
    """The answers some articles let the most careful reader prove complete (None where they leave it open): what an
    insufficient row must not allow. Genders and premises come from any article; lists from their person's own."""
    try:
        return evaluate(_Proving(Shown.of(articles, names), holders), query)
    except Missing:
        return None


class _Consulting(DocumentSource):
    """A DocumentSource that records whose own article the rule consults (an attribute-start question's holders, not
    every article its scan for them looks at)."""

    def __init__(self, reading: Shown, holders: int | None = None) -> None:
        super().__init__(reading, holders)
        self.consulted: set[int] = set()

    def _own(self, person: int) -> CompiledArticle:
        self.consulted.add(person)
        return super()._own(person)

    def start(self, literal: Literal) -> set[int]:
        found = super().start(literal)
        self.consulted = set(found) if literal.inverse else self.consulted
        return found


def consulted(reading: Shown, query: Sequence[str], holders: int | None = None) -> set[int]:
    """The people whose own articles the rule consults to prove a query's answer from documents that prove it. The
    walk is deterministic, so without any one of them it stops at that article (Missing), and without anyone else it
    runs the same: one walk tells which articles each is needed, instead of one walk without each."""
    source = _Consulting(reading, holders)
    evaluate(source, query)
    return source.consulted


def proven(reading: Shown, query: Sequence[str], holders: int | None = None) -> list[str] | None:
    """The answers the documents prove complete by the rule, or None where a needed article is missing."""
    try:
        return evaluate(DocumentSource(reading, holders), query)
    except Missing:
        return None


def _role_walk(source: UniverseSource, literals: Sequence[Literal]) -> tuple[set[int], set[int], set[int]]:
    """Walk a query by the rule, keeping its paths: (the start people, the people whose article states an answer's
    fact, the people on a path from a start to an answer); `source.read` collects everyone read."""
    frontier = source.start(literals[0])
    steps = _step_reader(source)
    starts = set(frontier)
    hops: list[list[tuple[int, ...]]] = []
    answer_facts: set[int] = set()
    bridges: set[int] = set()
    for lit in literals[1:] if literals[0].inverse else literals:
        if lit.kind == "attribute":  # "What is the occupation of ...": each reached person's article holds one
            goal = {p for p in sorted(frontier) if source.attribute(p, lit.predicate) is not None}
            answer_facts |= goal
            break
        paths = [path for person in sorted(frontier) for path in _paths(steps, lit.predicate, person)]
        if lit.kind == "count":  # every counted list is an answer's fact, found empty or not
            answer_facts |= frontier | {node for path in paths for node in path}
            goal = set(frontier)
            break
        hops.append(paths)
        frontier = {path[-1] for path in paths}
    else:  # a "Who" question: the final lists name the answers, whose own articles may give their gender
        last = hops.pop() if hops else []
        answer_facts |= {node for path in last for node in path[-2:]}
        bridges |= {node for path in last for node in path[1:-2]}
        goal = {path[0] for path in last}
    for paths in reversed(hops):  # back from the answers: the paths that lead to them
        useful = [path for path in paths if path[-1] in goal]
        bridges |= {node for path in useful for node in path}
        goal = {path[0] for path in useful}
    return starts, answer_facts, bridges | goal


class RequiredSets:
    """Required sets of questions on one universe."""

    def __init__(self, universe: Universe) -> None:
        self.universe = universe

    def people(self, query: Sequence[str]) -> set[int]:
        """The required set of a chain query, as person ids."""
        return self.walk(query)[0]

    def walk(self, query: Sequence[str]) -> tuple[set[int], list[str]]:
        """(the required set, the answers by the rule on the universe itself)."""
        source = UniverseSource(self.universe)
        answers = evaluate(source, query)
        return source.read, answers

    def roles(self, query: Sequence[str], start_is_anchor: bool = True) -> dict[int, str]:
        """The role of each person of the required set (ROLES, first that applies): `anchor` (whom the question starts
        from), `answer` (their article states an answer's fact: a final list naming an answer, an answer's gender, the
        attribute asked, the list counted), `bridge` (on a path from the anchor to an answer), `dead_end` (read, but
        their lists lead to no answer). With start_is_anchor=False the start people take the other roles (a question
        narrowed by a premise to one person, whose anchor is the premise's subject)."""
        source = UniverseSource(self.universe)
        starts, answer_facts, bridges = _role_walk(source, parsed_query(tuple(query)))
        out = {}
        for person in source.read:
            if start_is_anchor and person in starts:
                out[person] = "anchor"
            elif person in answer_facts:
                out[person] = "answer"
            elif person in bridges:
                out[person] = "bridge"
            else:
                out[person] = "dead_end"
        return out

    def titles(self, query: Sequence[str]) -> list[str]:
        """The required set of a chain query as sorted article titles."""
        names = self.universe.names
        return sorted(names[person] for person in self.people(query))

    def holders(self, query: Sequence[str]) -> int | None:
        """The closed-world count of an attribute-start query (None for a person-start one)."""
        first = parse_literal(query[-1])
        return len(_holders(self.universe, first.predicate, first.source.strip()[1:-1])) if first.inverse else None
