"""What a row's documents show, read by the rule the labels follow.

A fact is shown when any shown document states it, in either direction: "The sister of A is B" shows that A and B
are siblings and that B is female, whoever's article says it. Siblings also share a stated parent and spouses a
stated child (the universe defines them so). A list is complete only in the person's own article: the lists and
attributes of a person whose article is shown are exactly their own article's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .documents import Article
from .words import LISTS

_INVERSE = {"parent": "child", "child": "parent", "sibling": "sibling", "spouse": "spouse", "friend": "friend"}


@dataclass
class Shown:
    """The facts of one row's documents: own articles by subject, every stated link both ways, genders, names."""

    own: dict[str, Article] = field(default_factory=dict)
    stated: dict[str, dict[str, set[str]]] = field(default_factory=dict)  # person -> list kind -> people
    genders: dict[str, set[str]] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)
    repeated: list[str] = field(default_factory=list)  # subjects with more than one document
    unread: list[tuple[str, str]] = field(default_factory=list)  # (subject, line)

    @classmethod
    def of(cls, articles: Iterable[Article]) -> Shown:
        """The facts shown by `articles` together."""
        shown = cls()
        for article in articles:
            shown._add(article)
        return shown

    def _add(self, article: Article) -> None:
        subject = article.subject
        if subject in self.own:
            self.repeated.append(subject)
        else:
            self.own[subject] = article
        self.names |= article.names()
        self.unread += [(subject, line) for line in article.unread]
        for kind, people in article.lists.items():
            for person in people:
                self._link(subject, kind, person)
        for person, gender in article.genders:
            self.genders.setdefault(person, set()).add(gender)

    def _link(self, subject: str, kind: str, person: str) -> None:
        self.stated.setdefault(subject, {}).setdefault(kind, set()).add(person)
        self.stated.setdefault(person, {}).setdefault(_INVERSE[kind], set()).add(subject)

    def _stated(self, person: str, kind: str) -> set[str]:
        return self.stated.get(person, {}).get(kind, set())

    def complete(self, person: str, kind: str) -> Sequence[str] | None:
        """The person's whole list of `kind` from their own article, or None when their article is not shown."""
        article = self.own.get(person)
        return None if article is None else article.lists.get(kind, ())

    def known(self, person: str, kind: str) -> set[str]:
        """The people any document shows in the person's `kind` (maybe not all of them)."""
        found = set(self._stated(person, kind))
        if kind == "sibling":
            found |= {c for p in self._stated(person, "parent") for c in self._stated(p, "child")}
        elif kind == "spouse":
            found |= {p for c in self._stated(person, "child") for p in self._stated(c, "parent")}
        return found - {person}

    def gender(self, person: str) -> str | None:
        """The gender some sentence gives the person (None when none does, or two disagree)."""
        found = self.genders.get(person, set())
        return next(iter(found)) if len(found) == 1 else None

    def value(self, person: str, key: str) -> tuple[bool, str | None]:
        """(whether the person's own article is shown, the value it states for attribute `key` or None)."""
        article = self.own.get(person)
        return (False, None) if article is None else (True, article.values.get(key))

    def disagreements(self) -> list[str]:
        """What the documents say against each other: two genders for one person, or a link another document shows
        that the person's own article leaves out of its complete list."""
        found = [f"{person} is given two genders" for person, genders in self.genders.items() if len(genders) > 1]
        for person, article in self.own.items():
            for kind in LISTS:
                extra = self.known(person, kind) - set(article.lists.get(kind, ()))
                if extra:
                    found.append(
                        f"documents show {', '.join(sorted(extra))} in the {kind} list of {person}, "
                        f"which {person}'s own article leaves out"
                    )
        return found
