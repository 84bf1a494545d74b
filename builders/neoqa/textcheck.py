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
_SENTENCE_END = re.compile(r'(?<=[.?!])\s+(?=[A-Z$"])|(?<=[.?!]")\s+(?=[A-Z$"])')
_NAME = r"[A-Z][A-Za-z'-]*(?: [A-Z][A-Za-z'-]*)*"
_VALUE = {
    "money": r"\$[0-9][0-9,]*(?:\.[0-9]+)?(?: million)?",
    "count": r"[0-9][0-9,]*",
    "percent": r"[0-9]+(?:\.5)?%",
    "kilometres": r"[0-9]+(?:\.5)? kilometres?",
    "hectares": r"[0-9]+(?:\.5)? hectares?",
    "quote": r'[^"]+',
}
"""What a value of each literal type looks like in the text (an entity's name: capitalised words)."""


@dataclass(frozen=True)
class Said:
    """One fact as the text says it."""

    relation: str
    subject: str
    obj: str
    day: datetime.date
    place: str | None
    at: str | None = None  # the organization of a post


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
def _roles() -> str:
    """Any post a genre names (a post is one of them, not any words)."""
    return (
        "(?:"
        + "|".join(sorted({re.escape(r) for g in data("world")["genres"] for r in g["roles"]}, key=len)[::-1])
        + ")"
    )


def _object_pattern(spec: Mapping[str, Any]) -> str:
    return _roles() if spec["object"] == "role" else _VALUE.get(spec["object"], _NAME)


@cache
def sentence_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """(relation, regex) for every wording of every relation: names where names go, values where values go."""
    where = "(?:" + re.escape(data("templates")["where"]).replace(re.escape("{place}"), f"(?P<place>{_NAME})") + ")?"
    patterns = []
    for relation, spec in data("templates")["relations"].items():
        slots = {
            "s": f"(?P<s>{_NAME})",
            "o": f"(?P<o>{_object_pattern(spec)})",
            "date": _date_pattern("date"),
            "where": where,
            "at": f"(?P<at>{_NAME})",
        }
        patterns += [(relation, _regex(wording, slots)) for wording in spec["sentences"]]
    return patterns


def _recalled(sentence: str) -> str:
    """A background sentence without its opener ("Earlier, on May 3, ..." -> "On May 3, ...")."""
    for opener in data("templates")["background"]:
        if sentence.startswith(opener):
            rest = sentence[len(opener) :]
            return rest[0].upper() + rest[1:] if rest else rest
    return sentence


def read_sentence(sentence: str) -> list[Said]:
    """Every distinct fact the sentence can be read as (none for a sentence that is not a fact)."""
    readings: list[Said] = []
    for text in dict.fromkeys((sentence, _recalled(sentence))):
        for relation, pattern in sentence_patterns():
            match = pattern.fullmatch(text)
            if match:
                found = match.groupdict()
                reading = Said(
                    relation, found["s"], found["o"], read_date(found["date"]), found.get("place"), found.get("at")
                )
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
        line for outlet in outlets for line in (*outlet["openings"], *outlet["lines"], *outlet["closings"])
    )


def _any(words: Iterable[str]) -> str:
    return "(?:" + "|".join(re.escape(word) for word in words) + ")"


@cache
def _prose_patterns() -> list[re.Pattern[str]]:
    """The reactions and views the prose banks make, as regexes (any outlet's feelings and views)."""
    templates = data("templates")
    prose, outlets = templates["prose"], templates["outlets"]
    near = _any(n.replace("{place}", "\0") for n in prose["near"] if n).replace(re.escape("\0"), _NAME)
    slots = {
        "group": _any(prose["groups"]),
        "near": f"(?:{near})?",
        "said": _any(prose["said"]),
        "feeling": _any(f for outlet in outlets for f in outlet["feelings"]),
        "when": "(?:" + _any(w for w in prose["when"] if w) + ")?",
        "analyst": _any(prose["analysts"]),
        "view": _any(v for outlet in outlets for v in outlet["views"]),
    }
    return [_regex(prose["reaction"], slots), _regex(prose["view"], slots)]


def is_fact_free(sentence: str) -> bool:
    """True when a sentence is an outlet's fact-free line, reaction or view (no date, no relation)."""
    return sentence in _fact_free_lines() or any(p.fullmatch(sentence) for p in _prose_patterns())


@cache
def _headline_patterns() -> list[re.Pattern[str]]:
    return [
        _regex(headline, {"name": f"(?P<name>{_NAME})"})
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
        elif not is_fact_free(sentence):
            problems.append(f"{news_row['article_id']}: neither a fact nor a fact-free line: {sentence!r}")
    return said, problems


@cache
def _LITERAL_RELATIONS() -> frozenset[str]:
    return frozenset(r for r, spec in data("templates")["relations"].items() if spec["object"] in {*_VALUE, "role"})


def article_problems(news_row: Mapping[str, Any], outline: Mapping[str, Said], names: set[str]) -> list[str]:
    """What is wrong with an article: a sentence that reads no or two ways, a fact not among its used_items, an
    item it does not state, a name no entity has, a headline that is not a fact-free headline."""
    said, problems = article_facts(news_row)
    promised = {outline[item] for item in news_row["used_items"]}
    article = news_row["article_id"]
    problems += [f"{article}: states {fact} beyond its used_items" for fact in sorted(said - promised, key=str)]
    problems += [f"{article}: does not state {fact}" for fact in sorted(promised - said, key=str)]
    for fact in said:
        entity_object = re.fullmatch(_NAME, fact.obj) is not None and fact.relation not in _LITERAL_RELATIONS()
        for name in (fact.subject, fact.obj if entity_object else None, fact.place, fact.at):
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
    clauses: tuple[tuple[str, str, str, str | None], ...] = ()  # time-span: (relation, subject, object, post's
    # organization) twice


@cache
def _question_patterns() -> dict[str, list[tuple[str, re.Pattern[str]]]]:
    templates = data("templates")
    relations = templates["relations"]
    details = templates["details"]
    detail = (
        "(?:"
        + re.escape(details["date"]).replace(re.escape("{date}"), _date_pattern("date"))
        + "|"
        + re.escape(details["place"]).replace(re.escape("{place}"), f"(?P<place>{_NAME})")
        + ")?"
    )
    return {
        "ask": [(r, _regex(spec["ask"], {"x": "(?P<x>.+)"})) for r, spec in relations.items()],
        "noun": [
            (r, re.compile(_regex(spec["noun"], {"s": f"(?P<s>{_NAME})"}).pattern + detail))
            for r, spec in relations.items()
            if spec["noun"]
        ],
        "clause": [
            (
                r,
                _regex(
                    spec["clause"],
                    {"s": f"(?P<s>{_NAME})", "o": f"(?P<o>{_object_pattern(spec)})", "at": f"(?P<at>{_NAME})"},
                ),
            )
            for r, spec in relations.items()
        ],
        "span": [("time-span", _regex(templates["time_span"], {"a": "(?P<a>.+?)", "b": "(?P<b>.+?)"}))],
    }


def _clause(text: str) -> tuple[str, str, str, str | None] | None:
    found = {
        (r, m["s"], m["o"], m.groupdict().get("at"))
        for r, p in _question_patterns()["clause"]
        if (m := p.fullmatch(text))
    }
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
            for clause in asked.clauses:
                found = {f.day for f in facts if (f.relation, f.subject, f.obj, f.at) == clause}
                if len(found) != 1:
                    return UNANSWERABLE
                days.append(found.pop())
            span = abs((days[1] - days[0]).days)
            return data("templates")["day" if span == 1 else "days"].format(n=span)
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
