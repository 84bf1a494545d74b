"""The `rag` subset's label against the question's length: whether retrieval's top k suffices must not follow from
how many hops the question's text asks for (spec/validity.md, "Labels that a setting decides")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .probing import Finding, balanced_accuracy, fit_threshold, threshold_rule
from .prompt_view import Prompt, hops, label, refuse

LABELS = ("sufficient", "insufficient", "unanswerable")


def short_answers(train: Sequence[Prompt], test: Sequence[Prompt]) -> Finding:
    """ "Answer iff the question has at most k hops", k fitted on `train`, scored answer / refuse on `test`."""
    negative = [-hops(p.question) for p in train]  # at most k hops: -hops >= -k
    t = fit_threshold(negative, [refuse(p) for p in train], "answer")
    guess = threshold_rule([-hops(p.question) for p in test], t, "answer", "refuse")
    k = "none" if t == float("inf") else str(int(-t))
    return Finding(
        f"rag: at most k hops in the question text -> answer (k = {k}, fitted)",
        "balanced accuracy",
        balanced_accuracy([refuse(p) for p in test], guess),
        0.5,
        len(test),
    )


def hop_table(rows: Sequence[Prompt]) -> str:
    """rag's labels by the question's hop count (read from its text), and the sufficient share of the rows that are
    sufficient or insufficient: the balance a label decided by retrieval must keep within each length."""
    counts = Counter((hops(p.question), label(p)) for p in rows)
    lines = [
        "| hops (question text) | rows | sufficient | insufficient | unanswerable | sufficient share of the two |",
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
