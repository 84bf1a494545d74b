"""Evidence instances: sufficient / insufficient article sets a reader can tell apart, with distractors; and BM25 RAG.

The labels follow one rule (builders/phantomwiki/required.py, stated in the README and the prompts): a
person's own article is the complete source of their family, friends and attributes, and a question
needs the article of everyone whose lists or attributes it reads, hop by hop from its anchor, dead ends
included: its required set. For each question:
  * sufficient instance: the whole required set (plus distractors); the answer computed from the
    documents is the gold answer and provably complete. As a guard, the lenient reader of
    builders/phantomwiki/reading.py (which also uses every other sentence) must derive exactly the gold
    answer from the required set, or generation stops;
  * insufficient instances: one per required article, the set without it; gold answer DEFLECTION;
  * questions starting from an attribute value ("the person whose hobby is tango") are decidable only
    in a closed world: with `attribute_questions=True` they get instances whose required set holds every
    holder of the value and whose `closed_world` sentence says how many there are; by default they
    are left out of `instances` (they stay in `questions` and `rag`);
  * distractors: articles outside the set, the BM25 neighbours of the question plus its evidence
    texts ("hard") or seeded random ones ("easy"). An article joined by any family or friend fact
    to the people the question reaches is never a distractor (see `Evidence.distractors`);
  * layouts (builders/evidence.py): "fixed" = `instance_documents` documents per instance,
    "ablation" = 0/20/40/60/80 nested distractors; levels above what the corpus holds are left out;
  * questions whose required set holds more than `max_evidence` articles get no instances (a question
    needing 300 articles would give 300 instances of 300 documents each).
Defaults: `max_evidence=32` and `instance_documents=32`, so every instance of a question shows the same
32 documents' worth of evidence and distractors (an insufficient one takes one more distractor in the
place of its missing article). `instance_documents=10` is close to CReSt's setting,
`instance_layout="ablation"` NeoQA's section 6.

RAG (`rag` subset): the BM25 top-k articles of the question text over the whole corpus (k = 4, the
paper's), in rank order; sufficient exactly when they hold the question's whole required set.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from ..evidence import arrange, citations, distractor_counts, document_order, render
from ..metrics import DEFLECTION
from ..retrieval import Bm25Index, top_k
from ..rng import below, shuffled, stream
from .articles import read_article
from .config import Settings
from .kinship import Kinship
from .options import UNANSWERABLE, OptionMaker, option_text
from .questions import Question
from .reading import CompiledArticle, Names, Reading, compile_article
from .relations import relation_bank
from .required import RequiredSets, Shown, closed_world_statement, proven, starts_from_attribute
from .solver import Solver, parse_literal
from .stages import Generated
from .variants import Variant, VariantMaker


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
        self.variant_maker = VariantMaker(self.kinship, self.settings.seed, bank)
        self.option_maker = OptionMaker(self.kinship, self.settings.seed, bank)
        self._walks: dict[str, tuple[set[int], list[str]]] = {}  # question id -> (required set, answers by the rule)
        self._naming: dict[str, list[str]] = {}  # name -> titles of the articles naming them (see `naming`)
        self._family: set[str] = set()  # ids of the questions with a checked sufficient set
        self._index: Bm25Index | None = None
        self._scores: np.ndarray | None = None  # BM25 scores of the question last asked, by title position
        self._scores_key: str | None = None

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
        answers = self._walk(question)[1]
        required = self.required(question)
        if len(required) > self.settings.max_evidence:
            return None
        self._family.add(question.id)
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
            subjects = [self.compiled(t).subject for t in required]
            proving = [
                t for t, p in zip(required, subjects) if proven(shown.without(p), question.query, holders) is not None
            ]
            if proving:
                problem = f"its answer is proven without the article of {proving[0]}"
        if problem:
            raise RuntimeError(f"question {question.id} ({question.question!r}): {problem}")
        return required

    def variants(self, question: Question) -> list[Variant]:
        """The unanswerable variants of a question with a sufficient set (call sufficient_set first)."""
        family = self._walk(question)[0]
        return self.variant_maker.variants(
            question.id, question.question, question.query, family, self.settings.unanswerable
        )

    def has_family(self, question: Question) -> bool:
        """Whether a question has unanswerable variants: it starts from a named person and has a sufficient set."""
        if starts_from_attribute(question.query):
            return False
        return question.id in self._family or self.sufficient_set(question) is not None

    def closed_world(self, question: Question) -> str:
        """The closed-world sentence an attribute-start question is shown with ("" for a person-start one)."""
        return closed_world_statement(self.kinship.universe, question.query)

    def candidates(self, question: Question, evidence: Sequence[str], wanted: int, banned: set[str]) -> list[str]:
        """The first `wanted` distractor candidates (titles outside `evidence` and `banned`), best first."""
        outside = set(evidence) | banned
        wanted = min(wanted, len(self.titles) - len(outside))
        if wanted <= 0:
            return []
        if self.settings.distractors == "hard":
            key = question.id
            if self._scores is None or self._scores_key != key:
                query = "\n".join([question.question] + [self.texts[t] for t in evidence])
                self._scores, self._scores_key = self.index.scores(query), key
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
        linked = {names[p] for p in own.component(own.starts(question.query))}
        banned = {t for t in linked if t in self.position}
        for name in linked:
            banned.update(self.naming(name))
        first = parse_literal(question.query[-1])
        if first.inverse:
            banned.update(self.holding(first.predicate, first.source.strip()[1:-1]))
        banned -= set(evidence)
        while True:
            chosen = self.candidates(question, evidence, need, banned)
            reading = self.reading(list(evidence) + chosen)
            reached = reading.component(reading.starts(question.query))
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

    def holding(self, attribute: str, value: str) -> list[str]:
        """Titles of the articles stating that their subject's `attribute` is `value` (from the universe too)."""
        universe = self.kinship.universe
        return [universe.names[person] for person in universe.holders(attribute, value)]

    def document(self, title: str) -> dict[str, str]:
        """One document as the instance shows it: title and text in the configured format."""
        return {"title": title, "text": render(self.texts[title], self.settings.document_format)}


def _base_row(evidence: Evidence, question: Question, variant: Variant | None = None) -> dict:
    return {
        "question_id": question.id,
        "question_family_id": question.id,
        "question": variant.question if variant else question.question,
        "unanswerable_kind": variant.kind if variant else "",
        "premise": variant.premise if variant else "",
        "premise_status": variant.status if variant else "",
        "closed_world": evidence.closed_world(question),
        "question_answer": list(question.answer),
        "difficulty": question.difficulty,
        "is_aggregation_question": question.is_aggregation_question,
    }


def question_instances(evidence: Evidence, question: Question) -> Iterator[dict]:
    """Every instance of one question's family: per layout group, the sufficient one, one per missing article,
    then the unanswerable variants (with the sufficient instance's documents)."""
    s = evidence.settings
    if not s.attribute_questions and starts_from_attribute(question.query):
        return
    required = evidence.sufficient_set(question)
    if required is None:
        return
    variants = evidence.variants(question)
    options = evidence.option_maker.options(question)
    answer_index, deflect_index = options.index(option_text(question.answer)), options.index(UNANSWERABLE)
    groups = distractor_counts(s.instance_layout, s.instance_documents, len(required))
    need = max(max(full, missing) for full, missing in groups)
    chosen = evidence.distractors(question, required, need)
    order = document_order(s.seed, question.id, required + chosen)
    for full, missing_count in groups:
        if s.instance_layout == "ablation" and full > len(chosen):
            continue
        group = f"{question.id}/{s.instance_layout}-{full}/"
        cases: list[tuple[str, int, Variant | None]] = [("", full, None)]
        cases += [(title, missing_count, None) for title in required]
        cases += [("", full, variant) for variant in variants]
        made: dict[str, int] = {}
        shown: dict[tuple[str, ...], list[dict[str, str]]] = {}  # variants show the sufficient instance's documents
        for index, (missing, count, variant) in enumerate(cases):
            distractors = chosen[:count]
            cited = [t for t in required if t != missing]
            titles = arrange(order, cited + distractors)
            documents = shown.get(tuple(titles))
            if documents is None:
                documents = shown[tuple(titles)] = [evidence.document(t) for t in titles]
            if variant:
                made[variant.kind] = made.get(variant.kind, 0) + 1
                name = f"{variant.kind}-{made[variant.kind]}"
            else:
                name = f"missing-{index}" if missing else "sufficient"
            answerable = "unanswerable" if variant else "insufficient" if missing else "sufficient"
            yield {
                "instance_id": group + name,
                **_base_row(evidence, question, variant),
                "answer": list(question.answer) if answerable == "sufficient" else [DEFLECTION],
                "answerable": answerable,
                "documents": documents,
                "citations": [] if variant else citations(titles, cited),
                "evidence_titles": [] if variant else cited,  # a variant shows its parent's, but nothing answers it
                "missing_article": missing,
                "distractor_titles": arrange(order, distractors),
                "num_distractors": len(distractors),
                "layout": s.instance_layout,
                "distractor_kind": s.distractors,
                "answer_options": options,
                "gold_answer_idx": answer_index if answerable == "sufficient" else deflect_index,
            }


def build_instances(
    generated: Generated, settings: Settings | None = None, evidence: Evidence | None = None
) -> list[dict]:
    """Rows of the `instances` subset for every question of a generated configuration (`evidence` reuses a built
    one; generate.instance_rows yields them question by question instead)."""
    evidence = evidence or Evidence(generated, settings)
    return [row for question in generated.questions for row in question_instances(evidence, question)]


def build_rag(
    generated: Generated,
    settings: Settings | None = None,
    evidence: Evidence | None = None,
    questions: Sequence[Question] | None = None,
) -> list[dict]:
    """Rows of the `rag` subset: each question with its BM25 top-k articles, sufficient when they hold its required set,
    then the unanswerable variants of each question that has a sufficient set, each with its own top-k (for every
    question, or for `questions`)."""
    evidence = evidence or Evidence(generated, settings)
    k = evidence.settings.retrieval_k
    cases: list[tuple[Question, Variant | None]] = []
    for question in generated.questions if questions is None else questions:
        cases.append((question, None))
        if evidence.has_family(question):
            cases += [(question, variant) for variant in evidence.variants(question)]
    hits = evidence.index.retrieve(
        [variant.question if variant else question.question for question, variant in cases], k
    )
    rows = []
    made: dict[tuple[str, str], int] = {}
    for (question, variant), found in zip(cases, hits):
        titles = [evidence.titles[i] for i in found]
        required = evidence.required(question)
        sufficient = variant is None and set(required) <= set(titles)
        instance_id = f"{question.id}/rag-{k}"
        if variant:
            made[question.id, variant.kind] = made.get((question.id, variant.kind), 0) + 1
            instance_id += f"/{variant.kind}-{made[question.id, variant.kind]}"
        rows.append(
            {
                "instance_id": instance_id,
                **_base_row(evidence, question, variant),
                "answer": list(question.answer) if sufficient else [DEFLECTION],
                "answerable": "unanswerable" if variant else "sufficient" if sufficient else "insufficient",
                "documents": [evidence.document(t) for t in titles],
                "citations": citations(titles, required) if sufficient else [],
                "retrieved_titles": titles,
                "retrieved_sufficient": sufficient,
            }
        )
    return rows
