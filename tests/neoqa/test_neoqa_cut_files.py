"""A release file cut at a line boundary in the middle, between two timelines: refused in one line, not read short."""

from __future__ import annotations

from pathlib import Path

import pytest

import neoqa
from leakproof_qa.encryption.neoqa_codec import ReleaseFormatError, write_jsonl
from tests.neoqa import make_fixture_release


def two_timelines(out: Path) -> Path:
    """A release whose test split holds both fixture timelines (the dev one first), as the real splits hold many."""
    dev, test = make_fixture_release.release_records("dev"), make_fixture_release.release_records("test")
    for kind in ("timelines", "news", "questions"):
        write_jsonl(out / f"test.{kind}.jsonl", dev[kind] + test[kind])
        write_jsonl(out / f"dev.{kind}.jsonl", dev[kind])
    return out


def keep(path: Path, lines: slice) -> None:
    path.write_text("".join(path.read_text().splitlines(keepends=True)[lines]))


def test_the_two_timeline_release_loads_whole(tmp_path):
    release = two_timelines(tmp_path / "release")
    assert len(neoqa.load_dataset("news", "test", str(release), cache_dir=str(tmp_path / "c"))) == 12 + 120


@pytest.mark.parametrize(
    "kind, lines, says",
    [
        ("news", slice(0, 12), r"test\.news\.jsonl holds no article of timeline .*: the file is cut short"),
        ("news", slice(12, None), r"test\.news\.jsonl holds no article of timeline .*: the file is cut short"),
        ("timelines", slice(1, None), r"test\.news\.jsonl: article .* belongs to event .*, which test\.timelines"),
        ("questions", slice(0, 14), r"test\.questions\.jsonl has no question about timeline"),
    ],
    ids=["news cut after the first timeline", "news without its first", "timelines cut", "questions cut"],
)
def test_a_file_cut_between_two_timelines_is_one_line_naming_it(tmp_path, kind, lines, says):
    release = two_timelines(tmp_path / "release")
    keep(release / f"test.{kind}.jsonl", lines)
    for config in ("news", "neoqa"):
        with pytest.raises(ReleaseFormatError, match=says) as error:
            neoqa.load_dataset(config, "test", str(release), cache_dir=str(tmp_path / "cache"))
        assert "\n" not in str(error.value)


def test_questions_about_a_timeline_the_release_does_not_hold_are_one_line(tmp_path):
    release = two_timelines(tmp_path / "release")
    keep(release / "test.timelines.jsonl", slice(1, None))
    keep(release / "test.news.jsonl", slice(12, None))  # news and timelines agree; the questions do not
    with pytest.raises(ReleaseFormatError, match=r"test\.questions\.jsonl has questions about timeline .*, which "):
        neoqa.load_dataset("neoqa", "test", str(release), cache_dir=str(tmp_path / "cache"))
