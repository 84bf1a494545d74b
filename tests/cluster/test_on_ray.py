"""On a local Ray cluster (`ray.init(num_cpus=2)`): the same bytes as this machine writes, a task whose worker dies
retried with nothing partial left, NeoQA blocks as tasks, and the Ray Data source giving the local items."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import neoqa
from leakproof_qa.builders.cli.phantomwiki import write_universe
from leakproof_qa.builders.cluster.runs import STAGING, Job, run_locally, run_many
from leakproof_qa.builders.neoqa.settings import settings_from as neoqa_settings
from leakproof_qa.builders.phantomwiki.config import settings_from

ray = pytest.importorskip("ray")
pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.fixture(scope="module", autouse=True)
def cluster():
    ray.init(num_cpus=2, log_to_driver=False, include_dashboard=False)
    yield
    ray.shutdown()


def digests(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def jobs() -> list[Job]:
    subsets = ("questions", "corpus")
    return [
        Job("phantom_wiki", f"n30_s{seed}", settings_from(f"n30_s{seed}")[0], subsets, write_universe, {"v": "1"})
        for seed in (1, 2, 3)
    ]


def test_ray_tasks_write_the_bytes_this_machine_writes_and_a_dead_worker_is_retried(tmp_path):
    from leakproof_qa.builders.cluster.on_ray import ray_runner
    from tests.cluster.dying import dies_once

    run_many(jobs(), str(tmp_path / "here"), run_locally(1))
    records, skipped = run_many(jobs(), str(tmp_path / "ray"), ray_runner("local", task=dies_once))
    assert skipped == [] and [r["configuration"] for r in records] == ["n30_s1", "n30_s2", "n30_s3"]
    assert all((tmp_path / f"died-n30_s{seed}").exists() for seed in (1, 2, 3))  # every task's worker died once
    assert digests(tmp_path / "ray") == digests(tmp_path / "here")  # manifest and records included
    assert not (tmp_path / "ray" / STAGING).exists()


def test_one_neoqa_configuration_in_blocks_on_ray_is_the_files_one_machine_writes(tmp_path, capsys):
    # 101 timelines: three blocks (50, 50, 1), each a Ray task
    subsets = ["--subsets", "timelines", "questions"]
    assert neoqa.main(["generate", "t101_s1", "--out", str(tmp_path / "here"), *subsets]) == 0
    assert neoqa.main(["generate", "t101_s1", "--out", str(tmp_path / "ray"), "--ray", "local", *subsets]) == 0
    assert neoqa_settings("t101_s1")[0].timelines == 101 and len(list((tmp_path / "ray" / "questions").iterdir())) == 3
    assert digests(tmp_path / "ray") == digests(tmp_path / "here")
    assert sorted(p.name for p in (tmp_path / "ray").iterdir()) == ["questions", "timelines"]


def test_the_ray_data_source_yields_the_local_datasets_items():
    from leakproof_qa.builders.cluster.ray_data import read_phantom_wiki
    from leakproof_qa.phantom_env.rl import PhantomWikiDataset

    rotating = PhantomWikiDataset("n50_s1", seed=3, size=10, universe_every=4, distractors=2)
    items = read_phantom_wiki(rotating).take_all()  # blocks in the order they end, unless Ray is told to keep it
    assert sorted(items, key=lambda item: item["metadata"]["index"]) == list(rotating)
    assert len({rotating.universe_of(i) for i in range(10)}) == 3  # three blocks, three universes


def test_ray_data_writes_verls_training_parquet_with_the_local_rows(tmp_path):
    import pyarrow.parquet as pq

    from leakproof_qa.builders.cluster.ray_data import read_phantom_wiki
    from leakproof_qa.phantom_env.recipes import verl_row
    from leakproof_qa.phantom_env.rl import PhantomWikiDataset

    data = PhantomWikiDataset("n50_s1", seed=1, size=8, universe_every=4)
    read_phantom_wiki(data).map(verl_row).write_parquet(str(tmp_path / "train"))
    written = pq.read_table(tmp_path / "train").to_pylist()
    local = [verl_row(item) for item in data]
    key = lambda row: row["extra_info"]["index"]  # noqa: E731  (Ray writes a file per block, in any order)
    assert sorted(written, key=key) == local


def test_a_job_larger_than_every_node_is_refused_in_one_line(tmp_path):
    from dataclasses import replace

    from leakproof_qa.builders.cluster.on_ray import ray_runner

    huge = [replace(jobs()[0], memory=10**15)]  # a petabyte
    with pytest.raises(ValueError, match="n30_s1 needs about 1,000,000.0 GB by our measures, more than any node") as e:
        run_many(huge, str(tmp_path / "out"), ray_runner("local"))
    assert "\n" not in str(e.value)
