"""The articles state everything the answers need: re-reading their text alone gives the same answers."""

from __future__ import annotations

import pytest

from leakproof_qa.builders.phantomwiki.articles import article_facts, family_of, read_article
from leakproof_qa.builders.phantomwiki.kinship import Kinship
from leakproof_qa.builders.phantomwiki.solver import Solver
from leakproof_qa.builders.phantomwiki.universe import build_universe
from tests.phantomwiki.pw_universes import generated


def universe_from_text(articles):
    """Rebuild a universe from nothing but the article texts."""
    statements = [s for article in articles for s in read_article(article.article)]
    names = [article.title for article in articles]
    ids = {name: i for i, name in enumerate(names)}
    female = bytearray(len(names))
    attrs = {attr: [None] * len(names) for attr in ("dob", "job", "hobby")}
    parent_edges, friend_edges = [], []
    for predicate, subject, obj in statements:
        if predicate == "gender":
            female[ids[subject]] = obj == "female"
        elif predicate in attrs:
            attrs[predicate][ids[subject]] = obj
        elif predicate in ("mother", "father"):
            parent_edges.append((ids[subject], ids[obj]))
        elif predicate in ("son", "daughter"):
            parent_edges.append((ids[obj], ids[subject]))
        elif predicate == "friend":
            friend_edges.append((ids[subject], ids[obj]))
    return build_universe(
        names, female, parent_edges, friend_edges, attrs["dob"], attrs["job"], attrs["hobby"]
    ), statements


@pytest.mark.parametrize("name", ["n50_s1", "n500_s1", "n500_s3", "n5000_s2"])
def test_answers_from_the_article_text_alone_are_the_gold_answers(name):
    g = generated(name)
    universe, _ = universe_from_text(g.articles)
    solver = Solver(Kinship(universe))
    for q in g.questions:
        assert solver.solve(q.query, q.answer_variable).answers == q.answer, q.question


@pytest.mark.parametrize("name", ["n50_s1", "n500_s3"])
def test_every_family_sentence_is_true_and_complete(name):
    g = generated(name)
    universe, statements = universe_from_text(g.articles)
    stated = {(p, s, o) for p, s, o in statements}
    expected = set()
    for person in range(len(universe)):
        for rel, linked in family_of(g.universe, person).items():
            expected |= {(rel, g.universe.names[person], g.universe.names[other]) for other in linked}
    assert {
        t for t in stated if t[0] in ("sister", "brother", "mother", "father", "son", "daughter", "wife", "husband")
    } == expected


def test_an_article_reads_as_the_spec_shows(n50=None):
    g = generated("n50_s1")
    article = g.articles[0]
    lines = article.article.splitlines()
    assert lines[0] == f"# {article.title}"
    assert lines[2] == "## Family" and "## Friends" in lines and "## Attributes" in lines
    assert f"The gender of {article.title} is " in article.article
    facts = article_facts(g.universe, 0)
    assert facts and all(fact.startswith(f'{fact.split("(")[0]}("{article.title}", "') for fact in facts)
    assert [(p, s, o) for p, s, o in read_article(article.article)] == [
        (fact.split("(")[0], article.title, fact.rsplit('"', 2)[1]) for fact in facts
    ]


def test_evidence_facts_are_stated_in_the_articles():
    g = generated("n500_s1")
    stated = {(p, s, o) for a in g.articles for p, s, o in read_article(a.article)}
    people = {(p, s) for p, s, _ in stated}
    for q in g.questions:
        for fact in q.evidence:
            predicate, args = fact.split("(", 1)
            first, second = (a.strip().strip('"') for a in args[:-1].split('", "'))
            if predicate == "parent":
                assert ("mother", first, second) in stated or ("father", first, second) in stated
            elif predicate == "friend":
                assert ("friend", first, second) in stated
            else:
                assert (predicate, first, second) in stated and (predicate, first) in people
