"""The official release's files are held to the record counts the release and paper state: a file cut at a line
boundary is one line naming the file and both counts (issue 37). Other data (fixtures, generated) is not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import neoqa
from leakproof_qa.builders.neoqa import release
from leakproof_qa.encryption.neoqa_codec import ReleaseFormatError, write_jsonl
from tests.neoqa import make_fixture_release

FIXTURE_DEV = make_fixture_release.DEV.timeline_id


def official_looking(out: Path) -> Path:
    """The fixture release with its dev timeline renamed to one of the official dev split's."""
    for split in ("dev", "test"):
        for kind, records in make_fixture_release.release_records(split).items():
            text = json.dumps(records).replace(FIXTURE_DEV, "sports:13:1")
            write_jsonl(out / f"{split}.{kind}.jsonl", json.loads(text))
    return out


def cut(path: Path, lines: int) -> None:
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:-lines]))


def test_an_official_release_with_fewer_timelines_than_stated_is_one_line(tmp_path):
    root = official_looking(tmp_path / "release")
    with pytest.raises(
        ReleaseFormatError, match=r"^dev\.timelines\.jsonl holds 1 records but the official release has 3"
    ) as error:
        neoqa.load_dataset("news", "dev", str(root), cache_dir=str(tmp_path / "cache"))
    assert "\n" not in str(error.value)


@pytest.fixture
def fixture_counts(monkeypatch):
    """The official counts set to the fixture's, as if it were the whole release."""
    records = {split: make_fixture_release.release_records(split) for split in ("dev", "test")}
    counts = {split: {kind: len(records[split][kind]) for kind in ("timelines", "news")} for split in records}
    monkeypatch.setattr(release, "OFFICIAL_COUNTS", counts)
    monkeypatch.setattr(release, "OFFICIAL_QUESTIONS", sum(len(r["questions"]) for r in records.values()))
    return counts


def test_a_whole_official_release_loads(tmp_path, fixture_counts):
    root = official_looking(tmp_path / "release")
    assert (
        len(neoqa.load_dataset("news", "test", str(root), cache_dir=str(tmp_path / "c")))
        == fixture_counts["test"]["news"]
    )


@pytest.mark.parametrize(
    "file, lines, says",
    [
        ("test.news.jsonl", 1, r"^test\.news\.jsonl holds 119 records but the official release has 120"),
        (
            "test.questions.jsonl",
            3,
            r"^dev\.questions\.jsonl and test\.questions\.jsonl hold \d+ questions but the official release has \d+",
        ),
    ],
)
def test_a_file_cut_at_its_end_is_one_line_naming_it_and_both_counts(tmp_path, fixture_counts, file, lines, says):
    root = official_looking(tmp_path / "release")
    cut(root / file, lines)
    with pytest.raises(ReleaseFormatError, match=says) as error:
        neoqa.load_dataset("neoqa", "test", str(root), cache_dir=str(tmp_path / "cache"))
    assert "\n" not in str(error.value)


def test_data_that_is_not_the_official_release_is_not_held_to_its_counts(encrypted_release, tmp_path):
    assert len(neoqa.load_dataset("news", "dev", str(encrypted_release), 23456, cache_dir=str(tmp_path))) == 12
