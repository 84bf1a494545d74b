"""The `instances` subset's rows: each question's family with its own distractors, shadows and document order, in
the fixed or ablation layout (or filled to a length: long_rows.py)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from functools import partial

from ..evidence import ABLATION_LEVELS
from ..rng import below, shuffled, stream
from .config import Settings
from .instance_maker import Evidence
from .long_rows import check_length, long_rows
from .questions import Question
from .row_plans import REDRAWS, Plan, instance_row, question_family, row_key
from .shadows import SHADOW_ROOM, Named, missing_shadow, shadow_articles
from .stages import Generated
from .variants import Form

POOL_SLACK = 8  # distractor candidates beyond the most a row takes, so rows draw different ones
DECOY_ROOM = 8  # articles a row may show to state its decoys (a question asking an attribute: the decoys' people)


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
    low = family_low(s, plans)  # every row of the family shows at least this many documents (fixed layout)
    most = (
        max(ABLATION_LEVELS) if s.instance_layout == "ablation" else max(0, max(s.instance_documents, low) - smallest)
    )
    pool = evidence.pool.distractors(question, sorted(named), most + POOL_SLACK) if most else []
    if s.long_context:
        yield from shuffled(stream(s.seed, "row order", question.id), long_rows(evidence, question, base, plans, pool))
        return
    used: set[tuple[str, ...]] = set()
    rows = []
    held = missing_shadows(evidence, question, plans, pool, low) if s.instance_layout != "ablation" else {}
    targets = [evidence.corpus.mentions(p.missing, p.shown + held.get(i, [])) for i, p in enumerate(plans) if p.missing]
    candidates: dict[tuple[str, ...], list[Named]] = {}  # the shadow candidates of each set of own articles
    for index, plan in enumerate(plans):
        key = row_key(s, question, plan, index)
        rng = stream(s.seed, "instance", key)
        shadows = stream(s.seed, "shadow", key)
        if s.instance_layout == "ablation":  # a level is its number of distractors: no shadows in this study layout
            shadow: list[str] = []
            order = shuffled(rng, pool)
            levels = [(f"ablation-{level}", order[:level]) for level in ABLATION_LEVELS if level <= len(pool)]
        else:
            missing = held.get(index, [])
            shadow, distractors = fixed_documents(
                evidence,
                plan,
                (rng, shadows),
                pool,
                (targets, missing),
                used,
                low,
                candidates,
                (f"{key}/fixed", partial(_open, evidence, question, plan, pool), question.query),
            )
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
    shadowing: tuple[list[int], list[str]],
    used: set[tuple[str, ...]],
    low: int,
    named: dict[tuple[str, ...], list[Named]] | None = None,
    decoys: tuple[str, Callable[[list[str]], bool], Sequence[str]] = ("", lambda titles: True, ()),
) -> tuple[list[str], list[str]]:
    """(shadow, distractors) of a row of the fixed layout: a number of documents drawn in [low, instance_documents]
    (low: family_low), the row's shadow (an insufficient row's drawn once: missing_shadows; another row's to the
    insufficient rows' `targets`: shadows.shadow_articles) and the articles stating its decoys in place of distractors
    (Evidence.decoy_articles; with the shadow in `shadow`: articles beyond the row's own), the rest from the pool; drawn
    again while another row of the question shows the same documents (each time with a decoy article fewer, so that a
    full row can draw a distractor instead). `decoys`: the key of the row's options, whether the row may show some
    titles (_open) and the query its question was drawn as."""
    s = evidence.settings
    rng, shadows = streams
    targets, missing = shadowing
    high = max(s.instance_documents, low)
    shadow: list[str] = []
    distractors: list[str] = []
    for attempt in range(REDRAWS):
        shadow = (
            missing
            if plan.missing
            else shadow_articles(evidence.corpus, shadows, plan.shown, targets, low - len(plan.shown), named=named)
        )
        total = low + below(rng, high - low + 1)
        room = min(DECOY_ROOM, max(0, total - len(plan.shown) - len(shadow) - attempt))  # in place of distractors
        key, keeps_open, drawn = decoys
        shadow = shadow + evidence.decoy_articles(
            plan.case, key, plan.shown + shadow, room, keeps_open, plan.missing, drawn
        )
        shown = plan.shown + shadow
        wanted = min(max(0, total - len(shown)), len(pool))
        distractors = [t for t in shuffled(rng, pool) if t not in shadow][:wanted]  # never a shadow twice
        if tuple(sorted(shown + distractors)) not in used:
            break
    return shadow, distractors


def _open(evidence: Evidence, question: Question, plan: Plan, pool: Sequence[str], titles: list[str]) -> bool:
    """Whether a row may show `titles`: never its missing article, and an insufficient row's articles with every pool
    article still prove no answer (a proof only grows with articles, so no draw of distractors makes one)."""
    if not plan.missing:
        return True
    return plan.missing not in titles and evidence.labels.proof(question, plan.case.form, [*titles, *pool]) is None


def missing_shadows(
    evidence: Evidence, question: Question, plans: Sequence[Plan], pool: Sequence[str], low: int
) -> dict[int, list[str]]:
    """Plan index -> the shadow its insufficient row shows (shadows.missing_shadow), drawn before the other rows'
    shadows so that their targets count it. An article is kept only where the row's articles with it and every
    pool article still prove no answer (a proof only grows with articles, so no draw of distractors makes one)."""
    s, found = evidence.settings, {}
    for index, plan in enumerate(plans):
        if plan.missing:
            rng = stream(s.seed, "shadow", row_key(s, question, plan, index))

            def still_open(titles: list[str], form: Form = plan.case.form) -> bool:
                return evidence.labels.proof(question, form, [*titles, *pool]) is None

            room = low - len(plan.shown)
            found[index] = missing_shadow(evidence.corpus, rng, plan.shown, plan.missing, room, still_open)
    return found


def build_instances(
    generated: Generated, settings: Settings | None = None, evidence: Evidence | None = None
) -> list[dict]:
    """Rows of the `instances` subset for every question of a generated configuration (`evidence` reuses a built
    one; rows.instance_rows yields them question by question instead)."""
    evidence = evidence or Evidence(generated, settings)
    check_length(evidence, generated.questions)
    return [row for question in generated.questions for row in question_instances(evidence, question)]
