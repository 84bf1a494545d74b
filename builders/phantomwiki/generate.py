"""A configuration's rows, subset by subset, from the stages' plain objects (stages.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .instances import Evidence, build_instances, build_rag
from .prolog import program_text
from .stages import Generated, Progress, complete, generate, generate_universe, planned_stages, timed

__all__ = [
    "ROWS",
    "Generated",
    "Progress",
    "complete",
    "generate",
    "generate_universe",
    "needs",
    "planned_stages",
    "shared_evidence",
    "stages_of",
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


def needs(subset: str) -> tuple[bool, bool]:
    """(with_questions, with_articles) that `subset` needs."""
    both = subset in ("instances", "rag")
    return subset == "questions" or both, subset == "corpus" or both


def stages_of(subsets: list[str] | tuple[str, ...]) -> tuple[bool, bool, list[str]]:
    """(with_questions, with_articles, the stage names) that writing `subsets` of one universe runs."""
    with_questions = any(needs(subset)[0] for subset in subsets)
    with_articles = any(needs(subset)[1] for subset in subsets)
    with_evidence = any(subset in ("instances", "rag") for subset in subsets)
    return with_questions, with_articles, planned_stages(with_questions, with_articles, with_evidence)


ROWS: dict[str, Callable[[Generated], Iterator[dict]]] = {
    "questions": question_rows,
    "corpus": corpus_rows,
    "database": database_rows,
    "instances": instance_rows,
    "rag": rag_rows,
}
