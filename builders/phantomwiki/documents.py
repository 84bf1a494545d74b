"""Documents as a row shows them: each article's text in the configured format, and for long rows its tokens (counted
once), the token count of a joined prompt and a question's distractor tiers (long_context.py)."""

from __future__ import annotations

from collections.abc import Sequence

from ..evidence import render
from ..tokens import SEPARATOR, Counter, TokenizerError, counter
from .config import ConfigError, Settings
from .corpus import Corpus
from .long_context import Costs, Tiers, family_trees
from .questions import Question


class Documents:
    """The rendered documents of one configuration and what long rows measure of them."""

    def __init__(self, corpus: Corpus, settings: Settings) -> None:
        self.corpus = corpus
        self.settings = settings
        self._rendered: dict[str, str] = {}  # title -> its document text (long rows render each article once)
        self._costs: dict[str, int] | None = None  # title -> tokens of its document (long rows)
        self._trees: tuple[list[int], dict[int, list[int]]] | None = None  # (person -> tree, tree -> people)

    def document(self, title: str) -> dict[str, str]:
        """One document as the instance shows it: title and text in the configured format."""
        return {"title": title, "text": self.rendered(title)}

    def rendered(self, title: str) -> str:
        """The text of one document in the configured format."""
        found = self._rendered.get(title)
        if found is None:
            found = render(self.corpus.texts[title], self.settings.document_format)
            if self.settings.long_context:
                self._rendered[title] = found
        return found

    @property
    def counter(self) -> Counter:
        """What counts tokens: the `tokenizer` setting's (a one-line ConfigError when it cannot be loaded)."""
        try:
            return counter(self.settings.tokenizer)
        except TokenizerError as error:
            raise ConfigError(str(error)) from None

    @property
    def costs(self) -> Costs:
        """The tokens of every document as a prompt shows it (stripped), counted once, and of a separator."""
        if self._costs is None:
            titles = self.corpus.titles
            texts = [self.rendered(title).strip() for title in titles]
            self._costs = dict(zip(titles, self.counter.counts(texts)))
        return Costs(self._costs.__getitem__, self.counter.count(SEPARATOR))

    def measure(self, titles: Sequence[str]) -> int:
        """The tokens of documents `titles` exactly as a prompt joins them."""
        return self.counter.documents([self.rendered(title) for title in titles])

    def tiers(self, question: Question, named: Sequence[str], pool: Sequence[str]) -> Tiers:
        """A question's long-row distractor tiers (long_context.py): `pool`, then the articles of the people the
        question touches and their families, then every other article; none of `named` or, for a question that
        starts from an attribute value, of its holders."""
        corpus = self.corpus
        universe = corpus.universe
        if self._trees is None:
            self._trees = (family_trees(universe), {})
        tree_of, members = self._trees
        if not members:
            for person, root in enumerate(tree_of):
                members.setdefault(root, []).append(person)
        reading = corpus.reading(named)
        reached = reading.component(reading.starts(question.query))
        people = {universe.ids[n] for n in (reading.names.names[p] for p in reached) if n in universe.ids}
        touching = {universe.names[p] for p in people}
        for person in people:
            touching.update(corpus.naming(universe.names[person]))
        for root in {tree_of[p] for p in people}:
            touching.update(universe.names[p] for p in members[root])
        skip = set(named) | set(corpus.start_holders(question))
        hard = tuple(t for t in pool if t not in skip)
        skip.update(hard)
        family = tuple(t for t in corpus.titles if t in touching and t not in skip)
        rest = tuple(t for t in corpus.titles if t not in touching and t not in skip)
        return Tiers(hard, family, rest)
