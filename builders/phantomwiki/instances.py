"""Evidence instances: sufficient / insufficient article sets a reader can tell apart, with distractors; and BM25 RAG.

The labels follow one rule (builders/phantomwiki/required.py, stated in the README and the prompts): a
person's own article is the complete source of their family, friends and attributes, and a question
needs the article of everyone whose lists or attributes it reads, hop by hop from its anchor, dead ends
included: its required set. A question's family of rows (spec/validity.md: only reading tells the labels apart):
  * one sufficient row: the whole required set (plus distractors); the answer computed from the documents is the
    gold answer and provably complete. As a guard, the lenient reader of builders/phantomwiki/reading.py (which
    also uses every other sentence) must derive exactly the gold answer from the required set, or generation stops;
  * insufficient rows: by default one per role of missing article that the question has (`missing_role`: the
    anchor, an answer's fact, a bridge on a path to an answer, a dead end; required.ROLES), the article drawn among
    those of that role; `insufficient="all"` gives one per required article. Gold answer DEFLECTION;
  * unanswerable variants (variants.py): a false or unknowable premise, or a person who does not exist;
  * the wording of each sufficient and insufficient row is drawn like the variants' wordings: a true-premise control
    for each false-premise kind (a named relative, the person's own occupation, place, ...) or the plain question,
    so that a premise in the question says nothing about the label until the documents are read;
  * questions starting from an attribute value ("the person whose hobby is tango") are decidable only
    in a closed world: with `attribute_questions=True` they get instances whose required set holds every
    holder of the value and whose `closed_world` sentence says how many there are; by default they
    are left out of `instances` (they stay in `questions` and `rag`);
  * distractors: articles outside the set, the BM25 neighbours of the question plus its evidence
    texts ("hard") or seeded random ones ("easy"). An article joined by any family or friend fact
    to the people the question reaches is never a distractor (see `Evidence.distractors`);
  * every row draws its own distractors from the question's pool and its own document order, so no two rows share
    a document list; layouts (builders/evidence.py): "fixed" = a number of documents drawn per row in
    [instance_documents_min, instance_documents], "ablation" = 0/20/40/60/80 distractors (each level a prefix of
    the next, per row); levels above what the corpus holds are left out;
  * questions whose required set holds more than `max_evidence` articles get no instances (a question
    needing 300 articles would give 300 instances of 300 documents each);
  * `instance_id` is a digest: it names no label; the rows of a question come in a seeded order.

RAG (`rag` subset): the BM25 top-k articles of the question text over the whole corpus (k = 4, the
paper's), in rank order; sufficient exactly when they hold the question's whole required set. Each family with
unanswerable variants also has one control per premise variant, worded alike, with its own retrieval.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..evidence import ABLATION_LEVELS, citations, render
from ..metrics import DEFLECTION
from ..retrieval import Bm25Index, top_k
from ..rng import below, pick, shuffled, stream
from ..tokens import SEPARATOR, Counter, TokenizerError, counter
from .articles import read_article
from .config import ConfigError, Settings, universe_name
from .kinship import Kinship
from .long_context import Costs, Tiers, evidence_depth, family_trees, fill, place
from .options import UNANSWERABLE, OptionMaker
from .questions import Question
from .reading import CompiledArticle, Names, Reading, compile_article, linked_component
from .relations import relation_bank
from .required import (
    ROLES,
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
from .stages import Generated
from .variants import PLAIN, Form, FormMaker, named_people, plain_form

POOL_SLACK = 8  # distractor candidates beyond the most a row takes, so rows draw different ones
SHADOW_ROOM = 3  # documents a family's fewest leaves for a row's shadow (Evidence.shadow) above its own articles
WORDINGS_TRIED = 4  # wordings drawn for an insufficient row before the plain one (a role none can miss is skipped)
REDRAWS = 20  # draws of a row's distractors before a document list another row of its question shows is accepted


def _count_map(solver: Solver, kinship: Kinship, query: list[str]) -> dict[str, int]:
    """Person -> true count for every person a count query reaches (on the generator's universe)."""
    outer = parse_literal(query[0])
    if len(query) == 1:
        reached = [outer.source.strip().strip("\"'")]
    else:
        reached = solver.solve(query[1:], outer.source).answers
    ids = kinship.universe.ids
    return {name: len(kinship.targets(outer.predicate, ids[name])) for name in reached if name in ids}


class Evidence:
    """Per-configuration state: parsed articles, who states what, the true counts and the BM25 index."""

    def __init__(self, generated: Generated, settings: Settings | None = None) -> None:
        self.settings = settings or generated.settings
        self.titles = [article.title for article in generated.articles]
        self.texts = {article.title: article.article for article in generated.articles}
        self.position = {title: i for i, title in enumerate(self.titles)}
        self.names = Names()
        self._compiled: dict[str, CompiledArticle] = {}  # compiled on first use: instances touch few articles
        self.kinship = Kinship(generated.universe)
        self.solver = Solver(self.kinship)
        self.required_sets = RequiredSets(generated.universe)
        bank = relation_bank(self.settings.easy_mode)
        self.form_maker = FormMaker(self.kinship, self.solver, self.settings.seed, bank)
        counts = [q.answer for q in generated.questions if q.is_aggregation_question]
        self.option_maker = OptionMaker(self.kinship, self.solver, self.settings.seed, bank, counts)
        self._cases: dict[tuple[str, str], Case | None] = {}  # (question id, form key) -> its case
        self._role_tables: dict[tuple[tuple[str, ...], bool], dict[str, str]] = {}  # (query, start is anchor) -> roles
        self._walks: dict[str, tuple[set[int], list[str]]] = {}  # question id -> (required set, answers by the rule)
        self._naming: dict[str, list[str]] = {}  # name -> titles of the articles naming them (see `naming`)
        self._sufficient: dict[str, list[str] | None] = {}  # question id -> its checked required set (or None)
        self._variants: dict[str, list[Form]] = {}
        self._index: Bm25Index | None = None
        self._scores: np.ndarray | None = None  # BM25 scores of the question last asked, by title position
        self._scores_key: str | None = None
        self._token_ids: dict[str, np.ndarray] = {}  # title -> its text's BM25 token ids
        self._rendered: dict[str, str] = {}  # title -> its document text (long rows render each article once)
        self._costs: dict[str, int] | None = None  # title -> tokens of its document (long rows)
        self._trees: tuple[list[int], dict[int, list[int]]] | None = None  # (person -> tree, tree -> people)
        self._open: dict[tuple[str, str, str], bool] = {}  # (question id, form key, missing title) -> leaves_open
        self.rag_kept: set[str] | None = None
        self.rag_every: list[tuple[tuple[object, ...], dict]] | None = (
            None  # every rag row with its cell, once  # the ids of the rag rows a balanced subset keeps (rag_balanced)
        )

    @property
    def index(self) -> Bm25Index:
        """The BM25 index over every article's markdown text (built on first use)."""
        if self._index is None:
            self._index = Bm25Index([self.texts[t] for t in self.titles], engine=self.settings.retriever)
        return self._index

    def compiled(self, title: str) -> CompiledArticle:
        """The reader's facts of one article, read from its text."""
        found = self._compiled.get(title)
        if found is None:
            found = self._compiled[title] = compile_article(self.names, title, read_article(self.texts[title]))
        return found

    def reading(self, titles: Sequence[str]) -> Reading:
        """The reader's view of the articles `titles`."""
        return Reading((self.compiled(title) for title in titles), self.names)

    def truth(self, question: Question) -> dict[str, int] | None:
        """The true per-person counts of a count question, None for other questions."""
        return _count_map(self.solver, self.kinship, question.query) if question.is_aggregation_question else None

    def derives(self, question: Question, titles: Sequence[str], truth: dict[str, int] | None) -> bool:
        """True when the articles `titles` alone let the reader give exactly the gold answer."""
        reading = self.reading(titles)
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
        holders = self.required_sets.holders(question.query)
        shown = Shown.of((self.compiled(t) for t in required), self.names)
        problem = None
        if answers != question.answer:
            problem = f"the rule gives {answers} on the universe, the solver {question.answer}"
        elif proven(shown, question.query, holders) != question.answer:
            problem = "its required articles do not prove its answer"
        elif not self.derives(question, required, self.truth(question)):
            problem = "the lenient reader does not derive its answer from its required articles"
        else:
            needed = consulted(shown, question.query, holders)  # without any other, the answer is proven still
            proving = [t for t in required if self.compiled(t).subject not in needed]
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

    def options(self, question: Question, case: Case, titles: Sequence[str], key: str) -> list[str]:
        """A row's multiple-choice options, made from what its documents `titles` state (options.py): the gold answer
        first where they state it, then decoys, "Unanswerable" last (the row shuffles them)."""
        ids = self.kinship.universe.ids
        form = case.form
        shown = [ids[t] for t in titles if t in ids]
        return self.option_maker.options(key, form.query, form.answer, shown, named_people(form.question))

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
        shown = Shown.of((self.compiled(t) for t in required), self.names)
        ids = self.names.ids
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
        articles = [self.compiled(t) for t in titles]
        if form.named:  # a relation premise: confirmed by any path of shown facts
            inner = parse_literal(question.query[-1])
            subject, other = self.names.ids[inner.source.strip()[1:-1]], self.names.ids[form.named]
            if relation_premise(Shown.of(articles, self.names), inner.predicate, subject, other) is not True:
                return None
        found = provable(articles, self.names, form.query, self.required_sets.holders(form.query))
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
        """The closed-world sentence an attribute-start question is shown with ("" for a person-start one)."""
        return closed_world_statement(self.kinship.universe, question.query)

    def _query_scores(self, question: Question, evidence: Sequence[str]) -> np.ndarray:
        """BM25 scores of the question's text with its evidence texts (the "hard" distractors' query), the texts'
        token ids taken once per article."""
        if self.index.engine != "bm25plus":
            return self.index.scores("\n".join([question.question] + [self.texts[t] for t in evidence]))
        parts = [self.index.token_ids(question.question)]
        for title in evidence:
            ids = self._token_ids.get(title)
            if ids is None:
                ids = self._token_ids[title] = self.index.token_ids(self.texts[title])
            parts.append(ids)
        return self.index.scores_of(np.concatenate(parts))

    def candidates(self, question: Question, evidence: Sequence[str], wanted: int, banned: set[str]) -> list[str]:
        """The first `wanted` distractor candidates (titles outside `evidence` and `banned`), best first."""
        outside = set(evidence) | banned
        wanted = min(wanted, len(self.titles) - len(outside))
        if wanted <= 0:
            return []
        if self.settings.distractors == "hard":
            key = question.id
            if self._scores is None or self._scores_key != key:
                self._scores, self._scores_key = self._query_scores(question, evidence), key
            skip = [self.position[t] for t in outside]
            return [self.titles[i] for i in top_k(self._scores, wanted, skip)]
        rng = stream(self.settings.seed, "distractors", question.id)
        if wanted * 4 >= len(self.titles) - len(outside):
            return shuffled(rng, [t for t in self.titles if t not in outside])[:wanted]
        taken: list[str] = []
        seen = set(outside)
        while len(taken) < wanted:
            title = self.titles[below(rng, len(self.titles))]
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
        # Known to fall inside: the people the evidence's component holds, whoever names one of them,
        # and (for "the person whose job is ...") everyone else holding that value.
        own = self.reading(evidence)
        names = own.names.names
        starts = own.starts(question.query)  # the same with any distractor: a holder of the value is never one
        linked = {names[p] for p in own.component(starts)}
        banned = {t for t in linked if t in self.position}
        for name in linked:
            banned.update(self.naming(name))
        banned.update(self.start_holders(question))
        banned -= set(evidence)
        while True:
            chosen = self.candidates(question, evidence, need, banned)
            reached = linked_component((self.compiled(t) for t in [*evidence, *chosen]), starts)
            inside = {t for t in chosen if self.compiled(t).subject in reached}
            if not inside:
                return chosen
            banned |= inside

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
        universe = self.kinship.universe
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

    def shadow(self, rng: random.Random, shown: Sequence[str], targets: Sequence[int], room: int) -> list[str]:
        """Articles (at most `room`) that leave someone the documents `shown` name without an article of their own,
        named in as many family lines as the missing person of one of the question's insufficient rows (`targets`):
        the control that keeps "a person many shown lists name has no article" from telling an insufficient row. They
        only add true facts about people the rows already reach, so no answer, premise or refusal changes (each
        label is kept by its definition; `verify` reads them all)."""
        if not targets or room <= 0:
            return []
        target = pick(rng, sorted(targets))
        have = set(shown)
        named = sorted({name for title in shown for name in self.naming(title)} - have)
        choices = []
        for name in named:
            naming = self.naming(name)
            already = sum(title in have for title in naming)
            if name in self.position and already <= target <= len(naming) and target - already <= room:
                choices.append((name, already, [title for title in naming if title not in have]))
        if not choices:
            return []
        _, already, extra = pick(rng, choices)
        return shuffled(rng, extra)[: target - already]

    def holding(self, attribute: str, value: str) -> list[str]:
        """Titles of the articles stating that their subject's `attribute` is `value` (from the universe too)."""
        universe = self.kinship.universe
        return [universe.names[person] for person in universe.holders(attribute, value)]

    def start_holders(self, question: Question) -> list[str]:
        """Titles of the holders of the value a question starts from ("the person whose job is ..."), [] for a question
        that starts from a named person."""
        first = parse_literal(question.query[-1])
        return self.holding(first.predicate, first.source.strip()[1:-1]) if first.inverse else []

    def document(self, title: str) -> dict[str, str]:
        """One document as the instance shows it: title and text in the configured format."""
        return {"title": title, "text": self.rendered(title)}

    def rendered(self, title: str) -> str:
        """The text of one document in the configured format."""
        found = self._rendered.get(title)
        if found is None:
            found = render(self.texts[title], self.settings.document_format)
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
            texts = [self.rendered(title).strip() for title in self.titles]
            self._costs = dict(zip(self.titles, self.counter.counts(texts)))
        return Costs(self._costs.__getitem__, self.counter.count(SEPARATOR))

    def measure(self, titles: Sequence[str]) -> int:
        """The tokens of documents `titles` exactly as a prompt joins them."""
        return self.counter.documents([self.rendered(title) for title in titles])

    def tiers(self, question: Question, named: Sequence[str], pool: Sequence[str]) -> Tiers:
        """A question's long-row distractor tiers (long_context.py): `pool`, then the articles of the people the
        question touches and their families, then every other article; none of `named` or, for a question that
        starts from an attribute value, of its holders."""
        universe = self.kinship.universe
        if self._trees is None:
            self._trees = (family_trees(universe), {})
        tree_of, members = self._trees
        if not members:
            for person, root in enumerate(tree_of):
                members.setdefault(root, []).append(person)
        reading = self.reading(named)
        reached = reading.component(reading.starts(question.query))
        people = {universe.ids[n] for n in (reading.names.names[p] for p in reached) if n in universe.ids}
        touching = {universe.names[p] for p in people}
        for person in people:
            touching.update(self.naming(universe.names[person]))
        for root in {tree_of[p] for p in people}:
            touching.update(universe.names[p] for p in members[root])
        skip = set(named) | set(self.start_holders(question))
        hard = tuple(t for t in pool if t not in skip)
        skip.update(hard)
        family = tuple(t for t in self.titles if t in touching and t not in skip)
        rest = tuple(t for t in self.titles if t not in touching and t not in skip)
        return Tiers(hard, family, rest)


@dataclass(frozen=True)
class Case:
    """One form of a question with what its rows show: the articles that answer it and those a row may leave out."""

    form: Form
    required: tuple[str, ...]  # the articles that prove its answer (and confirm its premise), sorted
    shown: tuple[str, ...]  # what its rows show of them: the required set and the person its premise names, sorted
    missable: dict[str, str]  # title -> role (required.ROLES) of each article whose absence leaves it unanswerable


@dataclass(frozen=True)
class Plan:
    """One row of a question's family before its documents are drawn."""

    answerable: str  # "sufficient", "insufficient" or "unanswerable"
    case: Case
    missing: str = ""  # the article an insufficient row leaves out
    role: str = ""  # its role

    @property
    def shown(self) -> list[str]:
        """The row's own articles: its case's, less the missing one."""
        return [t for t in self.case.shown if t != self.missing]


def _row_key(s: Settings, question: Question, plan: Plan, index: int) -> str:
    """What makes the `index`-th row of a question's family: the key of its seeded streams and of its id."""
    return f"{universe_name(s)}/{question.id}/{plan.answerable}/{plan.case.form.key}/{plan.missing}/{index}"


def row_id(key: str) -> str:
    """An opaque instance id: a digest of what makes the row, naming no label."""
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def _base_row(evidence: Evidence, question: Question, form: Form) -> dict:
    return {
        "question_id": question.id,
        "question_family_id": question.id,
        "question": form.question,
        "unanswerable_kind": form.kind,
        "premise": form.premise,
        "premise_status": form.status,
        "closed_world": evidence.closed_world(question),
        "question_answer": list(form.answer),
        "difficulty": question.difficulty,
        "is_aggregation_question": question.is_aggregation_question,
    }


def family_plans(evidence: Evidence, question: Question, base: Case) -> list[Plan]:
    """The rows of a question's family: one sufficient, the insufficient ones (by role, or every article), and the
    unanswerable variants. The sufficient and insufficient rows are worded as a variant drawn at random is, with a
    true premise (or plainly, as nonexistent_person is), so the wording alone never tells the label."""
    s = evidence.settings
    room = max(s.instance_documents, len(base.shown)) if s.instance_layout == "fixed" else None
    variants = [  # a false relation premise shows the person it names too: never beyond the layout's room
        case
        for v in evidence.variants(question)
        if (case := evidence.case(question, v)) is not None and (room is None or len(case.shown) <= room)
    ]
    rng = stream(s.seed, "wordings", question.id)

    def worded() -> Case:
        if not variants:
            return base
        control = evidence.control(question, pick(rng, variants).form.kind, rng)
        return evidence.case(question, control) or base

    plans = [Plan("sufficient", worded())]
    if s.insufficient == "by_role":
        wanted = [(role, "") for role in ROLES if role in base.missable.values()]
    else:
        wanted = [(role, title) for title, role in sorted(base.missable.items())]
    for role, title in wanted:  # a wording whose rows can leave out an article of this role (none left proves it)
        for attempt in range(WORDINGS_TRIED + 1):
            case = worded() if attempt < WORDINGS_TRIED else base
            if title:
                missing = title if case.missable.get(title) and evidence.leaves_open(question, case, title) else None
            else:
                missing = evidence.open_missing(question, case, role, rng)
            if missing:
                plans.append(Plan("insufficient", case, missing, case.missable[missing]))
                break
    plans += [Plan("unanswerable", case) for case in variants]
    return plans


def question_family(evidence: Evidence, question: Question) -> tuple[Case, list[Plan]] | None:
    """A question's plain case and the plans of its family's rows, or None when it has no instances."""
    if not evidence.settings.attribute_questions and starts_from_attribute(question.query):
        return None
    base = evidence.case(question, evidence.plain(question))
    return None if base is None else (base, family_plans(evidence, question, base))


def question_instances(evidence: Evidence, question: Question) -> Iterator[dict]:
    """Every instance of one question's family (see family_plans), in a seeded order, each with its own distractors
    and document order: per plan one row, or one per ablation level."""
    s = evidence.settings
    family = question_family(evidence, question)
    if family is None:
        return
    base, plans = family
    named = {title for plan in plans for title in plan.case.shown}
    smallest = min(len(plan.case.shown) - bool(plan.missing) for plan in plans)
    low = _family_low(s, plans)  # every row of the family shows at least this many documents (fixed layout)
    most = (
        max(ABLATION_LEVELS) if s.instance_layout == "ablation" else max(0, max(s.instance_documents, low) - smallest)
    )
    pool = evidence.distractors(question, sorted(named), most + POOL_SLACK) if most else []
    if s.long_context:
        yield from shuffled(stream(s.seed, "row order", question.id), _long_rows(evidence, question, base, plans, pool))
        return
    used: set[tuple[str, ...]] = set()
    rows = []
    targets = [evidence.mentions(plan.missing, plan.shown) for plan in plans if plan.missing]
    for index, plan in enumerate(plans):
        key = _row_key(s, question, plan, index)
        rng = stream(s.seed, "instance", key)
        shadows = stream(s.seed, "shadow", key)
        if s.instance_layout == "ablation":
            shadow = [] if plan.missing else evidence.shadow(shadows, plan.shown, targets, max(ABLATION_LEVELS))
            order = [t for t in shuffled(rng, pool) if t not in shadow]  # a premise's person may link a shadow to it
            levels = [(f"ablation-{level}", order[:level]) for level in ABLATION_LEVELS if level <= len(pool)]
        else:
            shadow, distractors = _fixed_documents(evidence, plan, (rng, shadows), pool, targets, used, low)
            levels = [("fixed", distractors)]
        shown = plan.shown + shadow
        for layout, distractors in levels:
            used.add(tuple(sorted(shown + distractors)))
            titles = shuffled(rng, shown + distractors)
            rows.append(_instance_row(evidence, question, plan, titles, shadow + distractors, f"{key}/{layout}"))
    yield from shuffled(stream(s.seed, "row order", question.id), rows)


def _family_low(s: Settings, plans: Sequence[Plan]) -> int:
    """The fewest documents any row of a question's family shows in the fixed layout: instance_documents_min, or its
    largest own set of articles and room for a shadow, so that no row's document count tells its label (a row that
    lacks an article, or shows a shadow, draws its count from the same range as the others)."""
    largest = max(len(plan.case.shown) for plan in plans)
    fewest = min(s.instance_documents_min, s.instance_documents)
    return max(fewest, min(largest + SHADOW_ROOM, max(s.instance_documents, largest)))


def _fixed_documents(
    evidence: Evidence,
    plan: Plan,
    streams: tuple[random.Random, random.Random],
    pool: list[str],
    targets: list[int],
    used: set[tuple[str, ...]],
    low: int,
) -> tuple[list[str], list[str]]:
    """(shadow, distractors) of a row of the fixed layout: a number of documents drawn in [low, instance_documents]
    (low: _family_low), a row that is not insufficient with its shadow (Evidence.shadow), the rest from the pool;
    drawn again while another row of the question shows the same documents."""
    s = evidence.settings
    rng, shadows = streams
    high = max(s.instance_documents, low)
    shadow: list[str] = []
    distractors: list[str] = []
    for _ in range(REDRAWS):
        shadow = [] if plan.missing else evidence.shadow(shadows, plan.shown, targets, low - len(plan.shown))
        shown = plan.shown + shadow
        wanted = min(max(0, low + below(rng, high - low + 1) - len(shown)), len(pool))
        distractors = [t for t in shuffled(rng, pool) if t not in shadow][:wanted]  # never a shadow twice
        if tuple(sorted(shown + distractors)) not in used:
            break
    return shadow, distractors


def _tokens(costs: Costs, titles: Sequence[str]) -> int:
    """The tokens of documents `titles` as the fill counts them: each document and a separator between two."""
    return sum(costs.of(title) for title in titles) + costs.separator * max(0, len(titles) - 1)


def _excluded(evidence: Evidence, question: Question, named: set[str], plan: Plan) -> set[str]:
    """What a long row never shows as a distractor (long_context.py): its question's own articles, the holders of
    the value an attribute question starts from, and for an insufficient row every article naming its missing
    person."""
    excluded = set(named) | set(evidence.start_holders(question))
    if plan.missing:
        excluded.add(plan.missing)
        excluded.update(evidence.naming(plan.missing))
    return excluded


def _family_named(base: Case, plans: Sequence[Plan]) -> set[str]:
    """Every article a question's rows show of their own (its required sets and the people its premises name)."""
    return {title for plan in plans for title in plan.case.shown} | set(base.shown)


def _long_rows(evidence: Evidence, question: Question, base: Case, plans: list[Plan], pool: list[str]) -> list[dict]:
    """A question's rows filled to `context_tokens` (long_context.py), none if one row's own articles pass it."""
    s = evidence.settings
    costs = evidence.costs
    shown_of = [plan.shown for plan in plans]
    if any(_tokens(costs, shown) > s.context_tokens for shown in shown_of):
        return []
    named = _family_named(base, plans)
    tiers = evidence.tiers(question, sorted(named), pool)
    layout = f"long-{s.context_tokens}-{s.evidence_position}"
    used: set[tuple[str, ...]] = set()
    rows = []
    for index, (plan, shown) in enumerate(zip(plans, shown_of)):
        key = _row_key(s, question, plan, index)
        rng = stream(s.seed, "instance", key, layout)
        room = s.context_tokens - _tokens(costs, shown)
        distractors = fill(rng, tiers, _excluded(evidence, question, named, plan), room, costs)
        titles = place(rng, shown, distractors, s.evidence_position, costs)
        for _ in range(REDRAWS):  # another row of the question shows the same list: draw the order again
            if tuple(titles) not in used:
                break
            titles = place(rng, shown, distractors, s.evidence_position, costs)
        measured = evidence.measure(titles)
        while measured > s.context_tokens and distractors:  # a tokenizer may count the joined text apart
            titles.remove(distractors.pop())
            measured = evidence.measure(titles)
        used.add(tuple(titles))
        row = _instance_row(evidence, question, plan, titles, distractors, f"{key}/{layout}")
        row.update(
            layout="long",
            context_tokens=s.context_tokens,
            num_tokens=measured,
            tokenizer=evidence.counter.name,
            evidence_position=s.evidence_position,
            evidence_depth=evidence_depth(titles, set(shown), costs),
        )
        rows.append(row)
    return rows


def check_length(evidence: Evidence, questions: Sequence[Question]) -> None:
    """With `context_tokens` set: a one-line ConfigError when no question's rows fit in it, or when some row cannot
    be filled to it (naming the largest length every row can reach: its own articles and every one it may show)."""
    s = evidence.settings
    if not s.long_context:
        return
    costs = evidence.costs
    everything = _tokens(costs, evidence.titles)
    largest, shortest, fitting = everything, None, 0
    for question in questions:
        family = question_family(evidence, question)
        if family is None:
            continue
        base, plans = family
        need = max(_tokens(costs, plan.shown) for plan in plans)
        shortest = need if shortest is None else min(shortest, need)
        if need > s.context_tokens:
            continue
        fitting += 1
        named = _family_named(base, plans)
        for plan in plans:
            hidden = _excluded(evidence, question, named, plan) - set(plan.shown)
            largest = min(largest, everything - _tokens(costs, sorted(hidden)) - costs.separator * bool(hidden))
    name = universe_name(s)
    if not fitting:
        what = f"the shortest needs {shortest:,}" if shortest is not None else "it has no question with instances"
        raise ConfigError(
            f"context_tokens={s.context_tokens} holds no question's own articles in {name}: {what} tokens; "
            "give a longer length"
        )
    if s.context_tokens > largest:
        raise ConfigError(
            f"context_tokens={s.context_tokens} is more than {name} can fill: the largest is {largest:,} tokens "
            f"(the whole corpus is {everything:,}, less the articles a row may not show); give at most {largest}"
        )


def _instance_row(
    evidence: Evidence, question: Question, plan: Plan, titles: list[str], distractors: list[str], key: str
) -> dict:
    s = evidence.settings
    form, case = plan.case.form, plan.case
    cited = [] if plan.answerable == "unanswerable" else [t for t in case.required if t != plan.missing]
    given = evidence.options(question, case, titles, key)
    options = shuffled(stream(s.seed, "option order", key), given)
    gold = given[0] if plan.answerable == "sufficient" else UNANSWERABLE
    wanted = set(distractors)
    return {
        "instance_id": row_id(key),
        **_base_row(evidence, question, form),
        "answer": list(form.answer) if plan.answerable == "sufficient" else [DEFLECTION],
        "answerable": plan.answerable,
        "documents": [evidence.document(t) for t in titles],
        "citations": citations(titles, cited),
        "evidence_titles": cited,
        "missing_article": plan.missing,
        "missing_role": plan.role,
        "distractor_titles": [t for t in titles if t in wanted],
        "num_distractors": len(distractors),
        "layout": s.instance_layout,
        "distractor_kind": s.distractors,
        "answer_options": options,
        "gold_answer_idx": options.index(gold),
    }


def build_instances(
    generated: Generated, settings: Settings | None = None, evidence: Evidence | None = None
) -> list[dict]:
    """Rows of the `instances` subset for every question of a generated configuration (`evidence` reuses a built
    one; rows.instance_rows yields them question by question instead)."""
    evidence = evidence or Evidence(generated, settings)
    check_length(evidence, generated.questions)
    return [row for question in generated.questions for row in question_instances(evidence, question)]


def rag_forms(evidence: Evidence, question: Question) -> list[Form]:
    """The wordings of a question in `rag`: the question, and for a family with variants each variant and, for each
    premise variant, a control worded alike (so a premise is as often true as not)."""
    forms = [evidence.plain(question)]
    if not evidence.has_family(question):
        return forms
    rng = stream(evidence.settings.seed, "rag wordings", question.id)
    for variant in evidence.variants(question):
        forms.append(variant)
        if variant.wording != PLAIN:
            control = evidence.control(question, variant.kind, rng)
            if control.key not in {f.key for f in forms} and evidence.case(question, control) is not None:
                forms.append(control)
    return shuffled(rng, forms)


def _rag_cases(
    evidence: Evidence, questions: Sequence[Question]
) -> list[tuple[Question, Form, Case | None, list[str], str]]:
    """Each `rag` row before retrieval: (question, form, its case if it has a family, its required articles, id)."""
    s = evidence.settings
    out = []
    for question in questions:
        for form in rag_forms(evidence, question):
            case = evidence.case(question, form) if evidence.has_family(question) else None
            required = list(case.required) if case is not None else evidence.required(question)
            key = f"{universe_name(s)}/{question.id}/rag-{s.retrieval_k}/{form.key}"
            out.append((question, form, case, required, row_id(key)))
    return out


def rag_required(generated: Generated, settings: Settings | None = None) -> dict[str, list[str]]:
    """The articles each `rag` row's question (as worded) needs, by `instance_id`: what retrieval is scored against
    (builders.metrics.retrieval_scores). Not a column of the rows, so their bytes stay as they were."""
    evidence = Evidence(generated, settings)
    return {key: required for _, _, _, required, key in _rag_cases(evidence, generated.questions)}


def build_rag(
    generated: Generated,
    settings: Settings | None = None,
    evidence: Evidence | None = None,
    questions: Sequence[Question] | None = None,
) -> list[dict]:
    """Rows of the `rag` subset: each question with its BM25 top-k articles, sufficient when they answer it by the
    rule, then the wordings of each question that has a sufficient set (rag_forms), each with its own top-k (for every
    question, or for `questions`). With `rag_rows="balanced"` (the default), only the rows `rag_balanced` keeps."""
    evidence = evidence or Evidence(generated, settings)
    if evidence.settings.rag_rows == "all":
        return [row for _, row in _rag_rows(evidence, generated.questions if questions is None else questions)]
    kept = rag_balanced(evidence, generated.questions)
    wanted = None if questions is None else {question.id for question in questions}
    return [
        row
        for _, row in evidence.rag_every or []
        if row["instance_id"] in kept and (wanted is None or row["question_id"] in wanted)
    ]


def _rag_rows(evidence: Evidence, questions: Sequence[Question]) -> list[tuple[tuple[object, ...], dict]]:
    """(cell, row) of every `rag` row of `questions`: the cell is what the question's text shows of its length and
    kind (its hops, Who / What / How many, premise wording, start), within which rag_balanced evens the labels."""
    cases = _rag_cases(evidence, questions)
    out: list[tuple[tuple[object, ...], dict]] = []
    hits = evidence.index.retrieve([form.question for _, form, _, _, _ in cases], evidence.settings.retrieval_k)
    for (question, form, _, required, key), found in zip(cases, hits):
        titles = [evidence.titles[i] for i in found]
        sufficient = not form.kind and evidence.proves(question, form, titles)
        row = {
            "instance_id": key,
            **_base_row(evidence, question, form),
            "answer": list(form.answer) if sufficient else [DEFLECTION],
            "answerable": "unanswerable" if form.kind else "sufficient" if sufficient else "insufficient",
            "documents": [evidence.document(t) for t in titles],
            "citations": citations(titles, required) if sufficient else [],
            "retrieved_titles": titles,
            "retrieved_sufficient": sufficient,
        }
        hops = sum(token.startswith("<relation>") for token in question.template)  # every wording shows each hop
        kind = question.template[0]  # Who / What / How (many): what the text asks
        out.append(((hops, kind, form.wording, starts_from_attribute(question.query)), row))
    return out


def rag_balanced(evidence: Evidence, questions: Sequence[Question]) -> set[str]:
    """The ids of the `rag` rows a balanced subset keeps: within each cell (hops, what it asks, premise wording),
    as many rows to answer as rows to refuse, a seeded draw of the larger side, so that a question's length never tells
    whether top-k retrieval sufficed (it suffices almost only for short questions); questions that start from an
    attribute value only with attribute_questions=True, as in `instances`. Computed once over every question."""
    if evidence.rag_kept is not None:
        return evidence.rag_kept
    s = evidence.settings
    cells: dict[tuple[object, ...], tuple[list[str], list[str]]] = {}
    evidence.rag_every = _rag_rows(evidence, questions)
    for cell, row in evidence.rag_every:
        if cell[-1] and not s.attribute_questions:
            continue
        answer, refuse = cells.setdefault(cell, ([], []))
        (answer if row["answerable"] == "sufficient" else refuse).append(row["instance_id"])
    kept: set[str] = set()
    for cell in sorted(cells, key=repr):
        answer, refuse = cells[cell]
        n = min(len(answer), len(refuse))
        rng = stream(s.seed, "rag balance", repr(cell))
        kept.update(shuffled(rng, answer)[:n], shuffled(rng, refuse)[:n])
    evidence.rag_kept = kept
    return kept
