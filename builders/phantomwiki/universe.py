"""A universe: people with names, genders, parent edges, friendships and attributes, as plain lists."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property


@dataclass
class Universe:
    """People are integer ids 0..n-1; every per-person list is indexed by id."""

    names: list[str]
    female: bytearray
    parents: list[tuple[int, ...]]
    children: list[tuple[int, ...]]
    friends: list[tuple[int, ...]]
    dob: list[str | None]
    job: list[str | None]
    hobby: list[str | None]
    extra: dict[str, str] = field(default_factory=dict)
    places: dict[str, list[str | None]] = field(default_factory=dict)  # birthplace, residence, school (data/places.tsv)

    def __len__(self) -> int:
        return len(self.names)

    @cached_property
    def ids(self) -> dict[str, int]:
        """Person id by full name."""
        return {name: i for i, name in enumerate(self.names)}

    def forget_indexes(self) -> None:
        """Drop the look-ups built on demand (ids, holders), which are rebuilt when next asked for: a writer frees
        them before the database's one big row."""
        for name in ("ids", "_holders"):
            self.__dict__.pop(name, None)

    def gender(self, person: int) -> str:
        """`female` or `male`."""
        return "female" if self.female[person] else "male"

    def attribute(self, name: str) -> list[str | None]:
        """Per-person values of attribute `name` (dob, job, hobby, gender, or a place: None where a person has none)."""
        if name == "gender":
            return ["female" if f else "male" for f in self.female]
        if name in ("dob", "job", "hobby"):
            return getattr(self, name)
        found = self.places.get(name)
        return found if found is not None else self._nowhere

    @cached_property
    def _nowhere(self) -> list[str | None]:
        """The values of a place nobody has (a universe made with places=False, or read from v1 Prolog)."""
        return [None] * len(self.names)

    @cached_property
    def _holders(self) -> dict[str, dict[str, list[int]]]:
        return {}

    def holders(self, name: str, value: str) -> list[int]:
        """People whose attribute `name` is `value`, in id order."""
        if name not in self._holders:
            index: dict[str, list[int]] = {}
            for person, person_value in enumerate(self.attribute(name)):
                if person_value is not None:
                    index.setdefault(person_value, []).append(person)
            self._holders[name] = index
        return self._holders[name].get(value, [])

    def friend_pairs(self) -> list[tuple[int, int]]:
        """Each friendship once, as (smaller id, larger id), sorted."""
        return [(a, b) for a, linked in enumerate(self.friends) for b in linked if a < b]


def build_universe(
    names: list[str],
    female: bytearray,
    parent_edges: list[tuple[int, int]],
    friend_edges: list[tuple[int, int]],
    dob: Sequence[str | None],
    job: Sequence[str | None],
    hobby: Sequence[str | None],
    places: dict[str, list[str | None]] | None = None,
) -> Universe:
    """Assemble adjacency lists from (child, parent) and (person, person) edge lists."""
    n = len(names)
    parents: list[list[int]] = [[] for _ in range(n)]
    children: list[list[int]] = [[] for _ in range(n)]
    for child, parent in sorted(set(parent_edges)):
        parents[child].append(parent)
        children[parent].append(child)
    friends: list[list[int]] = [[] for _ in range(n)]
    # Pairs in sorted order fill each list in increasing order: first the smaller friends, then the larger.
    for a, b in sorted({(min(a, b), max(a, b)) for a, b in friend_edges if a != b}):
        friends[a].append(b)
        friends[b].append(a)
    empty: tuple[int, ...] = ()
    return Universe(
        names=names,
        female=female,
        parents=[tuple(p) if p else empty for p in parents],
        children=[tuple(c) if c else empty for c in children],
        friends=[tuple(f) if f else empty for f in friends],
        dob=list(dob),
        job=list(job),
        hobby=list(hobby),
        places=dict(places or {}),
    )
