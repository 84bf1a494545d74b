"""Decoys of a question whose answer is several dates, so that no rank of the gold's dates among the options tells it.

A generation's dates of birth lie close together, so an answer of several dates (the birthdays of someone's children)
often spans few years; and it is often a family at one end of the generations a row's documents show. Decoys drawn
evenly from the shown dates would span more, lie in the middle, and come from the denser runs of dates, so "pick the
closest dates", "the earliest", "the most outlying" or "the one sharing fewest dates with the others" would find the
gold. So each row draws how many of its decoys span fewer years than the gold (RANK_WEIGHTS) and how many lie
earlier, by the midpoint of their dates (ERA_WEIGHTS), among the numbers its dates allow (the sets of each kind are
counted exactly), then draws each decoy evenly among the sets of shown dates of its kind, within a doubling of the
gold's span where there are such sets, sharing as few dates with the options so far as it can.

Where a row's documents hold no set of dates closer than the gold's (or earlier, or later), the gold must be the
closest option (the earliest, the latest). The weights draw those numbers less often where the documents allow
more, so that over the universes each rank of the gold comes about a fifth of the time.
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Sequence
from math import comb

from ..rng import below, sample

SPREAD_BAND = 1.0  # how far (log2 of 1 + years) from the gold's span a decoy's may go on its side where sets allow
# The weight of each number of decoys closer than the gold (0, 1, ...), among the numbers a row's dates allow. Fewer
# closer decoys weigh less, for the rows whose documents hold no closer set have the gold closest; fitted on n500
# s1-s10 (those rows are about 8%), so that each rank of the gold's span comes about a fifth of the time.
RANK_WEIGHTS = (0.45, 0.75, 0.85, 0.95, 1.0, 1.0)
# The weight of a number of earlier decoys by how far it is from either end (none earlier: the gold the earliest; all
# earlier: the latest). About 4% of rows force the gold to an end; set on n500 s1-s10, where at 1.0 the gold was the
# earliest option 0.23 of the time, at 0.7 0.21.
ERA_WEIGHTS = (0.7, 1.0)
DRAW_TRIES = 30  # draws of one cell's sets tried for each decoy wanted in it

Side = tuple[int, list[tuple[int, int, int]]]
"""The sets of shown dates on one side of the gold's span: their number, and for each first date i its (i, first last
date, one past the last last date) where a set starting at i can end."""
Cell = tuple[Side, Side]  # the sets of one cell (closer or wider, earlier or later): (within the band, every one)


def date_decoys(
    rng: random.Random, answer: Sequence[str], shown: Sequence[str], near: Sequence[Sequence[str]], wanted: int
) -> list[list[str]]:
    """Up to `wanted` decoys of len(answer) distinct shown dates each, none the gold's set: a drawn number of them
    span fewer years than the gold (RANK_WEIGHTS) and a drawn number lie earlier (ERA_WEIGHTS, by the midpoint of
    their dates), each near the gold's span on its side; the `near` misses (the dates of the question with its last
    hop changed) are taken first where they fit."""
    dates = sorted(set(shown))
    years = [year_of(value) for value in dates]
    k, gold = len(answer), frozenset(answer)
    span, middle = _span(answer), _middle(answer)
    cells = _cells(years, k, span, middle)
    counts = [[min(wanted, cell[1][0]) for cell in side] for side in cells]  # [closer, wider][earlier, later]
    quotas = _quotas(rng, wanted, counts)
    seen = {gold}
    out: list[list[str]] = []
    for group in near:  # near misses first, each in the cell its span and midpoint fall
        found = sorted(sample(rng, sorted(set(group)), k))
        if len(found) < k or _span(found) == span or frozenset(found) in seen:
            continue
        side, era = int(_span(found) > span), int(_middle(found) >= middle)
        if quotas[side][era]:
            seen.add(frozenset(found))
            out.append(found)
            quotas[side][era] -= 1
    used = set().union(*out)
    for side in (0, 1):
        for era in (0, 1):
            band, every = cells[side][era]
            for _ in range(quotas[side][era]):
                drawn = _least_shared(rng, dates, band if band[0] else every, k, seen, (gold, used))
                if drawn is None and band[0]:
                    drawn = _least_shared(rng, dates, every, k, seen, (gold, used))
                if drawn is None:
                    break
                seen.add(frozenset(drawn))
                used.update(drawn)
                out.append(sorted(drawn))
    return out


def _quotas(rng: random.Random, wanted: int, counts: Sequence[Sequence[int]]) -> list[list[int]]:
    """How many decoys to draw in each cell ([closer, wider][earlier, later]): the number of closer ones drawn by
    RANK_WEIGHTS, then the number of earlier ones by ERA_WEIGHTS, each among the numbers the cells' sets allow, then
    how the two cross, evenly among the ways that fit."""
    (a, b), (c, d) = counts
    closer = _weighted_count(rng, RANK_WEIGHTS, max(0, wanted - c - d), min(wanted, a + b))
    fits = {}  # a number of earlier decoys -> the range of numbers both closer and earlier with which it fits
    for earlier in range(wanted + 1):
        low = max(0, closer - b, earlier - c, closer + earlier - wanted)
        high = min(a, closer, earlier, d - wanted + closer + earlier)
        if low <= high:
            fits[earlier] = (low, high)
    if not fits:  # fewer sets than decoys wanted (a parent's date and the children's): every one there is
        return [[a, b], [c, d]]
    earlier = _weighted_count(rng, _era_weights(wanted), min(fits), max(fits), allowed=set(fits))
    low, high = fits[earlier]
    both = low + below(rng, high - low + 1)
    return [[both, closer - both], [earlier - both, wanted - closer - earlier + both]]


def _least_shared(
    rng: random.Random,
    dates: Sequence[str],
    sets: Side,
    k: int,
    seen: set[frozenset[str]],
    used: tuple[frozenset[str], set[str]],
) -> list[str] | None:
    """Of up to DRAW_TRIES sets drawn evenly among `sets` and not `seen`, the first that shares no date with the
    options so far (`used`), else the one sharing fewest: so that no option, the gold or a decoy, shares more dates
    with the others than the documents force (decoys drawn evenly come from the denser runs of dates, and would share
    more with each other than with the gold). None where every draw was seen."""
    best, fewest = None, 3 * k + 1  # above any count of shared dates
    count, starts = sets
    gold, drawn = used
    for _ in range(DRAW_TRIES if count else 0):
        found = _draw(rng, dates, starts, count, k)
        if frozenset(found) in seen:
            continue
        shared = 2 * len(drawn.intersection(found)) + len(gold.intersection(found))
        if shared < fewest:
            best, fewest = found, shared
            if not shared:
                break
    return best


def year_of(date: str) -> float:
    """A date ("1009-04-24") as a year with its fraction (months and days as even parts)."""
    year, month, day = date.split("-")
    return int(year) + (int(month) - 1) / 12 + (int(day) - 1) / 372


def _middle(dates: Sequence[str]) -> float:
    """The midpoint of the first and last dates, in years."""
    years = [year_of(value) for value in dates]
    return (max(years) + min(years)) / 2


def _span(dates: Sequence[str]) -> float:
    years = [year_of(value) for value in dates]
    return max(years) - min(years) if years else 0.0


def _band(span: float, doublings: float) -> float:
    """The span `doublings` away from `span` on the log2(1 + years) scale: (1 + span) * 2 ** doublings - 1, exact
    in floating point for whole doublings (no log2, whose last bit may differ between machines' maths libraries)."""
    return max(0.0, (1 + span) * 2.0**doublings - 1)


def _weighted_count(
    rng: random.Random, weights: Sequence[float], low: int, high: int, allowed: Collection[int] | None = None
) -> int:
    """A number from low to high (those `allowed`), each as likely as its weight (the last weight for any above)."""
    numbers = [n for n in range(low, high + 1) if allowed is None or n in allowed]
    if len(numbers) <= 1:  # one number allowed (or none, where too few sets: the most there are)
        return numbers[0] if numbers else max(0, high)
    chosen = [weights[min(n, len(weights) - 1)] for n in numbers]
    point = rng.random() * sum(chosen)
    for n, weight in zip(numbers, chosen):
        point -= weight
        if point < 0:
            return n
    return numbers[-1]


def _era_weights(wanted: int) -> list[float]:
    """ERA_WEIGHTS by the number of earlier decoys, 0 to `wanted`: the ends (the gold the latest or the earliest)
    weigh as ERA_WEIGHTS says, from each end alike."""
    return [ERA_WEIGHTS[min(n, wanted - n, len(ERA_WEIGHTS) - 1)] for n in range(wanted + 1)]


def _cells(years: Sequence[float], k: int, span: float, middle: float) -> tuple[tuple[Cell, Cell], tuple[Cell, Cell]]:
    """The sets of k of the sorted `years`, [closer than `span`, wider][midpoint earlier than `middle`, later]: each
    (those within SPREAD_BAND of the span, every one)."""
    low, high = _band(span, -SPREAD_BAND), _band(span, SPREAD_BAND)
    closer = tuple(
        (_ranges(years, k, low, span, era, middle, closed_low=True), _ranges(years, k, 0.0, span, era, middle, True))
        for era in (0, 1)
    )
    wider = tuple(
        (_ranges(years, k, span, high, era, middle), _ranges(years, k, span, None, era, middle)) for era in (0, 1)
    )
    return (closer[0], closer[1]), (wider[0], wider[1])


def _ranges(
    years: Sequence[float], k: int, low: float, high: float | None, era: int, middle: float, closed_low: bool = False
) -> Side:
    """The sets of k of the sorted `years` whose span s has low < s < high (low <= s where `closed_low`; no upper
    end where `high` is None) and whose midpoint lies before `middle` (`era` 0) or not (1): their number, and where
    each first date's sets end. A set is its first and last dates and k - 2 between: comb(last - first - 1, k - 2)."""
    total, starts = 0, []
    for first, year in enumerate(years):
        lo = (bisect_left if closed_low else bisect_right)(years, year + low, first + 1)
        hi = len(years) if high is None else bisect_left(years, year + high, first + 1)
        cut = bisect_left(years, 2 * middle - year, first + 1)  # the first last date with the midpoint not before
        lo, hi = (lo, min(hi, cut)) if era == 0 else (max(lo, cut), hi)
        lo = max(lo, first + k - 1)  # a last date with room for k - 2 between
        if lo < hi:
            total += comb(hi - first - 1, k - 1) - comb(lo - first - 1, k - 1)  # the sum over last dates in [lo, hi)
            starts.append((first, lo, hi))
    return total, starts


def _draw(
    rng: random.Random, dates: Sequence[str], starts: Sequence[tuple[int, int, int]], count: int, k: int
) -> list[str]:
    """One set of k dates drawn evenly among the `count` sets `starts` describes."""
    point = below(rng, count)
    for first, lo, hi in starts:
        here = comb(hi - first - 1, k - 1) - comb(lo - first - 1, k - 1)
        if point >= here:
            point -= here
            continue
        for last in range(lo, hi):
            ways = comb(last - first - 1, k - 2)
            if point < ways:
                between = sample(rng, dates[first + 1 : last], k - 2)
                return [dates[first], *between, dates[last]]
            point -= ways
    return []
