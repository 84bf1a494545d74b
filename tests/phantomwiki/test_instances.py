"""Evidence instances a careful reader can verify: sufficient documents prove the complete gold answer, insufficient
ones cannot."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter, defaultdict

import numpy as np
import pytest

from leakproof_qa.builders.evidence import ABLATION_LEVELS, to_markdown
from leakproof_qa.builders.metrics import DEFLECTION
from leakproof_qa.builders.phantomwiki.config import ConfigError, settings_from
from leakproof_qa.builders.phantomwiki.instances import build_instances
from leakproof_qa.builders.phantomwiki.reading import Names, Reading, article_statements, compile_article
from leakproof_qa.builders.phantomwiki.required import ROLES, RequiredSets, proven, starts_from_attribute
from leakproof_qa.builders.retrieval import Bm25Index
from tests.phantomwiki.careful_reader import Documents, Reader, narrowed
from tests.phantomwiki.pw_universes import generated, instances, rag


def check_labels(g, rows, fmt: str = "markdown") -> None:
    """Read every instance's documents as the careful reader does: it gives exactly the gold answer on each
    sufficient instance and refuses on each insufficient one; the generator's own text reader agrees on
    every row, and its lenient reader (every sentence) derives the gold answer from each sufficient one."""
    questions = {q.id: q for q in g.questions}
    required = RequiredSets(g.universe)
    names, compiled, markdown = Names(), {}, {}  # each distinct text is converted and parsed once

    def shown(text):
        if text not in markdown:
            markdown[text] = to_markdown(text, fmt)
        return markdown[text]

    def lenient(text):
        if text not in compiled:
            compiled[text] = compile_article(names, *article_statements(text))
        return compiled[text]

    for row in rows:
        q = questions[row["question_id"]]
        texts = [shown(doc["text"]) for doc in row["documents"]]
        careful = Reader(Documents(texts)).answer(q.query, row["closed_world"], row["question"])
        reading = Reading([lenient(text) for text in texts], names)
        query = narrowed(q.query, row["question"])  # a relation premise names the one person the question asks about
        if row["answerable"] != "unanswerable" and (not row["premise"] or careful is not None):
            # the generator's text reader reads queries, not premises
            assert proven(reading, query, required.holders(q.query)) == careful, row["instance_id"]
        if row["answerable"] == "sufficient":
            assert careful == row["question_answer"] == row["answer"], row["instance_id"]
            assert reading.answers(query, q.answer_variable) == row["answer"], row["instance_id"]
            if query == q.query:
                assert row["answer"] == q.answer
        else:
            assert careful is None, row["instance_id"]
            assert row["answer"] == [DEFLECTION]
        assert bool(row["closed_world"]) == starts_from_attribute(q.query)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["n500_s1", "n500_s2", "n500_s3", "n5000_s1", "n5000_s2"])
def test_the_careful_reader_answers_every_sufficient_instance_and_refuses_every_insufficient_one(name):
    g = generated(name)
    rows = instances(name)
    assert {r["answerable"] for r in rows} == {"sufficient", "insufficient", "unanswerable"}
    check_labels(g, rows)


def test_attribute_start_questions_get_instances_only_in_a_closed_world_when_asked():
    g = generated("n500_s1")
    by_default = instances("n500_s1")
    assert not any(r["closed_world"] for r in by_default)
    assert {starts_from_attribute(q.query) for q in g.questions if q.id in {r["question_id"] for r in by_default}} == {
        False
    }
    closed = instances("n500_s1", attribute_questions=True)
    attribute_rows = [r for r in closed if r["closed_world"]]
    assert {r["answerable"] for r in attribute_rows} == {"sufficient", "insufficient"}
    assert all(r["closed_world"].startswith("In this universe, exactly ") for r in attribute_rows)
    check_labels(g, closed)


@pytest.mark.slow
@pytest.mark.parametrize(
    "knobs",
    [
        {"instance_layout": "ablation", "distractors": "easy"},
        {"instance_layout": "fixed", "instance_documents": 10, "document_format": "html", "attribute_questions": True},
        {"instance_layout": "ablation", "document_format": "text", "max_evidence": 40},
    ],
)
def test_labels_stay_exact_in_every_layout_kind_and_format(knobs):
    g = generated("n500_s2", questions_per_template=4)  # 200 questions: the ablation layout shows up to 80 more each
    settings = dataclasses.replace(g.settings, **knobs)
    check_labels(g, build_instances(g, settings), settings.document_format)


def by_question(rows):
    groups = defaultdict(list)
    for row in rows:
        groups[row["question_id"]].append(row)
    return groups


def test_by_default_one_insufficient_instance_per_role_of_missing_article():
    """NeoQA's figure 5 asks which missing article models notice: each question has at most one insufficient row
    per role (anchor, answer, bridge, dead end), its missing article one of that role."""
    g = generated("n500_s1")
    sets = RequiredSets(g.universe)
    questions = {q.id: q for q in g.questions}
    names = g.universe.names
    for question_id, rows in by_question(instances("n500_s1")).items():
        assert [r["answerable"] for r in rows].count("sufficient") == 1
        insufficient = [r for r in rows if r["answerable"] == "insufficient"]
        roles = [r["missing_role"] for r in insufficient]
        assert len(roles) == len(set(roles)) and set(roles) <= set(ROLES)
        q = questions[question_id]
        plain = {names[p]: role for p, role in sets.roles(q.query).items()}
        assert set(roles) == set(plain.values())  # every role the question has
        for row in insufficient:
            if narrowed(q.query, row["question"]) == q.query:
                assert plain[row["missing_article"]] == row["missing_role"]
        for row in rows:
            titles = [d["title"] for d in row["documents"]]
            assert row["missing_article"] not in titles and bool(row["missing_article"]) == bool(row["missing_role"])
            assert [titles[i] for i in row["citations"]] == [t for t in titles if t in set(row["evidence_titles"])]
            assert not set(row["distractor_titles"]) & set(row["evidence_titles"])
            assert row["num_distractors"] == len(row["distractor_titles"])


def test_insufficient_all_gives_one_instance_per_required_article():
    g = generated("n500_s1")
    sets = RequiredSets(g.universe)
    questions = {q.id: q for q in g.questions}
    for question_id, rows in by_question(instances("n500_s1", insufficient="all")).items():
        missing = sorted(r["missing_article"] for r in rows if r["answerable"] == "insufficient")
        assert missing == sets.titles(questions[question_id].query)


def test_roles_split_the_required_set_of_a_hand_made_family():
    """Ann's brother Bo has two children, Cy (with a son) and Di (none): "Who is the son of the child of the brother
    of Ann?" reads Ann (anchor), Bo (bridge), Cy (his list names the answer) and Di (a dead end)."""
    from leakproof_qa.builders.phantomwiki.universe import build_universe

    names = ["Ann Lee", "Bo Lee", "Cy Lee", "Di Lee", "Ed Lee", "Fa Lee", "Gus Lee"]
    female = bytearray([1, 0, 0, 1, 0, 1, 0])
    parents = [(0, 5), (1, 5), (1, 6), (0, 6), (2, 1), (3, 1), (4, 2)]  # (child, parent): Fa and Gus are the parents
    universe = build_universe(names, female, parents, [], [None] * 7, [None] * 7, [None] * 7)
    query = ["son(Y_4, Y_6)", "child(Y_2, Y_4)", 'brother("Ann Lee", Y_2)']
    roles = {names[p]: role for p, role in RequiredSets(universe).roles(query).items()}
    assert roles == {"Ann Lee": "anchor", "Bo Lee": "bridge", "Cy Lee": "answer", "Di Lee": "dead_end"}


def test_every_question_within_max_evidence_has_instances():
    g = generated("n500_s3")
    person_start = {q.id for q in g.questions if not starts_from_attribute(q.query)}
    assert {r["question_id"] for r in instances("n500_s3", max_evidence=10_000)} == person_start
    everything = instances("n500_s3", max_evidence=10_000, attribute_questions=True)
    assert {r["question_id"] for r in everything} == {q.id for q in g.questions}


def test_fixed_layout_draws_each_rows_number_of_documents_from_the_range():
    """Every row of a family draws its count from one range: [the family's largest own set of articles and room for
    a shadow, or instance_documents_min; instance_documents, or that], so no count tells a label."""
    counts = set()
    families = by_question(instances("n500_s1", instance_documents=12, instance_documents_min=6))
    for rows in families.values():
        own = [
            len([d for d in r["documents"] if d["title"] not in r["distractor_titles"]]) + bool(r["missing_article"])
            for r in rows
        ]
        low = max(6, min(max(own) + 3, max(12, max(own))))
        for row in rows:
            assert low <= len(row["documents"]) <= max(12, low) or row["num_distractors"] == 0, row["instance_id"]
            counts.add(len(row["documents"]))
    assert len(counts) >= 5  # the count varies row by row, not by label


def test_no_two_rows_share_a_document_list_and_ids_name_no_label():
    for rows in (instances("n500_s1"), rag("n500_s1")):
        ids = [r["instance_id"] for r in rows]
        assert len(set(ids)) == len(ids)
        assert all(re.fullmatch(r"[0-9a-f]{20}", i) for i in ids)
    lists = [tuple(d["title"] for d in r["documents"]) for r in instances("n500_s1")]
    assert len(set(lists)) == len(lists)
    for name in ("n500_s1", "n500_s2"):  # nor does any row show a document twice (a shadow was once also drawn)
        assert all(len({d["title"] for d in r["documents"]}) == len(r["documents"]) for r in instances(name))
    for rows in by_question(instances("n500_s1")).values():  # nor do two rows of a question with room for distractors
        sets = [frozenset(d["title"] for d in r["documents"]) for r in rows if r["num_distractors"]]
        assert len(set(sets)) == len(sets)


def test_the_rows_of_a_question_come_in_a_seeded_order_that_does_not_start_with_the_sufficient_one():
    first = [rows[0]["answerable"] for rows in by_question(instances("n500_s1")).values()]
    assert 0.02 < first.count("sufficient") / len(first) < 0.3


@pytest.mark.slow
def test_ablation_levels_nest_each_smaller_distractor_set_in_the_larger():
    rows = instances("n5000_s1", instance_layout="ablation")
    ladders = defaultdict(list)  # the rows of one wording and label, one per level
    for r in rows:
        ladders[r["question_id"], r["question"], r["answerable"], r["missing_article"]].append(r)
    for rungs in ladders.values():
        ladder = sorted(rungs, key=lambda r: r["num_distractors"])
        assert [r["num_distractors"] for r in ladder] == list(ABLATION_LEVELS)
        for small, large in zip(ladder, ladder[1:]):
            assert set(small["distractor_titles"]) < set(large["distractor_titles"])


@pytest.mark.slow
def test_hard_distractors_rank_far_closer_to_the_question_than_easy_ones():
    g = generated("n5000_s1")
    index = Bm25Index([a.article for a in g.articles])
    position = {a.title: i for i, a in enumerate(g.articles)}
    mean_rank = {}
    for kind in ("hard", "easy"):
        ranks = []
        for row in instances("n5000_s1", distractors=kind):
            if row["answerable"] == "sufficient" and row["distractor_titles"]:
                query = "\n".join(
                    [row["question"]] + [d["text"] for d in row["documents"] if d["title"] in row["evidence_titles"]]
                )
                scores = index.scores(query)
                rank = np.empty(len(scores), dtype=np.int64)
                rank[np.argsort(-scores, kind="stable")] = np.arange(len(scores))
                ranks += [rank[position[t]] for t in row["distractor_titles"]]
        mean_rank[kind] = np.mean(ranks)
    assert mean_rank["easy"] > len(g.articles) / 3  # random articles sit mid-table
    assert mean_rank["hard"] < mean_rank["easy"] / 4


def test_instances_are_deterministic_and_depend_on_the_seed():
    g = generated("n500_s1")
    easy = dataclasses.replace(g.settings, distractors="easy")
    assert build_instances(g, easy) == build_instances(g, easy)
    other = dataclasses.replace(easy, seed=easy.seed + 1)
    first = [r["distractor_titles"] for r in build_instances(g, easy)]
    assert first != [r["distractor_titles"] for r in build_instances(g, other)]


def test_rag_rows_hold_the_bm25_top_k_and_are_sufficient_exactly_when_the_careful_reader_answers():
    g = generated("n500_s1")
    index = Bm25Index([a.article for a in g.articles])
    every = rag("n500_s1", retrieval_k=6, rag_rows="all")
    rows = [r for r in every if not r["premise"]]  # variants and controls: test_variants.py
    assert len(rows) == len(g.questions)
    questions = {q.id: q for q in g.questions}
    for row in rows:
        q = questions[row["question_id"]]
        assert row["retrieved_titles"] == [g.articles[i].title for i in index.retrieve([q.question], 6)[0]]
        assert [d["title"] for d in row["documents"]] == row["retrieved_titles"]
        careful = Reader(Documents(d["text"] for d in row["documents"])).answer(q.query, row["closed_world"])
        assert row["retrieved_sufficient"] == (careful is not None)
        assert row["answer"] == (q.answer if row["retrieved_sufficient"] else [DEFLECTION])
        if row["retrieved_sufficient"]:
            assert careful == q.answer
            cited = [row["documents"][i]["text"] for i in row["citations"]]
            assert Reader(Documents(cited)).answer(q.query, row["closed_world"]) == q.answer
        else:
            assert row["citations"] == []
    assert any(r["retrieved_sufficient"] for r in rows) and not all(r["retrieved_sufficient"] for r in rows)
    assert any(r["retrieved_sufficient"] and r["closed_world"] for r in rows)


def test_balanced_rag_keeps_as_many_rows_to_answer_as_to_refuse_at_every_question_length_and_wording():
    every = {r["instance_id"]: r for r in rag("n500_s1", rag_rows="all")}
    hops = {q.id: sum(t.startswith("<relation>") for t in q.template) for q in generated("n500_s1").questions}
    kept = rag("n500_s1")
    cells: dict[tuple, Counter] = {}
    for row in kept:
        assert every[row["instance_id"]] == row  # a share of the rows, each as it is
        assert not row["closed_world"]  # attribute-start questions only with attribute_questions=True, as instances
        cell = (hops[row["question_id"]], row["is_aggregation_question"])  # the relations its text names
        cells.setdefault(cell, Counter())[row["answerable"] == "sufficient"] += 1
    assert sum(c[True] for c in cells.values()) >= 50
    for cell, labels in cells.items():
        assert labels[True] == labels[False], cell
    assert rag("n500_s1") == kept  # seeded


@pytest.mark.parametrize(
    "knob, value, message",
    [
        ("instance_layout", "spiral", "instance_layout='spiral' is out of range: expected one of fixed, ablation"),
        ("distractors", "medium", "distractors='medium' is out of range: expected one of hard, easy"),
        ("document_format", "pdf", "document_format='pdf' is out of range: expected one of markdown, text, html"),
        ("retriever", "bm26", "retriever='bm26' is out of range: expected one of bm25plus, rank_bm25"),
        ("retrieval_k", 0, "retrieval_k=0 is out of range: expected at least 1"),
        ("instance_documents", "ten", "instance_documents='ten' must be a whole number"),
        ("questions_per_template", 0.5, "questions_per_template=0.5 must be a whole number"),
        ("max_children", True, "max_children=True must be a whole number"),
        ("easy_mode", 1, "easy_mode=1 must be True or False"),
        ("friendship_degree", False, "friendship_degree=False must be a number"),
    ],
)
def test_a_bad_instance_knob_is_a_one_line_error(knob, value, message):
    with pytest.raises(ConfigError) as error:
        settings_from("n500_s1_instances", **{knob: value})
    assert str(error.value) == message


def test_instances_is_a_subset_of_every_configuration():
    settings, subset = settings_from("n5000_s1_instances")
    assert subset == "instances" and settings.instance_layout == "fixed" and settings.distractors == "hard"
    assert settings_from("n50_d10_s3_rag")[1] == "rag"


@pytest.mark.parametrize("name, knobs", [("n500_s1", {}), ("n300_d10_s4", {"friendship_degree": 6.0})])
def test_who_names_whom_and_who_holds_what_equal_reading_every_article(name, knobs):
    """Distractors are kept apart from the articles that name a question's people; the engine takes those from the
    universe, and they must be exactly what reading every article's text gives."""
    from leakproof_qa.builders.phantomwiki.articles import read_article
    from leakproof_qa.builders.phantomwiki.instances import Evidence
    from leakproof_qa.builders.phantomwiki.reading import GENDER_OF_OBJECT

    g = generated(name, **knobs)
    named_by: dict[str, set[str]] = defaultdict(set)
    holding: dict[tuple[str, str], set[str]] = defaultdict(set)
    for article in g.articles:
        for predicate, _, obj in read_article(article.article):
            if predicate in GENDER_OF_OBJECT or predicate == "friend":
                named_by[obj].add(article.title)
            else:
                holding[predicate, obj].add(article.title)
    evidence = Evidence(g)
    assert all(set(evidence.corpus.naming(article.title)) == named_by[article.title] for article in g.articles)
    assert all(set(evidence.corpus.holding(*key)) == titles for key, titles in holding.items())
