"""Document order for lm-eval tasks: seeded, such that any prefix (`--limit N`) mixes answerable and must-deflect
rows, and such that no position tells a row's label.

lm_eval's `--limit N` evaluates the first N documents. Rows grouped by question, or all answerable rows first, would
give a prefix with one side only, and ADTScore and the unified score would be undefined; a fixed period (an
answerable row every k rows, row 0 always answerable) would tell the label by position. Here each side is shuffled
with its own seeded stream; the order opens with one row of each side, in a seeded order (so a prefix of two holds
both: `--limit 2` has an ADTScore); the rest is cut into blocks of about BLOCK rows, each block gets its
proportional share of each side, rounded up, and the rows of a block sit at seeded random positions within it. So
every prefix holds both sides in about the overall proportion, and the label of the row at any position is a draw
in that proportion (the first two rows are half and half, the first block a little richer in the rarer side).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from leakproof_qa.builders.rng import shuffled, stream

T = TypeVar("T")
BLOCK = 8


def interleaved(rows: Sequence[T], answerable: Callable[[T], bool], seed: int, label: str) -> list[T]:
    """`rows` with each side shuffled (seeded by `seed` and `label`): one row of each side first, in a seeded order,
    then the rest dealt into blocks of about BLOCK rows in proportion, each block in a seeded order."""
    sides = [[row for row in rows if answerable(row)], [row for row in rows if not answerable(row)]]
    sides = [shuffled(stream(seed, "lm-eval order", label, side), part) for side, part in enumerate(sides)]
    placement = stream(seed, "lm-eval placement", label)
    out = shuffled(placement, [part[0] for part in sides if part])
    rest = [part[1:] for part in sides]
    blocks = max(1, -(-sum(map(len, rest)) // BLOCK))
    for block in range(blocks):  # each side's share of the block: its rows from ceil(k * block / blocks) on
        dealt = [
            row
            for part in rest
            for row in part[-(-len(part) * block // blocks) : -(-len(part) * (block + 1) // blocks)]
        ]
        out += shuffled(placement, dealt)
    return out


def seeded_order(rows: Sequence[T], seed: int, label: str) -> list[T]:
    """`rows` in one seeded shuffle, so a prefix samples every template and difficulty rather than the first few."""
    return shuffled(stream(seed, "lm-eval order", label), rows)
