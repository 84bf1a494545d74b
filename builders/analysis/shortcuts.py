"""A shortcut audit of the `instances` rows: what a model that does not read could get from what a prompt shows.

Each probe sees only the surface of a row (its question text, the shape of its documents, its options) and is
trained on one universe and scored on another, beside its fair baseline (spec/validity.md: "a lazy reader stays at
its baseline"), as hypothesis-only baselines do in NLI:
  * question -> label: word and word-pair counts of the question (closed-world sentence included), a logistic
    regression, balanced accuracy over the three labels (sufficient, insufficient, unanswerable) and over answer /
    refuse; chance 1/3 and 1/2;
  * wording rule -> answer / refuse: refuse when the question states a premise, the rule that caught every
    unanswerable row before 0.8.0; balanced accuracy, chance 1/2;
  * document surface -> label: the number of documents, their lengths, the names they hold; and, on the rows that
    show it, where the article of the person the question names sits; balanced accuracy, chance 1/3;
  * look-up -> refuse: refuse when a person the question names has no article among the documents. Not a
    shortcut but one look-up (a nonexistent person, a missing anchor): reported apart, with its precision and
    recall, never held to a baseline;
  * options -> gold option (sufficient rows): each option's length, number of names, share of its names the
    documents state, shared surnames, position; a logistic scorer picks the highest; accuracy against picking one
    of the non-"Unanswerable" options at random;
  * count options -> gold: pick the middle number; accuracy against chance.
scikit-learn does the fitting (a test extra); everything else is plain Python over the rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..phantomwiki.options import UNANSWERABLE
from ..phantomwiki.variants import named_people, read_premises

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Finding:
    """One probe: what it sees, its score on the held-out universe, and the fair baseline it must stay near."""

    probe: str
    metric: str
    score: float
    baseline: float
    held: bool = True  # False for the look-up, reported apart (reading one article is reading)

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


def refuse(row: Row) -> str:
    """The binary label: answer (sufficient) or refuse."""
    return "answer" if row["answerable"] == "sufficient" else "refuse"


def question_text(row: Row) -> str:
    return " ".join(part for part in (row["closed_world"], row["question"]) if part)


def surface(row: Row) -> list[float]:
    """What a glance at the documents gives: how many, how long, how many names they hold."""
    lengths = [len(d["text"]) for d in row["documents"]]
    mean = sum(lengths) / len(lengths) if lengths else 0.0
    spread = (sum((x - mean) ** 2 for x in lengths) / len(lengths)) ** 0.5 if lengths else 0.0
    names = {m for d in row["documents"] for m in re.findall(r"[A-Z][a-z]+ [A-Z][a-z]+", d["text"])}
    return [len(lengths), sum(lengths) / 1000, mean / 100, spread / 100, len(names) / 10]


def position(row: Row) -> list[float]:
    """Where the article of the first person the question names sits among the documents (a row that shows it)."""
    titles = [d["title"] for d in row["documents"]]
    first = next(titles.index(n) for n in named_people(row["question"]) if n in titles)
    return [first / len(titles), float(first == 0), float(first == len(titles) - 1)]


def looks_up(row: Row) -> bool:
    """True when the question names a person with no article among the documents."""
    titles = {d["title"] for d in row["documents"]}
    return any(name not in titles for name in named_people(row["question"]))


def option_features(row: Row, option: str, index: int) -> list[float]:
    """What an option looks like, without reading: its length, names, whether the documents mention them."""
    text = "\n".join(d["text"] for d in row["documents"])
    items = option.split(", ")
    surnames = [item.rsplit(" ", 1)[-1] for item in items]
    return [
        len(option) / 100,
        len(items),
        sum(item in text for item in items) / len(items),
        max(surnames.count(s) for s in surnames) / len(items),
        index / max(1, len(row["answer_options"])),
        float(all(item.isdigit() for item in items)),
    ]


def _logistic() -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(class_weight="balanced", max_iter=4000)


def _fit_predict(
    train: Sequence[Row], test: Sequence[Row], features: Callable[[Row], list[float]], label: Callable[[Row], str]
) -> list[str]:
    model = _logistic()
    model.fit([features(r) for r in train], [label(r) for r in train])
    return list(model.predict([features(r) for r in test]))


def _text_predict(train: Sequence[Row], test: Sequence[Row], label: Callable[[Row], str]) -> list[str]:
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(ngram_range=(1, 2), lowercase=True, min_df=2)
    model = _logistic()
    model.fit(vectorizer.fit_transform([question_text(r) for r in train]), [label(r) for r in train])
    return list(model.predict(vectorizer.transform([question_text(r) for r in test])))


def _options(train: Sequence[Row], test: Sequence[Row]) -> tuple[float, float]:
    """(accuracy of the option scorer, chance) on the sufficient rows of `test`."""

    def choices(row: Row) -> list[tuple[int, str]]:
        return [(i, o) for i, o in enumerate(row["answer_options"]) if o != UNANSWERABLE]

    answerable = [r for r in train if r["answerable"] == "sufficient"]
    model = _logistic()
    model.fit(
        [option_features(r, o, i) for r in answerable for i, o in choices(r)],
        [int(i == r["gold_answer_idx"]) for r in answerable for i, _ in choices(r)],
    )
    hits, chance = [], []
    for row in (r for r in test if r["answerable"] == "sufficient"):
        options = choices(row)
        scores = model.decision_function([option_features(row, o, i) for i, o in options])
        best = max(range(len(options)), key=lambda k: scores[k])
        hits.append(options[best][0] == row["gold_answer_idx"])
        chance.append(1 / len(options))
    return sum(hits) / len(hits), sum(chance) / len(chance)


def _middle_count(test: Sequence[Row]) -> tuple[float, float, int]:
    """(accuracy of picking the middle number, chance, rows) on single-count sufficient rows."""
    hits, chance = [], []
    for row in test:
        if row["answerable"] != "sufficient" or not row["is_aggregation_question"] or len(row["answer"]) != 1:
            continue
        numbers = sorted((int(o), i) for i, o in enumerate(row["answer_options"]) if o.isdigit())
        hits.append(numbers[len(numbers) // 2][1] == row["gold_answer_idx"])
        chance.append(1 / len(numbers))
    return (sum(hits) / len(hits), sum(chance) / len(chance), len(hits)) if hits else (float("nan"), float("nan"), 0)


def audit(train: Sequence[Row], test: Sequence[Row]) -> list[Finding]:
    """Every probe, trained on `train` (one universe's instances) and scored on `test` (another's)."""
    three = [r["answerable"] for r in test]
    two = [refuse(r) for r in test]
    findings = [
        Finding(
            "question text -> label",
            "balanced accuracy (3 labels)",
            balanced_accuracy(three, _text_predict(train, test, lambda r: r["answerable"])),
            1 / 3,
        ),
        Finding(
            "question text -> answer / refuse",
            "balanced accuracy",
            balanced_accuracy(two, _text_predict(train, test, refuse)),
            1 / 2,
        ),
        Finding(
            "wording rule (a premise -> refuse)",
            "balanced accuracy",
            balanced_accuracy(two, ["refuse" if read_premises(r["question"]) else "answer" for r in test]),
            1 / 2,
        ),
        Finding(
            "document surface -> label",
            "balanced accuracy (3 labels)",
            balanced_accuracy(three, _fit_predict(train, test, surface, lambda r: r["answerable"])),
            1 / 3,
        ),
        Finding(
            "document surface -> answer / refuse",
            "balanced accuracy",
            balanced_accuracy(two, _fit_predict(train, test, surface, refuse)),
            1 / 2,
        ),
    ]
    shown = [r for r in test if not looks_up(r)]
    findings.append(
        Finding(
            "named person's article position -> label",
            "balanced accuracy (3 labels)",
            balanced_accuracy(
                [r["answerable"] for r in shown],
                _fit_predict([r for r in train if not looks_up(r)], shown, position, lambda r: r["answerable"]),
            ),
            1 / 3,
        )
    )
    score, chance = _options(train, test)
    findings.append(Finding("options -> gold option (sufficient rows)", "accuracy", score, chance))
    middle, chance, count = _middle_count(test)
    if count:
        findings.append(Finding(f"middle number -> gold count ({count} rows)", "accuracy", middle, chance))
    flagged = [r for r in test if looks_up(r)]
    precision = sum(refuse(r) == "refuse" for r in flagged) / len(flagged) if flagged else float("nan")
    refusals = sum(refuse(r) == "refuse" for r in test)
    recall = sum(refuse(r) == "refuse" for r in flagged) / refusals if refusals else float("nan")
    findings.append(Finding("look-up: a named person has no article -> refuse", "precision", precision, 1.0, False))
    findings.append(Finding("look-up: a named person has no article -> refuse", "recall", recall, 0.0, False))
    return findings


def table(findings: Sequence[Finding]) -> str:
    """The findings as a Markdown table."""
    lines = [
        "| probe (only what a prompt shows) | metric | score | fair baseline | margin |",
        "|---|---|---:|---:|---:|",
    ]
    for f in findings:
        margin = f"{f.margin:+.3f}" if f.held else "(a look-up, apart)"
        lines.append(f"| {f.probe} | {f.metric} | {f.score:.3f} | {f.baseline:.3f} | {margin} |")
    return "\n".join(lines)
