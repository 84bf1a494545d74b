"""The fast paths of generation give exactly what their plain definitions give: the same values, the same random
numbers drawn in the same order, the same calls (issue 35: faster, not one byte of a row changed)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from leakproof_qa.builders.phantomwiki.kinship import _facts
from leakproof_qa.builders.phantomwiki.paths import StepReader, advance, walk
from leakproof_qa.builders.phantomwiki.reading import TO_SIBLING, TO_SPOUSE, reader_paths
from leakproof_qa.builders.phantomwiki.relations import IS_FEMALE, IS_MALE, TO_CHILD, TO_FRIEND, TO_PARENT, relations
from leakproof_qa.builders.rng import below, shuffled, stream
from tests.phantomwiki.pw_universes import generated


def plain_walk(reader: StepReader, steps: Sequence[tuple[int, int]], start: int) -> list[tuple[int, ...]]:
    """The walker's definition: one `advance` a step, `told` from the last move, stopping where no path is left."""
    paths: list[tuple[int, ...]] = [(start,)]
    told = False
    for step in steps:
        paths = advance(reader, paths, step, told)
        if not paths:
            break
        if step[0] in reader.moves:
            told = step[0] in reader.told_by
    return paths


def logging_reader(log: list[tuple]) -> StepReader:
    """A reader over n100_s1's universe that logs every call it answers, in order."""
    universe = generated("n100_s1").universe
    siblings = {p: sorted({c for q in universe.parents[p] for c in universe.children[q]} - {p}) for p in range(100)}
    spouses = {p: sorted({q for c in universe.children[p] for q in universe.parents[c]} - {p}) for p in range(100)}
    tables = {
        TO_PARENT: universe.parents,
        TO_CHILD: universe.children,
        TO_FRIEND: universe.friends,
        TO_SIBLING: siblings,
        TO_SPOUSE: spouses,
    }

    def mover(op: int):
        def move(person: int) -> list[int]:
            log.append(("move", op, person))
            return list(tables[op][person])

        return move

    def gender(told: bool):
        log.append(("gender reader", told))

        def read(person: int) -> str:
            log.append(("gender", told, person))
            return universe.gender(person)

        return read

    return StepReader({op: mover(op) for op in tables}, gender, told_by=frozenset({TO_PARENT, TO_CHILD}))


@pytest.mark.parametrize("paths", ["relations", "reader"])
def test_the_walk_finds_the_paths_and_makes_the_calls_of_a_step_by_step_walk(paths):
    table = {name: rel.steps for name, rel in relations().items()} if paths == "relations" else reader_paths()
    for name, steps in table.items():
        for start in range(100):
            fast_log: list[tuple] = []
            plain_log: list[tuple] = []
            fast = walk(logging_reader(fast_log), steps, start)
            assert fast == plain_walk(logging_reader(plain_log), steps, start), (name, start)
            assert fast_log == plain_log, (name, start)


def test_a_shuffle_is_the_fisher_yates_shuffle_drawn_with_below():
    for size in (0, 1, 2, 3, 7, 40):
        items = list(range(size))
        fast_rng, plain_rng = stream(3, "shuffle", size), stream(3, "shuffle", size)
        for _ in range(50):
            plain = list(items)
            for i in range(len(plain) - 1, 0, -1):
                j = below(plain_rng, i + 1)
                plain[i], plain[j] = plain[j], plain[i]
            assert shuffled(fast_rng, items) == plain
        assert fast_rng.random() == plain_rng.random()  # as many numbers drawn


def test_a_derivations_facts_are_its_moves_and_gender_tests_in_step_order():
    universe = generated("n100_s1").universe
    kinship_steps = {name: rel.steps for name, rel in relations().items()}
    reader = StepReader(
        {op: table.__getitem__ for op, table in ((0, universe.parents), (1, universe.children), (2, universe.friends))},
        lambda told: universe.female.__getitem__,
        female=1,
        male=0,
    )
    for name, steps in kinship_steps.items():
        for start in range(100):
            for path in walk(reader, steps, start):
                plain: list[tuple] = []
                at = 0
                for op, _ in steps:
                    if op == TO_PARENT:
                        plain.append(("parent", path[at], path[at + 1]))
                    elif op == TO_CHILD:
                        plain.append(("parent", path[at + 1], path[at]))
                    elif op == TO_FRIEND:
                        plain.append(("friend", min(path[at : at + 2]), max(path[at : at + 2])))
                    elif op in (IS_FEMALE, IS_MALE):
                        plain.append(("gender", path[at]))
                    at += op in (TO_PARENT, TO_CHILD, TO_FRIEND)
                assert _facts(steps, path) == tuple(plain), (name, path)
