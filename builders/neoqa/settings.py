"""Generated NeoQA: the settings, declared once, and the name grammar t{timelines}[_e{events}]_s{seed}[_{subset}].

Everything a generated configuration holds is a pure function of its `Settings`. Each setting is declared once
with `setting` (what it shapes, what it does, its range); the name's parser, the `datasets` builder config,
`python -m neoqa list` and the refusals are made from these declarations.
"""

from __future__ import annotations

import re
from dataclasses import MISSING, dataclass, fields
from typing import Any

from leakproof_qa.builders.checks import is_whole
from leakproof_qa.builders.settings import Declared, NameGrammar, check_knobs, setting

RAW_SUBSETS = ("timelines", "news", "questions")
INSTANCE_SUBSETS = ("neoqa", "optimal-evidence", "context-ablation")
SUBSETS = RAW_SUBSETS + INSTANCE_SUBSETS
DEFAULT_SUBSET = "neoqa"
SPLIT = "test"
"""A generated configuration has one split: every evaluation gets a fresh set, so there is no held-out part."""
GRAMMAR = "t{timelines}[_e{events}]_s{seed}[_{subset}]"
EXAMPLES = "t200_s1, t50_e8_s3_questions"
STAGES = ("name", "world", "articles", "questions")
_NUMBER = r"(?:0|[1-9][0-9]*)"
_NAME = re.compile(
    rf"t(?P<timelines>{_NUMBER})(?:_e(?P<events>{_NUMBER}))?_s(?P<seed>{_NUMBER})(?:_(?P<subset>[a-z-]+))?"
)


class ConfigError(ValueError):
    """A generated configuration's name or setting that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Settings(Declared):
    """Everything a generated NeoQA configuration is a pure function of."""

    timelines: int = setting(
        stage="name", help="fictional news timelines", check=lambda v: 1 <= v <= 100_000, expected="1 to 100000"
    )
    seed: int = setting(stage="name", help="the seed every draw comes from", check=lambda v: v >= 0, expected=">= 0")
    events: int = setting(
        10,
        stage="name",
        help="dated events per timeline (the paper's 10)",
        check=lambda v: 2 <= v <= 60,
        expected="2 to 60",
    )
    items_per_event: int = setting(
        24,
        stage="world",
        help="outline items (atomic dated facts) per event on average (each event draws within a sixth of it; the "
        "paper's 20 to 30)",
        check=lambda v: 2 <= v <= 40,
        expected="2 to 40",
    )
    articles_per_event: int = setting(
        12,
        stage="articles",
        help="news articles per event on average (the paper's 12; each event draws from 1/4 to 7/4 of it), each "
        "stating a subset of the event's items",
        check=lambda v: 1 <= v <= 60,
        expected="1 to 60",
    )
    multi_hop: int = setting(
        6,
        stage="questions",
        help="multi-hop questions per timeline (each with its premise variants and controls), at most",
        check=lambda v: 0 <= v <= 200,
        expected="0 to 200",
    )
    time_span: int = setting(
        4,
        stage="questions",
        help="time-span questions per timeline, at most",
        check=lambda v: 0 <= v <= 200,
        expected="0 to 200",
    )

    def validate(self) -> Settings:
        """Raise a one-line ConfigError naming the first value out of range."""
        for f in fields(self):
            value = getattr(self, f.name)
            if not is_whole(value):
                raise ConfigError(f"{f.name}={value!r} must be a whole number")
            if not f.metadata["check"](value):
                raise ConfigError(f"{f.name}={value!r} is out of range: expected {f.metadata['expected']}")
        return self


def is_generated_name(name: object) -> bool:
    """True when `name` has the shape of a generated configuration (t...), whether or not its parts are valid."""
    return isinstance(name, str) and re.fullmatch(r"t[0-9].*", name) is not None


def parse_name(name: str) -> tuple[int, int, int, str]:
    """(timelines, events, seed, subset) of a configuration name, or a one-line ConfigError."""
    match, subset = NameGrammar(_NAME, SUBSETS, DEFAULT_SUBSET, "NeoQA configuration name", GRAMMAR, EXAMPLES).match(
        name, ConfigError
    )
    events = int(match.group("events")) if match.group("events") else Settings.events
    return int(match.group("timelines")), events, int(match.group("seed")), subset


def format_name(settings: Settings, subset: str | None = None) -> str:
    """The canonical name (the inverse of parse_name): default events and subset left out."""
    name = f"t{settings.timelines}" + (f"_e{settings.events}" if settings.events != Settings.events else "")
    name += f"_s{settings.seed}"
    return name if subset in (None, DEFAULT_SUBSET) else f"{name}_{subset}"


def settings_from(name: str, **knobs: Any) -> tuple[Settings, str]:
    """Settings and subset of a name plus keyword settings; an unknown or contradicting setting is an error."""
    timelines, events, seed, subset = parse_name(name)
    named = {"timelines": timelines, "events": events, "seed": seed}
    check_knobs(name, named, knobs, set(Settings.knobs()) | set(named), ConfigError, "NeoQA setting")
    return Settings(**{**knobs, **named}).validate(), subset


def settings_lines() -> list[str]:
    """One line per setting for `python -m neoqa list`: name, stage, default, what it does, range."""
    lines = []
    for f in fields(Settings):
        default = "(in the name)" if f.default is MISSING else f"default {f.default}"
        lines.append(
            f"  {f.name:<20} {f.metadata['stage']:<9} {default:<14} {f.metadata['help']} [{f.metadata['expected']}]"
        )
    return lines
