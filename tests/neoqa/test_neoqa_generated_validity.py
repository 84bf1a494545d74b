"""Only reading tells (spec/validity.md), by construction, for generated NeoQA: what imitates something is drawn from
the pool of what it imitates. A false premise's day and an uncertain place are shown by the evidence articles for
another fact; options are sibling answers the row's documents state; number answers sit at every rank alike; an
insufficient row shows as many articles as its sufficient row, dated alike."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import pytest
from scipy.stats import chisquare

from leakproof_qa.builders.neoqa import textcheck
from leakproof_qa.builders.neoqa.generate import subset_rows
from leakproof_qa.builders.neoqa.options import number_of
from leakproof_qa.builders.neoqa.settings import INSTANCE_SUBSETS, SUBSETS, settings_from

NAME = "t24_s5"


@pytest.fixture(scope="module")
def timelines() -> list[dict[str, list[dict]]]:
    settings, _ = settings_from(NAME)
    return [subset_rows(settings, index, SUBSETS) for index in range(settings.timelines)]


def _text(article: dict) -> str:
    return "\n".join([article["headline"], *article["passages"]])


def _days_stated(articles: list[dict]) -> Counter:
    """How many facts the articles state on each day (read from the text)."""
    return Counter(said.day for article in articles for said in textcheck.article_facts(article)[0])


# ------------------------------------------------------------------ premises from their controls' pool


def test_a_false_premise_day_is_one_the_evidence_articles_state_for_another_fact_before_the_question_date(timelines):
    checked = 0
    for rows in timelines:
        news = {a["article_id"]: a for a in rows["news"]}
        questions = {q["question_id"]: q for q in rows["questions"]}
        for question in rows["questions"]:
            if question["meta"].get("detail") != "date":
                continue
            parent = questions[question["parent_question_id"]]
            shown = [news[a] for a in parent["sufficient_article_ids"]]
            day = textcheck.read_date(question["meta"]["detail_value"])
            assert _days_stated(shown)[day] >= 1  # the documents show the day, for the control and the false premise
            assert day.isoformat() <= question["date"]
            checked += question["category"] == "false-premise"
    assert checked > 20


def test_an_uncertain_place_is_a_place_the_evidence_articles_state_for_another_fact(timelines):
    checked = places = 0
    for rows in timelines:
        news = {a["article_id"]: a for a in rows["news"]}
        questions = {q["question_id"]: q for q in rows["questions"]}
        for question in rows["questions"]:
            if question["category"] != "uncertain-specificity":
                continue
            parent = questions[question["parent_question_id"]]
            said = [s for a in parent["sufficient_article_ids"] for s in textcheck.article_facts(news[a])[0]]
            named = {name for s in said for name in (s.subject, s.obj, s.place, s.at)}
            assert question["meta"]["detail_value"] in named  # the place of another fact, else a town a fact names
            places += question["meta"]["detail_value"] in {s.place for s in said}
            checked += 1
    assert checked > 5 and places > checked / 2


def test_day_controls_and_false_premises_come_in_pairs(timelines):
    for rows in timelines:
        by_parent = Counter(
            (q["parent_question_id"], q["category"]) for q in rows["questions"] if q["meta"].get("detail") == "date"
        )
        parents = {parent for parent, _ in by_parent}
        for parent in parents:
            assert by_parent[parent, "multi-hop"] == by_parent[parent, "false-premise"] == 1


# ------------------------------------------------------------------ options per row


def test_every_option_is_a_value_the_rows_documents_state(timelines):
    """No option is findable as "the one the documents mention": each multi-hop option is stated by a shown
    article, and each time span is the days between two days the shown articles state."""
    for rows in timelines:
        texts = {a["article_id"]: _text(a) for a in rows["news"]}
        days = {a["article_id"]: set(_days_stated([a])) for a in rows["news"]}  # each article read once
        for subset in INSTANCE_SUBSETS:
            for row in rows[subset]:
                shown = row["use_evidence_documents"]
                options = [o for o in row["answer_options"] if o != "Unanswerable"]
                assert options, row["instance_id"]
                if row["category"] == "time-span":
                    stated = set().union(*(days[a] for a in shown))
                    spans = {abs((x - y).days) for x in stated for y in stated}
                    assert all(int(number_of(o)) in spans for o in options), row["instance_id"]
                else:
                    assert all(any(o in texts[a] for a in shown) for o in options), row["instance_id"]
                if row["answerable"] == "sufficient":
                    assert row["answer"] in options


def test_every_row_of_a_question_in_a_set_has_as_many_options(timelines):
    for rows in timelines:
        for subset in INSTANCE_SUBSETS:
            sizes = defaultdict(set)
            for row in rows[subset]:
                sizes[row["question_family_id"], len(row["irrelevant_article_ids"])].add(len(row["answer_options"]))
            assert all(len(size) == 1 for size in sizes.values())


def test_rows_showing_the_same_documents_show_the_same_options(timelines):
    for rows in timelines:
        for subset in INSTANCE_SUBSETS:
            options = defaultdict(set)
            for row in rows[subset]:
                options[row["question_family_id"], tuple(row["use_evidence_documents"])].add(
                    tuple(row["answer_options"])
                )
            assert all(len(seen) == 1 for seen in options.values())


def test_a_context_ablation_shows_the_same_options_at_every_size(timelines):
    """An ablation varies the context alone: a question's sufficient row (or the row missing one article) shows the
    same options with 0 irrelevant articles as with 80, those the smallest row's documents state."""
    checked = 0
    for rows in timelines:
        options = defaultdict(set)
        for row in rows["context-ablation"]:
            plan = (row["question_id"], row["answerable"], tuple(row.get("removed_article_ids") or ()))
            options[plan].add(tuple(row["answer_options"]))
            checked += 1
        assert all(len(seen) == 1 for seen in options.values())
    assert checked > 100


def test_a_number_answer_sits_at_every_rank_among_its_options_alike():
    """Days, amounts, counts, percentages and quantities: the gold's rank among a row's options (but Unanswerable) is
    uniform, so "the smallest number" or "the middle one" gets chance (sufficient rows of every set, pooled)."""
    settings, _ = settings_from("t60_s8")
    ranks: dict[int, Counter] = defaultdict(Counter)
    for index in range(settings.timelines):
        rows = subset_rows(settings, index, INSTANCE_SUBSETS)
        for subset in INSTANCE_SUBSETS:
            for row in rows[subset]:
                options = [o for o in row["answer_options"] if o != "Unanswerable"]
                if row["answerable"] != "sufficient" or len(options) < 2 or not re.match(r"\$?[0-9]", row["answer"]):
                    continue
                order = sorted(options, key=number_of)
                ranks[len(options)][order.index(row["answer"])] += 1
    tested = 0
    for size, counts in ranks.items():
        if sum(counts.values()) >= 30 * size:
            assert chisquare([counts[r] for r in range(size)]).pvalue > 0.001, (size, counts)
            tested += 1
    assert tested >= 2


# ------------------------------------------------------------------ insufficient rows keep their sufficient row's shape


def test_an_insufficient_row_shows_as_many_articles_as_its_sufficient_row_dated_alike(timelines):
    kept = unkept = 0
    for rows in timelines:
        dates = {a["article_id"]: a["date"] for a in rows["news"]}
        for subset in INSTANCE_SUBSETS:
            sufficient = {
                (r["question_id"], len(r["irrelevant_article_ids"])): r
                for r in rows[subset]
                if r["answerable"] == "sufficient"
            }
            for row in rows[subset]:
                if row["answerable"] != "insufficient":
                    continue
                twin = sufficient[row["question_id"], len(row["irrelevant_article_ids"])]
                if len(row["use_evidence_documents"]) != len(twin["use_evidence_documents"]):
                    unkept += 1
                    continue
                kept += 1
                shown = Counter(dates[a] for a in row["use_evidence_documents"])
                expected = Counter(dates[a] for a in twin["use_evidence_documents"])
                if subset != "neoqa":  # one article in another's place, of the same event where there is one
                    assert sum((shown - expected).values()) <= 1
    assert kept and unkept <= 0.05 * (kept + unkept)


def test_the_insufficient_row_lacks_exactly_the_missing_items(timelines):
    """A replacement states none of the items the row misses (so the label stays exact) and is no article the
    sufficient row shows."""
    for rows in timelines:
        used = {a["article_id"]: set(a["used_items"]) for a in rows["news"]}
        for subset in INSTANCE_SUBSETS:
            for row in rows[subset]:
                if row["answerable"] != "insufficient":
                    continue
                stated = set().union(*(used[a] for a in row["use_evidence_documents"]))
                assert not stated & set(row["missing_evidence_ids"])
                assert len(set(row["use_evidence_documents"])) == len(row["use_evidence_documents"])


# ------------------------------------------------------------------ the careful reader, every set, several universes


@pytest.mark.slow
@pytest.mark.parametrize("name", ["t40_s1", "t40_s2", "t40_e12_s3"])
def test_the_text_checker_and_the_careful_reader_agree_with_every_row_of_every_set(name):
    settings, _ = settings_from(name)
    rows_seen = 0
    for index in range(settings.timelines):
        rows = subset_rows(settings, index, SUBSETS)
        outline = textcheck.outline_facts(rows["timelines"][0])
        names = textcheck.known_names(rows["timelines"][0])
        for article in rows["news"]:
            assert textcheck.article_problems(article, outline, names) == []
        reader = textcheck.CarefulReader(rows["news"])
        for subset in INSTANCE_SUBSETS:
            for row in rows[subset]:
                assert reader.answer(row["question"], row["use_evidence_documents"]) == row["answer"], row
                rows_seen += 1
    assert rows_seen > 1000
