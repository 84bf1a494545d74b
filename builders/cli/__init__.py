"""The command lines of the two datasets (`python -m phantom_wiki`, `python -m neoqa`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..phantomwiki.config import Settings
    from ..phantomwiki.stages import Generated


def prepared(settings: Settings, subsets: list[str], bars: bool) -> Generated:
    """One universe generated with the stages `subsets` need, as `generate` and `show` make it; `bars` draws the
    stage bar on stderr."""
    from ..phantomwiki import rows as engine
    from ..phantomwiki.config import universe_name
    from ..progress import StageBar

    bar = StageBar(universe_name(settings), engine.stage_names(subsets)) if bars else None
    generated = engine.prepare(engine.generate(settings, False, False, progress=bar), subsets)
    if bar is not None:
        bar.close()
    return generated
