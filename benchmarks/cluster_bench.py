"""Configurations a minute with `generate-many`, on this machine's processes and as Ray tasks with 1 and 2 workers,
and Ray's own cost per task.

    python benchmarks/cluster_bench.py [--phantom-wiki n200] [--neoqa t20] [--seeds 1-6]

Each row writes every subset of each configuration (fresh output folder each time) through the same code as
`python -m phantom_wiki generate-many` / `python -m neoqa generate-many`: without Ray in 1 and 2 processes, then on
a local Ray cluster started with 1 and then 2 CPUs (`ray.init(num_cpus=K)`), one task per configuration. Ray's
overhead is measured apart: the round trip of one empty task, and the time per empty task when 500 are submitted
at once. Needs `leakproof-qa[ray]`. See docs/cluster.md for what N machines should give.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from typing import Any

import neoqa
from leakproof_qa.builders import __version__
from leakproof_qa.builders.cli.phantomwiki import write_universe
from leakproof_qa.builders.cluster.runs import Job, Runner, run_locally, run_many, seeds
from leakproof_qa.builders.neoqa.files import ordered_subsets
from leakproof_qa.builders.neoqa.settings import settings_from as neoqa_settings
from leakproof_qa.builders.phantomwiki.budget import estimate
from leakproof_qa.builders.phantomwiki.config import SUBSETS
from leakproof_qa.builders.phantomwiki.config import settings_from as phantom_settings


def phantom_jobs(prefix: str, chosen: list[int]) -> list[Job]:
    versions = {"package_version": __version__}
    found = [phantom_settings(f"{prefix}_s{seed}")[0] for seed in chosen]
    return [
        Job("phantom_wiki", f"{prefix}_s{s.seed}", s, tuple(SUBSETS), write_universe, versions, estimate(s))
        for s in found
    ]


def neoqa_jobs(prefix: str, chosen: list[int]) -> list[Job]:
    versions = {"package_version": __version__}
    subsets = tuple(ordered_subsets(None))
    return [
        Job(
            "neoqa",
            f"{prefix}_s{seed}",
            neoqa_settings(f"{prefix}_s{seed}")[0],
            subsets,
            neoqa.write_generated,
            versions,
        )
        for seed in chosen
    ]


def per_minute(jobs: list[Job], runner: Runner) -> tuple[float, float]:
    """(configurations a minute, seconds) writing every job into a fresh folder."""
    with tempfile.TemporaryDirectory(prefix="cluster-bench-") as out:
        began = time.perf_counter()
        run_many(jobs, out, runner)
        seconds = time.perf_counter() - began
    return 60 * len(jobs) / seconds, seconds


def ray_overhead(ray: Any) -> tuple[float, float]:
    """(milliseconds for one empty task's round trip, milliseconds per empty task when 500 go at once)."""

    @ray.remote
    def empty() -> None:
        return None

    ray.get([empty.remote() for _ in range(20)])  # workers started
    began = time.perf_counter()
    for _ in range(50):
        ray.get(empty.remote())
    one = (time.perf_counter() - began) / 50
    began = time.perf_counter()
    ray.get([empty.remote() for _ in range(500)])
    many = (time.perf_counter() - began) / 500
    return 1000 * one, 1000 * many


def main() -> None:
    """Run every measurement and print one table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phantom-wiki", default="n200", help="universe prefix (default n200)")
    parser.add_argument("--neoqa", default="t20", help="NeoQA prefix (default t20)")
    parser.add_argument("--seeds", default="1-6", help="seeds of each (default 1-6)")
    args = parser.parse_args()
    import ray

    chosen = seeds(args.seeds)
    kinds: list[tuple[str, Callable[[], list[Job]]]] = [
        (f"{args.phantom_wiki} (phantom_wiki, every subset)", lambda: phantom_jobs(args.phantom_wiki, chosen)),
        (f"{args.neoqa} (neoqa, every subset)", lambda: neoqa_jobs(args.neoqa, chosen)),
    ]
    print(f"{len(chosen)} configurations of each, every subset\n")
    print("| configurations | runner | per minute | seconds |")
    print("|---|---|---:|---:|")
    for title, jobs in kinds:
        for processes in (1, 2):
            rate, seconds = per_minute(jobs(), run_locally(processes))
            print(f"| {title} | this machine, {processes} process(es) | {rate:.1f} | {seconds:.1f} |", flush=True)
    overheads = []
    for workers in (1, 2):
        ray.init(num_cpus=workers, log_to_driver=False, include_dashboard=False)
        from leakproof_qa.builders.cluster.on_ray import ray_runner

        for title, jobs in kinds:
            rate, seconds = per_minute(jobs(), ray_runner("local"))
            print(f"| {title} | Ray, {workers} worker(s) | {rate:.1f} | {seconds:.1f} |", flush=True)
        overheads.append((workers, *ray_overhead(ray)))
        ray.shutdown()
    print("\n| Ray workers | one empty task, round trip (ms) | per empty task, 500 at once (ms) |")
    print("|---:|---:|---:|")
    for workers, one, many in overheads:
        print(f"| {workers} | {one:.2f} | {many:.2f} |")


if __name__ == "__main__":
    main()
