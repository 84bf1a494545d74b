"""lm-eval over a published release (`phantom_wiki_release`): plain and sealed, from a folder and from the Hub
stand-in (tests/publish/hub_standin.py, driven by the real huggingface_hub client in a process of its own, as a user's
HF_ENDPOINT would; what the stand-in does not cover is said there). The oracle scores 1.0, every task sees exactly the
released rows, the results record the release, and what is wrong or missing is one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import phantom_wiki
from leakproof_qa.builders.publishing.phantomwiki import write_release
from leakproof_qa.leakproof_eval import TaskSetupError
from leakproof_qa.leakproof_eval.models import OracleLM
from leakproof_qa.leakproof_eval.phantom_wiki_tasks import universe_from
from tests.lmeval.harness import ROOT, evaluate, task_manager
from tests.lmeval.test_lmeval_phantom_wiki import ALL_TASKS as TASKS
from tests.lmeval.test_lmeval_phantom_wiki import metric_names, scores
from tests.publish.publish_helpers import (
    CONFIG,
    PASSPHRASE,
    copy_release,
    downloaded,
    hub_releases,
    one_line,
    release_record,
)

pytestmark = [pytest.mark.integration, pytest.mark.slow]

KEY_VARIABLE = "PW_RELEASE_KEY"
REPO = "leakproof-lab/phantom_wiki-release"


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """n50_s1 published whole, plain and sealed, and with its questions and corpus only."""
    root = tmp_path_factory.mktemp("releases")
    return {
        "plain": write_release([CONFIG], root / "plain").folder,
        "sealed": write_release([CONFIG], root / "sealed", passphrase=PASSPHRASE).folder,
        "questions-only": write_release([CONFIG], root / "questions-only", subsets=["questions", "corpus"]).folder,
    }


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    """The sealed release's passphrase in an environment variable; its name is what the metadata holds."""
    monkeypatch.setenv(KEY_VARIABLE, PASSPHRASE)
    return KEY_VARIABLE


def release_metadata(releases: dict[str, Path], which: str, cache: str, **more: object) -> dict[str, object]:
    metadata = {"phantom_wiki_config": CONFIG, "phantom_wiki_release": str(releases[which])}
    if which == "sealed":
        metadata["phantom_wiki_release_passphrase_env"] = KEY_VARIABLE
    return {**metadata, "phantom_wiki_cache_dir": cache, **more}


@pytest.mark.parametrize("which", ["plain", "sealed"])
def test_the_oracle_scores_one_on_every_task_of_a_release_folder_and_the_results_record_it(
    releases, key, tmp_path, which
):
    results = evaluate(OracleLM(), TASKS, **release_metadata(releases, which, str(tmp_path)))
    for task in TASKS:
        assert scores(results, task) == {name: 1.0 for name in metric_names(task)}, task
        resolved = results["configs"][task]["metadata"]["phantom_wiki_resolved"]
        assert resolved["universe"] == CONFIG
        assert resolved["release"] == release_record(releases[which], which == "sealed"), task
    assert PASSPHRASE not in json.dumps(results, default=str)  # only the variable's name is in the metadata


def docs_and_prompts(task: str, **metadata) -> list[tuple[dict, str]]:
    """The documents of one task, in lm_eval's order, with the prompt lm_eval sends for each."""
    built = task_manager(**metadata).load([task])["tasks"][task]
    return [({k: v for k, v in doc.items() if k != "universe"}, built.doc_to_text(doc)) for doc in built.eval_docs]


@pytest.mark.parametrize("task", TASKS)
def test_each_task_sees_the_released_rows_in_the_order_and_prompts_of_the_generated_universe(
    releases, key, universes, tmp_path, task
):
    released = docs_and_prompts(task, **release_metadata(releases, "sealed", str(tmp_path)))
    generated = docs_and_prompts(task, phantom_wiki_config=CONFIG, phantom_wiki_cache_dir=universes)
    assert released == generated and len(released) > 0


@pytest.mark.parametrize(
    "subset, name", [("questions", CONFIG), ("corpus", f"{CONFIG}_corpus"), ("rag", f"{CONFIG}_rag")]
)
def test_the_rows_a_task_loads_are_those_load_published_reads(releases, key, tmp_path, subset, name):
    universe = universe_from(release_metadata(releases, "sealed", str(tmp_path / "a")))
    published = phantom_wiki.load_published(
        str(releases["sealed"]), name, passphrase=PASSPHRASE, cache_dir=str(tmp_path / "b")
    )
    assert universe.load(subset) == published.to_list()


_HUB_SCRIPT = """
import json, os, sys
from leakproof_qa.leakproof_eval.models import OracleLM
from tests.lmeval.harness import evaluate
from tests.lmeval.test_lmeval_phantom_wiki import scores
out = {}
for which, repo in (("plain", sys.argv[1]), ("sealed", sys.argv[2])):
    metadata = {"phantom_wiki_config": "n50_s1", "phantom_wiki_release": repo, "phantom_wiki_cache_dir": sys.argv[3]}
    if which == "sealed":
        metadata["phantom_wiki_release_passphrase_env"] = "PW_RELEASE_KEY"
    results = evaluate(OracleLM(), ["phantom_wiki_questions", "phantom_wiki_rag"], **metadata)
    out[which] = {
        task: [scores(results, task), results["configs"][task]["metadata"]["phantom_wiki_resolved"]["release"]]
        for task in ("phantom_wiki_questions", "phantom_wiki_rag")
    }
print(json.dumps(out))
"""


def test_the_oracle_scores_one_on_a_plain_and_a_sealed_release_on_the_hub(hub, hub_env, tmp_path):
    published = hub_releases(hub, REPO, ["questions", "corpus", "rag", "instances"], tmp_path)  # all but instances read
    hub.requests.clear()
    env = {**hub_env, KEY_VARIABLE: PASSPHRASE}
    arguments = [f"{REPO}-plain", f"{REPO}-sealed", str(tmp_path / "cache")]
    done = subprocess.run(
        [sys.executable, "-c", _HUB_SCRIPT, *arguments], capture_output=True, text=True, cwd=ROOT, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    for which, release in published.items():
        commit = hub.repos[f"datasets/{REPO}-{which}"].branches["main"]
        record = release_record(release, which == "sealed", commit, f"{REPO}-{which}")
        for task, (values, resolved) in found[which].items():
            assert set(values.values()) == {1.0} and resolved == record, (which, task)
    shards = {f"{name}/test-00000-of-00001.parquet" for name in (CONFIG, f"{CONFIG}_corpus", f"{CONFIG}_rag")}
    assert downloaded(hub) == {"manifest.json"} | shards | {shard + "-aead" for shard in shards}  # never the instances


@pytest.mark.parametrize(
    "which, more, environment, says",
    [
        ("sealed", {}, {KEY_VARIABLE: "not the passphrase"}, "wrong passphrase"),
        (
            "sealed",
            {"phantom_wiki_release_passphrase_env": "PW_NOT_SET"},
            {},
            "environment variable 'PW_NOT_SET' (phantom_wiki_release_passphrase_env) is not set or empty",
        ),
        ("plain", {"phantom_wiki_release_passphrase_env": KEY_VARIABLE}, {}, "is not encrypted, so it takes no"),
        ("plain", {"phantom_wiki_config": "n50_s2"}, {}, "phantom_wiki_config='n50_s2': "),
        ("plain", {"phantom_wiki_distractors": "easy"}, {}, "phantom_wiki_distractors: a release fixes every setting"),
        ("plain", {"phantom_wiki_seed": 2}, {}, "phantom_wiki_seed: a release fixes every setting"),
        ("plain", {"phantom_wiki_release": ["x"]}, {}, "phantom_wiki_release=['x'] must be a string"),
        ("plain", {"phantom_wiki_release_revision": 3}, {}, "phantom_wiki_release_revision=3 must be a string"),
        ("plain", {"phantom_wiki_release": "no/such/release"}, {}, "is neither a release folder nor a Hub dataset id"),
        ("plain", {"phantom_wiki_release_passphrase": PASSPHRASE}, {}, "unknown metadata key"),
    ],
)
def test_what_is_wrong_with_a_release_is_one_line_naming_it(
    releases, tmp_path, monkeypatch, which, more, environment, says
):
    monkeypatch.setenv(KEY_VARIABLE, PASSPHRASE)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(TaskSetupError) as error:
        task_manager(**release_metadata(releases, which, str(tmp_path), **more)).load(["phantom_wiki_rag"])
    assert says in str(error.value), str(error.value)
    one_line(error.value)


def test_a_sealed_release_without_a_passphrase_says_how_to_give_one(releases, tmp_path):
    metadata = release_metadata(releases, "sealed", str(tmp_path))
    del metadata["phantom_wiki_release_passphrase_env"]
    with pytest.raises(TaskSetupError, match="is encrypted: set an environment variable to its passphrase and name it"):
        task_manager(**metadata).load(["phantom_wiki_questions"])


def test_a_release_without_a_subset_a_task_needs_names_what_it_holds(releases, tmp_path):
    metadata = release_metadata(releases, "questions-only", str(tmp_path))
    assert task_manager(**metadata).load(["phantom_wiki_questions"])["tasks"]  # what it holds, it serves
    with pytest.raises(TaskSetupError) as error:
        task_manager(**metadata).load(["phantom_wiki_rag"])
    assert str(error.value) == (
        f"phantom_wiki_release: {releases['questions-only']} holds n50_s1 without its rag subset (it holds questions, "
        "corpus); publish n50_s1 with rag among the subsets"
    )
    with pytest.raises(
        TaskSetupError, match="phantom_wiki_config='n50_s2': .* holds no universe n50_s2 \\(it holds n50_s1\\)"
    ):
        task_manager(**{**metadata, "phantom_wiki_config": "n50_s2"}).load(["phantom_wiki_questions"])


def test_rag_is_scored_at_the_retrieval_depth_the_release_was_published_with(tmp_path, universes):
    release = write_release([CONFIG], tmp_path / "k2", subsets=["questions", "corpus", "rag"], retrieval_k=2).folder
    metadata = {"phantom_wiki_config": CONFIG, "phantom_wiki_release": str(release)}
    released = evaluate(OracleLM(), ["phantom_wiki_rag"], **metadata, phantom_wiki_cache_dir=str(tmp_path))
    generated = evaluate(
        OracleLM(),
        ["phantom_wiki_rag"],
        phantom_wiki_config=CONFIG,
        phantom_wiki_retrieval_k=2,
        **{"phantom_wiki_cache_dir": universes},
    )
    assert released["results"]["phantom_wiki_rag"] == generated["results"]["phantom_wiki_rag"]
    assert {"recall@2,answer", "mrr@2,answer", "ndcg@2,answer"} <= set(released["results"]["phantom_wiki_rag"])


def test_a_task_a_release_cannot_serve_is_one_line(releases, tmp_path):
    metadata = release_metadata(releases, "plain", str(tmp_path))
    with pytest.raises(TaskSetupError) as error:
        task_manager(**metadata).load(["phantom_wiki_long"])
    assert "holds n50_s1 at context_tokens=0, and this task needs context_tokens=" in str(error.value)
    one_line(error.value)
    other = copy_release(releases["plain"], tmp_path)  # as if an older version had made it
    manifest = json.loads((other / "manifest.json").read_text())
    manifest["code_digest"] = "0123456789abcdef"
    (other / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(TaskSetupError) as error:
        task_manager(**{**metadata, "phantom_wiki_release": str(other)}).load(["phantom_wiki_rag"])
    assert "was made by code 0123456789abcdef (leakproof-qa " in str(error.value)
    assert "the articles each rag question needs" in str(error.value)
    one_line(error.value)
    assert task_manager(**{**metadata, "phantom_wiki_release": str(other)}).load(["phantom_wiki_instances"])["tasks"]
