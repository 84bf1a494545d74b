"""Long instances: each row's documents filled with distractors up to a number of tokens, its evidence placed.

With `context_tokens` set, a row shows its own articles (the required set less its missing one, and the person a
premise names) and distractors from three tiers, each row drawing its own from each tier in its own order:
  1. the pool the default instances draw from: the BM25 neighbours of the question and its evidence (or, with
     distractors="easy", seeded random articles), none joined to the people the question reaches;
  2. the articles of the people the question touches and of their families: everyone named in the question's
     articles, whoever names them, and the people of their family trees (the same surnames, the same names);
  3. every other article, drawn at random.
No distractor can change a label: never an article the question's rows show (its required sets and named people),
never a holder of the value an attribute question starts from, and for an insufficient row never an article that
names its missing person (the only other places a fact about that person is written: `Corpus.naming`), so the
missing article stays missing in every sense. Every other article states facts about people whose own articles the
reader either has in full (so they add nothing) or never reads by the rule.
Rows are filled in tier order until the next article would pass the length, then with the shortest articles that
still fit (earlier tiers first), so a row ends at most one article below its length and never above it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from ..rng import below, shuffled
from .config import depth_of
from .universe import Universe


def family_trees(universe: Universe) -> list[int]:
    """Person -> the id of their family tree (the people joined to them by parent edges)."""
    tree = [-1] * len(universe)
    for root in range(len(universe)):
        if tree[root] >= 0:
            continue
        tree[root] = root
        todo = [root]
        while todo:
            person = todo.pop()
            for other in (*universe.parents[person], *universe.children[person]):
                if tree[other] < 0:
                    tree[other] = root
                    todo.append(other)
    return tree


@dataclass(frozen=True)
class Tiers:
    """A question's distractor candidates, hardest first (see the module docstring); every title appears once."""

    pool: tuple[str, ...]
    family: tuple[str, ...]
    rest: tuple[str, ...]


@dataclass(frozen=True)
class Costs:
    """Token counts: each title's document, and the separator between two documents."""

    of: Callable[[str], int]
    separator: int


def fill(rng: random.Random, tiers: Tiers, excluded: set[str], room: int, costs: Costs) -> list[str]:
    """Distractors for one row, in the order taken: each tier in the row's own order while the next one fits in
    `room` tokens (each costs its document and a separator), then the shortest that still fit, earlier tiers
    first, so what is left is less than any article not taken."""
    taken: list[str] = []
    seen = set(excluded)

    def take(title: str) -> bool:
        nonlocal room
        cost = costs.of(title) + costs.separator
        if cost > room:
            return False
        taken.append(title)
        seen.add(title)
        room -= cost
        return True

    def ordered(tier: Sequence[str]) -> Iterator[str]:
        """The tier in the row's own order, drawn as it goes (a Fisher-Yates shuffle that stops when the row does)."""
        order = list(tier)
        for index in range(len(order)):
            swap = index + below(rng, len(order) - index)
            order[index], order[swap] = order[swap], order[index]
            yield order[index]

    full = False
    for tier in (tiers.pool, tiers.family, tiers.rest):
        for title in ordered(tier):
            if title not in seen and not take(title):
                full = True
                break
        if full:
            break
    for tier in (tiers.pool, tiers.family, tiers.rest):  # the tail: what still fits, earlier tiers first
        fitting = [t for t in tier if t not in seen and costs.of(t) + costs.separator <= room]
        while fitting:  # room only shrinks: after each take, what still fits is a part of what did, in its order
            title = fitting[below(rng, len(fitting))]
            take(title)
            fitting = [t for t in fitting if t != title and costs.of(t) + costs.separator <= room]
    return taken


def place(
    rng: random.Random, shown: Sequence[str], distractors: Sequence[str], position: str, costs: Costs
) -> list[str]:
    """A row's document order: `shown` (its own articles) among `distractors` as `position` says.

    "random": everything shuffled (the default instances' order); "spread": the shown articles in a seeded order,
    the distractors cut into one more run than there are of them, about equal in tokens, one between each two;
    a depth d: the shown articles together, in a seeded order, after the distractors' first d of tokens."""
    if position == "random":
        return shuffled(rng, [*shown, *distractors])
    evidence = shuffled(rng, list(shown))
    others = shuffled(rng, list(distractors))
    weights = [costs.of(title) + costs.separator for title in others]
    total = sum(weights)
    depth = depth_of(position)
    if depth is not None:
        cut = _cut(weights, depth * total)
        return [*others[:cut], *evidence, *others[cut:]]
    cuts = [_cut(weights, total * (i + 1) / (len(evidence) + 1)) for i in range(len(evidence))]
    out: list[str] = []
    start = 0
    for title, cut in zip(evidence, cuts):
        out += [*others[start:cut], title]
        start = cut
    return out + others[start:]


def _cut(weights: Sequence[int], target: float) -> int:
    """The number of leading items whose summed weight is closest to `target` (the fewer on ties)."""
    best, at, running = 0, abs(target), 0
    for index, weight in enumerate(weights, 1):
        running += weight
        if abs(running - target) < at:
            best, at = index, abs(running - target)
    return best


def evidence_depth(titles: Sequence[str], shown: set[str], costs: Costs) -> list[float]:
    """[where the first shown article starts, where the last one ends], as shares of the row's tokens."""
    bounds = []
    at = 0
    for index, title in enumerate(titles):
        start = at + (costs.separator if index else 0)
        at = start + costs.of(title)
        if title in shown:
            bounds.append((start, at))
    if not bounds or not at:
        return [0.0, 0.0]
    return [round(bounds[0][0] / at, 4), round(bounds[-1][1] / at, 4)]
