"""Generated universes and their instances shared by several specs, each built once per test session."""

from __future__ import annotations

import dataclasses
from functools import cache

from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.instances import build_instances, build_rag
from leakproof_qa.builders.phantomwiki.rows import Generated, generate


@cache
def generated(name: str, **knobs: object) -> Generated:
    """The configuration `name` with every stage run."""
    return generate(settings_from(name, **knobs)[0])


@cache
def instances(name: str, **knobs: object) -> tuple[dict, ...]:
    """The `instances` rows of universe `name` with instance settings `knobs` (read them; never change them)."""
    g = generated(name)
    return tuple(build_instances(g, dataclasses.replace(g.settings, **knobs)))


@cache
def rag(name: str, **knobs: object) -> tuple[dict, ...]:
    """The `rag` rows of universe `name` with settings `knobs` (read them; never change them)."""
    g = generated(name)
    return tuple(build_rag(g, dataclasses.replace(g.settings, **knobs)))
