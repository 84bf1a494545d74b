"""Evaluate relations on a universe by walking their v1 rule paths (data/relations.tsv).

A fact is a tuple: ("parent", child, parent), ("friend", a, b) with a < b, ("gender", person), or
(attribute, person) for dob / job / hobby. `derive` returns, for each Y, the facts used by every
derivation of rel(X, Y): the provenance that evidence and sufficiency checks need.
"""

from __future__ import annotations

from .relations import IS_FEMALE, IS_MALE, NOT_NODE, TO_CHILD, TO_FRIEND, TO_PARENT, relations
from .universe import Universe

Fact = tuple


class Kinship:
    """Relation lookups on one universe, with per-(relation, person) caching of the targets."""

    def __init__(self, universe: Universe) -> None:
        self.universe = universe
        self.steps = {name: rel.steps for name, rel in relations().items()}
        self._cache: dict[tuple[str, int], tuple[int, ...]] = {}

    def targets(self, rel: str, person: int) -> tuple[int, ...]:
        """Sorted distinct Y with rel(person, Y)."""
        key = (rel, person)
        found = self._cache.get(key)
        if found is None:
            out: set[int] = set()
            self._walk(self.steps[rel], 0, [person], out, None, None)
            found = self._cache[key] = tuple(sorted(out))
        return found

    def derive(self, rel: str, person: int) -> dict[int, set[Fact]]:
        """For each Y with rel(person, Y): the union of the facts of all its derivations."""
        out: dict[int, set[Fact]] = {}
        self._walk(self.steps[rel], 0, [person], None, out, [])
        return out

    def _walk(
        self,
        steps: tuple[tuple[int, int], ...],
        k: int,
        path: list[int],
        out: set[int] | None,
        provenance: dict[int, set[Fact]] | None,
        facts: list[Fact] | None,
    ) -> None:
        u = self.universe
        node = path[-1]
        while k < len(steps):
            op, arg = steps[k]
            if op == NOT_NODE:
                if node == path[arg]:
                    return
            elif op == IS_FEMALE or op == IS_MALE:
                if u.female[node] != (op == IS_FEMALE):
                    return
                if facts is not None:
                    facts.append(("gender", node))
                    self._walk(steps, k + 1, path, out, provenance, facts)
                    facts.pop()
                    return
            else:
                if op == TO_PARENT:
                    hops = [(p, ("parent", node, p)) for p in u.parents[node]]
                elif op == TO_CHILD:
                    hops = [(c, ("parent", c, node)) for c in u.children[node]]
                else:
                    hops = [(f, ("friend", min(node, f), max(node, f))) for f in u.friends[node]]
                for nxt, fact in hops:
                    path.append(nxt)
                    if facts is not None:
                        facts.append(fact)
                    self._walk(steps, k + 1, path, out, provenance, facts)
                    if facts is not None:
                        facts.pop()
                    path.pop()
                return
            k += 1
        if out is not None:
            out.add(node)
        if provenance is not None:
            provenance.setdefault(node, set()).update(facts)

    def pairs(self, person: int, bank: tuple[str, ...]) -> list[tuple[str, int]]:
        """Distinct (relation, Y) pairs of `person` over the relations in `bank`, in bank order."""
        return [(rel, y) for rel in bank for y in self.targets(rel, person)]
