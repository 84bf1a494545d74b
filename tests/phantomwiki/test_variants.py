"""Premises and multiple choice: every premise is what its status says (SWI-Prolog and the documents agree), every
premise wording appears true and not, places some people have and others do not, and each option list holds
exactly one correct option among decoys that look like it."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict

import pytest

from leakproof_qa.builders.metrics import DEFLECTION, answer_set
from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.options import UNANSWERABLE
from leakproof_qa.builders.phantomwiki.prolog import write_program
from leakproof_qa.builders.phantomwiki.relations import places, relations
from leakproof_qa.builders.phantomwiki.rows import ROWS, generate
from leakproof_qa.builders.phantomwiki.solver import parse_literal
from leakproof_qa.builders.phantomwiki.variants import KINDS, PLACES, read_premises
from leakproof_qa.builders.phantomwiki.vocabulary import load_vocabulary
from tests.phantomwiki.careful_reader import Documents, Reader
from tests.phantomwiki.pw_universes import generated, instances, rag
from tests.phantomwiki.test_prolog_agreement import run_oracle

_FACT = re.compile(r'^(\w+)\("(.*?)"(?:, "(.*)")?\)$')
WORDINGS = ("relation", "job", "hobby", "dob", *PLACES)


def premise(row) -> tuple[str, ...]:
    predicate, subject, value = _FACT.match(row["premise"]).groups()
    return (predicate, subject) if value is None else (predicate, subject, value)


def wording(row) -> str:
    predicate = premise(row)[0] if row["premise"] else "plain"
    return "relation" if predicate in relations() else "plain" if predicate == "person" else predicate


@pytest.mark.slow
@pytest.mark.parametrize("name", ["n500_s1", "n5000_s1"])
def test_every_premise_is_what_its_status_says_in_swi_prolog_and_in_the_documents(name, tmp_path):
    g = generated(name)
    rows = [r for r in instances(name) if r["premise"] and r["unanswerable_kind"] != "nonexistent_person"]
    assert {r["premise_status"] for r in rows} == {"confirmed", "refuted", "unknown"}
    program = write_program(g.universe, tmp_path)
    facts = [r["premise"] for r in rows]
    stated = [f'{premise(r)[0]}("{premise(r)[1]}", _)' for r in rows]  # any value of that kind at all
    found = run_oracle(program, [{"query": [q], "answer": "true"} for q in facts + stated], tmp_path)
    holds, has_any = found[: len(rows)], found[len(rows) :]
    for row, true, any_value in zip(rows, holds, has_any):
        status = row["premise_status"]
        assert bool(true) == (status == "confirmed"), row["premise"]
        assert bool(any_value) == (status != "unknown"), row["premise"]  # unknown: no fact of that kind at all
        predicate, subject, value = premise(row)
        reader = Reader(Documents(d["text"] for d in row["documents"]))
        if subject not in reader.docs.own:  # an insufficient row without the subject's article
            assert row["missing_article"] == subject and row["answerable"] == "insufficient"
            continue
        if predicate in relations():
            reached = value in reader.relation(predicate, subject, some_path=True)
            assert reached == (status == "confirmed") or row["answerable"] == "insufficient", row["instance_id"]
            if status == "refuted":  # every list the relation reads is shown, and none reaches him
                assert value not in reader.relation(predicate, subject), row["instance_id"]
        else:
            said = reader.docs.attributes[subject].get(predicate)
            assert (said == value) == (status == "confirmed") and (said is None) == (status == "unknown")


def test_a_nonexistent_person_looks_like_everyone_else():
    """A given name of the anchor's gender, never the anchor's own (whose article the row shows), held by as many
    people as a random person's namesakes (so often by none: a name of the vocabulary the universe does not use),
    with a surname the universe uses."""
    g = generated("n500_s1")
    corpus = "\n".join(a.article for a in g.articles)
    vocabulary = load_vocabulary()
    firsts = {"female": set(vocabulary.female_first_names), "male": set(vocabulary.male_first_names)}
    surnames = {name.rsplit(" ", 1)[1] for name in g.universe.names}
    questions = {q.id: q for q in g.questions}
    rows = [r for r in instances("n500_s1") if r["unanswerable_kind"] == "nonexistent_person"]
    assert rows
    unused = 0
    for row in rows:
        (_, name), anchor = premise(row), parse_literal(questions[row["question_id"]].query[-1]).source.strip()[1:-1]
        given, surname = name.split(" ")
        assert name not in g.universe.ids and not re.search(rf"\b{name}\b", corpus), name
        assert surname in surnames and row["premise_status"] == "refuted"
        assert given in firsts[g.universe.gender(g.universe.ids[anchor])] and given != anchor.split(" ")[0]
        unused += not any(n.split(" ")[0] == given for n in g.universe.names)
    assert 0 < unused < len(rows)  # some given names no one holds, as most people have no namesake; not all


def test_the_wording_of_every_row_reads_back_as_its_premise():
    for row in instances("n500_s1"):
        if row["premise"] and row["unanswerable_kind"] != "nonexistent_person":
            assert read_premises(row["question"]) == [premise(row)], row["question"]
        else:
            assert read_premises(row["question"]) == []


def test_every_premise_wording_appears_true_and_not_in_about_equal_numbers():
    """A premise in the question tells nothing until the documents are read: each wording is confirmed in about as
    many rows as it is false or unknown, and the rows a reader must answer are worded like the ones it must not."""
    rows = instances("n500_s1")
    by = Counter((wording(r), r["premise_status"] == "confirmed") for r in rows if r["premise"])
    for key in WORDINGS:
        true, other = by[key, True], by[key, False]
        assert true and other and 0.5 < true / other < 2, (key, true, other)
    shares = {}
    for label in ("sufficient", "insufficient", "unanswerable"):
        counts = Counter(wording(r) for r in rows if r["answerable"] == label)
        shares[label] = {key: counts[key] / sum(counts.values()) for key in ("plain", *WORDINGS)}
    for key in ("plain", *WORDINGS):
        values = [shares[label][key] for label in shares]
        assert max(values) - min(values) < 0.12, (key, shares)


def test_one_variant_of_each_kind_that_applies_per_family():
    families = defaultdict(list)
    for row in instances("n500_s1"):
        families[row["question_family_id"]].append(row)
    kinds = Counter()
    for rows in families.values():
        variants = [r for r in rows if r["answerable"] == "unanswerable"]
        assert max(Counter(r["unanswerable_kind"] for r in variants).values()) == 1
        kinds.update(r["unanswerable_kind"] for r in variants)
        for row in variants:
            assert row["answer"] == [DEFLECTION] and row["citations"] == [] and row["evidence_titles"] == []
    assert set(kinds) == set(KINDS) and min(kinds.values()) > 0.8 * len(families)


def test_the_number_of_variants_per_kind_is_a_setting():
    none = instances("n500_s1", unanswerable=0)
    assert not [r for r in none if r["answerable"] == "unanswerable" or r["premise"]]  # no variants, no controls
    two = instances("n500_s1", unanswerable=2)
    per_family = Counter((r["question_family_id"], r["unanswerable_kind"]) for r in two if r["unanswerable_kind"])
    assert Counter(per_family.values()) and max(per_family.values()) == 2
    questions = {r["question"] for r in two if r["unanswerable_kind"]}
    assert len(questions) == sum(per_family.values())  # two variants of a kind never say the same thing


def test_about_half_the_people_have_each_place_and_places_false_keeps_the_articles_of_0_7_0():
    g = generated("n500_s1")
    for place in places():
        held = sum(value is not None for value in g.universe.attribute(place))
        assert 0.4 < held / len(g.universe) < 0.6
    assert "The city of residence of " in "\n".join(a.article for a in g.articles)
    old = generate(settings_from("n50_s1", places=False)[0])
    digest = hashlib.sha256()
    for subset in ("questions", "corpus", "database"):
        for row in ROWS[subset](old):
            digest.update(json.dumps([subset, row], sort_keys=True).encode())
    assert digest.hexdigest() == V070_N50_S1_WITHOUT_EVIDENCE


# sha256 of the questions, corpus and database rows of n50_s1 at version 0.7.0 (before places existed)
V070_N50_S1_WITHOUT_EVIDENCE = "8b3a8eafe1be1ee666ffb2dab8d36c9fc8eaa6b2bb16bf29bc752e9404d84e88"


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
        assert len(options) >= 2  # the gold alone where its question's siblings allow no decoy (options.py)


def test_decoys_are_sorted_as_gold_answers_are_and_stated_by_the_shown_documents():
    """(The decoys' likeness to the gold, as their answers of sibling questions make it, is held over ten universes in
    test_options.py and test_shortcuts.py.)"""
    checked = 0
    for row in instances("n500_s1"):
        if row["answerable"] != "sufficient":
            continue
        gold = row["answer_options"][row["gold_answer_idx"]]
        text = "\n".join(d["text"] for d in row["documents"])
        for decoy in (o for o in row["answer_options"] if o not in (gold, UNANSWERABLE)):
            items = decoy.split(", ")
            assert items == sorted(items, key=int if row["is_aggregation_question"] else str)
            assert row["is_aggregation_question"] or all(item in text for item in items), (decoy, row["instance_id"])
            checked += 1
    assert checked > 300


def test_count_decoys_are_not_centred_on_the_gold_count():
    ranks = Counter()
    for row in instances("n500_s1"):
        if row["is_aggregation_question"] and row["answerable"] == "sufficient" and len(row["answer"]) == 1:
            numbers = sorted(int(o) for o in row["answer_options"] if o != UNANSWERABLE and "," not in o)
            ranks[numbers.index(int(row["answer"][0]))] += 1
    assert len(ranks) >= 3 and max(ranks.values()) < 0.6 * sum(ranks.values())


def test_rag_has_each_variant_and_a_control_worded_alike_each_with_its_own_retrieval():
    g = generated("n500_s1")
    retrieved = rag("n500_s1", rag_rows="all")  # every row; the balanced default keeps a share (test_instances.py)
    assert len([r for r in retrieved if not r["premise"] and not r["unanswerable_kind"]]) == len(g.questions)
    variants = [r for r in retrieved if r["answerable"] == "unanswerable"]
    assert all(r["answer"] == [DEFLECTION] and not r["retrieved_sufficient"] for r in variants)
    controls = Counter(wording(r) for r in retrieved if r["premise_status"] == "confirmed")
    false = Counter(wording(r) for r in variants if r["unanswerable_kind"] != "nonexistent_person")
    assert sum(controls.values()) > 0.9 * sum(false.values())
    for row in retrieved:
        if row["answerable"] != "unanswerable":
            assert row["answer"] == (row["question_answer"] if row["retrieved_sufficient"] else [DEFLECTION])
