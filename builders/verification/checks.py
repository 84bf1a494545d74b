"""A row's labels held against what its documents prove: each disagreement in words.

  * sufficient: the documents prove exactly the gold answer (a count question: the counts);
  * insufficient and unanswerable: they prove no answer, and the gold answer is the deflection;
  * each unanswerable kind by its definition: `false_premise_relation` (the documents refute the relation),
    `false_premise_attribute` (the person's own article states another value), `uncertain_specificity` (the
    person's own article is shown and states no such attribute), `nonexistent_person` (no shown document names the
    person the question is about, so they have no article either);
  * multiple choice: exactly one option is correct (the proven answer, else "Unanswerable") and it is the gold one;
  * rag: `retrieved_sufficient` is whether the retrieved documents prove the answer.
In `rag` the unanswerable kinds are held only as far as the retrieved documents go: they need not show the person's
article, so there a premise kind holds when the documents do not confirm the premise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .evaluate import CONFIRMED, REFUTED, SAID, UNSTATED, Decision, decide
from .questions import AttributePremise, Question, RelationPremise, Unreadable, read_question
from .shown import Shown
from .words import labels

_PREMISE_KINDS = {
    "false_premise_relation": (RelationPremise, REFUTED),
    "false_premise_attribute": (AttributePremise, REFUTED),
    "uncertain_specificity": (AttributePremise, UNSTATED),
}


def row_problems(row: Mapping[str, Any], subset: str, shown: Shown) -> list[str]:
    """Everything wrong with one row, given what its documents show."""
    problems = [
        f"{subject}'s document has a line the article grammar does not read: {line!r}" for subject, line in shown.unread
    ]
    problems += [f"{subject} has more than one document" for subject in shown.repeated]
    problems += shown.disagreements()
    try:
        question = read_question(row["question"])
    except Unreadable as error:
        return [*problems, str(error)]
    decision = decide(shown, question, row.get("closed_world") or "")
    problems += _answer_problems(row, decision)
    if decision.answer is not None and row.get("answerable") == "sufficient" and row.get("citations") is not None:
        problems += _citation_problems(row, shown)
    if row.get("missing_article") and row["missing_article"] in shown.own:
        problems.append(f"its missing_article {row['missing_article']} is among the documents")
    if row.get("answerable") == "unanswerable":
        problems += _kind_problems(row, subset, question, shown, decision)
    if subset == "rag" and bool(row.get("retrieved_sufficient")) != (decision.answer is not None):
        problems.append(
            f"retrieved_sufficient is {bool(row.get('retrieved_sufficient'))}, but the retrieved documents "
            + (f"prove the answer {_said(decision.answer)}" if decision.answer is not None else "prove no answer")
        )
    if row.get("answer_options"):
        problems += _option_problems(row["answer_options"], row.get("gold_answer_idx"), decision.answer)
    return problems


def _citation_problems(row: Mapping[str, Any], shown: Shown) -> list[str]:
    """The articles a proof reads are among the row's citations (0-based positions of its documents)."""
    documents = row.get("documents") or []
    cited = set()
    for position in row["citations"]:
        if not isinstance(position, int) or not 0 <= position < len(documents):
            return [f"its citations hold {position!r}, which is not the position of one of its documents"]
        document = documents[position]
        cited.add(document.get("title") if isinstance(document, Mapping) else None)
    uncited = sorted(shown.read - cited)
    return [f"the proof reads the articles of {', '.join(uncited)}, which its citations leave out"] if uncited else []


def _said(answer: Sequence[str] | None) -> str:
    return "none" if answer is None else "[" + ", ".join(answer) + "]"


def _label(row: Mapping[str, Any]) -> str:
    detail = row.get("unanswerable_kind") or row.get("missing_role") or ""
    return str(row.get("answerable")) + (f" ({detail})" if detail else "")


def _answer_problems(row: Mapping[str, Any], decision: Decision) -> list[str]:
    gold = list(row.get("answer") or [])
    if row.get("answerable") == "sufficient":
        if decision.answer is None:
            return [f"labelled sufficient, but the documents prove no answer: {decision.why}"]
        if set(decision.answer) != set(gold) or len(set(gold)) != len(gold):
            return [
                f"labelled sufficient with the answer {_said(gold)}, but the documents prove {_said(decision.answer)}"
            ]
        return []
    problems = []
    if decision.answer is not None:
        problems.append(f"labelled {_label(row)}, but the documents prove the answer {_said(decision.answer)}")
    if gold != [labels()["deflection"]]:
        problems.append(f"labelled {_label(row)}, but its gold answer is {_said(gold)}, not the deflection")
    if row.get("answerable") not in ("insufficient", "unanswerable"):
        problems.append(f"answerable is {row.get('answerable')!r}, not sufficient, insufficient or unanswerable")
    return problems


def _kind_problems(
    row: Mapping[str, Any], subset: str, question: Question, shown: Shown, decision: Decision
) -> list[str]:
    kind = row.get("unanswerable_kind")
    if kind == "nonexistent_person":
        if all(shown.names(name) for name in question.names):
            return [f"labelled nonexistent_person, but the documents name {', '.join(question.names)}"]
        return []
    if kind not in _PREMISE_KINDS:
        return [f"labelled unanswerable, with the unknown kind {kind!r}"]
    wanted, status = _PREMISE_KINDS[kind]
    if not isinstance(question.premise, wanted):
        return [f"labelled {kind}, but the question states no {wanted.__name__} premise"]
    if subset == "rag":
        held = decision.premise != CONFIRMED
    else:
        held = decision.premise == status
    return [] if held else [f"labelled {kind}, but the documents {SAID[decision.premise]}"]


def _option_problems(options: Sequence[str], gold: Any, answer: Sequence[str] | None) -> list[str]:
    refuse = labels()["unanswerable_option"]
    if answer is None:
        correct = [i for i, option in enumerate(options) if option == refuse]
    else:
        correct = [i for i, option in enumerate(options) if option != refuse and set(option.split(", ")) == set(answer)]
    right = "the option " + (refuse if answer is None else ", ".join(answer))
    if len(correct) != 1:
        return [f"{len(correct)} options are correct ({right}; at {correct})"]
    if gold != correct[0]:
        shown_gold = options[gold] if isinstance(gold, int) and 0 <= gold < len(options) else gold
        return [f"gold_answer_idx {gold} ({shown_gold!r}) is not {right} (option {correct[0]})"]
    return []
