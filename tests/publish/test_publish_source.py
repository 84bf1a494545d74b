"""A release as the source of a universe's rows (builders/publishing/source.py), for lm-eval and the agent: the rows
are the released rows, the record names the release exactly, and what the release lacks is said in one line."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import phantom_wiki
from leakproof_qa.builders.phantomwiki import rows as engine
from leakproof_qa.builders.phantomwiki.config import SUBSETS, settings_from
from leakproof_qa.builders.publishing.errors import ReleaseError
from leakproof_qa.builders.publishing.loading import locate
from leakproof_qa.builders.publishing.phantomwiki import write_release
from leakproof_qa.builders.publishing.source import NotInRelease, find_universe
from tests.publish.hub_standin import HubStandIn
from tests.publish.publish_helpers import CONFIG, PASSPHRASE, copy_release, generated, one_line

REPO = "leakproof-lab/phantom_wiki-source"


def found(release: Path, tmp_path: Path, passphrase: str | None = None, needs: tuple[str, ...] = ()):
    return find_universe(str(release), CONFIG, needs=needs, passphrase=passphrase, cache_root=tmp_path / "cache")


@pytest.mark.parametrize("sealed", [False, True])
def test_every_subset_reads_as_the_engine_wrote_it_and_as_load_published_reads_it(
    plain_release: Path, encrypted_release: Path, tmp_path: Path, sealed: bool
) -> None:
    release = encrypted_release if sealed else plain_release
    passphrase = PASSPHRASE if sealed else None
    universe = found(release, tmp_path, passphrase, needs=SUBSETS)
    assert universe.settings == settings_from(CONFIG)[0] and universe.encrypted is sealed
    for subset in SUBSETS:
        rows = universe.rows(subset)
        assert rows == list(engine.ROWS[subset](generated())), subset
        name = CONFIG if subset == "questions" else f"{CONFIG}_{subset}"
        published = phantom_wiki.load_published(str(release), name, passphrase=passphrase, cache_dir=str(tmp_path))
        assert rows == published.to_list(), subset


def test_the_record_names_the_release_by_its_manifest_and_its_maker(plain_release: Path, tmp_path: Path) -> None:
    manifest = json.loads((plain_release / "manifest.json").read_text())
    assert found(plain_release, tmp_path).record() == {
        "source": str(plain_release),
        "revision": None,
        "manifest_sha256": hashlib.sha256((plain_release / "manifest.json").read_bytes()).hexdigest(),
        "code_digest": manifest["code_digest"],
        "package_version": manifest["package_version"],
        "encrypted": False,
    }


def test_a_hub_release_is_read_at_one_commit_with_the_manifest_alone(
    hub: HubStandIn, hub_env: dict, tmp_path: Path
) -> None:
    phantom_wiki.publish(CONFIG, repo_id=REPO, subsets=["questions", "corpus"], endpoint=hub.endpoint)
    hub.requests.clear()
    located = locate(REPO, hub_cache=tmp_path / "hub", endpoint=hub.endpoint)
    commit = hub.repos[f"datasets/{REPO}"].branches["main"]
    assert located.commit == commit and located.folder.name == commit
    assert located.manifest_sha256 == hashlib.sha256(hub.tree(REPO)["manifest.json"]).hexdigest()
    downloads = [path for method, path in hub.requests if method == "GET" and "/resolve/" in path]
    assert [path.rsplit("/", 1)[1] for path in downloads] == ["manifest.json"]


def test_a_release_read_while_it_is_replaced_is_refused_in_one_line(tmp_path: Path) -> None:
    release = write_release([CONFIG], tmp_path / "release", subsets=["questions", "corpus"]).folder
    universe = found(release, tmp_path)
    write_release([CONFIG], release, subsets=["questions", "corpus"], questions_per_template=2)
    with pytest.raises(ReleaseError, match="changed while it was read") as error:
        universe.rows("corpus")
    one_line(error.value)


def test_what_a_release_lacks_is_one_line_naming_what_it_holds(tmp_path: Path) -> None:
    release = write_release([CONFIG], tmp_path / "release", subsets=["questions", "corpus"]).folder
    with pytest.raises(NotInRelease, match=r"holds no universe n50_s2 \(it holds n50_s1\)$") as error:
        find_universe(str(release), "n50_s2", needs=(), passphrase=None, cache_root=tmp_path)
    one_line(error.value)
    with pytest.raises(NotInRelease, match=r"without its rag subset \(it holds questions, corpus\); publish") as error:
        found(release, tmp_path, needs=("questions", "rag"))
    one_line(error.value)
    with pytest.raises(NotInRelease, match="without its instances subset"):
        found(release, tmp_path).rows("instances")


@pytest.mark.parametrize(
    "settings, message",
    [
        ([1, 2], "records the settings of n50_s1 as list, not an object"),
        ({"size": 50, "seed": 1, "colour": "blue"}, "having 'colour', a setting this version does not know"),
        ({"size": 51, "seed": 1}, "as something this version cannot use (size=51 contradicts"),
        ({"size": 50, "seed": 1, "distractors": 7}, "distractors=7 must be a string"),
    ],
)
def test_damaged_settings_in_the_manifest_are_one_line(
    plain_release: Path, tmp_path: Path, settings: object, message: str
) -> None:
    release = copy_release(plain_release, tmp_path)
    manifest = json.loads((release / "manifest.json").read_text())
    manifest["configurations"][CONFIG] = settings
    (release / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ReleaseError, match=message.replace("(", r"\(")) as error:
        found(release, tmp_path)
    one_line(error.value)


def test_shards_of_other_columns_are_refused_naming_the_version_that_made_them(
    plain_release: Path, tmp_path: Path
) -> None:
    import pyarrow.parquet as pq

    from leakproof_qa.builders.publishing.manifest import file_digest

    release = copy_release(plain_release, tmp_path)
    shard = release / f"{CONFIG}_corpus" / "test-00000-of-00001.parquet"
    table = pq.read_table(shard)
    pq.write_table(table.drop_columns(["facts"]).replace_schema_metadata(table.schema.metadata), shard)
    manifest = json.loads((release / "manifest.json").read_text())
    entry = next(e for e in manifest["files"] if e["path"].startswith(f"{CONFIG}_corpus/"))
    entry["size"], entry["sha256"] = file_digest(shard)
    (release / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ReleaseError, match=r"has the columns title, article, not those this version reads") as error:
        found(release, tmp_path).rows("corpus")
    one_line(error.value)
