"""Unanswerable variants and multiple choice: each premise is false (or unknowable) by construction, and each
option list holds exactly one correct option."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import pytest

from builders.metrics import DEFLECTION, answer_set
from builders.phantomwiki.options import UNANSWERABLE
from builders.phantomwiki.prolog import write_program
from builders.phantomwiki.relations import attributes, relations
from builders.phantomwiki.required import starts_from_attribute
from builders.phantomwiki.solver import parse_literal
from builders.phantomwiki.variants import KINDS, places, qualifiers, read_premises
from builders.phantomwiki.vocabulary import load_vocabulary
from tests.phantomwiki.careful_reader import Documents, Reader
from tests.phantomwiki.pw_universes import generated, instances, rag
from tests.phantomwiki.test_prolog_agreement import run_oracle

_FACT = re.compile(r'^(\w+)\("(.*?)"(?:, "(.*)")?\)$')


def premise(row) -> tuple[str, ...]:
    predicate, subject, value = _FACT.match(row["premise"]).groups()
    return (predicate, subject) if value is None else (predicate, subject, value)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["n500_s1", "n5000_s1"])
def test_every_false_premise_is_false_in_swi_prolog_and_refuted_by_the_variants_own_documents(name, tmp_path):
    g = generated(name)
    variants = [r for r in instances(name) if r["unanswerable_kind"].startswith("false_premise")]
    assert {r["unanswerable_kind"] for r in variants} == {"false_premise_relation", "false_premise_attribute"}
    program = write_program(g.universe, tmp_path)
    found = run_oracle(program, [{"query": [r["premise"]], "answer": "true"} for r in variants], tmp_path)
    assert all(answers == [] for answers in found)
    for row in variants:
        predicate, subject, value = premise(row)
        assert row["premise_status"] == "refuted"
        reader = Reader(Documents(d["text"] for d in row["documents"]))
        if predicate in relations():
            assert value not in reader.relation(predicate, subject), row["instance_id"]  # the documents list them all
        else:
            assert reader.docs.attributes[subject][predicate] != value, row["instance_id"]


def test_nonexistent_people_and_uncertain_qualifiers_name_nothing_the_universe_has():
    g = generated("n500_s1")
    corpus = "\n".join(a.article for a in g.articles)
    vocabulary = load_vocabulary()
    words = {w.lower() for w in (*vocabulary.surnames, *vocabulary.female_first_names, *vocabulary.male_first_names)}
    assert not {place.lower() for place in places()} & words
    assert not set(qualifiers()) & (set(relations()) | set(attributes()))
    rows = instances("n500_s1")
    for row in rows:
        if row["unanswerable_kind"] == "nonexistent_person":
            _, name = premise(row)
            assert name not in g.universe.ids and not re.search(rf"\b{name}\b", corpus), name
            assert row["premise_status"] == "refuted"
        if row["unanswerable_kind"] == "uncertain_specificity":
            predicate, _, place = premise(row)
            assert predicate in qualifiers() and place in places() and row["premise_status"] == "unknown"
            assert not re.search(rf"\b{place}\b", corpus, re.IGNORECASE) and place.lower() not in {
                *vocabulary.jobs,
                *vocabulary.hobbies,
            }
    assert {r["unanswerable_kind"] for r in rows} == {"", *KINDS}


def test_the_wording_of_every_variant_reads_back_as_its_premise():
    for row in instances("n500_s1"):
        kind = row["unanswerable_kind"]
        if kind and kind != "nonexistent_person":
            assert read_premises(row["question"]) == [premise(row)], row["question"]
        elif not kind:
            assert read_premises(row["question"]) == []


def test_one_variant_of_each_kind_that_applies_per_family_shown_with_the_familys_sufficient_documents():
    g = generated("n500_s1")
    families = defaultdict(list)
    for row in instances("n500_s1"):
        families[row["question_family_id"]].append(row)
    questions = {q.id: q for q in g.questions}
    for family, rows in families.items():
        q = questions[family]
        sufficient = next(r for r in rows if r["answerable"] == "sufficient")
        variants = [r for r in rows if r["answerable"] == "unanswerable"]
        zero_hops = parse_literal(q.query[-1]).kind != "relation"  # "How many sons does Ann Lee have?"
        assert Counter(r["unanswerable_kind"] for r in variants) == {
            k: 1 for k in KINDS if not (zero_hops and k == "false_premise_relation")
        }
        for row in variants:
            assert row["documents"] == sufficient["documents"] and row["answer"] == [DEFLECTION]
            assert row["question"] != q.question and row["question_id"] == family
            assert row["citations"] == [] and row["evidence_titles"] == []


def test_the_number_of_variants_per_kind_is_a_setting():
    none = instances("n500_s1", unanswerable=0)
    assert not [r for r in none if r["answerable"] == "unanswerable"]
    two = instances("n500_s1", unanswerable=2)
    per_family = Counter((r["question_family_id"], r["unanswerable_kind"]) for r in two if r["unanswerable_kind"])
    assert Counter(per_family.values()) and max(per_family.values()) == 2
    questions = {r["question"] for r in two if r["unanswerable_kind"]}
    assert len(questions) == sum(per_family.values())  # two variants of a kind never say the same thing


@pytest.mark.slow
@pytest.mark.parametrize("name", ["n500_s1", "n5000_s1"])
def test_every_option_list_holds_exactly_one_correct_option(name):
    for row in instances(name):
        options = row["answer_options"]
        sets = [frozenset(answer_set(o)) for o in options]
        assert len(set(sets)) == len(options) and options.count(UNANSWERABLE) == 1, options
        gold = frozenset(answer_set(row["question_answer"]))
        correct = [
            i
            for i, o in enumerate(options)
            if (o == UNANSWERABLE) == (row["answerable"] != "sufficient") and (o == UNANSWERABLE or sets[i] == gold)
        ]
        assert correct == [row["gold_answer_idx"]], row["instance_id"]
        assert len(options) >= 3


def test_rag_has_the_variants_of_every_family_each_with_its_own_retrieval():
    g = generated("n500_s1")
    rows, retrieved = instances("n500_s1"), rag("n500_s1")
    variant_questions = {r["question"] for r in rows if r["answerable"] == "unanswerable"}
    rag_variants = [r for r in retrieved if r["answerable"] == "unanswerable"]
    assert {r["question"] for r in rag_variants} == variant_questions
    assert all(r["answer"] == [DEFLECTION] and not r["retrieved_sufficient"] for r in rag_variants)
    assert len([r for r in retrieved if r["unanswerable_kind"] == ""]) == len(g.questions)
    assert not any(
        starts_from_attribute(q.query) for q in g.questions if q.id in {r["question_family_id"] for r in rag_variants}
    )
