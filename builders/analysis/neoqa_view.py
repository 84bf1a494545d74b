"""What a NeoQA prompt shows, read as a lazy reader reads it: the question, its date, the options in order, and each
shown article's headline, date and passages, with the days, numbers and places the text states.

The reader is written from the prompt alone (leakproof_eval/prompts/neoqa.txt), not from the generator: days are
found by general date patterns ("March 3, 2025", "3 March 2025", "Mar. 3", "2025-03-03", "3/3/2025"), numbers by a
general number pattern (currency, thousands separators, decimals, "million", "8.7M", "45%"), a place as "in" and
capitalised words. A row's label and gold index are kept beside the view for scoring, never read by a probe.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import Any

UNANSWERABLE = "Unanswerable"
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH = r"(?P<month>" + "|".join(f"{m[:3]}(?:{m[3:]}|{m[3]})?" if m[3:] else m for m in MONTHS) + r")(?![a-z])\.?"
"""A month written in full or by its first three or four letters ("Mar", "Sept", not "Marlholt"), a dot after it or
not."""
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_DATES = [
    re.compile(rf"\b{_MONTH}\s+{_DAY}\b(?:,?\s+{_YEAR}\b)?", re.IGNORECASE),  # March 3, 2025 / Mar. 3
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR}\b)?", re.IGNORECASE),  # 3 March 2025
    re.compile(r"\b(?P<year>\d{4})-(?P<month>\d\d)-(?P<day>\d\d)\b"),  # 2025-03-03
    re.compile(r"\b(?P<month>1[0-2]|0?[1-9])/(?P<day>[0-3]?\d)/(?P<year>\d{4})\b"),  # 3/3/2025
]
_NUMBER = re.compile(
    r"(?P<currency>[$€£¥])?\s?(?P<value>\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)"
    r"(?:\s?(?P<word>thousand|million|billion|trillion)\b|(?P<letter>[kKmMbB]|bn)\b)?(?P<percent>\s?%)?"
)
_SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "k": 1e3, "m": 1e6, "b": 1e9, "bn": 1e9}
_PLACE = re.compile(r"\bin\s+((?:[A-Z][\w'’-]*)(?:\s+[A-Z][\w'’-]*)*)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _month(text: str) -> int:
    return int(text) if text.isdigit() else next(i for i, m in enumerate(MONTHS, 1) if m.startswith(text[:3].lower()))


def days_in(text: str, year: int | None = None) -> list[date]:
    """Every day `text` states, in order of appearance; a day written without a year takes `year` (the reader's
    "this year", the date of the question or article), or is skipped when none is given."""
    found: dict[int, date] = {}
    for pattern in _DATES:
        for match in pattern.finditer(text):
            if match.start() in found:
                continue
            written_year = match.group("year")
            if written_year is None and year is None:
                continue
            try:
                day = date(int(written_year or year or 0), _month(match.group("month")), int(match.group("day")))
            except ValueError:  # "February 30": no day
                continue
            found[match.start()] = day
    return [found[start] for start in sorted(found)]


def number_in(text: str) -> float | None:
    """The value of the first number in `text` ("$8.7M" 8.7e6, "1,250 visitors" 1250, "45%" 45, "12 days" 12), or
    None when it holds none."""
    match = _NUMBER.search(text)
    if match is None:
        return None
    value = float(match.group("value").replace(",", ""))
    scale = match.group("word") or match.group("letter")
    return value * _SCALE[scale.lower()] if scale else value


def unit_of(text: str) -> str:
    """What a number in `text` counts, read around its first number: a currency sign, "%", the words ("days",
    "visitors"), "" for a bare number."""
    match = _NUMBER.search(text)
    if match is None:
        return text
    words = re.sub(r"[^a-z ]", "", (text[: match.start()] + " " + text[match.end() :]).lower()).split()
    return " ".join([match.group("currency") or "", "%" if match.group("percent") else "", *words]).strip()


def place_in(question: str) -> str | None:
    """The place a question names as "in <Capitalised Words>" (the last such phrase; not a month), or None."""
    places = [m.group(1) for m in _PLACE.finditer(question) if m.group(1).split()[0].lower() not in MONTHS]
    return places[-1] if places else None


def names_in(question: str) -> list[str]:
    """The runs of capitalised words a question holds after its first word ("Cobalt Logistics"), but months and
    the words of a day."""
    words = re.findall(r"[\w'’-]+|[^\w\s]", question)[1:]
    runs, run = [], []
    for word in [*words, "."]:
        if word[:1].isupper() and word.lower() not in MONTHS:
            run.append(word)
        elif run:
            runs.append(" ".join(run))
            run = []
    return runs


def sentences(passage: str) -> list[str]:
    """A passage cut into sentences at ".", "!" or "?" followed by a space."""
    return [s for s in _SENTENCE_END.split(passage) if s]


def iso_day(text: str) -> date:
    """A date as the prompt's "Date:" lines write it (YYYY-MM-DD)."""
    return date.fromisoformat(text)


@dataclass
class Article:
    """One shown article as a reader sees it: its text, its date, and the days its sentences state."""

    headline: str
    day: date
    text: str = field(repr=False)  # headline and passages, one a line
    stated: Counter[date]  # day -> how many sentences of the passages state it
    sentences: int
    found: dict[str, tuple[int, int]] = field(default_factory=dict, repr=False)  # option -> (times, first offset)

    def find(self, option: str) -> tuple[int, int]:
        """How often the article's text names `option` (as whole words), and where first (an offset, or -1)."""
        if option not in self.text:
            return (0, -1)
        if option not in self.found:
            starts = [m.start() for m in re.finditer(rf"(?<!\w){re.escape(option)}(?!\w)", self.text)]
            self.found[option] = (len(starts), starts[0] if starts else -1)
        return self.found[option]


def read_article(document: Mapping[str, Any]) -> Article:
    """An article of the prompt (headline, date, passages) as the reader sees it."""
    day = iso_day(document["date"])
    stated: Counter[date] = Counter()
    count = 0
    for passage in document["passages"]:
        for sentence in sentences(passage):
            count += 1
            stated.update(set(days_in(sentence, day.year)))
    text = "\n".join([document["headline"], *document["passages"]])
    return Article(document["headline"], day, text, stated, count)


@dataclass(frozen=True)
class Naming:
    """Where a prompt's articles name a string: how often, in how many articles, first (article number, offset)."""

    times: int
    articles: int
    first: tuple[int, int] | None
    in_headline: bool


@dataclass
class Shown:
    """One prompt: what a model sees (question, its date, options in order, articles in order) and, apart, what
    scoring needs (the row's label and gold index; the row itself for grouping and order)."""

    question: str
    day: date
    options: list[str]
    articles: list[Article] = field(repr=False)
    label: str  # sufficient, insufficient or unanswerable: never read by a probe
    gold: int
    row: Mapping[str, Any] = field(repr=False)
    named: dict[str, Naming] = field(default_factory=dict, repr=False)  # option -> where the articles name it

    @cached_property
    def choices(self) -> list[int]:
        """The indices of the options but "Unanswerable"."""
        return [i for i, o in enumerate(self.options) if o != UNANSWERABLE]

    def naming(self, option: str) -> Naming:
        """Where the shown articles name `option` (kept: the probes ask again and again)."""
        if option not in self.named:
            times, articles, first, headline = 0, 0, None, False
            for number, article in enumerate(self.articles):
                count, offset = article.find(option)
                if count:
                    times, articles = times + count, articles + 1
                    first = first or (number, offset)
                    headline = headline or option in article.headline
            self.named[option] = Naming(times, articles, first, headline)
        return self.named[option]

    def mentions(self, option: str) -> int:
        """How often the shown articles name `option`."""
        return self.naming(option).times

    @cached_property
    def numbers(self) -> dict[int, float] | None:
        """Each option's number (but "Unanswerable"), when every one holds a number and no two are equal, else
        None."""
        found = {i: number_in(self.options[i]) for i in self.choices}
        numbers = {i: v for i, v in found.items() if v is not None}
        if len(numbers) < 2 or len(numbers) < len(found) or len(set(numbers.values())) < len(numbers):
            return None
        return numbers

    @cached_property
    def stated(self) -> Counter[date]:
        """Each day the shown passages state, with how many sentences state it."""
        stated: Counter[date] = Counter()
        for article in self.articles:
            for day, times in article.stated.items():
                stated[day] += times
        return stated

    @cached_property
    def question_day(self) -> date | None:
        """The first day the question states (a day without a year is in the question's year), or None."""
        days = days_in(self.question, self.day.year)
        return days[0] if days else None

    @cached_property
    def place(self) -> str | None:
        """The place the question names ("in <Capitalised Words>"), or None."""
        return place_in(self.question)


def answer_or_refuse(shown: Shown) -> str:
    """The output a model gives: answer (a sufficient row) or refuse."""
    return "answer" if shown.label == "sufficient" else "refuse"


def read_rows(rows: Iterable[Mapping[str, Any]]) -> list[Shown]:
    """The prompts of instance rows with documents; an article shown by many rows is read once (by its id, which
    names the same headline, date and passages wherever it is shown)."""
    read: dict[str, Article] = {}
    prompts = []
    for row in rows:
        articles = []
        for document in row["documents"]:
            key = document["article_id"]
            if key not in read:
                read[key] = read_article(document)
            articles.append(read[key])
        prompts.append(
            Shown(
                row["question"],
                iso_day(row["date"]),
                list(row["answer_options"]),
                articles,
                row["answerable"],
                row["gold_answer_idx"],
                row,
            )
        )
    return prompts


def label_of(prompts: Sequence[Shown]) -> list[str]:
    """answer_or_refuse of each prompt."""
    return [answer_or_refuse(p) for p in prompts]
