"""The universes' articles the tools read, shared by the taskset (which names a task's universe) and the tool server
(which serves it): neither imports the other for them."""

from __future__ import annotations

from functools import lru_cache

from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.rows import generate
from leakproof_qa.phantom_env.tools import Corpus


@lru_cache(maxsize=4)
def corpus_of(universe: str, easy_mode: bool = False) -> Corpus:
    """A universe's articles, indexed for the tools (kept for the few universes a tool server meets)."""
    return Corpus.from_generated(generate(settings_from(universe, easy_mode=easy_mode)[0], with_questions=False))
