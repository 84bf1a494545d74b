"""A question's distractor pool: articles outside its evidence that can change no derivation, the BM25 neighbours of
the question and its evidence texts ("hard") or seeded random ones ("easy"), best first."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..retrieval import Bm25Index, top_k
from ..rng import below, shuffled, stream
from .config import Settings
from .corpus import Corpus
from .questions import Question
from .reading import linked_component


class DistractorPool:
    """The BM25 index over every article and the distractors it ranks for each question."""

    def __init__(self, corpus: Corpus, settings: Settings) -> None:
        self.corpus = corpus
        self.settings = settings
        self._index: Bm25Index | None = None
        self._scores: np.ndarray | None = None  # BM25 scores of the question last asked, by title position
        self._scores_key: str | None = None
        self._token_ids: dict[str, np.ndarray] = {}  # title -> its text's BM25 token ids

    @property
    def index(self) -> Bm25Index:
        """The BM25 index over every article's markdown text (built on first use)."""
        if self._index is None:
            texts = self.corpus.texts
            self._index = Bm25Index([texts[t] for t in self.corpus.titles], engine=self.settings.retriever)
        return self._index

    @index.setter
    def index(self, index: Bm25Index) -> None:
        """Use an index built elsewhere over the same articles (cli/forked_rows.build_index: in another process)."""
        self._index = index

    def _query_scores(self, question: Question, evidence: Sequence[str]) -> np.ndarray:
        """BM25 scores of the question's text with its evidence texts (the "hard" distractors' query), the texts'
        token ids taken once per article."""
        texts = self.corpus.texts
        if self.index.engine != "bm25plus":
            return self.index.scores("\n".join([question.question] + [texts[t] for t in evidence]))
        parts = [self.index.token_ids(question.question)]
        for title in evidence:
            ids = self._token_ids.get(title)
            if ids is None:
                ids = self._token_ids[title] = self.index.token_ids(texts[title])
            parts.append(ids)
        return self.index.scores_of(np.concatenate(parts))

    def candidates(self, question: Question, evidence: Sequence[str], wanted: int, banned: set[str]) -> list[str]:
        """The first `wanted` distractor candidates (titles outside `evidence` and `banned`), best first."""
        titles = self.corpus.titles
        outside = set(evidence) | banned
        wanted = min(wanted, len(titles) - len(outside))
        if wanted <= 0:
            return []
        if self.settings.distractors == "hard":
            key = question.id
            if self._scores is None or self._scores_key != key:
                self._scores, self._scores_key = self._query_scores(question, evidence), key
            position = self.corpus.position
            skip = [position[t] for t in outside]
            return [titles[i] for i in top_k(self._scores, wanted, skip)]
        rng = stream(self.settings.seed, "distractors", question.id)
        if wanted * 4 >= len(titles) - len(outside):
            return shuffled(rng, [t for t in titles if t not in outside])[:wanted]
        taken: list[str] = []
        seen = set(outside)
        while len(taken) < wanted:
            title = titles[below(rng, len(titles))]
            if title not in seen:
                seen.add(title)
                taken.append(title)
        return taken

    def distractors(self, question: Question, evidence: list[str], need: int) -> list[str]:
        """`need` distractors (fewer if the corpus runs out), best first, none of which can change a derivation.

        Every derivation walks from the question's start people along parent, sibling, spouse and
        friend facts, and every fact of an article touches its subject or someone linked to it. So an
        article whose subject lies outside the start people's connected component in the reading of
        evidence + distractors cannot add or restore any answer, with the full evidence or with any
        article missing (removing articles only shrinks the component). Articles of people the
        evidence names are never candidates; candidates inside the component are skipped for every
        instance of the question and the next ones take their place, until none is inside.
        """
        if need <= 0:
            return []
        corpus = self.corpus
        # Known to fall inside: the people the evidence's component holds, whoever names one of them,
        # and (for "the person whose job is ...") everyone else holding that value.
        own = corpus.reading(evidence)
        names = own.names.names
        starts = own.starts(question.query)  # the same with any distractor: a holder of the value is never one
        linked = {names[p] for p in own.component(starts)}
        banned = {t for t in linked if t in corpus.position}
        for name in linked:
            banned.update(corpus.naming(name))
        banned.update(corpus.start_holders(question))
        banned -= set(evidence)
        while True:
            chosen = self.candidates(question, evidence, need, banned)
            reached = linked_component((corpus.compiled(t) for t in [*evidence, *chosen]), starts)
            inside = {t for t in chosen if corpus.compiled(t).subject in reached}
            if not inside:
                return chosen
            banned |= inside
