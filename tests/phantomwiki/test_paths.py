"""The one walker of the relation-step language (builders/phantomwiki/paths.py), on a family drawn by hand."""

from __future__ import annotations

from leakproof_qa.builders.phantomwiki.paths import StepReader, walk
from leakproof_qa.builders.phantomwiki.relations import IS_FEMALE, IS_MALE, NOT_NODE, TO_CHILD, TO_PARENT

# 0 and 1 are the parents of 2 and 3; 0, 3 are female.
PARENTS = {2: (0, 1), 3: (0, 1)}
CHILDREN = {0: (2, 3), 1: (2, 3)}
FEMALE = {0: "female", 1: "male", 2: "male", 3: "female"}


def reader(told_seen: list[bool] | None = None, told_by: frozenset[int] = frozenset()) -> StepReader:
    def gender(told: bool):
        if told_seen is not None:
            told_seen.append(told)
        return FEMALE.get

    moves = {TO_PARENT: lambda p: PARENTS.get(p, ()), TO_CHILD: lambda p: CHILDREN.get(p, ())}
    return StepReader(moves, gender, told_by=told_by)


def test_a_walk_moves_tests_genders_and_leaves_out_the_start():
    sister = ((TO_PARENT, 0), (TO_CHILD, 0), (NOT_NODE, 0), (IS_FEMALE, 0))
    assert walk(reader(), sister, 2) == [(2, 0, 3), (2, 1, 3)]  # one path per parent: a derivation each
    assert walk(reader(), ((TO_PARENT, 0), (IS_MALE, 0)), 3) == [(3, 1)]


def test_the_walk_stops_at_the_first_step_that_leaves_no_path():
    assert walk(reader(), ((TO_PARENT, 0), (TO_PARENT, 0), (IS_FEMALE, 0)), 2) == []


def test_told_is_whether_the_last_move_tells_the_gender_whatever_tests_came_between():
    seen: list[bool] = []
    steps = ((TO_PARENT, 0), (NOT_NODE, 0), (IS_FEMALE, 0))
    walk(reader(seen, told_by=frozenset({TO_PARENT})), steps, 2)
    walk(reader(seen), steps, 2)
    walk(reader(seen, told_by=frozenset({TO_PARENT})), ((IS_MALE, 0),), 2)  # before any move: read, not told
    assert seen == [True, False, False]
