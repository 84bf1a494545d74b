"""The stages before rows: settings -> universe -> articles -> templates -> questions (with answers and evidence)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..rng import below, stream
from .articles import Article, write_article
from .budget import check as check_memory
from .config import Settings
from .family import Families, birth_dates, generate_families
from .friends import generate_friendships
from .kinship import Kinship
from .questions import Question, sample_questions
from .relations import places as relation_places
from .templates import generate_templates
from .universe import Universe, build_universe
from .vocabulary import Vocabulary, load_vocabulary

Progress = Callable[[str], None]


@dataclass
class Generated:
    """A universe with its articles and questions, and the wall time of each stage run so far, in seconds (a stage
    has run exactly when its name is in `timings`)."""

    settings: Settings
    universe: Universe
    articles: list[Article]
    questions: list[Question]
    timings: dict[str, float] = field(default_factory=dict)
    # What later stages derive from this universe once and share between subsets (rows.shared_evidence).
    derived: dict[str, object] = field(default_factory=dict, repr=False, compare=False)
    progress: Progress | None = field(default=None, repr=False, compare=False)  # told as each later stage begins


@contextmanager
def timed(timings: dict[str, float], stage: str, progress: Progress | None) -> Iterator[None]:
    """Run a stage: tell `progress` it begins, and record its wall time in `timings`."""
    if progress:
        progress(stage)
    start = time.perf_counter()
    yield
    timings[stage] = time.perf_counter() - start


def generate_universe(settings: Settings) -> Universe:
    """People, family trees, friendships and attributes: a pure function of the settings."""
    vocab = load_vocabulary()
    families: Families = generate_families(
        settings.size, settings.seed, settings.max_tree_size, settings.max_tree_depth, settings.max_children, vocab
    )
    rng = stream(settings.seed, "attributes")
    jobs = [vocab.jobs[below(rng, len(vocab.jobs))] for _ in range(settings.size)]
    hobbies = [vocab.hobbies[below(rng, len(vocab.hobbies))] for _ in range(settings.size)]
    return build_universe(
        names=families.names,
        female=families.female,
        parent_edges=families.parent_edges,
        friend_edges=generate_friendships(settings.size, settings.friendship_degree, settings.seed),
        dob=birth_dates(families),
        job=jobs,
        hobby=hobbies,
        places=draw_places(settings, vocab) if settings.places else None,
    )


def draw_places(settings: Settings, vocab: Vocabulary) -> dict[str, list[str | None]]:
    """Each place of data/places.tsv for a share of people (drawn per universe within its range), from its own
    stream, so the other stages draw what they drew before places existed."""
    out: dict[str, list[str | None]] = {}
    for place in relation_places().values():
        rng = stream(settings.seed, "places", place.name)
        values: tuple[str, ...] = getattr(vocab, place.values.removesuffix(".txt"))
        share = place.low + (place.high - place.low) * rng.random()
        out[place.name] = [
            values[below(rng, len(values))] if rng.random() < share else None for _ in range(settings.size)
        ]
    return out


def generate(
    settings: Settings, with_questions: bool = True, with_articles: bool = True, progress: Progress | None = None
) -> Generated:
    """Run the stages a subset needs; each stage takes the previous stage's plain objects (refused up front when the
    machine cannot hold them: budget.py). `progress` is told each stage's name as it begins."""
    check_memory(settings)
    timings: dict[str, float] = {}
    with timed(timings, "universe", progress):
        universe = generate_universe(settings)
    generated = Generated(settings, universe, [], [], timings, progress=progress)
    complete(generated, with_questions, with_articles)
    return generated


def complete(generated: Generated, with_questions: bool = True, with_articles: bool = True) -> Generated:
    """Add the articles and questions `generated` lacks (so several subsets of one universe share its stages)."""
    settings, universe, timings, progress = (
        generated.settings,
        generated.universe,
        generated.timings,
        generated.progress,
    )
    if with_articles and "articles" not in timings:
        with timed(timings, "articles", progress):
            generated.articles = [write_article(universe, person) for person in range(len(universe))]
    if with_questions and "questions" not in timings:
        with timed(timings, "questions", progress):
            generated.questions = sample_questions(
                generate_templates(settings.depth),
                Kinship(universe),
                settings.seed,
                settings.questions_per_template,
                settings.easy_mode,
            )
    return generated
