"""A configuration's rows, subset by subset, from the stages' plain objects (stages.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from .instances import Evidence, build_instances, build_rag
from .prolog import program_text
from .stages import Generated, Progress, complete, generate, generate_universe, timed

__all__ = [
    "ROWS",
    "Generated",
    "Progress",
    "complete",
    "generate",
    "generate_universe",
    "needs",
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


def question_rows(generated: Generated) -> Iterator[dict]:
    """Rows of the `questions` subset."""
    for q in generated.questions:
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


def corpus_rows(generated: Generated) -> Iterator[dict]:
    """Rows of the `corpus` subset: title, article, and the facts it states."""
    for article in generated.articles:
        yield {"title": article.title, "article": article.article, "facts": article.facts}


def database_rows(generated: Generated) -> Iterator[dict]:
    """The one row of the `database` subset: the universe as a Prolog program (v1 form)."""
    yield {"content": program_text(generated.universe)}


def instance_rows(generated: Generated) -> Iterator[dict]:
    """Rows of the `instances` subset: sufficient / insufficient evidence with distractors, per question."""
    yield from build_instances(generated, evidence=shared_evidence(generated))


def rag_rows(generated: Generated) -> Iterator[dict]:
    """Rows of the `rag` subset: each question with its BM25 top-k articles and whether they suffice."""
    yield from build_rag(generated, evidence=shared_evidence(generated))


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
    return generated


ROWS: dict[str, Callable[[Generated], Iterator[dict]]] = {
    "questions": question_rows,
    "corpus": corpus_rows,
    "database": database_rows,
    "instances": instance_rows,
    "rag": rag_rows,
}
