"""A universe as an endless source of verifiable questions: reasoning-gym's dataset interface and a TRL reward.

    from leakproof_qa.phantom_env.rl import PhantomWikiDataset, score_answer, reward
    data = PhantomWikiDataset("n500_d10_s1", seed=7, size=1000)     # or PhantomWikiDataset.level(3, seed=7, size=1000)
    entry = data[0]          # {"question": ..., "answer": "Ann Lee, Bo Li", "metadata": {...}}
    score_answer("Ann Lee, Bo Li", entry)   # 1.0

Item `i` is a pure function of the universe's settings, the dataset seed and `i`: a template drawn from the
item's own seeded stream, filled backwards from a random person along real edges (as the generator samples
questions) and solved exactly. Its metadata holds the answers, the Prolog query, the hop count, the required
articles (builders/phantomwiki/required.py) and, when the dataset asks for distractors, the documents to show:
the required articles and that many other seeded articles, in a seeded order. A question that starts from an
attribute value carries its closed-world sentence in front of it.

Universes that rotate: with `universe_every=N`, items `b*N .. b*N+N-1` come from block b's own universe, of the
configuration's shape with a seed drawn from the dataset's stream for block b (at least ROTATED_SEEDS, so never a
universe named with a smaller seed, like the s1..s32 one evaluates on). A stream of 100,000 items then meets
100,000 / N universes, and a policy cannot learn one universe's people. Universes are made on first use and kept in
a small LRU cache bounded by worlds and by people; blocks, not a hash of i, pick universes, so items read in order
build each universe once.
"""

from __future__ import annotations

import operator
import sys
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from pathlib import Path
from typing import Any, overload

from leakproof_qa.builders import tsv
from leakproof_qa.builders.metrics import DEFLECTION, answer_scores, is_deflection, read_response
from leakproof_qa.builders.phantomwiki.config import ConfigError, format_name, parse_universe, settings_from
from leakproof_qa.builders.phantomwiki.kinship import Kinship
from leakproof_qa.builders.phantomwiki.questions import difficulty, fill_template, render
from leakproof_qa.builders.phantomwiki.relations import relation_bank
from leakproof_qa.builders.phantomwiki.required import RequiredSets, closed_world_statement
from leakproof_qa.builders.phantomwiki.rows import Generated, complete, generate
from leakproof_qa.builders.phantomwiki.solver import Solver
from leakproof_qa.builders.phantomwiki.templates import Template, generate_templates
from leakproof_qa.builders.rng import below, shuffled, stream

CURRICULUM_FILE = Path(__file__).with_name("data") / "curriculum.tsv"
ATTEMPTS = 1000  # draws before an item gives up (a universe too small for any template's shape)
ROTATED_SEEDS = 1_000_000  # rotated universes have seeds from here on (hand-picked evaluation seeds sit below)
ROTATED_SPAN = 10**12  # ... and below ROTATED_SEEDS + ROTATED_SPAN
WORLDS_KEPT = 8  # universes the LRU cache keeps at most ...
PEOPLE_KEPT = 200_000  # ... and people across them at most (the newest universe is kept whatever its size)


@dataclass(frozen=True)
class Level:
    """One curriculum level: a universe shape and how many distractor articles stand beside the required ones."""

    level: int
    size: int
    depth: int
    easy_mode: bool
    distractors: int

    def config(self, universe_seed: int) -> str:
        """The universe's configuration name at this level."""
        return format_name(self.size, self.depth, universe_seed)


@lru_cache(maxsize=1)
def curriculum() -> tuple[Level, ...]:
    """The curriculum levels, easiest first (data/curriculum.tsv)."""
    return tuple(
        Level(int(level), int(size), int(depth), easy == "yes", int(distractors))
        for level, size, depth, easy, distractors in tsv.rows(CURRICULUM_FILE)
    )


@dataclass(frozen=True)
class _World:
    """What items of one universe are drawn from, built once per (configuration, easy mode)."""

    generated: Generated
    kinship: Kinship
    solver: Solver
    required: RequiredSets
    templates: tuple[Template, ...]

    @cached_property
    def texts(self) -> dict[str, str]:
        """Each article's text by title, written on first use (only items with distractors show documents)."""
        complete(self.generated, with_questions=False, with_articles=True)
        return {a.title: a.article for a in self.generated.articles}


@cache
def _templates(depth: int) -> tuple[Template, ...]:
    return tuple(generate_templates(depth))


_WORLDS: OrderedDict[tuple[str, bool], _World] = OrderedDict()
_WORLDS_LOCK = threading.Lock()


def _world(config: str, easy_mode: bool) -> _World:
    """The universe's world from the LRU cache, made on a miss; the cache then drops its least recently used worlds
    while it holds more than WORLDS_KEPT of them or PEOPLE_KEPT people."""
    key = (config, easy_mode)
    with _WORLDS_LOCK:
        if key in _WORLDS:
            _WORLDS.move_to_end(key)
            return _WORLDS[key]
    settings = settings_from(config, easy_mode=easy_mode)[0]
    generated = generate(settings, with_questions=False, with_articles=False)
    kinship = Kinship(generated.universe)
    world = _World(generated, kinship, Solver(kinship), RequiredSets(generated.universe), _templates(settings.depth))
    with _WORLDS_LOCK:
        _WORLDS[key] = world
        people = sum(len(w.generated.universe) for w in _WORLDS.values())
        while len(_WORLDS) > 1 and (len(_WORLDS) > WORLDS_KEPT or people > PEOPLE_KEPT):
            _, dropped = _WORLDS.popitem(last=False)
            people -= len(dropped.generated.universe)
    return world


def cached_universes() -> list[str]:
    """The universes the cache holds now, least recently used first (for tests and benchmarks)."""
    with _WORLDS_LOCK:
        return [config for config, _ in _WORLDS]


def _whole(name: str, value: Any, minimum: int, maximum: int = sys.maxsize) -> int:
    """An integer argument (a bool is refused, as `seed=True` would silently mean 1), or a one-line ConfigError."""
    try:
        number = operator.index(value) if not isinstance(value, bool) else None
    except TypeError:
        number = None
    if number is None:
        raise ConfigError(f"{name} must be a whole number, got {value!r} ({type(value).__name__})")
    if not minimum <= number <= maximum:
        raise ConfigError(f"{name}={number} must be from {minimum} to {maximum}")
    return number


class PhantomWikiDataset:
    """`size` verifiable questions over one universe, indexable and iterable; item i depends on (settings, seed, i)
    only."""

    def __init__(
        self,
        config: str = "n500_d10_s1",
        seed: int = 0,
        size: int = 500,
        distractors: int = 0,
        easy_mode: bool = False,
        level: int | None = None,
        universe_every: int | None = None,
    ) -> None:
        self.seed, self.size = _whole("seed", seed, 0), _whole("size", size, 0)
        self.distractors = _whole("distractors", distractors, 0)
        self.universe_every = None if universe_every is None else _whole("universe_every", universe_every, 1)
        if not isinstance(easy_mode, bool):
            raise ConfigError(f"easy_mode must be True or False, got {easy_mode!r}")
        if not isinstance(config, str):
            raise ConfigError(f"config must be a universe name such as n500_s1, got {config!r}")
        parse_universe(config, "PhantomWikiDataset")
        settings = settings_from(config, easy_mode=easy_mode)[0]
        self.config, self.easy_mode, self.level_number = config, easy_mode, level
        self.settings = settings

    @classmethod
    def level(
        cls, level: int, seed: int = 0, size: int = 500, universe_seed: int = 1, universe_every: int | None = None
    ) -> PhantomWikiDataset:
        """The dataset of one curriculum level (1 = easiest)."""
        levels = {entry.level: entry for entry in curriculum()}
        if isinstance(level, bool) or level not in levels:
            raise ConfigError(
                f"curriculum level {level!r} does not exist; the levels are {', '.join(map(str, levels))}"
            )
        entry = levels[level]
        universe = entry.config(_whole("universe_seed", universe_seed, 0))
        return cls(universe, seed, size, entry.distractors, entry.easy_mode, level, universe_every)

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self[i] for i in range(self.size))

    def universe_of(self, index: int) -> str:
        """The configuration name of the universe item `index` comes from (the dataset's own without rotation)."""
        return format_name(self.settings.size, self.settings.depth, self._universe_seed(self._index(index)))

    def _universe_seed(self, position: int) -> int:
        if self.universe_every is None:
            return self.settings.seed
        block = position // self.universe_every
        return ROTATED_SEEDS + below(stream(self.settings.seed, "rl-universe", self.seed, block), ROTATED_SPAN)

    def _index(self, index: Any) -> int:
        """A position as Python's sequences read it (negative from the end), or a one-line IndexError/TypeError."""
        if isinstance(index, bool) or not hasattr(index, "__index__"):
            raise TypeError(f"dataset indices must be integers or slices, not {type(index).__name__} ({index!r})")
        position = operator.index(index)
        if not -self.size <= position < self.size:
            raise IndexError(f"item {position} is outside this dataset of {self.size} items")
        return position + self.size if position < 0 else position

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [self[i] for i in range(self.size)[index]]
        index = self._index(index)
        universe_seed = self._universe_seed(index)
        config = self.config if self.universe_every is None else self.universe_of(index)
        world = _world(config, self.easy_mode)
        universe = world.generated.universe
        bank = relation_bank(self.easy_mode)
        rng = stream(universe_seed, "rl", self.seed, index)
        for _ in range(ATTEMPTS):
            template = world.templates[below(rng, len(world.templates))]
            filled = fill_template(template, rng, world.kinship, bank)
            if filled is not None:
                break
        else:
            raise ConfigError(f"{config} is too small to fill any question template; choose a larger universe")
        text, query = render(template, filled)
        answers = world.solver.solve(query, template.answer).answers
        required = world.required.titles(query)
        closed_world = closed_world_statement(universe, query)
        titles = required
        if self.distractors:
            taken, chosen = set(required), list[str]()
            wanted = min(self.distractors, len(universe) - len(required))
            while len(chosen) < wanted:
                name = universe.names[below(rng, len(universe))]
                if name not in taken:
                    taken.add(name)
                    chosen.append(name)
            titles = shuffled(rng, required + chosen)
        return {
            "question": " ".join(part for part in (closed_world, text) if part),
            "answer": ", ".join(answers),
            "metadata": {
                "source_dataset": "phantom_wiki",
                "universe": config,
                "seed": self.seed,
                "index": index,
                "level": self.level_number,
                "answers": answers,
                "query": query,
                "answer_variable": template.answer,
                "template": template.text,
                "hops": template.hops,
                "difficulty": difficulty(query),
                "required_titles": required,
                "closed_world": closed_world,
                "documents": [{"title": t, "text": world.texts[t]} for t in titles] if self.distractors else [],
            },
        }

    def score_answer(self, answer: str | None, entry: Mapping[str, Any]) -> float:
        """`score_answer` as a method, as reasoning-gym datasets have it."""
        return score_answer(answer, entry)


RIGHT_ENTRY = (
    "give {'answer': 'Ann Lee, Bo Li'} (or a list of names), or metadata {'answers': ['Ann Lee', 'Bo Li']}, "
    "as PhantomWikiDataset's items hold"
)


def _gold(entry: Any, where: str = "score_answer's entry") -> list[str]:
    """The gold answers of an entry: its metadata's `answers`, else its `answer` (a string of names split at commas,
    or a list of names); a malformed entry is a one-line ValueError saying what is missing and what would be right."""
    if not isinstance(entry, Mapping):
        shown = "None" if entry is None else f"a {type(entry).__name__}"
        raise ValueError(f"{where} is {shown}, not a mapping; {RIGHT_ENTRY}")
    metadata = entry.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        raise ValueError(f"{where}'s metadata is a {type(metadata).__name__}, not a mapping; {RIGHT_ENTRY}")
    if "answers" in metadata:
        return _names(metadata["answers"], f"{where}'s metadata['answers']")
    if "answer" not in entry:
        raise ValueError(f"{where} has no 'answer' (nor metadata['answers']); {RIGHT_ENTRY}")
    answer = entry["answer"]
    if isinstance(answer, str):
        return [part.strip() for part in answer.split(",")]
    return _names(answer, f"{where}'s 'answer'")


def _names(value: Any, where: str) -> list[str]:
    """`value` as a list of names, or a one-line ValueError when it is not a list (or tuple) of strings."""
    if not isinstance(value, (list, tuple)) or not all(isinstance(name, str) for name in value):
        shown = "None" if value is None else f"a {type(value).__name__}"
        shown = "a list with a non-string in it" if isinstance(value, (list, tuple)) else shown
        raise ValueError(f"{where} is {shown}, not a list of names; {RIGHT_ENTRY}")
    return list(value)


def score_answer(answer: Any, entry: Mapping[str, Any]) -> float:
    """The reward of one answer in [0, 1]: answer-set F1 as the paper scores it, deflection rules as builders.metrics.

    The answer is read as lm-eval's tasks read responses (reasoning up to `</think>` dropped, the last `Answer:`
    line if any); a TRL conversational completion (a list of messages, or of text parts) is read as its text. A
    gold deflection scores 1 for a deflection and 0 for anything else; declining a question that has an answer
    scores 0. Any string scores, however long or strange; an entry without gold answers is a one-line ValueError.
    """
    gold = _gold(entry)  # a malformed entry is refused whatever the answer
    if answer is None:
        return 0.0
    read = read_response(_completion_text(answer))["answer"]
    if gold == [DEFLECTION]:
        return float(is_deflection(read))
    if is_deflection(read):
        return 0.0
    return answer_scores(read, gold)["f1"]


def _text_of(content: Any) -> str:
    """A message's content as text: a string, or the text parts of a list of parts joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence) and not isinstance(content, (bytes, bytearray)):
        return "".join(
            str(part.get("text") or "") if isinstance(part, Mapping) else str(part)
            for part in content
            if not isinstance(part, Mapping) or part.get("type", "text") == "text"
        )
    return "" if content is None else str(content)


def _completion_text(completion: Any) -> str:
    """A TRL completion as text: a string (standard format), the last message of a conversation (its content a string
    or text parts), or a list of text parts."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return _text_of(completion.get("content", completion.get("text")))
    last = completion[-1] if isinstance(completion, Sequence) and completion else None
    if isinstance(last, Mapping) and ("role" in last or "content" in last):
        return _text_of(last.get("content"))
    return _text_of(completion)


def reward(
    completions: Sequence[Any],
    answer: Sequence[Any] | None = None,
    metadata: Sequence[Any] | None = None,
    **columns: Any,
) -> list[float]:
    """A reward function with the signature TRL's GRPOTrainer calls: `reward(completions=..., **dataset_columns)`.

    The dataset's `answer` column (and, when present, `metadata`) gives the gold answers of each completion; the
    columns are one entry per completion, as TRL passes them (a lone string is refused, not read letter by letter;
    a row without a gold answer is refused in one line naming the row).
    """
    if answer is None:
        raise ValueError("reward needs the dataset's `answer` column (TRL passes every column by name)")
    for name, column in (("completions", completions), ("answer", answer), ("metadata", metadata)):
        if column is not None and (isinstance(column, (str, bytes, Mapping)) or not isinstance(column, Sequence)):
            raise ValueError(
                f"reward's {name} is a {type(column).__name__}; give a list with one entry per completion "
                f"(e.g. completions=[text], answer=[gold])"
            )
    if len(answer) != len(completions) or (metadata is not None and len(metadata) != len(completions)):
        sizes = f"{len(completions)} completions, {len(answer)} answers" + (
            f", {len(metadata)} metadata" if metadata is not None else ""
        )
        raise ValueError(f"reward's columns do not line up: {sizes}; give one entry of each per completion")
    rewards = []
    for index, completion in enumerate(completions):
        row_metadata = metadata[index] if metadata is not None else None
        entry = {"answer": answer[index], "metadata": row_metadata if isinstance(row_metadata, Mapping) else {}}
        _gold(entry, f"reward's row {index}")  # a malformed row is refused in reward's own words
        rewards.append(score_answer(completion, entry))
    return rewards
