"""The careful reader behind the instance labels: sound, complete on the whole corpus, and no cleverer than its
rules."""

from __future__ import annotations

import pytest

from leakproof_qa.builders.evidence import DOCUMENT_FORMATS, render, to_markdown
from leakproof_qa.builders.phantomwiki.articles import read_article
from leakproof_qa.builders.phantomwiki.kinship import Kinship
from leakproof_qa.builders.phantomwiki.reading import Reading
from leakproof_qa.builders.phantomwiki.relations import relations
from tests.phantomwiki.pw_universes import generated


def article(name: str, family: str = "", friends: str = "", attributes: str = "") -> str:
    return f"# {name}\n\n## Family\n{family}\n\n## Friends\n{friends}\n\n## Attributes\n{attributes}\n"


ANN = article(
    "Ann Lee",
    "The brother of Ann Lee is Bo Lee.\nThe mother of Ann Lee is Cy Lee.",
    attributes="The occupation of Ann Lee is baker.\nThe gender of Ann Lee is female.",
)
BO = article("Bo Lee", "The mother of Bo Lee is Cy Lee.", attributes="The occupation of Bo Lee is pilot.")
CY = article("Cy Lee", "The son of Cy Lee is Bo Lee.\nThe daughter of Cy Lee is Ann Lee.")


def test_on_the_whole_corpus_the_reader_knows_every_relation_of_everyone():
    g = generated("n500_s1")
    reading = Reading.from_texts(a.article for a in g.articles)
    kinship, names = Kinship(g.universe), g.universe.names
    for rel in relations():
        for person in range(len(g.universe)):
            theirs = sorted(reading.names.names[y] for y in reading.targets(rel, reading.names.ids[names[person]]))
            assert theirs == sorted(names[y] for y in kinship.targets(rel, person)), (rel, names[person])


def test_a_stated_sibling_counts_without_a_shared_parent():
    reading = Reading.from_texts([ANN])
    assert reading.answers(['brother("Ann Lee", Y_1)'], "Y_1") == ["Bo Lee"]
    assert reading.answers(['sister("Bo Lee", Y_1)'], "Y_1") == ["Ann Lee"]  # the gender sentence says female


def test_siblings_follow_from_a_shared_parent_stated_in_two_articles():
    reading = Reading.from_texts([BO, article("Ann Lee", "The mother of Ann Lee is Cy Lee.")])
    assert reading.answers(['sibling("Bo Lee", Y_1)'], "Y_1") == ["Ann Lee"]
    assert reading.answers(['sister("Bo Lee", Y_1)'], "Y_1") == []  # Ann's gender is not stated here


def test_a_gender_no_sentence_gives_fails_both_filters():
    reading = Reading.from_texts([BO])
    assert reading.answers(['mother("Bo Lee", Y_1)'], "Y_1") == ["Cy Lee"]  # "mother" implies female
    assert reading.answers(['son("Cy Lee", Y_1)'], "Y_1") == []
    assert reading.answers(['daughter("Cy Lee", Y_1)'], "Y_1") == []


def test_attributes_and_the_person_whose_attribute_is():
    reading = Reading.from_texts([ANN, BO])
    assert reading.answers(["job(Y_2, Y_1)", 'brother("Ann Lee", Y_2)'], "Y_1") == ["pilot"]
    assert reading.answers(["sister(Y_2, Y_1)", 'job(Y_2, "pilot")'], "Y_1") == ["Ann Lee"]


def test_a_count_needs_the_counted_persons_own_article():
    query = ["aggregate_all(count, distinct(child(Y_2, Y_1)), Count_1)", 'mother("Bo Lee", Y_2)']
    assert Reading.from_texts([BO, ANN]).answers(query, "Count_1") is None  # Cy Lee's article is absent
    assert Reading.from_texts([BO, CY]).answers(query, "Count_1") == ["2"]
    assert Reading.from_texts([BO, CY]).counts(query) == {"Cy Lee": 2}


def test_a_reading_never_derives_what_the_universe_denies():
    g = generated("n500_s2")
    for q in g.questions:
        if q.is_aggregation_question:
            continue
        ids = {t.split('"')[1] for t in q.evidence if '"' in t}
        texts = [a.article for a in g.articles if a.title in ids][: max(1, len(ids) // 2)]
        derived = Reading.from_texts(texts).answers(q.query, q.answer_variable)
        assert set(derived) <= set(q.answer), q.question


@pytest.mark.parametrize("fmt", DOCUMENT_FORMATS)
def test_every_document_format_states_the_same_facts(fmt):
    g = generated("n50_s1")
    for a in g.articles:
        shown = render(a.article, fmt)
        assert read_article(to_markdown(shown, fmt)) == read_article(a.article)
        if fmt == "html":
            assert shown.startswith("<article>\n<h1>") and "<h2>Family</h2>" in shown
        if fmt == "text":
            assert "#" not in shown and "Family:" in shown


def test_a_reading_that_walked_its_paths_is_freed_without_the_cyclic_collector():
    """Readings are made for many article sets per row; one that held itself (its walker's moves as its own bound
    methods) was garbage for the cyclic collector only, a collection's worth every few rows."""
    import gc
    import weakref

    g = generated("n50_s1")
    reading = Reading.from_texts(a.article for a in g.articles)
    walked = {rel: reading.targets(rel, person) for rel in relations() for person in range(5)}
    assert any(walked.values())  # siblings and spouses too: every move of the walker was read
    gone = weakref.ref(reading)
    enabled = gc.isenabled()
    gc.disable()
    try:
        del reading
        assert gone() is None
    finally:
        if enabled:
            gc.enable()
