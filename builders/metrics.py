"""Evaluation metrics as small pure functions: accuracy, ADTScore and NeoQA's per-category accuracy.

ADTScore (NeoQA paper, section 5) is the harmonic mean of the accuracy on answerable
instances and the accuracy on instances the model must deflect (insufficient evidence,
false premise, uncertain specificity).  Per-category accuracies follow the columns of the
paper's Table 4.  A prediction is an option index or None (unparsed, counted wrong).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

ANSWERABLE_LABEL: str = "answerable-sufficient"
NEOQA_CATEGORIES: tuple[str, ...] = (
    "multi-hop/answerable",
    "time-span/answerable",
    "multi-hop/insufficient",
    "time-span/insufficient",
    "false-premise",
    "uncertain-specificity",
)


def accuracy(correct: Sequence[bool]) -> float:
    """Fraction of True values; a metric over no instances is undefined, so that raises."""
    if not correct:
        raise ValueError("accuracy over zero instances is undefined; pass at least one instance")
    return sum(bool(value) for value in correct) / len(correct)


def harmonic_mean(a: float, b: float) -> float:
    """Harmonic mean of two non-negative numbers (0 when both are 0, NaN when either is NaN)."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a < 0 or b < 0:
        raise ValueError(f"harmonic mean needs non-negative values, got {a} and {b}")
    return 0.0 if a + b == 0 else 2 * a * b / (a + b)


def adt_score(accuracy_answerable: float, accuracy_deflection: float) -> float:
    """ADTScore: harmonic mean of answerable and must-deflect accuracy, so neither side can be traded away."""
    return harmonic_mean(accuracy_answerable, accuracy_deflection)


def neoqa_category(category: str, answerable: str) -> str:
    """The Table 4 column of an instance, e.g. ``multi-hop/insufficient`` or ``false-premise``."""
    if category in ("false-premise", "uncertain-specificity"):
        return category
    if category in ("multi-hop", "time-span"):
        return f"{category}/{'answerable' if answerable == ANSWERABLE_LABEL else 'insufficient'}"
    raise ValueError(f"unknown NeoQA category {category!r}; expected multi-hop, time-span, false-premise "
                     "or uncertain-specificity")


def is_correct(predicted: int | None, gold: int) -> bool:
    """True when the predicted option index is the gold index (an unparsed answer is wrong)."""
    return predicted is not None and predicted == gold


def neoqa_scores(instances: Iterable[Mapping[str, Any]], predictions: Mapping[str, int | None]) -> dict[str, Any]:
    """Score predictions (``instance_id`` -> option index or None) on NeoQA instances.

    Returns ``adt_score``, ``accuracy_answerable``, ``accuracy_deflection``, ``accuracy``
    (all instances), ``count`` and ``per_category`` (accuracy per Table 4 column present).
    When the instances hold no answerable (or no must-deflect) instance, that accuracy and
    the ADTScore are NaN: undefined, not zero.
    """
    answerable: list[bool] = []
    deflect: list[bool] = []
    by_category: dict[str, list[bool]] = {}
    for instance in instances:
        identifier = instance["instance_id"]
        if identifier not in predictions:
            raise ValueError(f"no prediction for instance {identifier!r}; predict every instance (None if unparsed)")
        hit = is_correct(predictions[identifier], instance["gold_answer_idx"])
        (answerable if instance["answerable"] == ANSWERABLE_LABEL else deflect).append(hit)
        by_category.setdefault(neoqa_category(instance["category"], instance["answerable"]), []).append(hit)
    acc_answerable = accuracy(answerable) if answerable else math.nan
    acc_deflect = accuracy(deflect) if deflect else math.nan
    return {
        "adt_score": adt_score(acc_answerable, acc_deflect),
        "accuracy_answerable": acc_answerable,
        "accuracy_deflection": acc_deflect,
        "accuracy": accuracy(answerable + deflect),
        "count": len(answerable) + len(deflect),
        "per_category": {name: accuracy(by_category[name]) for name in NEOQA_CATEGORIES if name in by_category},
    }
