"""The required set: whose own articles a reader needs to prove a question's complete answer, dead ends included."""

from __future__ import annotations

import pytest

from leakproof_qa.builders.phantomwiki.articles import write_article
from leakproof_qa.builders.phantomwiki.reading import Reading
from leakproof_qa.builders.phantomwiki.required import (
    RequiredSets,
    closed_world_statement,
    proven,
    starts_from_attribute,
)
from leakproof_qa.builders.phantomwiki.universe import build_universe
from tests.phantomwiki.careful_reader import Documents, Reader
from tests.phantomwiki.pw_universes import generated

# Yara and Sam have two children, Ann and Bo; Ann has a son, Gus; Bo has no children. Bo and Gus play chess.
NAMES = ["Yara Lee", "Ann Lee", "Bo Lee", "Sam Lee", "Gus Lee"]
FAMILY = build_universe(
    names=NAMES,
    female=bytearray([1, 1, 0, 0, 0]),
    parent_edges=[(1, 0), (1, 3), (2, 0), (2, 3), (4, 1)],
    friend_edges=[(0, 4)],
    dob=["0950-01-01", "0975-02-02", "0977-03-03", "0948-04-04", "1001-05-05"],
    job=["baker", "pilot", "dentist", "pilot", "clerk"],
    hobby=["tango", "chess", "chess", "golf", "chess"],
)
ARTICLES = {NAMES[p]: write_article(FAMILY, p).article for p in range(len(NAMES))}


def required(query: list[str]) -> list[str]:
    return RequiredSets(FAMILY).titles(query)


@pytest.mark.parametrize(
    "query, people",
    [
        (
            ['grandchild("Yara Lee", Y_1)'],
            ["Ann Lee", "Bo Lee", "Yara Lee"],
        ),  # Bo leads nowhere, yet only he can say so
        (['son("Yara Lee", Y_1)'], ["Yara Lee"]),  # the answer's name and gender come from Yara's own list
        (["job(Y_2, Y_1)", 'son("Yara Lee", Y_2)'], ["Bo Lee", "Yara Lee"]),  # an attribute is read from its owner
        (
            ["aggregate_all(count, distinct(child(Y_2, Y_1)), Count_1)", 'daughter("Yara Lee", Y_2)'],
            ["Ann Lee", "Yara Lee"],
        ),
        (['cousin("Gus Lee", Y_1)'], ["Ann Lee", "Bo Lee", "Gus Lee"]),  # his parent's siblings, and their children
        (['friend("Gus Lee", Y_1)'], ["Gus Lee"]),
        (["brother(Y_2, Y_1)", 'hobby(Y_2, "chess")'], ["Ann Lee", "Bo Lee", "Gus Lee"]),  # every holder of the value
    ],
)
def test_the_required_set_holds_everyone_whose_lists_or_attributes_the_question_reads(query, people):
    assert required(query) == people


def test_without_a_dead_end_article_the_answer_still_follows_but_cannot_be_proven_complete():
    query = ['grandchild("Yara Lee", Y_1)']
    without_bo = [ARTICLES[name] for name in ("Yara Lee", "Ann Lee")]
    assert Reading.from_texts(without_bo).answers(query, "Y_1") == ["Gus Lee"]  # true, as far as it goes
    assert Reader(Documents(without_bo)).answer(query) is None  # but Bo might have children: refuse
    assert Reader(Documents(without_bo), careful=False).answer(query) == ["Gus Lee"]
    every = [ARTICLES[name] for name in required(query)]
    assert Reader(Documents(every)).answer(query) == ["Gus Lee"]
    assert proven(Reading.from_texts(every), query) == ["Gus Lee"]  # the generator's text reader, by the same rule
    assert proven(Reading.from_texts(without_bo), query) is None


def test_an_attribute_start_needs_the_closed_world_sentence_and_every_holders_article():
    query = ["brother(Y_2, Y_1)", 'hobby(Y_2, "chess")']
    assert starts_from_attribute(query) and not starts_from_attribute(['son("Yara Lee", Y_1)'])
    sentence = closed_world_statement(FAMILY, query)
    assert sentence == "In this universe, exactly 3 people have the hobby chess."
    assert closed_world_statement(FAMILY, ['son("Yara Lee", Y_1)']) == ""
    assert closed_world_statement(FAMILY, ["son(Y_2, Y_1)", 'job(Y_2, "baker")']).endswith(
        "exactly 1 person has the occupation baker."
    )
    every = [ARTICLES[name] for name in required(query)]
    assert Reader(Documents(every)).answer(query, sentence) == ["Bo Lee"]
    assert Reader(Documents(every)).answer(query) is None  # no set of articles shows nobody else plays chess
    assert Reader(Documents(every[1:])).answer(query, sentence) is None  # a holder is missing
    assert proven(Reading.from_texts(every), query, holders=3) == ["Bo Lee"]
    assert proven(Reading.from_texts(every), query) is None
    assert proven(Reading.from_texts(every[1:]), query, holders=3) is None


def test_the_rule_on_the_universe_gives_the_solvers_answer_to_every_question():
    g = generated("n500_s1")
    sets = RequiredSets(g.universe)
    for q in g.questions:
        assert sets.walk(q.query)[1] == q.answer, q.question


def _shown(names: list[str]):
    from leakproof_qa.builders.phantomwiki.reading import Names, article_statements, compile_article
    from leakproof_qa.builders.phantomwiki.required import Shown

    table = Names()
    articles = [compile_article(table, *article_statements(ARTICLES[name])) for name in names]
    return Shown.of(articles, table), articles, table


def test_a_relation_premise_is_confirmed_by_whoever_states_each_step_in_either_direction():
    # Gus's grandmother is Yara: Gus's article names his mother Ann, and Yara's article names her daughter Ann, so
    # the premise holds without Ann's own article (the 0.8.0 labeller read each step from its stepper's article only)
    from leakproof_qa.builders.phantomwiki.required import relation_premise

    shown, _, table = _shown(["Gus Lee", "Yara Lee"])
    assert relation_premise(shown, "grandmother", table.ids["Gus Lee"], table.ids["Yara Lee"]) is True
    shown, _, table = _shown(["Gus Lee"])  # nobody states Ann's mother: neither confirmed nor refuted
    assert relation_premise(shown, "grandmother", table.ids["Gus Lee"], table.ids["Yara Lee"]) is None


def test_provable_reads_a_list_only_from_its_owners_article():
    from leakproof_qa.builders.phantomwiki.required import provable

    query = ['son("Yara Lee", Y_1)']
    _, articles, table = _shown(["Yara Lee"])
    assert provable(articles, table, query) == ["Bo Lee"]
    _, articles, table = _shown(["Ann Lee", "Bo Lee", "Sam Lee"])  # every child named, but not by Yara's own list
    assert provable(articles, table, query) is None
    _, articles, table = _shown(["Gus Lee", "Yara Lee"])
    assert provable(articles, table, ['friend("Gus Lee", Y_1)']) == ["Yara Lee"]
