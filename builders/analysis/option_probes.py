"""Probes of the multiple-choice options (spec/validity.md, "Decoys from the same cloth", "Options per row"):
* counts: pick the smallest positive number, the smallest number, the middle one; against chance among the
  numbers or, where higher, the majority count (counts are small and often 1, which no choice of decoys can hide),
  on the rows whose options hold the question's count (every
  label: the numbers tell the count or not, whatever the row's gold) and apart on the sufficient rows (about 50 a
  universe: too few to hold);
* an option holds a name or value no shown document states -> refuse, on the rows the look-up lets through;
* sufficient rows with a wrong option no shown document states (none, by the rule);
* pick an option that is one shown line's whole list ("The sons of Ann Lee are Bo Lee, Cy Lee."), on the rows whose
  options are names (an answer often is one, so its decoys are as often): held on every row whose options hold the
  question's answer, and apart on the sufficient rows (about 65 a universe: too few to hold);
* pick the option whose names the shown lines most often list together (two by two: an answer of several names is
  often a line's children or siblings), on the rows whose options are several names;
* pick the option whose dates lie closest together, furthest apart, or in the middle (a generation's dates lie close
  together), on the rows whose options are several dates;
  both held on every row whose options hold the question's answer, and apart on the sufficient rows (too few to hold);
* a logistic scorer over each option's features, trained to find the question's answer among the options: the
  gold on the sufficient rows, and the question's answer on every row whose options hold it, against chance among
  the options but "Unanswerable".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import date
from itertools import combinations
from math import log2
from typing import Any

from .mention_graph import FAR, attributes, distances, people_of
from .probing import Finding, balanced_accuracy, logistic, mean
from .prompt_view import NAME, UNANSWERABLE, Prompt, looks_up, named_in, per_prompt, refuse

FEW = "(about 50 rows a universe: reported)"
FEW_WHO = "(about 65 rows a universe: reported; held on every row that holds the answer)"
FEW_SUFFICIENT = "(about 200 rows a universe, standard error 0.03: reported; held on every row that holds the answer)"
FEW_SEVERAL = "(about 30 rows a universe: reported; held on every row that holds the answer, over ten)"
FEW_NAMES = (  # the name rules on every row: about 50 questions a universe, most of whose rows show two answers
    "(about 350 rows from about 50 questions a universe, most with two answers: reported; held over n500 s1-s10)"
)
FEW_DATES_SUFFICIENT = "(about 20 rows a universe: reported; held on every row that holds the answer, over ten)"
FEW_DATES = (  # the date rules on every row: a question's rows share its gold and documents, so rows are not draws
    "(about 140 rows from about 18 questions a universe, too few to hold: reported; held over n500 s1-s10)"
)
DATE = re.compile(r"\d{4}-\d\d-\d\d")
Rule = Callable[[list[tuple[int, int]]], int]


def numbers(p: Prompt) -> list[tuple[int, int]]:
    """(value, option index) of each number among the options, sorted; [] unless every option but "Unanswerable"
    is a number."""
    shown = [(o, i) for i, o in enumerate(p.options) if o != UNANSWERABLE]
    if not shown or not all(o.isdigit() for o, _ in shown):
        return []
    return sorted((int(o), i) for o, i in shown)


def smallest_positive(nums: list[tuple[int, int]]) -> int:
    return next((i for v, i in nums if v > 0), nums[0][1])


def smallest(nums: list[tuple[int, int]]) -> int:
    return nums[0][1]


def middle(nums: list[tuple[int, int]]) -> int:
    return nums[len(nums) // 2][1]


COUNT_RULES: dict[str, Rule] = {
    "smallest positive number": smallest_positive,
    "smallest number": smallest,
    "middle number": middle,
}


def _the_count(p: Prompt) -> int | None:
    """The option index of the question's count (its true answer, whatever the row's label), if an option."""
    answer = p.row.get("question_answer") or []
    text = answer[0] if len(answer) == 1 else None
    return next((i for i, o in enumerate(p.options) if o == text), None) if numbers(p) else None


def majority_count(rows: Sequence[tuple[Prompt, int]]) -> int | None:
    """The count most often the answer among `rows` (prompt, the option index of its count): the majority label of
    count questions. Always picking it, when shown, needs no reading and no option design can prevent it (counts are
    small and often 1), so it is the fair baseline of a count rule where it beats chance."""
    often = Counter(int(p.options[i]) for p, i in rows)
    return max(sorted(often), key=lambda n: often[n]) if often else None


def count_findings(test: Sequence[Prompt]) -> list[Finding]:
    """Each count rule on the rows whose options hold the question's count (held) and on the sufficient ones; the
    fair baseline is chance among the numbers, or the majority count where that does better (the counts' own
    distribution, which options cannot hide, sets what a lazy reader gets for free)."""
    every = [(p, i) for p in test if (i := _the_count(p)) is not None]
    sufficient = [(p, int(p.row["gold_answer_idx"])) for p, _ in every if p.row["answerable"] == "sufficient"]
    findings = []
    for name, rule in COUNT_RULES.items():
        for rows, which, apart in (
            (every, "the question's count (rows whose options hold it)", ""),
            (sufficient, "the gold count (sufficient rows)", FEW),
        ):
            if rows:
                score = mean([float(rule(numbers(p)) == i) for p, i in rows])
                chance = mean([1 / len(numbers(p)) for p, _ in rows])
                most = majority_count(rows)
                known = mean([float(int(p.options[i]) == most) for p, i in rows])
                findings.append(Finding(f"{name} -> {which}", "accuracy", score, max(chance, known), len(rows), apart))
    if every:
        most = majority_count(every)
        findings.append(
            Finding(
                f"the majority count ({most}) -> the question's count (the prior no option can hide)",
                "accuracy",
                mean([float(int(p.options[i]) == most) for p, i in every]),
                mean([1 / len(numbers(p)) for p, _ in every]),
                len(every),
                "(the counts' own distribution: a baseline, apart)",
            )
        )
    return findings


def count_rank(p: Prompt) -> int | None:
    """Where the question's count ranks among the row's numbers (0 = the smallest), if an option holds it."""
    i = _the_count(p)
    return None if i is None else [v for v, _ in numbers(p)].index(int(p.options[i]))


def rank_finding(train: Sequence[Prompt], test: Sequence[Prompt]) -> Finding:
    """ "Pick the number at the rank the count takes most often" (the rank fitted on `train`), on every row whose
    options hold the question's count, against chance among the numbers or the majority count where that is higher."""
    fitted = Counter(r for p in train if (r := count_rank(p)) is not None)
    rank = max(sorted(fitted), key=lambda r: fitted[r]) if fitted else 0
    rows = [(p, i) for p in test if (i := _the_count(p)) is not None]
    most = majority_count(rows)
    hits = [float(len(numbers(p)) > rank and numbers(p)[rank][1] == i) for p, i in rows]
    chance = mean([1 / len(numbers(p)) for p, _ in rows])
    known = mean([float(int(p.options[i]) == most) for p, i in rows])
    return Finding(
        f"the number at the rank counts take most often (rank {rank}, fitted) -> the question's count",
        "accuracy",
        mean(hits),
        max(chance, known),
        len(rows),
    )


def rank_table(test: Sequence[Prompt]) -> str:
    """Where the question's count ranks among a row's numbers (0 = smallest): uniform when the window tells nothing."""
    ranks = Counter(r for p in test if (r := count_rank(p)) is not None)
    total = sum(ranks.values())
    head = "| rank of the question's count among the numbers (0 = smallest) | " + " | ".join(map(str, sorted(ranks)))
    row = f"| share of {total} rows | " + " | ".join(f"{ranks[r] / total:.2f}" for r in sorted(ranks))
    return "\n".join([head + " |", "|---|" + "---:|" * len(ranks), row + " |"])


def _unstated(p: Prompt, option: str) -> bool:
    """True when an option holds a name or value (not a number) that no shown document states."""
    return option != UNANSWERABLE and any(not x.isdigit() and not p.states(x) for x in option.split(", "))


def absent_option_findings(test: Sequence[Prompt]) -> list[Finding]:
    """ "Some option holds a name or value no shown document states -> refuse" where the look-up passes; and the
    sufficient rows where a wrong option does so (the rule: every decoy is drawn from what the row shows)."""
    through = [p for p in test if not looks_up(p)]
    guess = ["refuse" if any(_unstated(p, o) for o in p.options) else "answer" for p in through]
    wrong = [
        p
        for p in test
        if p.row["answerable"] == "sufficient"
        and any(_unstated(p, o) for i, o in enumerate(p.options) if i != p.row["gold_answer_idx"])
    ]
    return [
        Finding(
            "an option holds a name or value no shown document states -> refuse (look-up passes)",
            "balanced accuracy",
            balanced_accuracy([refuse(p) for p in through], guess),
            0.5,
            len(through),
        ),
        Finding(
            "sufficient rows with a wrong option no shown document states",
            "rows",
            float(len(wrong)),
            0.0,
            sum(p.row["answerable"] == "sufficient" for p in test),
        ),
    ]


def whole_list(p: Prompt, option: str) -> bool:
    """True when an option's names are exactly those of one shown relation line."""
    return frozenset(option.split(", ")) in p.lists


def _names_only(p: Prompt) -> bool:
    """True when every option but "Unanswerable" is a list of full names (a Who question's options)."""
    return all(NAME.fullmatch(x) for i in choices(p) for x in p.options[i].split(", "))


def whole_list_findings(test: Sequence[Prompt]) -> list[Finding]:
    """ "Pick an option that is one shown line's whole list" (at random among those, else among all) on the rows whose
    options are names: the gold on the sufficient rows, and the question's answer on every row whose options hold it,
    against chance among the options but "Unanswerable"."""
    findings = []
    for which, rows, apart in (
        ("gold option (sufficient Who rows)", [p for p in test if p.row["answerable"] == "sufficient"], FEW_WHO),
        ("the question's answer (Who rows whose options hold it)", list(test), ""),
    ):
        rows = [p for p in rows if answer_option(p) is not None and _names_only(p)]
        scores, chance = [], []
        for p in rows:
            whole = [i for i in choices(p) if whole_list(p, p.options[i])] or choices(p)
            scores.append(float(answer_option(p) in whole) / len(whole))
            chance.append(1 / len(choices(p)))
        findings.append(
            Finding(f"a whole shown list -> {which}", "accuracy", mean(scores), mean(chance), len(rows), apart)
        )
    return findings


def listed_together(p: Prompt, option: str) -> float:
    """The share of an option's pairs of names that one shown relation line lists together (0 for a single name)."""
    names = option.split(", ")
    pairs = list(combinations(names, 2))
    return sum(any(a in line and b in line for line in p.lists) for a, b in pairs) / len(pairs) if pairs else 0.0


def _days(option: str) -> list[int] | None:
    """An option's dates as day numbers; None unless every value is a date."""
    items = option.split(", ")
    if not all(DATE.fullmatch(x) for x in items):
        return None
    return [date(*map(int, x.split("-"))).toordinal() for x in items]


def date_span(option: str) -> float | None:
    """How many years an option's dates span, on a doubling scale (log2 of 1 + years); None unless it is dates."""
    days = _days(option)
    return None if days is None else log2(1 + (max(days) - min(days)) / 365.25)


def _several(p: Prompt, measure: Callable[[Prompt, int], float | None]) -> dict[int, float] | None:
    """Each choice's measure where every choice has one and holds several values, else None."""
    found: dict[int, float] = {}
    for i in choices(p):
        value = measure(p, i) if ", " in p.options[i] else None
        if value is None:
            return None
        found[i] = value
    return found or None


def _together(p: Prompt, index: int) -> float | None:
    return listed_together(p, p.options[index]) if _names_only(p) else None


RANKS: dict[str, Callable[[dict[int, float]], list[int]]] = {
    "most": lambda m: [i for i, v in m.items() if v == max(m.values())],
    "least": lambda m: [i for i, v in m.items() if v == min(m.values())],
    "middle": lambda m: [sorted(m, key=lambda i: (m[i], i))[len(m) // 2]],
}


def shared_with_others(p: Prompt, index: int) -> float:
    """How much an option's values overlap the other options' (the sum of Jaccard overlaps): a decoy drawn from the
    denser runs of a row's dates or names shares more with the other decoys than with the gold."""
    mine = set(p.options[index].split(", "))
    others = [set(p.options[i].split(", ")) for i in choices(p) if i != index]
    return sum(len(mine & theirs) / len(mine | theirs) for theirs in others)


def mean_year(option: str) -> float | None:
    """The mean of an option's dates in years (days / 365.25); None unless it is dates."""
    days = _days(option)
    return None if days is None else mean([day / 365.25 for day in days])


def _outlying(p: Prompt, index: int) -> float | None:
    """How far an option's mean date lies from the mean of the options' mean dates."""
    years = {i: mean_year(p.options[i]) for i in choices(p)}
    if any(year is None for year in years.values()):
        return None
    centre = mean([year for year in years.values() if year is not None])
    return abs((years[index] or 0.0) - centre)


def _shared_dates(p: Prompt, index: int) -> float | None:
    return shared_with_others(p, index) if date_span(p.options[index]) is not None else None


def _shared_names(p: Prompt, index: int) -> float | None:
    return shared_with_others(p, index) if _names_only(p) else None


SEVERAL_PROBES: tuple[tuple[Callable[[Prompt, int], float | None], dict[str, str]], ...] = (
    (_together, {"most": "names the shown lines list together most"}),  # names first: held on every row
    (
        lambda p, i: date_span(p.options[i]),
        {"least": "closest dates", "most": "widest dates", "middle": "middle dates"},
    ),
    (
        _shared_dates,
        {"most": "dates sharing most with the other options", "least": "dates sharing least with the other options"},
    ),
    (
        _shared_names,
        {"most": "names sharing most with the other options", "least": "names sharing least with the other options"},
    ),
    (lambda p, i: mean_year(p.options[i]), {"least": "earliest dates", "most": "latest dates"}),
    (_outlying, {"most": "outlying dates (mean farthest from the options')"}),
)
"""Each rank rule over options of several values: what it measures, and the name of each rank it picks."""
NAMED = (_together, _shared_names)  # the rules over names, held on every row (about 400 rows a universe)


def _every(p: Prompt) -> bool:
    return True


def several_findings(test: Sequence[Prompt]) -> list[Finding]:
    """Rank rules over options of several names or dates (SEVERAL_PROBES): "the names listed together most", "the
    closest / widest / middle dates", the options sharing most or least with the others, the earliest, latest or most
    outlying dates; picked at random among ties, against chance among the options but "Unanswerable", on every row
    whose options hold the question's answer (apart: a universe has too few questions asking several names or dates,
    whose rows share their gold and documents; tests hold them over ten) and on the sufficient rows (apart)."""
    findings = []
    for measure, names in SEVERAL_PROBES:
        for which, apart, keep in (
            (
                "the question's answer (rows whose options hold it)",
                FEW_NAMES if measure in NAMED else FEW_DATES,
                _every,
            ),
            (
                "the gold option (sufficient rows)",
                FEW_SEVERAL if measure in NAMED else FEW_DATES_SUFFICIENT,
                lambda p: p.row["answerable"] == "sufficient",
            ),
        ):
            rows = [(p, m) for p in test if keep(p) and answer_option(p) is not None and (m := _several(p, measure))]
            for rank, name in names.items():
                scores = [float(answer_option(p) in (picked := RANKS[rank](m))) / len(picked) for p, m in rows]
                findings.append(
                    Finding(
                        f"{name} -> {which}",
                        "accuracy",
                        mean(scores),
                        mean([1 / len(choices(p)) for p, _ in rows]),
                        len(rows),
                        apart,
                    )
                )
    return findings


def _looks(p: Prompt, index: int) -> list[float]:
    """What option `index` looks like without reading: its length and names, how the documents show them (stated,
    with an article, by how many documents, named in relation lines, as one line's whole list), surnames shared with
    the question's people and among themselves, position, its rank among the numbers, how far its people sit from the
    person the question names in the mention graph and when they were born against that person."""
    option = p.options[index]
    items = option.split(", ")
    surnames = [x.rsplit(" ", 1)[-1] for x in items]
    asked = named_in(p.question)
    nums = numbers(p)
    rank = next((k for k, (_, i) in enumerate(nums) if i == index), 0)
    span = date_span(option)
    people = people_of(p, index)
    near, told = distances(p), attributes(p)
    anchor = next((told.born[n] for n in reversed(asked) if n in told.born), None)
    born = [told.born[x] for x in people if x in told.born]
    return [
        len(option) / 100,
        len(items),
        mean([float(p.states(x)) for x in items]),
        mean([float(x in p.titles) for x in items]),
        mean([p.stated_by.get(x, 0) for x in items]),
        min(p.stated_by.get(x, 0) for x in items),
        mean([len(p.mentions.get(x, ())) for x in items]),
        mean([float(x in asked) for x in items]),
        mean([float(s in {a.rsplit(" ", 1)[-1] for a in asked}) for s in surnames]),
        max(surnames.count(s) for s in surnames) / len(items),
        index / len(p.options),
        float(bool(nums)),
        rank / max(1, len(nums) - 1),
        float(bool(nums) and index == smallest_positive(nums)),
        float(bool(nums) and index == smallest(nums)),
        float(whole_list(p, option)),
        listed_together(p, option),
        float(span is not None),
        span or 0.0,
        float(min((near.get(x, FAR) for x in people), default=FAR)),
        mean([float(near.get(x, FAR)) for x in people]) if people else float(FAR),
        float(bool(born) and anchor is not None),
        mean([b - anchor for b in born]) / 10 if born and anchor is not None else 0.0,
    ]


def choices(p: Prompt) -> list[int]:
    """The options a scorer chooses among: all but "Unanswerable"."""
    return [i for i, o in enumerate(p.options) if o != UNANSWERABLE]


@per_prompt
def _row_features(p: Prompt) -> dict[int, list[float]]:
    """Each choice's looks, and the same less their mean over the row's choices (a linear scorer compares them)."""
    looks = {i: _looks(p, i) for i in choices(p)}
    means = [mean([x[k] for x in looks.values()]) for k in range(len(next(iter(looks.values()))))] if looks else []
    return {i: own + [x - m for x, m in zip(own, means)] for i, own in looks.items()}


def option_features(p: Prompt, index: int) -> list[float]:
    """The features the option scorer sees of option `index` (one of `choices`)."""
    return _row_features(p)[index]


def answer_option(p: Prompt) -> int | None:
    """The option that is the question's answer as worded (the gold on a sufficient row), if there is one."""
    text = ", ".join(p.row.get("question_answer") or [])
    return next((i for i, o in enumerate(p.options) if o == text and o != UNANSWERABLE), None)


def _picks(model: Any, prompts: Sequence[Prompt], choices: Callable[[Prompt], list[int]]) -> list[int]:
    """The option each row's highest-scored choice is (one call for all rows: sklearn's per-call cost dominates)."""
    rows = [(p, choices(p)) for p in prompts]
    scores = iter(model.decision_function([option_features(p, i) for p, ids in rows for i in ids]))
    picked = []
    for _, ids in rows:
        mine = [next(scores) for _ in ids]
        picked.append(ids[max(range(len(ids)), key=lambda k: mine[k])])
    return picked


def scorer_findings(train: Sequence[Prompt], test: Sequence[Prompt]) -> list[Finding]:
    """A logistic scorer of the options, trained to find the question's answer among the options of every training
    row that holds it; it picks the gold on the sufficient rows and the question's answer on every row that holds
    it, each against chance among the options but "Unanswerable" (on a count row, against the majority count: the
    counts' own distribution is no option's doing)."""
    fit = [(p, i) for p in train if answer_option(p) is not None for i in choices(p)]
    model = logistic()
    model.fit([option_features(p, i) for p, i in fit], [int(i == answer_option(p)) for p, i in fit])

    def fair(p: Prompt, most: int | None) -> float:  # a guess at random; on a count row, the majority count
        return float(p.options[answer_option(p) or 0] == str(most)) if numbers(p) else 1 / len(choices(p))

    findings = []
    for which, rows, apart in (
        ("gold option (sufficient rows)", [p for p in test if p.row["answerable"] == "sufficient"], FEW_SUFFICIENT),
        (
            "the question's answer (every row whose options hold it)",
            [p for p in test if answer_option(p) is not None],
            "",
        ),
    ):
        picked = _picks(model, rows, choices)
        most = majority_count([(q, i) for q in rows if (i := _the_count(q)) is not None])
        findings.append(
            Finding(
                f"option-feature scorer -> {which}",
                "accuracy",
                mean([float(i == answer_option(p)) for p, i in zip(rows, picked)]),
                mean([fair(p, most) for p in rows]),
                len(rows),
                apart,
            )
        )
    return findings
