"""One pass from settings to rows: universe -> articles -> templates -> questions (with answers and evidence)."""

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
from .instances import Evidence, build_instances, build_rag
from .kinship import Kinship
from .prolog import program_text
from .questions import Question, sample_questions
from .templates import generate_templates
from .universe import Universe, build_universe
from .vocabulary import load_vocabulary

Progress = Callable[[str], None]


@dataclass
class Generated:
    """A universe with its articles and questions, and the wall time of each stage in seconds."""

    settings: Settings
    universe: Universe
    articles: list[Article]
    questions: list[Question]
    timings: dict[str, float] = field(default_factory=dict)
    evidence: Evidence | None = field(default=None, repr=False, compare=False)  # built once for instances and rag

    def evidence_index(self) -> Evidence:
        """The parsed articles and BM25 index that the `instances` and `rag` subsets share."""
        if self.evidence is None:
            self.evidence = Evidence(self)
        return self.evidence


@contextmanager
def _timed(timings: dict[str, float], stage: str, progress: Progress | None) -> Iterator[None]:
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
    )


def generate(settings: Settings, with_questions: bool = True, with_articles: bool = True,
             progress: Progress | None = None) -> Generated:
    """Run the stages a subset needs; each stage takes the previous stage's plain objects (refused up front when the
    machine cannot hold them: budget.py)."""
    check_memory(settings)
    timings: dict[str, float] = {}
    with _timed(timings, "universe", progress):
        universe = generate_universe(settings)
    articles: list[Article] = []
    if with_articles:
        with _timed(timings, "articles", progress):
            articles = [write_article(universe, person) for person in range(len(universe))]
    questions: list[Question] = []
    if with_questions:
        with _timed(timings, "questions", progress):
            questions = sample_questions(
                generate_templates(settings.depth), Kinship(universe), settings.seed,
                settings.questions_per_template, settings.easy_mode,
            )
    return Generated(settings, universe, articles, questions, timings)


def question_rows(generated: Generated) -> Iterator[dict]:
    """Rows of the `questions` subset."""
    for q in generated.questions:
        yield {
            "id": q.id,
            "question": q.question,
            "answer": q.answer,
            "prolog": {"query": q.query, "answer": q.answer_variable},
            "template": q.template,
            "type": q.type,
            "difficulty": q.difficulty,
            "is_aggregation_question": q.is_aggregation_question,
            "evidence": q.evidence,
        }


def corpus_rows(generated: Generated) -> Iterator[dict]:
    """Rows of the `corpus` subset: title, article, and the facts it states."""
    for article in generated.articles:
        yield {"title": article.title, "article": article.article, "facts": article.facts}


def database_rows(generated: Generated) -> Iterator[dict]:
    """The one row of the `database` subset: the universe as a Prolog program (v1 form)."""
    yield {"content": program_text(generated.universe)}


def instance_rows(generated: Generated) -> Iterator[dict]:
    """Rows of the `instances` subset: sufficient / insufficient evidence with distractors, per question."""
    yield from build_instances(generated, evidence=generated.evidence_index())


def rag_rows(generated: Generated) -> Iterator[dict]:
    """Rows of the `rag` subset: each question with its BM25 top-k articles and whether they suffice."""
    yield from build_rag(generated, evidence=generated.evidence_index())


def needs(subset: str) -> tuple[bool, bool]:
    """(with_questions, with_articles) that `subset` needs."""
    both = subset in ("instances", "rag")
    return subset == "questions" or both, subset == "corpus" or both


ROWS = {
    "questions": question_rows,
    "corpus": corpus_rows,
    "database": database_rows,
    "instances": instance_rows,
    "rag": rag_rows,
}
