"""Seeded random streams that give the same numbers on every machine and Python version.

Only `random.Random.random()` is used for draws: it is the one method whose output Python
guarantees across versions (seeding from an int is stable too).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")


def stream(seed: int, *labels: object) -> random.Random:
    """An independent generator for one stage of one configuration, e.g. stream(1, "family")."""
    text = ":".join(map(str, (seed, *labels)))
    return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest()[:16], "big"))


def below(rng: random.Random, n: int) -> int:
    """A uniform integer in [0, n)."""
    value = int(rng.random() * n)
    return value if value < n else n - 1  # min(value, n - 1) without the call: this runs in every hot loop


def pick(rng: random.Random, items: Sequence[T]) -> T:
    """A uniform element of a non-empty sequence."""
    return items[below(rng, len(items))]


def shuffled(rng: random.Random, items: Sequence[T]) -> list[T]:
    """A Fisher-Yates shuffle of a copy of `items` (`below` inlined: the hottest loop of generation)."""
    out = list(items)
    draw = rng.random
    for i in range(len(out) - 1, 0, -1):
        j = int(draw() * (i + 1))  # below(rng, i + 1), inlined: the same draw, one call fewer per element
        if j > i:
            j = i
        out[i], out[j] = out[j], out[i]
    return out


def lazily_shuffled(rng: random.Random, items: Sequence[T]) -> Iterator[T]:
    """A Fisher-Yates shuffle of a copy of `items`, run from the front and handed out as it goes: each prefix has the
    law of a whole shuffle's, and a consumer that stops after k items has spent k draws, not len(items)."""
    out = list(items)
    n = len(out)
    draw = rng.random
    for i in range(n):
        j = i + int(draw() * (n - i))
        if j >= n:
            j = n - 1
        out[i], out[j] = out[j], out[i]
        yield out[i]


def sample(rng: random.Random, items: Sequence[T], k: int) -> list[T]:
    """k items (all where fewer) drawn without replacement, in the order drawn: the first k of `lazily_shuffled`, so
    the law of shuffled(...)[:k] with k draws (the same draws and items, without the generator: this runs in every
    decoy's draw, most often for one item)."""
    n = len(items)
    if k == 1 and n:  # lazily_shuffled's first step is a pick: no copy
        return [pick(rng, items)]
    if k < 0:
        raise ValueError(f"k={k} must be at least 0")
    out = list(items)
    draw = rng.random
    for i in range(min(k, n)):
        j = i + int(draw() * (n - i))
        if j >= n:
            j = n - 1
        out[i], out[j] = out[j], out[i]
    return out[:k]
