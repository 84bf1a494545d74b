"""Option probes on sufficient rows: can a reader pick the gold option from the options and where the shown documents
name them, without reading what the documents say about them?

Chance is the mean over rows of 1 / (the options but "Unanswerable"), since a row may offer fewer than six. A rule
that picks several options at once (ties, or "an option the documents mention") scores its expected accuracy, as a
uniform draw among them would.
  * an option the documents mention; the one mentioned most; the least (of those mentioned); the first mentioned;
  * unheld, reported (spec/validity.md: the prompt is the unit): the option shown in the most rows of its question in
    the set, which a reader of a whole release can count (the gold is in every sufficient row, a decoy in some);
  * boosted trees scoring each option from its surface (how often and by how many articles it is named, where first,
    in a headline, its position among the options, its length, its type: a number, an amount, a percentage, a name),
    the top-scored option picked;
  * on rows whose options are all numbers (days, money, counts, percentages, quantities with units): the smallest,
    the largest, the middle one, and the rank most often gold in the training configuration; these see the options
    alone, so a question's rows that show the same options count once;
  * the gold's rank among number options, tested against uniform (chi-square, pooled over option counts), over
    every number row of a configuration's sets and for each kind of number (days, money, ...) apart;
and on every row, how the documents name the options (how many, how often) -> answer / refuse, boosted trees,
balanced accuracy against 0.5.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace

from .neoqa_fit import boosted, boosted_finding, one_thread
from .neoqa_view import Shown, number_in, unit_of
from .probing import UNHELD, Finding, mean

Pick = Callable[[Shown], set[int]]
P_LEVEL = 0.001  # the gold's rank is held uniform unless a chi-square test rejects it at this level
FEW_NUMBERS = 200  # number rows of one kind below which its rules are printed, not held (at 200 rows one rule's
# accuracy has a standard error of 0.026 at chance 1/6, so the margin of 0.05 is about two of them)
RANK_TEST = "number options: the gold's rank among them is uniform"


def sufficient(prompts: Sequence[Shown]) -> list[Shown]:
    """The rows whose gold is the question's answer."""
    return [p for p in prompts if p.label == "sufficient"]


def chance(prompts: Sequence[Shown]) -> float:
    """The mean over rows of 1 / the number of options but "Unanswerable"."""
    return mean([1 / len(p.choices) for p in prompts])


def expected_hit(p: Shown, picks: set[int]) -> float:
    """The accuracy of a uniform draw among `picks` (among every option but "Unanswerable" when none)."""
    among = picks or set(p.choices)
    return 1 / len(among) if p.gold in among else 0.0


def _counts(p: Shown) -> dict[int, int]:
    return {i: p.mentions(p.options[i]) for i in p.choices}


def mentioned(p: Shown) -> set[int]:
    """The options the documents name."""
    return {i for i, c in _counts(p).items() if c}


def most_mentioned(p: Shown) -> set[int]:
    """The options the documents name most often (none when they name none)."""
    counts = _counts(p)
    top = max(counts.values(), default=0)
    return {i for i, c in counts.items() if c == top} if top else set()


def least_mentioned(p: Shown) -> set[int]:
    """Of the options the documents name, those they name least often."""
    counts = {i: c for i, c in _counts(p).items() if c}
    low = min(counts.values(), default=0)
    return {i for i, c in counts.items() if c == low}


def first_mentioned(p: Shown) -> set[int]:
    """The option the documents name first (in the order shown)."""
    places = {i: p.naming(p.options[i]).first for i in p.choices}
    found = {i: at for i, at in places.items() if at is not None}
    first = min(found.values(), default=None)
    return {i for i, at in found.items() if at == first}


MENTION_RULES: dict[str, Pick] = {
    "pick an option the documents mention": mentioned,
    "pick the option the documents mention most": most_mentioned,
    "pick the option the documents mention least (of those they mention)": least_mentioned,
    "pick the option the documents mention first": first_mentioned,
}


def gold_rank(p: Shown) -> int:
    """The gold's rank among the number options, 0 for the smallest (a row whose options are numbers)."""
    numbers = p.numbers or {}
    return sorted(numbers, key=numbers.__getitem__).index(p.gold)


def number_rows(prompts: Sequence[Shown]) -> list[Shown]:
    """The sufficient rows whose options are numbers, a question's rows showing the same options counted once."""
    seen: dict[tuple[str, tuple[str, ...]], Shown] = {}
    for p in sufficient(prompts):
        if p.numbers is not None:
            seen.setdefault((p.question, tuple(p.options)), p)
    return list(seen.values())


def _by_rank(rank: int) -> Pick:
    """Pick the option of this rank: from the smallest when >= 0, from the largest when < 0."""

    def pick(p: Shown) -> set[int]:
        numbers = p.numbers or {}
        order = sorted(numbers, key=numbers.__getitem__)
        return {order[rank]} if -len(order) <= rank < len(order) else set()

    return pick


def middle(p: Shown) -> set[int]:
    """The middle number option (both middle ones when their count is even)."""
    numbers = p.numbers or {}
    order = sorted(numbers, key=numbers.__getitem__)
    return set(order[(len(order) - 1) // 2 : len(order) // 2 + 1])


NUMBER_RULES: dict[str, Pick] = {
    "pick the smallest": _by_rank(0),
    "pick the largest": _by_rank(-1),
    "pick the middle one": middle,
}


def _rule_finding(name: str, rule: Pick, test: Sequence[Shown]) -> Finding:
    return Finding(name, "accuracy", mean([expected_hit(p, rule(p)) for p in test]), chance(test), len(test))


def best_rank(train: Sequence[Shown]) -> tuple[int, str]:
    """The rank (from the smallest, or from the largest when negative) most often gold on the training rows."""
    scored = {r: mean([expected_hit(p, _by_rank(r)(p)) for p in train]) for r in (*range(6), *range(-6, 0))}
    rank = max(scored, key=lambda r: (scored[r], -abs(r)))
    return rank, (f"{rank + 1}. smallest" if rank >= 0 else f"{-rank}. largest")


def chi_square_p(test: Sequence[Shown]) -> tuple[float, float, int]:
    """The chi-square statistic of the gold's ranks against uniform, pooled over option counts (the sum of each
    count's statistic, the sum of their degrees of freedom), its degrees of freedom and p-value."""
    from scipy.stats import chi2

    by_size: dict[int, Counter[int]] = {}
    for p in test:
        by_size.setdefault(len(p.numbers or {}), Counter())[gold_rank(p)] += 1
    statistic, freedom = 0.0, 0
    for size, ranks in by_size.items():
        expected = sum(ranks.values()) / size
        statistic += sum((ranks[r] - expected) ** 2 / expected for r in range(size))
        freedom += size - 1
    return statistic, float(chi2.sf(statistic, freedom)) if freedom else 1.0, freedom


def rank_test(test: Sequence[Shown], kind: str = "") -> Finding:
    """The chi-square test as a finding (`kind`: which number rows): its p-value beside the level at which uniform
    ranks are rejected."""
    statistic, p, freedom = chi_square_p(test)
    return Finding(
        f"{RANK_TEST}{kind} (chi-square {statistic:.1f}, {freedom} degrees of freedom)",
        "p-value",
        p,
        P_LEVEL,
        len(test),
        f"(a test: held at p >= {P_LEVEL})",
    )


def rank_tests(prompts: Sequence[Shown]) -> list[Finding]:
    """The gold's rank among number options tested against uniform over all number rows of `prompts` (a question's
    rows counted once), and apart for each kind of number with FEW_NUMBERS rows or more."""
    rows = number_rows(prompts)
    kinds = Counter(unit(p) for p in rows)
    return [rank_test(rows)] + [
        rank_test([p for p in rows if unit(p) == kind], f" counting {kind!r}")
        for kind in sorted(kinds)
        if kinds[kind] >= FEW_NUMBERS
    ]


def rank_table(prompts: Sequence[Shown]) -> str:
    """How often the gold is each rank among the number options (1 the smallest), by kind of number, as Markdown:
    the counts behind rank_tests."""
    rows = number_rows(prompts)
    by_kind: dict[str, Counter[tuple[int, int]]] = {}
    for p in rows:
        by_kind.setdefault(unit(p), Counter())[len(p.numbers or {}), gold_rank(p)] += 1
    lines = ["| numbers counting | options | gold's rank 1 (smallest), 2, ... | rows |", "|---|---:|---|---:|"]
    for kind, counts in sorted(by_kind.items()):
        for size in sorted({k for k, _ in counts}):
            ranks = [counts[size, r] for r in range(size)]
            lines.append(f"| {kind!r} | {size} | {' '.join(map(str, ranks))} | {sum(ranks)} |")
    return "\n".join(lines)


def unit(p: Shown) -> str:
    """What a number row's options count ("days", "$", "visitors", "%"), or "mixed" when they differ."""
    units = {unit_of(p.options[i]) for i in p.choices}
    return units.pop() if len(units) == 1 else "mixed"


def _number_rules(fit: Sequence[Shown], scored: Sequence[Shown], kind: str) -> list[Finding]:
    """The number rules on `scored`, and the rank most often gold on `fit` (`kind`: which number rows)."""
    apart = "" if min(len(fit), len(scored)) >= FEW_NUMBERS else f"(fewer than {FEW_NUMBERS} rows: not held)"
    findings = [
        replace(_rule_finding(f"number options{kind}: {name}", rule, scored), apart=apart)
        for name, rule in NUMBER_RULES.items()
    ]
    rank, words = best_rank(fit)
    name = f"number options{kind}: pick the rank most often gold in training (fitted: {words})"
    return [*findings, replace(_rule_finding(name, _by_rank(rank), scored), apart=apart)]


def number_findings(train: Sequence[Shown], test: Sequence[Shown]) -> list[Finding]:
    """The number rules on the test configuration's number rows, all together and by what they count."""
    fit, scored = number_rows(train), number_rows(test)
    findings = _number_rules(fit, scored, "")
    for kind in sorted({unit(p) for p in scored}):
        findings += _number_rules(
            [p for p in fit if unit(p) == kind], [p for p in scored if unit(p) == kind], f" counting {kind!r}"
        )
    return findings


def option_features(p: Shown, i: int) -> list[float]:
    """What a reader sees of option `i` without reading the documents: how often, by how many and where they name
    it, its position, length and type, its rank among number options."""
    choices, option = p.choices, p.options[i]
    counts = _counts(p)
    lengths = [len(p.options[j]) for j in choices]
    naming = p.naming(option)
    at = naming.first
    numbers = p.numbers
    rank = sorted(numbers, key=numbers.__getitem__).index(i) / (len(numbers) - 1) if numbers else -1.0
    return [
        choices.index(i) / max(1, len(choices) - 1),
        float(i == choices[0]),
        float(i == choices[-1]),
        len(choices),
        len(option),
        len(option) / mean(lengths),
        len(option.split()),
        float(number_in(option) is not None),
        float(option[:1] in "$€£¥"),
        float("%" in option),
        sum(w[:1].isupper() for w in option.split()) / len(option.split()),
        rank,
        counts[i],
        float(counts[i] > 0),
        sum(c > counts[i] for c in counts.values()),
        counts[i] / max(1, sum(counts.values())),
        sum(c > 0 for c in counts.values()),
        naming.articles,
        naming.articles / max(1, len(p.articles)),
        at[0] / len(p.articles) if at else 1.0,
        at[1] / max(1, len(p.articles[at[0]].text)) if at else 1.0,
        float(naming.in_headline),
    ]


def scorer_finding(train: Sequence[Shown], test: Sequence[Shown]) -> Finding:
    """Boosted trees trained to tell the gold option from its surface on `train`'s sufficient rows; the
    top-scored option of each of `test`'s, against chance."""
    fit, scored = sufficient(train), sufficient(test)
    model = boosted()
    with one_thread():
        model.fit(
            [option_features(p, i) for p in fit for i in p.choices],
            [int(i == p.gold) for p in fit for i in p.choices],
        )
        probabilities = iter(model.predict_proba([option_features(p, i) for p in scored for i in p.choices])[:, 1])
    hits = []
    for p in scored:
        scores = {i: float(next(probabilities)) for i in p.choices}
        top = max(scores.values())
        hits.append(expected_hit(p, {i for i, s in scores.items() if s == top}))
    return Finding(
        "option surface, boosted trees -> the top-scored option", "accuracy", mean(hits), chance(scored), len(hits)
    )


def most_shown_finding(test: Sequence[Shown]) -> Finding:
    """On the sufficient rows, the option that the most rows of its question in the set show, against chance."""
    shown: dict[str, Counter[str]] = defaultdict(Counter)
    for p in test:
        shown[str(p.row["question_id"])].update(p.options[i] for i in p.choices)
    hits = []
    for p in sufficient(test):
        times = {i: shown[str(p.row["question_id"])][p.options[i]] for i in p.choices}
        hits.append(expected_hit(p, {i for i, t in times.items() if t == max(times.values())}))
    return Finding(
        "whole set: pick the option the most rows of its question show",
        "accuracy",
        mean(hits),
        chance(sufficient(test)),
        len(hits),
        UNHELD,
    )


def mention_profile(p: Shown) -> list[float]:
    """How the shown articles name a row's options, whichever is gold: how many options, how many named (at all,
    by two articles or more, in a headline), the most and fewest times one is named, and the mean."""
    named = [p.naming(p.options[i]) for i in p.choices]
    times = [n.times for n in named]
    return [
        len(named),
        sum(t > 0 for t in times),
        sum(t > 0 for t in times) / len(named),
        sum(n.articles >= 2 for n in named),
        sum(n.in_headline for n in named),
        max(times),
        min(times),
        mean(times),
    ]


def refusal_finding(train: Sequence[Shown], test: Sequence[Shown]) -> Finding:
    """Boosted trees over the mention profile -> answer / refuse, on every row (options made once per question
    from the full evidence name what an insufficient row no longer shows: spec/validity.md, "Options per row")."""
    return boosted_finding(
        "how the documents name the options, boosted trees -> answer / refuse", mention_profile, train, test
    )


def option_findings(train: Sequence[Shown], test: Sequence[Shown]) -> list[Finding]:
    """The mention rules and the option scorer on the sufficient rows, the number rules, and the options' mention
    profile -> answer / refuse on every row."""
    rows = sufficient(test)
    findings = [_rule_finding(name, rule, rows) for name, rule in MENTION_RULES.items()]
    return [
        *findings,
        most_shown_finding(test),
        scorer_finding(train, test),
        *number_findings(train, test),
        refusal_finding(train, test),
    ]
