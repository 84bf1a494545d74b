"""Prolog: write a universe as a program stock `swipl` consults, and read a v1 universe back."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from .relations import DATA_DIR, places
from .universe import Universe, build_universe

BASE_PREDICATES = ("type", "gender", "parent", "friend_", "dob", "job", "hobby")
PLACE_PREDICATES = tuple(places())  # written only for a universe that has places (v1's program otherwise)


def quote(text: str) -> str:
    """A Prolog double-quoted string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def rules_text() -> str:
    """The relation rules (data/rules.pl)."""
    return (DATA_DIR / "rules.pl").read_text(encoding="utf-8")


def _fact_lines(universe: Universe) -> Iterator[str]:
    """Each base fact's line, grouped by predicate, in id order (v1 predicates and argument order)."""
    names = [quote(name) for name in universe.names]
    held = [place for place in PLACE_PREDICATES if place in universe.places]
    yield f":- dynamic {', '.join(p + '/2' for p in BASE_PREDICATES + tuple(held))}."
    yield ""
    yield from (f"type({name}, person)." for name in names)
    yield from (f"gender({name}, {quote(universe.gender(i))})." for i, name in enumerate(names))
    yield from (f"parent({names[c]}, {names[p]})." for c in range(len(names)) for p in universe.parents[c])
    yield from (f"friend_({names[a]}, {names[b]})." for a, b in universe.friend_pairs())
    for attr in ("dob", "job", "hobby", *held):
        values = universe.attribute(attr)
        yield from (f"{attr}({name}, {quote(value)})." for name, value in zip(names, values) if value is not None)


def _fact_chunks(universe: Universe, lines_per_chunk: int = 65_536) -> Iterator[str]:
    """The facts text in pieces of many lines each, so a million people's facts never sit as ten million strings."""
    lines = _fact_lines(universe)
    while chunk := list(islice(lines, lines_per_chunk)):
        yield "\n".join(chunk) + "\n"


def facts_text(universe: Universe) -> str:
    """Base facts, grouped by predicate, in id order (v1 predicates and argument order)."""
    return "".join(_fact_chunks(universe))


def program_text(universe: Universe) -> str:
    """Facts plus rules: one file `swipl` consults as it is."""
    return "".join([*_fact_chunks(universe), "\n", rules_text()])


def write_program(universe: Universe, out_dir: str | Path) -> Path:
    """Write facts.pl, rules.pl and the combined program.pl into `out_dir`; return program.pl."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "facts.pl").write_text(facts_text(universe), encoding="utf-8")
    (out / "rules.pl").write_text(rules_text(), encoding="utf-8")
    program = out / "program.pl"
    program.write_text(program_text(universe), encoding="utf-8")
    return program


_TERM = r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[a-z]\w*'
_FACT = re.compile(rf"^\s*({'|'.join(BASE_PREDICATES + PLACE_PREDICATES)})\(\s*({_TERM})\s*,\s*({_TERM})\s*\)\s*\.\s*$")


def _unquote(term: str) -> str:
    if term[0] in "\"'":
        return re.sub(r"\\(.)", r"\1", term[1:-1])
    return term


def _read_facts(text: str) -> dict[str, list[tuple[str, str]]]:
    """Predicate -> its (first, second) arguments, for every base fact line of Prolog text (others are skipped)."""
    facts: dict[str, list[tuple[str, str]]] = {p: [] for p in BASE_PREDICATES + PLACE_PREDICATES}
    for line in text.splitlines():
        match = _FACT.match(line)
        if match:
            predicate, first, second = match.groups()
            facts[predicate].append((_unquote(first), _unquote(second)))
    return facts


def _values(facts: list[tuple[str, str]], order: dict[str, int]) -> list[str | None]:
    """One attribute's value per person (None where no fact gives one)."""
    values: list[str | None] = [None] * len(order)
    for person, value in facts:
        values[order[person]] = value
    return values


def read_universe(text: str) -> Universe:
    """A universe from v1 Prolog text (facts.pl, or v1's one-row `database`); rule clauses are skipped.

    People are ordered by first appearance in type/2 facts (then in any other fact).
    """
    facts = _read_facts(text)
    order: dict[str, int] = {}
    for predicate in BASE_PREDICATES:
        for first, second in facts[predicate]:
            order.setdefault(first, len(order))
            if predicate in ("parent", "friend_"):
                order.setdefault(second, len(order))
    if not order:
        raise ValueError(
            "no PhantomWiki facts found: expected type/2, gender/2, parent/2, friend_/2, dob/2, job/2, hobby/2"
        )
    female = bytearray(len(order))
    for person, gender in facts["gender"]:
        if gender not in ("female", "male"):
            raise ValueError(f"gender({person!r}, {gender!r}): only female and male are supported")
        female[order[person]] = 1 if gender == "female" else 0
    return build_universe(
        names=list(order),
        female=female,
        parent_edges=[(order[c], order[p]) for c, p in facts["parent"]],
        friend_edges=[(order[a], order[b]) for a, b in facts["friend_"]],
        dob=_values(facts["dob"], order),
        job=_values(facts["job"], order),
        hobby=_values(facts["hobby"], order),
        places={place: _values(facts[place], order) for place in PLACE_PREDICATES if facts[place]},
    )
