"""Generated NeoQA questions: multi-hop through a bridge entity, time-span between dated items, and from each
multi-hop question its premise variants with true-premise controls worded the same way.

* multi-hop: item 1 names the bridge entity B as the object of (S, r1), item 2 gives B's r2; the question
  describes B through S ("the organization that S joined") and asks for r2's object, as of the later event.
* time-span: the days between two items with different days, within or across events.
* variants of a multi-hop question add a detail to the bridge's description, drawn from the pool its control's comes
  from (spec/validity.md): a day ("on March 3, 2025": the bridge's own day is a control, answerable; the day of
  another item of the bridge's event that the question's evidence articles state is a false premise) or a place ("in
  Harrowmere", only for relations that take a place: the bridge's stated place is a control; when the bridge states
  none, the place of another item the evidence articles state is uncertain specificity). Both details are shown by the
  documents for some fact, before the question's date, in answerable and must-refuse questions alike: looking the day
  or place up tells nothing, only linking it to the bridge's fact does. A question gets a day control and a false
  premise together, or neither.

Every answer is checked unique among the items up to the question date (`answer_is_unique`); a question that fails
is not asked. A record's options are made as each instance row's are (builders/neoqa/options.py), from every past
article: the answer, sibling answers of its type, and Unanswerable.
"""

from __future__ import annotations

import datetime
import hashlib
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from leakproof_qa.builders.neoqa.articles import written_date
from leakproof_qa.builders.neoqa.candidates import MultiHop, unique_candidates
from leakproof_qa.builders.neoqa.instances import DEFLECTION_OPTION
from leakproof_qa.builders.neoqa.options import MIN_SPAN, Asked, days_text, draw_options, option_count, siblings_of
from leakproof_qa.builders.neoqa.world import Entity, Fact, World, data, relations
from leakproof_qa.builders.rng import pick, shuffled, stream

TRIES = 8
"""Pairs of items drawn per time-span question asked, at most."""


def by_event_in_turn(rng: Any, hops: list[MultiHop], events: int) -> Iterator[MultiHop]:
    """The candidates (in their shuffled order) taken one per question event in turn, the events in a seeded order, so
    that questions are asked as of every event and not mostly of the early ones (whose few facts leave more answers
    unique)."""
    queues: list[list[MultiHop]] = [[] for _ in range(events)]
    for hop in hops:
        queues[hop.event].append(hop)
    order = shuffled(rng, queues)
    depth = 0
    while any(depth < len(queue) for queue in order):
        for queue in order:
            if depth < len(queue):
                yield queue[depth]
        depth += 1


def question_id(world: World, *parts: object) -> str:
    """A release-style question id: 64 hex digits from the timeline and the question's parts."""
    return hashlib.sha256(":".join(map(str, (world.timeline_id, *parts))).encode()).hexdigest()


def stating_articles(articles: list[dict[str, Any]]) -> dict[str, list[tuple[str, str]]]:
    """Per outline item, the (id, date) of each article stating it, in article order: made once per timeline for
    sufficient_sets, which each question asks."""
    stating: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for article in articles:
        for item in dict.fromkeys(article["used_items"]):
            stating[item].append((article["article_id"], article["date"]))
    return stating


def sufficient_sets(
    articles: list[dict[str, Any]],
    items: list[str],
    date: str,
    stating_index: Mapping[str, list[tuple[str, str]]] | None = None,
) -> list[list[str]]:
    """Every minimal set of one or two articles dated on or before `date` that states all `items` (two items at
    most): the single articles first, then the pairs of which neither article alone suffices, each in article order
    (`stating_index`: stating_articles(articles), when made)."""
    index = stating_articles(articles) if stating_index is None else stating_index
    stating = [[i for i, day in index.get(item, ()) if day <= date] for item in items]
    if items:  # the articles in every item's list, in article order
        common = set(stating[0]).intersection(*stating[1:])
        singles = [[i] for i in stating[0] if i in common]
    else:
        singles = [[a["article_id"]] for a in articles if a["date"] <= date]
    if len(items) == 1:
        return singles
    alone = {single[0] for single in singles}
    pairs = [[x, y] for x in stating[0] for y in stating[1] if x != y and x not in alone and y not in alone]
    return singles + pairs


def _record(world: World, base: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"timeline_id": world.timeline_id, **base, **fields}


class _Timeline:
    """What every question of one timeline asks of its articles: which state each item, which items the articles up
    to a date state, and the sibling answers among them."""

    def __init__(self, world: World, articles: list[dict[str, Any]], stating: Mapping[str, list[tuple[str, str]]]):
        self.world, self.articles, self.stating = world, articles, stating
        self.used = {article["article_id"]: article["used_items"] for article in articles}
        self.siblings = siblings_of(world)
        self._upto: dict[str, frozenset[str]] = {}

    def stated_upto(self, date: str) -> frozenset[str]:
        """The items the articles dated on or before `date` state."""
        if date not in self._upto:
            self._upto[date] = frozenset(i for a in self.articles if a["date"] <= date for i in a["used_items"])
        return self._upto[date]

    def stated_by(self, article_ids: Sequence[str]) -> set[str]:
        """The items these articles state."""
        return {item for article in article_ids for item in self.used[article]}

    def options(self, rng: Any, asked: Asked, date: str) -> dict[str, Any]:
        """A record's options: the answer and sibling answers that the articles up to `date` state, and Unanswerable
        (the instance rows draw their own, from what each shows)."""
        values = self.siblings.values(asked, self.stated_upto(date))
        chosen = draw_options(rng, asked, values, option_count(asked, [values]))
        wrong = [option for option in chosen if option != asked.gold]
        return {
            "answer": asked.gold,
            "distractors": [
                {
                    "answer": d,
                    "explanation": "A sibling answer: what the articles state for a related question.",
                    "distractor-sentences": [],
                }
                for d in wrong
            ],
            "answer_options": [*chosen, DEFLECTION_OPTION],
        }

    def evidence(self, items: list[str], date: str) -> dict[str, Any]:
        sets = sufficient_sets(self.articles, items, date, self.stating)
        pairs = [s for s in sets if len(s) == 2]
        return {
            "sufficient_article_ids": (pairs or sets or [[]])[0],
            "all_sufficient_article_id_combinations": sets,
        }


def premise_day(rng: Any, hop: MultiHop, shown: set[str], facts: Mapping[str, Fact]) -> datetime.date | None:
    """A false premise's day: the day of another item of the bridge's event that the evidence articles state (one
    about the question's named entity where there is one), on another day than the bridge's; None when there is none."""
    bridge = hop.bridge
    pool = [
        facts[item]
        for item in sorted(shown)
        if item in facts and facts[item].event == bridge.event and facts[item].day != bridge.day
    ]
    same = [fact for fact in pool if fact.subject.id == bridge.subject.id]
    return pick(rng, same or pool).day if pool else None


def premise_place(rng: Any, hop: MultiHop, shown: set[str], facts: Mapping[str, Fact]) -> Entity | None:
    """An uncertain-specificity place: the place another item the evidence articles state has (one of the bridge's
    event where there is one), else a town one of them names; never an entity the bridge names. None only when the
    evidence names no other town (then the question gets no place variant)."""
    named = {entity.id for entity in hop.bridge.entities()}
    stated = [facts[item] for item in sorted(shown) if item in facts]
    pool = [f for f in stated if f.place is not None and f.place.id not in named]
    same = [fact for fact in pool if fact.event == hop.bridge.event]
    if pool:
        return pick(rng, same or pool).place
    towns = [e for f in stated for e in f.entities() if e.kind == "location" and e.id not in named]
    return pick(rng, towns) if towns else None


def _variants(
    rng: Any, world: World, hop: MultiHop, parent: dict[str, Any], shown: set[str], facts: Mapping[str, Fact]
) -> Iterator[dict[str, Any]]:
    """The premise controls (answerable), the false premise and the uncertain-specificity variant of a question, each
    detail from what the evidence articles (`shown`: the items they state) show."""
    templates = data("templates")
    bridge = hop.bridge
    catalog = relations()
    noun = catalog[bridge.relation]["noun"].format(s=bridge.subject.name)
    ask = catalog[hop.answer.relation]["ask"]
    details = []
    wrong_day = premise_day(rng, hop, shown, facts)
    if wrong_day is not None:
        details += [
            ("date", "premise-control", written_date(bridge.day, 0)),
            ("date", "false-premise", written_date(wrong_day, 0)),
        ]
    if catalog[bridge.relation]["places"]:
        if bridge.place is not None:
            details.append(("place", "premise-control", bridge.place.name))
        elif (place := premise_place(rng, hop, shown, facts)) is not None:
            details.append(("place", "uncertain-specificity", place.name))
    for detail, variant, value in details:
        phrase = templates["details"][detail].format(date=value, place=value)
        unanswerable = variant != "premise-control"
        yield {
            **parent,
            "question_id": question_id(world, "variant", parent["question_id"], detail, variant),
            "parent_question_id": parent["question_id"],
            "category": variant if unanswerable else "multi-hop",
            "question": ask.format(x=noun + phrase),
            "answer": DEFLECTION_OPTION if unanswerable else parent["answer"],
            "sufficient_article_ids": [] if unanswerable else parent["sufficient_article_ids"],
            "all_sufficient_article_id_combinations": (
                [] if unanswerable else parent["all_sufficient_article_id_combinations"]
            ),
            "meta": {**parent["meta"], "variant": variant, "detail": detail, "detail_value": value},
        }


def multi_hop_records(
    world: World,
    seed: int,
    articles: list[dict[str, Any]],
    limit: int,
    stating_index: Mapping[str, list[tuple[str, str]]] | None = None,
) -> list[dict[str, Any]]:
    """Up to `limit` multi-hop questions with unique answers, each followed by its variants (`stating_index`:
    stating_articles(articles), when made)."""
    rng = stream(seed, "neoqa", "multi-hop", world.index)
    timeline = _Timeline(world, articles, stating_articles(articles) if stating_index is None else stating_index)
    facts = timeline.siblings.facts
    catalog = relations()
    records: list[dict[str, Any]] = []
    asked = 0
    unique = shuffled(rng, unique_candidates(world))
    for hop in by_event_in_turn(rng, unique, len(world.dates)):
        if asked == limit:
            break
        date = world.dates[hop.event].isoformat()
        items = [hop.bridge.item_id, hop.answer.item_id]
        evidence = timeline.evidence(items, date)
        if not evidence["all_sufficient_article_id_combinations"]:
            continue
        noun = catalog[hop.bridge.relation]["noun"].format(s=hop.bridge.subject.name)
        question = Asked(
            "multi-hop",
            hop.answer.object_text(),
            anchor=hop.bridge.subject.id,
            relation=hop.answer.relation,
            bridge_relation=hop.bridge.relation,
            event=hop.event,
        )
        parent = _record(
            world,
            {
                "question_id": question_id(world, "multi-hop", *items),
                "parent_question_id": None,
                "category": "multi-hop",
                "evidence_ids": items,
                "question": catalog[hop.answer.relation]["ask"].format(x=noun),
                "date": date,
                "created_at": hop.event,
                **timeline.options(rng, question, date),
                **evidence,
                "meta": {
                    "bridge_entity": hop.bridge.obj.name,  # type: ignore[union-attr]
                    "answer_kind": catalog[hop.answer.relation]["object"],
                    "variant": "plain",
                    "evidence_roles": {hop.bridge.item_id: "bridge", hop.answer.item_id: "answer"},
                },
            },
        )
        records.append(parent)
        shown = timeline.stated_by(parent["sufficient_article_ids"])
        records.extend(_variants(rng, world, hop, parent, shown, facts))
        asked += 1
    return records


def _clause(fact: Fact) -> str:
    return relations()[fact.relation]["clause"].format(
        s=fact.subject.name, o=fact.object_text(), at=fact.at.name if fact.at else ""
    )


def time_span_records(
    world: World,
    seed: int,
    articles: list[dict[str, Any]],
    limit: int,
    stating_index: Mapping[str, list[tuple[str, str]]] | None = None,
) -> list[dict[str, Any]]:
    """Up to `limit` time-span questions: days between two items on different days, each item unique
    (`stating_index`: stating_articles(articles), when made)."""
    rng = stream(seed, "neoqa", "time-span", world.index)
    templates = data("templates")
    timeline = _Timeline(world, articles, stating_articles(articles) if stating_index is None else stating_index)
    triples: dict[str, int] = defaultdict(int)
    for fact in world.facts:
        triples[_clause(fact)] += 1
    records: list[dict[str, Any]] = []
    tried: set[tuple[str, str]] = set()
    for _ in range(limit * TRIES):
        if len(records) == limit:
            break
        first, second = sorted((pick(rng, world.facts), pick(rng, world.facts)), key=lambda fact: fact.day)
        if (first.item_id, second.item_id) in tried or (second.day - first.day).days < MIN_SPAN:
            continue
        tried.add((first.item_id, second.item_id))
        if triples[_clause(first)] != 1 or triples[_clause(second)] != 1:
            continue
        event = max(first.event, second.event)
        date = world.dates[event].isoformat()
        items = [first.item_id, second.item_id]
        evidence = timeline.evidence(items, date)
        if not evidence["all_sufficient_article_id_combinations"]:
            continue
        answer = days_text((second.day - first.day).days)
        question = Asked("time-span", answer, items=(first.item_id, second.item_id))
        records.append(
            _record(
                world,
                {
                    "question_id": question_id(world, "time-span", *items),
                    "parent_question_id": None,
                    "category": "time-span",
                    "evidence_ids": items,
                    "question": templates["time_span"].format(a=_clause(first), b=_clause(second)),
                    "date": date,
                    "created_at": event,
                    **timeline.options(rng, question, date),
                    **evidence,
                    "meta": {
                        "answer_kind": "days",
                        "variant": "plain",
                        "evidence_roles": {first.item_id: "earlier", second.item_id: "later"},
                    },
                },
            )
        )
    return records
