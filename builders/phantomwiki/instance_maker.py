"""Evidence: one configuration's instance maker, composed of its parts, each holding its own caches: the corpus (who
names whom), the labeller (required sets, forms, cases), the distractor pool (BM25), the shown documents (rendering
and token costs) and the option maker (multiple choice)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .config import Settings
from .corpus import Corpus
from .distractor_pool import DistractorPool
from .documents import Documents
from .labeller import Case, Labeller
from .options import OptionMaker, asked
from .relations import relation_bank
from .siblings import Siblings
from .stages import Generated


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
        siblings = Siblings(self.labels.kinship, bank, self.settings.max_evidence)
        self.option_maker = OptionMaker(self.corpus.universe, siblings, self.settings.seed, counts)
        self.rag_kept: set[str] | None = None  # the ids of the rag rows a balanced subset keeps (rag_balanced)
        self.rag_every: list[tuple[tuple[object, ...], dict]] | None = None  # every rag row with its cell, once

    def options(self, case: Case, titles: Sequence[str], key: str, drawn: Sequence[str] = ()) -> list[str]:
        """A row's multiple-choice options, made from what its documents `titles` state (options.py): the gold answer
        first where they state it, then decoys, "Unanswerable" last (the row shuffles them). `drawn`: the query of
        the question as it was drawn (its forms may narrow it)."""
        ids = self.corpus.universe.ids
        form = case.form
        shown = [ids[t] for t in titles if t in ids]
        return self.option_maker.options(key, form.query, form.answer, shown, drawn)

    def decoy_articles(
        self,
        case: Case,
        key: str,
        titles: Sequence[str],
        room: int,
        keeps_open: Callable[[list[str]], bool],
        missing: str = "",
        drawn: Sequence[str] = (),
    ) -> list[str]:
        """Articles (at most `room`) that state and prove a row's decoys as its own articles state and prove the gold:
        for each decoy its options would take, in their order (OptionMaker.ordered), the articles of its sibling
        question's required set the documents `titles` lack but the row's `missing` one (it lacks what the gold lacks),
        where they fit and `keeps_open` holds with them (an insufficient row still proves no answer)."""
        ids, names = self.corpus.universe.ids, self.corpus.universe.names
        form = case.form
        shown = [ids[t] for t in titles if t in ids]
        _, wanted = self.option_maker.ordered(key, form.query, form.answer, drawn)
        wanted += not self.option_maker.stated(shown, asked(form.query)).issuperset(form.answer)
        taken: list[str] = []
        for people in self.option_maker.needed(key, form.query, form.answer, shown, drawn):
            if wanted <= 0:
                break
            extra = [names[p] for p in people if names[p] not in taken and names[p] != missing]
            if len(taken) + len(extra) > room or (extra and not keeps_open([*titles, *taken, *extra])):
                continue
            taken += extra
            wanted -= 1
        return taken
