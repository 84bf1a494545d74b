"""A shortcut audit of the `instances` and `rag` rows: what a model that does not read could get from what a prompt
shows.

Each probe sees only the surface of a row (its question text, its documents' text and order, its options) and is
trained on one universe and scored on another, beside its fair baseline (spec/validity.md: "a lazy reader stays at
its baseline"), as hypothesis-only baselines do in NLI. Here, the first probes:
  * question -> label: word and word-pair counts of the question (closed-world sentence included), a logistic
    regression, balanced accuracy over the three labels (sufficient, insufficient, unanswerable) and over answer /
    refuse; chance 1/3 and 1/2;
  * wording rule -> answer / refuse: refuse when the question states a premise, the rule that caught every
    unanswerable row before 0.8.0; balanced accuracy, chance 1/2;
  * document surface -> label: the number of documents, their lengths, the names they hold; and, on the rows that
    show it, where the article of the person the question names sits; balanced accuracy, chance 1/3;
  * options -> gold option (sufficient rows): each option's length, number of names, share of its names the
    documents state, shared surnames, position; a logistic scorer picks the highest; accuracy against picking one
    of the non-"Unanswerable" options at random;
  * look-up -> refuse: refuse when a person the question names has no article among the documents. Not a
    shortcut but one look-up (a nonexistent person, a missing anchor): reported apart, with its precision and
    recall, never held to a baseline.
The others live beside this module: rag_probes (rag's label by the question's hops), option_probes (counts, option
names no document states, the option-feature scorer), document_probes (the mention graph, the missing person in the
lists, a nonexistent person's namesake) and grouping (the whole-release figure, unheld).
scikit-learn does the fitting (a test extra); everything else is plain Python over the rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..phantomwiki.variants import read_premises
from .document_probes import (
    missing_hub,
    missing_in_lists,
    nonexistent_findings,
    sufficient_or_insufficient,
    surface_graph,
)
from .grouping import grouping_findings
from .option_probes import (
    FEW_SUFFICIENT,
    absent_option_findings,
    answer_option,
    count_findings,
    rank_finding,
    rank_table,
    scorer_findings,
    several_findings,
    whole_list_findings,
)
from .option_views import nearest_findings
from .probing import LOOK_UP, Finding, balanced_accuracy, logistic, mean
from .prompt_view import UNANSWERABLE, Prompt, Row, label, looks_up, named_in, per_prompt, read_prompts, refuse
from .rag_probes import FEW_RAG, closed_world_labels, hop_table, rag_graph, short_answers, short_paths

__all__ = ["Finding", "Universe", "audit", "balanced_accuracy", "refuse", "table", "tables"]


@dataclass(frozen=True)
class Universe:
    """One universe's prompts as the audit reads them: its `instances` rows and its `rag` rows."""

    instances: list[Prompt]
    rag: list[Prompt]

    @classmethod
    def of(cls, instances: Sequence[Row], rag: Sequence[Row]) -> Universe:
        return cls(read_prompts(instances), read_prompts(rag))


def question_text(p: Prompt) -> str:
    return " ".join(part for part in (p.row["closed_world"], p.question) if part)


@per_prompt
def surface(p: Prompt) -> list[float]:
    """What a glance at the documents gives: how many, how long, how many names they hold."""
    lengths = [len(d["text"]) for d in p.row["documents"]]
    spread = (sum((x - mean(lengths)) ** 2 for x in lengths) / len(lengths)) ** 0.5 if lengths else 0.0
    names = {m for d in p.row["documents"] for m in re.findall(r"[A-Z][a-z]+ [A-Z][a-z]+", d["text"])}
    return [len(lengths), sum(lengths) / 1000, mean(lengths) / 100 if lengths else 0.0, spread / 100, len(names) / 10]


def option_count(p: Prompt) -> list[float]:
    """How many options a row has, and whether they are numbers (a count's rows have as many as they can)."""
    return [float(len(p.options)), float(all(o.isdigit() for o in p.options if o != UNANSWERABLE))]


def position(p: Prompt) -> list[float]:
    """Where the article of the first person the question names sits among the documents (a row that shows it)."""
    first = next(p.titles.index(n) for n in named_in(p.question) if n in p.titles)
    return [first / len(p.titles), float(first == 0), float(first == len(p.titles) - 1)]


def old_option_features(p: Prompt, index: int) -> list[float]:
    """What an option looks like, without reading: its length, names, whether the documents mention them."""
    text = "\n".join(d["text"] for d in p.row["documents"])
    option = p.options[index]
    items = option.split(", ")
    surnames = [item.rsplit(" ", 1)[-1] for item in items]
    return [
        len(option) / 100,
        len(items),
        sum(item in text for item in items) / len(items),
        max(surnames.count(s) for s in surnames) / len(items),
        index / max(1, len(p.options)),
        float(all(item.isdigit() for item in items)),
    ]


def _fit_predict(
    train: Sequence[Prompt],
    test: Sequence[Prompt],
    features: Callable[[Prompt], list[float]],
    to: Callable[[Prompt], str],
) -> list[str]:
    model = logistic(scaled=False)
    model.fit([features(p) for p in train], [to(p) for p in train])
    return [str(x) for x in model.predict([features(p) for p in test])]


def _text_predict(train: Sequence[Prompt], test: Sequence[Prompt], to: Callable[[Prompt], str]) -> list[str]:
    from sklearn.feature_extraction.text import CountVectorizer

    vectorizer = CountVectorizer(ngram_range=(1, 2), lowercase=True, min_df=2)
    model = logistic(scaled=False)
    model.fit(vectorizer.fit_transform([question_text(p) for p in train]), [to(p) for p in train])
    return [str(x) for x in model.predict(vectorizer.transform([question_text(p) for p in test]))]


def _old_options(train: Sequence[Prompt], test: Sequence[Prompt]) -> list[Finding]:
    """The first option scorer (unscaled, six features), trained on the sufficient rows to find the gold option: on
    the sufficient rows of `test` (reported: too few to hold) and on every row whose options hold the question's
    answer (held), against chance among the options but "Unanswerable"."""

    def choices(p: Prompt) -> list[int]:
        return [i for i, o in enumerate(p.options) if o != UNANSWERABLE]

    answerable = [p for p in train if p.row["answerable"] == "sufficient"]
    model = logistic(scaled=False)
    model.fit(
        [old_option_features(p, i) for p in answerable for i in choices(p)],
        [int(i == p.row["gold_answer_idx"]) for p in answerable for i in choices(p)],
    )
    findings = []
    for which, rows, apart in (
        (
            "gold option (sufficient rows; six features)",
            [p for p in test if p.row["answerable"] == "sufficient"],
            FEW_SUFFICIENT,
        ),
        (
            "the question's answer (every row whose options hold it; six features)",
            [p for p in test if answer_option(p) is not None],
            "",
        ),
    ):
        hits, chance = [], []
        for p in rows:
            options = choices(p)
            scores = model.decision_function([old_option_features(p, i) for i in options])
            best = max(range(len(options)), key=lambda k: scores[k])
            hits.append(float(options[best] == answer_option(p)))
            chance.append(1 / len(options))
        findings.append(Finding(f"options -> {which}", "accuracy", mean(hits), mean(chance), len(hits), apart))
    return findings


def question_findings(train: Sequence[Prompt], test: Sequence[Prompt]) -> list[Finding]:
    """The question's words, and the wording rule, against the labels."""
    three, two = [label(p) for p in test], [refuse(p) for p in test]
    return [
        Finding(
            "question text -> label", "balanced accuracy (3 labels)",
            balanced_accuracy(three, _text_predict(train, test, label)), 1 / 3, len(test),
        ),
        Finding(
            "question text -> answer / refuse", "balanced accuracy",
            balanced_accuracy(two, _text_predict(train, test, refuse)), 1 / 2, len(test),
        ),
        Finding(
            "wording rule (a premise -> refuse)", "balanced accuracy",
            balanced_accuracy(two, ["refuse" if read_premises(p.question) else "answer" for p in test]), 1 / 2,
            len(test),
        ),
    ]  # fmt: skip


def surface_findings(train: Sequence[Prompt], test: Sequence[Prompt]) -> list[Finding]:
    """The documents' count, lengths and names, and where the named person's article sits."""
    shown = [p for p in test if not looks_up(p)]
    fit = [p for p in train if not looks_up(p)]
    return [
        Finding(
            "document surface -> label", "balanced accuracy (3 labels)",
            balanced_accuracy([label(p) for p in test], _fit_predict(train, test, surface, label)), 1 / 3, len(test),
        ),
        Finding(
            "document surface -> answer / refuse", "balanced accuracy",
            balanced_accuracy([refuse(p) for p in test], _fit_predict(train, test, surface, refuse)), 1 / 2, len(test),
        ),
        Finding(
            "number of options -> label", "balanced accuracy (3 labels)",
            balanced_accuracy([label(p) for p in test], _fit_predict(train, test, option_count, label)), 1 / 3,
            len(test),
        ),
        Finding(
            "named person's article position -> label", "balanced accuracy (3 labels)",
            balanced_accuracy([label(p) for p in shown], _fit_predict(fit, shown, position, label)), 1 / 3, len(shown),
        ),
    ]  # fmt: skip


def rag_text(train: Sequence[Prompt], test: Sequence[Prompt]) -> Finding:
    """The question's words -> answer / refuse on the `rag` rows (whether top-k retrieval sufficed)."""
    return Finding(
        "rag: question text -> answer / refuse",
        "balanced accuracy",
        balanced_accuracy([refuse(p) for p in test], _text_predict(train, test, refuse)),
        1 / 2,
        len(test),
        FEW_RAG,
    )


def look_up_findings(test: Sequence[Prompt]) -> list[Finding]:
    """The look-up's precision and recall as a refusal rule: reported apart, never held."""
    flagged = [p for p in test if looks_up(p)]
    refusals = sum(refuse(p) == "refuse" for p in test)
    hits = sum(refuse(p) == "refuse" for p in flagged)
    probe = "look-up: a named person has no article -> refuse"
    return [
        Finding(probe, "precision", hits / len(flagged) if flagged else float("nan"), 1.0, len(flagged), LOOK_UP),
        Finding(probe, "recall", hits / refusals if refusals else float("nan"), 0.0, refusals, LOOK_UP),
    ]


def audit(train: Universe, test: Universe) -> list[Finding]:
    """Every probe, trained on `train` (one universe's rows) and scored on `test` (another's)."""
    return [
        *question_findings(train.instances, test.instances),
        short_answers(train.rag, test.rag),
        short_paths(train.rag, test.rag),
        rag_text(train.rag, test.rag),
        rag_graph(train.rag, test.rag),
        *surface_findings(train.instances, test.instances),
        *surface_graph(train.instances, test.instances),
        sufficient_or_insufficient(train.instances, test.instances),
        missing_in_lists(train.instances, test.instances),
        missing_hub(train.instances, test.instances),
        *_old_options(train.instances, test.instances),
        *scorer_findings(train.instances, test.instances),
        *absent_option_findings(test.instances),
        *whole_list_findings(test.instances),
        *several_findings(test.instances),
        *count_findings(test.instances),
        rank_finding(train.instances, test.instances),
        *nearest_findings(test.instances),
        *nonexistent_findings(test.instances),
        *look_up_findings(test.instances),
        *grouping_findings(test.instances),
    ]


def tables(test: Universe) -> str:
    """The figures beside the audit: rag's labels by hop count, its closed-world rows, where counts rank."""
    return "\n\n".join(
        [
            hop_table(test.rag),
            hop_table(test.rag, steps=True),
            closed_world_labels(test.rag),
            rank_table(test.instances),
        ]
    )


def table(findings: Sequence[Finding]) -> str:
    """The findings as a Markdown table."""
    lines = [
        "| probe (only what a prompt shows) | metric | rows | score | fair baseline | margin |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for f in findings:
        whole = f.metric == "rows"
        score, base = (f"{f.score:.0f}", f"{f.baseline:.0f}") if whole else (f"{f.score:.3f}", f"{f.baseline:.3f}")
        margin = f.apart or (f"{f.margin:+.0f}" if whole else f"{f.margin:+.3f}")
        lines.append(f"| {f.probe} | {f.metric} | {f.rows} | {score} | {base} | {margin} |")
    return "\n".join(lines)
