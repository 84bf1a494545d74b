"""generate-many: each configuration byte for byte as `generate` writes it, a manifest of digests, staged so that
nothing partial is left, and a second run that skips what is whole (by digest) and redoes what is damaged."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

import neoqa
from leakproof_qa.builders.cli import phantomwiki as cli
from leakproof_qa.builders.cluster.runs import MANIFEST, RECORD, STAGING, seeds


def digests(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != RECORD
    }


def phantom_many(out: Path, *more: str) -> int:
    argv = ["generate-many", "n30", "--seeds", "1-2", "--out", str(out), "--subsets", "questions", "corpus"]
    return cli.main([*argv, *more])


def test_phantom_wiki_many_are_the_files_generate_writes_one_by_one(tmp_path):
    assert phantom_many(tmp_path / "many", "--num-proc", "2") == 0
    for seed in (1, 2):
        one = tmp_path / f"one{seed}"
        assert cli.main(["generate", f"n30_s{seed}", "--out", str(one), "--subsets", "questions", "corpus"]) == 0
        assert digests(tmp_path / "many" / f"n30_s{seed}") == digests(one)
    manifest = json.loads((tmp_path / "many" / MANIFEST).read_text())
    assert list(manifest["configurations"]) == ["n30_s1", "n30_s2"]
    record = manifest["configurations"]["n30_s1"]
    assert record["package_version"] and record["code_digest"] and record["settings"]["seed"] == 1
    assert {name: entry["sha256"] for name, entry in record["files"].items()} == digests(tmp_path / "many" / "n30_s1")
    assert not (tmp_path / "many" / STAGING).exists()


def test_a_second_run_skips_what_is_whole_and_redoes_what_is_damaged_or_half_staged(tmp_path, capsys):
    out = tmp_path / "many"
    assert phantom_many(out) == 0
    before = digests(out / "n30_s1"), digests(out / "n30_s2")
    damaged = out / "n30_s2" / "corpus.parquet"
    damaged.write_bytes(damaged.read_bytes()[:-1] + b"\0")  # same size, one byte changed: only a digest tells
    (out / STAGING / "n30_s3.host-1-2").mkdir(parents=True)  # a killed job's work folder
    capsys.readouterr()
    assert phantom_many(out) == 0
    assert "1 of 2 configuration(s) already written whole; writing 1" in capsys.readouterr().err
    assert (digests(out / "n30_s1"), digests(out / "n30_s2")) == before
    assert not (out / STAGING).exists()


def test_neoqa_many_are_the_files_generate_writes(tmp_path):
    argv = ["generate-many", "t2", "--seeds", "1-2", "--out", str(tmp_path / "many"), "--subsets", "news", "neoqa"]
    assert neoqa.main(argv) == 0
    one = tmp_path / "one"
    assert neoqa.main(["generate", "t2_s2", "--out", str(one), "--subsets", "news", "neoqa", "--num-proc", "1"]) == 0
    assert digests(tmp_path / "many" / "t2_s2") == digests(one)


def test_ray_without_ray_installed_says_what_to_install_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # an import of ray fails, as where it is not installed
    assert phantom_many(tmp_path / "out", "--ray", "auto") == 2
    err = capsys.readouterr().err
    assert 'pip install "leakproof-qa[ray]"' in err and err.count("\n") == 1
    with pytest.raises(SystemExit):
        neoqa.main(["generate", "t2_s1", "--out", str(tmp_path / "n"), "--ray", "auto"])
    err = capsys.readouterr().err
    assert 'pip install "leakproof-qa[ray]"' in err and err.count("\n") == 1


@pytest.mark.parametrize("text, expected", [("1-3", [1, 2, 3]), ("5", [5]), ("1-2,7,2-3", [1, 2, 7, 3]), ("0-0", [0])])
def test_seeds_read_as_ranges_and_lists(text, expected):
    assert seeds(text) == expected


@pytest.mark.parametrize("text", ["", "a-3", "3-1", "1-"])
def test_bad_seeds_are_one_line(text):
    with pytest.raises(ValueError, match="--seeds"):
        seeds(text)


def test_a_uri_goes_through_pyarrows_filesystems_to_the_same_files(tmp_path):
    """OUT as a URI (file:// here; s3://, gs:// the same way, through pyarrow.fs) holds what a plain path holds."""
    assert phantom_many(tmp_path / "path", "--num-proc", "1") == 0
    uri = (tmp_path / "by-uri").as_uri()
    assert cli.main(["generate-many", "n30", "--seeds", "1-2", "--out", uri, "--subsets", "questions", "corpus"]) == 0
    assert digests(tmp_path / "by-uri") == digests(tmp_path / "path")
