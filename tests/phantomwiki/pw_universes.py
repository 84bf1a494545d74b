"""Generated universes shared by several specs, built once per test session."""

from __future__ import annotations

from functools import lru_cache

from builders.phantomwiki.config import settings_from
from builders.phantomwiki.generate import Generated, generate


@lru_cache(maxsize=None)
def generated(name: str, **knobs: object) -> Generated:
    """The configuration `name` with every stage run."""
    return generate(settings_from(name, **knobs)[0])
