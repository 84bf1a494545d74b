"""`python -m neoqa publish t2_s1`: generated NeoQA (our data) as a Hub-ready folder, plain CC BY 4.0 or sealed
CC BY-ND 4.0; what it holds is what `neoqa.load_dataset` makes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest

import neoqa
from leakproof_qa.builders.publishing.manifest import Manifest, file_digest
from leakproof_qa.encryption.aead_stream import unseal_file

ROOT = Path(__file__).resolve().parents[2]
JSON_COLUMNS = ("meta",)


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def plain(rows: list[dict]) -> list[dict]:
    """Rows with the JSON columns as text, as the published shards hold them."""
    return [{k: json.dumps(v, separators=(",", ":")) if k in JSON_COLUMNS else v for k, v in r.items()} for r in rows]


def test_a_plain_release_holds_every_subset_as_load_dataset_makes_it(tmp_path):
    out = tmp_path / "release"
    folder, commit = neoqa.publish_generated("t1_s3", out)
    assert (folder, commit) == (out, None)
    manifest = Manifest.read(out)
    assert manifest.config_names() == [
        "t1_s3_timelines",
        "t1_s3_news",
        "t1_s3_questions",
        "t1_s3",
        "t1_s3_optimal-evidence",
        "t1_s3_context-ablation",
    ]
    for entry in manifest.files:
        assert file_digest(out / entry.path) == (entry.size, entry.sha256)
    card = (out / "README.md").read_text()
    assert (
        "license: cc-by-4.0" in card and "default: true" in card.split("config_name: t1_s3\n")[1].split("- config")[0]
    )
    for name in ("t1_s3", "t1_s3_news", "t1_s3_questions"):
        published = datasets.load_dataset(str(out), name, split="test", cache_dir=str(tmp_path / "hf")).to_list()
        made = neoqa.load_dataset(name, split="test", cache_dir=str(tmp_path / "made")).to_list()
        assert published == (plain(made) if name.endswith("questions") else made)


def test_a_sealed_release_is_cc_by_nd_and_opens_with_its_passphrase_only(tmp_path):
    secret = tmp_path / "passphrase"
    secret.write_text("correct horse\n")
    out = tmp_path / "sealed"
    done = run(
        "-m", "neoqa", "publish", "t1_s3", "--out", str(out), "--subsets", "news",
        "--encrypt", "--passphrase-file", str(secret), "--passphrase-not-in-card",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    card = (out / "README.md").read_text()
    assert "license: cc-by-nd-4.0" in card and "correct horse" not in card and "viewer: false" in card
    [shard] = list(out.glob("t1_s3_news/*"))
    assert shard.suffix == ".parquet-aead" and not shard.read_bytes().startswith(b"PAR1")
    unseal_file(shard, tmp_path / "news.parquet", "correct horse")
    made = neoqa.load_dataset("t1_s3_news", split="test", cache_dir=str(tmp_path / "made")).to_list()
    assert pq.read_table(tmp_path / "news.parquet").to_pylist() == made


@pytest.mark.parametrize(
    "args, says",
    [
        (["t1_s3_news"], "publish takes whole configurations: give 't1_s3', not 't1_s3_news'"),
        (["t1_s3", "--data-dir", "/x"], "generated configurations read no release files"),
        (["t1_s3", "--encrypt"], "--encrypt and a passphrase"),
        (["t1_s3", "t1_s3"], "configuration 't1_s3' is given twice"),
        (["t1_x3"], "bad NeoQA configuration name 't1_x3'"),
    ],
)
def test_a_bad_generated_publish_is_one_line_and_writes_nothing(tmp_path, capsys, args, says):
    with pytest.raises(SystemExit) as exited:
        neoqa.main(["publish", *args, "--out", str(tmp_path / "out")])
    stderr = capsys.readouterr().err
    assert exited.value.code == 2 and stderr.count("\n") == 1 and says in stderr, stderr
    assert not (tmp_path / "out").exists()
