"""The agent's questions and articles from a published release (`agent --release`), instead of a generated universe.

A released question carries its query, not its required set (the articles that prove the answer complete), which the
oracle replays and the summary's minimum calls count. The rule that defines that set (builders/phantomwiki/required.py)
reads each person's own article, so it is read here from the released articles themselves: the set is the people
whose own article the rule reads, evaluating the query over the whole corpus. On a universe this version generates it
equals `RequiredSets(universe).titles(query)` for every question (tests/env/test_agent_release.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from leakproof_qa.builders.phantomwiki.reading import Names, article_statements, compile_article, parsed_query
from leakproof_qa.builders.phantomwiki.required import DocumentSource, Shown, consulted

from .runner import Task
from .tools import Corpus


def required_titles(reading: Shown, query: Sequence[str]) -> list[str]:
    """The required set of a chain query, read from a whole corpus, as sorted article titles."""
    first = parsed_query(tuple(query))[0]
    holders = None
    if first.inverse:  # the closed world: the corpus holds every article, so every holder of the value
        value, source = first.source.strip()[1:-1], DocumentSource(reading)
        holders = sum(source.attribute(person, first.predicate) == value for person in reading.own)
    return sorted(reading.names.names[person] for person in consulted(reading, query, holders))


class ReleaseRowsError(ValueError):
    """Released rows the agent cannot use (an article it cannot read, a question naming nobody in the corpus)."""


def corpus_of(corpus_rows: Sequence[Mapping[str, Any]]) -> Corpus:
    """The tools' corpus: the released articles in release order."""
    return Corpus([(row["title"], row["article"]) for row in corpus_rows])


def tasks_of_rows(question_rows: Sequence[Mapping[str, Any]], corpus_rows: Sequence[Mapping[str, Any]]) -> list[Task]:
    """Every released question as a task, in release order, its required set read from the released articles."""
    try:
        names = Names()
        reading = Shown.of((compile_article(names, *article_statements(row["article"])) for row in corpus_rows), names)
    except (ValueError, IndexError) as error:  # an article not of the form write_article writes
        raise ReleaseRowsError(f"a released article cannot be read ({error}); re-download the release") from None
    tasks = []
    for row in question_rows:
        query = list(row["prolog"]["query"])
        try:
            required = required_titles(reading, query)
        except LookupError as error:  # required.Missing: the query names someone without an article
            raise ReleaseRowsError(
                f"question {row['id']} asks about {error}, who has no article in the released corpus; the release's "
                "questions and corpus do not belong together"
            ) from None
        tasks.append(Task(row["id"], row["question"], list(row["answer"]), query, required))
    return tasks
