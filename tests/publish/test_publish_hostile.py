"""A release someone else made is untrusted: its manifest never makes us read or delete outside its folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import phantom_wiki
from builders.publishing.errors import ReleaseError
from builders.publishing.phantomwiki import write_release
from publish_helpers import CONFIG, copy_release, one_line


def edit_manifest(release: Path, change) -> None:
    manifest = json.loads((release / "manifest.json").read_text())
    change(manifest["files"])
    (release / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("path", ["../victim.txt", "/tmp/victim.txt", "n50_s1/../../victim.txt",
                                  "n50_s1/./test-00000-of-00001.parquet", "n50_s1\\..\\victim.txt", "victim.txt",
                                  "n50_s1/sub/test-00000-of-00001.parquet", "n50_s1/notes.txt"])
def test_publishing_over_a_release_whose_manifest_points_outside_deletes_nothing(plain_release, tmp_path, path):
    release = copy_release(plain_release, tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    absolute = Path("/tmp/victim.txt")
    edit_manifest(release, lambda files: files[0].update(path=path if not path.startswith("/") else str(absolute)))
    before = sorted(p.relative_to(release).as_posix() for p in release.rglob("*"))
    with pytest.raises(ReleaseError) as error:
        write_release([CONFIG], release)
    one_line(error.value)
    assert "re-download the release" in str(error.value)
    assert victim.read_text() == "mine" and sorted(p.relative_to(release).as_posix() for p in release.rglob("*")) == before


def test_loading_a_release_whose_manifest_points_outside_reads_nothing(plain_release, tmp_path):
    release = copy_release(plain_release, tmp_path)
    outside = tmp_path / "outside.parquet"
    outside.write_bytes((release / "n50_s1" / "test-00000-of-00001.parquet").read_bytes())
    edit_manifest(release, lambda files: [f.update(path="../outside.parquet") for f in files if f["config_name"] == CONFIG])
    with pytest.raises(ReleaseError, match="not a file this release can hold") as error:
        phantom_wiki.load_published(release, CONFIG, cache_dir=str(tmp_path / "cache"))
    one_line(error.value)


@pytest.mark.parametrize("field, value", [("rows", "many"), ("rows", True), ("size", -1), ("sha256", "zz"),
                                          ("config_name", "../n50_s1"), ("rows", 1.5)])
def test_a_manifest_field_of_the_wrong_kind_is_one_line(plain_release, tmp_path, field, value):
    release = copy_release(plain_release, tmp_path)
    edit_manifest(release, lambda files: files[0].update({field: value}))
    with pytest.raises(ReleaseError) as error:
        phantom_wiki.load_published(release, CONFIG, cache_dir=str(tmp_path / "cache"))
    one_line(error.value)


@pytest.mark.parametrize("value", [0, 1.5e6, True, -1])
def test_a_shard_size_that_is_not_a_size_is_one_line(tmp_path, value):
    from builders.publishing.errors import PublishError

    with pytest.raises(PublishError, match="max_shard_bytes=.* must be a whole number of bytes") as error:
        write_release([CONFIG], tmp_path / "release", max_shard_bytes=value)
    one_line(error.value)
    assert not (tmp_path / "release").exists()


def test_a_passphrase_for_a_plain_release_is_refused_not_ignored(plain_release, tmp_path):
    with pytest.raises(ReleaseError, match="is not encrypted, so it takes no passphrase") as error:
        phantom_wiki.load_published(plain_release, CONFIG, passphrase="secret", cache_dir=str(tmp_path / "cache"))
    one_line(error.value)
