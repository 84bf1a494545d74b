"""`publish` writes one folder that is exactly a Hub dataset repo: bounded Parquet shards, card, manifest."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
from huggingface_hub import DatasetCard

import phantom_wiki
from leakproof_qa import cards
from leakproof_qa.builders import __version__
from leakproof_qa.builders.phantomwiki import rows as engine
from leakproof_qa.builders.phantomwiki.config import SUBSETS, ConfigError, settings_from
from leakproof_qa.builders.phantomwiki.features import FEATURES, arrow_schema, datasets_features
from leakproof_qa.builders.publishing.errors import PublishError, ReleaseError
from leakproof_qa.builders.publishing.manifest import Manifest
from leakproof_qa.builders.publishing.phantomwiki import write_release
from leakproof_qa.builders.publishing.shards import shard_schema, write_shards
from tests.publish.publish_helpers import CONFIG, PASSPHRASE, generated, one_line, release_files, run

HUB_NAMES = {"questions": CONFIG, **{s: f"{CONFIG}_{s}" for s in SUBSETS if s != "questions"}}


def test_the_folder_holds_exactly_the_card_the_manifest_and_one_shard_per_subset(plain_release: Path) -> None:
    assert sorted(release_files(plain_release)) == sorted(
        ["README.md", "manifest.json"] + [f"{name}/test-00000-of-00001.parquet" for name in HUB_NAMES.values()]
    )


def test_the_card_declares_every_configuration_by_our_grammar_with_its_files(plain_release: Path) -> None:
    card = DatasetCard.load(plain_release / "README.md")
    data = card.data.to_dict()
    assert (
        data["license"] == "cc-by-4.0" and data["language"] == ["en"] and data["pretty_name"] == "PhantomWiki (n50_s1)"
    )
    assert "question-answering" in data["task_categories"] and data["size_categories"] == ["1K<n<10K"]
    assert "viewer" not in data
    configs = {c["config_name"]: c for c in data["configs"]}
    assert set(configs) == set(HUB_NAMES.values())
    assert [c["config_name"] for c in data["configs"] if c.get("default")] == [CONFIG]
    for name, config in configs.items():
        assert config["data_files"] == [{"split": "test", "path": f"{name}/test-*.parquet"}]
    text = card.text
    assert __version__ in text and json.loads((plain_release / "manifest.json").read_text())["code_digest"] in text
    assert cards.CANARY in text and "gong2025phantomwiki" in text and '"questions_per_template": 10' in text
    for subset, name in HUB_NAMES.items():
        rows = len(list(engine.ROWS[subset](generated())))
        assert f"| `{name}`" in text and f"| {rows:,} |" in text


def test_the_manifest_lists_every_shard_with_its_configuration_rows_size_and_sha256(plain_release: Path) -> None:
    manifest = json.loads((plain_release / "manifest.json").read_text())
    assert manifest["package_version"] == __version__ and manifest["encryption"] is None
    assert manifest["configurations"][CONFIG]["size"] == 50 and manifest["configurations"][CONFIG]["depth"] == 20
    for entry in manifest["files"]:
        data = (plain_release / entry["path"]).read_bytes()
        assert entry["sha256"] == hashlib.sha256(data).hexdigest() and entry["size"] == len(data)
        assert entry["rows"] == pq.read_metadata(plain_release / entry["path"]).num_rows
        assert (entry["configuration"], entry["split"]) == (CONFIG, "test")
        assert entry["config_name"] == HUB_NAMES[entry["subset"]]


def test_every_shard_carries_the_features_and_the_canary_in_its_key_value_metadata(plain_release: Path) -> None:
    for subset, name in HUB_NAMES.items():
        metadata = pq.read_schema(plain_release / name / "test-00000-of-00001.parquet").metadata
        assert metadata[b"canary"].decode() == cards.CANARY
        features = json.loads(metadata[b"huggingface"])["info"]["features"]
        assert datasets.Features.from_dict(features) == datasets_features(subset)


@pytest.mark.parametrize("subset", SUBSETS)
def test_plain_datasets_reads_the_folder_to_the_rows_phantom_wiki_generates(
    plain_release: Path, subset: str, tmp_path: Path
) -> None:
    name = HUB_NAMES[subset]
    bare = datasets.load_dataset(str(plain_release), name, split="test", cache_dir=str(tmp_path / "bare"))
    ours = phantom_wiki.load_dataset(name, split="test", cache_dir=str(tmp_path / "ours"))
    assert bare.features == ours.features
    assert bare.to_list() == ours.to_list()


def test_the_default_configuration_is_the_questions(plain_release: Path, tmp_path: Path) -> None:
    questions = datasets.load_dataset(str(plain_release), split="test", cache_dir=str(tmp_path))
    assert questions.to_list() == list(engine.question_rows(generated()))


def test_load_published_reads_a_folder_under_any_spelling_of_the_name(plain_release: Path, tmp_path: Path) -> None:
    rows = list(engine.corpus_rows(generated()))
    assert phantom_wiki.load_published(str(plain_release), "n50_s1_corpus", cache_dir=str(tmp_path)).to_list() == rows
    spelled = phantom_wiki.load_published(
        str(plain_release), "n50_d20_s1_questions", split=None, cache_dir=str(tmp_path)
    )
    assert isinstance(spelled, datasets.DatasetDict) and list(spelled) == ["test"]
    assert spelled["test"].to_list() == list(engine.question_rows(generated()))


def test_the_same_configuration_publishes_the_same_bytes(
    plain_release: Path, encrypted_release: Path, tmp_path: Path
) -> None:
    again = write_release([CONFIG], tmp_path / "plain").folder
    assert release_files(again) == release_files(plain_release)
    sealed = write_release([CONFIG], tmp_path / "sealed", passphrase=PASSPHRASE).folder
    assert release_files(sealed) == release_files(encrypted_release)
    other = write_release([CONFIG], tmp_path / "other", subsets=["database"], passphrase=PASSPHRASE + "!").folder
    shard = "n50_s1_database/test-00000-of-00001.parquet-aead"
    assert (other / shard).read_bytes() != (encrypted_release / shard).read_bytes()


def test_shards_stay_under_the_size_limit_and_together_hold_every_row(tmp_path: Path) -> None:
    schema = shard_schema(arrow_schema("corpus"), FEATURES["corpus"], cards.CANARY)
    rows = list(engine.corpus_rows(generated("n300_s2")))
    limit = 60_000
    shards = write_shards(iter(rows), tmp_path, "n300_s2_corpus/test", schema, max_bytes=limit, rows_per_batch=40)
    assert len(shards) >= 4
    assert [s.path for s in shards] == [
        f"n300_s2_corpus/test-{i:05d}-of-{len(shards):05d}.parquet" for i in range(len(shards))
    ]
    assert all(s.size <= limit * 1.15 for s in shards), [s.size for s in shards]
    assert sum(s.rows for s in shards) == len(rows)
    back = datasets.load_dataset(
        "parquet", data_files=[str(tmp_path / s.path) for s in shards], split="train", cache_dir=str(tmp_path / "cache")
    )
    assert back.to_list() == rows
    assert sorted(p.name for p in (tmp_path / "n300_s2_corpus").iterdir()) == [Path(s.path).name for s in shards]


def test_a_many_shard_release_loads_back_whole(tmp_path: Path) -> None:
    release = write_release(["n300_s2"], tmp_path / "release", subsets=["corpus"], max_shard_bytes=60_000)
    assert len(release.manifest.entries("n300_s2_corpus")) >= 4
    loaded = phantom_wiki.load_published(str(release.folder), "n300_s2_corpus", cache_dir=str(tmp_path / "cache"))
    assert loaded.to_list() == list(engine.corpus_rows(generated("n300_s2")))
    bare = datasets.load_dataset(str(release.folder), "n300_s2_corpus", split="test", cache_dir=str(tmp_path / "b"))
    assert bare.num_rows == 300


def test_an_empty_subset_is_left_out_and_said_so(tmp_path: Path) -> None:
    # `datasets` cannot load a split without rows, so a subset without rows gets no configuration.
    release = write_release(["n20_s1"], tmp_path / "release", subsets=["questions", "corpus"], questions_per_template=0)
    assert release.manifest.config_names() == ["n20_s1_corpus"] and release.manifest.empty == ["n20_s1"]
    assert [c["config_name"] for c in DatasetCard.load(release.folder / "README.md").data.to_dict()["configs"]] == [
        "n20_s1_corpus"
    ]
    assert not (release.folder / "n20_s1").exists()
    with pytest.raises(ReleaseError, match="'n20_s1' has no rows, so this release left it out") as caught:
        phantom_wiki.load_published(str(release.folder), "n20_s1", cache_dir=str(tmp_path / "c"))
    one_line(caught.value)
    with pytest.raises(PublishError, match=r"nothing to publish: every chosen subset has no rows \(n20_s1\)"):
        write_release(["n20_s1"], tmp_path / "nothing", subsets=["questions"], questions_per_template=0)


def test_several_configurations_and_chosen_subsets_share_one_folder(tmp_path: Path) -> None:
    release = write_release(
        ["n50_s1", "n40_d10_s3"], tmp_path / "release", subsets=["rag", "corpus"], friendship_degree=2.0
    )
    assert release.manifest.config_names() == ["n50_s1_corpus", "n50_s1_rag", "n40_d10_s3_corpus", "n40_d10_s3_rag"]
    card = DatasetCard.load(release.folder / "README.md").data.to_dict()
    assert [c["config_name"] for c in card["configs"] if c.get("default")] == ["n50_s1_corpus"]
    assert release.manifest.configurations["n40_d10_s3"]["friendship_degree"] == 2.0
    corpus = phantom_wiki.load_published(str(release.folder), "n40_d10_s3_corpus", cache_dir=str(tmp_path / "c"))
    assert corpus.to_list() == list(
        engine.corpus_rows(engine.generate(settings_from("n40_d10_s3", friendship_degree=2.0)[0], with_questions=False))
    )


def test_publishing_again_into_the_folder_replaces_the_release_and_leaves_no_stale_shard(tmp_path: Path) -> None:
    folder = tmp_path / "release"
    write_release([CONFIG], folder, subsets=["corpus", "rag"], max_shard_bytes=20_000)
    (folder / "notes.txt").write_text("mine")  # not ours: left alone
    write_release([CONFIG], folder, subsets=["corpus", "rag"], passphrase=PASSPHRASE)
    assert sorted(release_files(folder)) == [
        "README.md",
        "manifest.json",
        "n50_s1_corpus/test-00000-of-00001.parquet-aead",
        "n50_s1_rag/test-00000-of-00001.parquet-aead",
        "notes.txt",
    ]
    write_release([CONFIG], folder, subsets=["corpus"], replace=True)
    assert sorted(release_files(folder)) == [
        "README.md",
        "manifest.json",
        "n50_s1_corpus/test-00000-of-00001.parquet",
        "notes.txt",
    ]


def test_a_release_that_would_drop_configurations_of_the_folder_is_refused_unless_replacing(tmp_path: Path) -> None:
    folder = tmp_path / "release"
    write_release([CONFIG], folder, subsets=["questions", "corpus"])
    before = release_files(folder)
    for attempt in (
        lambda: write_release(["n40_s2"], folder, subsets=["corpus"]),
        lambda: phantom_wiki.publish([CONFIG], str(folder), subsets=["corpus"]),
    ):
        with pytest.raises(
            PublishError,
            match=r"^--out .* already holds n50_s1(, n50_s1_corpus)?, which this release leaves out and "
            r"would delete: name those configurations .* or pass --replace",
        ) as caught:
            attempt()
        one_line(caught.value)
    assert release_files(folder) == before
    write_release(["n40_s2", CONFIG], folder, subsets=["questions", "corpus"])  # naming them too keeps them
    assert Manifest.read(folder).config_names() == ["n40_s2", "n40_s2_corpus", "n50_s1", "n50_s1_corpus"]
    assert release_files(folder)["n50_s1/test-00000-of-00001.parquet"] == before["n50_s1/test-00000-of-00001.parquet"]


def test_a_folder_that_is_not_a_release_is_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / "thesis").mkdir()
    (tmp_path / "thesis" / "chapter1.tex").write_text("...")
    with pytest.raises(PublishError, match="is not empty and holds no release") as caught:
        write_release([CONFIG], tmp_path / "thesis", subsets=["database"])
    one_line(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["thesis"]  # no staging folder left either


@pytest.mark.parametrize(
    "configs, options, message",
    [
        (["n50_s1_corpus"], {}, "publish works on a whole universe: give 'n50_s1' without the _corpus suffix; choose"),
        (["n50_s1", "n50_d20_s1"], {}, "configuration 'n50_s1' is given twice"),
        (["n50_x1"], {}, "bad configuration name 'n50_x1'"),
        (["n50_s1"], {"subsets": ["articles"]}, "unknown subset 'articles'; choose from questions, corpus"),
        (["n50_s1"], {"max_tree_depth": 0}, "max_tree_depth=0 is out of range"),
        ([], {}, "give at least one configuration"),
    ],
)
def test_bad_requests_are_one_line_errors_before_anything_is_written(
    tmp_path: Path, configs: list[str], options: dict, message: str
) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        phantom_wiki.publish(configs, str(tmp_path / "out"), **options)
    one_line(caught.value)
    assert not (tmp_path / "out").exists()


def test_the_command_line_publishes_and_reports_each_configuration(tmp_path: Path) -> None:
    done = run(
        "-m", "phantom_wiki", "publish", "n50_s1", "--subsets", "corpus", "database", "--out", str(tmp_path / "r")
    )
    assert done.returncode == 0, done.stderr
    assert "n50_s1_corpus" in done.stdout and "50 rows" in done.stdout and "n50_s1_database" in done.stdout
    assert "plain Parquet (cc-by-4.0)" in done.stdout and f"wrote {tmp_path / 'r'}" in done.stdout
    assert sorted(release_files(tmp_path / "r")) == [
        "README.md",
        "manifest.json",
        "n50_s1_corpus/test-00000-of-00001.parquet",
        "n50_s1_database/test-00000-of-00001.parquet",
    ]
    bad = run("-m", "phantom_wiki", "publish", "n50_s1_rag", "--out", str(tmp_path / "r2"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "whole universe" in bad.stderr
    dropping = run("-m", "phantom_wiki", "publish", "n50_s1", "--subsets", "corpus", "--out", str(tmp_path / "r"))
    assert dropping.returncode == 2 and dropping.stderr.count("\n") == 1 and "n50_s1_database" in dropping.stderr
    replaced = run(
        "-m", "phantom_wiki", "publish", "n50_s1", "--subsets", "corpus", "--out", str(tmp_path / "r"), "--replace"
    )
    assert replaced.returncode == 0, replaced.stderr
    assert sorted(release_files(tmp_path / "r")) == [
        "README.md",
        "manifest.json",
        "n50_s1_corpus/test-00000-of-00001.parquet",
    ]
