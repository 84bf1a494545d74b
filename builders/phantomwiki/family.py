"""Family trees: disjoint trees grown from one person by adding parents or children, with dates and names.

Constraints that always hold: a parent is 18 to 45 calendar years older than each child, siblings
are born at least MIN_SIBLING_GAP_DAYS apart, spouses are at most SPOUSE_MAX_GAP_YEARS apart,
spouses exist only as co-parents (one spouse per person), full names are unique, surnames pass down
the father's line, and a wife takes her husband's surname.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..rng import below, pick, stream
from .dates import add_years, iso, ordinal
from .vocabulary import Vocabulary

MIN_PARENT_AGE, MAX_PARENT_AGE = 18, 45
MIN_SIBLING_GAP_DAYS = 300
SPOUSE_MAX_GAP_YEARS = 5
ROOT_BIRTH_RANGE = (ordinal("1920-01-01"), ordinal("2000-12-31"))
LATEST_BIRTH = ordinal("2025-12-31")  # nobody is born after this fixed "today"
FAILED_TRIES_PER_TREE = 200
NAME_TRIES = 10_000


@dataclass
class Families:
    """The forest: per-person gender, parents (child, parent) edges, birth ordinals and full names."""

    female: bytearray
    parent_edges: list[tuple[int, int]]
    dob: list[int]
    names: list[str]
    tree_sizes: list[int]


class _Forest:
    """Growing state; ids are given in creation order."""

    def __init__(self) -> None:
        self.female = bytearray()
        self.dob: list[int] = []
        self.level: list[int] = []
        self.father: list[int] = []
        self.mother: list[int] = []
        self.spouse: list[int] = []
        self.children: list[list[int]] = []

    def add(self, is_female: bool, dob: int, level: int) -> int:
        self.female.append(1 if is_female else 0)
        self.dob.append(dob)
        self.level.append(level)
        self.father.append(-1)
        self.mother.append(-1)
        self.spouse.append(-1)
        self.children.append([])
        return len(self.dob) - 1


def _uniform_day(rng: random.Random, low: int, high: int) -> int:
    return low + below(rng, high - low + 1)


def _free_days(low: int, high: int, taken: list[int]) -> list[tuple[int, int]]:
    """Sub-intervals of [low, high] at least MIN_SIBLING_GAP_DAYS away from every day in `taken`."""
    gap = MIN_SIBLING_GAP_DAYS
    intervals = [(low, high)] if low <= high else []
    for day in taken:
        blocked_low, blocked_high = day - gap + 1, day + gap - 1
        next_intervals = []
        for a, b in intervals:
            if b < blocked_low or a > blocked_high:
                next_intervals.append((a, b))
                continue
            if a < blocked_low:
                next_intervals.append((a, blocked_low - 1))
            if b > blocked_high:
                next_intervals.append((blocked_high + 1, b))
        intervals = next_intervals
    return intervals


def _day_in(rng: random.Random, intervals: list[tuple[int, int]]) -> int:
    total = sum(b - a + 1 for a, b in intervals)
    offset = below(rng, total)
    for a, b in intervals:
        if offset <= b - a:
            return a + offset
        offset -= b - a + 1
    raise AssertionError("offset outside the intervals")


class _TreeGrower:
    """Grows one tree towards `target` people within the depth and children limits."""

    def __init__(self, forest: _Forest, rng: random.Random, max_depth: int, max_children: int) -> None:
        self.forest, self.rng = forest, rng
        self.max_depth, self.max_children = max_depth, max_children

    def grow(self, target: int) -> int:
        forest, rng = self.forest, self.rng
        root = forest.add(rng.random() < 0.5, _uniform_day(rng, *ROOT_BIRTH_RANGE), 0)
        self.members, self.low, self.high = [root], 0, 0
        failures = 0
        while len(self.members) < target and failures < FAILED_TRIES_PER_TREE:
            person = pick(rng, self.members)
            room = target - len(self.members)
            actions = (self._add_parents, self._add_child) if rng.random() < 0.5 else (self._add_child, self._add_parents)
            if not any(action(person, room) for action in actions):
                failures += 1
        return len(self.members)

    def _depth_allows(self, level: int) -> bool:
        return max(self.high, level) - min(self.low, level) + 1 <= self.max_depth

    def _join(self, person: int) -> None:
        self.members.append(person)
        self.low = min(self.low, self.forest.level[person])
        self.high = max(self.high, self.forest.level[person])

    def _add_parents(self, child: int, room: int) -> bool:
        forest, rng = self.forest, self.rng
        level = forest.level[child] - 1
        if forest.father[child] >= 0 or room < 2 or not self._depth_allows(level):
            return False
        born = forest.dob[child]
        low, high = add_years(born, -MAX_PARENT_AGE), add_years(born, -MIN_PARENT_AGE)
        father_dob = _uniform_day(rng, low, high)
        mother_low = max(low, add_years(father_dob, -SPOUSE_MAX_GAP_YEARS))
        mother_high = min(high, add_years(father_dob, SPOUSE_MAX_GAP_YEARS))
        mother_dob = _uniform_day(rng, mother_low, mother_high)
        father = forest.add(False, father_dob, level)
        mother = forest.add(True, mother_dob, level)
        forest.spouse[father], forest.spouse[mother] = mother, father
        forest.father[child], forest.mother[child] = father, mother
        forest.children[father].append(child)
        forest.children[mother].append(child)
        self._join(father)
        self._join(mother)
        return True

    def _add_child(self, parent: int, room: int) -> bool:
        forest, rng = self.forest, self.rng
        level = forest.level[parent] + 1
        spouse = forest.spouse[parent]
        if len(forest.children[parent]) >= self.max_children or not self._depth_allows(level):
            return False
        if room < (1 if spouse >= 0 else 2):
            return False
        if spouse >= 0:
            spouse_dob = forest.dob[spouse]
        else:
            born = forest.dob[parent]
            spouse_dob = _uniform_day(
                rng, add_years(born, -SPOUSE_MAX_GAP_YEARS), add_years(born, SPOUSE_MAX_GAP_YEARS)
            )
        both = (forest.dob[parent], spouse_dob)
        low = max(add_years(day, MIN_PARENT_AGE) for day in both)
        high = min(LATEST_BIRTH, *(add_years(day, MAX_PARENT_AGE) for day in both))
        free = _free_days(low, high, [forest.dob[c] for c in forest.children[parent]])
        if not free:
            return False
        child_dob = _day_in(rng, free)
        if spouse < 0:
            spouse = forest.add(not forest.female[parent], spouse_dob, forest.level[parent])
            forest.spouse[parent], forest.spouse[spouse] = spouse, parent
            self._join(spouse)
        child = forest.add(rng.random() < 0.5, child_dob, level)
        father, mother = (spouse, parent) if forest.female[parent] else (parent, spouse)
        forest.father[child], forest.mother[child] = father, mother
        forest.children[father].append(child)
        forest.children[mother].append(child)
        self._join(child)
        return True


def _assign_names(forest: _Forest, vocab: Vocabulary, rng: random.Random) -> list[str]:
    """Surnames down the father's line (wives take the husband's), then unique first names."""
    n = len(forest.dob)
    birth_surname: list[str | None] = [None] * n
    for person in range(n):
        line = []
        current = person
        while birth_surname[current] is None and forest.father[current] >= 0:
            line.append(current)
            current = forest.father[current]
        if birth_surname[current] is None:
            birth_surname[current] = pick(rng, vocab.surnames)
        for member in line:
            birth_surname[member] = birth_surname[current]
    names: list[str] = []
    taken: set[str] = set()
    for person in range(n):
        is_female = forest.female[person]
        husband = forest.spouse[person] if is_female else -1
        surname = birth_surname[husband if husband >= 0 else person]
        first_names = vocab.female_first_names if is_female else vocab.male_first_names
        for _ in range(NAME_TRIES):
            name = f"{pick(rng, first_names)} {surname}"
            if name not in taken:
                break
        else:
            raise RuntimeError(f"could not find a unique first name for surname {surname!r}")
        taken.add(name)
        names.append(name)
    return names


def generate_families(
    size: int, seed: int, max_tree_size: int, max_tree_depth: int, max_children: int, vocab: Vocabulary
) -> Families:
    """Exactly `size` people in trees of at most `max_tree_size`, deterministic in `seed`."""
    forest = _Forest()
    grower = _TreeGrower(forest, stream(seed, "family"), max_tree_depth, max_children)
    tree_sizes = []
    while len(forest.dob) < size:
        tree_sizes.append(grower.grow(min(max_tree_size, size - len(forest.dob))))
    parent_edges = []
    for child in range(size):
        for parent in (forest.father[child], forest.mother[child]):
            if parent >= 0:
                parent_edges.append((child, parent))
    names = _assign_names(forest, vocab, stream(seed, "names"))
    return Families(forest.female, parent_edges, forest.dob, names, tree_sizes)


def birth_dates(families: Families) -> list[str]:
    """Dates of birth as YYYY-MM-DD strings."""
    return [iso(day) for day in families.dob]
