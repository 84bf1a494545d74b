"""Shadows: articles a row that is not insufficient shows so that "a person many shown lists name has no article"
does not tell an insufficient row (each leaves someone named as often as an insufficient row's missing person
without an article of their own)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..rng import pick, shuffled
from .corpus import Corpus

SHADOW_ROOM = 3  # documents a family's fewest leaves for a row's shadow above its own articles


def shadow_articles(
    corpus: Corpus,
    rng: random.Random,
    shown: Sequence[str],
    targets: Sequence[int],
    room: int,
    named: dict[tuple[str, ...], list[Named]] | None = None,
) -> list[str]:
    """Articles (at most `room`) that leave someone the documents `shown` name without an article of their own,
    named in as many family lines as the missing person of one of the question's insufficient rows (`targets`):
    the control that keeps "a person many shown lists name has no article" from telling an insufficient row. They
    only add true facts about people the rows already reach, so no answer, premise or refusal changes (each
    label is kept by its definition; `verify` reads them all). `named`: a cache of `shadow_candidates` by `shown`
    (the rows of one question share their documents often)."""
    if not targets or room <= 0:
        return []
    target = pick(rng, sorted(targets))
    key = tuple(shown)
    found = named.get(key) if named is not None else None
    if found is None:
        found = shadow_candidates(corpus, shown)
        if named is not None:
            named[key] = found
    choices = [
        (name, already, extra)
        for name, already, naming, extra in found
        if already <= target <= naming and target - already <= room
    ]
    if not choices:
        return []
    _, already, extra = pick(rng, choices)
    return shuffled(rng, extra)[: target - already]


Named = tuple[str, int, int, list[str]]
"""(name, how many shown articles name them, how many articles name them, the titles naming them not shown)."""


def shadow_candidates(corpus: Corpus, shown: Sequence[str]) -> list[Named]:
    """Everyone the documents `shown` name who has an article but none among them, sorted, with their counts."""
    have = set(shown)
    out = []
    for name in sorted({name for title in shown for name in corpus.naming(title)} - have):
        if name in corpus.position:
            naming = corpus.naming(name)
            out.append((name, len(have.intersection(naming)), len(naming), [t for t in naming if t not in have]))
    return out
