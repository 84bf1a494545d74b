"""A generated timeline's world: its genre, its cast of fictional entities with their records, its dated events, the
entities each event is about, and the events' outline items.

An outline item is one atomic fact: a subject entity, a relation (builders/neoqa/data/templates.json), an object (an
entity or a value: an amount of money, a count, a percentage, a quantity with its unit, a post, a quote), the day it
happened and, for some relations, a place (or, for a post, the organization). Each event is about a few entities (its
focus), half of them carried over from the event before, so facts chain through bridge entities across events; values
fit their entity (a coffee blend's price is not a delivery van's). Every draw comes from the timeline's own seeded
stream (builders/rng.py), and values are drawn with integer arithmetic only, so they are the same on every machine.
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
FIRST_DAY = datetime.date(2025, 1, 6)
STARTS_WITHIN = 730
"""A timeline starts on one of the 730 days from FIRST_DAY."""
GAP_DAYS = (4, 26)
"""Days between two events: at least 4, below 26."""
FOCUS = 7
"""How many entities an event is about; about half of them were in the event before."""
IN_FOCUS = 0.85
"""How often an item's subject, and an entity object, is one the event is about (when it has one of that kind)."""
PLACE_SHARE = 1 / 2
"""How often an item whose relation takes a place states one: the place-worded controls (stated) and
uncertain-specificity variants (not stated) come in equal numbers."""
MANTISSAS = (10, 11, 12, 13, 15, 16, 18, 20, 22, 24, 27, 30, 33, 36, 39, 43, 47, 51, 56, 62, 68, 75, 82, 91)
"""Two-digit values spread evenly on a log scale (the E24 series): amounts and counts are one of these times a power
of ten, as a reporter rounds them."""


@cache
def data(name: str) -> dict[str, Any]:
    """One of the generator's data files (builders/neoqa/data/NAME.json)."""
    return json.loads((resources.files("leakproof_qa.builders.neoqa") / "data" / f"{name}.json").read_text())


def relations() -> dict[str, dict[str, Any]]:
    """The relation catalog: per relation its types, wordings, question phrases and how its values are drawn."""
    return data("templates")["relations"]


@dataclass(frozen=True)
class Entity:
    """A fictional named entity of one timeline."""

    id: str  # e.g. PERSON-3
    name: str
    kind: str  # one of ENTITY_KINDS
    sort: str = ""  # the kind of organization, product or event ("Coffee Blend"): what its values fit

    def marked(self) -> str:
        """The name with the release's entity markup, {Name|TYPE-n}."""
        return "{" + self.name + "|" + self.id + "}"


@dataclass(frozen=True)
class Fact:
    """One outline item: subject, relation, object, the day it happened, maybe a place, and a post's organization."""

    item_id: str  # N{event}-S{pos}
    event: int
    pos: int
    relation: str
    subject: Entity
    obj: Entity | str  # a value for literal relations
    day: datetime.date
    place: Entity | None = None
    at: Entity | None = None  # the organization of a post (named_role)

    def entities(self) -> list[Entity]:
        """The entities the item names, in order."""
        named = [self.subject]
        if isinstance(self.obj, Entity):
            named.append(self.obj)
        if self.at is not None:
            named.append(self.at)
        if self.place is not None:
            named.append(self.place)
        return named

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
    records: dict[str, dict[str, Any]]  # entity id -> its record's fields (born, profession, ...)
    dates: list[datetime.date]
    focus: list[list[Entity]] = field(default_factory=list)  # per event, the entities it is about
    facts: list[Fact] = field(default_factory=list)
    derived: dict[str, Any] = field(default_factory=dict)  # what later stages work out from the facts, kept once

    @cached_property
    def timeline_id(self) -> str:
        """The release-style timeline id, e.g. sports:2:17 (genre, event type, timeline number); made once, every
        record names it."""
        return f"{self.genre['genre_id']}:{self.event_type}:{self.index}"

    @cached_property
    def by_event(self) -> list[list[Fact]]:
        """The outline items of each event, in order (made once the world is drawn)."""
        events: list[list[Fact]] = [[] for _ in self.dates]
        for fact in self.facts:
            events[fact.event].append(fact)
        return events

    def event_facts(self, event: int) -> list[Fact]:
        """The outline items of one event, in order."""
        return self.by_event[event]


# ------------------------------------------------------------------ the cast


def _sorts(genre: dict[str, Any], kind: str) -> list[Any]:
    return {"organization": genre["org_kinds"], "product": genre["product_kinds"], "event": genre["event_kinds"]}.get(
        kind, [""]
    )


def _sort_name(sort: Any) -> str:
    return sort["name"] if isinstance(sort, dict) else sort


def entity_name(rng: Any, kind: str, sort: str) -> str:
    """A name for a new entity of `kind` (and `sort`: the kind of organization, product or event)."""
    words = data("world")
    if kind == "person":
        return f"{pick(rng, words['first_names'])} {pick(rng, words['last_names'])}"
    if kind == "location":
        return pick(rng, words["place_starts"]) + pick(rng, words["place_ends"])
    if kind == "organization":
        return f"{pick(rng, words['org_words'])} {sort}"
    if kind == "product":
        return f"{pick(rng, words['product_words'])} {sort}"
    return f"{pick(rng, words['place_starts'])} {sort}"


def _record(rng: Any, entity: Entity, genre: dict[str, Any], towns: list[Entity]) -> dict[str, Any]:
    """An entity's record, as the paper's knowledge base holds one: a person's birth date, profession and
    nationality, an organization's kind, founding year and first home, a product's or an event's kind."""
    words = data("world")
    if entity.kind == "person":
        first, last = words["born_years"]
        born = datetime.date(first, 1, 1) + datetime.timedelta(days=below(rng, 365 * (last - first)))
        profession, nationality = pick(rng, genre["professions"]), pick(rng, words["nationalities"])
        return {
            "description": f"{entity.name} is a {nationality} {profession}.",
            "date_of_birth": born.isoformat(),
            "profession": profession,
            "nationality": nationality,
        }
    if entity.kind == "organization":
        first, last = words["founded_years"]
        founded, home = first + below(rng, last - first + 1), pick(rng, towns).name
        return {
            "description": f"{entity.name} is a {entity.sort.lower()} founded in {founded}, first based in {home}.",
            "founded": founded,
            "based_in": home,
            "kind": entity.sort,
        }
    if entity.kind == "location":
        return {"description": f"{entity.name} is a town in the {genre['category'].lower()} timeline's region."}
    return {"description": f"{entity.name} is a {entity.sort.lower()}.", "kind": entity.sort}


def draw_cast(rng: Any, genre: dict[str, Any]) -> dict[str, list[Entity]]:
    """The timeline's entities per kind, with names unique within the timeline."""
    taken: set[str] = set()
    cast: dict[str, list[Entity]] = {}
    for kind in ENTITY_KINDS:
        cast[kind] = []
        while len(cast[kind]) < data("world")["cast"][kind]:
            sort = _sort_name(pick(rng, _sorts(genre, kind)))
            name = entity_name(rng, kind, sort)
            if name not in taken:
                taken.add(name)
                cast[kind].append(Entity(f"{kind.upper()}-{len(cast[kind]) + 1}", name, kind, sort))
    return cast


# ------------------------------------------------------------------ values


@cache
def _nice(low: int, high: int) -> tuple[int, ...]:
    """The E24 values times powers of ten within [low, high] (whole numbers; kept: every amount and count of a
    timeline draws from a few ranges)."""
    values, scale = [], 1
    while scale <= max(high, 1):
        values += [m * scale for m in MANTISSAS if low <= m * scale <= high]
        scale *= 10
    return tuple(sorted(set(values)) or [max(low, 1)])


def money_text(cents: int) -> str:
    """An amount as a reporter writes it: $8.70, $12, $450,000, $4.2 million."""
    if cents >= 100_000_000:
        millions = cents / 100_000_000
        return f"${millions:g} million" if cents % 10_000_000 == 0 else f"${millions:.2f} million"
    dollars, rest = divmod(cents, 100)
    return f"${dollars:,}" if rest == 0 else f"${dollars:,}.{rest:02d}"


def _halves_text(halves: int) -> str:
    return f"{halves // 2}" if halves % 2 == 0 else f"{halves // 2}.5"


def _range(spec: dict[str, Any], subject: Entity, genre: dict[str, Any]) -> list[int]:
    if "range" in spec:
        return list(spec["range"])
    for sort in _sorts(genre, subject.kind):
        if isinstance(sort, dict) and sort["name"] == subject.sort:
            return list(sort[spec["by"]])
    raise ValueError(f"no {spec['by']} range for {subject.kind} {subject.sort!r} in genre {genre['genre_id']!r}")


def draw_value(rng: Any, spec: dict[str, Any], subject: Entity, genre: dict[str, Any]) -> str:
    """A value of a literal relation that fits its subject: an amount, a count, a percentage, a quantity, a post or a
    quote (spec: the relation's `value`)."""
    kind = spec["kind"]
    if kind == "money":
        low, high = _range(spec, subject, genre)
        return money_text(pick(rng, _nice(low * 100, high * 100)))
    if kind == "count":
        low, high = _range(spec, subject, genre)
        return f"{pick(rng, _nice(low, high)):,}"
    if kind == "percent":
        low, high = _range(spec, subject, genre)
        return _halves_text(2 * low + below(rng, 2 * (high - low) + 1)) + "%"
    if kind == "quantity":
        low, high = _range(spec, subject, genre)
        halves = int(2 * low) + below(rng, int(2 * (high - low)) + 1)
        unit = spec["unit"] if halves != 2 else spec["unit"][:-1]
        return f"{_halves_text(halves)} {unit}"
    if kind == "role":
        return str(pick(rng, genre["roles"]))
    quotes = data("world")["quotes"]
    said = pick(rng, quotes["openers"]) + pick(rng, quotes["clauses"])
    return said[0].upper() + said[1:]


# ------------------------------------------------------------------ events and items


def _focus(rng: Any, world: World, before: list[Entity]) -> list[Entity]:
    """The entities an event is about: about half of the event before's, the rest drawn from the cast."""
    everyone = [entity for kind in ENTITY_KINDS for entity in world.cast[kind]]
    kept = [entity for entity in before if rng.random() < 0.5]
    while len(kept) < FOCUS:
        entity = pick(rng, everyone)
        if entity not in kept:
            kept.append(entity)
    return kept


def _one_of(rng: Any, world: World, kind: str, focus: list[Entity], other_than: Entity | None = None) -> Entity:
    """An entity of `kind`: one the event is about (IN_FOCUS of the time, when it has one), else any of the cast."""
    near = [e for e in focus if e.kind == kind and e is not other_than]
    if near and rng.random() < IN_FOCUS:
        return pick(rng, near)
    cast = world.cast[kind]
    return pick(rng, [e for e in cast if e is not other_than] if other_than in cast else cast)


def _fact(rng: Any, world: World, event: int, pos: int, seen: set[tuple[str, str, str | int]]) -> Fact:
    catalog = relations()
    names = world.genre["relations"]
    focus = world.focus[event]
    while True:
        relation = pick(rng, names)
        spec = catalog[relation]
        subject = _one_of(rng, world, spec["subject"], focus)
        if (subject.id, relation, "") in seen or (subject.id, relation, event) in seen:
            continue  # a subject has one fact of a relation per event, and of a `once` relation per timeline
        at = None
        if spec["object"] in ENTITY_KINDS:
            obj: Entity | str = _one_of(rng, world, spec["object"], focus, other_than=subject)
        else:
            obj = draw_value(rng, spec["value"], subject, world.genre)
            if spec["value"]["kind"] == "role":
                at = _one_of(rng, world, "organization", focus)
        key = (subject.id, relation, obj.id if isinstance(obj, Entity) else obj)
        if key not in seen:
            break
    seen.update((key, (subject.id, relation, event)))
    if spec["once"]:
        seen.add((subject.id, relation, ""))
    gap = (world.dates[event] - world.dates[event - 1]).days if event else GAP_DAYS[0]
    day = world.dates[event] - datetime.timedelta(days=below(rng, min(gap, 6)))
    place = None
    if spec["places"] and rng.random() < PLACE_SHARE:
        place = pick(rng, [e for e in world.cast["location"] if e is not obj])
    return Fact(f"N{event}-S{pos}", event, pos, relation, subject, obj, day, place, at)


def draw_world(seed: int, index: int, events: int, items_per_event: int) -> World:
    """Timeline `index` of the configuration with `seed`: genre, cast and records, event dates, each event's focus and
    outline items (each event `items_per_event` items, give or take a sixth)."""
    rng = stream(seed, "neoqa", "world", index)
    genre = pick(rng, data("world")["genres"])
    event_type = below(rng, len(genre["event_types"]))
    first = FIRST_DAY + datetime.timedelta(days=below(rng, STARTS_WITHIN))
    dates = [first]
    for _ in range(events - 1):
        dates.append(dates[-1] + datetime.timedelta(days=GAP_DAYS[0] + below(rng, GAP_DAYS[1] - GAP_DAYS[0])))
    cast = draw_cast(rng, genre)
    records = {e.id: _record(rng, e, genre, cast["location"]) for kind in ENTITY_KINDS for e in cast[kind]}
    world = World(index, genre, event_type, cast, records, dates)
    seen: set[tuple[str, str, str | int]] = set()
    spread = items_per_event // 6
    for event in range(events):
        world.focus.append(_focus(rng, world, world.focus[-1] if world.focus else []))
        for pos in range(items_per_event - spread + below(rng, 2 * spread + 1)):
            world.facts.append(_fact(rng, world, event, pos, seen))
    return world
