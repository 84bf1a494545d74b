"""A shortcut audit of generated NeoQA instance rows: what a model that does not read could get from a prompt.

Probes see only the surface of a row and are trained on one generated configuration, scored on another, beside
their fair baselines (spec/validity.md), as builders/analysis/shortcuts.py does for PhantomWiki:
  * question text -> answer / refuse: word and word-pair counts of the question, a logistic regression, balanced
    accuracy, chance 1/2 (held);
  * options -> gold option (sufficient rows): each option's length, position, whether it is a number or a name
    and how often the shown articles mention it; the highest-scoring pick, against chance (held);
  * document surface -> answer / refuse: how many articles, how long, how many distinct dates (held);
  * lm-eval order -> answer / refuse: the best periodic guess from a row's position (held).
Printed beside them and not held: the question text -> three labels (a wording can tell a question NeoQA defines as
unanswerable from one whose articles may be missing, but the model's output is one option, answer or
"Unanswerable", so what counts is answer / refuse), and the whole-release grouping: among the rows of one question,
the one with the most articles is the sufficient one, since a question's contrastive rows are NeoQA's design.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .probing import UNHELD, Finding, balanced_accuracy, logistic

Row = Mapping[str, Any]
UNANSWERABLE = "Unanswerable"


def _logistic() -> Any:
    return logistic(scaled=False)


def refuse(row: Row) -> str:
    """The binary label: answer (sufficient) or refuse."""
    return "answer" if row["answerable"] == "sufficient" else "refuse"


def _fit_predict(
    train: Sequence[Row], test: Sequence[Row], features: Callable[[Row], list[float]], label: Callable[[Row], str]
) -> list[str]:
    model = _logistic()
    model.fit([features(r) for r in train], [label(r) for r in train])
    return [str(p) for p in model.predict([features(r) for r in test])]


def _question_predict(train: Sequence[Row], test: Sequence[Row], label: Any) -> list[str]:
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(ngram_range=(1, 2), lowercase=True, min_df=2)
    model = _logistic()
    model.fit(vectorizer.fit_transform([r["question"] for r in train]), [label(r) for r in train])
    return list(model.predict(vectorizer.transform([r["question"] for r in test])))


def surface(row: Row) -> list[float]:
    """What a glance at the articles gives: how many, how long, how many dates."""
    lengths = [len(d["headline"]) + sum(map(len, d["passages"])) for d in row["documents"]]
    mean = sum(lengths) / len(lengths) if lengths else 0.0
    return [len(lengths) / 10, sum(lengths) / 10_000, mean / 1000, len({d["date"] for d in row["documents"]}) / 10]


def option_features(row: Row, option: str, index: int, text: str) -> list[float]:
    """What an option looks like without reading: length, position, number or name, mentions in the articles."""
    return [
        len(option) / 30,
        index / len(row["answer_options"]),
        float(bool(re.match(r"[$0-9]", option))),
        min(text.count(option), 20) / 20,
    ]


def _options(train: Sequence[Row], test: Sequence[Row]) -> tuple[float, float]:
    def choices(row: Row) -> list[tuple[int, str]]:
        return [(i, o) for i, o in enumerate(row["answer_options"]) if o != UNANSWERABLE]

    def text(row: Row) -> str:
        return "\n".join(p for d in row["documents"] for p in (d["headline"], *d["passages"]))

    answerable = [r for r in train if r["answerable"] == "sufficient"]
    model = _logistic()
    features, labels = [], []
    for row in answerable:
        shown = text(row)
        features += [option_features(row, o, i, shown) for i, o in choices(row)]
        labels += [int(i == row["gold_answer_idx"]) for i, _ in choices(row)]
    model.fit(features, labels)
    hits, chance = [], []
    for row in (r for r in test if r["answerable"] == "sufficient"):
        options, shown = choices(row), text(row)
        scores = model.decision_function([option_features(row, o, i, shown) for i, o in options])
        best = max(range(len(options)), key=lambda k: scores[k])
        hits.append(options[best][0] == row["gold_answer_idx"])
        chance.append(1 / len(options))
    return sum(hits) / len(hits), sum(chance) / len(chance)


def order_finding(ordered: Sequence[Row]) -> Finding:
    """How well a row's position in lm-eval's order (`ordered`: the rows as leakproof_eval.ordering deals them)
    tells answer / refuse: the best periodic guess, period 2 to 30."""
    gold = [refuse(r) for r in ordered]
    best = 0.5
    for period in range(2, 31):
        for phase in range(period):
            guess = ["answer" if i % period == phase else "refuse" for i in range(len(ordered))]
            best = max(best, balanced_accuracy(gold, guess))
    return Finding("lm-eval position -> answer / refuse (best period)", "balanced accuracy", best, 0.5)


def grouping(test: Sequence[Row]) -> Finding:
    """Among the rows of one question, answer on the one with the most articles and refuse the rest (unheld)."""
    by_question: dict[str, list[Row]] = defaultdict(list)
    for row in test:
        by_question[row["question_id"]].append(row)
    guess = {}
    for rows in by_question.values():
        most = max(len(r["use_evidence_documents"]) for r in rows)
        for row in rows:
            guess[row["instance_id"]] = "answer" if len(row["use_evidence_documents"]) == most else "refuse"
    score = balanced_accuracy([refuse(r) for r in test], [guess[r["instance_id"]] for r in test])
    return Finding(
        "whole release: most articles of a question -> answer", "balanced accuracy", score, 0.5, len(test), UNHELD
    )


def audit(train: Sequence[Row], test: Sequence[Row], ordered: Sequence[Row]) -> list[Finding]:
    """Every probe, trained on `train` (one configuration's neoqa rows, with documents) and scored on `test`;
    `ordered`: the `test` rows in the order the lm-eval task deals them."""
    two = [refuse(r) for r in test]
    three = [r["answerable"] for r in test]
    score, chance = _options(train, test)
    return [
        Finding(
            "question text -> answer / refuse",
            "balanced accuracy",
            balanced_accuracy(two, _question_predict(train, test, refuse)),
            1 / 2,
        ),
        Finding("options -> gold option (sufficient rows)", "accuracy", score, chance),
        Finding(
            "document surface -> answer / refuse",
            "balanced accuracy",
            balanced_accuracy(two, _fit_predict(train, test, surface, refuse)),
            1 / 2,
        ),
        order_finding(ordered),
        Finding(
            "question text -> label (3 labels; the output is answer / refuse)",
            "balanced accuracy",
            balanced_accuracy(three, _question_predict(train, test, lambda r: r["answerable"])),
            1 / 3,
            len(test),
            "(not held: the output is answer / refuse)",
        ),
        grouping(test),
    ]


def table(findings: Sequence[Finding]) -> str:
    """The findings as a Markdown table; the unheld figures say so."""
    lines = [
        "| probe (only what a prompt shows) | metric | score | fair baseline | margin |",
        "|---|---|---:|---:|---:|",
    ]
    for f in findings:
        margin = f"{f.margin:+.3f}" if f.held else f"{f.margin:+.3f} (not held)"
        lines.append(f"| {f.probe} | {f.metric} | {f.score:.3f} | {f.baseline:.3f} | {margin} |")
    return "\n".join(lines)
