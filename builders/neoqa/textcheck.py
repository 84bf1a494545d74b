"""Read generated NeoQA text back into facts, with a parser of its own, to check the labels from the text alone.

The parser knows the sentence templates (builders/neoqa/data/templates.json) and nothing of the generator's
records: it turns each sentence of an article or outline, and each question, into facts by matching the
templates' wordings as regular expressions. With it:

* `article_problems`: an article must state exactly the facts of its `used_items` (read from the outline's
  text), every sentence must be a fact or one of its outlet's fact-free lines, and no sentence may read two ways;
* `CarefulReader`: a reader who checks every fact a question needs in the shown articles, refusing when one is
  missing or contradicts a detail of the question, and otherwise answering from those facts (time-span answers
  computed from the days the articles state); on exact labels it gets every instance right.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from leakproof_qa.builders.neoqa.world import data

UNANSWERABLE = "Unanswerable"
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+(?=[A-Z$])")


@dataclass(frozen=True)
class Said:
    """One fact as the text says it."""

    relation: str
    subject: str
    obj: str
    day: datetime.date
    place: str | None


@cache
def _months() -> dict[str, int]:
    return {name: number for number, name in enumerate(data("templates")["months"], 1)}


def _date_pattern(name: str) -> str:
    month = "|".join(_months())
    return rf"(?P<{name}>(?:{month}) [0-9]{{1,2}}, [0-9]{{4}}|[0-9]{{1,2}} (?:{month}) [0-9]{{4}})"


def read_date(text: str) -> datetime.date:
    """A date as the articles write it ("March 3, 2026" or "3 March 2026")."""
    words = text.replace(",", "").split()
    if words[0].isdigit():
        day, month, year = words
    else:
        month, day, year = words
    return datetime.date(int(year), _months()[month], int(day))


def _regex(template: str, slots: Mapping[str, str]) -> re.Pattern[str]:
    """A template as a regex: literal text escaped, each {slot} replaced by its pattern."""
    parts = re.split(r"(\{[a-z]+\})", template)
    return re.compile("".join(slots[part[1:-1]] if part.startswith("{") else re.escape(part) for part in parts))


@cache
def sentence_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """(relation, regex) for every wording of every relation."""
    where = "(?:" + re.escape(data("templates")["where"]).replace(re.escape("{place}"), "(?P<place>.+?)") + ")?"
    slots = {"s": "(?P<s>.+?)", "o": "(?P<o>.+?)", "date": _date_pattern("date"), "where": where}
    return [
        (relation, _regex(wording, slots))
        for relation, spec in data("templates")["relations"].items()
        for wording in spec["sentences"]
    ]


def read_sentence(sentence: str) -> list[Said]:
    """Every distinct fact the sentence can be read as (none for a sentence that is not a fact)."""
    readings = []
    for relation, pattern in sentence_patterns():
        match = pattern.fullmatch(sentence)
        if match:
            reading = Said(relation, match["s"], match["o"], read_date(match["date"]), match.groupdict().get("place"))
            if reading not in readings:
                readings.append(reading)
    return readings


def sentences(passages: Iterable[str]) -> list[str]:
    """The sentences of some paragraphs."""
    return [part for passage in passages for part in _SENTENCE_END.split(passage.strip()) if part]


@cache
def _fact_free_lines() -> frozenset[str]:
    outlets = data("templates")["outlets"]
    return frozenset(
        line for outlet in outlets for line in (*outlet["openings"], *outlet["fillers"], *outlet["closings"])
    )


@cache
def _headline_patterns() -> list[re.Pattern[str]]:
    return [
        _regex(headline, {"name": "(?P<name>.+)"})
        for outlet in data("templates")["outlets"]
        for headline in outlet["headlines"]
    ]


def outline_facts(timeline_row: Mapping[str, Any]) -> dict[str, Said]:
    """Each outline item's fact, read from its sentence's text."""
    facts = {}
    for event in timeline_row["events"]:
        for item in event["outline"]:
            readings = read_sentence(item["sentence"])
            if len(readings) != 1:
                raise ValueError(f"outline item {item['id']} reads {len(readings)} ways: {item['sentence']!r}")
            facts[item["id"]] = readings[0]
    return facts


def known_names(timeline_row: Mapping[str, Any]) -> set[str]:
    """The names of the timeline's entities (its last snapshot)."""
    snapshot = timeline_row["named_entity_snapshots"][-1]
    return {entity["name"] for entity in snapshot["named_entities"]}


def article_facts(news_row: Mapping[str, Any]) -> tuple[set[Said], list[str]]:
    """The facts an article's text states, and the problems reading it (unknown or ambiguous sentences)."""
    said: set[Said] = set()
    problems = []
    for sentence in sentences(news_row["passages"]):
        readings = read_sentence(sentence)
        if len(readings) == 1:
            said.add(readings[0])
        elif readings:
            problems.append(f"{news_row['article_id']}: reads {len(readings)} ways: {sentence!r}")
        elif sentence not in _fact_free_lines():
            problems.append(f"{news_row['article_id']}: neither a fact nor a fact-free line: {sentence!r}")
    return said, problems


def article_problems(news_row: Mapping[str, Any], outline: Mapping[str, Said], names: set[str]) -> list[str]:
    """What is wrong with an article: a sentence that reads no or two ways, a fact not among its used_items, an
    item it does not state, a name no entity has, a headline that is not a fact-free headline."""
    said, problems = article_facts(news_row)
    promised = {outline[item] for item in news_row["used_items"]}
    article = news_row["article_id"]
    problems += [f"{article}: states {fact} beyond its used_items" for fact in sorted(said - promised, key=str)]
    problems += [f"{article}: does not state {fact}" for fact in sorted(promised - said, key=str)]
    for fact in said:
        for name in (fact.subject, fact.obj if not fact.obj[:1].isdigit() and fact.obj[:1] != "$" else None):
            if name is not None and name not in names:
                problems.append(f"{article}: names {name!r}, which no entity of the timeline is")
    headline = [p.fullmatch(news_row["headline"]) for p in _headline_patterns()]
    if not any(match and match["name"] in names for match in headline):
        problems.append(f"{article}: headline {news_row['headline']!r} is not a fact-free headline")
    return problems


# ------------------------------------------------------------------ questions


@dataclass(frozen=True)
class Asked:
    """A question as its text says it: multi-hop (subject, r1, detail, r2) or time-span (two facts' clauses)."""

    kind: str
    subject: str = ""
    bridge_relation: str = ""
    answer_relation: str = ""
    detail: str | None = None  # "date" or "place"
    detail_value: str = ""
    clauses: tuple[tuple[str, str, str], ...] = ()  # time-span: (relation, subject, object) twice


@cache
def _question_patterns() -> dict[str, list[tuple[str, re.Pattern[str]]]]:
    templates = data("templates")
    relations = templates["relations"]
    details = templates["details"]
    detail = (
        "(?:"
        + re.escape(details["date"]).replace(re.escape("{date}"), _date_pattern("date"))
        + "|"
        + re.escape(details["place"]).replace(re.escape("{place}"), "(?P<place>.+)")
        + ")?"
    )
    clause_slots = {"s": "(?P<s>.+?)", "o": "(?P<o>.+?)"}
    return {
        "ask": [(r, _regex(spec["ask"], {"x": "(?P<x>.+)"})) for r, spec in relations.items()],
        "noun": [
            (r, re.compile(_regex(spec["noun"], {"s": "(?P<s>.+?)"}).pattern + detail))
            for r, spec in relations.items()
            if spec["noun"]
        ],
        "clause": [(r, _regex(spec["clause"], clause_slots)) for r, spec in relations.items()],
        "span": [("time-span", _regex(templates["time_span"], {"a": "(?P<a>.+?)", "b": "(?P<b>.+?)"}))],
    }


def _clause(text: str) -> tuple[str, str, str] | None:
    found = {(r, m["s"], m["o"]) for r, p in _question_patterns()["clause"] if (m := p.fullmatch(text))}
    return found.pop() if len(found) == 1 else None


def read_question(question: str) -> Asked:
    """The question's parts, read from its text; a one-line ValueError when it reads no or two ways."""
    patterns = _question_patterns()
    readings: list[Asked] = []
    for _, pattern in patterns["span"]:
        match = pattern.fullmatch(question)
        if match and (a := _clause(match["a"])) and (b := _clause(match["b"])):
            readings.append(Asked("time-span", clauses=(a, b)))
    for answer_relation, ask in patterns["ask"]:
        asked = ask.fullmatch(question)
        for bridge_relation, noun in patterns["noun"] if asked else ():
            match = noun.fullmatch(asked["x"]) if asked else None
            if match:
                detail = "date" if match["date"] else "place" if match["place"] else None
                value = match["date"] or match["place"] or ""
                readings.append(Asked("multi-hop", match["s"], bridge_relation, answer_relation, detail, value))
    if len(readings) != 1:
        raise ValueError(f"question reads {len(readings)} ways: {question!r}")
    return readings[0]


class CarefulReader:
    """Answers from shown articles only, checking every fact the question needs; refuses what they do not give."""

    def __init__(self, news_rows: Iterable[Mapping[str, Any]]) -> None:
        """Read every article's facts once."""
        self.facts = {row["article_id"]: article_facts(row)[0] for row in news_rows}

    def shown(self, article_ids: Sequence[str]) -> set[Said]:
        """The facts the shown articles state."""
        return set().union(*(self.facts[i] for i in article_ids)) if article_ids else set()

    def answer(self, question: str, article_ids: Sequence[str]) -> str:
        """The answer the shown articles give, or Unanswerable."""
        asked = read_question(question)
        facts = self.shown(article_ids)
        if asked.kind == "time-span":
            days = []
            for relation, subject, obj in asked.clauses:
                found = {f.day for f in facts if (f.relation, f.subject, f.obj) == (relation, subject, obj)}
                if len(found) != 1:
                    return UNANSWERABLE
                days.append(found.pop())
            return data("templates")["days"].format(n=abs((days[1] - days[0]).days))
        bridges = {f for f in facts if f.subject == asked.subject and f.relation == asked.bridge_relation}
        if len(bridges) != 1:
            return UNANSWERABLE
        bridge = bridges.pop()
        if asked.detail == "date" and read_date(asked.detail_value) != bridge.day:
            return UNANSWERABLE  # the question's day contradicts the article's
        if asked.detail == "place" and bridge.place != asked.detail_value:
            return UNANSWERABLE  # another place, or none stated: the premise cannot be checked
        answers = {f.obj for f in facts if f.subject == bridge.obj and f.relation == asked.answer_relation}
        return answers.pop() if len(answers) == 1 else UNANSWERABLE
