"""The `neoqa` dataset on current `datasets`: every configuration, both file forms, errors, Hub source, CLI."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import datasets
import huggingface_hub
import pytest

import leakproof_qa.builders.neoqa as engine
import leakproof_qa.builders.publishing.hub
import neoqa
from leakproof_qa.encryption.neoqa_codec import ReleaseFileNotFoundError, ReleaseFormatError, WrongDecryptionKeyError
from tests.neoqa.make_fixture_release import DEV, TEST, question_id, release_records

# Rows per split, counted by hand from the fixture design (see test_neoqa_instances.py for the why).
EXPECTED = {
    "timelines": {"dev": 1, "test": 1},
    "news": {"dev": 3 * 4, "test": 10 * 12},
    "questions": {"dev": 5 + 3 + 1 + 1 + 2 + 1 + 1, "test": 5 + 2 + 2 + 1},
    "neoqa": {"dev": 17, "test": 16},
    "optimal-evidence": {"dev": 17, "test": 15},
    "context-ablation": {"test": 50},
}


def _one_line(error: BaseException) -> None:
    """User errors are one line, with the internal exception hidden."""
    assert "\n" not in str(error)
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)


@pytest.mark.parametrize("form", ["encrypted", "plain"])
@pytest.mark.parametrize("name", list(EXPECTED))
def test_every_configuration_loads(name: str, form: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    release = request.getfixturevalue(f"{form}_release")
    loaded = neoqa.load_dataset(name, data_dir=str(release), decryption_key=23456, cache_dir=str(tmp_path))
    assert isinstance(loaded, datasets.DatasetDict)
    assert {split: len(rows) for split, rows in loaded.items()} == EXPECTED[name]
    for rows in loaded.values():
        assert rows.features == neoqa.FEATURES[name]
        assert rows.info.license == "cc-by-nd-4.0"
        assert "do not publish decrypted or re-paired NeoQA text" in rows.info.description


def test_encrypted_and_plain_give_identical_rows(encrypted_release: Path, plain_release: Path, tmp_path: Path) -> None:
    a = neoqa.load_dataset("neoqa", "test", str(encrypted_release), 23456, cache_dir=str(tmp_path / "a"))
    b = neoqa.load_dataset("neoqa", "test", str(plain_release), cache_dir=str(tmp_path / "b"))
    assert a.to_list() == b.to_list()


def test_files_are_detected_one_by_one(encrypted_release: Path, plain_release: Path, tmp_path: Path) -> None:
    mixed = tmp_path / "mixed"
    shutil.copytree(encrypted_release, mixed)
    shutil.copy(plain_release / "dev.news.jsonl", mixed / "dev.news.jsonl")
    rows = neoqa.load_dataset("news", "dev", str(mixed), 23456, cache_dir=str(tmp_path / "cache"))
    assert len(rows) == 12


def test_raw_rows_strip_markup_and_keep_it_where_it_carries_ids(encrypted_release: Path, tmp_path: Path) -> None:
    kwargs: dict[str, Any] = {"data_dir": str(encrypted_release), "decryption_key": 23456, "cache_dir": str(tmp_path)}
    article = neoqa.load_dataset("news", "dev", **kwargs)[0]
    assert article["article_id"] == DEV.article_id("ev0-0")
    assert article["passages"][0] == "In event 0, Vela Marrow recorded detail 0 near Quillfen Civic Trust."
    assert article["passages_marked"][0] == (
        "In event 0, {Vela Marrow|PERSON-1} recorded detail 0 near {Quillfen Civic Trust|ORGANIZATION-1}."
    )
    assert article["headline"] == "Quillfen Civic Trust bulletin 0-0"
    assert (article["used_items"], article["unsure_evidences"]) == (["N0-S0", "N0-S1"], [])
    timeline = neoqa.load_dataset("timelines", "test", **kwargs)[0]
    assert timeline["timeline_id"] == TEST.timeline_id and len(timeline["events"]) == 10
    item = timeline["events"][2]["outline"][1]
    assert item["id"] == "N2-S1" and "{" not in item["sentence"] and "|LOCATION-1}" in item["sentence_marked"]
    person = timeline["named_entity_snapshots"][0]["named_entities"][0]
    assert (person["entity_type"], person["id"], person["name"]) == ("person", "PERSON-1", "Vela Marrow")
    assert person["properties"]["date_of_birth"] == "1984-02-11"
    questions = neoqa.load_dataset("questions", "dev", **kwargs)
    q1 = questions[0]
    assert q1["question_id"] == question_id(DEV, "Q1") and q1["parent_question_id"] is None
    assert q1["question"] == "What does Vela Marrow know about Q1?"
    assert q1["answer_options"][0] == "Answer of Q1" and q1["answer_options"][-1] == "Unanswerable"
    assert q1["meta"] == {"fixture": True, "selected-sentences": ["N0-S0", "N1-S1"]}
    assert questions[1]["parent_question_id"] == question_id(DEV, "Q1")


def test_instance_documents_carry_the_shown_text_in_order(encrypted_release: Path, tmp_path: Path) -> None:
    rows = neoqa.load_dataset("optimal-evidence", "dev", str(encrypted_release), 23456, cache_dir=str(tmp_path))
    news = {r["article_id"]: r for r in release_records("dev")["news"]}
    for row in rows:
        assert [d["article_id"] for d in row["documents"]] == row["use_evidence_documents"]
        for document in row["documents"]:
            raw = news[document["article_id"]]
            assert document["date"] == raw["date"]
            assert len(document["passages"]) == len(raw["passages"])
            assert not any("{" in passage for passage in document["passages"])
    lean = neoqa.load_dataset(
        "optimal-evidence", "dev", str(encrypted_release), 23456, cache_dir=str(tmp_path), include_documents=False
    )
    assert all(row["documents"] == [] for row in lean)
    assert lean["use_evidence_documents"] == rows["use_evidence_documents"]


def test_streaming_matches_prepared(encrypted_release: Path, tmp_path: Path) -> None:
    kwargs: dict[str, Any] = {"data_dir": str(encrypted_release), "decryption_key": 23456, "cache_dir": str(tmp_path)}
    streamed = neoqa.load_dataset("context-ablation", "test", streaming=True, **kwargs)
    assert isinstance(streamed, datasets.IterableDataset)
    assert [r["instance_id"] for r in streamed] == neoqa.load_dataset("context-ablation", "test", **kwargs)[
        "instance_id"
    ]


def test_seed_is_a_builder_knob(encrypted_release: Path, tmp_path: Path) -> None:
    def options(seed: int) -> list[list[str]]:
        return neoqa.load_dataset("neoqa", "dev", str(encrypted_release), 23456, seed=seed, cache_dir=str(tmp_path))[
            "answer_options"
        ]

    assert options(1) != options(7)
    assert options(7) == options(7)


def test_cache_is_never_stale_even_for_an_edit_with_the_same_size_and_time(plain_release: Path, tmp_path: Path) -> None:
    release = tmp_path / "release"
    shutil.copytree(plain_release, release)
    cache = str(tmp_path / "cache")
    first = neoqa.load_dataset("news", "dev", str(release), cache_dir=cache)
    assert len(first) == 12
    path = release / "dev.news.jsonl"
    headline = first[0]["headline"]
    edited = headline[:-1] + ("X" if headline[-1] != "X" else "Y")
    stat = path.stat()
    text = path.read_text()  # headlines carry entity markup in the file; their plain endings are the same
    assert text.count(headline[-5:] + '"') >= 1
    path.write_text(text.replace(headline[-5:] + '"', edited[-5:] + '"', 1))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns
    assert neoqa.load_dataset("news", "dev", str(release), cache_dir=cache)[0]["headline"] == edited


@pytest.mark.parametrize(
    "kind, kept, says",
    [
        ("news", slice(0, 5), "dev.news.jsonl holds 1 articles of event .* but 4 of the others: the file is cut short"),
        (
            "news",
            slice(0, 4),
            "dev.news.jsonl holds 0 articles of event .* but 4 of the others",
        ),  # cut at an event's end
        ("timelines", slice(0, 0), "dev.timelines.jsonl is empty"),  # the fixture's dev split has one timeline
        ("questions", slice(0, 0), "dev.questions.jsonl is empty"),
        ("questions", slice(1, None), "dev.questions.jsonl has question .* without its parent"),
    ],
)
def test_a_release_file_cut_at_a_line_boundary_is_refused_in_one_line(
    plain_release: Path, tmp_path: Path, kind: str, kept: slice, says: str
) -> None:
    release = tmp_path / "release"
    shutil.copytree(plain_release, release)
    path = release / f"dev.{kind}.jsonl"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[kept]))
    for config in ("news", "neoqa"):
        with pytest.raises(ReleaseFormatError, match=says) as caught:
            neoqa.load_dataset(config, "dev", str(release), cache_dir=str(tmp_path / "cache"))
        _one_line(caught.value)


# --------------------------------------------------------------------------- user errors, one line each


def test_wrong_key_through_the_loader(encrypted_release: Path, tmp_path: Path) -> None:
    with pytest.raises(WrongDecryptionKeyError, match="wrong decryption key 1234.*23456") as caught:
        neoqa.load_dataset("questions", data_dir=str(encrypted_release), decryption_key=1234, cache_dir=str(tmp_path))
    _one_line(caught.value)


def test_truncated_file_through_the_loader(encrypted_release: Path, tmp_path: Path) -> None:
    release = tmp_path / "release"
    shutil.copytree(encrypted_release, release)
    path = release / "test.news.jsonl"
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(ReleaseFormatError, match=r"test\.news\.jsonl, line 120: truncated") as caught:
        neoqa.load_dataset("neoqa", data_dir=str(release), decryption_key=23456, cache_dir=str(tmp_path / "c"))
    _one_line(caught.value)


def test_missing_file_through_the_loader(encrypted_release: Path, tmp_path: Path) -> None:
    release = tmp_path / "release"
    shutil.copytree(encrypted_release, release)
    (release / "test.questions.jsonl").unlink()
    with pytest.raises(FileNotFoundError, match="'test.questions.jsonl' not found") as caught:
        neoqa.load_dataset(
            "optimal-evidence", data_dir=str(release), decryption_key=23456, cache_dir=str(tmp_path / "c")
        )
    _one_line(caught.value)


@pytest.mark.parametrize(
    "kwargs,error,pattern",
    [
        ({"name": "neoqa-main"}, ValueError, "unknown NeoQA configuration 'neoqa-main'; choose one of"),
        ({"name": "context-ablation", "split": "dev"}, ValueError, "has no split 'dev'; its splits are test"),
        ({"name": "news", "data_dir": None}, FileNotFoundError, "pass data_dir="),
        ({"name": "news", "data_dir": "/nonexistent/neoqa"}, FileNotFoundError, "is not a directory"),
        ({"name": "news", "repo_id": "someone/neoqa"}, ValueError, "either data_dir .* or repo_id"),
        ({"name": "news", "seed": "one"}, ValueError, "seed must be an integer"),
        ({"name": "news", "decryption_key": "key"}, ValueError, "decryption_key must be an integer"),
    ],
)
def test_bad_arguments_are_one_line_errors(
    encrypted_release: Path, tmp_path: Path, kwargs: dict[str, Any], error: type[Exception], pattern: str
) -> None:
    arguments = {"data_dir": str(encrypted_release), "decryption_key": 23456, "cache_dir": str(tmp_path), **kwargs}
    with pytest.raises(error, match=pattern) as caught:
        neoqa.load_dataset(**arguments)
    _one_line(caught.value)


def test_a_record_of_the_wrong_shape_is_named(plain_release: Path, tmp_path: Path) -> None:
    release = tmp_path / "release"
    shutil.copytree(plain_release, release)
    lines = (release / "dev.questions.jsonl").read_text().splitlines()
    lines[0] = lines[0].replace('"evidence_ids"', '"evidence"')  # Q1, an answerable question
    (release / "dev.questions.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(ReleaseFormatError, match=r"dev\.questions\.jsonl, line 1: record has no 'evidence_ids'"):
        neoqa.load_dataset("questions", "dev", str(release), cache_dir=str(tmp_path / "c"))


# --------------------------------------------------------------------------- Hub source
# The Hub cannot be reached from the test machine: these tests stop at the download call,
# replacing huggingface_hub.snapshot_download with a stand-in that returns a local copy.
# tests/publish/test_neoqa_publish.py runs the whole path against a local Hub stand-in.


def test_hub_source_downloads_only_the_needed_files(
    encrypted_release: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot = tmp_path / "snapshot"
    shutil.copytree(encrypted_release, snapshot / "data")  # files one folder down, as a repo might hold them
    calls: list[dict[str, Any]] = []

    def fake_snapshot_download(**kwargs: Any) -> str:
        calls.append(kwargs)
        return str(snapshot)

    monkeypatch.setattr(leakproof_qa.builders.publishing.hub, "snapshot_download", fake_snapshot_download)
    rows = neoqa.load_dataset(
        "neoqa", repo_id="someone/neoqa-release", decryption_key=23456, cache_dir=str(tmp_path / "cache")
    )
    assert {split: len(r) for split, r in rows.items()} == EXPECTED["neoqa"]
    (call,) = calls
    assert call["repo_id"] == "someone/neoqa-release" and call["repo_type"] == "dataset"
    assert sorted(call["allow_patterns"]) == sorted([*(f"*{f}" for f in engine.files_needed("neoqa")), "manifest.json"])


def test_hub_failure_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def offline(**kwargs: Any) -> str:
        raise huggingface_hub.errors.LocalEntryNotFoundError("Cannot reach the Hub.\nMore detail.")

    monkeypatch.setattr(leakproof_qa.builders.publishing.hub, "snapshot_download", offline)
    with pytest.raises(ReleaseFileNotFoundError, match="could not fetch .* pass data_dir=") as caught:
        neoqa.load_dataset("news", repo_id="someone/neoqa-release", cache_dir=str(tmp_path))
    _one_line(caught.value)


# --------------------------------------------------------------------------- CLI


def test_cli_prints_counts(encrypted_release: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        neoqa.main(
            ["neoqa", "--data-dir", str(encrypted_release), "--decryption-key", "23456", "--cache-dir", str(tmp_path)]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "neoqa/dev: 17 rows (insufficient=7, sufficient=4, unanswerable=6)" in out
    assert "neoqa/test: 16 rows" in out
    with pytest.raises(SystemExit) as caught:
        neoqa.main(
            ["news", "--data-dir", str(encrypted_release), "--decryption-key", "1", "--cache-dir", str(tmp_path)]
        )
    assert caught.value.code == 2
    assert "wrong decryption key" in capsys.readouterr().err


def test_help_lists_every_command_and_says_what_publish_does(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        neoqa.main(["--help"])
    top = capsys.readouterr().out
    assert "python -m neoqa publish" in top and all(name in top for name in neoqa.engine.CONFIG_NAMES)
    with pytest.raises(SystemExit):
        neoqa.main(["publish", "--help"])
    publish = " ".join(capsys.readouterr().out.split())
    assert "verbatim" in publish and "CC BY-ND 4.0" in publish and "Returns" not in publish


@pytest.mark.parametrize(
    "marked, plain",
    [
        ("{Ann Lee|PERSON-1} met {Cobalt Logistics|ORGANIZATION-12}.", "Ann Lee met Cobalt Logistics."),
        ("{ Ann  Lee \t| PERSON-1 } left", "Ann  Lee left"),
        ("{   |PERSON-1}", ""),
        ("{a{Bo|X-1} {Cy|} {Di|x1} |Y-2}", "{aBo {Cy|} {Di|x1} |Y-2}"),
        ("no markup, {braces} or | bars", "no markup, {braces} or | bars"),
    ],
)
def test_markup_becomes_the_plain_name_and_nothing_else_changes(marked: str, plain: str) -> None:
    assert engine.strip_markup(marked) == plain
