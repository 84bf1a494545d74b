"""A generated timeline's world: its genre, its cast of fictional entities, its dated events and their outline items.

An outline item is one atomic fact: a subject entity, a relation (builders/neoqa/data/templates.json), an object
(an entity, an amount of money or a count), the day it happened and, for some relations, the place. Subjects are
drawn first from the entities the current or the previous event brought in, so facts chain through bridge
entities across events. Every draw comes from the timeline's own seeded stream (builders/rng.py).
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources
from typing import Any

from leakproof_qa.builders.rng import below, pick, stream

ENTITY_KINDS = ("person", "organization", "location", "product", "event")
LITERAL_KINDS = ("money", "count")
FIRST_DAY = datetime.date(2025, 1, 6)
STARTS_WITHIN = 730
"""A timeline starts on one of the 730 days from FIRST_DAY."""
GAP_DAYS = (4, 26)
"""Days between two events: at least 4, below 26."""
CHAIN = 0.6
"""How often a subject is drawn from the entities of the current or the previous event (when there is one)."""
PLACE_SHARE = 1 / 2
"""How often an item whose relation takes a place states one: the place-worded controls (stated) and
uncertain-specificity variants (not stated) come in equal numbers."""


@cache
def data(name: str) -> dict[str, Any]:
    """One of the generator's data files (builders/neoqa/data/NAME.json)."""
    return json.loads((resources.files("leakproof_qa.builders.neoqa") / "data" / f"{name}.json").read_text())


@dataclass(frozen=True)
class Entity:
    """A fictional named entity of one timeline."""

    id: str  # e.g. PERSON-3
    name: str
    kind: str  # one of ENTITY_KINDS

    def marked(self) -> str:
        """The name with the release's entity markup, {Name|TYPE-n}."""
        return "{" + self.name + "|" + self.id + "}"


@dataclass(frozen=True)
class Fact:
    """One outline item: subject, relation, object, the day it happened and maybe the place."""

    item_id: str  # N{event}-S{pos}
    event: int
    pos: int
    relation: str
    subject: Entity
    obj: Entity | str  # a literal for money and counts
    day: datetime.date
    place: Entity | None = None

    def entities(self) -> list[Entity]:
        """The entities the item names, in order."""
        named = [self.subject] + ([self.obj] if isinstance(self.obj, Entity) else [])
        return named + ([self.place] if self.place else [])

    def object_text(self) -> str:
        """The object as plain text."""
        return self.obj.name if isinstance(self.obj, Entity) else self.obj


@dataclass
class World:
    """One timeline's world."""

    index: int
    genre: dict[str, Any]
    event_type: int
    cast: dict[str, list[Entity]]
    dates: list[datetime.date]
    facts: list[Fact] = field(default_factory=list)

    @cached_property
    def timeline_id(self) -> str:
        """The release-style timeline id, e.g. sports:2:17 (genre, event type, timeline number); made once, every
        record names it."""
        return f"{self.genre['genre_id']}:{self.event_type}:{self.index}"

    def event_facts(self, event: int) -> list[Fact]:
        """The outline items of one event, in order."""
        return [fact for fact in self.facts if fact.event == event]


def entity_name(rng: Any, kind: str, genre: dict[str, Any]) -> str:
    """A name for a new entity of `kind`, drawn from the word lists (and the genre's kinds of organisation, ...)."""
    words = data("world")
    if kind == "person":
        return f"{pick(rng, words['first_names'])} {pick(rng, words['last_names'])}"
    if kind == "location":
        return pick(rng, words["place_starts"]) + pick(rng, words["place_ends"])
    if kind == "organization":
        return f"{pick(rng, words['org_words'])} {pick(rng, genre['org_kinds'])}"
    if kind == "product":
        return f"{pick(rng, words['product_words'])} {pick(rng, genre['product_kinds'])}"
    return f"{pick(rng, words['place_starts'])} {pick(rng, genre['event_kinds'])}"


def draw_cast(rng: Any, genre: dict[str, Any]) -> dict[str, list[Entity]]:
    """The timeline's entities per kind, with names unique within the timeline."""
    taken: set[str] = set()
    cast: dict[str, list[Entity]] = {}
    for kind in ENTITY_KINDS:
        cast[kind] = []
        while len(cast[kind]) < data("world")["cast"][kind]:
            name = entity_name(rng, kind, genre)
            if name not in taken:
                taken.add(name)
                cast[kind].append(Entity(f"{kind.upper()}-{len(cast[kind]) + 1}", name, kind))
    return cast


def literal(rng: Any, kind: str) -> str:
    """An amount of money ("$450,000") or a count ("12,400") drawn from the ranges of world.json."""
    spec = data("world")[kind]
    value = spec["low"] + below(rng, (spec["high"] - spec["low"]) // spec["step"]) * spec["step"]
    return f"${value * spec['unit']:,}" if kind == "money" else f"{value:,}"


def _subject(rng: Any, world: World, kind: str, event: int) -> Entity:
    start = len(world.facts)  # facts are drawn event by event: those of this event and the one before end the list
    while start and world.facts[start - 1].event >= event - 1:
        start -= 1
    recent = [fact.obj for fact in world.facts[start:] if isinstance(fact.obj, Entity) and fact.obj.kind == kind]
    if recent and rng.random() < CHAIN:
        return pick(rng, recent)
    return pick(rng, world.cast[kind])


@cache
def _relation_names() -> list[str]:
    """The relations' names in order (the list a fact's relation is picked from)."""
    return sorted(data("templates")["relations"])


def _fact(rng: Any, world: World, event: int, pos: int, seen: set[tuple[str, str, str]]) -> Fact:
    relations = data("templates")["relations"]
    names = _relation_names()
    while True:
        relation = pick(rng, names)
        spec = relations[relation]
        subject = _subject(rng, world, spec["subject"], event)
        if spec["object"] in LITERAL_KINDS:
            obj: Entity | str = literal(rng, spec["object"])
        else:
            obj = pick(rng, [e for e in world.cast[spec["object"]] if e is not subject])  # a cast's are all unlike
        key = (subject.id, relation, obj.id if isinstance(obj, Entity) else obj)
        if key not in seen:
            break
    seen.add(key)
    gap = (world.dates[event] - world.dates[event - 1]).days if event else GAP_DAYS[0]
    day = world.dates[event] - datetime.timedelta(days=below(rng, min(gap, 6)))
    place = None
    if spec["places"] and rng.random() < PLACE_SHARE:
        place = pick(rng, [e for e in world.cast["location"] if e is not obj])
    return Fact(f"N{event}-S{pos}", event, pos, relation, subject, obj, day, place)


def draw_world(seed: int, index: int, events: int, items_per_event: int) -> World:
    """Timeline `index` of the configuration with `seed`: genre, cast, event dates and outline items."""
    rng = stream(seed, "neoqa", "world", index)
    genre = pick(rng, data("world")["genres"])
    event_type = below(rng, len(genre["event_types"]))
    first = FIRST_DAY + datetime.timedelta(days=below(rng, STARTS_WITHIN))
    dates = [first]
    for _ in range(events - 1):
        dates.append(dates[-1] + datetime.timedelta(days=GAP_DAYS[0] + below(rng, GAP_DAYS[1] - GAP_DAYS[0])))
    world = World(index, genre, event_type, draw_cast(rng, genre), dates)
    seen: set[tuple[str, str, str]] = set()
    for event in range(events):
        for pos in range(items_per_event):
            world.facts.append(_fact(rng, world, event, pos, seen))
    return world
