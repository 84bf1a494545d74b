"""Evidence: one configuration's instance maker, composed of its parts, each holding its own caches: the corpus (who
names whom), the labeller (required sets, forms, cases), the distractor pool (BM25), the shown documents (rendering
and token costs) and the option maker (multiple choice)."""

from __future__ import annotations

from collections.abc import Sequence

from .config import Settings
from .corpus import Corpus
from .distractor_pool import DistractorPool
from .documents import Documents
from .labeller import Case, Labeller
from .options import OptionMaker
from .relations import relation_bank
from .stages import Generated
from .variants import named_people


class Evidence:
    """Per-configuration state: parsed articles, who states what, the labels, the BM25 index and the documents."""

    def __init__(self, generated: Generated, settings: Settings | None = None) -> None:
        self.settings = settings or generated.settings
        self.corpus = Corpus(generated)
        self.labels = Labeller(self.corpus, self.settings)
        self.pool = DistractorPool(self.corpus, self.settings)
        self.documents = Documents(self.corpus, self.settings)
        counts = [q.answer for q in generated.questions if q.is_aggregation_question]
        bank = relation_bank(self.settings.easy_mode)
        self.option_maker = OptionMaker(self.labels.kinship, self.labels.solver, self.settings.seed, bank, counts)
        self.rag_kept: set[str] | None = None  # the ids of the rag rows a balanced subset keeps (rag_balanced)
        self.rag_every: list[tuple[tuple[object, ...], dict]] | None = None  # every rag row with its cell, once

    def options(self, case: Case, titles: Sequence[str], key: str) -> list[str]:
        """A row's multiple-choice options, made from what its documents `titles` state (options.py): the gold answer
        first where they state it, then decoys, "Unanswerable" last (the row shuffles them)."""
        ids = self.corpus.universe.ids
        form = case.form
        shown = [ids[t] for t in titles if t in ids]
        return self.option_maker.options(key, form.query, form.answer, shown, named_people(form.question))
