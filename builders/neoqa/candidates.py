"""The multi-hop questions a generated timeline could ask: every pair of items chained through a bridge entity whose
answer is unique among the items up to the question's event. The question generator draws from them
(builders/neoqa/questions.py), and the options draw their decoys from them too (builders/neoqa/options.py): a decoy is
the answer of another question the timeline could ask, so the gold and the decoys are drawn alike."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from leakproof_qa.builders.neoqa.world import Entity, Fact, World, relations


@dataclass(frozen=True)
class MultiHop:
    """A multi-hop question's two items: `bridge` names B as its object, `answer` gives B's fact."""

    bridge: Fact
    answer: Fact

    @property
    def event(self) -> int:
        """The later event, as of which the question is asked."""
        return max(self.bridge.event, self.answer.event)


def item_counts(world: World) -> list[Counter[tuple[str, str]]]:
    """Per event, how many items up to it have each (subject, relation)."""
    counts: list[Counter[tuple[str, str]]] = []
    running: Counter[tuple[str, str]] = Counter()
    for event in range(len(world.dates)):
        running.update((fact.subject.id, fact.relation) for fact in world.event_facts(event))
        counts.append(running.copy())
    return counts


def answer_is_unique(world: World, question: MultiHop, counts: list[Counter[tuple[str, str]]] | None = None) -> bool:
    """True when, among the items up to the question's event, exactly one item has the bridge's subject and
    relation and exactly one has the bridge entity and the answer's relation: no other item answers
    (`counts`: item_counts(world), when already made)."""
    upto = (counts or item_counts(world))[question.event]
    return (
        upto[question.bridge.subject.id, question.bridge.relation] == 1
        and upto[question.answer.subject.id, question.answer.relation] == 1
    )


def multi_hop_candidates(world: World) -> list[MultiHop]:
    """Every pair of items chained through a bridge entity, in item order (none whose answer is the entity the
    question names: "whom did the organization that Ann joined appoint?" is not asked when it is Ann)."""
    catalog = relations()
    by_subject: dict[str, list[Fact]] = defaultdict(list)
    for fact in world.facts:
        by_subject[fact.subject.id].append(fact)
    return [
        MultiHop(bridge, answer)
        for bridge in world.facts
        if isinstance(bridge.obj, Entity) and catalog[bridge.relation]["noun"]
        for answer in by_subject[bridge.obj.id]
        if not (isinstance(answer.obj, Entity) and answer.obj.id == bridge.subject.id)
    ]


def unique_candidates(world: World) -> list[MultiHop]:
    """The candidates whose answer is unique as of their question's event, in item order (worked out once per world:
    the questions and every instance set's options ask)."""
    if "unique candidates" not in world.derived:
        counts = item_counts(world)
        world.derived["unique candidates"] = [
            hop for hop in multi_hop_candidates(world) if answer_is_unique(world, hop, counts)
        ]
    return list(world.derived["unique candidates"])
