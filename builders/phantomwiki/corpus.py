"""The articles of one generated universe and who names whom: titles and positions, texts, the reader's compiled
articles (on first use), the articles naming a person and the holders of an attribute value (both from the universe,
which is what the articles state)."""

from __future__ import annotations

from collections.abc import Sequence

from .articles import read_article
from .questions import Question
from .reading import CompiledArticle, Names, Reading, compile_article
from .solver import parse_literal
from .stages import Generated
from .universe import Universe


class Corpus:
    """One configuration's articles, read on demand, with the universe's index of who names whom."""

    def __init__(self, generated: Generated) -> None:
        self.universe: Universe = generated.universe
        self.titles = [article.title for article in generated.articles]
        self.texts = {article.title: article.article for article in generated.articles}
        self.position = {title: i for i, title in enumerate(self.titles)}
        self.names = Names()
        self._compiled: dict[str, CompiledArticle] = {}  # compiled on first use: instances touch few articles
        self._naming: dict[str, list[str]] = {}  # name -> titles of the articles naming them (see `naming`)

    def compiled(self, title: str) -> CompiledArticle:
        """The reader's facts of one article, read from its text."""
        found = self._compiled.get(title)
        if found is None:
            found = self._compiled[title] = compile_article(self.names, title, read_article(self.texts[title]))
        return found

    def reading(self, titles: Sequence[str]) -> Reading:
        """The reader's view of the articles `titles`."""
        return Reading((self.compiled(title) for title in titles), self.names)

    def naming(self, name: str) -> list[str]:
        """Titles of the articles whose family or friend sentences name `name`.

        Taken from the universe, not by reading every article: write_article states each family and friend link in
        the articles of both people it links (siblings, parent / child, spouses, friends), so they are the articles
        of that person's own siblings, parents, children, spouses and friends. A test holds this equal to reading
        every article.
        """
        found = self._naming.get(name)
        if found is not None:
            return found
        universe = self.universe
        person = universe.ids.get(name)
        if person is None:
            return []
        parents, children = universe.parents[person], universe.children[person]
        linked = {sibling for parent in parents for sibling in universe.children[parent]}  # and the person
        linked.update(spouse for child in children for spouse in universe.parents[child])
        linked.update(parents, children, universe.friends[person])
        linked.discard(person)
        found = self._naming[name] = [universe.names[other] for other in sorted(linked)]
        return found

    def mentions(self, name: str, titles: Sequence[str]) -> int:
        """How many of the articles `titles` name `name` in a family or friend list."""
        shown = set(titles)
        return sum(title in shown for title in self.naming(name))

    def holding(self, attribute: str, value: str) -> list[str]:
        """Titles of the articles stating that their subject's `attribute` is `value` (from the universe too)."""
        universe = self.universe
        return [universe.names[person] for person in universe.holders(attribute, value)]

    def start_holders(self, question: Question) -> list[str]:
        """Titles of the holders of the value a question starts from ("the person whose job is ..."), [] for a question
        that starts from a named person."""
        first = parse_literal(question.query[-1])
        return self.holding(first.predicate, first.source.strip()[1:-1]) if first.inverse else []
