"""The rows of a question's family before and as documents: the plans (one sufficient row, the insufficient ones by
role, the unanswerable variants), the seeded key and opaque id of each row, and a row's columns once its documents
are drawn."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..evidence import citations
from ..metrics import DEFLECTION
from ..rng import pick, shuffled, stream
from .config import Settings, universe_name
from .instance_maker import Evidence
from .labeller import Case
from .options import UNANSWERABLE
from .questions import Question
from .required import ROLES, starts_from_attribute
from .variants import Form

WORDINGS_TRIED = 4  # wordings drawn for an insufficient row before the plain one (a role none can miss is skipped)
REDRAWS = 20  # draws of a row's distractors before a document list another row of its question shows is accepted


@dataclass(frozen=True)
class Plan:
    """One row of a question's family before its documents are drawn."""

    answerable: str  # "sufficient", "insufficient" or "unanswerable"
    case: Case
    missing: str = ""  # the article an insufficient row leaves out
    role: str = ""  # its role

    @property
    def shown(self) -> list[str]:
        """The row's own articles: its case's, less the missing one."""
        return [t for t in self.case.shown if t != self.missing]


def row_key(s: Settings, question: Question, plan: Plan, index: int) -> str:
    """What makes the `index`-th row of a question's family: the key of its seeded streams and of its id."""
    return f"{universe_name(s)}/{question.id}/{plan.answerable}/{plan.case.form.key}/{plan.missing}/{index}"


def row_id(key: str) -> str:
    """An opaque instance id: a digest of what makes the row, naming no label."""
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def base_row(evidence: Evidence, question: Question, form: Form) -> dict:
    return {
        "question_id": question.id,
        "question_family_id": question.id,
        "question": form.question,
        "unanswerable_kind": form.kind,
        "premise": form.premise,
        "premise_status": form.status,
        "closed_world": evidence.labels.closed_world(question),
        "question_answer": list(form.answer),
        "difficulty": question.difficulty,
        "is_aggregation_question": question.is_aggregation_question,
    }


def family_plans(evidence: Evidence, question: Question, base: Case) -> list[Plan]:
    """The rows of a question's family: one sufficient, the insufficient ones (by role, or every article), and the
    unanswerable variants. The sufficient and insufficient rows are worded as a variant drawn at random is, with a
    true premise (or plainly, as nonexistent_person is), so the wording alone never tells the label."""
    s = evidence.settings
    room = max(s.instance_documents, len(base.shown)) if s.instance_layout == "fixed" else None
    variants = [  # a false relation premise shows the person it names too: never beyond the layout's room
        case
        for v in evidence.labels.variants(question)
        if (case := evidence.labels.case(question, v)) is not None and (room is None or len(case.shown) <= room)
    ]
    rng = stream(s.seed, "wordings", question.id)

    def worded() -> Case:
        if not variants:
            return base
        control = evidence.labels.control(question, pick(rng, variants).form.kind, rng)
        return evidence.labels.case(question, control) or base

    plans = [Plan("sufficient", worded())]
    if s.insufficient == "by_role":
        wanted = [(role, "") for role in ROLES if role in base.missable.values()]
    else:
        wanted = [(role, title) for title, role in sorted(base.missable.items())]
    for role, title in wanted:  # a wording whose rows can leave out an article of this role (none left proves it)
        for attempt in range(WORDINGS_TRIED + 1):
            case = worded() if attempt < WORDINGS_TRIED else base
            if title:
                leaves_open = case.missable.get(title) and evidence.labels.leaves_open(question, case, title)
                missing = title if leaves_open else None
            else:
                missing = evidence.labels.open_missing(question, case, role, rng)
            if missing:
                plans.append(Plan("insufficient", case, missing, case.missable[missing]))
                break
    plans += [Plan("unanswerable", case) for case in variants]
    return plans


def question_family(evidence: Evidence, question: Question) -> tuple[Case, list[Plan]] | None:
    """A question's plain case and the plans of its family's rows, or None when it has no instances."""
    if not evidence.settings.attribute_questions and starts_from_attribute(question.query):
        return None
    base = evidence.labels.case(question, evidence.labels.plain(question))
    return None if base is None else (base, family_plans(evidence, question, base))


def instance_row(
    evidence: Evidence, question: Question, plan: Plan, titles: list[str], distractors: list[str], key: str
) -> dict:
    s = evidence.settings
    form, case = plan.case.form, plan.case
    cited = [] if plan.answerable == "unanswerable" else [t for t in case.required if t != plan.missing]
    given = evidence.options(case, titles, key, question.query)
    options = shuffled(stream(s.seed, "option order", key), given)
    gold = given[0] if plan.answerable == "sufficient" else UNANSWERABLE
    wanted = set(distractors)
    return {
        "instance_id": row_id(key),
        **base_row(evidence, question, form),
        "answer": list(form.answer) if plan.answerable == "sufficient" else [DEFLECTION],
        "answerable": plan.answerable,
        "documents": [evidence.documents.document(t) for t in titles],
        "citations": citations(titles, cited),
        "evidence_titles": cited,
        "missing_article": plan.missing,
        "missing_role": plan.role,
        "distractor_titles": [t for t in titles if t in wanted],
        "num_distractors": len(distractors),
        "layout": s.instance_layout,
        "distractor_kind": s.distractors,
        "answer_options": options,
        "gold_answer_idx": options.index(gold),
    }
