"""A generated world as the release's timeline record: events with dated outline items, and per event a snapshot of
every entity known so far, whose knowledge base (`kb`: the latest object of each relation) changes as events unfold.
"""

from __future__ import annotations

import bisect
from typing import Any

from leakproof_qa.builders.neoqa.articles import sentence
from leakproof_qa.builders.neoqa.world import Entity, Fact, World, data


def _listed_order(entity: Entity) -> tuple[str, int]:
    """Where a snapshot lists an entity: by kind, then number."""
    return entity.kind, int(entity.id.split("-")[1])


class _Known:
    """The entities known so far, each one's history and knowledge base (`kb`: the latest object of each relation
    it is the subject of), grown event by event. A snapshot holds each entity as it stands after its event; an
    entity no item of the event names is the same object as in the snapshot before (records are never changed
    once made, so the timeline's entries are made once, not once per snapshot, and the validator checks each once)."""

    def __init__(self, world: World) -> None:
        """Nothing known yet."""
        self.world = world
        self.entities: dict[str, Entity] = {}
        self.history: dict[str, list[dict[str, Any]]] = {}
        self.kb: dict[str, dict[str, str]] = {}
        self.records: dict[str, dict[str, Any]] = {}  # entity id -> its record (description, born, ...)
        self.order: list[Entity] = []  # the known entities by kind, then number: the order a snapshot lists them
        self.shown: dict[str, dict[str, Any]] = {}  # entity id -> its snapshot entry, as of the last item naming it
        self.changed: dict[str, None] = {}  # ids of the entities an item named since the last snapshot, in order

    def add(self, fact: Fact, update: str) -> None:
        """Record one item: each entity it names becomes known, with the item in its history (one entry, shared by
        their histories), and the item's object in its subject's knowledge base."""
        entry = {"created_at": fact.event, "event_update": update, "date": fact.day.isoformat()}
        for entity in fact.entities():
            if entity.id not in self.entities:
                self.entities[entity.id] = entity
                self.records[entity.id] = self.world.records[entity.id]
                self.history[entity.id] = []
                bisect.insort(self.order, entity, key=_listed_order)
            self.history[entity.id].append(entry)
            self.changed[entity.id] = None
        self.kb.setdefault(fact.subject.id, {})[fact.relation] = fact.object_text()

    def _entry(self, entity: Entity) -> dict[str, Any]:
        """The entity as a snapshot lists it, with its history and knowledge base so far."""
        return {
            "id": entity.id,
            "name": entity.name,
            "entity_class": entity.kind,
            **self.records[entity.id],
            "history": list(self.history[entity.id]),
            "kb": dict(sorted(self.kb.get(entity.id, {}).items())),
        }

    def snapshot(self, event: int) -> dict[str, Any]:
        """The entities known after `event`, grouped by type as released, each with its history and knowledge
        base."""
        for entity_id in self.changed:
            self.shown[entity_id] = self._entry(self.entities[entity_id])
        self.changed.clear()
        grouped: dict[str, list[dict[str, Any]]] = {kind: [] for kind in data("world")["cast"]}
        for entity in self.order:
            grouped[entity.kind].append(self.shown[entity.id])
        return {
            "created_at": event,
            "for_event": f"{self.world.timeline_id}:E{event}",
            "date": self.world.dates[event].isoformat(),
            "named_entities": grouped,
        }


def timeline_record(world: World) -> dict[str, Any]:
    """The release's timeline record for a generated world."""
    genre = world.genre
    events: list[dict[str, Any]] = []
    snapshots: list[dict[str, Any]] = []
    seen: set[str] = set()
    outline = {fact.item_id: sentence(fact) for fact in world.facts}
    known = _Known(world)
    for event, day in enumerate(world.dates):
        facts = world.event_facts(event)
        named = list(dict.fromkeys(entity.id for fact in facts for entity in fact.entities()))  # first mentions
        used: list[dict[str, Any]] = [{"id": entity_id, "new": entity_id not in seen} for entity_id in named]
        seen.update(named)
        for fact in facts:
            known.add(fact, sentence(fact, marked=False))  # history in plain text
        events.append(
            {
                "event_id": f"{world.timeline_id}:E{event}",
                "created_at": event,
                "date": day.isoformat(),
                "initial_summary": f"{genre['event_types'][world.event_type]}, part {event + 1}: developments "
                f"involving {world.focus[event][0].marked()} and {world.focus[event][1].marked()}.",
                "used_named_entities": used,
                "outline": [{"sentence": outline[fact.item_id], "id": fact.item_id, "pos": fact.pos} for fact in facts],
            }
        )
        snapshots.append(known.snapshot(event))
    return {
        "timeline_id": world.timeline_id,
        "genre": {"category": genre["category"], "genre_id": genre["genre_id"]},
        "event_type": {
            "category": genre["event_types"][world.event_type],
            "event_type_id": f"{genre['genre_id']}:{world.event_type}",
        },
        "initial_summary": f"A fictional {genre['category'].lower()} storyline: "
        f"{genre['event_types'][world.event_type].lower()}.",
        "events": events,
        "named_entity_snapshots": snapshots,
    }
