"""Evidence instances: sufficient / insufficient article sets a reader can tell apart, with distractors; and BM25 RAG.

The labels follow one rule (builders/phantomwiki/required.py, stated in the README and the prompts): a
person's own article is the complete source of their family, friends and attributes, and a question
needs the article of everyone whose lists or attributes it reads, hop by hop from its anchor, dead ends
included: its required set. A question's family of rows (spec/validity.md: only reading tells the labels apart):
  * one sufficient row: the whole required set (plus distractors); the answer computed from the documents is the
    gold answer and provably complete. As a guard, the lenient reader of builders/phantomwiki/reading.py (which
    also uses every other sentence) must derive exactly the gold answer from the required set, or generation stops;
  * insufficient rows: by default one per role of missing article that the question has (`missing_role`: the
    anchor, an answer's fact, a bridge on a path to an answer, a dead end; required.ROLES), the article drawn among
    those of that role; `insufficient="all"` gives one per required article. Gold answer DEFLECTION;
  * unanswerable variants (variants.py): a false or unknowable premise, or a person who does not exist;
  * the wording of each sufficient and insufficient row is drawn like the variants' wordings: a true-premise control
    for each false-premise kind (a named relative, the person's own occupation, place, ...) or the plain question,
    so that a premise in the question says nothing about the label until the documents are read;
  * questions starting from an attribute value ("the person whose hobby is tango") are decidable only
    in a closed world: with `attribute_questions=True` they get instances whose required set holds every
    holder of the value and whose `closed_world` sentence says how many there are; by default they
    are left out of `instances` (they stay in `questions` and `rag`);
  * distractors: articles outside the set, the BM25 neighbours of the question plus its evidence
    texts ("hard") or seeded random ones ("easy"). An article joined by any family or friend fact
    to the people the question reaches is never a distractor (see `DistractorPool.distractors`);
  * every row draws its own distractors from the question's pool and its own document order, so no two rows share
    a document list; layouts (builders/evidence.py): "fixed" = a number of documents drawn per row in
    [instance_documents_min, instance_documents], "ablation" = 0/20/40/60/80 distractors (each level a prefix of
    the next, per row); levels above what the corpus holds are left out;
  * questions whose required set holds more than `max_evidence` articles get no instances (a question
    needing 300 articles would give 300 instances of 300 documents each);
  * `instance_id` is a digest: it names no label; the rows of a question come in a seeded order.

RAG (`rag` subset): the BM25 top-k articles of the question text over the whole corpus (k = 4, the
paper's), in rank order; sufficient exactly when they hold the question's whole required set. Each family with
unanswerable variants also has one control per premise variant, worded alike, with its own retrieval.

instance_maker.Evidence composes the maker's parts: the corpus (who names whom), the labeller (labeller.py: required
sets, guards, forms, cases), the distractor pool (distractor_pool.py: BM25), the shown documents (documents.py) and
the options; this module plans a family's rows, draws their documents (shadows.py: a row's shadow) and makes `rag`.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..evidence import ABLATION_LEVELS, citations
from ..metrics import DEFLECTION
from ..rng import below, pick, shuffled, stream
from .config import ConfigError, Settings, universe_name
from .instance_maker import Evidence
from .labeller import Case
from .long_context import Costs, evidence_depth, fill, place
from .options import UNANSWERABLE
from .questions import Question
from .required import ROLES, starts_from_attribute
from .shadows import SHADOW_ROOM, shadow_articles
from .stages import Generated
from .variants import PLAIN, Form

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
    given = evidence.options(case, titles, key)
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


def tokens(costs: Costs, titles: Sequence[str]) -> int:
    """The tokens of documents `titles` as the fill counts them: each document and a separator between two."""
    return sum(costs.of(title) for title in titles) + costs.separator * max(0, len(titles) - 1)


def excluded(evidence: Evidence, question: Question, named: set[str], plan: Plan) -> set[str]:
    """What a long row never shows as a distractor (long_context.py): its question's own articles, the holders of
    the value an attribute question starts from, and for an insufficient row every article naming its missing
    person."""
    excluded = set(named) | set(evidence.corpus.start_holders(question))
    if plan.missing:
        excluded.add(plan.missing)
        excluded.update(evidence.corpus.naming(plan.missing))
    return excluded


def family_named(base: Case, plans: Sequence[Plan]) -> set[str]:
    """Every article a question's rows show of their own (its required sets and the people its premises name)."""
    return {title for plan in plans for title in plan.case.shown} | set(base.shown)


def long_rows(evidence: Evidence, question: Question, base: Case, plans: list[Plan], pool: list[str]) -> list[dict]:
    """A question's rows filled to `context_tokens` (long_context.py), none if one row's own articles pass it."""
    s = evidence.settings
    costs = evidence.documents.costs
    shown_of = [plan.shown for plan in plans]
    if any(tokens(costs, shown) > s.context_tokens for shown in shown_of):
        return []
    named = family_named(base, plans)
    tiers = evidence.documents.tiers(question, sorted(named), pool)
    layout = f"long-{s.context_tokens}-{s.evidence_position}"
    used: set[tuple[str, ...]] = set()
    rows = []
    for index, (plan, shown) in enumerate(zip(plans, shown_of)):
        key = row_key(s, question, plan, index)
        rng = stream(s.seed, "instance", key, layout)
        room = s.context_tokens - tokens(costs, shown)
        distractors = fill(rng, tiers, excluded(evidence, question, named, plan), room, costs)
        titles = place(rng, shown, distractors, s.evidence_position, costs)
        for _ in range(REDRAWS):  # another row of the question shows the same list: draw the order again
            if tuple(titles) not in used:
                break
            titles = place(rng, shown, distractors, s.evidence_position, costs)
        measured = evidence.documents.measure(titles)
        while measured > s.context_tokens and distractors:  # a tokenizer may count the joined text apart
            titles.remove(distractors.pop())
            measured = evidence.documents.measure(titles)
        used.add(tuple(titles))
        row = instance_row(evidence, question, plan, titles, distractors, f"{key}/{layout}")
        row.update(
            layout="long",
            context_tokens=s.context_tokens,
            num_tokens=measured,
            tokenizer=evidence.documents.counter.name,
            evidence_position=s.evidence_position,
            evidence_depth=evidence_depth(titles, set(shown), costs),
        )
        rows.append(row)
    return rows


def check_length(evidence: Evidence, questions: Sequence[Question]) -> None:
    """With `context_tokens` set: a one-line ConfigError when no question's rows fit in it, or when some row cannot
    be filled to it (naming the largest length every row can reach: its own articles and every one it may show)."""
    s = evidence.settings
    if not s.long_context:
        return
    costs = evidence.documents.costs
    everything = tokens(costs, evidence.corpus.titles)
    largest, shortest, fitting = everything, None, 0
    for question in questions:
        family = question_family(evidence, question)
        if family is None:
            continue
        base, plans = family
        need = max(tokens(costs, plan.shown) for plan in plans)
        shortest = need if shortest is None else min(shortest, need)
        if need > s.context_tokens:
            continue
        fitting += 1
        named = family_named(base, plans)
        for plan in plans:
            hidden = excluded(evidence, question, named, plan) - set(plan.shown)
            largest = min(largest, everything - tokens(costs, sorted(hidden)) - costs.separator * bool(hidden))
    name = universe_name(s)
    if not fitting:
        what = f"the shortest needs {shortest:,}" if shortest is not None else "it has no question with instances"
        raise ConfigError(
            f"context_tokens={s.context_tokens} holds no question's own articles in {name}: {what} tokens; "
            "give a longer length"
        )
    if s.context_tokens > largest:
        raise ConfigError(
            f"context_tokens={s.context_tokens} is more than {name} can fill: the largest is {largest:,} tokens "
            f"(the whole corpus is {everything:,}, less the articles a row may not show); give at most {largest}"
        )


POOL_SLACK = 8  # distractor candidates beyond the most a row takes, so rows draw different ones


def question_instances(evidence: Evidence, question: Question) -> Iterator[dict]:
    """Every instance of one question's family (see family_plans), in a seeded order, each with its own distractors
    and document order: per plan one row, or one per ablation level."""
    s = evidence.settings
    family = question_family(evidence, question)
    if family is None:
        return
    base, plans = family
    named = {title for plan in plans for title in plan.case.shown}
    smallest = min(len(plan.case.shown) - bool(plan.missing) for plan in plans)
    most = max(ABLATION_LEVELS) if s.instance_layout == "ablation" else max(0, s.instance_documents - smallest)
    pool = evidence.pool.distractors(question, sorted(named), most + POOL_SLACK) if most else []
    if s.long_context:
        yield from shuffled(stream(s.seed, "row order", question.id), long_rows(evidence, question, base, plans, pool))
        return
    used: set[tuple[str, ...]] = set()
    rows = []
    targets = [evidence.corpus.mentions(plan.missing, plan.shown) for plan in plans if plan.missing]
    low = family_low(s, plans)
    for index, plan in enumerate(plans):
        key = row_key(s, question, plan, index)
        rng = stream(s.seed, "instance", key)
        shadows = stream(s.seed, "shadow", key)
        if s.instance_layout == "ablation":
            shadow = (
                []
                if plan.missing
                else shadow_articles(evidence.corpus, shadows, plan.shown, targets, max(ABLATION_LEVELS))
            )
            order = shuffled(rng, pool)
            levels = [(f"ablation-{level}", order[:level]) for level in ABLATION_LEVELS if level <= len(pool)]
        else:
            shadow, distractors = fixed_documents(evidence, plan, (rng, shadows), pool, targets, used, low)
            levels = [("fixed", distractors)]
        shown = plan.shown + shadow
        for layout, distractors in levels:
            used.add(tuple(sorted(shown + distractors)))
            titles = shuffled(rng, shown + distractors)
            rows.append(instance_row(evidence, question, plan, titles, shadow + distractors, f"{key}/{layout}"))
    yield from shuffled(stream(s.seed, "row order", question.id), rows)


def family_low(s: Settings, plans: Sequence[Plan]) -> int:
    """The fewest documents any row of a question's family shows in the fixed layout: instance_documents_min, or its
    largest own set of articles and room for a shadow, so that no row's document count tells its label (a row that
    lacks an article, or shows a shadow, draws its count from the same range as the others)."""
    largest = max(len(plan.case.shown) for plan in plans)
    fewest = min(s.instance_documents_min, s.instance_documents)
    return max(fewest, min(largest + SHADOW_ROOM, max(s.instance_documents, largest)))


def fixed_documents(
    evidence: Evidence,
    plan: Plan,
    streams: tuple[random.Random, random.Random],
    pool: list[str],
    targets: list[int],
    used: set[tuple[str, ...]],
    low: int,
) -> tuple[list[str], list[str]]:
    """(shadow, distractors) of a row of the fixed layout: a number of documents drawn in [low, instance_documents]
    (low: family_low), a row that is not insufficient with its shadow (shadows.shadow_articles), the rest from the
    pool; drawn again while another row of the question shows the same documents."""
    s = evidence.settings
    rng, shadows = streams
    high = max(s.instance_documents, low)
    shadow: list[str] = []
    distractors: list[str] = []
    for _ in range(REDRAWS):
        shadow = (
            []
            if plan.missing
            else shadow_articles(evidence.corpus, shadows, plan.shown, targets, low - len(plan.shown))
        )
        shown = plan.shown + shadow
        wanted = min(max(0, low + below(rng, high - low + 1) - len(shown)), len(pool))
        distractors = shuffled(rng, pool)[:wanted]
        if tuple(sorted(shown + distractors)) not in used:
            break
    return shadow, distractors


def build_instances(
    generated: Generated, settings: Settings | None = None, evidence: Evidence | None = None
) -> list[dict]:
    """Rows of the `instances` subset for every question of a generated configuration (`evidence` reuses a built
    one; rows.instance_rows yields them question by question instead)."""
    evidence = evidence or Evidence(generated, settings)
    check_length(evidence, generated.questions)
    return [row for question in generated.questions for row in question_instances(evidence, question)]


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


def _rag_cases(
    evidence: Evidence, questions: Sequence[Question]
) -> list[tuple[Question, Form, Case | None, list[str], str]]:
    """Each `rag` row before retrieval: (question, form, its case if it has a family, its required articles, id)."""
    s = evidence.settings
    out = []
    for question in questions:
        for form in rag_forms(evidence, question):
            case = evidence.labels.case(question, form) if evidence.labels.has_family(question) else None
            required = list(case.required) if case is not None else evidence.labels.required(question)
            key = f"{universe_name(s)}/{question.id}/rag-{s.retrieval_k}/{form.key}"
            out.append((question, form, case, required, row_id(key)))
    return out


def rag_required(generated: Generated, settings: Settings | None = None) -> dict[str, list[str]]:
    """The articles each `rag` row's question (as worded) needs, by `instance_id`: what retrieval is scored against
    (builders.metrics.retrieval_scores). Not a column of the rows, so their bytes stay as they were."""
    evidence = Evidence(generated, settings)
    return {key: required for _, _, _, required, key in _rag_cases(evidence, generated.questions)}


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
        return [row for _, row in _rag_rows(evidence, generated.questions if questions is None else questions)]
    kept = rag_balanced(evidence, generated.questions)
    wanted = None if questions is None else {question.id for question in questions}
    return [
        row
        for _, row in evidence.rag_every or []
        if row["instance_id"] in kept and (wanted is None or row["question_id"] in wanted)
    ]


def _rag_rows(evidence: Evidence, questions: Sequence[Question]) -> list[tuple[tuple[object, ...], dict]]:
    """(cell, row) of every `rag` row of `questions`: the cell is what the question's text shows of its length and
    kind (its hops, Who / What / How many, premise wording, start), within which rag_balanced evens the labels."""
    cases = _rag_cases(evidence, questions)
    out: list[tuple[tuple[object, ...], dict]] = []
    hits = evidence.pool.index.retrieve([form.question for _, form, _, _, _ in cases], evidence.settings.retrieval_k)
    for (question, form, _, required, key), found in zip(cases, hits):
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
        out.append(((hops, kind, form.wording, starts_from_attribute(question.query)), row))
    return out


def rag_balanced(evidence: Evidence, questions: Sequence[Question]) -> set[str]:
    """The ids of the `rag` rows a balanced subset keeps: within each cell (hops, what it asks, premise wording),
    as many rows to answer as rows to refuse, a seeded draw of the larger side, so that a question's length never tells
    whether top-k retrieval sufficed (it suffices almost only for short questions); questions that start from an
    attribute value only with attribute_questions=True, as in `instances`. Computed once over every question."""
    if evidence.rag_kept is not None:
        return evidence.rag_kept
    s = evidence.settings
    cells: dict[tuple[object, ...], tuple[list[str], list[str]]] = {}
    evidence.rag_every = _rag_rows(evidence, questions)
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
