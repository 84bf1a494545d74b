"""Evaluation metrics as small pure functions: accuracy, ADTScore and NeoQA's per-category accuracy.

ADTScore (NeoQA paper, section 5) is the harmonic mean of the accuracy on answerable
instances and the accuracy on instances the model must deflect (insufficient evidence,
false premise, uncertain specificity).  Per-category accuracies follow the columns of the
paper's Table 4.  A prediction is an option index or None (unparsed, counted wrong).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .checks import is_whole
from .labels import ANSWERABLE, INSUFFICIENT, SUFFICIENT, UNANSWERABLE

ANSWERABLE_LABEL: str = SUFFICIENT  # the `answerable` value of an instance a model must answer (NeoQA's too)
NEOQA_CATEGORIES: tuple[str, ...] = (
    "multi-hop/answerable",
    "time-span/answerable",
    "multi-hop/insufficient",
    "time-span/insufficient",
    "false-premise",
    "uncertain-specificity",
)


def accuracy(correct: Sequence[bool]) -> float:
    """Fraction of True values; a metric over no instances is undefined, so that raises."""
    if not correct:
        raise ValueError("accuracy over zero instances is undefined; pass at least one instance")
    return sum(bool(value) for value in correct) / len(correct)


def harmonic_mean(a: float, b: float) -> float:
    """Harmonic mean of two non-negative numbers (0 when both are 0, NaN when either is NaN)."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a < 0 or b < 0:
        raise ValueError(f"harmonic mean needs non-negative values, got {a} and {b}")
    return 0.0 if a + b == 0 else 2 * a * b / (a + b)


def adt_score(accuracy_answerable: float, accuracy_deflection: float) -> float:
    """ADTScore: harmonic mean of answerable and must-deflect accuracy, so neither side can be traded away."""
    return harmonic_mean(accuracy_answerable, accuracy_deflection)


def neoqa_category(category: str, answerable: str) -> str:
    """The Table 4 column of an instance, e.g. ``multi-hop/insufficient`` or ``false-premise``."""
    if category in ("false-premise", "uncertain-specificity"):
        return category
    if category in ("multi-hop", "time-span"):
        return f"{category}/{'answerable' if answerable == ANSWERABLE_LABEL else 'insufficient'}"
    raise ValueError(
        f"unknown NeoQA category {category!r}; expected multi-hop, time-span, false-premise or uncertain-specificity"
    )


def is_correct(predicted: int | None, gold: int) -> bool:
    """True when the predicted option index is the gold index (an unparsed answer is wrong)."""
    return predicted is not None and predicted == gold


def _tally_choices(
    instances: Iterable[Mapping[str, Any]],
    predictions: Mapping[str, int | None],
    answerable_if: Callable[[Mapping[str, Any]], bool],
    category: Callable[[Mapping[str, Any]], str | None],
) -> tuple[list[bool], list[bool], dict[str, list[bool]]]:
    """Whether each multiple-choice prediction is the gold option: (answerable side, must-deflect side, by category;
    an instance whose category is None is in no category)."""
    answerable: list[bool] = []
    deflect: list[bool] = []
    by_category: dict[str, list[bool]] = {}
    for instance in instances:
        identifier = instance["instance_id"]
        if identifier not in predictions:
            raise ValueError(f"no prediction for instance {identifier!r}; predict every instance (None if unparsed)")
        hit = is_correct(predictions[identifier], instance["gold_answer_idx"])
        (answerable if answerable_if(instance) else deflect).append(hit)
        name = category(instance)
        if name is not None:
            by_category.setdefault(name, []).append(hit)
    return answerable, deflect, by_category


def neoqa_scores(instances: Iterable[Mapping[str, Any]], predictions: Mapping[str, int | None]) -> dict[str, Any]:
    """Score predictions (``instance_id`` -> option index or None) on NeoQA instances.

    Returns ``adt_score``, ``accuracy_answerable``, ``accuracy_deflection``, ``accuracy``
    (all instances), ``count`` and ``per_category`` (accuracy per Table 4 column present).
    When the instances hold no answerable (or no must-deflect) instance, that accuracy and
    the ADTScore are NaN: undefined, not zero.
    """
    answerable, deflect, by_category = _tally_choices(
        instances,
        predictions,
        lambda instance: instance["answerable"] == ANSWERABLE_LABEL,
        lambda instance: neoqa_category(instance["category"], instance["answerable"]),
    )
    acc_answerable = accuracy(answerable) if answerable else math.nan
    acc_deflect = accuracy(deflect) if deflect else math.nan
    return {
        "adt_score": adt_score(acc_answerable, acc_deflect),
        "accuracy_answerable": acc_answerable,
        "accuracy_deflection": acc_deflect,
        "accuracy": accuracy(answerable + deflect),
        "count": len(answerable) + len(deflect),
        "per_category": {name: accuracy(by_category[name]) for name in NEOQA_CATEGORIES if name in by_category},
    }


# --- Answer-level scores (PhantomWiki), deflection, CReSt's unified score and citations ---------------

ANSWER_SEPARATOR: str = ","
DEFLECTION: str = "insufficient information"
"""What prompts ask a model to output when the documents do not suffice; the gold answer of insufficient instances."""
# How models decline, after `_normal` (lower case, straight apostrophes, "can't" -> "cannot", "don't" -> "do not").
# Phrases count anywhere in the answer, as whole words; "unknown" and the like only as the whole answer or
# in "is unknown", so a name such as "Ann Unknown" or "Unknownson Lee" is an answer, not a deflection.
_DEFLECTION_PHRASES: tuple[str, ...] = (
    r"(?:insufficient|not enough|no) (?:information|evidence|data|context|details?)",
    r"not sufficient",
    r"not enough to (?:answer|determine|tell|know|say)",
    r"unanswerable|not answerable|no answer",
    r"cannot be (?:answered|determined|known|inferred|found)",
    r"(?:cannot|could not|unable to|not able to|impossible to|not possible to) "
    r"(?:answer|determine|tell|say|know|infer|find|locate|identify)",
    r"not (?:found |mentioned |stated |given |provided |present |available )?in the "
    r"(?:evidence|documents?|text|context|articles?|passages?|information)",
    r"no (?:mention|record) of",
    r"(?:do|does|did) not know|dont know",
    r"(?:is|are) not (?:mentioned|stated|specified|provided|given)",
    r"(?:do|does) not (?:mention|state|specify|provide|contain|say|include)",
    r"(?:is|are|remains?) unknown",
)
_WHOLE_ANSWER_DEFLECTIONS: tuple[str, ...] = ("unknown", "insufficient", "n/a", "idk", "not known")
_DEFLECTION_PATTERN = re.compile(r"\b(?:" + "|".join(_DEFLECTION_PHRASES) + r")\b")
_WHOLE_ANSWER_PATTERN = re.compile(
    r"^(?:(?:the )?answer(?: is|:)\s*)?(?:" + "|".join(re.escape(p) for p in _WHOLE_ANSWER_DEFLECTIONS) + r")$"
)
_CONTRACTIONS: tuple[tuple[str, str], ...] = (("can't", "cannot"), ("can not", "cannot"), ("n't", " not"))


def answer_set(answer: str | Sequence[str]) -> set[str]:
    """Answers as the paper compares them: split on the separator, stripped, lower-cased, empty parts dropped."""
    parts = (
        answer.split(ANSWER_SEPARATOR)
        if isinstance(answer, str)
        else [p for a in answer for p in a.split(ANSWER_SEPARATOR)]
    )
    return {part.strip().lower() for part in parts if part.strip()}


def _set_precision_recall(p: set, g: set) -> tuple[float, float]:
    """|P & G| / |P| and |P & G| / |G|; an empty side scores 1 only if both are empty."""
    hits = len(p & g)
    return (hits / len(p) if p else float(not g)), (hits / len(g) if g else float(not p))


def answer_scores(predicted: str | Sequence[str], gold: Sequence[str]) -> dict[str, float]:
    """Answer-level precision, recall, F1 and exact match of one prediction against the gold answer list."""
    p, g = answer_set(predicted), answer_set(gold)
    precision, recall = _set_precision_recall(p, g)
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return {"precision": precision, "recall": recall, "f1": f1, "exact_match": float(p == g)}


def _normal(text: str) -> str:
    """Lower case, straight apostrophes, contractions spelled out, one space between words, no outer quotes or stops."""
    text = " ".join(text.lower().replace("\u2019", "'").replace("\u2018", "'").split())
    for short, full in _CONTRACTIONS:
        text = text.replace(short, full)
    return text.strip(" .!\"'`")


def is_deflection(answer: str | Sequence[str]) -> bool:
    """True when an answer declines: the DEFLECTION string or a usual variant ("I don't know", "cannot be
    determined", ...)."""
    normal = _normal(answer if isinstance(answer, str) else ", ".join(answer))
    return _DEFLECTION_PATTERN.search(normal) is not None or _WHOLE_ANSWER_PATTERN.match(normal) is not None


UNIFIED_POINTS: dict[tuple[bool, str], float] = {
    # (gold is a refusal, prediction) -> points; CReSt Table 2.
    (False, "correct"): 1.0,
    (False, "partial"): 0.5,
    (False, "wrong"): 0.0,
    (False, "refusal"): -1.0,
    (True, "refusal"): 1.0,
    (True, "answer"): 0.0,
}


def answer_judgement(predicted: str | Sequence[str], gold: Sequence[str]) -> str:
    """CReSt's 3-way judgement made exact: correct (same answer set), partial (overlapping), wrong, or refusal."""
    if is_deflection(predicted):
        return "refusal"
    scores = answer_scores(predicted, gold)
    if scores["exact_match"]:
        return "correct"
    return "partial" if scores["f1"] > 0 else "wrong"


def unified_points(predicted: str | Sequence[str], gold: Sequence[str], answerable: bool) -> float:
    """One instance's unified score: correct 1, partial 0.5, wrong 0, refusing an answerable question -1; refusing
    an unanswerable one 1, answering it 0."""
    judgement = answer_judgement(predicted, gold)
    if not answerable:
        return UNIFIED_POINTS[(True, "refusal" if judgement == "refusal" else "answer")]
    return UNIFIED_POINTS[(False, judgement)]


def unified_score(points_answerable: Sequence[float], points_unanswerable: Sequence[float]) -> float:
    """CReSt's unified score: the mean of the answerable (non-refusal) mean and the unanswerable (refusal) mean."""
    if not points_answerable or not points_unanswerable:
        raise ValueError("the unified score needs at least one answerable and one unanswerable instance")
    return (sum(points_answerable) / len(points_answerable) + sum(points_unanswerable) / len(points_unanswerable)) / 2


def citation_scores(predicted: Iterable[int], gold: Iterable[int]) -> dict[str, float]:
    """Citation precision |P & G| / |P| and recall |P & G| / |G| (an empty P or G scores 1 only if both are empty)."""
    precision, recall = _set_precision_recall(set(predicted), set(gold))
    return {"citation_precision": precision, "citation_recall": recall}


def instance_scores(
    instances: Iterable[Mapping[str, Any]], predictions: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    """Score predictions on PhantomWiki evidence instances.

    `predictions` maps ``instance_id`` to ``{"answer": str or list, "citations": list of positions}``
    (citations optional). Returns means over instances of answer precision / recall / F1 / exact
    match (answerable instances), deflection accuracy on each side, ADTScore, the unified score and
    citation precision / recall (answerable instances that cite), ``count``, and ``per_category``:
    for ``answerable``, ``insufficient`` and each unanswerable kind present (``unanswerable_kind``), its
    ``accuracy``, ``count``, and for the must-deflect ones the ``adt_score`` and ``unified_score`` of
    the answerable instances against that category alone. Every instance whose ``answerable`` is not
    ``sufficient`` (insufficient evidence or an unanswerable variant) must be deflected.
    """
    answerable_rows: list[dict[str, float]] = []
    answerable_ok: list[bool] = []
    deflect_ok: list[bool] = []
    points_a: list[float] = []
    points_u: list[float] = []
    cites: list[dict[str, float]] = []
    by_category: dict[str, tuple[list[bool], list[float]]] = {}
    by_role: dict[str, list[bool]] = {}
    for instance in instances:
        identifier = instance["instance_id"]
        if identifier not in predictions:
            raise ValueError(f"no prediction for instance {identifier!r}; predict every instance")
        prediction = predictions[identifier]
        answer = prediction.get("answer", "")
        answerable = instance["answerable"] == SUFFICIENT
        gold = instance["answer"]
        if answerable:
            scores = answer_scores(answer, gold)
            answerable_rows.append(scores)
            answerable_ok.append(bool(scores["exact_match"]) and not is_deflection(answer))
            points_a.append(unified_points(answer, gold, True))
            if "citations" in prediction:
                cites.append(citation_scores(prediction["citations"], instance["citations"]))
            hit, points = answerable_ok[-1], points_a[-1]
        else:
            deflect_ok.append(is_deflection(answer))
            points_u.append(unified_points(answer, gold, False))
            hit, points = deflect_ok[-1], points_u[-1]
        hits, earned = by_category.setdefault(category_of(instance), ([], []))
        hits.append(hit)
        earned.append(points)
        if instance.get("missing_role"):
            by_role.setdefault(str(instance["missing_role"]), []).append(hit)

    def mean(rows: list[dict[str, float]], key: str) -> float:
        return sum(row[key] for row in rows) / len(rows) if rows else math.nan

    acc_a = accuracy(answerable_ok) if answerable_ok else math.nan
    acc_d = accuracy(deflect_ok) if deflect_ok else math.nan
    return {
        "precision": mean(answerable_rows, "precision"),
        "recall": mean(answerable_rows, "recall"),
        "f1": mean(answerable_rows, "f1"),
        "exact_match": mean(answerable_rows, "exact_match"),
        "accuracy_answerable": acc_a,
        "accuracy_deflection": acc_d,
        "adt_score": adt_score(acc_a, acc_d),
        "unified_score": unified_score(points_a, points_u) if points_a and points_u else math.nan,
        "citation_precision": mean(cites, "citation_precision"),
        "citation_recall": mean(cites, "citation_recall"),
        "count": len(answerable_ok) + len(deflect_ok),
        "per_category": {
            name: _category_scores(name, by_category, acc_a, points_a)
            for name in sorted(by_category, key=lambda name: (name != ANSWERABLE, name != INSUFFICIENT, name))
        },
        "per_role": _role_scores(by_role),
    }


def _role_scores(by_role: Mapping[str, list[bool]]) -> dict[str, dict[str, float]]:
    """Deflection accuracy on the insufficient instances by the role of their missing article (NeoQA figure 5)."""
    return {role: {"accuracy": accuracy(hits), "count": len(hits)} for role, hits in sorted(by_role.items())}


def category_of(instance: Mapping[str, Any]) -> str:
    """An evidence instance's category: ``answerable``, ``insufficient``, or its ``unanswerable_kind``."""
    if instance["answerable"] == SUFFICIENT:
        return ANSWERABLE
    if instance["answerable"] == UNANSWERABLE:
        return str(instance.get("unanswerable_kind") or UNANSWERABLE)
    return INSUFFICIENT


def _category_scores(
    name: str,
    by_category: Mapping[str, tuple[list[bool], list[float]]],
    acc_answerable: float,
    points_answerable: Sequence[float],
) -> dict[str, float]:
    hits, points = by_category[name]
    out = {"accuracy": accuracy(hits), "count": len(hits)}
    if name != ANSWERABLE:
        out["adt_score"] = adt_score(acc_answerable, out["accuracy"])
        out["unified_score"] = unified_score(points_answerable, points) if points_answerable else math.nan
    return out


def choice_scores(instances: Iterable[Mapping[str, Any]], predictions: Mapping[str, int | None]) -> dict[str, Any]:
    """Score multiple-choice predictions (``instance_id`` -> chosen option index, or None) on PhantomWiki instances.

    The gold option is ``gold_answer_idx`` (the answer on a sufficient instance, "Unanswerable" on every other).
    Returns ``accuracy_answerable``, ``accuracy_deflection``, ``adt_score``, ``accuracy``, ``count``,
    ``per_category`` (accuracy per category, as in `instance_scores`) and ``per_role``. Plain ``accuracy`` is never
    the figure to quote alone: always choosing "Unanswerable" scores the share of must-deflect rows on it, and 0 on
    ``adt_score``.
    """
    rows = list(instances)
    answerable, deflect, by_category = _tally_choices(
        rows, predictions, lambda instance: instance["answerable"] == SUFFICIENT, category_of
    )
    _, _, by_role = _tally_choices(
        rows,
        predictions,
        lambda instance: True,
        lambda instance: str(instance["missing_role"]) if instance.get("missing_role") else None,
    )
    acc_answerable = accuracy(answerable) if answerable else math.nan
    acc_deflect = accuracy(deflect) if deflect else math.nan
    return {
        "accuracy_answerable": acc_answerable,
        "accuracy_deflection": acc_deflect,
        "adt_score": adt_score(acc_answerable, acc_deflect),
        "accuracy": accuracy(answerable + deflect),
        "count": len(answerable) + len(deflect),
        "per_category": {name: accuracy(hits) for name, hits in sorted(by_category.items())},
        "per_role": _role_scores(by_role),
    }


# --- reading a model's response ---------------------------------------------------------------------------

_THINK_END = "</think>"
# "Answer: X", "Final answer: X", and their markdown forms ("**Answer:** X", "**Answer**: X", "## Answer: X").
_ANSWER_LINE = re.compile(r"^[#>*_\s]*(?:final\s+)?answer[*_\s]*:[*_\s]*(.*)$", re.IGNORECASE)
# "The answer is X", "Based on the evidence, the final answer is: X".
_ANSWER_IS = re.compile(r"\bthe\s+(?:final\s+|correct\s+)?answer\s+is\s*:?\s*(.+)$", re.IGNORECASE)
# A line where a completion model, having answered, invents the next exercise: what follows is not its answer.
_NEXT_EXERCISE = re.compile(r"^[#>*_\s]*(?:question|evidence|\(begin evidence\))\s*:?", re.IGNORECASE)
_CITATION = re.compile(r"\[\s*(\d+(?:\s*,\s*\d+)*)\s*\]")
_MAX_CITATION_DIGITS = 9
_ECHO_PIECE_CHARS = 60
"""A piece of a prompt line this long is an echo; shorter, only a whole line is (an answer such as "insufficient
information" or "the evidence is not enough to answer the question" is also a piece of the instructions)."""


def _echo_key(line: str) -> str:
    """A line as compared with the prompt's: lower case, single spaces, no list marks or outer punctuation."""
    return " ".join(line.lower().split()).strip(" -*•.\"'`")


def _echoes(line: str, prompt_keys: frozenset[str], prompt_text: str) -> bool:
    """True when `line` repeats one of the prompt's lines, or a long piece of one, as models echo an instruction."""
    key = _echo_key(line)
    return key in prompt_keys or (len(key) >= _ECHO_PIECE_CHARS and key in prompt_text)


def _answer_lines(response: str, prompt_lines: Iterable[str]) -> list[str]:
    """The response's own lines, up to a line that starts a new exercise, without those echoing the prompt."""
    prompt_keys = frozenset(key for key in map(_echo_key, prompt_lines) if key)
    prompt_text = "\n".join(prompt_keys)
    lines: list[str] = []
    for raw in response.rsplit(_THINK_END, 1)[-1].splitlines():
        line = raw.strip()
        if not line:
            continue
        if _NEXT_EXERCISE.match(line) and not _ANSWER_LINE.match(line):
            if lines:  # after an answer: an invented next exercise; before one: the question restated
                break
            continue
        if not (prompt_keys and _echoes(line, prompt_keys, prompt_text)):
            lines.append(line)
    return lines


def _answer_position(lines: Sequence[str]) -> tuple[int, str]:
    """Where the answer is and its text: the last `Answer:` line, else the last "the answer is X", else line one."""
    for pattern in (_ANSWER_LINE, _ANSWER_IS):
        for index in range(len(lines) - 1, -1, -1):
            found = (pattern.match if pattern is _ANSWER_LINE else pattern.search)(lines[index])
            if found and found.group(1).strip(" *_"):
                return index, found.group(1)
    return 0, lines[0]


def read_response(response: str, prompt_lines: Iterable[str] = ()) -> dict[str, Any]:
    """The answer and cited positions in a response.

    A completion continues the prompt's `Answer:`, so the answer is the response's own: reasoning up to a final
    `</think>` is dropped, and so is everything from a line that starts another exercise (`Question:`,
    `Evidence:`) after the first line, which a completion model invents after answering; lines that repeat one
    of `prompt_lines` (an echoed instruction, which may quote "insufficient information") are skipped. The
    answer is then the last line labelled `Answer:` (also `Final answer:` and markdown's `**Answer:**`), else the
    last "the answer is X", else the first line; `[n]` / `[n, m]` on that line or after it are citations of
    documents n, m (numbered from 1, returned as 0-based positions; a number of more than 9 digits is not a
    citation); markdown emphasis, outer quotes and one trailing full stop are dropped. Any string is read, in
    time linear in its length.
    """
    lines = _answer_lines(response, prompt_lines)
    if not lines:
        return {"answer": "", "citations": []}
    start, line = _answer_position(lines)
    cited = {
        int(n) - 1
        for text in [line, *lines[start + 1 :]]
        for group in _CITATION.findall(text)
        for n in group.split(",")
        if len(n.strip()) <= _MAX_CITATION_DIGITS  # a longer number cites no document (and int() would refuse it)
    }
    answer = " ".join(_CITATION.sub(" ", line).split()).strip("*_\"'` ").removesuffix(".").strip("*_\"'` ")
    return {"answer": answer, "citations": sorted(cited)}


# --- retrieval: how well a ranking holds a question's required articles ----------------------------------------


def _relevant(relevant: Iterable[str]) -> set[str]:
    wanted = set(relevant)
    if not wanted:
        raise ValueError("a retrieval metric needs at least one relevant (required) article")
    return wanted


def recall_at_k(ranked: Sequence[str], relevant: Iterable[str], k: int) -> float:
    """The share of the relevant (required) articles among the first k of a ranking."""
    wanted = _relevant(relevant)
    return len(wanted & set(ranked[:k])) / len(wanted)


def reciprocal_rank(ranked: Sequence[str], relevant: Iterable[str]) -> float:
    """1 / the rank of the first relevant article in the ranking (0 when none is in it): MRR's term, and MRR@k of a
    ranking cut at k."""
    wanted = _relevant(relevant)
    return next((1 / rank for rank, title in enumerate(ranked, 1) if title in wanted), 0.0)


def ndcg_at_k(ranked: Sequence[str], relevant: Iterable[str], k: int) -> float:
    """nDCG@k with binary relevance: sum of 1 / log2(rank + 1) over the relevant articles in the first k, over the
    same sum for a ranking that puts every relevant article first."""
    wanted = _relevant(relevant)
    gain = sum(1 / math.log2(rank + 1) for rank, title in enumerate(ranked[:k], 1) if title in wanted)
    ideal = sum(1 / math.log2(rank + 1) for rank in range(1, min(k, len(wanted)) + 1))
    return gain / ideal


def required_recall(retrieved: Iterable[str], required: Iterable[str]) -> float:
    """The share of a question's required articles among those retrieved, in any order (an agent's recall)."""
    wanted = _relevant(required)
    return len(wanted & set(retrieved)) / len(wanted)


def retrieval_scores(
    rankings: Mapping[str, Sequence[str]], required: Mapping[str, Iterable[str]], ks: Sequence[int] = (4,)
) -> dict[str, Any]:
    """Retrieval metrics per question and their means: `recall@k` of the required set, `ndcg@k` of the required
    articles, `sufficient@k` (the first k hold the whole required set) for each k of `ks`, and `mrr` (over the
    ranking as deep as it is given). `rankings` maps a question (or row) id to its ranked titles, `required` the
    same ids to the articles its answer needs; ``count`` is the number of questions."""
    if not ks or any(not is_whole(k) or k < 1 for k in ks):
        raise ValueError(f"ks={list(ks)!r} must be whole numbers of at least 1")
    missing = sorted(set(rankings) - set(required))
    if missing:
        raise ValueError(f"no required articles for {missing[0]!r}; give them for every ranking")
    per_question: dict[str, dict[str, float]] = {}
    for key, ranked in rankings.items():
        wanted = _relevant(required[key])
        scores = {"mrr": reciprocal_rank(ranked, wanted)}
        for k in ks:
            scores[f"recall@{k}"] = recall_at_k(ranked, wanted, k)
            scores[f"ndcg@{k}"] = ndcg_at_k(ranked, wanted, k)
            scores[f"sufficient@{k}"] = float(wanted <= set(ranked[:k]))
        per_question[key] = scores
    names = ["mrr", *(f"{name}@{k}" for k in ks for name in ("recall", "ndcg", "sufficient"))]
    means = {
        name: sum(scores[name] for scores in per_question.values()) / len(per_question) if per_question else math.nan
        for name in names
    }
    return {**means, "count": len(per_question), "per_question": per_question}
