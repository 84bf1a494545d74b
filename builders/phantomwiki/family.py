"""Family trees: disjoint trees grown from one person by adding parents or children, with dates and names.

Constraints that always hold: a parent is 18 to 45 calendar years older than each child, siblings
are born at least MIN_SIBLING_GAP_DAYS apart, spouses are at most SPOUSE_MAX_GAP_YEARS apart,
spouses exist only as co-parents (one spouse per person), full names are unique, surnames pass down
the father's line, and a wife takes her husband's surname. A tree spans at most max_tree_depth + 1
generations, as in v1.

Within the constraints, dates follow the reference generator's shapes: a child is born about 27 years
after its younger parent, bell-shaped; spouses are bell-shaped close in age; the first person of a tree
is born in the early years the reference uses (written with four digits, e.g. 0929-10-28). A bell-shaped
offset is a scaled sum of four uniform draws (Irwin-Hall), so it needs nothing but `random()`, additions
and multiplications, which give the same bits on every machine.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from ..rng import below, pick, stream
from .dates import add_years, iso, ordinal
from .vocabulary import Vocabulary

MIN_PARENT_AGE, MAX_PARENT_AGE = 18, 45
MIN_SIBLING_GAP_DAYS = 300
SPOUSE_MAX_GAP_YEARS = 5
DAYS_PER_YEAR = 365.2425
# The reference's shapes: a child is born PARENT_GAP_YEARS (sd PARENT_GAP_SD_YEARS) after its younger
# parent, or, when parents are added, after its father; a spouse is born SPOUSE_GAP_SD_YEARS (sd) apart.
PARENT_GAP_YEARS, PARENT_GAP_SD_YEARS = 27.25, 2.8
SPOUSE_GAP_SD_YEARS = 2.1
DATE_TRIES = 64  # bell draws for one date; if none fits the constraints, the attempt fails
FAILED_TRIES_PER_TREE = 200
NAME_TRIES = 10_000
_BELL_SCALE = math.sqrt(12 / 4)  # the sum of four uniforms has sd sqrt(4 / 12); sqrt is correctly rounded


@dataclass
class Families:
    """The forest: per-person gender, parents (child, parent) edges, birth ordinals and full names."""

    female: bytearray
    parent_edges: list[tuple[int, int]]
    dob: list[int]
    names: list[str]
    tree_sizes: list[int]


def root_years(max_tree_depth: int) -> tuple[int, int]:
    """The years (first, last) a tree's first person is born in: 926-970 at depth 20, the reference's era.

    The first person has at most max_tree_depth generations of ancestors, each at most MAX_PARENT_AGE
    years older, the topmost with a spouse up to SPOUSE_MAX_GAP_YEARS older still: starting the era at
    (MAX_PARENT_AGE + 1) * max_tree_depth + SPOUSE_MAX_GAP_YEARS + 1 keeps every year at 1 or later.
    """
    first = (MAX_PARENT_AGE + 1) * max_tree_depth + SPOUSE_MAX_GAP_YEARS + 1
    return first, first + MAX_PARENT_AGE - 1


def at_least_years_apart(earlier: int, later: int, years: int) -> bool:
    """Whether day `later` is `years` calendar years or more after day `earlier` (add_years semantics)."""
    gap = later - earlier
    if gap >= 366 * years:  # `years` calendar years never hold more days than this
        return True
    if gap < 365 * years - 1:  # nor fewer (29 February + years may become 28 February)
        return False
    return add_years(earlier, years) <= later


def at_most_years_apart(earlier: int, later: int, years: int) -> bool:
    """Whether day `later` is `years` calendar years or less after day `earlier` (add_years semantics)."""
    gap = later - earlier
    if gap <= 365 * years - 1:
        return True
    if gap > 366 * years:
        return False
    return later <= add_years(earlier, years)


def parent_fits(parent_dob: int, child_dob: int) -> bool:
    """A parent is MIN_PARENT_AGE to MAX_PARENT_AGE calendar years older than the child."""
    return at_least_years_apart(parent_dob, child_dob, MIN_PARENT_AGE) and at_most_years_apart(
        parent_dob, child_dob, MAX_PARENT_AGE
    )


def spouses_fit(one: int, other: int) -> bool:
    """Spouses are at most SPOUSE_MAX_GAP_YEARS calendar years apart, seen from either side."""
    earlier, later = min(one, other), max(one, other)
    return at_most_years_apart(earlier, later, SPOUSE_MAX_GAP_YEARS)


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


class _TreeGrower:
    """Grows one tree towards `target` people within the depth and children limits."""

    def __init__(self, forest: _Forest, rng: random.Random, max_depth: int, max_children: int) -> None:
        self.forest, self.rng = forest, rng
        self.max_depth, self.max_children = max_depth, max_children
        first, last = root_years(max_depth)
        self.root_days = (ordinal(f"{first:04d}-01-01"), ordinal(f"{last:04d}-12-31"))
        self.parent_gap = PARENT_GAP_YEARS * DAYS_PER_YEAR
        self.parent_spread = PARENT_GAP_SD_YEARS * DAYS_PER_YEAR * _BELL_SCALE
        self.spouse_spread = SPOUSE_GAP_SD_YEARS * DAYS_PER_YEAR * _BELL_SCALE

    def grow(self, target: int) -> int:
        forest, rng = self.forest, self.rng
        low, high = self.root_days
        root = forest.add(rng.random() < 0.5, low + below(rng, high - low + 1), 0)
        self.members, self.low, self.high = [root], 0, 0
        failures = 0
        while len(self.members) < target and failures < FAILED_TRIES_PER_TREE:
            person = pick(rng, self.members)
            room = target - len(self.members)
            actions = (
                (self._add_parents, self._add_child) if rng.random() < 0.5 else (self._add_child, self._add_parents)
            )
            if not any(action(person, room) for action in actions):
                failures += 1
        return len(self.members)

    def _bell(self, mean: float, spread: float) -> int:
        """A whole number of days: `mean` plus a bell-shaped offset of sd spread / _BELL_SCALE."""
        draw = self.rng.random
        return round(mean + (draw() + draw() + draw() + draw() - 2.0) * spread)

    def _depth_allows(self, level: int) -> bool:
        """v1's limit: the levels of a tree span at most max_depth steps (max_depth + 1 generations)."""
        return max(self.high, level) - min(self.low, level) <= self.max_depth

    def _join(self, person: int) -> None:
        self.members.append(person)
        self.low = min(self.low, self.forest.level[person])
        self.high = max(self.high, self.forest.level[person])

    def _add_parents(self, child: int, room: int) -> bool:
        forest = self.forest
        level = forest.level[child] - 1
        if forest.father[child] >= 0 or room < 2 or not self._depth_allows(level):
            return False
        born = forest.dob[child]
        for _ in range(DATE_TRIES):
            father_dob = self._bell(born - self.parent_gap, self.parent_spread)
            mother_dob = self._bell(father_dob, self.spouse_spread)
            if parent_fits(father_dob, born) and parent_fits(mother_dob, born) and spouses_fit(father_dob, mother_dob):
                break
        else:
            return False
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
        forest = self.forest
        level = forest.level[parent] + 1
        spouse = forest.spouse[parent]
        if len(forest.children[parent]) >= self.max_children or not self._depth_allows(level):
            return False
        if room < (1 if spouse >= 0 else 2):
            return False
        born = forest.dob[parent]
        if spouse >= 0:
            spouse_dob = forest.dob[spouse]
        else:
            for _ in range(DATE_TRIES):
                spouse_dob = self._bell(born, self.spouse_spread)
                if spouses_fit(born, spouse_dob):
                    break
            else:
                return False
        earlier, later = min(born, spouse_dob), max(born, spouse_dob)
        siblings = [forest.dob[c] for c in forest.children[parent]]
        for _ in range(DATE_TRIES):
            child_dob = self._bell(later + self.parent_gap, self.parent_spread)
            if (
                parent_fits(later, child_dob)
                and parent_fits(earlier, child_dob)
                and all(abs(child_dob - day) >= MIN_SIBLING_GAP_DAYS for day in siblings)
            ):
                break
        else:
            return False
        if spouse < 0:
            spouse = forest.add(not forest.female[parent], spouse_dob, forest.level[parent])
            forest.spouse[parent], forest.spouse[spouse] = spouse, parent
            self._join(spouse)
        child = forest.add(self.rng.random() < 0.5, child_dob, level)
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
