"""The whole-release grouping figure (spec/validity.md, "The prompt is the unit"): whoever holds a release can group
a question's rows and compare their documents, without reading them. Reported beside the probes, never held: a
model sees one row at a time, and whoever holds a release holds its label columns too.

The guess, per family of rows (the rows sharing `question_family_id`, a column every row carries):
  * a row that lacks a document every other row of its family shows is insufficient (its missing article);
  * else a row whose question names a person without an article here is unanswerable (a nonexistent person);
  * of the rest, the row whose question text the most other rows of its family share is sufficient (its true
    premise is worded in insufficient rows as well; a false one is worded once), the others unanswerable.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .probing import UNHELD, Finding, balanced_accuracy
from .prompt_view import Prompt, label, looks_up


def _family_guess(family: Sequence[Prompt]) -> list[str]:
    shown = Counter(t for p in family for t in set(p.titles))
    texts = Counter(p.question for p in family)
    everywhere_else = {t for t, c in shown.items() if c == len(family) - 1} if len(family) > 2 else set()
    guess = []
    for p in family:
        if everywhere_else - set(p.titles):
            guess.append("insufficient")
        elif looks_up(p):
            guess.append("unanswerable")
        else:
            guess.append("")
    rest = [i for i, g in enumerate(guess) if not g]
    if rest:
        best = max(rest, key=lambda i: (texts[family[i].question], -i))
        for i in rest:
            guess[i] = "sufficient" if i == best else "unanswerable"
    return guess


def grouped_labels(test: Sequence[Prompt]) -> list[str]:
    """Each row's label as the grouping guesses it, in the order of `test`."""
    families: dict[str, list[int]] = {}
    for i, p in enumerate(test):
        families.setdefault(str(p.row["question_family_id"]), []).append(i)
    guess = [""] * len(test)
    for members in families.values():
        for i, g in zip(members, _family_guess([test[i] for i in members])):
            guess[i] = g
    return guess


def grouping_findings(test: Sequence[Prompt]) -> list[Finding]:
    """The grouping's 3-label accuracy (beside the majority label's share) and balanced accuracy (beside 1/3)."""
    gold = [label(p) for p in test]
    guess = grouped_labels(test)
    majority = Counter(gold).most_common(1)[0][1] / len(gold)
    probe = "whole release: group a question's rows, compare their documents -> label"
    return [
        Finding(
            probe,
            "accuracy (3 labels)",
            sum(g == p for g, p in zip(gold, guess)) / len(gold),
            majority,
            len(test),
            UNHELD,
        ),
        Finding(probe, "balanced accuracy (3 labels)", balanced_accuracy(gold, guess), 1 / 3, len(test), UNHELD),
    ]
