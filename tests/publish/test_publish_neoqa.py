"""NeoQA, within its license: the release files go up verbatim and still encrypted; decrypted or rebuilt rows never.

The fixture release (tests/neoqa/make_fixture_release.py) is invented text in the published format.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from huggingface_hub import DatasetCard

import neoqa
from leakproof_qa.builders.publishing.errors import LicenseError, ReleaseError
from leakproof_qa.encryption.neoqa_codec import read_jsonl, write_jsonl
from tests.neoqa.make_fixture_release import write_release as write_fixture
from tests.publish.hub_standin import HubStandIn
from tests.publish.publish_helpers import TOKEN, one_line, release_files, run

REPO = "leakproof-lab/neoqa-release"
COUNTS = {"neoqa": {"dev": 17, "test": 16}, "news": {"dev": 12, "test": 120}}


@pytest.fixture(scope="module")
def official(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture release as the authors publish it: encrypted with the release key 23456."""
    return write_fixture(tmp_path_factory.mktemp("official"))


def test_the_folder_holds_the_release_files_byte_for_byte_with_card_and_manifest(
    official: Path, tmp_path: Path
) -> None:
    folder, commit = neoqa.publish(str(official), tmp_path / "out")
    assert commit is None
    files = release_files(folder)
    originals = release_files(official)
    assert {path for path in files if path.startswith("data/")} == {f"data/{name}" for name in originals}
    assert all(files[f"data/{name}"] == data for name, data in originals.items())
    manifest = json.loads(files["manifest.json"])
    assert manifest["dataset"] == "neoqa" and manifest["encryption"].startswith("NeoQA release codec")
    for entry in manifest["files"]:
        assert entry["sha256"] == hashlib.sha256(files[entry["path"]]).hexdigest()
        assert entry["rows"] == len(read_jsonl(official / Path(entry["path"]).name, key=23456))


def test_the_card_carries_neoqas_license_attribution_citation_and_key(official: Path, tmp_path: Path) -> None:
    folder, _ = neoqa.publish(str(official), tmp_path / "out", repo_id=None)
    card = DatasetCard.load(folder / "README.md")
    assert card.data.license == "cc-by-nd-4.0" and card.data.to_dict()["viewer"] is False
    for needed in (
        "verbatim",
        "CC BY-ND 4.0",
        "Max Glockner",
        "glockner2025neoqa",
        "`23456`",
        "do not publish decrypted, re-paired or otherwise adapted NeoQA data",
        'neoqa.load_dataset("neoqa", split="test", repo_id="<org>/<name>", decryption_key=23456)',
    ):
        assert needed in card.text, needed


def test_neoqa_loads_the_published_folder_as_it_loads_the_release(official: Path, tmp_path: Path) -> None:
    folder, _ = neoqa.publish(str(official), tmp_path / "out")
    published = neoqa.load_dataset("neoqa", data_dir=str(folder), decryption_key=23456, cache_dir=str(tmp_path / "a"))
    original = neoqa.load_dataset("neoqa", data_dir=str(official), decryption_key=23456, cache_dir=str(tmp_path / "b"))
    assert {split: rows.to_list() for split, rows in published.items()} == {
        split: rows.to_list() for split, rows in original.items()
    }


def test_neoqa_loads_from_the_hub_by_repo_id_end_to_end(
    official: Path, hub: HubStandIn, hub_env: dict, tmp_path: Path
) -> None:
    done = run("-m", "neoqa", "publish", "--data-dir", str(official), "--repo-id", REPO, env=hub_env)
    assert done.returncode == 0, done.stderr
    assert sorted(p for p in hub.tree(REPO) if p.startswith("data/")) == sorted(
        f"data/{n}" for n in release_files(official)
    )
    for name in COUNTS:
        loaded = run("-m", "neoqa", name, "--repo-id", REPO, "--decryption-key", "23456", env=hub_env, cwd=tmp_path)
        assert loaded.returncode == 0, loaded.stderr
        for split, rows in COUNTS[name].items():
            assert f"{name}/{split}: {rows} rows" in loaded.stdout


def test_an_altered_file_on_the_hub_is_caught_by_the_manifest(
    official: Path, hub: HubStandIn, hub_env: dict, tmp_path: Path
) -> None:
    neoqa.publish(str(official), repo_id=REPO, endpoint=hub.endpoint)
    repo = hub.repos[f"datasets/{REPO}"]
    head = repo.branches["main"]
    tree = dict(repo.commits[head])
    tree["data/test.news.jsonl"] = tree["data/test.news.jsonl"][:-200]  # cut short on the server
    repo.branches["main"] = repo.commit(head, tree, "damage")
    loaded = run("-m", "neoqa", "news", "--repo-id", REPO, "--decryption-key", "23456", env=hub_env, cwd=tmp_path)
    assert loaded.returncode == 2 and loaded.stderr.count("\n") == 1
    assert "error: data/test.news.jsonl does not match manifest.json" in loaded.stderr
    with pytest.raises(ReleaseError, match="does not match manifest.json"):
        folder = tmp_path / "local"
        neoqa.publish(str(official), folder)
        (folder / "data" / "dev.questions.jsonl").write_bytes(b"")
        neoqa.load_dataset("questions", data_dir=str(folder), decryption_key=23456, cache_dir=str(tmp_path / "c"))


def _decrypted(official: Path, tmp_path: Path) -> Path:
    return write_fixture(tmp_path / "decrypted", key=None)


def _re_encrypted(official: Path, tmp_path: Path) -> Path:
    return write_fixture(tmp_path / "reencrypted", key=4242)


def _rebuilt(official: Path, tmp_path: Path) -> Path:
    # Rebuilt instance rows, written in the release's own encoding under a release file name.
    rows = neoqa.load_dataset(
        "neoqa", "dev", str(official), 23456, cache_dir=str(tmp_path / "c"), include_documents=False
    )
    folder = tmp_path / "rebuilt"
    for path in official.iterdir():
        (folder / path.name).parent.mkdir(parents=True, exist_ok=True)
        (folder / path.name).write_bytes(path.read_bytes())
    write_jsonl(folder / "dev.questions.jsonl", rows.to_list(), key=23456)
    return folder


@pytest.mark.parametrize(
    "make, why",
    [
        (_decrypted, "refused to publish dev.timelines.jsonl: it is decrypted NeoQA text"),
        (_re_encrypted, "refused to publish dev.timelines.jsonl: it is not encrypted with the release key 23456"),
        (_rebuilt, "refused to publish dev.questions.jsonl: it does not hold the release's raw records"),
    ],
)
def test_decrypted_re_encrypted_or_rebuilt_files_are_refused_citing_cc_by_nd(
    official: Path, tmp_path: Path, make, why: str
) -> None:
    source = make(official, tmp_path)
    with pytest.raises(LicenseError, match=why) as caught:
        neoqa.publish(str(source), tmp_path / "out")
    one_line(caught.value)
    assert "CC BY-ND 4.0" in str(caught.value)
    done = run("-m", "neoqa", "publish", "--data-dir", str(source), "--out", str(tmp_path / "cli"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and why in done.stderr
    assert not (tmp_path / "cli" / "README.md").exists()


pytestmark = pytest.mark.integration


def test_rows_configurations_and_decryption_keys_are_refused_through_every_door(official: Path, tmp_path: Path) -> None:
    rows = neoqa.load_dataset("news", "dev", str(official), 23456, cache_dir=str(tmp_path / "c"))
    for source in (rows, rows.to_list()):
        with pytest.raises(
            LicenseError, match="refused to publish a .*never decrypted or rebuilt NeoQA rows.*CC BY-ND"
        ):
            neoqa.publish(source, tmp_path / "out")
    for args, why in [
        (["neoqa", "--data-dir", str(official)], "refused to publish neoqa: configurations are decrypted or rebuilt"),
        (["--data-dir", str(official), "--decryption-key", "23456"], "refused to publish with --decryption-key"),
    ]:
        done = run("-m", "neoqa", "publish", *args, "--out", str(tmp_path / "out"))
        assert (
            done.returncode == 2 and done.stderr.count("\n") == 1 and why in done.stderr and "CC BY-ND" in done.stderr
        )
    done = run("-m", "phantom_wiki", "publish", "optimal-evidence", "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and "refused to publish 'optimal-evidence'" in done.stderr and "CC BY-ND" in done.stderr
    assert not (tmp_path / "out").exists()


def test_uploading_without_a_token_says_how_to_log_in(official: Path, hub: HubStandIn, hub_env: dict) -> None:
    done = run(
        "-m",
        "neoqa",
        "publish",
        "--data-dir",
        str(official),
        "--repo-id",
        REPO,
        env={**hub_env, "HF_TOKEN": TOKEN + "x"},
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "hf auth login" in done.stderr
