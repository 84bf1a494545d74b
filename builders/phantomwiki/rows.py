"""A configuration's rows, subset by subset, from the stages' plain objects (stages.py, whose `generate` and
`prepare` it hands on, so that one import makes a universe and its rows)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol, TypeVar

from .articles import article_facts
from .instances import Evidence, build_rag, check_length, question_instances
from .prolog import program_text
from .stages import Generated, Progress, complete, generate, generate_universe, timed

__all__ = [
    "PARTS",
    "ROWS",
    "WHOLE",
    "Generated",
    "Part",
    "Progress",
    "complete",
    "generate",
    "generate_universe",
    "needs",
    "part_of",
    "prepare",
    "shared_evidence",
    "stage_names",
]


def shared_evidence(generated: Generated) -> Evidence:
    """The parsed articles and BM25 index that the `instances` and `rag` subsets share, built once per universe."""
    evidence = generated.derived.get("evidence")
    if not isinstance(evidence, Evidence):
        with timed(generated.timings, "evidence", generated.progress):
            evidence = generated.derived["evidence"] = Evidence(generated)
    return evidence


def instance_evidence(generated: Generated) -> Evidence:
    """The shared evidence, once checked for the `instances` subset: with `context_tokens` set, a length the
    universe cannot fill is refused (a one-line ConfigError) before any row is written, whatever writes them."""
    evidence = shared_evidence(generated)
    if not generated.derived.get("instance length checked"):
        check_length(evidence, generated.questions)
        generated.derived["instance length checked"] = True
    return evidence


Part = tuple[int, int]
"""(index, count): the index-th of `count` contiguous parts of a subset's rows; in order they make up the subset."""
WHOLE: Part = (0, 1)
PARTS = 16
"""Contiguous parts of a subset's rows: the shards `load_dataset(num_proc=K)` spreads over K processes (at most 16)
and the units cli/forked_rows.py hands to its workers; in order they make up the subset, so any number of processes
gives the same rows."""
T = TypeVar("T")


def part_of(items: Sequence[T], part: Part) -> Sequence[T]:
    """The `part` of `items`: contiguous, sizes within one of each other (parts of a subset can be written apart)."""
    index, count = part
    if not 0 <= index < count:
        raise ValueError(f"part {index} of {count} does not exist")
    return items[len(items) * index // count : len(items) * (index + 1) // count]


def question_rows(generated: Generated, part: Part = WHOLE) -> Iterator[dict]:
    """Rows of the `questions` subset."""
    for q in part_of(generated.questions, part):
        yield {
            "id": q.id,
            "question": q.question,
            "answer": q.answer,
            "prolog": {"query": q.query, "answer": q.answer_variable},
            "template": q.template,
            "type": q.type,
            "difficulty": q.difficulty,
            "is_aggregation_question": q.is_aggregation_question,
            "evidence": q.evidence,
        }


def corpus_rows(generated: Generated, part: Part = WHOLE) -> Iterator[dict]:
    """Rows of the `corpus` subset: title, article, and the facts it states."""
    universe, articles = generated.universe, generated.articles
    for person in part_of(range(len(articles)), part):
        article = articles[person]
        yield {"title": article.title, "article": article.article, "facts": article_facts(universe, person)}


def database_rows(generated: Generated, part: Part = WHOLE) -> Iterator[dict]:
    """The one row of the `database` subset: the universe as a Prolog program (v1 form), in the first part."""
    if part_of([0], part):
        yield {"content": program_text(generated.universe)}


def instance_rows(generated: Generated, part: Part = WHOLE) -> Iterator[dict]:
    """Rows of the `instances` subset: sufficient / insufficient evidence with distractors, per question."""
    evidence = instance_evidence(generated)
    for question in part_of(generated.questions, part):  # question by question, so a subset is never held whole
        yield from question_instances(evidence, question)


def rag_rows(generated: Generated, part: Part = WHOLE) -> Iterator[dict]:
    """Rows of the `rag` subset: each question with its BM25 top-k articles and whether they suffice."""
    questions = part_of(generated.questions, part)
    yield from build_rag(generated, evidence=shared_evidence(generated), questions=questions)


def needs(subsets: Sequence[str]) -> tuple[bool, bool, bool]:
    """(questions, articles, evidence): the stages beyond the universe that writing `subsets` runs."""
    evidence = any(subset in ("instances", "rag") for subset in subsets)
    return "questions" in subsets or evidence, "corpus" in subsets or evidence, evidence


def stage_names(subsets: Sequence[str]) -> list[str]:
    """The stages writing `subsets` of one universe runs, in order (what a progress bar counts)."""
    questions, articles, evidence = needs(subsets)
    return ["universe"] + ["articles"] * articles + ["questions"] * questions + ["evidence"] * evidence


def prepare(generated: Generated, subsets: Sequence[str]) -> Generated:
    """Run the stages `subsets` need that `generated` has not run yet, so several subsets share one universe."""
    questions, articles, evidence = needs(subsets)
    complete(generated, with_questions=questions, with_articles=articles)
    if evidence:
        shared_evidence(generated)
    if "instances" in subsets:
        instance_evidence(generated)
    return generated


class Rows(Protocol):
    """A subset's row maker: the rows of one part of it (all of it by default)."""

    def __call__(self, generated: Generated, part: Part = WHOLE) -> Iterator[dict]: ...


ROWS: dict[str, Rows] = {
    "questions": question_rows,
    "corpus": corpus_rows,
    "database": database_rows,
    "instances": instance_rows,
    "rag": rag_rows,
}
