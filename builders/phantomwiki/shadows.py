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
    corpus: Corpus, rng: random.Random, shown: Sequence[str], targets: Sequence[int], room: int
) -> list[str]:
    """Articles (at most `room`) that leave someone the documents `shown` name without an article of their own,
    named in as many family lines as the missing person of one of the question's insufficient rows (`targets`):
    the control that keeps "a person many shown lists name has no article" from telling an insufficient row. They
    only add true facts about people the rows already reach, so no answer, premise or refusal changes (each
    label is kept by its definition; `verify` reads them all)."""
    if not targets or room <= 0:
        return []
    target = pick(rng, sorted(targets))
    have = set(shown)
    named = sorted({name for title in shown for name in corpus.naming(title)} - have)
    choices = []
    for name in named:
        naming = corpus.naming(name)
        already = len(have.intersection(naming))  # the titles naming someone are distinct
        if name in corpus.position and already <= target <= len(naming) and target - already <= room:
            choices.append((name, already, [title for title in naming if title not in have]))
    if not choices:
        return []
    _, already, extra = pick(rng, choices)
    return shuffled(rng, extra)[: target - already]
