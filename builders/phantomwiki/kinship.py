"""Evaluate relations on a universe by walking their v1 rule paths (data/relations.tsv).

A fact is a tuple: ("parent", child, parent), ("friend", a, b) with a < b, ("gender", person), or
(attribute, person) for dob / job / hobby. `derive` returns, for each Y, the facts used by every
derivation of rel(X, Y): the provenance that evidence and sufficiency checks need.
"""

from __future__ import annotations

from .relations import IS_FEMALE, NOT_NODE, TO_CHILD, TO_FRIEND, TO_PARENT, relations
from .universe import Universe

Fact = tuple


class Kinship:
    """Relation lookups on one universe, with per-(relation, person) caching of the targets."""

    def __init__(self, universe: Universe) -> None:
        self.universe = universe
        self.steps = {name: rel.steps for name, rel in relations().items()}
        self._cache: dict[tuple[str, int], tuple[int, ...]] = {}
        self._derivations: dict[tuple[str, int], tuple[tuple[int, int], ...]] = {}
        self._tries: dict[tuple[str, ...], _Trie] = {}
        self._choices: dict[tuple[int, tuple[str, ...]], list[tuple[str, int, int]]] = {}

    def targets(self, rel: str, person: int) -> tuple[int, ...]:
        """Sorted distinct Y with rel(person, Y)."""
        key = (rel, person)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = tuple(sorted({path[-1] for path, _ in self._paths(rel, person, False)}))
        return found

    def derive(self, rel: str, person: int) -> dict[int, set[Fact]]:
        """For each Y with rel(person, Y): the union of the facts of all its derivations."""
        out: dict[int, set[Fact]] = {}
        for path, facts in self._paths(rel, person, True):
            out.setdefault(path[-1], set()).update(facts)
        return out

    def _paths(self, rel: str, person: int, with_facts: bool) -> list[tuple[tuple[int, ...], tuple]]:
        """Every derivation of rel(person, _): its path of people and (optionally) the facts it uses."""
        u = self.universe
        female, parents, children, friends = u.female, u.parents, u.children, u.friends
        paths: list[tuple[tuple[int, ...], tuple]] = [((person,), ())]
        for op, arg in self.steps[rel]:
            if op == TO_PARENT:
                paths = [
                    (path + (p,), facts + (("parent", path[-1], p),) if with_facts else ())
                    for path, facts in paths
                    for p in parents[path[-1]]
                ]
            elif op == TO_CHILD:
                paths = [
                    (path + (c,), facts + (("parent", c, path[-1]),) if with_facts else ())
                    for path, facts in paths
                    for c in children[path[-1]]
                ]
            elif op == TO_FRIEND:
                paths = [
                    (path + (f,), facts + (("friend", min(path[-1], f), max(path[-1], f)),) if with_facts else ())
                    for path, facts in paths
                    for f in friends[path[-1]]
                ]
            elif op == NOT_NODE:
                paths = [(path, facts) for path, facts in paths if path[-1] != path[arg]]
            else:
                wanted = 1 if op == IS_FEMALE else 0
                paths = [
                    (path, facts + (("gender", path[-1]),) if with_facts else ())
                    for path, facts in paths
                    if female[path[-1]] == wanted
                ]
            if not paths:
                break
        return paths

    def derivations(self, rel: str, person: int) -> tuple[tuple[int, int], ...]:
        """(Y, number of derivations of rel(person, Y)) for each Y, sorted by Y: how often Prolog finds each."""
        key = (rel, person)
        found = self._derivations.get(key)
        if found is None:
            counts: dict[int, int] = {}
            for path, _ in self._paths(rel, person, False):
                counts[path[-1]] = counts.get(path[-1], 0) + 1
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
            counts: dict[int, int] = {}
            for path in paths:
                counts[path[-1]] = counts.get(path[-1], 0) + 1
            ordered = sorted(counts.items())
            for rel in trie.ends:
                found[rel] = ordered
        u = self.universe
        for (op, arg), branch in trie.branches.items():
            if op == TO_PARENT:
                parents = u.parents
                nxt = [path + (p,) for path in paths for p in parents[path[-1]]]
            elif op == TO_CHILD:
                children = u.children
                nxt = [path + (c,) for path in paths for c in children[path[-1]]]
            elif op == TO_FRIEND:
                friends = u.friends
                nxt = [path + (f,) for path in paths for f in friends[path[-1]]]
            elif op == NOT_NODE:
                nxt = [path for path in paths if path[-1] != path[arg]]
            else:
                female, wanted = u.female, 1 if op == IS_FEMALE else 0
                nxt = [path for path in paths if female[path[-1]] == wanted]
            if nxt:
                self._walk(branch, nxt, found)


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
