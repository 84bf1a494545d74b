"""The pieces every shortcut probe shares: a finding beside its baseline, balanced accuracy, a threshold rule fitted
on one universe, and a logistic regression (scikit-learn, a test extra)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")
LOOK_UP = "(a look-up, apart)"
UNHELD = "(unheld: not a defect)"


@dataclass(frozen=True)
class Finding:
    """One probe: what it sees, its score on the held-out universe, and the fair baseline it must stay near."""

    probe: str
    metric: str
    score: float
    baseline: float
    rows: int = 0  # the held-out rows it was scored on
    apart: str = ""  # why it is not held to its baseline (LOOK_UP, UNHELD, too few rows), or "" when it is

    @property
    def held(self) -> bool:
        """True when tests hold the probe within the margin of its baseline."""
        return not self.apart

    @property
    def margin(self) -> float:
        """How far the probe gets above its baseline."""
        return self.score - self.baseline


def balanced_accuracy(gold: Sequence[str], predicted: Sequence[str]) -> float:
    """The mean over labels present of the share of their rows predicted right."""
    labels = sorted(set(gold))
    return sum(
        sum(1 for g, p in zip(gold, predicted) if g == label and p == label) / gold.count(label) for label in labels
    ) / len(labels)


def fit_threshold(values: Sequence[float], gold: Sequence[str], positive: str) -> float:
    """The t for which "value >= t -> positive, else not" has the best balanced accuracy on the training rows."""
    binary = [g == positive for g in gold]
    best, best_score = float("inf"), -1.0
    for t in sorted(set(values)) + [float("inf")]:
        score = balanced_accuracy([str(b) for b in binary], [str(v >= t) for v in values])
        if score > best_score:
            best, best_score = t, score
    return best


def threshold_rule(values: Sequence[float], t: float, positive: str, negative: str) -> list[str]:
    return [positive if v >= t else negative for v in values]


def logistic(scaled: bool = True) -> Any:
    """A class-balanced logistic regression, on standardised features when `scaled`."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    model = LogisticRegression(class_weight="balanced", max_iter=4000)
    return make_pipeline(StandardScaler(), model) if scaled else model


def fit_predict(train: Sequence[Sequence[float]], labels: Sequence[str], test: Sequence[Sequence[float]]) -> list[str]:
    """Fit on the training features and labels, predict the test rows' labels."""
    model = logistic()
    model.fit(train, labels)
    return [str(p) for p in model.predict(test)]


def fitted_finding(
    probe: str,
    train: Sequence[T],
    test: Sequence[T],
    features: Callable[[T], Sequence[float]],
    to: Callable[[T], str],
    apart: str = "",
) -> Finding:
    """A class-balanced logistic regression of the labels `to` gives on `features`, fitted on `train` and scored on
    `test` by balanced accuracy, against chance among the labels there."""
    gold = [to(p) for p in test]
    predicted = fit_predict([features(p) for p in train], [to(p) for p in train], [features(p) for p in test])
    return Finding(probe, "balanced accuracy", balanced_accuracy(gold, predicted), 1 / len(set(gold)), len(test), apart)


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")
