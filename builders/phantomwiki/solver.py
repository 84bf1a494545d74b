"""Answer v1-style Prolog chain queries by set-to-set hops, with the facts behind every answer.

A query is a list of literals, innermost last, as v1 writes it, e.g.
    ['daughter(Y_4, Y_2)', 'wife(Y_6, Y_4)', 'job(Y_6, "sound technician")']   answer: Y_2
    ['aggregate_all(count, distinct(sister(Y_3, Y_1)), Count_1)', 'son("Ann Lee", Y_3)']   answer: Count_1
Evaluated innermost first, each literal maps the set of values of its bound variable to the set of
values of its new one; for such chain queries this is exactly the set of answers Prolog finds, in
time polynomial in the universe instead of exponential in the number of derivation paths.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .kinship import Fact, Kinship
from .relations import attributes, relations
from .universe import Universe

FRONTIERS = 4096  # inner parts of queries whose output a solver keeps (options ask one query with its last hop changed)
Value = Any  # what a hop reaches: a person's id (int), or an attribute value (a count, a date, an occupation ...)

_COUNT = re.compile(r"^aggregate_all\(count,\s*distinct\((\w+)\((.+?),\s*(Y_\d+)\)\),\s*(Count_\d+)\)$")
_LITERAL = re.compile(r"^(\w+)\((.+?),\s*(.+)\)$")
_VARIABLE = re.compile(r"^[A-Z_]\w*$")


class QueryError(ValueError):
    """A query this solver does not read: not a chain of known relations and attributes."""


@dataclass(frozen=True)
class Literal:
    """One parsed literal: kind is relation, attribute or count."""

    kind: str
    predicate: str
    source: str  # the argument holding the input: a variable or a quoted constant
    target: str  # the argument receiving the output
    inverse: bool = False  # attribute literal read from value to person: job(Y, "x")


@dataclass
class Solution:
    """Sorted answers and, when asked for, the facts used by every derivation of any of them."""

    answers: list[str]
    facts: set[Fact] = field(default_factory=set)


def _unquote(term: str) -> str | None:
    term = term.strip()
    if len(term) >= 2 and term[0] == term[-1] and term[0] in "\"'":
        return term[1:-1]
    return None


@lru_cache(maxsize=1 << 16)
def parse_literal(text: str) -> Literal:
    """Parse one literal of a v1 query (a Literal is immutable: each text is parsed once, the rows ask often)."""
    text = text.strip().rstrip(".")
    count = _COUNT.match(text)
    if count:
        predicate, source, _, target = count.groups()
        if predicate not in relations():
            raise QueryError(f"unknown relation {predicate!r} in {text!r}")
        return Literal("count", predicate, source.strip(), target)
    match = _LITERAL.match(text)
    if not match:
        raise QueryError(f"cannot read literal {text!r}")
    predicate, first, second = (part.strip() for part in match.groups())
    if predicate in relations():
        return Literal("relation", predicate, first, second)
    if predicate in attributes():
        if _unquote(second) is not None:
            return Literal("attribute", predicate, second, first, inverse=True)
        return Literal("attribute", predicate, first, second)
    raise QueryError(f"unknown predicate {predicate!r} in {text!r}")


class Solver:
    """Evaluates chain queries on one universe."""

    def __init__(self, kinship: Kinship) -> None:
        self.kinship = kinship
        self.universe = kinship.universe
        self._derived: dict[tuple[str, int], dict[int, set[Fact]]] = {}
        self._frontiers: dict[tuple[str, ...], tuple[set, str]] = {}  # inner literals -> (their output, its variable)

    def solve(self, query: list[str], answer: str, with_facts: bool = False) -> Solution:
        """The sorted answer values of `answer`; with the facts of their derivations when `with_facts`."""
        literals = [parse_literal(text) for text in reversed(query)]
        layers: list[dict] = []  # per literal: input value -> set of output values
        frontier: set | None = None
        bound: str | None = None
        first = 0
        if not with_facts:  # a query that shares its inner literals with one solved before starts from their output
            for first in range(len(literals) - 1, 0, -1):
                known = self._frontiers.get(tuple(query[len(query) - first :]))
                if known is not None:
                    frontier, bound = known
                    break
            else:
                first = 0
        for index in range(first, len(literals)):
            lit = literals[index]
            constant = _unquote(lit.source)
            if constant is not None:
                inputs: set = {self._person(constant) if not lit.inverse else constant} - {None}
            elif lit.source == bound and frontier is not None:
                inputs = frontier
            else:
                raise QueryError(f"{lit.predicate}: argument {lit.source} is not bound by the literals after it")
            if not _VARIABLE.match(lit.target):
                raise QueryError(f"{lit.predicate}: expected a variable as its output, got {lit.target}")
            edges = {value: self._hop(lit, value) for value in sorted(inputs, key=str)}
            layers.append(edges)
            frontier = set().union(*edges.values()) if edges else set()
            bound = lit.target
            if not with_facts and index < len(literals) - 1:
                if len(self._frontiers) >= FRONTIERS:
                    self._frontiers.clear()
                self._frontiers[tuple(query[len(query) - 1 - index :])] = (frontier, bound)
        if bound != answer:
            raise QueryError(f"answer variable {answer} is not the query's outermost output ({bound})")
        values = frontier or set()
        last = literals[-1]
        ordered = self._ordered(values, last)
        solution = Solution([self._text(v, last) for v in ordered])
        if with_facts:
            solution.facts = self._provenance(literals, layers, values)
            self._derived.clear()
        return solution

    def _person(self, name: str) -> int | None:
        return self.universe.ids.get(name)

    def _hop(self, lit: Literal, value: Value) -> set[Value]:
        u = self.universe
        if lit.kind == "relation":
            return set(self.kinship.targets(lit.predicate, value))
        if lit.kind == "count":
            return {len(self.kinship.targets(lit.predicate, value))}
        if lit.inverse:
            if lit.predicate == "gender":
                return {p for p in range(len(u)) if u.gender(p) == value}
            return set(u.holders(lit.predicate, value))
        found = u.attribute(lit.predicate)[value]
        return set() if found is None else {found}

    def _ordered(self, values: set, last: Literal) -> list:
        if last.kind == "count":
            return sorted(values)
        if last.kind == "relation" or (last.kind == "attribute" and last.inverse):
            return sorted(values, key=lambda person: self.universe.names[person])
        return sorted(values)

    def _text(self, value: Value, lit: Literal) -> str:
        if lit.kind == "relation" or (lit.kind == "attribute" and lit.inverse):
            return self.universe.names[value]
        return str(value)

    def _derive(self, rel: str, source: int) -> dict[int, set[Fact]]:
        key = (rel, source)
        if key not in self._derived:
            self._derived[key] = self.kinship.derive(rel, source)
        return self._derived[key]

    def _edge_facts(self, lit: Literal, source: Value, target: Value) -> set[Fact]:
        if lit.kind == "relation":
            return self._derive(lit.predicate, source)[target]
        if lit.kind == "count":
            facts: set[Fact] = set()
            for found in self._derive(lit.predicate, source).values():
                facts |= found
            return facts
        person = target if lit.inverse else source
        return {("gender", person)} if lit.predicate == "gender" else {(lit.predicate, person)}

    def _provenance(self, literals: list[Literal], layers: list[dict], answers: set) -> set[Fact]:
        """Facts on every path that ends in an answer, walking the layers backwards once."""
        facts: set[Fact] = set()
        reached = answers
        for lit, edges in zip(reversed(literals), reversed(layers)):
            previous = set()
            for source, targets in edges.items():
                hit = targets & reached
                if hit:
                    previous.add(source)
                    for target in hit:
                        facts |= self._edge_facts(lit, source, target)
            reached = previous
        return facts


def fact_text(universe: Universe, fact: Fact) -> str:
    """A fact as a Prolog clause body in v1 form, e.g. parent("Ann Lee", "Bo Lee")."""
    kind, *people = fact
    names = universe.names
    if kind in ("parent", "friend"):
        return f'{kind}("{names[people[0]]}", "{names[people[1]]}")'
    person = people[0]
    value = universe.gender(person) if kind == "gender" else universe.attribute(kind)[person]
    return f'{kind}("{names[person]}", "{value}")'
