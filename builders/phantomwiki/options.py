"""Multiple choice as NeoQA asks it: one option per answer set, decoys that are answers of sibling questions, and
"Unanswerable".

Each row has its own options, made from what that row shows: the gold answer (all of its values as one option, sorted
as gold answers are) where the row's documents state it, decoys, and "Unanswerable", in a seeded order.
  * A decoy is the exact answer of a sibling question (siblings.py: the question with its last relation replaced by
    one of the same generation offset, as likely as the walk that drew the question was to pick it). A row draws the
    gold's decoys as a set whose odds make every member of every set it can show as likely to be the gold
    (inclusion_odds), as many as the question's likeliest sibling allows, and shows each decoy as it shows the gold
    (the articles its sibling question needs: Evidence.decoy_articles). So no function of the prompt that ignores what
    the last relation's words mean tells the gold from a decoy (docs/instances.md argues it; the tests measure it).
    Where the documents do not state the gold (an insufficient row without the article naming it), the gold is no
    option and one more decoy takes its place: no option names what no shown document states.
  * Counts: numbers. Each row draws the rank of the gold count among its numbers, weighed so that over the universe's
    count questions the gold comes at each rank alike (rank_weights), then the numbers below and above it, as often
    as count answers take them.
No option repeats another or the gold answer as a set, so each list holds exactly one correct option: the gold
answer on a sufficient instance, "Unanswerable" on every other.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from typing import TypeVar

from ..metrics import answer_set
from ..rng import stream
from .articles import ARTICLE_ATTRIBUTES, statements
from .siblings import Sibling, Siblings
from .solver import parse_literal
from .universe import Universe

UNANSWERABLE = "Unanswerable"
NEAR_MISSES = 4
ATTEMPTS = 100
COUNT_SMOOTHING = 0.5  # the weight of a number no count answer has (so every number up to the largest may come)
COUNT_SMOOTHED_RANGE = 5  # the numbers an answer size no count question has weighs alike: 0 to this + 2
RANK_ROUNDS = 200  # rounds of the fit that makes the gold count's rank come alike (rank_weights)
INCLUSION_ROUNDS = 60  # rounds of the fit of the odds a row's set of options is drawn by (inclusion_odds)
CAP = 0.95  # the most likely a sibling may be in a row's set of options (a likelier one would be in every set)
NAMES_KEPT = 1 << 16  # people whose stated names an option maker keeps between rows

T = TypeVar("T")


def option_text(answer: Sequence[str]) -> str:
    """An answer list as one option, e.g. "Ann Lee, Bo Lee"."""
    return ", ".join(answer)


class OptionMaker:
    """The options of each row of one universe."""

    def __init__(self, universe: Universe, siblings: Siblings, seed: int, counts: Sequence[Sequence[str]] = ()) -> None:
        self.universe = universe
        self.siblings = siblings
        self.seed = seed
        self._names: dict[int, frozenset[str]] = {}  # person -> the names their article states
        self._designs: dict[tuple[str, ...], tuple[list[Sibling], list[float], int]] = {}  # see _design
        self.count_weights = count_weights(counts)
        self.rank_weights = rank_weights([int(answer[0]) for answer in counts if len(answer) == 1], NEAR_MISSES)

    def options(
        self, key: str, query: Sequence[str], answer: Sequence[str], shown: Collection[int], drawn: Sequence[str] = ()
    ) -> list[str]:
        """The gold option where the shown documents state it, decoys (NEAR_MISSES of them at most, one more without
        the gold), then "Unanswerable" (each row shuffles them); `shown` = the people whose articles the row shows;
        `drawn` = the query the question was drawn as (Siblings.answers), where `query` narrows it."""
        last = parse_literal(query[0])
        if last.kind == "count":
            return [option_text(answer), *self._counts(stream(self.seed, "options", key), answer), UNANSWERABLE]
        stated = self.stated(shown, asked(query))
        gold = stated.issuperset(answer)
        order, wanted = self.ordered(key, query, answer, drawn)
        decoys = [option_text(s.answer) for s in order if stated.issuperset(s.answer)][: wanted + (not gold)]
        if not gold and not decoys:  # never "Unanswerable" alone
            decoys = self._last_resort(query, answer, stated)
        return [*([option_text(answer)] if gold else []), *decoys, UNANSWERABLE]

    def _last_resort(self, query: Sequence[str], answer: Sequence[str], stated: set[str]) -> list[str]:
        """The one decoy of a row whose documents state neither the gold nor a sibling alike: the first sibling of
        another generation offset they state, else the first value or name they state (about 2% of decoys)."""
        for sibling in self.siblings.answers(query, alike=False):
            if stated.issuperset(sibling.answer) and set(sibling.answer) != set(answer):
                return [option_text(sibling.answer)]
        return sorted(stated - set(answer))[:1]

    def ordered(
        self, key: str, query: Sequence[str], answer: Sequence[str], drawn: Sequence[str] = ()
    ) -> tuple[list[Sibling], int]:
        """The siblings of a row's question but the gold's answer, in the row's order, and how many of them are its
        decoys: those first, drawn as a set so that given the set of options each is as likely to be the gold
        (inclusion_odds), then the others one by one by their chances (a row that cannot show a decoy, or has no
        gold option, takes the next). Seeded by the row's `key`, so that its documents and options take one order."""
        others, odds, size = self._design(query, answer, drawn)
        rng = stream(self.seed, "decoys", key)
        chosen = conditional_draw(rng, odds[1:], size - 1)
        rest = [i for i in range(len(others)) if i not in chosen]
        rest = weighted_sample(rng, [(i, others[i].chance) for i in rest], len(rest))
        return [others[i] for i in [*chosen, *rest]], size - 1

    def _design(
        self, query: Sequence[str], answer: Sequence[str], drawn: Sequence[str] = ()
    ) -> tuple[list[Sibling], list[float], int]:
        """(the siblings but the gold's answer, the odds of the gold's and theirs, how many options the gold and its
        decoys make) of a question form, worked out once: as many as NEAR_MISSES + 1, but never so many that its
        likeliest answer (by its chance) would have to be in more than every set (CAP); the gold alone at the least."""
        key = (*query, "|", *answer, "|", *drawn)
        found = self._designs.get(key)
        if found is None:
            if len(self._designs) >= NAMES_KEPT:
                self._designs.clear()
            gold = frozenset(answer_set(list(answer)))
            every = self.siblings.answers(query, drawn=drawn)
            own = sum(s.chance for s in every if frozenset(answer_set(list(s.answer))) == gold)
            others = [s for s in every if frozenset(answer_set(list(s.answer))) != gold]
            chances = (own, *(s.chance for s in others))
            likeliest = max(chances) / sum(chances) if sum(chances) else 1.0
            size = min(NEAR_MISSES + 1, len(others) + 1, max(1, int(CAP / likeliest)))
            found = self._designs[key] = (others, inclusion_odds(chances, size), size)
        return found

    def needed(
        self, key: str, query: Sequence[str], answer: Sequence[str], shown: Collection[int], drawn: Sequence[str] = ()
    ) -> Iterator[list[int]]:
        """For each decoy a row may take, in its order (`ordered`), the people of its sibling question's required set
        whose articles the row does not show yet: with them shown, the documents state the decoy as they state the
        gold (whose required set they show), and prove it. Nothing for a count (its decoys are numbers)."""
        if parse_literal(query[0]).kind == "count":
            return
        have = set(shown)
        for sibling in self.ordered(key, query, answer, drawn)[0]:
            yield sorted(self.siblings.evidence(sibling.query) - have)

    def stated(self, shown: Collection[int], attribute: str | None) -> set[str]:
        """What the shown articles state: the names their subjects and family and friend lists give, or each one's
        value of `attribute`."""
        if attribute is not None:
            values = self.universe.attribute(attribute)
            return {value for value in (values[p] for p in shown) if value is not None}
        found: set[str] = set()
        for person in shown:
            found.update(self._names_of(person))
        return found

    def _names_of(self, person: int) -> frozenset[str]:
        """The names a person's article states: its subject's, and those of its family and friend lists."""
        found = self._names.get(person)
        if found is None:
            if len(self._names) >= NAMES_KEPT:
                self._names.clear()
            named = {name for predicate, objects in statements(self.universe, person) for name in objects
                     if predicate not in ARTICLE_ATTRIBUTES}  # fmt: skip
            found = self._names[person] = frozenset({self.universe.names[person], *named})
        return found

    def _counts(self, rng: random.Random, answer: Sequence[str]) -> list[str]:
        """Decoy counts. A single count g takes a rank among the numbers drawn by `rank_weights` (0 to NEAR_MISSES, at
        most g: no number is below 0), then that many numbers below g and the rest above, each drawn as often as count
        answers take it; a set of counts, sets of as many numbers drawn with the weights that size of answer has."""
        table = self.count_weights.get(len(answer)) or {n: COUNT_SMOOTHING for n in range(COUNT_SMOOTHED_RANGE + 3)}
        if len(answer) == 1:
            gold = int(answer[0])
            rank = weighted_sample(rng, list(enumerate(self.rank_weights[min(gold, NEAR_MISSES)])), 1)[0]
            top = max(max(table), gold + NEAR_MISSES)
            weights = [(n, table.get(n, COUNT_SMOOTHING)) for n in range(top + 1)]
            below = weighted_sample(rng, [(n, w) for n, w in weights if n < gold], rank)
            above = weighted_sample(rng, [(n, w) for n, w in weights if n > gold], NEAR_MISSES - rank)
            return [str(n) for n in sorted(below + above)]
        numbers = sorted({*table, *(int(a) for a in answer)})
        weighted = [(n, table.get(n, COUNT_SMOOTHING)) for n in numbers]
        seen = {frozenset(answer)}
        out: list[str] = []
        for _ in range(ATTEMPTS):
            if len(out) >= NEAR_MISSES:
                break
            option = [str(n) for n in sorted(weighted_sample(rng, weighted, len(answer)))]
            if len(option) == len(answer) and frozenset(option) not in seen:
                seen.add(frozenset(option))
                out.append(option_text(option))
        return out


def asked(query: Sequence[str]) -> str | None:
    """The attribute a question asks of the people it reaches ("What is the hobby of ..."), None for a Who or count
    question."""
    last = parse_literal(query[0])
    return last.predicate if last.kind == "attribute" and not last.inverse else None


def weighted_sample(rng: random.Random, items: Sequence[tuple[T, float]], k: int) -> list[T]:
    """Up to k distinct items drawn one by one, each as likely as its weight among those left, seeded."""
    left = list(items)
    out: list[T] = []
    for _ in range(min(k, len(left))):
        point = rng.random() * sum(weight for _, weight in left)
        for i, (item, weight) in enumerate(left):
            point -= weight
            if point < 0 or i == len(left) - 1:
                out.append(item)
                del left[i]
                break
    return out


def inclusion_odds(chances: Sequence[float], size: int) -> list[float]:
    """Odds of the items such that a set of `size` of them drawn with probability proportional to the product of its
    odds (conditional_draw) holds each item with probability `size` times its share of the chances. Then, given the
    set, each of its items is as likely to be the one drawn by its chance alone (the gold: a set is the gold and
    size - 1 decoys drawn by these odds). An item likelier than 1 / size cannot be in more than every set: it is held
    just under (its share water-filled to CAP / size), the nearest it comes. Fitted by iterative scaling."""
    n = len(chances)
    if size >= n:
        return [1.0] * n
    total = sum(chances)
    share = [c / total for c in chances]
    cap = CAP / size
    for _ in range(n):  # water-filling: cap the likeliest items, spread what they lose over the others
        over = [v for v in share if v > cap]
        if not over:
            break
        free = sum(v for v in share if v < cap)
        spill = sum(v - cap for v in over)
        share = [cap if v >= cap else v + spill * v / free for v in share]
    target = [size * v for v in share]
    odds = [t / (1 - t) for t in target]
    for _ in range(INCLUSION_ROUNDS):
        odds = [o * t / q if q > 0 else o for o, t, q in zip(odds, target, _inclusion(odds, size))]
    return odds


def _elementary(odds: Sequence[float], k: int) -> list[list[float]]:
    """e[i][j]: the sum over j-subsets of odds[i:] of their products (j <= k), by dynamic programming."""
    e = [[0.0] * (k + 1) for _ in range(len(odds) + 1)]
    for i in range(len(odds), -1, -1):
        e[i][0] = 1.0
        if i < len(odds):
            for j in range(1, k + 1):
                e[i][j] = e[i + 1][j] + odds[i] * e[i + 1][j - 1]
    return e


def _inclusion(odds: Sequence[float], k: int) -> list[float]:
    """The probability that a set of k drawn by `odds` (conditional_draw) holds each item: its odds times the sum over
    the (k - 1)-subsets of the others, over the sum over all k-subsets."""
    whole = _elementary(odds, k)[0]
    out = []
    for w in odds:
        without = 1.0  # e_j of the others, j = 0 .. k - 1: e_j(all) - w * e_{j-1}(others)
        for j in range(1, k):
            without = max(0.0, whole[j] - w * without)
        out.append(w * without / whole[k])
    return out


def conditional_draw(rng: random.Random, odds: Sequence[float], k: int) -> list[int]:
    """The indices of k distinct items drawn as a set with probability proportional to the product of their odds,
    seeded (all of them where k is as many)."""
    e = _elementary(odds, k)
    out: list[int] = []
    need = k
    for i, w in enumerate(odds):
        if need == 0 or e[i][need] <= 0:
            break
        if rng.random() * e[i][need] < w * e[i + 1][need - 1]:
            out.append(i)
            need -= 1
    return out


def rank_weights(golds: Sequence[int], others: int) -> dict[int, list[float]]:
    """For each gold count g (by min(g, others)), the weight of each rank 0..min(g, others) it takes among `others`
    more numbers, such that over `golds` (the universe's single count answers) the gold comes at each rank alike: no
    rank rule ("the smallest", "the middle one") finds it more often than chance. A gold of 0 can only be the smallest;
    a gold of 1 takes rank 0 as often as it must for rank 0 to come a fifth of the time, else rank 1 (it is the
    smallest positive number either way, so every larger count is kept off rank 0, where the smallest positive number
    would be it too); the larger counts share what is left by iterative proportional fitting. Where no weights can
    do it (more than a fifth of the counts are 0, or more than two fifths at most 1), the nearest it comes."""
    tally = Counter(min(g, others) for g in golds)
    total = sum(tally.values())
    out: dict[int, list[float]] = {0: [1.0], 1: [0.5, 0.5]}
    if not total:
        return {**out, **{g: [1.0] * (g + 1) for g in range(2, others + 1)}}
    fifth = 1 / (others + 1)
    left = [fifth] * (others + 1)  # what each rank still takes once the counts of 0 and 1 are placed
    left[0] -= tally[0] / total
    if tally[1]:
        lowest = min(1.0, max(0.0, left[0]) * total / tally[1])
        out[1] = [lowest, 1 - lowest]
        left[0] -= lowest * tally[1] / total
        left[1] -= (1 - lowest) * tally[1] / total
    odds = [max(0.0, share) for share in left]
    for _ in range(RANK_ROUNDS):
        share = [0.0] * (others + 1)
        for highest, count in tally.items():
            scale = sum(odds[: highest + 1])
            for r in range(highest + 1):
                if highest >= 2 and scale > 0:
                    share[r] += count / total * odds[r] / scale
        odds = [o * max(0.0, t) / s if s > 0 else o for o, t, s in zip(odds, left, share)]
    out.update({g: odds[: g + 1] if sum(odds[: g + 1]) > 0 else [1.0] * (g + 1) for g in range(2, others + 1)})
    return out


def count_weights(counts: Sequence[Sequence[str]]) -> dict[int, dict[int, float]]:
    """For each size of answer, how often each number is in a count answer of that size among `counts` (every count
    question's gold answer), smoothed, over 0 to two past the largest: the weights its decoys are drawn with (a single
    count is almost never 0, while a set of counts often holds 0, so each size has its own)."""
    tallies: dict[int, Counter[int]] = {}
    for answer in counts:
        tallies.setdefault(len(answer), Counter()).update(int(n) for n in answer)
    out = {}
    for size, tally in tallies.items():
        top = max(tally) + 2
        out[size] = {n: tally.get(n, 0) + COUNT_SMOOTHING for n in range(top + 1)}
    return out
