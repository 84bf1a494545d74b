"""Uploading and downloading with the real `huggingface_hub` client against a local Hub stand-in.

The stand-in (hub_standin.py) serves create-repo, validate-yaml, preupload, commit, branch, settings, repo
info, tree and file resolve on 127.0.0.1, answering every preupload with uploadMode "regular" so the
contents arrive inside the commit. NOT covered here: the LFS / Xet transfer path that large files take
on the real Hub, the Hub's full card schema, gated access requests. The live test at the end runs the
same upload against the real Hub when HF_TOKEN and LEAKPROOF_HUB_TEST_REPO are set.
"""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from pathlib import Path

import datasets
import pytest

import phantom_wiki
from leakproof_qa.builders.digest import PHANTOMWIKI_CODE, code_digest
from leakproof_qa.builders.phantomwiki import rows as engine
from leakproof_qa.builders.publishing.errors import PublishError
from tests.publish.hub_standin import HubStandIn
from tests.publish.publish_helpers import CONFIG, PASSPHRASE, TOKEN, generated, one_line, release_files, run

pytestmark = pytest.mark.integration

REPO = "leakproof-lab/phantom_wiki"


def stored(hub: HubStandIn, revision: str = "main") -> dict[str, bytes]:
    """The stored tree without the .gitattributes every new repo starts with."""
    return {path: data for path, data in hub.tree(REPO, revision).items() if path != ".gitattributes"}


def test_the_command_line_uploads_the_folder_byte_for_byte_in_one_commit(
    hub: HubStandIn, hub_env: dict, tmp_path: Path
) -> None:
    done = run(
        "-m",
        "phantom_wiki",
        "publish",
        CONFIG,
        "--subsets",
        "questions",
        "corpus",
        "--out",
        str(tmp_path / "release"),
        "--repo-id",
        REPO,
        "--private",
        "--gated",
        "manual",
        env=hub_env,
    )
    assert done.returncode == 0, done.stderr
    assert f"uploaded to {REPO}: {hub.endpoint}/datasets/{REPO}/commit/" in done.stdout
    assert stored(hub) == release_files(tmp_path / "release")
    repo = hub.repos[f"datasets/{REPO}"]
    assert repo.private and repo.settings["gated"] == "manual"
    assert repo.messages[1:] == [
        f"Publish {CONFIG} (leakproof-qa {phantom_wiki.__version__}, code {code_digest(*PHANTOMWIKI_CODE)})"
    ]
    routes = [route for route in hub.requests]
    settings, commit = (
        routes.index(("PUT", f"/api/datasets/{REPO}/settings")),
        routes.index(("POST", f"/api/datasets/{REPO}/commit/main")),
    )
    assert ("POST", "/api/validate-yaml") in routes and ("POST", f"/api/datasets/{REPO}/preupload/main") in routes
    assert settings < commit  # private and gated before any data arrives


def test_what_was_uploaded_loads_with_datasets_and_with_load_published(
    hub: HubStandIn, hub_env: dict, tmp_path: Path
) -> None:
    phantom_wiki.publish(CONFIG, repo_id=REPO, subsets=["questions", "corpus"], endpoint=hub.endpoint)
    snapshot = tmp_path / "snapshot"
    for path, data in stored(hub).items():
        (snapshot / path).parent.mkdir(parents=True, exist_ok=True)
        (snapshot / path).write_bytes(data)
    bare = datasets.load_dataset(str(snapshot), "n50_s1_corpus", split="test", cache_dir=str(tmp_path / "a"))
    assert bare.to_list() == list(engine.corpus_rows(generated()))
    hub.requests.clear()
    loaded = phantom_wiki.load_published(REPO, CONFIG, cache_dir=str(tmp_path / "b"), endpoint=hub.endpoint)
    assert loaded.to_list() == list(engine.question_rows(generated()))
    downloads = sorted(
        path.split("/resolve/")[1].split("/", 1)[1]  # drop the revision
        for method, path in hub.requests
        if method == "GET" and "/resolve/" in path
    )
    assert downloads == ["manifest.json", "n50_s1/test-00000-of-00001.parquet"]  # only that configuration


def test_an_encrypted_release_round_trips_through_the_hub_by_environment_alone(
    hub: HubStandIn, hub_env: dict, tmp_path: Path
) -> None:
    env = {**hub_env, "PW_RELEASE": PASSPHRASE}
    done = run(
        "-m",
        "phantom_wiki",
        "publish",
        CONFIG,
        "--subsets",
        "rag",
        "--encrypt",
        "--passphrase-env",
        "PW_RELEASE",
        "--repo-id",
        REPO,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "wrote" not in done.stdout  # no --out: a temporary folder, gone after the upload
    assert sorted(stored(hub)) == ["README.md", "manifest.json", "n50_s1_rag/test-00000-of-00001.parquet-aead"]
    script = (
        "import phantom_wiki, os; ds = phantom_wiki.load_published("
        f"{REPO!r}, 'n50_s1_rag', passphrase=os.environ['PW_RELEASE']); print(ds.num_rows, ds[0]['question_id'])"
    )
    loaded = run("-c", script, env=env, cwd=tmp_path)
    assert loaded.returncode == 0, loaded.stderr
    rows = list(engine.rag_rows(generated()))
    assert loaded.stdout.split() == [str(len(rows)), rows[0]["question_id"]]


def test_republishing_deletes_stale_shards_in_the_same_commit_and_keeps_other_files(
    hub: HubStandIn, hub_env: dict, tmp_path: Path
) -> None:
    phantom_wiki.publish(CONFIG, repo_id=REPO, subsets=["corpus", "rag"], endpoint=hub.endpoint, max_shard_bytes=20_000)
    assert len([p for p in stored(hub) if p.startswith("n50_s1_rag/")]) > 1
    commits = len(hub.repos[f"datasets/{REPO}"].messages)
    release = phantom_wiki.publish(
        CONFIG,
        str(tmp_path / "r"),
        repo_id=REPO,
        subsets=["corpus"],
        encrypt=True,
        passphrase=PASSPHRASE,
        endpoint=hub.endpoint,
        replace=True,
    )
    assert len(hub.repos[f"datasets/{REPO}"].messages) == commits + 1
    assert stored(hub) == release_files(release.folder)  # no plain shard survives an encrypted re-publish
    assert ".gitattributes" in hub.tree(REPO)


def test_a_release_that_would_drop_configurations_of_the_repo_is_refused_before_generating(
    hub: HubStandIn, hub_env: dict, tmp_path: Path
) -> None:
    phantom_wiki.publish(CONFIG, repo_id=REPO, subsets=["corpus", "rag"], endpoint=hub.endpoint)
    before, commits = stored(hub), len(hub.repos[f"datasets/{REPO}"].messages)
    done = run(
        "-m",
        "phantom_wiki",
        "publish",
        CONFIG,
        "--subsets",
        "corpus",
        "--repo-id",
        REPO,
        "--out",
        str(tmp_path / "r"),
        env=hub_env,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"phantom_wiki: Hub dataset '{REPO}' already holds n50_s1_rag, which this release leaves out and would "
        "delete: name those configurations and subsets too to keep them (unchanged files are not uploaded again), "
        "or pass --replace (replace=True) to delete them"
    )
    assert not any("generating" in line or "writing" in line for line in done.stderr.splitlines())
    assert not (tmp_path / "r").exists()
    assert stored(hub) == before and len(hub.repos[f"datasets/{REPO}"].messages) == commits


def test_republishing_unchanged_data_uploads_nothing(hub: HubStandIn, hub_env: dict) -> None:
    phantom_wiki.publish(
        CONFIG, repo_id=REPO, subsets=["database"], encrypt=True, passphrase=PASSPHRASE, endpoint=hub.endpoint
    )
    before = dict(hub.tree(REPO))
    commits = len(hub.repos[f"datasets/{REPO}"].messages)
    phantom_wiki.publish(
        CONFIG, repo_id=REPO, subsets=["database"], encrypt=True, passphrase=PASSPHRASE, endpoint=hub.endpoint
    )
    assert len(hub.repos[f"datasets/{REPO}"].messages) == commits and hub.tree(REPO) == before


def test_a_revision_is_a_branch_created_on_demand_and_main_is_untouched(hub: HubStandIn, hub_env: dict) -> None:
    phantom_wiki.publish(CONFIG, repo_id=REPO, subsets=["database"], endpoint=hub.endpoint)
    main = dict(hub.tree(REPO))
    with pytest.raises(PublishError, match=r"\(branch 'v2'\) already holds n50_s1_database"):  # a branch of main
        phantom_wiki.publish(CONFIG, repo_id=REPO, subsets=["corpus"], revision="v2", endpoint=hub.endpoint)
    phantom_wiki.publish(CONFIG, repo_id=REPO, subsets=["corpus"], revision="v2", endpoint=hub.endpoint, replace=True)
    assert hub.tree(REPO) == main
    assert "n50_s1_corpus/test-00000-of-00001.parquet" in hub.tree(REPO, "v2")
    assert "n50_s1_database/test-00000-of-00001.parquet" not in hub.tree(REPO, "v2")


def test_without_a_token_the_upload_is_a_one_line_error_saying_how_to_log_in(
    hub: HubStandIn, hub_env: dict, tmp_path: Path
) -> None:
    env = {**hub_env, "HF_TOKEN": "hf_not_the_right_one"}
    done = run("-m", "phantom_wiki", "publish", CONFIG, "--subsets", "database", "--repo-id", REPO, env=env)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    first, *_, last = done.stderr.splitlines()
    assert len(done.stderr.splitlines()) == 2 and first.endswith(f"s  preparing {REPO}")  # before generating
    assert done.stderr.splitlines()[-1].startswith(
        f"phantom_wiki: could not create the repository of Hub dataset '{REPO}'"
    )
    assert done.stderr.rstrip().endswith("set HF_TOKEN or run `hf auth login` with a token that may write to it")
    with pytest.raises(PublishError, match="is not of the form ORG/NAME") as caught:
        phantom_wiki.publish(CONFIG, repo_id="no-namespace", endpoint=hub.endpoint)
    one_line(caught.value)


@pytest.mark.skipif(
    not (os.environ.get("HF_TOKEN") and os.environ.get("LEAKPROOF_HUB_TEST_REPO")),
    reason="live Hub test: set HF_TOKEN and LEAKPROOF_HUB_TEST_REPO (a dataset repo you may write)",
)
def test_live_the_real_hub_takes_the_release_and_gives_it_back(tmp_path: Path) -> None:
    repo = os.environ["LEAKPROOF_HUB_TEST_REPO"]
    release = phantom_wiki.publish(
        CONFIG, str(tmp_path / "r"), repo_id=repo, private=True, subsets=["questions", "corpus"], replace=True
    )  # whatever an earlier run left
    assert release.commit_url
    loaded = phantom_wiki.load_published(repo, "n50_s1_corpus", cache_dir=str(tmp_path / "c"))
    assert loaded.to_list() == list(engine.corpus_rows(generated()))
    bare = datasets.load_dataset(repo, "n50_s1_corpus", split="test", cache_dir=str(tmp_path / "d"))
    assert bare.to_list() == loaded.to_list()


def test_the_stand_in_refuses_what_it_does_not_serve(hub: HubStandIn) -> None:
    # A guard for this file's claims: an LFS operation or an unknown route is an error, never a silent success.
    request = urllib.request.Request(
        f"{hub.endpoint}/api/datasets/{REPO}/lfs-files/batch",
        data=b"{}",
        headers={"Authorization": f"Bearer {TOKEN}"},
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request)
    assert caught.value.code == 404 and "does not serve" in caught.value.read().decode()
