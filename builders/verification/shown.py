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

_NONE: frozenset[str] = frozenset()


@dataclass
class Shown:
    """The facts of one row's documents: own articles by subject, what other articles state of each person, the
    genders sentences give."""

    own: dict[str, Article] = field(default_factory=dict)
    others: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (person, list) -> who else states it
    genders: dict[str, str] = field(default_factory=dict)
    two_genders: set[str] = field(default_factory=set)
    read: set[str] = field(
        default_factory=set
    )  # people whose own article a complete list or an attribute was read from
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
            return
        self.own[subject] = article
        self.unread += [(subject, line) for line in article.unread]
        others = self.others
        for key in article.about_others:
            found = others.get(key)
            if found is None:
                others[key] = {subject}
            else:
                found.add(subject)
        genders = self.genders
        for person, gender in article.genders:
            if genders.setdefault(person, gender) != gender:
                self.two_genders.add(person)

    def _stated(self, person: str, kind: str) -> frozenset[str] | set[str]:
        article = self.own.get(person)
        mine = article.sets.get(kind, _NONE) if article is not None else _NONE
        theirs = self.others.get((person, kind))
        return mine if theirs is None else mine | theirs

    def names(self, person: str) -> bool:
        """Whether any shown document names the person (as its subject or in a sentence)."""
        return any(person in article.names for article in self.own.values())

    def complete(self, person: str, kind: str) -> Sequence[str] | None:
        """The person's whole list of `kind` from their own article, or None when their article is not shown."""
        article = self.own.get(person)
        if article is None:
            return None
        self.read.add(person)
        return article.lists.get(kind, ())

    def known(self, person: str, kind: str) -> set[str]:
        """The people any document shows in the person's `kind` (maybe not all of them)."""
        found = set(self._stated(person, kind))
        if kind == "sibling":
            for parent in self._stated(person, "parent"):
                found |= self._stated(parent, "child")
        elif kind == "spouse":
            for child in self._stated(person, "child"):
                found |= self._stated(child, "parent")
        found.discard(person)
        return found

    def gender(self, person: str) -> str | None:
        """The gender some sentence gives the person (None when none does, or two disagree)."""
        return None if person in self.two_genders else self.genders.get(person)

    def value(self, person: str, key: str) -> tuple[bool, str | None]:
        """(whether the person's own article is shown, the value it states for attribute `key` or None)."""
        article = self.own.get(person)
        if article is None:
            return False, None
        self.read.add(person)
        return True, article.values.get(key)

    def disagreements(self) -> list[str]:
        """What the documents say against each other: two genders for one person, or a link other documents show
        (stated, or a sibling through a shared parent, a spouse through a shared child) that the person's own
        article leaves out of its complete list."""
        found = [f"{person} is given two genders" for person in sorted(self.two_genders)]
        for (person, kind), people in self.others.items():
            article = self.own.get(person)
            if article is not None:
                found += _left_out(person, kind, people, article)
        parents = {p for (p, kind) in self.others if kind == "child"} | {
            p for p, article in self.own.items() if "child" in article.sets
        }
        for parent in parents:  # a parent's children are each other's siblings, its co-parents its spouses
            children = self._stated(parent, "child")
            found += self._outside(children, "sibling")
            for child in children:
                found += self._outside(self._stated(child, "parent"), "spouse")
        return sorted(set(found))

    def _outside(self, group: frozenset[str] | set[str], kind: str) -> list[str]:
        """Each member of `group` whose own article is shown must list the others of it as its `kind`."""
        found = []
        for person in group:
            article = self.own.get(person)
            if article is not None and len(group) > 1:
                found += _left_out(person, kind, set(group) - {person}, article)
        return found


def _left_out(person: str, kind: str, shown: set[str], article: Article) -> list[str]:
    extra = shown - article.sets.get(kind, _NONE)
    if not extra:
        return []
    return [
        f"documents show {', '.join(sorted(extra))} in the {kind} list of {person}, which {person}'s own article "
        "leaves out"
    ]
