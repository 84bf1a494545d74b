"""Generated NeoQA news articles: each states a subset of its event's outline items, in one outlet's style.

A fact is written with one of its relation's sentence wordings and one of the date formats
(builders/neoqa/data/templates.json); an article adds only its outlet's opening and closing lines and a headline
naming an entity, which state no fact. So the items an article states are exactly its `used_items`, by
construction, and builders/neoqa/textcheck.py confirms it from the text alone.
"""

from __future__ import annotations

import datetime
from functools import cache
from typing import Any

from leakproof_qa.builders.neoqa.world import Entity, Fact, World, data
from leakproof_qa.builders.rng import below, pick, shuffled, stream

MORE_ITEMS = 0.25
"""Chance that an article also states an item beyond the ones it covers by turn (most items are in several)."""


@cache
def written_date(day: datetime.date, style: int) -> str:
    """A day in one of the date formats, e.g. "March 3, 2025" or "3 March 2025" (kept: a timeline's articles write
    its few days again and again)."""
    month = data("templates")["months"][day.month - 1]
    return data("templates")["date_formats"][style].format(month=month, day=day.day, year=day.year)


def _plain(entity: Entity) -> str:
    return entity.name


def sentence(fact: Fact, wording: int = 0, date_style: int = 0, marked: bool = True) -> str:
    """The fact in one of its relation's wordings (the outline uses wording 0 and date style 0)."""
    templates = data("templates")
    name = Entity.marked if marked else _plain
    where = templates["where"].format(place=name(fact.place)) if fact.place else ""
    return templates["relations"][fact.relation]["sentences"][wording].format(
        s=name(fact.subject),
        o=name(fact.obj) if isinstance(fact.obj, Entity) else fact.obj,
        date=written_date(fact.day, date_style),
        where=where,
    )


def article_id_prefix(world: World, event: int) -> str:
    """An event's release-style article ids up to the article's number: sports_2_17-ev3- for sports_2_17-ev3-5."""
    return f"{world.genre['genre_id']}_{world.event_type}_{world.index}-ev{event}-"


def event_articles(rng: Any, mean: int) -> int:
    """How many articles an event gets: uniform from mean - 3 * mean // 4 to mean + 3 * mean // 4 (3 to 21 for 12), so
    that the number of articles an instance shows does not tell whether some were taken out (with a fixed 12 per
    event, a full set is a multiple of 12)."""
    spread = 3 * mean // 4
    return mean - spread + below(rng, 2 * spread + 1)


def stated_items(rng: Any, facts: list[Fact], number: int, articles: int) -> list[Fact]:
    """The items article `number` of an event states: those it covers by turn (so each item is in one at least)
    plus each other with chance MORE_ITEMS; never none."""
    chosen = [fact for i, fact in enumerate(facts) if i % articles == number or rng.random() < MORE_ITEMS]
    return chosen or [pick(rng, facts)]


def _paragraphs(
    rng: Any, outlet: dict[str, Any], facts: list[Fact], written: dict[tuple[str, int, int], str]
) -> list[str]:
    """Opening, the facts among fact-free filler lines (as many as make the article's lines), closing (`written`:
    the event's sentences by item, wording and date format, kept as made: its articles state each item several
    times)."""
    lines = []
    for fact in facts:
        key = (fact.item_id, below(rng, 3), below(rng, 2))  # wording, then date format: the order of the draws
        line = written.get(key)
        if line is None:
            line = written[key] = sentence(fact, key[1], key[2])
        lines.append(line)
    fillers = shuffled(rng, outlet["fillers"])[: max(0, data("templates")["article_lines"] - 2 - len(lines))]
    for filler in fillers:
        lines.insert(below(rng, len(lines) + 1), filler)
    paragraphs = [pick(rng, outlet["openings"])]
    start = 0
    while start < len(lines):
        end = start + 1 + below(rng, 2)
        paragraphs.append(" ".join(lines[start:end]))
        start = end
    paragraphs.append(pick(rng, outlet["closings"]))
    return paragraphs


def news_records(world: World, seed: int, articles: int) -> list[dict[str, Any]]:
    """Every article of the timeline as a release news record (markup in the text, as released)."""
    outlets = data("templates")["outlets"]
    records = []
    for event, day in enumerate(world.dates):
        rng = stream(seed, "neoqa", "articles", world.index, event)
        facts = world.event_facts(event)
        count = event_articles(rng, articles)
        written: dict[tuple[str, int, int], str] = {}
        event_id, date = f"{world.timeline_id}:E{event}", day.isoformat()  # the same for the event's articles
        prefix = article_id_prefix(world, event)
        for number in range(count):
            outlet = outlets[number % len(outlets)]
            stated = stated_items(rng, facts, number, count)
            headline = pick(rng, outlet["headlines"]).format(name=pick(rng, stated).subject.marked())
            records.append(
                {
                    "timeline_id": world.timeline_id,
                    "article_id": prefix + str(number),
                    "event_id": event_id,
                    "headline": headline,
                    "passages": _paragraphs(rng, outlet, stated, written),
                    "created_at": event,
                    "date": date,
                    "news_profile": outlet["profile"],
                    "used_items": [fact.item_id for fact in stated],
                    "unsure_evidences": [],
                }
            )
    return records
