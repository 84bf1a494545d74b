"""The one walker of the relation-step language (relations.relations().steps, reading.reader_paths()).

A relation is a sequence of steps (op, arg): a move to the people a list names (TO_PARENT, TO_CHILD, TO_FRIEND, and
the reader's TO_SIBLING, TO_SPOUSE), a gender test (IS_FEMALE, IS_MALE) or NOT_NODE (the path's end is not its
`arg`-th person). The kinship solver, the lenient reader and the rule (required.py) read the same steps over
different facts, so each gives a `StepReader`: a source of neighbours per move op and a gender reader. Whether the
gender is "told" (given by the sentence that reached the person, as "mother" tells it) depends only on the step
position, never on the path, so it is worked out per step from `told_by`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from .relations import IS_FEMALE, IS_MALE, NOT_NODE

Path = tuple[int, ...]
_TESTS = frozenset({NOT_NODE, IS_FEMALE, IS_MALE})  # the steps that test a path's end rather than move it
Step = tuple[int, int]


@dataclass(frozen=True)
class StepReader:
    """How one set of facts reads a step: the neighbours of a person per move op, and a person's gender."""

    moves: Mapping[int, Callable[[int], Iterable[int]]]  # op -> person -> the people that step reaches
    gender: Callable[[bool], Callable[[int], object]]  # told -> person -> their gender value
    female: object = "female"  # the gender values the gender reader gives
    male: object = "male"
    told_by: frozenset[int] = frozenset()  # moves whose sentence tells the reached person's gender


def advance(reader: StepReader, paths: list[Path], step: Step, told: bool = False) -> list[Path]:
    """The paths after one step; `told`: whether the last move of these paths told their end's gender."""
    op, arg = step
    if op == NOT_NODE:
        return [path for path in paths if path[-1] != path[arg]]
    if op == IS_FEMALE or op == IS_MALE:
        gender, wanted = reader.gender(told), reader.female if op == IS_FEMALE else reader.male
        return [path for path in paths if gender(path[-1]) == wanted]
    move = reader.moves[op]
    return [path + (y,) for path in paths for y in move(path[-1])]


def walk(reader: StepReader, steps: Sequence[Step], start: int) -> list[Path]:
    """Every path of the steps from `start` (each a tuple of the people it moves through), in the order read. A move
    followed by the test of whom it reaches is taken by one call (`_moved`): the same paths, the same calls in the same
    order."""
    paths: list[Path] = [(start,)]
    told = False
    moves, told_by = reader.moves, reader.told_by
    at, end = 0, len(steps)
    while at < end:
        step = steps[at]
        move = moves.get(step[0])
        if move is None:
            paths = advance(reader, paths, step, told)
            at += 1
        else:
            told = step[0] in told_by
            test = steps[at + 1] if at + 1 < end and steps[at + 1][0] in _TESTS else None
            paths = _moved(reader, paths, move, test, told)
            at += 1 if test is None else 2
        if not paths:
            break
    return paths


def _moved(
    reader: StepReader, paths: list[Path], move: Callable[[int], Iterable[int]], test: Step | None, told: bool
) -> list[Path]:
    """The paths after one move and then the test `test` (NOT_NODE or a gender; None: none) of whom it reaches."""
    if test is None:
        return [path + (y,) for path in paths for y in move(path[-1])]
    op, arg = test
    if op == NOT_NODE:
        return [longer for path in paths for y in move(path[-1]) if (longer := path + (y,))[arg] != y]
    moved = [path + (y,) for path in paths for y in move(path[-1])]
    if not moved:  # as a walk stops: the gender reader is not asked
        return moved
    gender, wanted = reader.gender(told), reader.female if op == IS_FEMALE else reader.male
    return [path for path in moved if gender(path[-1]) == wanted]
