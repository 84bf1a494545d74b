"""PhantomWiki settings and the configuration-name grammar n{size}[_d{depth}]_s{seed}[_{subset}]."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import MISSING, dataclass, fields
from typing import Any

from ..checks import is_number, is_whole
from ..evidence import DOCUMENT_FORMATS
from ..retrieval import ENGINES
from ..settings import Declared, NameGrammar, check_knobs
from ..settings import setting as declared

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
RAG_ROWS = ("balanced", "all")
FORMATS = DOCUMENT_FORMATS
RETRIEVERS = ENGINES
RENAMED_RETRIEVER = "bm25s"  # the name of our engine until 0.8.0, still accepted
POSITIONS = ("random", "spread")
"""evidence_position's named values; any other is a depth between 0 and 1 (see `depth_of`)."""


MIN_CONTEXT_TOKENS = 256


class ConfigError(ValueError):
    """A configuration name or setting that cannot be used; the message is one line."""


STAGES = ("name", "universe", "questions", "instances")
"""What a setting shapes: the name's parts, the universe, its questions, or the instances and rag rows."""


def setting(default: Any = MISSING, **about: Any) -> Any:
    """A field of Settings (builders/settings.py's `setting`, its stage one of STAGES): the command line's options,
    the `datasets` builder config, `list` and the README's table are made from these."""
    assert about["stage"] in STAGES
    return declared(default, **about)


@dataclass(frozen=True)
class Settings(Declared):
    """Everything a universe and its questions are a pure function of."""

    size: int = setting(stage="name", help="people in the universe", check=lambda v: v >= 1, expected="at least 1")
    seed: int = setting(
        stage="name", help="the seed every draw comes from", check=lambda v: v >= 0, expected="at least 0"
    )
    depth: int = setting(
        20,
        stage="name",
        help="the question grammar's depth",
        check=lambda v: 4 <= v <= 40,
        expected="between 4 and 40 (the grammar needs 4; 20 is the paper's)",
    )
    friendship_degree: float = setting(
        3.0,
        stage="universe",
        help="average number of friends a person has",
        check=lambda v: 0 <= v <= 100,
        expected="between 0 and 100",
    )
    max_tree_size: int = setting(
        50, stage="universe", help="most people in one family tree", check=lambda v: v >= 1, expected="at least 1"
    )
    max_tree_depth: int = setting(
        20,
        stage="universe",
        help="most generations below a tree's founders",
        check=lambda v: 1 <= v <= 40,
        expected="between 1 and 40 (a tree spans at most max_tree_depth + 1 generations, as in v1)",
    )
    max_children: int = setting(
        5, stage="universe", help="most children a couple has", check=lambda v: v >= 1, expected="at least 1"
    )
    questions_per_template: int = setting(
        10,
        stage="questions",
        help="questions sampled from each question template",
        check=lambda v: v >= 0,
        expected="at least 0",
    )
    easy_mode: bool = setting(
        False,
        stage="questions",
        help="use only the difficulty-1 relations (parent, child, sibling, spouse, friend and their gendered forms)",
    )
    places: bool = setting(
        True,
        stage="universe",
        help="give half the people a place of birth, a city of residence and a school (False: articles as before "
        "0.8.0)",
    )
    instance_layout: str = setting(
        "fixed",
        stage="instances",
        help="fixed: between instance_documents_min and instance_documents documents a row; ablation: 0/20/40/60/80 "
        "distractors",
        check=lambda v: v in LAYOUTS,
        expected=f"one of {', '.join(LAYOUTS)}",
    )
    instance_documents: int = setting(
        32,
        stage="instances",
        help="most documents in an instance of the fixed layout (evidence plus distractors)",
        check=lambda v: v >= 0,
        expected="at least 0",
    )
    instance_documents_min: int = setting(
        16,
        stage="instances",
        help="fewest documents in an instance of the fixed layout: each row draws its count in between",
        check=lambda v: v >= 0,
        expected="at least 0 (instance_documents when above it)",
    )
    insufficient: str = setting(
        "by_role",
        stage="instances",
        help="by_role: one insufficient instance per role of the missing article (anchor, answer, bridge, dead end); "
        "all: one per required article",
        check=lambda v: v in INSUFFICIENT,
        expected=f"one of {', '.join(INSUFFICIENT)}",
    )
    max_evidence: int = setting(
        32,
        stage="instances",
        help="questions needing more articles than this get no instances",
        check=lambda v: v >= 1,
        expected="at least 1",
    )
    attribute_questions: bool = setting(
        False,
        stage="instances",
        help="also make instances of questions that start from an attribute value (closed world)",
    )
    unanswerable: int = setting(
        1,
        stage="instances",
        help="unanswerable variants of each kind per question family (0: none, and no premise controls)",
        check=lambda v: 0 <= v <= 10,
        expected="between 0 and 10 variants of each kind per question",
    )
    distractors: str = setting(
        "hard",
        stage="instances",
        help="hard: BM25 neighbours of the question and evidence; easy: seeded random articles",
        check=lambda v: v in DISTRACTORS,
        expected=f"one of {', '.join(DISTRACTORS)}",
    )
    document_format: str = setting(
        "markdown",
        stage="instances",
        help="how documents are shown",
        check=lambda v: v in FORMATS,
        expected=f"one of {', '.join(FORMATS)}",
    )
    retrieval_k: int = setting(
        4,
        stage="instances",
        help="articles BM25 retrieves for each question of the rag subset (the paper's 4)",
        check=lambda v: v >= 1,
        expected="at least 1",
    )
    rag_rows: str = setting(
        "balanced",
        stage="instances",
        help="balanced: within each difficulty and premise wording as many rag rows to answer as to refuse (so a "
        "question's length never tells the label); all: every row, as the paper's RAG setting",
        check=lambda v: v in RAG_ROWS,
        expected=f"one of {', '.join(RAG_ROWS)}",
    )
    retriever: str = setting(
        "bm25plus",
        stage="instances",
        help="the BM25 engine: ours (BM25+, the bm25s library's scores bit for bit), or the slow pure-Python reference "
        "rank_bm25 ('bm25s', its name until 0.8.0, still means ours)",
        check=lambda v: v in RETRIEVERS,
        expected=f"one of {', '.join(RETRIEVERS)}",
    )
    context_tokens: int = setting(
        0,
        stage="instances",
        help="fill each instance's documents with distractors up to this many tokens, never above (0: off; lengths 1K "
        "to 128K and beyond, up to what the universe holds)",
        check=lambda v: v == 0 or v >= MIN_CONTEXT_TOKENS,
        expected=f"0 (off) or at least {MIN_CONTEXT_TOKENS} tokens of documents",
    )
    evidence_position: str = setting(
        "random",
        stage="instances",
        help="where a long instance's evidence sits: random (shuffled), spread (evenly apart) or a depth from 0 to 1 "
        "(the share of distractor tokens before it)",
        check=lambda v: v in POSITIONS or canonical_depth(v) == v,
        expected="random, spread, or a depth between 0 and 1 such as 0.25 (the share of distractor tokens before "
        "the evidence)",
    )
    tokenizer: str = setting(
        "",
        stage="instances",
        help="count tokens exactly with this transformers tokenizer (a name in the local cache or a folder; nothing "
        "is downloaded); empty: the estimate, one token per 3 characters",
        check=lambda v: v == v.strip() and "\n" not in v,
        expected="a tokenizer's name or folder (transformers, files on this machine), or empty for the estimate",
    )

    @property
    def long_context(self) -> bool:
        """Whether instance rows are filled to a token length (and carry the long-context fields)."""
        return self.context_tokens > 0

    def validate(self) -> Settings:
        """Raise ConfigError naming the first value out of range."""
        for name, (ok, expected) in ranges(type(self)).items():
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


def ranges(settings: type[Settings] = Settings) -> dict[str, tuple[Callable[[Any], bool], str]]:
    """Each setting with a range: the check, and the words the error (and `python -m phantom_wiki list`) use."""
    return {f.name: (f.metadata["check"], f.metadata["expected"]) for f in fields(settings) if f.metadata["check"]}


RANGES = ranges()


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
    match, subset = NameGrammar(_NAME, SUBSETS, DEFAULT_SUBSET, "configuration name", GRAMMAR, EXAMPLES).match(
        name, ConfigError
    )
    depth = int(match.group("depth")) if match.group("depth") else Settings.depth
    return int(match.group("size")), depth, int(match.group("seed")), subset


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
    check_knobs(name, named, knobs, set(Settings.knobs()) | set(named), ConfigError, "setting")
    values: dict[str, Any] = {**{k: v for k, v in knobs.items() if k not in named}, **named}
    if values.get("retriever") == RENAMED_RETRIEVER:
        warnings.warn(
            f"retriever={RENAMED_RETRIEVER!r} is now called {RETRIEVERS[0]!r} (our BM25+, not the bm25s library)",
            DeprecationWarning,
            stacklevel=2,
        )
        values["retriever"] = RETRIEVERS[0]
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
