"""Questions are sampled as v1 samples them: each hop picks a relative in proportion to its derivations."""

from __future__ import annotations

from collections import Counter

from leakproof_qa.builders.phantomwiki.questions import pick_by_derivations
from leakproof_qa.builders.rng import stream


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
