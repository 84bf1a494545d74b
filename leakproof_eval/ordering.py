"""Document order for lm-eval tasks: seeded, and such that any prefix (`--limit N`) mixes answerable and
must-deflect rows.

lm_eval's `--limit N` evaluates the first N documents. Rows grouped by question, or all answerable rows
first, would give a prefix with one side only, and ADTScore and the unified score would be undefined.
Here each side is shuffled with its own seeded stream and the two are merged proportionally: the k-th
row of a side of size S sits at fraction k / S of the whole order, the answerable side first on ties.
So every prefix of two or more rows holds both sides, in about the overall proportion.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TypeVar

from builders.rng import shuffled, stream

T = TypeVar("T")


def interleaved(rows: Sequence[T], answerable: Callable[[T], bool], seed: int, label: str) -> list[T]:
    """`rows` with each side shuffled (seeded by `seed` and `label`) and the sides merged in proportion."""
    sides = [[row for row in rows if answerable(row)], [row for row in rows if not answerable(row)]]
    sides = [shuffled(stream(seed, "lm-eval order", label, side), part) for side, part in enumerate(sides)]
    slots = [(Fraction(k, len(part)), side, k) for side, part in enumerate(sides) for k in range(len(part))]
    return [sides[side][k] for _, side, k in sorted(slots)]


def seeded_order(rows: Sequence[T], seed: int, label: str) -> list[T]:
    """`rows` in one seeded shuffle, so a prefix samples every template and difficulty rather than the first few."""
    return shuffled(stream(seed, "lm-eval order", label), rows)
