"""Long rows: a question's rows filled with distractors to `context_tokens` (long_context.py), and the check that a
configuration's length can be filled at all (a one-line ConfigError before any row is written)."""

from __future__ import annotations

from collections.abc import Sequence

from ..rng import stream
from .config import ConfigError, universe_name
from .instance_maker import Evidence
from .labeller import Case
from .long_context import Costs, evidence_depth, fill, place
from .questions import Question
from .row_plans import REDRAWS, Plan, instance_row, question_family, row_key


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
