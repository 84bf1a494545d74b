"""The short summary `python -m phantom_wiki generate` prints."""

from __future__ import annotations

from collections import Counter

from ..phantomwiki.stages import Generated


def summary(generated: Generated, written: dict[str, int], seconds: float) -> str:
    """People, articles, questions, a difficulty histogram and the time per stage."""
    s = generated.settings
    lines = [
        f"universe   n={s.size} seed={s.seed} depth={s.depth}: {len(generated.universe)} people, "
        f"{sum(len(p) for p in generated.universe.parents)} parent links, "
        f"{len(generated.universe.friend_pairs())} friendships",
        f"articles   {len(generated.articles)}",
        f"questions  {len(generated.questions)} "
        f"({sum(q.is_aggregation_question for q in generated.questions)} counting)",
        "difficulty "
        + "  ".join(f"{d}:{c}" for d, c in sorted(Counter(q.difficulty for q in generated.questions).items())),
        "rows       " + "  ".join(f"{subset}={count}" for subset, count in written.items()),
        "time       "
        + "  ".join(f"{stage}={t:.2f}s" for stage, t in generated.timings.items())
        + f"  total={seconds:.2f}s",
    ]
    return "\n".join(lines)
