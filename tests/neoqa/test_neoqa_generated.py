"""Generated NeoQA (t{timelines}[_e{events}]_s{seed}[_{subset}]): deterministic, in the release's schema, and every
label exact — checked against a reader of the text (builders.neoqa.textcheck), not against the generator's records."""

from __future__ import annotations

import datetime
import gc
import hashlib
import json
import re
from collections import Counter

import pytest

import neoqa
from leakproof_qa.builders.neoqa import textcheck
from leakproof_qa.builders.neoqa.generate import (
    GeneratedSplit,
    release_records,
    subset_rows,
    timeline_records,
    timeline_rows,
)
from leakproof_qa.builders.neoqa.instances import CHILDREN_PER_CATEGORY, InstanceBuilder
from leakproof_qa.builders.neoqa.release import canonical_json, question_row, read_rows
from leakproof_qa.builders.neoqa.settings import (
    INSTANCE_SUBSETS,
    SUBSETS,
    ConfigError,
    Settings,
    format_name,
    settings_from,
)
from leakproof_qa.encryption.neoqa_codec import ReleaseFormatError, write_jsonl

SMALL = "t3_s1"


@pytest.fixture(scope="module")
def timelines() -> list[dict[str, list[dict]]]:
    """Every subset's rows of each timeline of the small configuration."""
    settings, _ = settings_from(SMALL)
    return [subset_rows(settings, index, SUBSETS) for index in range(settings.timelines)]


def digest(rows: object) -> str:
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


# ------------------------------------------------------------------ names and settings


def test_a_name_parses_once_into_settings_and_back():
    settings, subset = settings_from("t50_e8_s3_questions", multi_hop=2)
    assert (settings.timelines, settings.events, settings.seed, settings.multi_hop, subset) == (
        50,
        8,
        3,
        2,
        "questions",
    )
    assert format_name(settings, subset) == "t50_e8_s3_questions"
    assert format_name(settings_from("t200_s1")[0]) == "t200_s1"


@pytest.mark.parametrize(
    "name, knobs, says",
    [
        ("t3_s1_nonsense", {}, "unknown subset 'nonsense'"),
        ("t03_s1", {}, "does not match the grammar"),
        ("t0_s1", {}, r"timelines=0 is out of range: expected 1 to 100000"),
        ("t3_e1_s1", {}, r"events=1 is out of range"),
        ("t3_s1", {"articles_per_event": 0}, "articles_per_event=0 is out of range"),
        ("t3_s1", {"multi_hop": 2.5}, "multi_hop=2.5 must be a whole number"),
        ("t3_s1", {"seed": 2}, "seed=2 contradicts the configuration name 't3_s1'"),
        ("t3_s1", {"colour": 1}, "unknown NeoQA setting 'colour'"),
    ],
)
def test_a_bad_name_or_value_is_one_line(name, knobs, says):
    with pytest.raises(ConfigError, match=says) as error:
        settings_from(name, **knobs)
    assert "\n" not in str(error.value)


def test_load_dataset_refuses_in_one_line_before_generating(tmp_path):
    for name, kwargs, says in [
        ("t3_s1", {"split": "dev"}, "has one split, 'test'"),
        ("t3_s1", {"data_dir": str(tmp_path)}, "reads no release files: leave out data_dir"),
        ("t3_s1", {"colour": 1}, "unknown NeoQA setting 'colour'"),
        ("news", {"multi_hop": 2, "data_dir": str(tmp_path)}, "multi_hop is a setting of generated configurations"),
    ]:
        with pytest.raises(ConfigError, match=says) as error:
            neoqa.load_dataset(name, cache_dir=str(tmp_path / "cache"), **kwargs)
        assert "\n" not in str(error.value)


def test_list_names_the_grammar_and_every_setting_once(capsys):
    assert neoqa.main(["list"]) == 0
    out = capsys.readouterr().out
    assert "t{timelines}[_e{events}]_s{seed}[_{subset}]" in out
    for name in ("timelines", "seed", "events", *Settings.knobs()):
        assert len(re.findall(rf"^  {name} ", out, re.M)) == 1


# ------------------------------------------------------------------ determinism and subsets


def test_the_same_name_gives_the_same_bytes_and_another_seed_other_bytes(timelines):
    settings, _ = settings_from(SMALL)
    other, _ = settings_from("t3_s2")
    assert digest(timelines) == digest([subset_rows(settings, i, SUBSETS) for i in range(3)])
    assert digest(timelines[0]["news"]) != digest(timeline_rows(other, 0, ("news",))["news"])


# The rows of every subset of t20_s1, as JSON with their keys in order. A change here is a change of the data every
# published t*_s* name stands for: pin the new digest only on purpose, and say so in the changelog.
PINNED_T20_S1 = "29eac939d230fc9f73654eced2b1b6c0143649b3d655f15b3d60ada9852bf8a6"


def test_the_rows_of_t20_s1_are_pinned_byte_for_byte():
    """Speed work and refactors keep every byte of every subset (values, key order, row order)."""
    settings, _ = settings_from("t20_s1")
    made = [subset_rows(settings, index, SUBSETS) for index in range(settings.timelines)]
    assert hashlib.sha256(json.dumps(made).encode()).hexdigest() == PINNED_T20_S1


@pytest.mark.parametrize("subset", SUBSETS)
def test_every_subset_loads_through_datasets_the_same_twice(tmp_path, subset):
    name = f"t2_s5_{subset}"
    one = neoqa.load_dataset(name, split="test", cache_dir=str(tmp_path / "a"), include_documents=False)
    two = neoqa.load_dataset(name, split="test", cache_dir=str(tmp_path / "b"), include_documents=False)
    assert len(one) > 0 and list(one.features) == list(neoqa.FEATURES[subset])
    assert digest(one.to_list()) == digest(two.to_list())
    if subset in INSTANCE_SUBSETS:
        assert (
            {"sufficient", "insufficient"} <= set(one["answerable"]) <= {"sufficient", "insufficient", "unanswerable"}
        )


def test_num_proc_processes_share_the_timelines_and_make_the_same_rows(tmp_path):
    one = neoqa.load_dataset("t4_s2_questions", split="test", cache_dir=str(tmp_path / "a"))
    two = neoqa.load_dataset("t4_s2_questions", split="test", cache_dir=str(tmp_path / "b"), num_proc=2)
    assert one.to_list() == two.to_list()


def test_the_default_subset_is_the_main_instance_set_with_documents(tmp_path):
    rows = neoqa.load_dataset("t1_s1", split="test", cache_dir=str(tmp_path))
    assert rows[0]["documents"] and [d["article_id"] for d in rows[0]["documents"]] == rows[0]["use_evidence_documents"]


# ------------------------------------------------------------------ the release's format


def test_generated_records_round_trip_through_release_files(tmp_path):
    """Written as release files and read back by the release reader, the records give the same rows, and the
    release's appendix-E sets build from them: the format is the release's. The generated sets differ from appendix E
    only where they mean to (insufficient rows shaped as their sufficient rows, options per row): their sufficient
    rows of the minimal-evidence sets show the same articles in the same order."""
    settings, _ = settings_from(SMALL)
    for kind, records in release_records(settings).items():
        write_jsonl(tmp_path / f"test.{kind}.jsonl", records, key=23456)
    read = {kind: read_rows(tmp_path, "test", kind, 23456) for kind in ("timelines", "news", "questions")}
    generated = [timeline_rows(settings, index) for index in range(settings.timelines)]
    for kind, rows in read.items():
        assert rows == [row for timeline in generated for row in timeline[kind]]
    builder = InstanceBuilder(read["questions"], read["news"], seed=settings.seed)
    for subset in ("optimal-evidence", "context-ablation"):
        release = {
            (r["question_id"], tuple(r["irrelevant_article_ids"])): r["use_evidence_documents"]
            for r in builder.build(subset)
            if r["answerable"] == "sufficient"
        }
        ours = {
            (r["question_id"], tuple(r["irrelevant_article_ids"])): r["use_evidence_documents"]
            for r in GeneratedSplit(settings, subset, False)
            if r["answerable"] == "sufficient"
        }
        assert ours and all(release[key] == shown for key, shown in ours.items())  # a question left out aside


def test_the_instance_sets_have_the_counts_appendix_e_prescribes(timelines):
    for rows in timelines:
        questions = {q["question_id"]: q for q in rows["questions"]}
        children = Counter((q["parent_question_id"], q["category"]) for q in rows["questions"])
        for subset in INSTANCE_SUBSETS:
            families = Counter((r["question_family_id"], r["answerable"], r["category"]) for r in rows[subset])
            sizes = 5 if subset == "context-ablation" else 1
            for (family, answerable, category), count in families.items():
                if answerable == "sufficient":
                    assert count == sizes
                if answerable == "unanswerable":
                    assert count == sizes * min(CHILDREN_PER_CATEGORY, children[family, category])
                if answerable == "insufficient":  # one per required item (two items, never stated together here)
                    assert count <= sizes * len(questions[family]["evidence_ids"])
        for row in rows["optimal-evidence"]:
            if row["answerable"] == "sufficient":
                assert sorted(row["use_evidence_documents"]) == sorted(row["sufficient_article_ids"])
                assert len(row["use_evidence_documents"]) in (1, 2)
        assert {len(r["irrelevant_article_ids"]) for r in rows["context-ablation"]} <= {0, 20, 40, 60, 80}


def test_evidence_is_exact_no_article_is_unsure(timelines):
    for rows in timelines:
        assert all(article["unsure_evidences"] == [] for article in rows["news"])


# ------------------------------------------------------------------ the text says what the labels say


def test_every_article_states_exactly_its_used_items(timelines):
    for rows in timelines:
        outline = textcheck.outline_facts(rows["timelines"][0])
        names = textcheck.known_names(rows["timelines"][0])
        for article in rows["news"]:
            assert textcheck.article_problems(article, outline, names) == []


def test_the_text_checker_sees_an_extra_fact_a_missing_fact_and_a_stray_sentence(timelines):
    rows = timelines[0]
    outline = textcheck.outline_facts(rows["timelines"][0])
    names = textcheck.known_names(rows["timelines"][0])
    article = rows["news"][0]
    other = next(item for item in rows["timelines"][0]["events"][1]["outline"])
    extra = {**article, "passages": [*article["passages"], other["sentence"]]}
    assert any("beyond its used_items" in p for p in textcheck.article_problems(extra, outline, names))
    missing = {**article, "used_items": [*article["used_items"], other["id"]]}
    assert any("does not state" in p for p in textcheck.article_problems(missing, outline, names))
    stray = {**article, "passages": [*article["passages"], "The mayor resigned on Tuesday."]}
    assert any("neither a fact" in p for p in textcheck.article_problems(stray, outline, names))


def test_a_careful_reader_gets_every_instance_right(timelines):
    """Exact labels: reading only the shown articles and checking every fact the question needs, a reader answers
    the sufficient rows and refuses the insufficient and unanswerable ones."""
    seen = Counter()
    for rows in timelines:
        reader = textcheck.CarefulReader(rows["news"])
        for subset in INSTANCE_SUBSETS:
            for row in rows[subset]:
                assert reader.answer(row["question"], row["use_evidence_documents"]) == row["answer"], row
                seen[row["category"], row["answerable"]] += 1
                if row["answerable"] == "sufficient":
                    assert reader.answer(row["question"], []) == "Unanswerable"
    assert {key for key, count in seen.items() if count} >= {
        ("multi-hop", "sufficient"),
        ("multi-hop", "insufficient"),
        ("time-span", "sufficient"),
        ("time-span", "insufficient"),
        ("false-premise", "unanswerable"),
        ("uncertain-specificity", "unanswerable"),
    }


def test_answers_are_unique_among_the_items_up_to_the_question_date(timelines):
    for rows in timelines:
        timeline = rows["timelines"][0]
        outline = textcheck.outline_facts(timeline)
        event_of = {item["id"]: event["created_at"] for event in timeline["events"] for item in event["outline"]}
        for question in rows["questions"]:
            if question["category"] != "multi-hop":
                continue
            asked = textcheck.read_question(question["question"])
            past = [fact for item, fact in outline.items() if event_of[item] <= question["created_at"]]
            bridges = [f for f in past if (f.subject, f.relation) == (asked.subject, asked.bridge_relation)]
            assert len(bridges) == 1
            answers = [f.obj for f in past if (f.subject, f.relation) == (bridges[0].obj, asked.answer_relation)]
            assert answers == [question["answer"]]
            options = question["answer_options"]
            assert options.count(question["answer"]) == 1 and options[-1] == "Unanswerable" and len(options) <= 7
            assert len(set(options)) == len(options)


def test_time_span_answers_are_the_days_between_the_dates_the_articles_state(timelines):
    checked = 0
    for rows in timelines:
        for question in (q for q in rows["questions"] if q["category"] == "time-span"):
            days = []
            for item in question["evidence_ids"]:
                article = next(a for a in rows["news"] if item in a["used_items"] and a["date"] <= question["date"])
                said = textcheck.article_facts(article)[0]
                asked = textcheck.read_question(question["question"]).clauses
                days += [f.day for f in said for clause in asked if (f.relation, f.subject, f.obj, f.at) == clause]
            assert len(set(days)) == 2
            assert question["answer"] == f"{abs((max(days) - min(days)).days)} days"
            checked += 1
    assert checked


def test_premise_wordings_occur_in_answerable_and_refused_questions_alike():
    """A day or a place in the bridge's description: true-premise controls (answerable) and false-premise or
    uncertain-specificity variants (refused) in about equal numbers, so the wording does not tell the label."""
    settings, _ = settings_from("t30_s4")
    counts: Counter = Counter()
    for index in range(settings.timelines):
        for q in timeline_rows(settings, index, ("news", "questions"))["questions"]:
            variant = q["meta"]["variant"]
            if variant != "plain":
                counts[q["meta"]["detail"], q["answer"] == "Unanswerable"] += 1
    assert counts["date", False] == counts["date", True]
    assert 0.6 < counts["place", False] / counts["place", True] < 1.6


def test_dates_are_on_the_calendar_and_events_in_order(timelines):
    for rows in timelines:
        dates = [datetime.date.fromisoformat(e["date"]) for e in rows["timelines"][0]["events"]]
        assert dates == sorted(dates) and len(set(dates)) == len(dates)


def test_release_configurations_still_need_their_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="or name a generated configuration"):
        neoqa.load_dataset("news", cache_dir=str(tmp_path))


def test_rows_hold_plain_names_and_the_marked_text_keeps_the_entity_ids(timelines):
    for rows in timelines:
        for article in rows["news"]:
            assert "{" not in json.dumps(article["passages"]) and "|" in json.dumps(article["passages_marked"])


def test_a_timeline_leaves_no_reference_cycles_so_pausing_the_collector_frees_it_all():
    """subset_rows pauses the cyclic garbage collector while it makes a timeline: sound only while nothing it makes
    (world, records, rows, instance sets) forms a cycle, which reference counting alone would never free."""
    settings, _ = settings_from("t3_s1")
    split = GeneratedSplit(settings, "neoqa")
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        made = [subset_rows(settings, index, SUBSETS) for index in range(settings.timelines)] + list(split)
        del made
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()
    subset_rows(settings, 0, ("news",))
    assert gc.isenabled() == was_enabled  # the collector runs again after a timeline, if it ran before


def test_a_timeline_moves_what_it_made_to_the_oldest_generation_but_leaves_a_callers_frozen_objects_frozen():
    """After a timeline the collector's young generation holds none of its rows (no pass walks them all), and objects
    the caller froze with gc.freeze stay frozen: the move is skipped rather than unfreeze them."""
    settings, _ = settings_from("t3_s1")
    was_enabled = gc.isenabled()
    gc.enable()
    try:
        gc.collect(generation=0)  # no young pass is due while the timeline starts
        passes = gc.get_stats()[0]["collections"]
        made = subset_rows(settings, 0, SUBSETS)
        assert gc.get_stats()[0]["collections"] == passes
        assert {id(thing) for thing in gc.get_objects(generation=2)}.issuperset(map(id, made["news"]))
        kept = [[]]  # a tracked object the caller freezes
        gc.freeze()
        frozen = gc.get_freeze_count()
        subset_rows(settings, 1, SUBSETS)
        assert gc.get_freeze_count() == frozen  # `kept` is still frozen: the move was skipped
        assert gc.is_tracked(kept)
    finally:
        gc.unfreeze()
        if not was_enabled:
            gc.disable()


@pytest.mark.parametrize("escaped", [False, True])
def test_every_instance_id_is_the_hash_of_its_canonical_json_with_plain_or_escaped_article_ids(escaped):
    """Instance ids are written out piece by piece, without a look-up per id when every article id needs no escape
    (as generated); an article id that does need one (renamed here to end in an accent) is still written as
    canonical_json writes it."""
    settings, _ = settings_from("t3_s1")
    rows = timeline_rows(settings, 0, ("news", "questions"))
    if escaped:
        renamed = {rows["news"][0]["article_id"]: rows["news"][0]["article_id"] + "\u00e9"}
        rows["news"][0]["article_id"] = next(iter(renamed.values()))
        for question in rows["questions"]:
            question["sufficient_article_ids"] = [renamed.get(i, i) for i in question["sufficient_article_ids"]]
            question["all_sufficient_article_id_combinations"] = [
                [renamed.get(i, i) for i in combination]
                for combination in question["all_sufficient_article_id_combinations"]
            ]
    builder = InstanceBuilder(rows["questions"], rows["news"], seed=settings.seed)
    made = [row for subset in INSTANCE_SUBSETS for row in builder.build(subset)]
    shown = {i for row in made for i in row["use_evidence_documents"]}
    assert made and any(i.endswith("\u00e9") for i in shown) == escaped
    for row in made:
        whole = canonical_json({"question_id": row["question_id"], "documents": row["use_evidence_documents"]})
        assert row["instance_id"] == hashlib.sha256(whole.encode()).hexdigest()


@pytest.mark.parametrize(
    "combinations, refused",
    [([["a-1"], ["a-1", "b-2"]], False), ([], False), ([["a-1"], "b-2"], True), ([["a-1", 3]], True), ("a-1", True)],
)
def test_a_question_whose_sufficient_combinations_are_not_lists_of_ids_is_refused(combinations, refused):
    """The validator checks all_sufficient_article_id_combinations in one pass: every combination a list, every
    member an id."""
    settings, _ = settings_from("t3_s1")
    record = dict(timeline_records(settings, 0, ("news", "questions"))["questions"][0])
    record["all_sufficient_article_id_combinations"] = combinations
    if refused:
        with pytest.raises(ReleaseFormatError, match="here: field .all_sufficient_article_id_combinations. should be"):
            question_row(record, "here")
    else:
        assert question_row(record, "here")["all_sufficient_article_id_combinations"] == combinations
