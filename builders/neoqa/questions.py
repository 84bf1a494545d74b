"""Generated NeoQA questions: multi-hop through a bridge entity, time-span between dated items, and from each
multi-hop question its premise variants with true-premise controls worded the same way.

* multi-hop: item 1 names the bridge entity B as the object of (S, r1), item 2 gives B's r2; the question
  describes B through S ("the organization that S joined") and asks for r2's object, as of the later event.
* time-span: the days between two items with different days, within or across events.
* variants of a multi-hop question add a detail to the bridge's description: its day ("on March 3, 2025": the true
  day is a control, answerable; another day is a false premise) or its place ("in Harrowmere", only for relations
  that take a place: the stated place is a control; a place when item 1 states none is uncertain specificity).
  So both wordings occur in answerable and must-refuse questions, and only the articles tell them apart.

Every answer is checked unique among the items up to the question date (`answer_is_unique`); a question that fails
is not asked. Options: the answer, five distractors of its type (from the timeline first), and Unanswerable.
"""

from __future__ import annotations

import datetime
import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from leakproof_qa.builders.neoqa.articles import written_date
from leakproof_qa.builders.neoqa.instances import DEFLECTION_OPTION
from leakproof_qa.builders.neoqa.world import ENTITY_KINDS, Entity, Fact, World, data, entity_name, literal
from leakproof_qa.builders.rng import below, pick, shuffled, stream

DISTRACTORS = 5
TRIES = 8
"""Pairs of items drawn per time-span question asked, at most."""
FALSE_DAYS = 9
"""A false-premise day lies 1 to FALSE_DAYS days before or after the true one."""


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
    """Every pair of items chained through a bridge entity, in item order."""
    relations = data("templates")["relations"]
    by_subject: dict[str, list[Fact]] = defaultdict(list)
    for fact in world.facts:
        by_subject[fact.subject.id].append(fact)
    return [
        MultiHop(bridge, answer)
        for bridge in world.facts
        if isinstance(bridge.obj, Entity) and relations[bridge.relation]["noun"]
        for answer in by_subject[bridge.obj.id]
    ]


def question_id(world: World, *parts: object) -> str:
    """A release-style question id: 64 hex digits from the timeline and the question's parts."""
    return hashlib.sha256(":".join(map(str, (world.timeline_id, *parts))).encode()).hexdigest()


def _fresh(rng: Any, world: World, kind: str) -> str:
    """A value of `kind` for a distractor when the timeline has too few: a new name, amount or count."""
    if kind in ENTITY_KINDS:
        return entity_name(rng, kind, world.genre)
    return literal(rng, kind)


def distractors(rng: Any, world: World, kind: str, answer: str, pools: Sequence[Iterable[str]]) -> list[str]:
    """Five distractors of the answer's type: from the first of `pools` (values the items up to the question
    mention, as they mention the answer, each as often as mentioned: a list with repeats or a Counter), those
    mentioned about as often as the answer first, so that how often the articles name an option does not point to
    the gold; then the next pool (the rest of the timeline's), then fresh values."""
    chosen: list[str] = []  # every candidate of the pools so far, while fewer than DISTRACTORS
    for pool in pools:
        mentions = Counter(pool)
        order = shuffled(rng, sorted(mentions))  # drawn even when the pools before gave enough: the stream moves on
        if len(chosen) < DISTRACTORS:
            candidates = [v for v in order if v != answer and v not in chosen]
            distance = [abs(mentions[v] - mentions[answer]) for v in candidates]
            closest = sorted(range(len(candidates)), key=distance.__getitem__)  # stable: ties keep the shuffled order
            chosen += [candidates[i] for i in closest[: DISTRACTORS - len(chosen)]]  # the rest would be cut
    while len(chosen) < DISTRACTORS:
        value = _fresh(rng, world, kind) if kind != "days" else f"{1 + below(rng, 120)} days"
        if value != answer and value not in chosen:
            chosen.append(value)
    return chosen


def _mentions(world: World, kind: str, copies: Counter[str]) -> list[tuple[int, str, int]]:
    """Each value of `kind` an item names, in item order: (the item's event, the value, how many articles state the
    item, at least one). Made once per kind for every question's pools."""
    if kind in ENTITY_KINDS:
        return [
            (fact.event, e.name, max(1, copies[fact.item_id]))
            for fact in world.facts
            for e in fact.entities()
            if e.kind == kind
        ]
    relations = data("templates")["relations"]
    return [
        (fact.event, fact.object_text(), max(1, copies[fact.item_id]))
        for fact in world.facts
        if relations[fact.relation]["object"] == kind
    ]


def _pools(
    world: World,
    kind: str,
    event: int,
    copies: Counter[str] | None = None,
    mentions: list[tuple[int, str, int]] | None = None,
) -> list[Counter[str]]:
    """The timeline's values of `kind`, each counted once per article stating an item that names it (`copies`:
    articles per item; once per item without it): those up to `event`, then the others (`mentions`:
    _mentions(world, kind, copies), when made)."""
    mentions = _mentions(world, kind, copies or Counter()) if mentions is None else mentions
    pools: list[Counter[str]] = [Counter(), Counter()]
    for day, value, times in mentions:
        pools[day > event][value] += times
    if kind in ENTITY_KINDS:  # the rest of the cast, each once, whether named or not
        pools[1] = Counter(entity.name for entity in world.cast[kind])
    return pools


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
    """Every set of one or two articles dated on or before `date` that states all `items` (two items at most):
    the single articles first, then the pairs, each in article order (`stating_index`: stating_articles(articles),
    when made)."""
    index = stating_articles(articles) if stating_index is None else stating_index
    stating = [[i for i, day in index.get(item, ()) if day <= date] for item in items]
    if items:  # the articles in every item's list, in article order
        common = set(stating[0]).intersection(*stating[1:])
        singles = [[i] for i in stating[0] if i in common]
    else:
        singles = [[a["article_id"]] for a in articles if a["date"] <= date]
    if len(items) == 1:
        return singles
    pairs = [[x, y] for x in stating[0] for y in stating[1] if x != y]
    return singles + pairs


def _record(world: World, base: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"timeline_id": world.timeline_id, **base, **fields}


def _options(rng: Any, world: World, kind: str, answer: str, pools: Sequence[Iterable[str]]) -> dict[str, Any]:
    wrong = distractors(rng, world, kind, answer, pools)
    return {
        "answer": answer,
        "distractors": [
            {"answer": d, "explanation": f"Not what the articles state ({kind}).", "distractor-sentences": []}
            for d in wrong
        ],
        "answer_options": [answer, *wrong, DEFLECTION_OPTION],
    }


def _evidence(
    articles: list[dict[str, Any]], items: list[str], date: str, index: Mapping[str, list[tuple[str, str]]]
) -> dict[str, Any]:
    sets = sufficient_sets(articles, items, date, index)
    pairs = [s for s in sets if len(s) == 2]
    return {
        "sufficient_article_ids": (pairs or sets or [[]])[0],
        "all_sufficient_article_id_combinations": sets,
    }


def _variants(rng: Any, world: World, hop: MultiHop, parent: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The premise controls (answerable), the false premise and the uncertain-specificity variant of a question."""
    templates = data("templates")
    bridge = hop.bridge
    relations = templates["relations"]
    noun = relations[bridge.relation]["noun"].format(s=bridge.subject.name)
    ask = relations[hop.answer.relation]["ask"]
    shift = (1 + below(rng, FALSE_DAYS)) * (1 if rng.random() < 0.5 else -1)
    wrong_day = bridge.day + datetime.timedelta(days=shift)
    details = [
        ("date", "premise-control", written_date(bridge.day, 0)),
        ("date", "false-premise", written_date(wrong_day, 0)),
    ]
    if relations[bridge.relation]["places"]:
        if bridge.place is not None:
            details.append(("place", "premise-control", bridge.place.name))
        else:
            details.append(("place", "uncertain-specificity", pick(rng, world.cast["location"]).name))
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
    copies = Counter(item for article in articles for item in article["used_items"])
    index = stating_articles(articles) if stating_index is None else stating_index
    relations = data("templates")["relations"]
    counts = item_counts(world)
    pooled: dict[tuple[str, int], list[Counter[str]]] = {}
    mentioned: dict[str, list[tuple[int, str, int]]] = {}
    records: list[dict[str, Any]] = []
    asked = 0
    for hop in shuffled(rng, multi_hop_candidates(world)):
        if asked == limit:
            break
        if not answer_is_unique(world, hop, counts):
            continue
        kind = relations[hop.answer.relation]["object"]
        if (kind, hop.event) not in pooled:
            if kind not in mentioned:
                mentioned[kind] = _mentions(world, kind, copies)
            pooled[kind, hop.event] = _pools(world, kind, hop.event, copies, mentioned[kind])
        pools = pooled[kind, hop.event]
        if len(set(pools[0]) - {hop.answer.object_text()}) < DISTRACTORS:
            continue  # too few values the articles mention beside the answer: an unmentioned option is no decoy
        date = world.dates[hop.event].isoformat()
        items = [hop.bridge.item_id, hop.answer.item_id]
        noun = relations[hop.bridge.relation]["noun"].format(s=hop.bridge.subject.name)
        parent = _record(
            world,
            {
                "question_id": question_id(world, "multi-hop", *items),
                "parent_question_id": None,
                "category": "multi-hop",
                "evidence_ids": items,
                "question": relations[hop.answer.relation]["ask"].format(x=noun),
                "date": date,
                "created_at": hop.event,
                **_options(rng, world, kind, hop.answer.object_text(), pools),
                **_evidence(articles, items, date, index),
                "meta": {
                    "bridge_entity": hop.bridge.obj.name,  # type: ignore[union-attr]
                    "answer_kind": kind,
                    "variant": "plain",
                    "evidence_roles": {hop.bridge.item_id: "bridge", hop.answer.item_id: "answer"},
                },
            },
        )
        records.append(parent)
        records.extend(_variants(rng, world, hop, parent))
        asked += 1
    return records


def _clause(fact: Fact) -> str:
    return data("templates")["relations"][fact.relation]["clause"].format(s=fact.subject.name, o=fact.object_text())


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
    triples: dict[str, int] = defaultdict(int)
    for fact in world.facts:
        triples[_clause(fact)] += 1
    days = sorted({fact.day.toordinal() for fact in world.facts})
    spans = sorted({f"{n} days" for n in {b - a for i, a in enumerate(days) for b in days[i + 1 :]}})
    records: list[dict[str, Any]] = []
    tried: set[tuple[str, str]] = set()
    index = stating_articles(articles) if stating_index is None else stating_index
    for _ in range(limit * TRIES):
        if len(records) == limit:
            break
        first, second = sorted((pick(rng, world.facts), pick(rng, world.facts)), key=lambda fact: fact.day)
        if (first.item_id, second.item_id) in tried or first.day == second.day:
            continue
        tried.add((first.item_id, second.item_id))
        if triples[_clause(first)] != 1 or triples[_clause(second)] != 1:
            continue
        event = max(first.event, second.event)
        date = world.dates[event].isoformat()
        items = [first.item_id, second.item_id]
        answer = templates["days"].format(n=(second.day - first.day).days)
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
                    **_options(rng, world, "days", answer, [spans]),
                    **_evidence(articles, items, date, index),
                    "meta": {
                        "answer_kind": "days",
                        "variant": "plain",
                        "evidence_roles": {first.item_id: "earlier", second.item_id: "later"},
                    },
                },
            )
        )
    return records
