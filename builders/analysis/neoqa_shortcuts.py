"""The shortcut audit of generated NeoQA: what a model that does not read could get from a prompt (spec/validity.md).

Every probe sees only what the prompt shows (builders/analysis/neoqa_view.py: the question, its date, the options in
order, each article's headline, date and passages, how many there are), is trained on one generated configuration's
rows and scored on another's, beside its fair baseline, for each instance set apart:
  * premise look-ups (builders/analysis/neoqa_premise.py);
  * option probes (builders/analysis/neoqa_options.py);
  * shape: sufficient against insufficient rows, from the documents' number, dates (distinct, span, the newest's and
    the oldest's distance to the question's date) and lengths, boosted trees, balanced accuracy against 0.5;
  * question text -> answer / refuse (word and word-pair counts, a logistic regression); the document surface (how
    many articles, how long, how many dates) -> answer / refuse; lm-eval's order -> answer / refuse (the best
    periodic guess from a row's position);
each held within a margin of its baseline by tests/neoqa/test_neoqa_shortcuts.py. Printed beside them and not held:
the question text -> three labels (NeoQA defines some wordings as unanswerable; the model's output is answer or
refuse), and the whole-release grouping: among the rows of one question, the one with the most articles is the
sufficient one (NeoQA pairs a question's rows on purpose; whoever holds a release holds its labels too).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .neoqa_fit import boosted_finding
from .neoqa_options import option_findings, rank_tests
from .neoqa_premise import premise_findings
from .neoqa_view import Shown, answer_or_refuse, label_of, read_rows
from .probing import UNHELD, Finding, balanced_accuracy, logistic, mean

NOT_HELD = "(not held: the output is answer / refuse)"
INSTANCE_SETS = ("neoqa", "optimal-evidence", "context-ablation")
ABLATION_STEP = 20  # context-ablation's levels of irrelevant articles lie 20 apart (0, 20, ... 80: appendix E.3)


@dataclass(frozen=True, repr=False)
class Configuration:
    """One generated configuration's prompts of each instance set, and each set's rows in lm-eval's order."""

    name: str
    sets: Mapping[str, Sequence[Shown]]
    ordered: Mapping[str, Sequence[Shown]]

    def __repr__(self) -> str:
        """The name and row counts (a test's report of a failure prints its arguments; the rows' text is large)."""
        return f"Configuration({self.name}: " + ", ".join(f"{k} {len(v)} rows" for k, v in self.sets.items()) + ")"


def configuration(name: str, sets: Sequence[str] = INSTANCE_SETS) -> Configuration:
    """The prompts of a generated configuration's instance sets (each generated once, read once), and each set in
    the order the lm-eval task deals it (leakproof_eval/neoqa_tasks.py: seeded by the configuration, labelled by
    the set)."""
    from leakproof_qa.builders.neoqa.generate import GeneratedSplit
    from leakproof_qa.builders.neoqa.settings import settings_from
    from leakproof_qa.leakproof_eval.ordering import interleaved

    settings = settings_from(name)[0]
    prompts = {subset: read_rows(GeneratedSplit(settings, subset)) for subset in sets}
    ordered = {
        subset: interleaved(rows, lambda p: p.label == "sufficient", settings.seed, f"{subset}/test")
        for subset, rows in prompts.items()
    }
    return Configuration(name, prompts, ordered)


def _question_predict(train: Sequence[Shown], test: Sequence[Shown], label: Callable[[Shown], str]) -> list[str]:
    """Word and word-pair counts of the question text, a class-balanced logistic regression; fitted once per
    distinct (text, label), weighted by how many rows hold it and by its label's balancing weight (the same fit as
    row by row, many times quicker: a question's rows share its text), the words kept that two texts hold."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression

    rows = Counter((p.question, label(p)) for p in train)
    labels = Counter(label(p) for p in train)
    balance = {g: len(train) / (len(labels) * n) for g, n in labels.items()}  # as class_weight="balanced"
    vectorizer = CountVectorizer(ngram_range=(1, 2), lowercase=True, min_df=2)
    vectorizer.fit(sorted({text for text, _ in rows}))
    model = LogisticRegression(solver="newton-cg", max_iter=4000)  # the same fit as lbfgs here, ten times quicker
    model.fit(
        vectorizer.transform([t for t, _ in rows]),
        [g for _, g in rows],
        sample_weight=[n * balance[g] for (_, g), n in rows.items()],
    )
    texts = sorted({p.question for p in test})
    guessed = dict(zip(texts, model.predict(vectorizer.transform(texts))))
    return [str(guessed[p.question]) for p in test]


def surface(p: Shown) -> list[float]:
    """What a glance at the articles gives: how many, how long, how many dates."""
    lengths = [len(a.text) for a in p.articles]
    return [
        len(lengths) / 10,
        sum(lengths) / 10_000,
        mean(lengths) / 1000 if lengths else 0.0,
        len({a.day for a in p.articles}) / 10,
    ]


def shape(p: Shown) -> list[float]:
    """The documents' shape: how many, their dates (distinct, span, the newest's and oldest's distance to the
    question's date, how many on it), their lengths (total, mean, shortest, longest, in sentences) and how many days
    their passages state."""
    days = sorted(a.day for a in p.articles) or [p.day]
    lengths = [len(a.text) for a in p.articles] or [0]
    return [
        len(p.articles),
        len(set(days)),
        (days[-1] - days[0]).days,
        (p.day - days[-1]).days,
        (p.day - days[0]).days,
        sum(d == p.day for d in days),
        sum(lengths),
        mean(lengths),
        min(lengths),
        max(lengths),
        sum(a.sentences for a in p.articles),
        len(p.stated),
    ]


def shape_finding(train: Sequence[Shown], test: Sequence[Shown]) -> Finding:
    """Boosted trees over the shape -> sufficient or insufficient, on those rows."""
    fit = [p for p in train if p.label != "unanswerable"]
    scored = [p for p in test if p.label != "unanswerable"]
    return boosted_finding("document shape, boosted trees -> sufficient / insufficient", shape, fit, scored)


def order_finding(ordered: Sequence[Shown]) -> Finding:
    """How well a row's position in lm-eval's order tells answer / refuse: the best periodic guess ("answer at
    every period-th row from phase on", or refuse there), period 2 to 30."""
    import numpy as np

    answer = np.array([p.label == "sufficient" for p in ordered])
    answers, refusals = int(answer.sum()), int((~answer).sum())
    best = 0.5
    if answers and refusals:
        position = np.arange(len(ordered))
        for period in range(2, 31):
            shown = np.bincount(position % period, minlength=period)  # rows at each phase
            hits = np.bincount(position % period, weights=answer, minlength=period)  # answer rows among them
            score = (hits / answers + (refusals - (shown - hits)) / refusals) / 2
            best = max(best, float(score.max()), float(1 - score.min()))
    return Finding("lm-eval position -> answer / refuse (best period)", "balanced accuracy", best, 0.5, len(ordered))


def grouping(test: Sequence[Shown], levels: bool = False) -> Finding:
    """Among the rows of one question, answer on the one with the most articles and refuse the rest (unheld); with
    `levels` (context-ablation), the rows of one question and one level of irrelevant articles (about 20 apart,
    appendix E.3), told by how many articles a row shows."""
    by_question: dict[tuple[str, int], list[Shown]] = defaultdict(list)
    for p in test:
        by_question[str(p.row["question_id"]), len(p.articles) // ABLATION_STEP if levels else 0].append(p)
    guess: dict[int, str] = {}
    for rows in by_question.values():
        most = max(len(p.articles) for p in rows)
        guess.update({id(p): "answer" if len(p.articles) == most else "refuse" for p in rows})
    return Finding(
        "whole release: most articles of a question -> answer",
        "balanced accuracy",
        balanced_accuracy(label_of(test), [guess[id(p)] for p in test]),
        0.5,
        len(test),
        UNHELD,
    )


def text_and_surface(
    train: Sequence[Shown], test: Sequence[Shown], ordered: Sequence[Shown], levels: bool = False
) -> list[Finding]:
    """The question text, the document surface and lm-eval's order -> answer / refuse; the text -> three labels and
    the whole-release grouping, unheld."""
    two = label_of(test)
    model = logistic(scaled=False)
    model.fit([surface(p) for p in train], label_of(train))
    return [
        Finding(
            "question text -> answer / refuse",
            "balanced accuracy",
            balanced_accuracy(two, _question_predict(train, test, answer_or_refuse)),
            0.5,
            len(test),
        ),
        Finding(
            "document surface -> answer / refuse",
            "balanced accuracy",
            balanced_accuracy(two, [str(g) for g in model.predict([surface(p) for p in test])]),
            0.5,
            len(test),
        ),
        order_finding(ordered),
        Finding(
            "question text -> label (3 labels)",
            "balanced accuracy",
            balanced_accuracy([p.label for p in test], _question_predict(train, test, lambda p: p.label)),
            1 / 3,
            len(test),
            NOT_HELD,
        ),
        grouping(test, levels),
    ]


def set_findings(
    train: Sequence[Shown], test: Sequence[Shown], ordered: Sequence[Shown], name: str = "neoqa"
) -> list[Finding]:
    """Every probe of instance set `name`, trained on `train`, scored on `test` (`ordered`: `test` in lm-eval's
    order)."""
    return [
        *premise_findings(train, test),
        *option_findings(train, test),
        shape_finding(train, test),
        *text_and_surface(train, test, ordered, name == "context-ablation"),
    ]


def audit(train: Configuration, test: Configuration) -> dict[str, list[Finding]]:
    """Each instance set's findings (the sets both configurations hold), and under "all sets" the gold's rank among
    number options tested over the test configuration's sets pooled (a question counted once)."""
    found = {
        name: set_findings(train.sets[name], test.sets[name], test.ordered[name], name)
        for name in test.sets
        if name in train.sets
    }
    found["all sets"] = rank_tests([p for prompts in test.sets.values() for p in prompts])
    return found


def table(findings: Mapping[str, Sequence[Finding]]) -> str:
    """The findings as a Markdown table, set by set; the unheld figures say so."""
    lines = [
        "| set | probe (only what a prompt shows) | rows | metric | score | fair baseline | margin |",
        "|---|---|---:|---|---:|---:|---:|",
    ]
    for name, listed in findings.items():
        for f in listed:
            if f.metric == "p-value":
                score = f"{f.score:.3g}"
                margin = "uniform kept" if f.score >= f.baseline else "uniform rejected"
            else:
                score = f"{f.score:.3f}"
                margin = f"{f.margin:+.3f}" + ("" if f.held else f" {f.apart}")
            lines.append(f"| {name} | {f.probe} | {f.rows} | {f.metric} | {score} | {f.baseline:.3g} | {margin} |")
    return "\n".join(lines)
