"""Seeded draws: each hop picks a relative in proportion to its derivations, as v1 samples questions; draws without
replacement (rng.sample, rng.lazily_shuffled) have the law of a whole shuffle with fewer draws."""

from __future__ import annotations

from collections import Counter

from leakproof_qa.builders.phantomwiki.questions import pick_by_derivations
from leakproof_qa.builders.rng import lazily_shuffled, sample, stream


def test_a_hop_is_picked_in_proportion_to_the_derivations_of_each_relative():
    choices = [("parent", 7, 1), ("sibling", 3, 2), ("wife", 9, 5)]
    rng = stream(1, "test")
    drawn = Counter(pick_by_derivations(rng, choices) for _ in range(8000))
    assert set(drawn) == {("parent", 7), ("sibling", 3), ("wife", 9)}
    assert abs(drawn["parent", 7] / 8000 - 1 / 8) < 0.02
    assert abs(drawn["sibling", 3] / 8000 - 2 / 8) < 0.02
    assert abs(drawn["wife", 9] / 8000 - 5 / 8) < 0.02


def test_the_choices_of_a_hop_are_each_relations_derivations_in_bank_order():
    """`choices` walks shared path prefixes once; it must equal asking every relation of the bank in turn."""
    from leakproof_qa.builders.phantomwiki.kinship import Kinship
    from leakproof_qa.builders.phantomwiki.relations import relation_bank
    from tests.phantomwiki.pw_universes import generated

    universe = generated("n500_s2").universe
    for easy in (False, True):
        bank, kinship = relation_bank(easy), Kinship(universe)
        for person in range(len(universe)):
            expected = [(rel, y, count) for rel in bank for y, count in kinship.derivations(rel, person)]
            assert kinship.choices(person, bank) == expected, (easy, person)


def test_a_sample_and_a_lazy_shuffle_draw_as_a_whole_shuffle_does_with_fewer_draws():
    rng = stream(2, "test")
    items = ["a", "b", "c", "d", "e"]
    firsts = Counter(sample(rng, items, 2)[0] for _ in range(5000))
    seconds = Counter(sample(rng, items, 2)[1] for _ in range(5000))
    assert all(800 < firsts[item] < 1200 and 800 < seconds[item] < 1200 for item in items)  # each alike, anywhere
    assert all(len(set(sample(rng, items, 3))) == 3 for _ in range(100)) and sample(rng, items, 9) != []
    assert sorted(sample(rng, items, 9)) == items  # all where fewer than asked
    assert sorted(lazily_shuffled(rng, items)) == items
    counting = _Counting(stream(3, "test"))
    sample(counting, list(range(1000)), 3)  # type: ignore[arg-type]
    assert counting.draws == 3


class _Counting:
    """A stream that counts its draws."""

    def __init__(self, rng) -> None:
        self.rng, self.draws = rng, 0

    def random(self) -> float:
        self.draws += 1
        return self.rng.random()


def test_a_sample_is_the_first_k_of_a_lazy_shuffle_of_the_same_stream():
    """`sample` is written out for speed; it must hand out the very items, from the very draws, of the shuffle."""
    items = [f"n{i}" for i in range(7)]
    for k in range(0, 10):
        for seed in range(20):
            lazy, drawn = stream(seed, "lazy"), stream(seed, "lazy")
            expected = [item for _, item in zip(range(k), lazily_shuffled(lazy, items))]
            assert sample(drawn, items, k) == expected, (k, seed)
            assert drawn.random() == lazy.random(), (k, seed)  # as many draws spent
