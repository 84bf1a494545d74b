"""The labeller of one configuration: each question's checked required set, its forms (the question, its
unanswerable variants and their true-premise controls) and what the rows of a form show (a Case), and whether some
articles prove a form's answer (the most careful reader, required.provable).

The guards live here: every required set is checked against the rule, the text reader and the lenient reader, and a
narrowed question against its premise; each failure is a RuntimeError that stops generation.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..rng import shuffled
from .config import Settings
from .corpus import Corpus
from .kinship import Kinship
from .questions import Question
from .relations import relation_bank
from .required import (
    RequiredSets,
    Shown,
    closed_world_statement,
    consulted,
    provable,
    proven,
    relation_premise,
    starts_from_attribute,
)
from .solver import Solver, parse_literal
from .variants import Form, FormMaker, plain_form


@dataclass(frozen=True)
class Case:
    """One form of a question with what its rows show: the articles that answer it and those a row may leave out."""

    form: Form
    required: tuple[str, ...]  # the articles that prove its answer (and confirm its premise), sorted
    shown: tuple[str, ...]  # what its rows show of them: the required set and the person its premise names, sorted
    missable: dict[str, str]  # title -> role (required.ROLES) of each article whose absence leaves it unanswerable


def _count_map(solver: Solver, kinship: Kinship, query: list[str]) -> dict[str, int]:
    """Person -> true count for every person a count query reaches (on the generator's universe)."""
    outer = parse_literal(query[0])
    if len(query) == 1:
        reached = [outer.source.strip().strip("\"'")]
    else:
        reached = solver.solve(query[1:], outer.source).answers
    ids = kinship.universe.ids
    return {name: len(kinship.targets(outer.predicate, ids[name])) for name in reached if name in ids}


class Labeller:
    """Required sets, forms and cases of one configuration's questions, each computed once and checked."""

    def __init__(self, corpus: Corpus, settings: Settings) -> None:
        self.corpus = corpus
        self.settings = settings
        self.kinship = Kinship(corpus.universe)
        self.solver = Solver(self.kinship)
        self.required_sets = RequiredSets(corpus.universe)
        self.form_maker = FormMaker(self.kinship, self.solver, settings.seed, relation_bank(settings.easy_mode))
        self._walks: dict[str, tuple[set[int], list[str]]] = {}  # question id -> (required set, answers by the rule)
        self._sufficient: dict[str, list[str] | None] = {}  # question id -> its checked required set (or None)
        self._variants: dict[str, list[Form]] = {}
        self._cases: dict[tuple[str, str], Case | None] = {}  # (question id, form key) -> its case
        self._role_tables: dict[tuple[tuple[str, ...], bool], dict[str, str]] = {}  # (query, start is anchor) -> roles
        self._open: dict[tuple[str, str, str], bool] = {}  # (question id, form key, missing title) -> leaves_open
        self._closed_worlds: dict[str, str] = {}  # question id -> its closed-world sentence (each row shows it)

    def truth(self, question: Question) -> dict[str, int] | None:
        """The true per-person counts of a count question, None for other questions."""
        return _count_map(self.solver, self.kinship, question.query) if question.is_aggregation_question else None

    def derives(self, question: Question, titles: Sequence[str], truth: dict[str, int] | None) -> bool:
        """True when the articles `titles` alone let the reader give exactly the gold answer."""
        reading = self.corpus.reading(titles)
        if question.is_aggregation_question:
            return reading.counts(question.query) == truth
        return reading.answers(question.query, question.answer_variable) == question.answer

    def _walk(self, question: Question) -> tuple[set[int], list[str]]:
        """(required set, answers by the rule) of a question, walked once (see required.py)."""
        found = self._walks.get(question.id)
        if found is None:
            found = self._walks[question.id] = self.required_sets.walk(question.query)
        return found

    def required(self, question: Question) -> list[str]:
        """The question's required set as sorted titles."""
        names = self.kinship.universe.names
        return sorted(names[person] for person in self._walk(question)[0])

    def sufficient_set(self, question: Question) -> list[str] | None:
        """The required set, checked (None above max_evidence).

        Guards, each a RuntimeError that stops generation: the rule evaluated on the universe gives the
        solver's answer; the text reader, by the rule, proves exactly the gold answer from the required
        articles and nothing without any one of them; the lenient reader derives the gold answer too.
        """
        if question.id in self._sufficient:
            return self._sufficient[question.id]
        answers = self._walk(question)[1]
        required = self.required(question)
        within = len(required) <= self.settings.max_evidence
        if within:
            self._check(question, answers, required)
        found = self._sufficient[question.id] = required if within else None
        return found

    def _check(self, question: Question, answers: list[str], required: list[str]) -> None:
        compiled = self.corpus.compiled
        holders = self.required_sets.holders(question.query)
        shown = Shown.of((compiled(t) for t in required), self.corpus.names)
        problem = None
        if answers != question.answer:
            problem = f"the rule gives {answers} on the universe, the solver {question.answer}"
        elif proven(shown, question.query, holders) != question.answer:
            problem = "its required articles do not prove its answer"
        elif not self.derives(question, required, self.truth(question)):
            problem = "the lenient reader does not derive its answer from its required articles"
        else:
            needed = consulted(shown, question.query, holders)  # without any other, the answer is proven still
            proving = [t for t in required if compiled(t).subject not in needed]
            if proving:
                problem = f"its answer is proven without the article of {proving[0]}"
        if problem:
            raise RuntimeError(f"question {question.id} ({question.question!r}): {problem}")

    def variants(self, question: Question) -> list[Form]:
        """The unanswerable variants of a question with a sufficient set (call sufficient_set first)."""
        found = self._variants.get(question.id)
        if found is None:
            found = self._variants[question.id] = self.form_maker.variants(
                question.id,
                question.question,
                question.query,
                question.answer,
                self._walk(question)[0],
                self.settings.unanswerable,
            )
        return found

    def control(self, question: Question, kind: str, rng: random.Random) -> Form:
        """A form of the question worded as the variants of `kind` are, with a true premise (or the plain question)."""
        return self.form_maker.control(kind, rng, question.id, question.question, question.query, question.answer)

    def case(self, question: Question, form: Form) -> Case | None:
        """What the rows of one form of a question show: None when its required set is above max_evidence."""
        key = (question.id, form.key)
        if key in self._cases:
            return self._cases[key]
        found: tuple[list[str], dict[str, str]] | None
        if form.query == tuple(question.query):  # the question, an attribute or place premise, a variant
            required = self.sufficient_set(question)
            found = None if required is None else (required, self._roles(question.query))
        else:  # a confirmed relation premise names one person: the question narrowed to them
            found = self._narrowed(question, form)
        case = None
        if found is not None:
            required, missable = found
            shown = sorted(set(required) | ({form.named} if form.named else set()))
            case = Case(form, tuple(required), tuple(shown), missable)
        self._cases[key] = case
        return case

    def _roles(self, query: Sequence[str], start_is_anchor: bool = True) -> dict[str, str]:
        """Title -> role of each article of a query's required set (required.ROLES)."""
        key = (tuple(query), start_is_anchor)
        found = self._role_tables.get(key)
        if found is None:
            names = self.kinship.universe.names
            roles = self.required_sets.roles(query, start_is_anchor)
            found = self._role_tables[key] = {names[p]: role for p, role in roles.items()}
        return dict(found)

    def _narrowed(self, question: Question, form: Form) -> tuple[list[str], dict[str, str]] | None:
        """(required titles, missable title -> role) of a question narrowed by a confirmed relation premise.

        The documents must confirm the premise (a path of the relation from the anchor to the named person, each step
        read from the stepping person's own article) and prove the narrowed question's answer by the rule. Its
        required set: the whole relation walk from the anchor (so every row can also refute a false one) and the
        narrowed question's own required set. An article is missable when, without it, the documents no longer
        confirm the premise or prove the answer: the anchor, every article on all of the premise's paths, and the
        narrowed question's required articles (guards, each a RuntimeError, hold these).
        """
        names = self.kinship.universe.names
        rest_read, rest_answers = self.required_sets.walk(form.query)
        premise_read = self.required_sets.walk([question.query[-1]])[0]
        required = sorted(names[p] for p in rest_read | premise_read)
        if len(required) > self.settings.max_evidence:
            return None
        inner = parse_literal(question.query[-1])
        anchor = inner.source.strip()[1:-1]
        shown = Shown.of((self.corpus.compiled(t) for t in required), self.corpus.names)
        ids = self.corpus.names.ids
        subject, other = ids[anchor], ids[form.named]  # both articles are among `required`
        narrowed = replace(question, query=list(form.query), answer=list(form.answer))
        problem = None
        if rest_answers != list(form.answer):
            problem = f"the rule gives {rest_answers} on the universe, the solver {list(form.answer)}"
        elif relation_premise(shown, inner.predicate, subject, other) is not True:
            problem = "its articles do not confirm its premise"
        elif proven(shown, form.query) != list(form.answer):
            problem = "its articles do not prove its answer"
        elif not self.derives(narrowed, required, self.truth(narrowed)):
            problem = "the lenient reader does not derive its answer from its articles"
        if problem:
            raise RuntimeError(f"question {question.id} narrowed to {form.named}: {problem}")
        missable = self._roles(form.query, start_is_anchor=False)
        for person in sorted(premise_read - rest_read):
            missable[names[person]] = "bridge"  # kept below only where the premise then goes unconfirmed
        missable[anchor] = "anchor"
        return required, missable

    def leaves_open(self, question: Question, case: Case, missing: str) -> bool:
        """Whether a case's articles without `missing` leave its form of the question unproven for the most careful
        reader: the one condition under which a row without `missing` may be labelled insufficient (once a title)."""
        key = (question.id, case.form.key, missing)
        found = self._open.get(key)
        if found is None:
            found = self._open[key] = self.proof(question, case.form, [t for t in case.shown if t != missing]) is None
        return found

    def open_missing(self, question: Question, case: Case, role: str, rng: random.Random) -> str | None:
        """An article of `role` whose absence leaves the case unproven (leaves_open), drawn at random; None if none."""
        for title in shuffled(rng, sorted(t for t, r in case.missable.items() if r == role)):
            if self.leaves_open(question, case, title):
                return title
        return None

    def proof(self, question: Question, form: Form, titles: Sequence[str]) -> list[str] | None:
        """The answer the articles `titles` prove for a form of a question, as the most careful reader reads them
        (required.provable: genders and relation premises from any article, in either direction; each list from its
        person's own article), or None. Facts are true, so a proof gives the form's answer (held: a RuntimeError)."""
        names = self.corpus.names
        articles = [self.corpus.compiled(t) for t in titles]
        if form.named:  # a relation premise: confirmed by any path of shown facts
            inner = parse_literal(question.query[-1])
            subject, other = names.ids[inner.source.strip()[1:-1]], names.ids[form.named]
            if relation_premise(Shown.of(articles, names), inner.predicate, subject, other) is not True:
                return None
        found = provable(articles, names, form.query, self.required_sets.holders(form.query))
        if found is not None and found != list(form.answer):
            raise RuntimeError(f"question {question.id}: its documents prove {found}, not {list(form.answer)}")
        return found

    def proves(self, question: Question, form: Form, titles: Sequence[str]) -> bool:
        """Whether the articles `titles` answer a form of a question (the rag label): they confirm its premise and
        prove its answer."""
        return self.proof(question, form, titles) is not None

    def plain(self, question: Question) -> Form:
        """The question as it is worded."""
        return plain_form(question.question, question.query, question.answer)

    def has_family(self, question: Question) -> bool:
        """Whether a question has unanswerable variants: it starts from a named person and has a sufficient set."""
        if starts_from_attribute(question.query):
            return False
        return self.sufficient_set(question) is not None

    def closed_world(self, question: Question) -> str:
        """The closed-world sentence an attribute-start question is shown with ("" for a person-start one), made once a
        question."""
        found = self._closed_worlds.get(question.id)
        if found is None:
            found = self._closed_worlds[question.id] = closed_world_statement(self.kinship.universe, question.query)
        return found
