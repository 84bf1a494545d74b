"""`python -m phantom_wiki verify`: generated configurations and published releases (plain and sealed) pass exactly
when their labels hold; a release with one flipped label fails and names the row; bad input is one line, exit 2."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import phantom_wiki
from leakproof_qa.builders.cli.phantomwiki import main
from leakproof_qa.builders.publishing.manifest import Manifest, file_digest

PASSPHRASE = "verify the labels"


def verify(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str], str]:
    """(exit code, the problem lines, the summary line)."""
    code = main(["verify", *argv])
    out = capsys.readouterr().out.splitlines()
    return code, out[:-1], out[-1]


def flagged(lines: list[str]) -> set[str]:
    return {line.split(" ", 1)[0] for line in lines}


def flip_one_label(release: Path) -> str:
    """Turn the first sufficient instance of n50_s1 into an insufficient one (deflection, "Unanswerable" gold) in the
    release's Parquet, its manifest digest updated as a publisher's would be; the row's instance_id."""
    manifest = Manifest.read(release)
    (entry,) = manifest.entries("n50_s1_instances")
    table = pq.read_table(release / entry.path)
    rows = table.to_pylist()
    index = next(i for i, row in enumerate(rows) if row["answerable"] == "sufficient")
    row = rows[index]
    row.update(answerable="insufficient", answer=["insufficient information"], missing_role="answer")
    row["gold_answer_idx"] = row["answer_options"].index("Unanswerable")
    pq.write_table(table.from_pylist(rows, schema=table.schema), release / entry.path)
    size, sha256 = file_digest(release / entry.path)
    files = [dataclasses.replace(e, size=size, sha256=sha256) if e is entry else e for e in manifest.files]
    dataclasses.replace(manifest, files=files).write(release)
    return str(row["instance_id"])


def test_a_release_with_one_flipped_label_fails_and_names_the_row(tmp_path, capsys):
    release = tmp_path / "release"
    phantom_wiki.publish("n50_s1", str(release), subsets=["instances", "rag"])
    code, generated_lines, _ = verify(["n50_s1"], capsys)
    released_code, released_lines, summary = verify([str(release)], capsys)
    assert (released_code, released_lines) == (code, generated_lines)  # the release reads as generation does
    assert "n50_s1_instances: 1,862 rows" in summary and "n50_s1_rag: 90 rows" in summary  # balanced by path too
    assert code == 0 and not generated_lines  # 0.9.0 holds every label (0.8.0: 33 rows here)
    flipped = flip_one_label(release)
    code, lines, _ = verify([str(release)], capsys)
    assert code == 1 and flagged(lines) == flagged(released_lines) | {flipped}
    line = next(line for line in lines if line.startswith(flipped))
    assert line.startswith(f"{flipped} n50_s1_instances: labelled insufficient (answer), but the documents prove")


def test_a_sealed_release_is_read_with_its_passphrase(tmp_path, capsys, monkeypatch):
    release = tmp_path / "sealed"
    phantom_wiki.publish("n50_s1", str(release), subsets=["instances"], encrypt=True, passphrase=PASSPHRASE)
    assert main(["verify", str(release)]) == 2
    assert "is encrypted: give its passphrase" in capsys.readouterr().err
    monkeypatch.setenv("PW_VERIFY", PASSPHRASE)
    code, lines, summary = verify([str(release), "--passphrase-env", "PW_VERIFY"], capsys)
    assert "n50_s1_instances: 1,862 rows" in summary and "rag" not in summary
    assert (code, lines) == verify(["n50_s1_instances"], capsys)[:2]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["n50_s1_corpus"], "verify checks the instances and rag subsets; corpus has no labels to check"),
        (["n50_s1_rag", "--subsets", "instances"], "names the rag subset; leave out --subsets or the suffix"),
        (["nonsense"], "bad configuration name 'nonsense'"),
        (["n50_s1", "--passphrase-env", "X"], "is a configuration name: --passphrase-*"),
        (["does/not-exist"], "not-exist"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["verify", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_settings_shape_a_configuration_not_a_release(tmp_path, capsys):
    release = tmp_path / "release"
    release.mkdir()
    assert main(["verify", str(release), "--context-tokens", "4096"]) == 2
    assert "--context-tokens shapes a generated configuration" in capsys.readouterr().err


def test_n500_s1_passes(capsys):
    """Every instances and rag row of n500_s1 holds its label (fails on 0.8.0: see issue 35)."""
    code, lines, summary = verify(["n500_s1"], capsys)
    assert lines == [] and code == 0
    assert "n500_s1_instances: 1,685 rows, 0 with problems" in summary


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv", [["n500_s2"], ["n500_s3"], ["n5000_s1"], ["n500_s1_instances", "--context-tokens", "16384"]]
)
def test_whole_universes_pass(argv, capsys):
    code, lines, summary = verify(argv, capsys)
    assert lines == [] and code == 0, "\n".join(lines[:20])
    assert " 0 with problems" in summary


@pytest.mark.integration
def test_a_hub_release_is_verified_as_published(hub, hub_env, tmp_path, capsys):
    phantom_wiki.publish("n50_s1", repo_id="org/verified", subsets=["rag"], endpoint=hub.endpoint)
    done = subprocess.run(
        [sys.executable, "-m", "phantom_wiki", "verify", "org/verified", "--cache-dir", str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        env=hub_env,
        cwd=tmp_path,
    )
    code, lines, _ = verify(["n50_s1_rag"], capsys)
    assert (done.returncode, done.stdout.splitlines()[:-1]) == (code, lines), done.stderr
    assert "n50_s1_rag: 90 rows" in done.stdout.splitlines()[-1]
