"""Decoys of a question whose answer is several dates, so that no rank of the gold's span tells it.

A generation's dates of birth lie close together, so an answer of several dates (the birthdays of someone's children)
often spans few years. Decoys drawn from any shown dates would span more, and "pick the closest dates" would find the
gold. Here each row draws how many of its decoys span fewer years than the gold and how many span more, and draws each
decoy among the sets of shown dates on its side: within SPREAD_BAND of the gold's span (log2 of 1 + years) where the
documents have such sets, else nearest it on that side.

Where a row's documents hold no set of dates closer than the gold's, the gold must be the closest option. So the
number of closer decoys is weighed (RANK_WEIGHTS) to draw "none closer" less often where the documents allow more:
over the universes the gold is then as often the closest, the widest or any rank between.
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from math import comb, log2

from ..rng import below, shuffled

SPREAD_BAND = 1.0  # how far (log2 of 1 + years) from the gold's span a decoy's may go on its side where sets allow
# The weight of each number of decoys closer than the gold (0, 1, ...), among the numbers a row's dates allow. Fewer
# closer decoys weigh less, for the rows whose documents hold no closer set have the gold closest; fitted on n500
# s1-s10 (those rows are about 8%), so that each rank of the gold's span comes about a fifth of the time.
RANK_WEIGHTS = (0.45, 0.75, 0.85, 0.95, 1.0, 1.0)
DRAW_TRIES = 30  # draws of one side's sets tried for each decoy wanted on that side

Side = tuple[int, list[tuple[int, int, int]]]
"""The sets of shown dates on one side of the gold's span: their number, and for each first date i its (i, first last
date, one past the last last date) where a set starting at i can end."""


def date_decoys(
    rng: random.Random, answer: Sequence[str], shown: Sequence[str], near: Sequence[Sequence[str]], wanted: int
) -> list[list[str]]:
    """Up to `wanted` decoys of len(answer) distinct shown dates each, none the gold's set: a drawn number of them
    span fewer years than the gold (RANK_WEIGHTS), the rest more, each near the gold's span on its side; the `near`
    misses (the dates of the question with its last hop changed) are taken first where they fit a side."""
    dates = sorted(set(shown))
    years = [year_of(value) for value in dates]
    k, gold = len(answer), frozenset(answer)
    span = _span(answer)
    sides = (_sides(years, k, 0.0, span, _band(span, -SPREAD_BAND)), _sides(years, k, span, None, _band(span, 1)))
    counts = [min(wanted, side[1][0]) for side in sides]
    closer = _closer_count(rng, wanted, counts)
    quotas = [closer, wanted - closer]
    seen = {gold}
    out: list[list[str]] = []
    for group in near:  # near misses first, each on the side its span falls
        found = sorted(shuffled(rng, sorted(set(group)))[:k])
        side = 0 if _span(found) < span else 1
        if len(found) == k and _span(found) != span and quotas[side] and frozenset(found) not in seen:
            seen.add(frozenset(found))
            out.append(found)
            quotas[side] -= 1
    used = set().union(*out)
    for side, quota in enumerate(quotas):
        band, every = sides[side]
        for _ in range(quota):
            drawn = _least_shared(rng, dates, band if band[0] else every, k, seen, (gold, used))
            if drawn is None and band[0]:
                drawn = _least_shared(rng, dates, every, k, seen, (gold, used))
            if drawn is None:
                break
            seen.add(frozenset(drawn))
            used.update(drawn)
            out.append(sorted(drawn))
    return out


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


def _span(dates: Sequence[str]) -> float:
    years = [year_of(value) for value in dates]
    return max(years) - min(years) if years else 0.0


def _band(span: float, doublings: float) -> float:
    """The span `doublings` away from `span` on the log2(1 + years) scale."""
    return max(0.0, 2 ** (log2(1 + span) + doublings) - 1)


def _closer_count(rng: random.Random, wanted: int, counts: Sequence[int]) -> int:
    """How many of the decoys span fewer years than the gold: drawn by RANK_WEIGHTS among the numbers the sets on
    each side allow (`counts`: how many sets span fewer years, and more, each at most `wanted`)."""
    low, high = max(0, wanted - counts[1]), min(wanted, counts[0])
    if high <= low:  # too few sets on one side or both: as many closer ones as there are
        return high
    weights = [RANK_WEIGHTS[min(n, len(RANK_WEIGHTS) - 1)] for n in range(low, high + 1)]
    point = rng.random() * sum(weights)
    for n, weight in enumerate(weights, start=low):
        point -= weight
        if point < 0:
            return n
    return high


def _sides(years: Sequence[float], k: int, above: float, below_: float | None, edge: float) -> tuple[Side, Side]:
    """The sets of k dates whose span lies strictly between `above` and `below_` (None: no upper end): (those within
    the band that `edge` closes, every one)."""
    if below_ is None:  # wider than the gold: the band is (above, edge]
        return _ranges(years, k, above, edge), _ranges(years, k, above, None)
    return _ranges(years, k, edge, below_, closed_low=True), _ranges(years, k, above, below_, closed_low=True)


def _ranges(years: Sequence[float], k: int, low: float, high: float | None, closed_low: bool = False) -> Side:
    """The sets of k of the sorted `years` whose span s has low < s < high (low <= s where `closed_low`; no upper
    end where `high` is None, and then s <= the band's edge is not asked): their number, and where each first date's
    sets end. A set is its first and last dates and k - 2 between: comb(last - first - 1, k - 2) of them."""
    total, starts = 0, []
    for first, year in enumerate(years):
        lo = (bisect_left if closed_low else bisect_right)(years, year + low, first + 1)
        hi = len(years) if high is None else bisect_left(years, year + high, first + 1)
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
                between = shuffled(rng, dates[first + 1 : last])[: k - 2]
                return [dates[first], *between, dates[last]]
            point -= ways
    return []
