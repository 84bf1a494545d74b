"""Shadows: articles a row shows beyond its own so that the mention graph of its documents does not tell its label.
A row that is not insufficient leaves someone named as often as an insufficient row's missing person without an
article of their own ("a person many shown lists name has no article" tells no label); an insufficient row shows
relatives of its people in place of the links its missing article made, and a shadow of its own the same way (so
"its articles name each other less often, in more pieces" tells no label either)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from ..rng import pick, shuffled
from .corpus import Corpus

SHADOW_ROOM = 3  # documents a family's fewest leaves for a row's shadow above its own articles
LINKS_SHORT = 2  # links an insufficient row's articles may stay below its whole set's once relinked (measured on n500
# s1 and s2, held on s3 and n5000: at 0 or 1 they are linked more densely than the other rows', as their relatives
# displace loose distractors; at 3 the n5000 rows less)


def shadow_articles(
    corpus: Corpus,
    rng: random.Random,
    shown: Sequence[str],
    targets: Sequence[int],
    room: int,
    *,
    named: dict[tuple[str, ...], list[Named]] | None = None,
    besides: str = "",
) -> list[str]:
    """Articles (at most `room`) that leave someone the documents `shown` name without an article of their own,
    named in as many family lines as the missing person of one of the question's insufficient rows (`targets`):
    the control that keeps "a person many shown lists name has no article" from telling an insufficient row. They
    only add true facts about people the rows already reach, so no answer, premise or refusal changes (each
    label is kept by its definition; `verify` reads them all). Someone other than `besides` is the one left.
    `named`: a cache of `shadow_candidates` by `shown` (the rows of one question share their documents often)."""
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
        if name != besides and already <= target <= naming and target - already <= room
    ]
    if not choices:
        return []
    _, already, extra = pick(rng, choices)
    return shuffled(rng, extra)[: target - already]


def missing_shadow(
    corpus: Corpus,
    rng: random.Random,
    shown: Sequence[str],
    missing: str,
    room: int,
    still_open: Callable[[list[str]], bool],
) -> list[str]:
    """The shadow of an insufficient row (at most `room` articles, and SHADOW_ROOM as another row's: more and its
    documents are linked beyond the others', most at n5000) whose own articles `shown` lack `missing`: the
    relatives that give back the links the missing article made (relinked), then a shadow as the other rows show
    one, someone else left named as often as the missing person. Each is kept only while `still_open` holds for the
    row's articles with it (they still prove no answer)."""
    room = min(room, SHADOW_ROOM)
    began = rng.getstate()  # drawn first as if every article kept it open: a proof only grows with articles, so
    found = _drawn(corpus, rng, shown, missing, room, _open)  # if the whole shadow keeps it open, each step did
    if not found or still_open([*shown, *found]):
        return found
    rng.setstate(began)
    return _drawn(corpus, rng, shown, missing, room, still_open)


def _open(titles: list[str]) -> bool:
    return True


def _drawn(
    corpus: Corpus,
    rng: random.Random,
    shown: Sequence[str],
    missing: str,
    room: int,
    still_open: Callable[[list[str]], bool],
) -> list[str]:
    joined = relinked(corpus, rng, shown, missing, room, still_open)
    left = [corpus.mentions(missing, shown)]
    loose = shadow_articles(corpus, rng, [*shown, *joined], left, room - len(joined), besides=missing)
    return [*joined, *loose] if loose and still_open([*shown, *joined, *loose]) else joined


def relinked(
    corpus: Corpus,
    rng: random.Random,
    shown: Sequence[str],
    missing: str,
    room: int,
    still_open: Callable[[list[str]], bool],
) -> list[str]:
    """Articles (at most `room`) of relatives of the people `shown` is about, none naming `missing`, taken until the
    row's articles name each other within LINKS_SHORT links as often as they do with the missing one: each the one
    naming most of them (at random among equals), first those that join no two of their pieces. Without them the
    insufficient rows alone show their own articles less linked (each named by fewer of the others, in more pieces)."""
    target = _links(corpus, [*shown, missing]) - LINKS_SHORT
    outside = set(shown) | set(corpus.naming(missing)) | {missing}
    taken: list[str] = []
    while len(taken) < room and _links(corpus, [*shown, *taken]) < target:
        titles = [*shown, *taken]
        have = set(titles)
        roots = _roots(corpus, titles)
        near = sorted({other for title in titles for other in corpus.naming(title)} - outside - have)
        ranked = sorted(shuffled(rng, near), key=lambda c: _ranking(corpus.naming(c), have, roots))
        found = next((c for c in ranked if still_open([*titles, c])), None)
        if found is None:
            break
        taken.append(found)
    return taken


def _ranking(naming: Sequence[str], have: set[str], roots: dict[str, str]) -> tuple[bool, int]:
    """How a relinking article ranks by what it names (`naming`): first those joining no two pieces, then by the
    most shown articles named."""
    shown = [t for t in naming if t in have]
    return len({roots[t] for t in shown}) >= 2, -len(shown)


def _links(corpus: Corpus, titles: Sequence[str]) -> int:
    """How many pairs of the articles `titles` name each other (a link is stated in both people's articles)."""
    have = set(titles)
    return sum(other in have for title in titles for other in corpus.naming(title)) // 2


def _roots(corpus: Corpus, titles: Sequence[str]) -> dict[str, str]:
    """Title -> a representative of its piece, two articles joined when one names the other's subject."""
    parent = {title: title for title in titles}

    def root(title: str) -> str:
        while parent[title] != title:
            parent[title] = parent[parent[title]]
            title = parent[title]
        return title

    for title in titles:
        for other in corpus.naming(title):
            if other in parent:
                parent[root(other)] = root(title)
    return {title: root(title) for title in titles}


Named = tuple[str, int, int, list[str]]
"""(name, how many shown articles name them, how many articles name them, the titles naming them not shown)."""


def shadow_candidates(corpus: Corpus, shown: Sequence[str]) -> list[Named]:
    """Everyone the documents `shown` name who has an article but none among them, sorted, with their counts."""
    have = set(shown)
    out = []
    for name in sorted({name for title in shown for name in corpus.naming(title)} - have):
        if name in corpus.position:
            naming = corpus.naming(name)  # distinct titles: those shown are the ones not left out
            left = [t for t in naming if t not in have]
            out.append((name, len(naming) - len(left), len(naming), left))
    return out
