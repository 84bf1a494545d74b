"""How the NeoQA probes learn from one configuration and guess on another: a one-feature rule whose direction and
threshold are fitted on the training rows, and boosted trees over many features (they find thresholds and
interactions that a linear model misses, as a lazy reader with a spreadsheet would)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .neoqa_view import Shown, answer_or_refuse
from .probing import Finding, balanced_accuracy, fit_threshold

ANSWER, REFUSE = "answer", "refuse"


def fitted_rule(
    train: Sequence[float], gold: Sequence[str], test: Sequence[float], positive: str = ANSWER, negative: str = REFUSE
) -> tuple[list[str], str]:
    """Guesses for `test` by "value >= t -> positive" or "value <= t -> positive", the direction and t that do best
    on the training rows (balanced accuracy), and the rule in words."""
    best: tuple[float, int, float] = (-1.0, 1, float("inf"))
    for sign in (1, -1):
        signed = [sign * v for v in train]
        t = fit_threshold(signed, gold, positive)
        score = balanced_accuracy(gold, [positive if v >= t else negative for v in signed])
        best = max(best, (score, sign, t), key=lambda b: b[0])
    _, sign, t = best
    words = f">= {t:g}" if sign == 1 else f"<= {-t:g}"
    return [positive if sign * v >= t else negative for v in test], words


def boosted() -> Any:
    """Gradient-boosted trees, class-balanced, deterministic (no early stopping, a fixed random state)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        max_iter=100, max_leaf_nodes=15, class_weight="balanced", early_stopping=False, random_state=0
    )


def one_thread() -> Any:
    """A context in which the trees use one thread: on small data OpenMP's threads wait on each other more than
    they work, many times over on a shared machine."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1)


def boosted_predict(
    train: Sequence[Sequence[float]], labels: Sequence[str], test: Sequence[Sequence[float]]
) -> list[str]:
    """Fit boosted trees on the training features and labels, predict the test rows' labels."""
    if len(set(labels)) < 2:
        return [labels[0]] * len(test) if labels else []
    model = boosted()
    with one_thread():
        model.fit(list(train), list(labels))
        return [str(p) for p in model.predict(list(test))]


def boosted_finding(
    probe: str,
    features: Callable[[Shown], list[float]],
    train: Sequence[Shown],
    test: Sequence[Shown],
    label: Callable[[Shown], str] = answer_or_refuse,
) -> Finding:
    """Boosted trees over `features`, fitted to `label` on `train`, scored by balanced accuracy on `test`, beside
    chance among the labels `test` holds."""
    guesses = boosted_predict([features(p) for p in train], [label(p) for p in train], [features(p) for p in test])
    gold = [label(p) for p in test]
    return Finding(probe, "balanced accuracy", balanced_accuracy(gold, guesses), 1 / len(set(gold)), len(test))
