"""Encrypted releases: CC BY-ND, no readable byte of data anywhere, and loud, clean failures when anything is off."""

from __future__ import annotations

import io
import json
import re
import zlib
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from huggingface_hub import DatasetCard

import phantom_wiki
from leakproof_qa import cards
from leakproof_qa.builders.cli import phantomwiki as cli
from leakproof_qa.builders.phantomwiki import rows as engine
from leakproof_qa.builders.phantomwiki.config import SUBSETS, ConfigError
from leakproof_qa.builders.publishing.errors import ReleaseError
from leakproof_qa.builders.publishing.loading import DECRYPTED
from leakproof_qa.builders.publishing.phantomwiki import write_release
from tests.publish.publish_helpers import CONFIG, PASSPHRASE, copy_release, generated, one_line, release_files, run

HUB_NAMES = {"questions": CONFIG, **{s: f"{CONFIG}_{s}" for s in SUBSETS if s != "questions"}}
SHARD = "n50_s1_corpus/test-00000-of-00001.parquet-aead"


def needles() -> dict[str, list[bytes]]:
    """What must never be readable in an encrypted release: every name, article sentence and question."""
    g = generated()
    sentences = {
        s.strip()
        for a in g.articles
        for line in a.article.splitlines()
        for s in re.split(r"(?<=\.) ", line)
        if len(s.strip()) > 24 and not s.startswith("#")
    }
    return {
        "names": sorted({name.encode() for name in g.universe.names}),
        "sentences": sorted(s.encode() for s in sentences),
        "questions": sorted({q.question.encode() for q in g.questions}),
    }


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [text for item in value for text in _strings(item)] if isinstance(value, list) else []


def readable(data: bytes) -> list[bytes]:
    """Every form in which a reader could see a file's content: its bytes, and its text if Parquet reads it."""
    try:
        rows = pq.read_table(io.BytesIO(data)).to_pylist()
    except pa.ArrowInvalid:
        return [data]
    return [data, "\n".join(_strings(rows)).encode()]


def found(folder: Path, skip: tuple[str, ...] = ("README.md",)) -> dict[str, int]:
    """How many needles of each kind can be read anywhere in the release (files in `skip` left out)."""
    forms = [form for path, data in release_files(folder).items() if path not in skip for form in readable(data)]
    return {kind: sum(any(needle in form for form in forms) for needle in items) for kind, items in needles().items()}


def test_no_name_sentence_or_question_is_readable_in_any_published_byte(encrypted_release: Path) -> None:
    assert found(encrypted_release) == {"names": 0, "sentences": 0, "questions": 0}
    card = (encrypted_release / "README.md").read_bytes()
    assert not any(needle in card for needle in needles()["sentences"] + needles()["questions"])


def test_the_scan_finds_every_one_of_them_in_a_plain_release(plain_release: Path) -> None:
    # The same scan over the plain release: proof that it sees what it looks for.
    assert found(plain_release) == {kind: len(items) for kind, items in needles().items()}


def test_encrypted_shards_are_as_incompressible_as_random_bytes(encrypted_release: Path, plain_release: Path) -> None:
    def ratio(data: bytes) -> float:
        return len(zlib.compress(data, 9)) / len(data)

    for path, data in release_files(encrypted_release).items():
        if path.endswith(".parquet-aead"):
            assert ratio(data) > 0.99, path
    for path, data in release_files(plain_release).items():  # Parquet, even compressed, is not
        if path.endswith(".parquet"):
            assert ratio(data) < 0.9, path


def test_shards_have_an_extension_datasets_does_not_take_for_data(encrypted_release: Path, tmp_path: Path) -> None:
    shards = [p for p in release_files(encrypted_release) if p not in ("README.md", "manifest.json")]
    assert len(shards) == 5 and all(p.endswith("/test-00000-of-00001.parquet-aead") for p in shards)
    with pytest.raises(datasets.exceptions.DataFilesNotFoundError):
        datasets.load_dataset(str(encrypted_release), cache_dir=str(tmp_path))


def test_the_card_is_cc_by_nd_says_why_and_how_to_decrypt_and_shows_no_rows(encrypted_release: Path) -> None:
    card = DatasetCard.load(encrypted_release / "README.md")
    data = card.data.to_dict()
    assert data["license"] == "cc-by-nd-4.0" and data["viewer"] is False and "configs" not in data
    text = card.text
    assert "not decrypted or" in text and "derived copies" in text and "must **not train models on it**" in text
    assert f"The passphrase is public: `{PASSPHRASE}`" in text and "it is not a secret" in text
    assert 'phantom_wiki.load_published("<org>/<name>", "n50_s1", split="test", passphrase=' in text
    assert "AES-256-GCM" in text and "scrypt" in text and "LPQ-AEAD" in text and cards.CANARY in text
    manifest = json.loads((encrypted_release / "manifest.json").read_text())
    assert manifest["encryption"].startswith("LPQ-AEAD v1") and PASSPHRASE not in json.dumps(manifest)
    assert all(entry["plaintext_sha256"] and entry["plaintext_size"] for entry in manifest["files"])


def test_the_passphrase_can_be_kept_out_of_every_published_byte(tmp_path: Path) -> None:
    folder = write_release(
        [CONFIG], tmp_path / "r", subsets=["database"], passphrase=PASSPHRASE, passphrase_in_card=False
    ).folder
    assert not any(PASSPHRASE.encode() in data for data in release_files(folder).values())
    assert "The\n> publisher gives the passphrase on request." in (folder / "README.md").read_text()


@pytest.mark.parametrize("subset", SUBSETS)
def test_load_published_decrypts_to_the_rows_phantom_wiki_generates(
    encrypted_release: Path, subset: str, tmp_path: Path
) -> None:
    loaded = phantom_wiki.load_published(
        str(encrypted_release), HUB_NAMES[subset], passphrase=PASSPHRASE, cache_dir=str(tmp_path)
    )
    assert isinstance(loaded, datasets.Dataset)
    assert loaded.to_list() == list(engine.ROWS[subset](generated()))
    decrypted = list((tmp_path / DECRYPTED).rglob("*"))
    assert [p.name for p in decrypted if p.is_file()] == ["test-00000-of-00001.parquet"]


def test_the_decrypted_copy_is_reused_only_with_the_right_passphrase(encrypted_release: Path, tmp_path: Path) -> None:
    phantom_wiki.load_published(str(encrypted_release), "n50_s1_corpus", passphrase=PASSPHRASE, cache_dir=str(tmp_path))
    with pytest.raises(ReleaseError, match=f"^{SHARD}: wrong passphrase"):
        phantom_wiki.load_published(
            str(encrypted_release), "n50_s1_corpus", passphrase="guess", cache_dir=str(tmp_path)
        )
    again = phantom_wiki.load_published(
        str(encrypted_release), "n50_s1_corpus", passphrase=PASSPHRASE, cache_dir=str(tmp_path)
    )
    assert again.num_rows == 50
    for opened in (tmp_path / DECRYPTED).rglob("*.parquet"):  # a damaged or removed opening is opened afresh
        opened.unlink()
    assert (
        phantom_wiki.load_published(
            str(encrypted_release), "n50_s1_corpus", passphrase=PASSPHRASE, cache_dir=str(tmp_path / "other")
        ).num_rows
        == 50
    )
    assert (
        phantom_wiki.load_published(
            str(encrypted_release), "n50_s1_corpus", passphrase=PASSPHRASE, cache_dir=str(tmp_path)
        ).num_rows
        == 50
    )


def _nothing_decrypted(cache: Path) -> None:
    leftovers = [p for p in (cache / DECRYPTED).rglob("*")] if (cache / DECRYPTED).exists() else []
    assert leftovers == [], leftovers


def _flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))


def _rewrite_manifest(folder: Path, change) -> None:
    manifest = json.loads((folder / "manifest.json").read_text())
    change(manifest)
    (folder / "manifest.json").write_text(json.dumps(manifest))


def _update_digest(folder: Path, path: str) -> None:
    from leakproof_qa.builders.publishing.manifest import file_digest

    size, sha256 = file_digest(folder / path)

    def change(manifest: dict) -> None:
        entry = next(e for e in manifest["files"] if e["path"] == path)
        entry.update(size=size, sha256=sha256)

    _rewrite_manifest(folder, change)


def _wrong_passphrase(folder: Path) -> str:
    return "the wrong passphrase"


def _flipped_byte(folder: Path) -> str:
    _flip(folder / SHARD, 5000)
    return PASSPHRASE


def _flipped_byte_and_manifest(folder: Path) -> str:  # the manifest altered to match: the cipher itself objects
    _flip(folder / SHARD, 5000)
    _update_digest(folder, SHARD)
    return PASSPHRASE


def _truncated(folder: Path) -> str:
    (folder / SHARD).write_bytes((folder / SHARD).read_bytes()[:-100])
    return PASSPHRASE


def _truncated_and_manifest(folder: Path) -> str:
    (folder / SHARD).write_bytes((folder / SHARD).read_bytes()[:-100])
    _update_digest(folder, SHARD)
    return PASSPHRASE


def _missing(folder: Path) -> str:
    (folder / SHARD).unlink()
    return PASSPHRASE


def _unlisted_shard(folder: Path) -> str:
    (folder / SHARD.replace("00000-of", "00001-of")).write_bytes((folder / SHARD).read_bytes())
    return PASSPHRASE


def _rows_mismatch(folder: Path) -> str:
    _rewrite_manifest(folder, lambda m: next(e for e in m["files"] if e["path"] == SHARD).update(rows=51))
    return PASSPHRASE


def _plaintext_mismatch(folder: Path) -> str:
    _rewrite_manifest(
        folder, lambda m: next(e for e in m["files"] if e["path"] == SHARD).update(plaintext_sha256="0" * 64)
    )
    return PASSPHRASE


def _no_manifest(folder: Path) -> str:
    (folder / "manifest.json").unlink()
    return PASSPHRASE


@pytest.mark.parametrize(
    "damage, message",
    [
        (_wrong_passphrase, f"^{SHARD}: wrong passphrase: .*use the passphrase the release's README.md gives$"),
        (_flipped_byte, f"^{SHARD} does not match manifest.json \\(its sha256 differs\\): the file was altered"),
        (
            _flipped_byte_and_manifest,
            f"^{SHARD}: chunk 0 fails authentication: the file was altered, truncated or extended",
        ),
        (_truncated, f"^{SHARD} does not match manifest.json \\(\\d+ bytes instead of \\d+\\)"),
        (_truncated_and_manifest, f"^{SHARD}: (truncated|chunk 0 fails authentication)"),
        (_missing, f"^{SHARD} is listed in manifest.json but missing from .*; publish .* again"),
        (_unlisted_shard, "test-00001-of-00001.parquet-aead is in the release folder but not in manifest.json"),
        (_rows_mismatch, r"n50_s1_corpus/test-00000-of-00001\.parquet-aead has 50 rows but manifest.json lists 51"),
        (_plaintext_mismatch, f"^{SHARD} decrypts, but not to the Parquet bytes manifest.json lists"),
        (_no_manifest, "has no manifest.json: it is not a release written by `phantom_wiki publish`"),
    ],
)
def test_every_damage_is_a_one_line_error_naming_the_file_leaving_nothing_decrypted(
    encrypted_release: Path, tmp_path: Path, damage, message: str
) -> None:
    folder = copy_release(encrypted_release, tmp_path)
    passphrase = damage(folder)
    cache = tmp_path / "cache"
    with pytest.raises(ReleaseError, match=message) as caught:
        phantom_wiki.load_published(str(folder), "n50_s1_corpus", passphrase=passphrase, cache_dir=str(cache))
    one_line(caught.value)
    if damage is not _rows_mismatch:  # rows are counted after `datasets` read the (correct) decrypted shard
        _nothing_decrypted(cache)


@pytest.mark.parametrize(
    "name, passphrase, error, message",
    [
        ("n50_s1_bogus", PASSPHRASE, ConfigError, "unknown subset 'bogus'"),
        (
            "n50_s2",
            PASSPHRASE,
            ReleaseError,
            "configuration 'n50_s2' is not in this release; it holds n50_s1, n50_s1_corpus",
        ),
        ("n50_s1", None, ReleaseError, "n50_s1 of .* is encrypted: pass passphrase=..."),
    ],
)
def test_names_and_missing_passphrases_are_one_line_errors(
    encrypted_release: Path, tmp_path: Path, name: str, passphrase: str | None, error: type, message: str
) -> None:
    with pytest.raises(error, match=message) as caught:
        phantom_wiki.load_published(str(encrypted_release), name, passphrase=passphrase, cache_dir=str(tmp_path))
    one_line(caught.value)
    _nothing_decrypted(tmp_path)


def test_unknown_splits_and_sources_are_one_line_errors(encrypted_release: Path, tmp_path: Path) -> None:
    with pytest.raises(ReleaseError, match="unknown split 'train': .* one split, test"):
        phantom_wiki.load_published(str(encrypted_release), CONFIG, split="train", passphrase=PASSPHRASE)
    with pytest.raises(ReleaseError, match="'no/such/place' is neither a release folder nor a Hub dataset id"):
        phantom_wiki.load_published("no/such/place", CONFIG, cache_dir=str(tmp_path))


def test_the_command_line_takes_the_passphrase_from_a_file_or_a_variable_never_as_a_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "passphrase.txt"
    secret.write_text(PASSPHRASE + "\n")
    by_file = run(
        "-m",
        "phantom_wiki",
        "publish",
        CONFIG,
        "--subsets",
        "database",
        "--encrypt",
        "--passphrase-file",
        str(secret),
        "--out",
        str(tmp_path / "a"),
    )
    assert by_file.returncode == 0, by_file.stderr
    assert "encrypted (cc-by-nd-4.0)" in by_file.stdout
    monkeypatch.setenv("PW_RELEASE", PASSPHRASE)
    publish = ["publish", CONFIG, "--subsets", "database", "--encrypt"]
    assert cli.main([*publish, "--passphrase-env", "PW_RELEASE", "--out", str(tmp_path / "b")]) == 0
    assert release_files(tmp_path / "a") == release_files(tmp_path / "b")
    capsys.readouterr()
    for args, message in [
        (["--passphrase", PASSPHRASE], "never give a passphrase on the command line"),
        ([f"--passphrase={PASSPHRASE}"], "never give a passphrase on the command line"),
        (
            ["--passphrase-env", "NOT_SET_ANYWHERE"],
            "environment variable NOT_SET_ANYWHERE (--passphrase-env) is not set",
        ),
        (["--passphrase-file", str(tmp_path / "none")], "cannot read --passphrase-file"),
        (["--passphrase-file", str(secret), "--passphrase-env", "PW_RELEASE"], "give the passphrase once"),
        ([], "encrypt=True needs a passphrase"),
    ]:
        assert cli.main([*publish, "--out", str(tmp_path / "c"), *args]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err and PASSPHRASE not in err, (args, err)
        assert not (tmp_path / "c").exists()
