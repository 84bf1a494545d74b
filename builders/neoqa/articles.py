"""Generated NeoQA news articles: each states a subset of its event's outline items, and maybe a fact of an earlier
event as background, among fact-free prose in one outlet's voice.

A fact is written with one of its relation's wordings and one of the date formats (builders/neoqa/data/templates.json);
a background fact follows one of the background openers ("Earlier, "). The rest of an article is its outlet's opening
and closing, and reactions and views made from the prose banks ("Shop owners near Marlholt told us they wanted clear
answers on costs this week."): they carry no date and no relation, so they state no fact. The items an article states
are exactly its `used_items`, by construction, and builders/neoqa/textcheck.py confirms it from the text alone.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from functools import cache
from itertools import compress
from operator import not_
from typing import Any, TypeVar

from leakproof_qa.builders.neoqa.world import Entity, Fact, World, data, relations
from leakproof_qa.builders.rng import below, pick, stream

MORE_ITEMS = 0.22
"""Chance that an article also states an item beyond the ones it covers by turn (most items are in several)."""
BACKGROUND = (0.55, 0.2)
"""Chances that an article of a later event recalls a first and a second earlier fact as background."""
T = TypeVar("T")

FILLERS = (("reaction", 9), ("view", 5), ("line", 3))
"""The kinds of fact-free sentence an article's prose is made of, and how often each is drawn."""


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
    name = Entity.marked if marked else _plain
    where = data("templates")["where"].format(place=name(fact.place)) if fact.place else ""
    return relations()[fact.relation]["sentences"][wording].format(
        s=name(fact.subject),
        o=name(fact.obj) if isinstance(fact.obj, Entity) else fact.obj,
        date=written_date(fact.day, date_style),
        where=where,
        at=name(fact.at) if fact.at else "",
    )


def recalled(opener: str, line: str) -> str:
    """A fact's sentence as background after an opener ("Earlier, "): its first word in lower case unless it is a
    name or a quote."""
    starts_with_word = line[:1].isupper() and line.split(" ", 1)[0] in _first_words()
    return opener + (line[0].lower() + line[1:] if starts_with_word else line)


@cache
def _first_words() -> frozenset[str]:
    """The first words of the wordings that start with a word of the template rather than a name or a quote."""
    return frozenset(
        wording.split(" ", 1)[0]
        for spec in relations().values()
        for wording in spec["sentences"]
        if wording[:1].isalpha()
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


def background_items(
    rng: Any,
    stated: list[Fact],
    earlier: list[Fact],
    naming: dict[str, frozenset[str]],
    earlier_naming: list[frozenset[str]],
) -> list[Fact]:
    """Up to two facts of earlier events an article recalls: facts about an entity its own facts name, where there
    are some (as a reporter recalls what came before), else any earlier fact (`earlier`: in outline order;
    `naming`: the ids of the entities each item names; `earlier_naming`: those of each earlier fact, in its order)."""
    if not earlier:
        return []
    named = set().union(*(naming[fact.item_id] for fact in stated))
    related = list(compress(earlier, map(not_, map(named.isdisjoint, earlier_naming)))) or earlier
    chosen: list[Fact] = []
    for chance in BACKGROUND:
        if rng.random() < chance:
            fact = pick(rng, related)
            if fact not in chosen:
                chosen.append(fact)
    return chosen


def _below(draw: Callable[[], float], n: int) -> int:
    """below(rng, n) given rng.random: the same draw and number (an article's prose is most of the draws)."""
    value = int(draw() * n)
    return value if value < n else n - 1


def _one(draw: Callable[[], float], items: Sequence[T]) -> T:
    """pick(rng, items) given rng.random: the same draw and item, one call fewer."""
    n = len(items)
    value = int(draw() * n)
    return items[value if value < n else n - 1]


def _filler(rng: Any, outlet: dict[str, Any], world: World, used_lines: set[str]) -> str:
    """One fact-free sentence in the outlet's voice: a reaction, a view or one of its own lines."""
    prose = data("templates")["prose"]
    draw = rng.random
    kind = _one(draw, _FILLER_KINDS)
    if kind == "reaction":
        near = _one(draw, prose["near"])
        return prose["reaction"].format(
            group=_one(draw, prose["groups"]),
            near=near.format(place=_one(draw, world.cast["location"]).name) if near else "",
            said=_one(draw, prose["said"]),
            feeling=_one(draw, outlet["feelings"]),
            when=_one(draw, prose["when"]),
        )
    if kind == "view":
        return prose["view"].format(analyst=_one(draw, prose["analysts"]), view=_one(draw, outlet["views"]))
    fresh = [line for line in outlet["lines"] if line not in used_lines]
    line = _one(draw, fresh or outlet["lines"])
    used_lines.add(line)
    return line


_FILLER_KINDS = [kind for kind, weight in FILLERS for _ in range(weight)]


def _written(fact: Fact, wording: int, date_style: int, written: dict[tuple[str, int, int], str]) -> str:
    """sentence(fact, wording, date_style), kept in `written` by item, wording and date format."""
    key = (fact.item_id, wording, date_style)
    line = written.get(key)
    if line is None:
        line = written[key] = sentence(fact, wording, date_style)
    return line


def _paragraphs(
    rng: Any,
    outlet: dict[str, Any],
    world: World,
    facts: list[Fact],
    background: list[Fact],
    written: dict[tuple[str, int, int], str],
) -> list[str]:
    """Opening with the lede, the other facts and the background among fact-free prose, closing (`written`: the
    timeline's sentences by item, wording and date format, kept as made: its articles state each item several
    times)."""
    catalog = relations()
    draw = rng.random
    lines = []
    for fact in facts:
        lines.append(_written(fact, _below(draw, len(catalog[fact.relation]["sentences"])), _below(draw, 2), written))
    for fact in background:
        line = _written(fact, _below(draw, len(catalog[fact.relation]["sentences"])), _below(draw, 2), written)
        lines.insert(1 + _below(draw, len(lines)), recalled(_one(draw, data("templates")["background"]), line))
    low, high = data("templates")["article_lines"]
    used_lines: set[str] = set()
    for _ in range(max(3, low + _below(draw, high - low + 1) - 2 - len(lines))):
        lines.insert(1 + _below(draw, len(lines)), _filler(rng, outlet, world, used_lines))
    paragraphs = [_one(draw, outlet["openings"]) + " " + lines[0]]
    start = 1
    while start < len(lines):
        end = start + 1 + _below(draw, 3)
        paragraphs.append(" ".join(lines[start:end]))
        start = end
    paragraphs.append(_one(draw, outlet["closings"]))
    return paragraphs


def news_records(world: World, seed: int, articles: int) -> list[dict[str, Any]]:
    """Every article of the timeline as a release news record (markup in the text, as released)."""
    outlets = data("templates")["outlets"]
    records = []
    written: dict[tuple[str, int, int], str] = {}
    naming = {fact.item_id: frozenset(e.id for e in fact.entities()) for fact in world.facts}
    earlier: list[Fact] = []  # the facts of the events before, in outline order
    for event, day in enumerate(world.dates):
        rng = stream(seed, "neoqa", "articles", world.index, event)
        facts = world.event_facts(event)
        if event:
            earlier = earlier + world.event_facts(event - 1)
        earlier_naming = [naming[fact.item_id] for fact in earlier]
        count = event_articles(rng, articles)
        event_id, date = f"{world.timeline_id}:E{event}", day.isoformat()  # the same for the event's articles
        prefix = article_id_prefix(world, event)
        for number in range(count):
            outlet = outlets[number % len(outlets)]
            stated = stated_items(rng, facts, number, count)
            background = background_items(rng, stated, earlier, naming, earlier_naming)
            headline = pick(rng, outlet["headlines"]).format(name=pick(rng, stated).subject.marked())
            records.append(
                {
                    "timeline_id": world.timeline_id,
                    "article_id": prefix + str(number),
                    "event_id": event_id,
                    "headline": headline,
                    "passages": _paragraphs(rng, outlet, world, stated, background, written),
                    "created_at": event,
                    "date": date,
                    "news_profile": outlet["profile"],
                    "used_items": [fact.item_id for fact in stated + background],
                    "unsure_evidences": [],
                }
            )
    return records
