"""Figures that describe what universes and questions look like, to compare them with the reference generator.

Every figure pools its observations over all the universes (or questions) it is given, so five seeds
at n = 50 count as 5 trees, 250 people and 2,500 questions. benchmarks/fidelity.py prints them beside
the reference's (benchmarks/fidelity_reference.json), measured by this same code on universes that
PyPI phantom-wiki 1.0.3 wrote and builders/phantomwiki/prolog.py imported.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..phantomwiki.dates import ordinal
from ..phantomwiki.universe import Universe

DAYS_PER_YEAR = 365.2425


@dataclass(frozen=True)
class Figure:
    """One figure: its key, what it means, and how far from the reference it may be."""

    key: str
    label: str
    tolerance: float  # relative (0.10 = within 10%) or, when `absolute`, in the figure's own unit
    absolute: bool = False
    percent: bool = False  # a share, printed as a percentage


UNIVERSE_FIGURES = (
    Figure("generations", "generations per tree (mean)", 0.10),
    Figure("childless", "childless people", 0.10, percent=True),
    Figure("five_children", "couples with 5 children", 0.10, percent=True),
    Figure("children_per_couple", "children per couple (mean)", 0.10),
    Figure("parent_gap_mean", "parent-child age gap, years (mean)", 0.10),
    Figure("parent_gap_sd", "parent-child age gap, years (sd)", 0.10),
    Figure("sibling_gap_median", "sibling age gap, years (median over all pairs)", 0.10),
    Figure("spouse_gap_mean", "spouse age gap, years (mean)", 0.10),
    Figure("first_year", "earliest birth year", 0.10),
    Figure("last_year", "latest birth year", 0.10),
    Figure("name_overlap", "people whose first name is on the other gender's list", 0.10, percent=True),
)
ANSWER_FIGURES = (
    Figure("answers_1", "questions with 1 answer", 0.03, absolute=True, percent=True),
    Figure("answers_2_5", "questions with 2-5 answers", 0.03, absolute=True, percent=True),
    Figure("answers_over_5", "questions with more than 5 answers", 0.03, absolute=True, percent=True),
    Figure("largest_count", "largest answer of a counting question", 0.10),
)


def within(figure: Figure, value: float, reference: float) -> bool:
    """Whether `value` is as close to `reference` as the figure's tolerance allows."""
    allowed = figure.tolerance if figure.absolute else figure.tolerance * abs(reference)
    return abs(value - reference) <= allowed + 1e-12


def generations_per_tree(universe: Universe) -> list[int]:
    """For each tree (people linked by parent edges), how many generations it spans."""
    level: dict[int, int] = {}
    spans = []
    for root in range(len(universe)):
        if root in level:
            continue
        level[root] = 0
        low = high = 0
        stack = [root]
        while stack:
            person = stack.pop()
            for linked, step in ((universe.parents[person], -1), (universe.children[person], 1)):
                for other in linked:
                    if other not in level:
                        level[other] = level[person] + step
                        low, high = min(low, level[other]), max(high, level[other])
                        stack.append(other)
        spans.append(high - low + 1)
    return spans


def couples(universe: Universe) -> dict[tuple[int, ...], list[int]]:
    """The children of each couple (the sorted pair of a child's parents)."""
    out: dict[tuple[int, ...], list[int]] = {}
    for child, parents in enumerate(universe.parents):
        if len(parents) == 2:
            out.setdefault(tuple(sorted(parents)), []).append(child)
    return out


def _years(universe: Universe, a: int, b: int) -> float:
    """dob(b) - dob(a) in years."""
    return (ordinal(_dob(universe, b)) - ordinal(_dob(universe, a))) / DAYS_PER_YEAR


def _dob(universe: Universe, person: int) -> str:
    """A person's date of birth; a universe without one (an imported v1 program may lack it) has no figures."""
    dob = universe.dob[person]
    if dob is None:
        raise ValueError(f"{universe.names[person]} has no date of birth: fidelity figures need every one")
    return dob


def universe_figures(
    universes: Iterable[Universe], female_names: Sequence[str], male_names: Sequence[str]
) -> dict[str, float]:
    """The UNIVERSE_FIGURES of the pooled universes; the name lists are those the generator draws from."""
    female_set, male_set = set(female_names), set(male_names)
    spans: list[int] = []
    people = childless = crossed = 0
    per_couple: list[int] = []
    parent_gaps: list[float] = []
    sibling_gaps: list[float] = []
    spouse_gaps: list[float] = []
    years: list[int] = []
    for universe in universes:
        spans += generations_per_tree(universe)
        people += len(universe)
        childless += sum(1 for children in universe.children if not children)
        for person, name in enumerate(universe.names):
            first = name.split(" ", 1)[0]
            crossed += first in (male_set if universe.female[person] else female_set)
            years.append(int(_dob(universe, person)[:4]))
        for child, parents in enumerate(universe.parents):
            parent_gaps += [_years(universe, parent, child) for parent in parents]
        for (a, b), children in couples(universe).items():
            per_couple.append(len(children))
            spouse_gaps.append(abs(_years(universe, a, b)))
            sibling_gaps += [abs(_years(universe, x, y)) for x, y in itertools.combinations(children, 2)]
    return {
        "generations": statistics.fmean(spans),
        "childless": childless / people,
        "five_children": sum(1 for count in per_couple if count == 5) / len(per_couple),
        "children_per_couple": statistics.fmean(per_couple),
        "parent_gap_mean": statistics.fmean(parent_gaps),
        "parent_gap_sd": statistics.pstdev(parent_gaps),
        "sibling_gap_median": statistics.median(sibling_gaps),
        "spouse_gap_mean": statistics.fmean(spouse_gaps),
        "first_year": min(years),
        "last_year": max(years),
        "name_overlap": crossed / people,
    }


def answer_figures(questions: Iterable[tuple[Sequence[str], bool]]) -> dict[str, float]:
    """The ANSWER_FIGURES of pooled (answers, is_aggregation_question) pairs."""
    sizes: list[int] = []
    counts: list[int] = [0]
    for answers, is_count in questions:
        sizes.append(len(answers))
        if is_count:
            counts += [int(a) for a in answers]
    total = len(sizes)
    return {
        "answers_1": sum(1 for s in sizes if s <= 1) / total,
        "answers_2_5": sum(1 for s in sizes if 2 <= s <= 5) / total,
        "answers_over_5": sum(1 for s in sizes if s > 5) / total,
        "largest_count": max(counts),
    }
