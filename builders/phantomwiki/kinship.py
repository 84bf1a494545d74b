"""Evaluate relations on a universe by walking their v1 rule paths (data/relations.tsv).

A fact is a tuple: ("parent", child, parent), ("friend", a, b) with a < b, ("gender", person), or
(attribute, person) for dob / job / hobby. `derive` returns, for each Y, the facts used by every
derivation of rel(X, Y): the provenance that evidence and sufficiency checks need.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

from .paths import StepReader, advance, walk
from .relations import IS_FEMALE, IS_MALE, TO_CHILD, TO_FRIEND, TO_PARENT, relations
from .universe import Universe

Fact = tuple


class Kinship:
    """Relation lookups on one universe, with per-(relation, person) caching of the targets."""

    def __init__(self, universe: Universe) -> None:
        self.universe = universe
        self.steps = {name: rel.steps for name, rel in relations().items()}
        moves = {TO_PARENT: universe.parents, TO_CHILD: universe.children, TO_FRIEND: universe.friends}
        female = universe.female.__getitem__
        self.reader = StepReader(
            {op: table.__getitem__ for op, table in moves.items()}, lambda told: female, female=1, male=0
        )
        self._cache: dict[tuple[str, int], tuple[int, ...]] = {}
        self._derivations: dict[tuple[str, int], tuple[tuple[int, int], ...]] = {}
        self._tries: dict[tuple[str, ...], _Trie] = {}
        self._choices: dict[tuple[int, tuple[str, ...]], list[tuple[str, int, int]]] = {}

    def targets(self, rel: str, person: int) -> tuple[int, ...]:
        """Sorted distinct Y with rel(person, Y)."""
        key = (rel, person)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = tuple(sorted({path[-1] for path in self._paths(rel, person)}))
        return found

    def derive(self, rel: str, person: int) -> dict[int, set[Fact]]:
        """For each Y with rel(person, Y): the union of the facts of all its derivations."""
        out: dict[int, set[Fact]] = {}
        steps = self.steps[rel]
        for path in self._paths(rel, person):
            out.setdefault(path[-1], set()).update(_facts(steps, path))
        return out

    def _paths(self, rel: str, person: int) -> list[tuple[int, ...]]:
        """Every derivation of rel(person, _) as its path of people (paths.walk over the universe's lists)."""
        return walk(self.reader, self.steps[rel], person)

    def derivations(self, rel: str, person: int) -> tuple[tuple[int, int], ...]:
        """(Y, number of derivations of rel(person, Y)) for each Y, sorted by Y: how often Prolog finds each."""
        key = (rel, person)
        found = self._derivations.get(key)
        if found is None:
            counts = Counter(path[-1] for path in self._paths(rel, person))
            found = self._derivations[key] = tuple(sorted(counts.items()))
        return found

    def choices(self, person: int, bank: tuple[str, ...]) -> list[tuple[str, int, int]]:
        """(relation, Y, derivations) for every Y that a relation in `bank` links `person` to, in bank order.

        The same as `derivations` of each relation in turn, walked once: relations sharing the first steps of
        their paths (mother, father, sister, aunt ... all start "to a parent") share the paths of those steps.
        """
        cached = self._choices.get((person, bank))
        if cached is not None:
            return cached
        trie = self._tries.get(bank)
        if trie is None:
            trie = self._tries[bank] = _Trie.of([(rel, self.steps[rel]) for rel in bank])
        found: dict[str, list[tuple[int, int]]] = {}
        self._walk(trie, [(person,)], found)
        chosen = self._choices[person, bank] = [(rel, y, count) for rel in bank for y, count in found.get(rel, ())]
        return chosen

    def _walk(self, trie: _Trie, paths: list[tuple[int, ...]], found: dict[str, list[tuple[int, int]]]) -> None:
        """Extend `paths` along each branch of `trie`; at a relation's end, count the paths by their last person."""
        if trie.ends:
            ordered = sorted(Counter(path[-1] for path in paths).items())
            for rel in trie.ends:
                found[rel] = ordered
        for step, branch in trie.branches.items():
            nxt = advance(self.reader, paths, step)
            if nxt:
                self._walk(branch, nxt, found)


def _facts(steps: tuple[tuple[int, int], ...], path: tuple[int, ...]) -> tuple[Fact, ...]:
    """The facts one derivation uses, in step order: each move's parent or friend fact, each gender test's gender."""
    return tuple(
        ("parent", path[at], path[at + 1])
        if op == TO_PARENT
        else ("parent", path[at + 1], path[at])
        if op == TO_CHILD
        else ("friend", min(path[at], path[at + 1]), max(path[at], path[at + 1]))
        if op == TO_FRIEND
        else ("gender", path[at])
        for op, at in _fact_steps(steps)
    )


@cache
def _fact_steps(steps: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """(op, the path index it starts from) of each step of a relation that uses a fact: its moves and gender tests
    (NOT_NODE uses none); worked out once per relation."""
    out = []
    at = 0
    for op, _ in steps:
        if op in (TO_PARENT, TO_CHILD, TO_FRIEND, IS_FEMALE, IS_MALE):
            out.append((op, at))
        at += op in (TO_PARENT, TO_CHILD, TO_FRIEND)
    return tuple(out)


class _Trie:
    """Relation paths sharing their first steps: the relations ending here, and the branches by next step."""

    def __init__(self) -> None:
        self.ends: list[str] = []
        self.branches: dict[tuple[int, int], _Trie] = {}

    @classmethod
    def of(cls, paths: list[tuple[str, tuple[tuple[int, int], ...]]]) -> _Trie:
        root = cls()
        for rel, steps in paths:
            node = root
            for step in steps:
                node = node.branches.setdefault(step, cls())
            node.ends.append(rel)
        return root
