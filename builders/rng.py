"""Seeded random streams that give the same numbers on every machine and Python version.

Only `random.Random.random()` is used for draws: it is the one method whose output Python
guarantees across versions (seeding from an int is stable too).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def stream(seed: int, *labels: object) -> random.Random:
    """An independent generator for one stage of one configuration, e.g. stream(1, "family")."""
    text = ":".join(str(part) for part in (seed, *labels))
    return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest()[:16], "big"))


def below(rng: random.Random, n: int) -> int:
    """A uniform integer in [0, n)."""
    return min(int(rng.random() * n), n - 1)


def pick(rng: random.Random, items: Sequence[T]) -> T:
    """A uniform element of a non-empty sequence."""
    return items[below(rng, len(items))]


def shuffled(rng: random.Random, items: Sequence[T]) -> list[T]:
    """A Fisher-Yates shuffle of a copy of `items`."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = below(rng, i + 1)
        out[i], out[j] = out[j], out[i]
    return out
