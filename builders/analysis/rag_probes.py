"""The `rag` subset's label against the question's length: whether retrieval's top k suffices must not follow from
how many hops the question's text asks for, nor how many people its relation words reach ("cousin" is one hop and
four parent / child steps), nor from its words or the retrieved articles' mention graph (spec/validity.md, "Labels
that a setting decides"). The steps of each relation word are the verifier's table's (builders/verification: written
apart from the generator), a sibling or spouse step counted as two (up and down, down and up)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache

from ..verification.words import plurals, relations
from .document_probes import graph_features
from .probing import Finding, balanced_accuracy, fit_threshold, fitted_finding, threshold_rule
from .prompt_view import Prompt, hops, label, refuse

LABELS = ("sufficient", "insufficient", "unanswerable")
FEW_RAG = "(about 100 rag rows a universe, standard error 0.05: reported)"
STEPS = {"parent": 1, "child": 1, "friend": 1, "sibling": 2, "spouse": 2}  # parent / child steps of each list step
_HOP = re.compile(r"\bthe ([a-z][a-z -]*?) of\b")
_COUNTED = re.compile(r"^How many ([a-z][a-z -]*?) does\b")
_PREMISE = re.compile(r"'s ([a-z][a-z -]*?) [A-Z]")


@cache
def _steps(word: str, plural: bool = False) -> int:
    """The parent / child steps one relation word takes (0 for a word that is no relation, such as an attribute)."""
    found = (plurals() if plural else relations()).get(word)
    return 0 if found is None else sum(STEPS.get(step, 0) for step in found.steps)


def path_steps(question: str) -> int:
    """How many parent / child (or friend) steps the question's relation words add up to, read from its words: one
    per "the <relation> of", the relation counted ("How many sons does ..."), a relation premise ("Ann Lee's son")."""
    return (
        sum(_steps(word) for word in _HOP.findall(question))
        + sum(_steps(word, plural=True) for word in _COUNTED.findall(question))
        + sum(_steps(word) for word in _PREMISE.findall(question))
    )


def _at_most(train: Sequence[Prompt], test: Sequence[Prompt], measure: Callable[[str], int], what: str) -> Finding:
    """ "Answer iff the question's `measure` is at most k", k fitted on `train`, scored answer / refuse on `test`."""
    negative = [-measure(p.question) for p in train]  # at most k: -measure >= -k
    t = fit_threshold(negative, [refuse(p) for p in train], "answer")
    guess = threshold_rule([-measure(p.question) for p in test], t, "answer", "refuse")
    k = "none" if t == float("inf") else str(int(-t))
    return Finding(
        f"rag: at most k {what} -> answer (k = {k}, fitted)",
        "balanced accuracy",
        balanced_accuracy([refuse(p) for p in test], guess),
        0.5,
        len(test),
    )


def short_answers(train: Sequence[Prompt], test: Sequence[Prompt]) -> Finding:
    """ "Answer iff the question has at most k hops", k fitted on `train`."""
    return _at_most(train, test, hops, "hops in the question text")


def short_paths(train: Sequence[Prompt], test: Sequence[Prompt]) -> Finding:
    """ "Answer iff the question's relation words add up to at most k parent / child steps", k fitted on `train`."""
    return _at_most(train, test, path_steps, "parent / child steps in the question's relation words")


def rag_graph(train: Sequence[Prompt], test: Sequence[Prompt]) -> Finding:
    """The retrieved articles' surface and mention graph (document_probes.graph_features) -> answer / refuse."""
    return fitted_finding(
        "rag: retrieved articles' surface and mention graph -> answer / refuse",
        train,
        test,
        graph_features,
        refuse,
        FEW_RAG,
    )


def hop_table(rows: Sequence[Prompt], steps: bool = False) -> str:
    """rag's labels by the question's hop count (read from its text), or by its relation words' parent / child
    `steps`, and the sufficient share of the rows that are sufficient or insufficient: the balance a label decided by
    retrieval must keep within each length."""
    measure = path_steps if steps else hops
    counts = Counter((measure(p.question), label(p)) for p in rows)
    head = "parent / child steps (relation words)" if steps else "hops (question text)"
    lines = [
        f"| {head} | rows | sufficient | insufficient | unanswerable | sufficient share of the two |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for h in sorted({h for h, _ in counts}):
        s, i, u = (counts[(h, x)] for x in LABELS)
        share = f"{s / (s + i):.2f}" if s + i else "-"
        lines.append(f"| {h} | {s + i + u} | {s} | {i} | {u} | {share} |")
    return "\n".join(lines)


def closed_world_labels(rows: Sequence[Prompt]) -> str:
    """The labels of the rows whose question starts from an attribute value (a closed-world sentence)."""
    counts = Counter(label(p) for p in rows if p.row.get("closed_world"))
    return (
        f"rag rows with a closed-world sentence: {sum(counts.values())} ("
        + ", ".join(f"{x} {counts[x]}" for x in LABELS)
        + ")"
    )
