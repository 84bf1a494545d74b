"""Verify rows: each row's documents read once (a document seen in an earlier row is not parsed again), its labels
checked, one problem line per row that has any."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .checks import row_problems
from .documents import Article, read_document
from .shown import Shown

SUBSETS = ("instances", "rag")
"""The subsets whose rows carry documents and labels to check."""


@dataclass(frozen=True)
class Problem:
    """What is wrong with one row, in words."""

    instance_id: str
    subset: str  # the subset, or the configuration holding it (n500_s1_instances)
    problems: tuple[str, ...]

    def line(self) -> str:
        """The problem as one line: the row, where it is (its subset), what is wrong."""
        return f"{self.instance_id} {self.subset}: " + "; ".join(self.problems)


@dataclass
class Tally:
    """Rows checked and rows with a problem, per subset, and the seconds spent checking them (wall and CPU)."""

    checked: dict[str, int] = field(default_factory=dict)
    flagged: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # of this process: what the checks cost on a machine shared with others

    def summary(self) -> str:
        """One line per subset and the speed."""
        rows = sum(self.checked.values())
        parts = [
            f"{subset}: {self.checked[subset]:,} rows, {self.flagged.get(subset, 0):,} with problems"
            for subset in self.checked
        ]
        speed = rows / self.seconds if self.seconds > 0 else float("inf")
        return "; ".join(parts) + (
            f"; {rows:,} rows in {self.seconds:.2f} s ({speed:,.0f} rows/s; {self.cpu_seconds:.2f} s of CPU)"
        )


class Verifier:
    """Checks rows, keeping each document's reading for the rows after it."""

    def __init__(self) -> None:
        self._read: dict[str, Article] = {}
        self.tally = Tally()

    def _article(self, text: str) -> Article:
        article = self._read.get(text)
        if article is None:
            article = self._read[text] = read_document(text)
        return article

    def problems(self, row: Mapping[str, Any], subset: str) -> list[str]:
        """Everything wrong with one row of `subset` (a row not shaped as rows are is one problem, not an error)."""
        malformed = _malformed(row)
        if malformed:
            return [malformed]
        articles, misnamed = [], []
        for document in row["documents"]:
            text = document.get("text", "") if isinstance(document, Mapping) else document
            article = self._article(text)
            articles.append(article)
            title = document.get("title") if isinstance(document, Mapping) else None
            if title is not None and title != article.subject:
                misnamed.append(f"the document titled {title!r} is the article of {article.subject!r}")
        return misnamed + row_problems(row, subset, Shown.of(articles))

    def rows(self, rows: Iterable[Mapping[str, Any]], subset: str, where: str | None = None) -> Iterator[Problem]:
        """A Problem for each row of `subset` that has one, named by `where` (the subset, or its configuration's
        name); the tally counts every row under it."""
        if subset not in SUBSETS:
            raise ValueError(f"verify checks the {' and '.join(SUBSETS)} subsets, not {subset!r}")
        where = where or subset
        self.tally.checked.setdefault(where, 0)
        for row in rows:
            began, cpu = time.perf_counter(), time.process_time()
            found = self.problems(row, subset)
            self.tally.seconds += time.perf_counter() - began
            self.tally.cpu_seconds += time.process_time() - cpu
            self.tally.checked[where] += 1
            if found:
                self.tally.flagged[where] = self.tally.flagged.get(where, 0) + 1
                yield Problem(str(row.get("instance_id", "?")), where, tuple(found))


def _malformed(row: Mapping[str, Any]) -> str:
    """What makes a row unreadable ("" when nothing does): rows come from files others wrote."""
    if not isinstance(row, Mapping):
        return f"the row is a {type(row).__name__}, not a mapping of columns"
    if not isinstance(row.get("question"), str):
        return "its question is not a string"
    documents = row.get("documents")
    if not isinstance(documents, list) or not all(
        isinstance(d, str) or (isinstance(d, Mapping) and isinstance(d.get("text"), str)) for d in documents
    ):
        return "its documents are not a list of texts (or of {title, text})"
    options = row.get("answer_options")
    if options is not None and not (isinstance(options, list) and all(isinstance(o, str) for o in options)):
        return "its answer_options are not a list of strings"
    answer = row.get("answer")
    if not (isinstance(answer, list) and all(isinstance(a, str) for a in answer)):
        return "its answer is not a list of strings"
    return ""
