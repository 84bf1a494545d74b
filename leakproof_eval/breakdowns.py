"""Scores of groups of an lm-eval task's logged documents, by the aggregation the task itself runs: the breakdowns of
`report` (by category, by the missing article's role, by difficulty, by distractors) and its check that the logged
documents give the results file's metrics again."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from .phantom_wiki_tasks import choice_item_scores, evidence_scores
from .results import Sample, TaskResult

T = TypeVar("T")
K = TypeVar("K")
CATEGORY_ORDER = ("answerable", "insufficient")
TOLERANCE = 1e-9


def scores_of(samples: Sequence[Sample]) -> dict[str, Any]:
    """The task's own aggregation over some of its logged documents: instance_scores for the evidence tasks,
    choice_scores for multiple choice, the mean of each per-document score for phantom_wiki_questions."""
    values = [sample.value for sample in samples]
    if "gold_answer_idx" in values[0]:
        return choice_item_scores(values)
    if "answerable" in values[0]:
        return evidence_scores(values)
    return {key: sum(float(value[key]) for value in values) / len(values) for key in values[0]}


def reproduces(result: TaskResult) -> str | None:
    """None when the logged documents give the results file's metrics again, else why not (one line)."""
    assert result.samples is not None
    if not result.samples:
        return "its samples file is empty"
    again = scores_of(result.samples)
    for metric, value in sorted(result.metrics.items()):
        other = again.get(metric)
        if isinstance(other, float) and not _same(value, other):
            return f"its samples give {metric} {other:.6f}, the results file {value:.6f}"
    return None


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= TOLERANCE


def category_accuracy(samples: Sequence[Sample]) -> dict[str, tuple[float, int]]:
    """Accuracy and count of each category (answerable, insufficient, each unanswerable kind) present."""
    groups = grouped(samples, lambda sample: sample.category)
    out = {}
    for name, group in groups.items():
        scores = scores_of(group)
        key = "accuracy_answerable" if name == "answerable" else "accuracy_deflection"
        if key in scores:
            out[name] = (float(scores[key]), len(group))
    return {name: out[name] for name in sorted(out, key=category_key)}


def role_accuracy(samples: Sequence[Sample]) -> dict[str, tuple[float, int]]:
    """Deflection accuracy and count of the insufficient documents by the role of their missing article."""
    missing = [s for s in samples if s.answerable == "insufficient" and s.missing_role]
    groups = grouped(missing, lambda sample: sample.missing_role)
    return {
        role: (float(scores_of(group)["accuracy_deflection"]), len(group)) for role, group in sorted(groups.items())
    }


def category_key(name: str) -> tuple[int, str]:
    return (CATEGORY_ORDER.index(name) if name in CATEGORY_ORDER else len(CATEGORY_ORDER), name)


def grouped(items: Iterable[T], key: Callable[[T], K]) -> dict[K, list[T]]:
    groups: dict[K, list[T]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups
