"""Answer options per row for generated NeoQA, made from what the row's documents state (spec/validity.md).

A decoy is the answer of a sibling question, stated in the row's documents, drawn as the gold answer is drawn:

* multi-hop, an entity answer: the answers of the other questions the timeline could ask so far with an answer of the
  same kind (builders/neoqa/candidates.py) whose answer fact the row states. The gold is such an answer, drawn from
  the same candidates by the question generator, so it is as much in the news as the decoys are: how often, how
  early and in how many articles the documents name an option tells nothing;
* multi-hop, a value (an amount, a count, a percentage, a quantity, a post, a quote): values of the answer's own
  relation (the same unit and range), nearest the named entity first (see Siblings.multi_hop);
* time-span: the same question with one of its facts changed for another of that fact's event or the next ones:
  spans about as long as the gold's, above and below it alike.

Draws go once per fact (or question) giving a value, as the gold is drawn. Where a row's documents state fewer
siblings than decoys wanted, it gets fewer options; every row of one question in one instance set gets the same
number (the fewest any of them has, at least one), so the number of options does not tell a row's label. The gold
answer is an option only where the row's documents state it (as the other options are); where they do not, one more
decoy takes its place. Number answers (days, money, counts, percentages, quantities) draw the gold's rank among the
options first, uniformly over every rank the row's values allow (rank_room), then the decoys below and above it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from leakproof_qa.builders.neoqa.candidates import unique_candidates
from leakproof_qa.builders.neoqa.world import ENTITY_KINDS, World, data, relations
from leakproof_qa.builders.rng import below, lazily_shuffled, shuffled

DECOYS = 5
"""Decoys wanted beside the gold answer: NeoQA's six options, and "Unanswerable"."""
MIN_SPAN = 2
"""The fewest days a time-span question asks about, and a time-span decoy shows (so all are written "N days")."""
ENOUGH = 4
"""The fewest distinct sibling answers for which a nearer kind of sibling is used rather than a further one."""
_NUMBER = re.compile(r"-?[0-9][0-9,]*(?:\.[0-9]+)?")


@lru_cache(maxsize=4096)
def days_text(n: int) -> str:
    """A span as the answers write it: "1 day", "17 days"."""
    templates = data("templates")
    return (templates["day"] if n == 1 else templates["days"]).format(n=n)


@lru_cache(maxsize=1 << 16)
def number_of(value: str) -> float:
    """The number a value states: "$4.2 million" -> 4200000, "12.5%" -> 12.5, "17 days" -> 17."""
    match = _NUMBER.search(value)
    if match is None:
        raise ValueError(f"{value!r} states no number")
    number = float(match.group().replace(",", ""))
    return number * 1_000_000 if value.endswith(" million") else number


@dataclass(frozen=True)
class Asked:
    """What options are made for: a multi-hop question (its named entity, answer relation and gold) or a time-span
    question (its two items and gold)."""

    kind: str  # "multi-hop" or "time-span"
    gold: str
    anchor: str = ""  # multi-hop: the id of the entity the question names
    relation: str = ""  # multi-hop: the answer's relation
    bridge_relation: str = ""  # multi-hop: the bridge's relation
    event: int = 0  # multi-hop: the question's event (its later fact's)
    items: tuple[str, ...] = ()  # time-span: the two items


class Siblings:
    """The sibling answers of a timeline's questions, over the facts a row's documents state."""

    def __init__(self, world: World) -> None:
        """Index the timeline's facts by the entities they name (as plain tuples: every row of every set asks)."""
        self.facts = {fact.item_id: fact for fact in world.facts}
        self.catalog = relations()
        self.named = {fact.item_id: tuple(dict.fromkeys(e.id for e in fact.entities())) for fact in world.facts}
        self.naming: dict[str, list[str]] = defaultdict(list)  # entity -> the items naming it, in order
        for item, entities in self.named.items():
            for entity in entities:
                self.naming[entity].append(item)
        self._like: dict[str, list[tuple[str, str, str, int, str]]] = {}
        self._values: dict[tuple[Asked, frozenset[str]], list[str]] = {}
        self.questions: dict[str, list[tuple[int, str, str]]] = defaultdict(list)  # entity kind -> (question event,
        # answer item, answer) of every question the timeline could ask with such an answer
        for hop in unique_candidates(world):
            kind = self.catalog[hop.answer.relation]["object"]
            if kind in ENTITY_KINDS:
                self.questions[kind].append((hop.event, hop.answer.item_id, hop.answer.object_text()))
        self.by_event: dict[int, list[str]] = defaultdict(list)  # event -> its items, in order
        for fact in world.facts:
            self.by_event[fact.event].append(fact.item_id)

    def like(self, key: str) -> list[tuple[str, str, str, int, str]]:
        """The timeline's facts of a relation, or whose object is an entity of a kind, as (item, subject id, object
        text, event, object id) (kept: every row asks)."""
        if key not in self._like:
            self._like[key] = [
                (f.item_id, f.subject.id, f.object_text(), f.event, getattr(f.obj, "id", ""))
                for f in self.facts.values()
                if f.relation == key or self.catalog[f.relation]["object"] == key
            ]
        return self._like[key]

    def _neighbours(self, entities: Collection[str], stated: Collection[str]) -> set[str]:
        """The entities sharing a stated fact with one of `entities`, and those."""
        near = set(entities)
        for entity in entities:
            for item in self.naming.get(entity, ()):
                if item in stated:
                    near.update(self.named[item])
        return near

    def multi_hop(self, asked: Asked, stated: Collection[str]) -> list[str]:
        """Sibling answers of a multi-hop question in the stated facts, the gold among them when stated so.

        An entity: the answers of every question the timeline could ask so far (builders/neoqa/candidates.py) with an
        answer of the gold's kind, whose answer fact the row states. The gold is one such answer, drawn as they are:
        chained through a bridge, unique as of its question, as much in the news; so how often and where the
        documents name an option tells nothing.

        A value (an amount, a count, a percentage, a quantity, a post, a quote): the values of the gold's relation
        (the same unit and range), once per fact giving them, from the nearest kind that gives ENOUGH distinct ones:
        1. of a fact whose subject is the named entity or shares a stated fact with it, one of the two facts of the
           question's event (as the gold's two facts are); 2. the same, of any event; 3. a step further from the named
           entity; 4. of any subject."""
        kind = self.catalog[asked.relation]["object"]
        anchor, event = asked.anchor, asked.event
        if kind in ENTITY_KINDS:
            values = [v for e, a, v in self.questions.get(kind, ()) if e <= event and a in stated]
            if values:
                return values
            return [  # none: every entity of its kind the stated facts name (a row with no answer fact in it)
                e.name
                for item in sorted(stated)
                if (fact := self.facts.get(item)) is not None
                for e in fact.entities()
                if e.kind == kind and e.id != anchor
            ]
        like = [f for f in self.like(asked.relation) if f[0] in stated and f[4] != anchor]
        linked: dict[str, int] = {anchor: event}  # entity -> the latest event of a stated fact linking it to S
        for item in self.naming.get(anchor, ()):
            if item in stated:
                when = self.facts[item].event
                for entity in self.named[item]:
                    if linked.get(entity, -1) < when:
                        linked[entity] = when
        values = [f[2] for f in like if f[1] in linked and event in (f[3], linked[f[1]]) and f[3] <= event]
        if len(set(values)) >= ENOUGH:
            return values
        values = [f[2] for f in like if f[1] in linked]
        if len(set(values)) >= ENOUGH:
            return values
        near = self._neighbours(linked, stated) if like else set()
        values = [f[2] for f in like if f[1] in near]
        return values if len(set(values)) > 2 else [f[2] for f in like]

    def time_span(self, asked: Asked, stated: Collection[str]) -> list[str]:
        """The answers of the same question with one of its facts changed for another fact, of that fact's event or
        an event next to it, that the row states, once per fact (the gold when both of its facts are stated; none
        shorter than MIN_SPAN, as no question asks of one): the days between the kept fact and the other one. So they
        are spans about as long as the gold's, give or take an event's gap, above and below it alike."""
        a, b = (self.facts[item] for item in asked.items)
        spans = [(b.day - a.day).days] if a.item_id in stated and b.item_id in stated else []
        for kept, changed in ((a, b), (b, a)):
            if kept.item_id not in stated:
                continue
            for item in (i for e in (changed.event - 1, changed.event, changed.event + 1) for i in self.by_event[e]):
                if item in stated and item not in asked.items:
                    days = abs((self.facts[item].day - kept.day).days)
                    if days >= MIN_SPAN:
                        spans.append(days)
        return [days_text(n) for n in spans]

    def values(self, asked: Asked, stated: Collection[str]) -> list[str]:
        """The sibling answers a row stating `stated` (item ids) offers, the gold among them when within reach (kept
        per question and stated items: a third of the rows of a timeline's sets state what another row states; the
        list is shared, not to be changed by the caller)."""
        key = (asked, frozenset(stated))
        made = self._values.get(key)
        if made is None:
            made = self._values[key] = (
                self.multi_hop(asked, stated) if asked.kind == "multi-hop" else self.time_span(asked, stated)
            )
        return made


def siblings_of(world: World) -> Siblings:
    """The world's Siblings, made once (the questions and every instance set ask)."""
    if "siblings" not in world.derived:
        world.derived["siblings"] = Siblings(world)
    return world.derived["siblings"]


def is_numeric(asked: Asked) -> bool:
    """True when the question's answers are numbers (days, money, counts, percentages, quantities)."""
    if asked.kind == "time-span":
        return True
    return relations()[asked.relation]["object"] not in ENTITY_KINDS + ("role", "quote")


def _distinct(rng: Any, values: Sequence[str], k: int) -> list[str]:
    """k distinct values drawn from `values` without replacement, each draw as likely as its copies are many."""
    chosen: dict[str, None] = {}
    for value in lazily_shuffled(rng, values) if k else ():
        chosen[value] = None
        if len(chosen) == k:
            break
    return list(chosen)


def draw_options(rng: Any, asked: Asked, values: Sequence[str], size: int) -> list[str]:
    """`size` distinct options from `values` (a row's sibling answers, once per fact giving them), the gold among them
    when it is one of `values`, in a seeded order; numbers with the gold's rank drawn first, uniformly over every rank
    (`size` is at most rank_room(asked, values), so each rank is possible), then the decoys below and above it."""
    has_gold = asked.gold in values
    decoys = [v for v in values if v != asked.gold]
    wanted = min(size - has_gold, len(set(decoys)))
    if not has_gold or not is_numeric(asked):
        chosen = ([asked.gold] if has_gold else []) + _distinct(rng, decoys, wanted)
        return shuffled(rng, chosen)
    gold = number_of(asked.gold)
    below_gold = [v for v in decoys if number_of(v) < gold]
    above_gold = [v for v in decoys if number_of(v) > gold]
    rank = below(rng, wanted + 1)  # how many decoys lie below the gold: each of 0 .. wanted alike
    if rank > len(set(below_gold)) or wanted - rank > len(set(above_gold)):
        raise ValueError(f"{size} options leave some rank of {asked.gold!r} impossible: take rank_room first")
    chosen = _distinct(rng, below_gold, rank) + [asked.gold] + _distinct(rng, above_gold, wanted - rank)
    return shuffled(rng, chosen)


def rank_room(asked: Asked, values: Sequence[str]) -> int:
    """The most options a row offering `values` can have with the gold at any rank alike: for a number answer among
    the values, one more than the fewer of the distinct values below and above it; otherwise no limit (NeoQA's
    six). Where the gold is the smallest or largest value the documents offer, its row shows it alone: whatever it
    shows beside it would tell its rank."""
    if asked.gold not in values or not is_numeric(asked):
        return DECOYS + 1
    gold = number_of(asked.gold)
    distinct = {number_of(v) for v in set(values)}
    return 1 + min(sum(v < gold for v in distinct), sum(v > gold for v in distinct), DECOYS)


def option_count(asked: Asked, value_sets: Iterable[Sequence[str]]) -> int:
    """How many options every row of one question in one set gets: the fewest distinct values its rows' documents
    offer, and no more than lets a number answer sit at any rank (rank_room), at least one, at most NeoQA's six."""
    sets = list(value_sets)
    fewest = min((min(len(set(values)), rank_room(asked, values)) for values in sets), default=1)
    return max(1, min(DECOYS + 1, fewest))
