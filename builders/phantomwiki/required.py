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
from functools import lru_cache

from .reading import TO_SIBLING, TO_SPOUSE, reader_paths
from .relations import DATA_DIR, IS_FEMALE, IS_MALE, NOT_NODE, TO_CHILD, TO_FRIEND, TO_PARENT, attributes
from .solver import Literal, parse_literal
from .universe import Universe

_GENDER_GIVEN = frozenset({TO_PARENT, TO_CHILD, TO_SIBLING, TO_SPOUSE})  # mother/father, son/daughter, sister/..., wife/...


def starts_from_attribute(query: Sequence[str]) -> bool:
    """Whether a chain query starts from an attribute value rather than a named person."""
    return parse_literal(query[-1]).inverse


@lru_cache(maxsize=1)
def _closed_world_template() -> str:
    return (DATA_DIR / "closed_world.txt").read_text(encoding="utf-8").strip()


def closed_world_statement(universe: Universe, query: Sequence[str]) -> str:
    """The sentence that makes an attribute-start question decidable ("Exactly 3 people have the hobby tango."); "" otherwise."""
    first = parse_literal(query[-1])
    if not first.inverse:
        return ""
    value = first.source.strip()[1:-1]
    count = len(_holders(universe, first.predicate, value))
    return _closed_world_template().format(
        count=count, people="person has" if count == 1 else "people have",
        attribute=attributes()[first.predicate].wording, value=value,
    )


def _holders(universe: Universe, attribute: str, value: str) -> list[int]:
    if attribute == "gender":
        return [p for p in range(len(universe)) if universe.gender(p) == value]
    return universe.holders(attribute, value)


class RequiredSets:
    """Required sets of questions on one universe (the universe's own lists are what the articles state)."""

    def __init__(self, universe: Universe) -> None:
        self.universe = universe
        self.paths = reader_paths()

    def _siblings(self, person: int) -> Iterable[int]:
        u = self.universe
        return {c for p in u.parents[person] for c in u.children[p]} - {person}

    def _spouses(self, person: int) -> Iterable[int]:
        u = self.universe
        return {p for c in u.children[person] for p in u.parents[c]} - {person}

    def _listed(self, op: int, person: int) -> Iterable[int]:
        """The people `person`'s own article lists for a step."""
        u = self.universe
        if op == TO_PARENT:
            return u.parents[person]
        if op == TO_CHILD:
            return u.children[person]
        if op == TO_FRIEND:
            return u.friends[person]
        if op == TO_SIBLING:
            return self._siblings(person)
        return self._spouses(person)

    def relation(self, rel: str, start: int, read: set[int]) -> set[int]:
        """The Y with rel(start, Y), walking the reader's path; adds to `read` everyone whose article the walk reads."""
        female = self.universe.female
        paths: list[tuple[tuple[int, ...], bool]] = [((start,), False)]  # (path, gender of its end given by a sentence)
        for op, arg in self.paths[rel]:
            if op in (IS_FEMALE, IS_MALE):
                wanted = 1 if op == IS_FEMALE else 0
                read.update(path[-1] for path, told in paths if not told)
                paths = [(path, told) for path, told in paths if female[path[-1]] == wanted]
            elif op == NOT_NODE:
                paths = [(path, told) for path, told in paths if path[-1] != path[arg]]
            else:
                read.update(path[-1] for path, _ in paths)
                told = op in _GENDER_GIVEN
                paths = [(path + (y,), told) for path, _ in paths for y in self._listed(op, path[-1])]
            if not paths:
                break
        return {path[-1] for path, _ in paths}

    def people(self, query: Sequence[str]) -> set[int]:
        """The required set of a chain query, as person ids."""
        literals: list[Literal] = [parse_literal(text) for text in reversed(query)]
        read: set[int] = set()
        first = literals[0]
        constant = first.source.strip()[1:-1]
        if first.inverse:  # the closed world: every holder's own article states the value
            frontier = set(_holders(self.universe, first.predicate, constant))
            read |= frontier
            literals = literals[1:]
        else:
            frontier = {self.universe.ids[constant]}
        for lit in literals:
            if lit.kind == "relation":
                reached: set[int] = set()
                for person in sorted(frontier):
                    reached |= self.relation(lit.predicate, person, read)
                frontier = reached
            elif lit.kind == "count":
                for person in sorted(frontier):
                    read.add(person)
                    self.relation(lit.predicate, person, read)
            else:  # an attribute of each person reached, read from their own article
                read |= frontier
                frontier = set()
        return read

    def titles(self, query: Sequence[str]) -> list[str]:
        """The required set of a chain query as sorted article titles."""
        names = self.universe.names
        return sorted(names[person] for person in self.people(query))
