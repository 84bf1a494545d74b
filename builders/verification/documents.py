"""One document as the verifier reads it: its subject and what each sentence states, in markdown, text or HTML.

An article is "# Name", then sections whose lines are sentences "The {word} of {Name} is {object}." or "... are {a},
{b}."; the plain-text form drops the "# " and writes sections as "Family:", the HTML form wraps the same lines in
<h1>, <h2> and <p>. Only sentences about the article's own subject are read; a line that reads as none is kept as
unread, for the checks to report.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import cached_property

from .words import attributes, sentence_words

INVERSE = {"parent": "child", "child": "parent", "sibling": "sibling", "spouse": "spouse", "friend": "friend"}
"""What the subject is to a person in its list of each kind (a parent's child, a sibling's sibling, ...)."""
_TAG = re.compile(r"^<(h1|h2|p)>(.*)</\1>$")


@dataclass
class Article:
    """What one document states about its subject: its lists (as stated), the genders its sentences give, its
    attributes, and any line it could not read."""

    subject: str
    lists: dict[str, list[str]] = field(default_factory=dict)  # parent / child / sibling / spouse / friend -> names
    genders: list[tuple[str, str]] = field(default_factory=list)  # (a named person, the gender a sentence gives)
    values: dict[str, str] = field(default_factory=dict)  # attribute key -> value (gender included)
    unread: list[str] = field(default_factory=list)

    @cached_property
    def names(self) -> frozenset[str]:
        """Every person the document names: its subject and everyone in its lists."""
        return frozenset({self.subject}.union(*self.lists.values()))

    @cached_property
    def sets(self) -> dict[str, frozenset[str]]:
        """Each list as a set."""
        return {kind: frozenset(people) for kind, people in self.lists.items()}

    @cached_property
    def about_others(self) -> tuple[tuple[str, str], ...]:
        """What the document says of the others it names: (person, the list of theirs the subject belongs to)."""
        return tuple((person, INVERSE[kind]) for kind, people in self.lists.items() for person in people)


def _lines(text: str) -> list[str]:
    """The document's lines as text: the heading first (without "# " or tags), then the sentence lines."""
    raw = [line.strip() for line in text.splitlines() if line.strip()]
    if raw and raw[0] == "<article>":
        out = []
        for line in raw[1:]:
            match = _TAG.match(line)
            if match and match.group(1) != "h2":
                out.append(html.unescape(match.group(2)))
        return out
    if raw and raw[0].startswith("# "):
        raw[0] = raw[0][2:]
    return [raw[0]] + [line for line in raw[1:] if line.startswith("The ")] if raw else []


def read_document(text: str) -> Article:
    """The article a document's text holds (any of the three formats)."""
    lines = _lines(text)
    if not lines:
        return Article("", unread=["(an empty document)"])
    article = Article(lines[0].strip())
    for line in lines[1:]:
        _read_sentence(article, line)
    return article


def _read_sentence(article: Article, line: str) -> None:
    subject = article.subject
    for verb in (" is ", " are "):
        head, found, rest = line.partition(f" of {subject}{verb}")
        if found and head.startswith("The ") and rest.endswith("."):
            break
    else:
        article.unread.append(line)
        return
    word, objects = head[len("The ") :], rest[:-1]
    if word in sentence_words():
        kind, gender = sentence_words()[word]
        names = objects.split(", ")
        article.lists.setdefault(kind, []).extend(names)
        if gender is not None:
            article.genders += [(name, gender) for name in names]
    elif word in attributes() and verb == " is ":
        key = attributes()[word].key
        article.values[key] = objects
        if key == "gender":
            article.genders.append((subject, objects))
    else:
        article.unread.append(line)
