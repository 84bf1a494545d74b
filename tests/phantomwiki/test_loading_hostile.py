"""load_dataset's misuses and a full disk: one line each, never `datasets`' own traceback."""

from __future__ import annotations

import pytest

import phantom_wiki
from leakproof_qa.builders.phantomwiki.config import ConfigError
from leakproof_qa.dataset_loading import CacheDirError
from tests.full_disk import small_disk


@pytest.mark.parametrize("name", ["../x", "n5_s1/../../x", "a\\b", "n5:s1"])
def test_a_name_outside_the_grammar_is_our_one_line(name, tmp_path):
    with pytest.raises(ConfigError) as error:
        phantom_wiki.load_dataset(name, cache_dir=str(tmp_path))
    assert f"bad configuration name {name!r}: does not match the grammar" in str(error.value)
    assert "\n" not in str(error.value) and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("split", ["train", "validation", "test+train", "train[:10]"])
def test_a_split_other_than_test_is_one_line_before_any_work(split, tmp_path):
    with pytest.raises(ConfigError) as error:
        phantom_wiki.load_dataset("n5_s1", split=split, cache_dir=str(tmp_path))
    assert f"unknown split {split!r}: a phantom_wiki configuration has one split, test" in str(error.value)
    assert list(tmp_path.iterdir()) == []


def test_test_and_its_slices_load(tmp_path):
    assert phantom_wiki.load_dataset("n5_s1", split="test[:2]", cache_dir=str(tmp_path)).num_rows == 2


@pytest.mark.integration
def test_a_full_disk_during_load_dataset_is_one_line_and_leaves_no_half_cache(tmp_path):
    with small_disk(tmp_path / "disk", 256 << 10) as disk:
        with pytest.raises(CacheDirError) as error:
            phantom_wiki.load_dataset("n500_s1_corpus", split="test", cache_dir=str(disk))
        said = str(error.value)
        assert said.startswith("no space left on the device of the cache") and "\n" not in said
        assert "pass cache_dir= a folder with room" in said
        arrow = list(disk.rglob("*.arrow"))
        assert arrow == [], arrow
