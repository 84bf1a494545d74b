"""What one row's prompt shows, read once for the shortcut audit: its question, its options, and its documents'
sentences as a reader without the generator sees them (who has an article, who is named in whose family or friend
lines, which values are stated).

The reading is written from the article text alone ("The sons of Ann Lee are Bo Lee, Cy Lee.", "The hobby of Ann
Lee is chess."), sharing nothing with the generator's own reader: a line whose predicate is an attribute states a
value, every other "The <relation> of <person> is/are <names>." line names people.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, wraps
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

Row = Mapping[str, Any]
T = TypeVar("T")

UNANSWERABLE = "Unanswerable"  # the refusal option of every multiple-choice row (README, "Multiple choice")
NAME = re.compile(r"(?<![A-Za-z])[A-Z][A-Za-z]+ [A-Z][A-Za-z]+(?![A-Za-z])")
LINE = re.compile(r"^The ([a-z][a-z -]*?) of ([A-Z][A-Za-z]+ [A-Z][A-Za-z]+) (?:is|are) (.+?)\.?$")
ATTRIBUTES = frozenset(
    {"date of birth", "occupation", "hobby", "place of birth", "city of residence", "school", "gender"}
)  # the attribute sentences an article states; every other sentence of its form names people
_ATTRIBUTE_WORDS = re.compile(r"date of birth|place of birth|city of residence")
_PREMISE = re.compile(r"\s*\((?:whose|who|born)[^)]*\)")
_RELATION_PREMISE = re.compile(r"[A-Za-z]'s [a-z]")
_WHOSE = re.compile(r"the person whose .*$")


@dataclass(frozen=True, eq=False)
class Prompt:
    """One row as its prompt shows it. The row is kept: probes read its question, closed-world sentence, documents
    and options, and the audit its labels to score them. Compared and hashed by identity, so that features of it can
    be kept while it lives (`per_prompt`)."""

    row: Row
    titles: tuple[str, ...]  # the documents' titles, in the order shown
    people: frozenset[str]  # everyone a shown document names: titles, subjects and the names in relation lines
    values: frozenset[str]  # every attribute value a shown document states
    mentions: Mapping[str, frozenset[str]]  # person -> titles of the shown articles whose relation lines name them
    absent: Mapping[str, frozenset[str]]  # the people of `mentions` who have no shown article
    stated_by: Mapping[str, int]  # person or value -> how many shown documents name or state it
    options: tuple[str, ...]
    lists: frozenset[frozenset[str]] = frozenset()  # the names of each shown relation line, as a set

    @property
    def question(self) -> str:
        return str(self.row["question"])

    def states(self, item: str) -> bool:
        """True when some shown document states `item` (a person it names or a value it gives)."""
        return item in self.people or item in self.values


@cache
def read_document(
    title: str, text: str
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], frozenset[frozenset[str]]]:
    """(people it names, values it states, people its relation lines name other than its subject, the names of each
    relation line) of one document; cached, as a universe's rows show the same articles many times over."""
    people, values, named, lists = {title}, set[str](), set[str](), set[frozenset[str]]()
    for line in text.splitlines():
        match = LINE.match(line.strip().lstrip("-* "))
        if not match:
            continue
        predicate, subject, rest = match.groups()
        people.add(subject)
        if predicate in ATTRIBUTES:
            values.add(rest)
        else:
            named.update(rest.split(", "))
            lists.add(frozenset(rest.split(", ")))
    named.discard(title)
    return tuple(sorted(people | named)), tuple(sorted(values)), tuple(sorted(named)), frozenset(lists)


def read_prompt(row: Row) -> Prompt:
    """Read a row's documents line by line, as the prompt shows them."""
    people: set[str] = set()
    values: set[str] = set()
    mentions: dict[str, set[str]] = {}
    stated_by: Counter[str] = Counter()
    lists: set[frozenset[str]] = set()
    titles = tuple(str(d["title"]) for d in row["documents"])
    for title, document in zip(titles, row["documents"]):
        names, stated, named, lines = read_document(title, str(document["text"]))
        lists.update(lines)
        people.update(names)
        values.update(stated)
        stated_by.update(names)
        stated_by.update(stated)
        for name in named:
            mentions.setdefault(name, set()).add(title)
    shown = set(titles)
    return Prompt(
        row=row,
        titles=titles,
        people=frozenset(people),
        values=frozenset(values),
        mentions={p: frozenset(t) for p, t in sorted(mentions.items())},
        absent={p: frozenset(t) for p, t in sorted(mentions.items()) if p not in shown},
        stated_by=stated_by,
        options=tuple(row.get("answer_options") or ()),
        lists=frozenset(lists),
    )


def per_prompt(features: Callable[[Prompt], T]) -> Callable[[Prompt], T]:
    """`features`, computed once per prompt while the prompt lives (several probes and both directions read the same
    features of a universe)."""
    kept: WeakKeyDictionary[Prompt, T] = WeakKeyDictionary()

    @wraps(features)
    def once(p: Prompt) -> T:
        if p not in kept:
            kept[p] = features(p)
        return kept[p]

    return once


def read_prompts(rows: Sequence[Row]) -> list[Prompt]:
    return [read_prompt(r) for r in rows]


def hops(question: str) -> int:
    """The relation and attribute steps a question's text asks for, counted from its words alone: one per "the
    <relation> of", one for "How many ... does", one for a relation premise ("Ann Lee's son Bo Lee")."""
    plain = _WHOSE.sub("the person", _PREMISE.sub("", question))
    plain = _ATTRIBUTE_WORDS.sub("attribute", plain)
    return (
        len(re.findall(r"\bof\b", plain))
        + plain.startswith("How many")
        + len(_RELATION_PREMISE.findall(plain.replace(" (", " ")))
    )


def named_in(question: str) -> list[str]:
    """The full names a question names, in order (a premise's value, such as a school, is left out)."""
    return NAME.findall(_PREMISE.sub("", question))


def looks_up(prompt: Prompt) -> bool:
    """True when the question names a person with no article among the documents (one look-up, not a shortcut)."""
    return any(name not in prompt.titles for name in named_in(prompt.question))


def label(prompt: Prompt) -> str:
    return str(prompt.row["answerable"])


def refuse(prompt: Prompt) -> str:
    """The binary label: answer (sufficient) or refuse."""
    return "answer" if prompt.row["answerable"] == "sufficient" else "refuse"
