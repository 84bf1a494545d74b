"""PhantomWiki settings and the configuration-name grammar n{size}[_d{depth}]_s{seed}[_{subset}]."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from ..checks import is_number, is_whole
from ..evidence import DOCUMENT_FORMATS
from ..retrieval import ENGINES

SUBSETS = ("questions", "corpus", "database", "instances", "rag")
DEFAULT_SUBSET = "questions"
GRAMMAR = "n{size}[_d{depth}]_s{seed}[_{subset}]"
EXAMPLES = "n5000_s1, n500_d10_s3_corpus"
# Canonical names only (ASCII digits, no leading zeros, nothing after): one universe, one name, one cache entry.
_NUMBER = r"(?:0|[1-9][0-9]*)"
_NAME = re.compile(rf"n(?P<size>{_NUMBER})(?:_d(?P<depth>{_NUMBER}))?_s(?P<seed>{_NUMBER})(?:_(?P<subset>[a-z]+))?")


LAYOUTS = ("fixed", "ablation")
INSUFFICIENT = ("by_role", "all")
DISTRACTORS = ("hard", "easy")
FORMATS = DOCUMENT_FORMATS
RETRIEVERS = ENGINES
POSITIONS = ("random", "spread")
"""evidence_position's named values; any other is a depth between 0 and 1 (see `depth_of`)."""


MIN_CONTEXT_TOKENS = 256


class ConfigError(ValueError):
    """A configuration name or setting that cannot be used; the message is one line."""


RANGES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "size": (lambda v: v >= 1, "at least 1"),
    "seed": (lambda v: v >= 0, "at least 0"),
    "depth": (lambda v: 4 <= v <= 40, "between 4 and 40 (the grammar needs 4; 20 is the paper's)"),
    "friendship_degree": (lambda v: 0 <= v <= 100, "between 0 and 100"),
    "max_tree_size": (lambda v: v >= 1, "at least 1"),
    "max_tree_depth": (
        lambda v: 1 <= v <= 40,
        "between 1 and 40 (a tree spans at most max_tree_depth + 1 generations, as in v1)",
    ),
    "max_children": (lambda v: v >= 1, "at least 1"),
    "questions_per_template": (lambda v: v >= 0, "at least 0"),
    "instance_layout": (lambda v: v in LAYOUTS, f"one of {', '.join(LAYOUTS)}"),
    "instance_documents": (lambda v: v >= 0, "at least 0"),
    "instance_documents_min": (
        lambda v: v >= 0,
        "at least 0 (at most instance_documents: the range a row's count is drawn from)",
    ),
    "insufficient": (lambda v: v in INSUFFICIENT, f"one of {', '.join(INSUFFICIENT)}"),
    "max_evidence": (lambda v: v >= 1, "at least 1"),
    "unanswerable": (lambda v: 0 <= v <= 10, "between 0 and 10 variants of each kind per question"),
    "distractors": (lambda v: v in DISTRACTORS, f"one of {', '.join(DISTRACTORS)}"),
    "document_format": (lambda v: v in FORMATS, f"one of {', '.join(FORMATS)}"),
    "retrieval_k": (lambda v: v >= 1, "at least 1"),
    "retriever": (lambda v: v in RETRIEVERS, f"one of {', '.join(RETRIEVERS)}"),
    "context_tokens": (
        lambda v: v == 0 or v >= MIN_CONTEXT_TOKENS,
        f"0 (off) or at least {MIN_CONTEXT_TOKENS} tokens of documents",
    ),
    "evidence_position": (
        lambda v: v in POSITIONS or canonical_depth(v) == v,
        "random, spread, or a depth between 0 and 1 such as 0.25 (the share of distractor tokens before the evidence)",
    ),
    "tokenizer": (
        lambda v: v == v.strip() and "\n" not in v,
        "a tokenizer's name or folder (transformers, files on this machine), or empty for the estimate",
    ),
}
"""Each setting with a range: the check, and the words the error (and `python -m phantom_wiki list`) use."""


@dataclass(frozen=True)
class Settings:
    """Everything a universe and its questions are a pure function of."""

    size: int
    seed: int
    depth: int = 20
    friendship_degree: float = 3.0
    max_tree_size: int = 50
    max_tree_depth: int = 20  # as in v1: a tree spans at most max_tree_depth + 1 generations
    max_children: int = 5
    questions_per_template: int = 10
    easy_mode: bool = False
    places: bool = (
        True  # some people have a birthplace, a city of residence, a school (False: articles as before 0.8.0)
    )
    # Evidence instances and retrieval (subsets `instances` and `rag`); see builders/phantomwiki/instances.py.
    instance_layout: str = "fixed"  # "fixed": `instance_documents` per instance; "ablation": 0/20/40/60/80 distractors
    instance_documents: int = 32  # most documents in an instance of the fixed layout
    instance_documents_min: int = 16  # fewest (at most instance_documents): each row draws its count in between
    insufficient: str = (
        "by_role"  # "by_role": per question one insufficient instance per role of missing article; "all"
    )
    max_evidence: int = 32  # questions whose required set holds more articles than this get no instances
    attribute_questions: bool = False  # instances for questions starting from an attribute value (closed world)
    unanswerable: int = 1  # unanswerable variants of each kind per question family in instances and rag (0: none)
    distractors: str = "hard"  # "hard": BM25 neighbours of question + evidence; "easy": seeded random articles
    document_format: str = "markdown"  # "markdown", "text" or "html"
    retrieval_k: int = 4  # BM25 top-k of the `rag` subset (the paper's 4)
    retriever: str = "bm25s"  # "bm25s" or the pure-Python reference "rank_bm25"
    # Long context (builders/phantomwiki/instances.py, builders/tokens.py): off by default.
    context_tokens: int = 0  # > 0: each row's documents filled with distractors up to this many tokens, never above
    evidence_position: str = "random"  # "random" (shuffled), "spread" (evenly), or a depth "0" ... "1"
    tokenizer: str = ""  # count tokens with this transformers tokenizer (local files); "" = the estimate

    @property
    def long_context(self) -> bool:
        """Whether instance rows are filled to a token length (and carry the long-context fields)."""
        return self.context_tokens > 0

    def validate(self) -> Settings:
        """Raise ConfigError naming the first value out of range."""
        for name, (ok, expected) in RANGES.items():
            if not ok(getattr(self, name)):
                raise ConfigError(f"{name}={getattr(self, name)!r} is out of range: expected {expected}")
        for name, value, default in (
            ("evidence_position", self.evidence_position, "random"),
            ("tokenizer", self.tokenizer, ""),
        ):
            if value != default and not self.long_context:
                raise ConfigError(f"{name}={value!r} applies to rows filled to a length: set context_tokens too")
        if self.long_context and self.instance_layout != "fixed":
            raise ConfigError(
                f"context_tokens={self.context_tokens} fills each row to a length: it takes instance_layout='fixed', "
                f"not {self.instance_layout!r}"
            )
        return self

    @classmethod
    def knobs(cls) -> tuple[str, ...]:
        """Settings that are keyword arguments rather than parts of the configuration name."""
        return tuple(f.name for f in fields(cls) if f.name not in ("size", "seed", "depth"))


def canonical_depth(value: object) -> str | None:
    """A depth in [0, 1] written the one way settings hold it ("0", "0.25", "1"), or None if `value` is not one.

    Settings carry the depth as a string, as the command line and lm-eval metadata carry it, beside the named
    positions "random" and "spread"; a number or numeric text is written with `format(float, "g")`, so 0.5, "0.50"
    and ".5" are one setting and one cache entry.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        depth = float(value)
    except ValueError:
        return None
    return format(depth, "g") if 0.0 <= depth <= 1.0 else None


def depth_of(position: str) -> float | None:
    """The depth an evidence_position names (None for "random" and "spread")."""
    return None if position in POSITIONS else float(position)


def parse_name(name: str) -> tuple[int, int, int, str]:
    """(size, depth, seed, subset) of a configuration name, or a one-line ConfigError."""
    match = _NAME.fullmatch(name) if isinstance(name, str) else None
    subset = match.group("subset") if match else None
    if not match or (subset is not None and subset not in SUBSETS):
        what = f"unknown subset {subset!r}" if match else "does not match the grammar"
        raise ConfigError(
            f"bad configuration name {name!r}: {what}; expected {GRAMMAR} with subset one of "
            f"{', '.join(SUBSETS)} (default {DEFAULT_SUBSET}), e.g. {EXAMPLES}"
        )
    depth = int(match.group("depth")) if match.group("depth") else Settings.depth
    return int(match.group("size")), depth, int(match.group("seed")), subset or DEFAULT_SUBSET


def parse_universe(name: str, command: str, hint: str = "") -> tuple[int, int, int]:
    """(size, depth, seed) of a universe name, for a `command` that works on whole universes: a subset suffix is a
    one-line ConfigError naming the universe to give instead (and `hint`, what chooses subsets there)."""
    size, depth, seed, subset = parse_name(name)
    if name.endswith("_" + subset):
        raise ConfigError(
            f"{command} works on a whole universe: give {name.removesuffix('_' + subset)!r} without the _{subset} "
            f"suffix" + (f"; {hint}" if hint else "")
        )
    return size, depth, seed


def format_name(size: int, depth: int, seed: int, subset: str | None = None) -> str:
    """The canonical configuration name (the inverse of parse_name): the depth and the default subset left out
    when they are the defaults, e.g. format_name(5000, 20, 1) == "n5000_s1"."""
    name = f"n{size}" + (f"_d{depth}" if depth != Settings.depth else "") + f"_s{seed}"
    return name if subset in (None, DEFAULT_SUBSET) else f"{name}_{subset}"


def universe_name(settings: Settings) -> str:
    """The canonical name of the universe `settings` make (no subset)."""
    return format_name(settings.size, settings.depth, settings.seed)


def settings_from(name: str, **knobs: object) -> tuple[Settings, str]:
    """Settings and subset for a configuration name plus keyword knobs; a knob that contradicts the name is an error."""
    size, depth, seed, subset = parse_name(name)
    named = {"size": size, "depth": depth, "seed": seed}
    allowed = set(Settings.knobs()) | set(named)
    for key, value in knobs.items():
        if key not in allowed:
            raise ConfigError(f"unknown setting {key!r}; the settings are {', '.join(sorted(allowed))}")
        if key in named and value != named[key]:
            raise ConfigError(
                f"{key}={value!r} contradicts the configuration name {name!r}, which says {key}={named[key]}"
            )
    values: dict[str, Any] = {**{k: v for k, v in knobs.items() if k not in named}, **named}
    position = values.get("evidence_position")
    if position is not None and position not in POSITIONS and canonical_depth(position) is not None:
        values["evidence_position"] = canonical_depth(position)  # 0.5, "0.50", ".5" -> "0.5"
    for f in fields(Settings):
        if f.name not in values:
            continue
        value, kind = values[f.name], type(f.default) if f.name not in named else int
        if kind is str and not isinstance(value, str):
            raise ConfigError(f"{f.name}={value!r} must be a string")
        if kind is bool and not isinstance(value, bool):
            raise ConfigError(f"{f.name}={value!r} must be True or False")
        if kind is int and not is_whole(value):
            raise ConfigError(f"{f.name}={value!r} must be a whole number")
        if kind is float and not is_number(value):
            raise ConfigError(f"{f.name}={value!r} must be a number")
    return Settings(**values).validate(), subset
