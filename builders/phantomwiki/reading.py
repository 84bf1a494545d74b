"""A careful reader: what a set of articles lets one derive, and nothing more.

The reader turns article sentences into facts, with these inferences only:
  sister/brother(X, Y)   -> sibling(X, Y), sibling(Y, X), gender(Y)
  mother/father(X, M)    -> parent(X, M), gender(M)
  son/daughter(X, C)     -> parent(C, X), gender(C)
  wife/husband(X, S)     -> married(X, S), married(S, X), gender(S)
  friend(X, F)           -> friend(X, F), friend(F, X)
  dob / job / hobby / gender sentences -> that attribute of X.
Relations are the v1 rules (data/relations.tsv) with two extensions: sibling(X, Y) holds when stated
or when X and Y share a known parent, and married(X, Y) when stated or when they share a known
child (X != Y). Each "P C neq" step pair of a path (a parent's other child) becomes one sibling step
and each "C P neq" pair (a child's other parent) one married step. A gender filter on a person whose
gender no present sentence states or implies fails. Every derivation is therefore true of the
universe, and adding articles never removes one (derivability is monotone in the article set).

This is the lenient reader: it uses every sentence of every article it is given. The `instances`
labels follow a stricter rule (required.py: a person's own article is the complete source of their
lists); the lenient reader is the generator's guard on them, since it must derive exactly the gold
answer from every required set:
  * a Who/What question is answered iff re-solving it over the reader's facts gives exactly the
    gold answer set (the reader's answers are always a subset of the gold set);
  * a count question "How many R does Z have?" needs, for every person z the question reaches,
    z's own article (only it can tell the reader a list is complete) and count(R(z, .)) over the
    reader's facts equal to the true count; `Reading.counts` gives these per-person counts
    (None when some z has no article).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial

from .articles import read_article
from .paths import StepReader, walk
from .relations import NOT_NODE, TO_CHILD, TO_FRIEND, TO_PARENT, attributes, relations
from .solver import Literal, parse_literal

TO_SIBLING, TO_SPOUSE = 10, 11
_ATTRIBUTES = frozenset(attributes()) - {"gender"}  # dob, job, hobby and the places
Statement = tuple[str, str, str]

GENDER_OF_OBJECT = {
    "sister": "female",
    "brother": "male",
    "mother": "female",
    "father": "male",
    "son": "male",
    "daughter": "female",
    "wife": "female",
    "husband": "male",
}


def reader_steps(steps: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """A relation path rewritten for the reader: "P C neq" -> sibling, "C P neq" -> married, node indices renumbered."""
    out: list[tuple[int, int]] = []
    new_index = {0: 0}  # old node index -> new node index
    old_nodes, new_nodes = 0, 0
    i = 0
    while i < len(steps):
        op, arg = steps[i]
        pair = steps[i : i + 3]
        if (
            len(pair) == 3
            and pair[2][0] == NOT_NODE
            and pair[2][1] == old_nodes
            and (op, pair[1][0]) in ((TO_PARENT, TO_CHILD), (TO_CHILD, TO_PARENT))
        ):
            out.append((TO_SIBLING if op == TO_PARENT else TO_SPOUSE, 0))
            old_nodes += 2
            new_nodes += 1
            new_index[old_nodes] = new_nodes
            i += 3
            continue
        if op in (TO_PARENT, TO_CHILD, TO_FRIEND):
            old_nodes += 1
            new_nodes += 1
            new_index[old_nodes] = new_nodes
            out.append((op, 0))
        elif op == NOT_NODE:
            if arg not in new_index:
                raise ValueError(f"relation path refers to node {arg}, which the reader's path does not keep")
            out.append((NOT_NODE, new_index[arg]))
        else:
            out.append((op, arg))
        i += 1
    return tuple(out)


@lru_cache(maxsize=1)
def reader_paths() -> dict[str, tuple[tuple[int, int], ...]]:
    """Every relation's path rewritten for the reader, by name."""
    return {name: reader_steps(rel.steps) for name, rel in relations().items()}


def article_statements(text: str) -> tuple[str, list[Statement]]:
    """(title, statements) of one article's markdown text."""
    return text.splitlines()[0][2:], read_article(text)


class Names:
    """A shared name <-> id table, so compiled articles can be merged without re-reading names."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.names: list[str] = []

    def id(self, name: str) -> int:
        """The id of `name`, assigned on first sight."""
        found = self.ids.get(name)
        if found is None:
            found = self.ids[name] = len(self.names)
            self.names.append(name)
        return found


@dataclass(frozen=True)
class CompiledArticle:
    """One article's facts with the reader's inferences applied, grouped by kind, people as Names ids."""

    subject: int
    parents: tuple[tuple[int, int], ...]  # (child, parent)
    siblings: tuple[tuple[int, int], ...]
    spouses: tuple[tuple[int, int], ...]
    friends: tuple[tuple[int, int], ...]
    genders: tuple[tuple[int, str], ...]
    attributes: tuple[tuple[tuple[int, str], str], ...]  # ((person, attribute), value)


def compile_article(names: Names, title: str, statements: Sequence[Statement]) -> CompiledArticle:
    """The facts an article's statements give the reader."""
    parents: list[tuple[int, int]] = []
    siblings: list[tuple[int, int]] = []
    spouses: list[tuple[int, int]] = []
    friends: list[tuple[int, int]] = []
    genders: list[tuple[int, str]] = []
    attrs: list[tuple[tuple[int, str], str]] = []
    person = names.id
    for predicate, subject, obj in statements:
        x = person(subject)
        if predicate in _ATTRIBUTES:
            attrs.append(((x, predicate), obj))
        elif predicate == "gender":
            genders.append((x, obj))
        elif predicate == "friend":
            friends.append((x, person(obj)))
        else:
            y = person(obj)
            genders.append((y, GENDER_OF_OBJECT[predicate]))
            if predicate in ("sister", "brother"):
                siblings.append((x, y))
            elif predicate in ("mother", "father"):
                parents.append((x, y))
            elif predicate in ("son", "daughter"):
                parents.append((y, x))
            else:
                spouses.append((x, y))
    return CompiledArticle(
        person(title), tuple(parents), tuple(siblings), tuple(spouses), tuple(friends), tuple(genders), tuple(attrs)
    )


def linked_component(articles: Iterable[CompiledArticle], people: Iterable[int]) -> set[int]:
    """Everyone the articles link to `people` by any parent, sibling, spouse or friend fact: Reading.component's set,
    without the rest of a Reading (the distractor check asks it for many article sets)."""
    links: dict[int, list[int]] = defaultdict(list)
    for article in articles:
        for x, y in (*article.parents, *article.siblings, *article.spouses, *article.friends):
            if x != y:
                links[x].append(y)
                links[y].append(x)
    seen = set(people)
    todo = list(seen)
    while todo:
        for other in links.get(todo.pop(), ()):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


@lru_cache(maxsize=4096)
def parsed_query(query: tuple[str, ...]) -> tuple[Literal, ...]:
    """The literals of a chain query, innermost first."""
    return tuple(parse_literal(text) for text in reversed(query))


def _unquote(term: str) -> str:
    return term.strip()[1:-1]


class _Lists(dict):
    """A person's list of one kind: nobody listed is an empty list, and looking is a C-level call in the walker."""

    def __missing__(self, person: int) -> tuple[int, ...]:
        return ()


def _both_ways(table: dict[int, set[int]], pairs: Iterable[tuple[int, int]]) -> None:
    """Record each pair of distinct people in both directions (siblings, spouses and friends are mutual)."""
    for x, y in pairs:
        if x != y:
            table[x].add(y)
            table[y].add(x)


def _joined_by(
    stated: dict[int, set[int]], up: dict[int, set[int]], down: dict[int, set[int]], person: int
) -> set[int]:
    """The people `stated` pairs with `person`, and those who share one of the person's `up` with them (their `down`):
    siblings (stated, or children of a parent) or spouses (stated, or parents of a child)."""
    found = set(stated.get(person, ()))
    for between in up.get(person, ()):
        found.update(down[between])
    found.discard(person)
    return found


class Reading:
    """The facts a set of articles states (with the inferences above) and the answers they derive."""

    def __init__(self, articles: Iterable[CompiledArticle], names: Names) -> None:
        self.names = names
        self.with_article: set[int] = set()
        self.own: dict[int, CompiledArticle] = {}  # each subject's own article: the complete source of their lists
        parents: dict[int, set[int]] = defaultdict(set)
        children: dict[int, set[int]] = defaultdict(set)
        siblings: dict[int, set[int]] = defaultdict(set)
        spouses: dict[int, set[int]] = defaultdict(set)
        friends: dict[int, set[int]] = defaultdict(set)
        gender: dict[int, str] = {}
        attrs: dict[tuple[int, str], str] = {}
        for article in articles:
            self.with_article.add(article.subject)
            self.own[article.subject] = article
            for child, parent in article.parents:
                parents[child].add(parent)
                children[parent].add(child)
            _both_ways(siblings, article.siblings)
            _both_ways(spouses, article.spouses)
            _both_ways(friends, article.friends)
            gender.update(article.genders)
            attrs.update(article.attributes)
        self.parents, self.children, self.friends = parents, children, friends
        self._siblings, self._spouses = siblings, spouses
        self.gender = gender
        self.attributes = attrs
        self._holders: dict[tuple[str, str], set[int]] = {}
        self._cache: dict[tuple[str, int], frozenset[int]] = {}
        self._reader: StepReader | None = None  # how the walker reads a step here (made on first use)

    @classmethod
    def from_texts(cls, texts: Iterable[str], names: Names | None = None) -> Reading:
        """The reading of article texts (markdown, as write_article writes them)."""
        names = names or Names()
        return cls((compile_article(names, *article_statements(text)) for text in texts), names)

    def sibling_set(self, person: int) -> set[int]:
        """Stated siblings plus the other children of known parents."""
        return _joined_by(self._siblings, self.parents, self.children, person)

    def spouse_set(self, person: int) -> set[int]:
        """Stated spouses plus the other parents of known children."""
        return _joined_by(self._spouses, self.children, self.parents, person)

    def targets(self, rel: str, person: int) -> frozenset[int]:
        """Distinct Y with rel(person, Y) derivable from the reader's facts."""
        key = (rel, person)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = frozenset(path[-1] for path in self._paths(rel, person))
        return found

    def _paths(self, rel: str, person: int) -> list[tuple[int, ...]]:
        if self._reader is None:
            gender = self.gender
            # the moves hold the tables, not this reading: a reading that held itself would be freed only by the
            # cyclic collector (every reading that walks a path, a collection's worth of garbage every few rows)
            parents, children = self.parents, self.children
            moves: dict[int, Callable[[int], Iterable[int]]] = {
                TO_PARENT: _Lists(parents).__getitem__,
                TO_CHILD: _Lists(children).__getitem__,
                TO_FRIEND: _Lists(self.friends).__getitem__,
                TO_SIBLING: partial(_joined_by, self._siblings, parents, children),
                TO_SPOUSE: partial(_joined_by, self._spouses, children, parents),
            }
            self._reader = StepReader(moves, lambda told: gender.get)
        return walk(self._reader, reader_paths()[rel], person)

    def holders(self, attribute: str, value: str) -> set[int]:
        """People the reader knows to have `attribute` = `value`."""
        key = (attribute, value)
        found = self._holders.get(key)
        if found is None:
            if attribute == "gender":
                found = {person for person, known in self.gender.items() if known == value}
            else:
                found = {
                    person for (person, name), known in self.attributes.items() if name == attribute and known == value
                }
            self._holders[key] = found
        return found

    def _frontier(self, literals: Sequence[Literal]) -> set:
        """Values of the outermost variable of a chain of literals (innermost first)."""
        values: set = set()
        for index, lit in enumerate(literals):
            if index == 0:
                values = self._start(lit)
                if lit.inverse:
                    continue
            elif lit.inverse or lit.kind == "count":
                raise ValueError(
                    f"{lit.predicate}: only the innermost literal may start from a value, only the outermost count"
                )
            if lit.kind == "relation":
                values = set().union(*(self.targets(lit.predicate, v) for v in values)) if values else set()
            elif lit.kind == "attribute" and not lit.inverse:
                found = (
                    self.gender.get(v) if lit.predicate == "gender" else self.attributes.get((v, lit.predicate))
                    for v in values
                )
                values = {f for f in found if f is not None}
        return values

    def _start(self, lit: Literal) -> set[int]:
        """The people an innermost literal starts from: the named person, or the holders of the value."""
        constant = _unquote(lit.source)
        if lit.inverse:
            return set(self.holders(lit.predicate, constant))
        person = self.names.ids.get(constant)
        return {person} if person is not None else set()

    def starts(self, query: Sequence[str]) -> set[int]:
        """The people a query's innermost literal starts from in this reading."""
        return self._start(parsed_query(tuple(query))[0])

    def component(self, people: Iterable[int]) -> set[int]:
        """Everyone linked to `people` by any parent, sibling, spouse or friend fact; no derivation leaves it."""
        seen = set(people)
        todo = list(seen)
        tables = (self.parents, self.children, self._siblings, self._spouses, self.friends)
        while todo:
            person = todo.pop()
            for table in tables:
                for other in table.get(person, ()):
                    if other not in seen:
                        seen.add(other)
                        todo.append(other)
        return seen

    def counts(self, query: Sequence[str]) -> dict[str, int] | None:
        """For a count query: person -> count for every person the inner query reaches; None if one lacks an article."""
        literals = parsed_query(tuple(query))
        outer = literals[-1]
        if outer.kind != "count":
            raise ValueError(f"not a count query: {query[0]!r}")
        reached = self._start(outer) if len(literals) == 1 else self._frontier(literals[:-1])
        out = {}
        for person in reached:
            if person not in self.with_article:
                return None
            out[self.names.names[person]] = len(self.targets(outer.predicate, person))
        return out

    def answers(self, query: Sequence[str], answer_variable: str) -> list[str] | None:
        """The answers the articles derive, sorted as the gold answers are; None for an undeterminable count."""
        literals = parsed_query(tuple(query))
        last = literals[-1]
        if last.target != answer_variable:
            raise ValueError(f"answer variable {answer_variable} is not the query's outermost output ({last.target})")
        if last.kind == "count":
            counts = self.counts(query)
            return None if counts is None else [str(c) for c in sorted(set(counts.values()))]
        values = self._frontier(literals)
        if last.kind == "attribute" and not last.inverse:
            return sorted(values)
        return sorted(self.names.names[v] for v in values)
