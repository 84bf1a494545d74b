"""The `rag` subset's rows: each wording of a question with its BM25 top-k articles, sufficient exactly when they
prove its answer, and the balanced subset that keeps as many rows to answer as to refuse in each cell."""

from __future__ import annotations

from collections.abc import Sequence

from ..evidence import citations
from ..metrics import DEFLECTION
from ..rng import shuffled, stream
from .config import Settings, universe_name
from .instance_maker import Evidence
from .questions import Question
from .relations import relations
from .required import starts_from_attribute
from .row_plans import base_row, row_id
from .solver import parse_literal
from .stages import Generated
from .variants import PLAIN, Form


def rag_forms(evidence: Evidence, question: Question) -> list[Form]:
    """The wordings of a question in `rag`: the question, and for a family with variants each variant and, for each
    premise variant, a control worded alike (so a premise is as often true as not)."""
    forms = [evidence.labels.plain(question)]
    if not evidence.labels.has_family(question):
        return forms
    rng = stream(evidence.settings.seed, "rag wordings", question.id)
    for variant in evidence.labels.variants(question):
        forms.append(variant)
        if variant.wording != PLAIN:
            control = evidence.labels.control(question, variant.kind, rng)
            if control.key not in {f.key for f in forms} and evidence.labels.case(question, control) is not None:
                forms.append(control)
    return shuffled(rng, forms)


def _rag_cases(evidence: Evidence, questions: Sequence[Question]) -> list[tuple[Question, Form, list[str], str]]:
    """Each `rag` row before retrieval: (question, form, its required articles, id)."""
    s = evidence.settings
    out = []
    for question in questions:
        for form in rag_forms(evidence, question):
            case = evidence.labels.case(question, form) if evidence.labels.has_family(question) else None
            required = list(case.required) if case is not None else evidence.labels.required(question)
            key = f"{universe_name(s)}/{question.id}/rag-{s.retrieval_k}/{form.key}"
            out.append((question, form, required, row_id(key)))
    return out


def rag_required(generated: Generated, settings: Settings | None = None) -> dict[str, list[str]]:
    """The articles each `rag` row's question (as worded) needs, by `instance_id`: what retrieval is scored against
    (builders.metrics.retrieval_scores). Not a column of the rows, so their bytes stay as they were."""
    evidence = Evidence(generated, settings)
    return {key: required for _, _, required, key in _rag_cases(evidence, generated.questions)}


def build_rag(
    generated: Generated,
    settings: Settings | None = None,
    evidence: Evidence | None = None,
    questions: Sequence[Question] | None = None,
) -> list[dict]:
    """Rows of the `rag` subset: each question with its BM25 top-k articles, sufficient when they answer it by the
    rule, then the wordings of each question that has a sufficient set (rag_forms), each with its own top-k (for every
    question, or for `questions`). With `rag_rows="balanced"` (the default), only the rows `rag_balanced` keeps."""
    evidence = evidence or Evidence(generated, settings)
    if evidence.settings.rag_rows == "all":
        if questions is None and evidence.rag_every is not None:  # made already, part by part (cli/forked_rows.py)
            return [row for _, row in evidence.rag_every]
        return [row for _, row in every_rag_row(evidence, generated.questions if questions is None else questions)]
    kept = rag_balanced(evidence, generated.questions)
    wanted = None if questions is None else {question.id for question in questions}
    return [
        row
        for _, row in evidence.rag_every or []
        if row["instance_id"] in kept and (wanted is None or row["question_id"] in wanted)
    ]


def every_rag_row(evidence: Evidence, questions: Sequence[Question]) -> list[tuple[tuple[object, ...], dict]]:
    """(cell, row) of every `rag` row of `questions`: the cell is what the question's text shows of its length and
    kind (its hops, the length of its relations' path, Who / What / How many, premise wording, start), within which
    rag_balanced evens the labels."""
    cases = _rag_cases(evidence, questions)
    out: list[tuple[tuple[object, ...], dict]] = []
    hits = evidence.pool.index.retrieve([form.question for _, form, _, _ in cases], evidence.settings.retrieval_k)
    for (question, form, required, key), found in zip(cases, hits):
        titles = [evidence.corpus.titles[i] for i in found]
        sufficient = not form.kind and evidence.labels.proves(question, form, titles)
        row = {
            "instance_id": key,
            **base_row(evidence, question, form),
            "answer": list(form.answer) if sufficient else [DEFLECTION],
            "answerable": "unanswerable" if form.kind else "sufficient" if sufficient else "insufficient",
            "documents": [evidence.documents.document(t) for t in titles],
            "citations": citations(titles, required) if sufficient else [],
            "retrieved_titles": titles,
            "retrieved_sufficient": sufficient,
        }
        hops = sum(token.startswith("<relation>") for token in question.template)  # every wording shows each hop
        kind = question.template[0]  # Who / What / How (many): what the text asks
        out.append(
            ((hops, path_length(question.query), kind, form.wording, starts_from_attribute(question.query)), row)
        )
    return out


def path_length(query: Sequence[str]) -> int:
    """How many people the question's relations move through, added up (mother 1, cousin 4; the counted relation of
    a "How many" too): what retrieval must reach, which every wording of the question shows in its words."""
    table = relations()
    return sum(table[literal.predicate].moves for literal in map(parse_literal, query) if literal.kind != "attribute")


def rag_balanced(evidence: Evidence, questions: Sequence[Question]) -> set[str]:
    """The ids of the `rag` rows a balanced subset keeps: within each cell (hops, the length of the relations' path,
    what it asks, premise wording), as many rows to answer as rows to refuse, a seeded draw of the larger side, so that
    a question's length never tells whether top-k retrieval sufficed (it suffices almost only for short questions, and
    for short paths: "cousin" is one hop but four people away); questions that start from an attribute value only with
    attribute_questions=True, as in `instances`. Computed once over every question."""
    if evidence.rag_kept is not None:
        return evidence.rag_kept
    s = evidence.settings
    cells: dict[tuple[object, ...], tuple[list[str], list[str]]] = {}
    if evidence.rag_every is None:  # else made already, for every question, part by part (cli/forked_rows.py)
        evidence.rag_every = every_rag_row(evidence, questions)
    for cell, row in evidence.rag_every:
        if cell[-1] and not s.attribute_questions:
            continue
        answer, refuse = cells.setdefault(cell, ([], []))
        (answer if row["answerable"] == "sufficient" else refuse).append(row["instance_id"])
    kept: set[str] = set()
    for cell in sorted(cells, key=repr):
        answer, refuse = cells[cell]
        n = min(len(answer), len(refuse))
        rng = stream(s.seed, "rag balance", repr(cell))
        kept.update(shuffled(rng, answer)[:n], shuffled(rng, refuse)[:n])
    evidence.rag_kept = kept
    return kept
