"""Wall time and peak memory per stage of `phantom_wiki generate` (all subsets, Parquet) at several sizes.

    python benchmarks/phantomwiki_bench.py                 # n = 50, 500, 5000 at depth 20 (about a minute)
    python benchmarks/phantomwiki_bench.py --sizes 50 5000 --seed 2
    python benchmarks/phantomwiki_bench.py --sizes 100000 1000000   # the large ones: minutes, gigabytes

    python benchmarks/phantomwiki_bench.py --sizes 5000 --profile 12   # and where the time goes (cProfile)

Each size runs in a fresh process, so its peak RSS is its own; while it runs, each stage's name is printed to stderr
as it begins, with the seconds since the size began. A size of 100,000 or more is asked for by name, and what it
costs is said before it starts (LARGE). After the stages, a summary table holds each size's process wall time and
peak memory beside its target (issue 19, on 2 cores) and says whether it was met.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_SIZES = (50, 500, 5_000)
TARGETS = {5_000: (2.5, None), 100_000: (20.0, 1024.0), 1_000_000: (180.0, 4096.0)}
"""n -> (seconds for every subset, process wall incl. imports; peak RSS in MB, or None where none is set)."""
LARGE = {
    100_000: "about 20 s and 1 GB",
    1_000_000: "about 3 to 3.5 minutes and up to 4 GB (178 and 195 s on shared 2-core machines at 0.14.0)",
}
"""What a large size costs on 2 cores, said before it starts (docs/speed_and_fidelity.md has the measurements)."""


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _progress(config: str):
    """A callback printing each stage's name to stderr as it begins, with the seconds since the first."""
    began = time.perf_counter()

    def say(stage: str) -> None:
        print(f"{config:>14} {time.perf_counter() - began:8.1f} s  {stage}", file=sys.stderr, flush=True)

    return say


def measure(config: str, processes: int) -> list[tuple[str, float, float]]:
    """(stage, seconds, peak RSS in MB so far) for one configuration: as `generate` writes it in `processes`
    processes, or (one process) stage by stage, with the BM25 index and queries apart."""
    if processes > 1:
        return _measure_forked(config, processes)
    from leakproof_qa.builders.export import write_rows
    from leakproof_qa.builders.phantomwiki import rows as engine
    from leakproof_qa.builders.phantomwiki.config import SUBSETS, settings_from
    from leakproof_qa.builders.phantomwiki.features import arrow_schema

    settings = settings_from(config)[0]
    stages = []
    say = _progress(config)
    generated = engine.generate(settings, progress=say)
    peak = _peak_mb()
    stages += [(stage, seconds, peak) for stage, seconds in generated.timings.items()]
    with tempfile.TemporaryDirectory() as out:
        for subset in SUBSETS:
            if subset == "instances":
                queries = _evidence_stages(generated, stages)
            say(f"write {subset}")
            start = time.perf_counter()
            rows = engine.ROWS[subset](generated)
            write_rows(rows, Path(out) / f"{subset}.parquet", "parquet", arrow_schema(subset))
            stages.append((f"write {subset}", time.perf_counter() - start, _peak_mb()))
            if subset in ("instances", "rag"):
                stages.append((f"  of which {queries[1]} BM25 queries", queries[0], _peak_mb()))
                queries[:] = [0.0, 0]
    say("done")
    return stages


def _measure_forked(config: str, processes: int) -> list[tuple[str, float, float]]:
    """measure() through generate's own write_files: a forked writer writes the files while this process and
    `processes` - 1 forked workers make the rows, so the stages overlap (their seconds add up to more than the
    wall time); the writer's stages are its own seconds, the peak RSS this process's, then the largest worker's."""
    from leakproof_qa.builders.cli.phantomwiki import write_files
    from leakproof_qa.builders.phantomwiki.config import SUBSETS, settings_from

    settings = settings_from(config)[0]
    with tempfile.TemporaryDirectory() as out:
        say = _progress(config)
        generated, _ = write_files(settings, list(SUBSETS), Path(out), "parquet", processes=processes, progress=say)
    say("done")
    peak = _peak_mb()
    stages = [(stage, seconds, peak) for stage, seconds in generated.timings.items()]
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    stages.append(("peak RSS of the largest worker or writer (shares the pages it did not change)", 0.0, workers))
    return stages


def _evidence_stages(generated, stages: list) -> list:
    """Time the article reading and BM25 index the instances share; return [seconds, count] of BM25 queries, kept
    current."""
    from leakproof_qa.builders.phantomwiki.rows import shared_evidence

    start = time.perf_counter()
    evidence = shared_evidence(generated)
    stages.append(("read articles (instances, rag)", time.perf_counter() - start, _peak_mb()))
    start = time.perf_counter()
    index = evidence.pool.index
    stages.append((f"BM25 index ({index.engine})", time.perf_counter() - start, _peak_mb()))
    spent = [0.0, 0]
    name = "scores_of" if index.engine == "bm25plus" else "scores"  # every query of our engine goes through scores_of
    plain = getattr(index, name)

    def scores(query):
        began = time.perf_counter()
        found = plain(query)
        spent[0] += time.perf_counter() - began
        spent[1] += 1
        return found

    setattr(index, name, scores)
    return spent


def main() -> None:
    from leakproof_qa.builders.phantomwiki.config import format_name
    from leakproof_qa.builders.processes import default_processes

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=DEFAULT_SIZES)
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="also print the N functions with the most cumulative time (cProfile) per size; profiling slows "
        "the run, so take the timings from a run without it",
    )
    parser.add_argument(
        "--num-proc",
        type=int,
        default=default_processes(),
        metavar="K",
        help=f"processes making one universe's instances and rag rows (default {default_processes()}, as generate)",
    )
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure one config, print JSON
    args = parser.parse_args()
    if args.one:
        report = ""
        if args.profile:
            import cProfile
            import io
            import pstats

            profiler = cProfile.Profile()
            stages = profiler.runcall(measure, args.one, args.num_proc)
            written = io.StringIO()
            pstats.Stats(profiler, stream=written).sort_stats("cumulative").print_stats(args.profile)
            report = written.getvalue()
        else:
            stages = measure(args.one, args.num_proc)
        print(json.dumps({"stages": stages, "profile": report}))
        return
    profiles: list[tuple[int, str]] = []
    print("| n | stage | seconds | peak RSS (MB) |")
    print("|---:|---|---:|---:|")
    totals = []
    for size in args.sizes:
        config = format_name(size, args.depth, args.seed)
        if size in LARGE:
            print(f"{config}: {LARGE[size]} on 2 cores", file=sys.stderr, flush=True)
        start = time.perf_counter()
        command = [sys.executable, __file__, "--one", config, "--num-proc", str(args.num_proc)] + (
            ["--profile", str(args.profile)] if args.profile else []
        )
        done = subprocess.run(command, stdout=subprocess.PIPE, text=True)  # its stage lines go to our stderr
        wall = time.perf_counter() - start
        if done.returncode != 0:
            print(f"| {size} | failed (exit code {done.returncode}; its error is above) | | |")
            continue
        measured = json.loads(done.stdout)
        stages = measured["stages"]
        if measured["profile"]:
            profiles.append((size, measured["profile"]))
        for stage, seconds, peak in stages:
            print(f"| {size} | {stage} | {seconds:.2f} | {peak:.0f} |")
        peak = max(p for _, _, p in stages)
        print(f"| {size} | **total (process wall, incl. imports)** | **{wall:.2f}** | **{peak:.0f}** |", flush=True)
        totals.append((size, wall, peak))
    print("\n| n | seconds | target | peak RSS (MB) | target |\n|---:|---:|---:|---:|---:|")
    for size, wall, peak in totals:
        seconds, megabytes = TARGETS.get(size, (None, None))
        print(f"| {size:,} | {wall:.2f} | {_target(wall, seconds)} | {peak:.0f} | {_target(peak, megabytes)} |")
    for size, profile in profiles:
        print(f"\nprofile of n = {size:,} (cumulative):\n{_trimmed(profile)}")


def _target(value: float, target: float | None) -> str:
    """The target and whether the value meets it: `<= 2.5 ok`, `<= 20 missed`, or `-` when there is none."""
    if target is None:
        return "-"
    return f"<= {target:g} {'ok' if value <= target else 'missed'}"


def _trimmed(profile: str) -> str:
    """cProfile's table without its preamble: the header line and the rows."""
    lines = profile.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().startswith("ncalls")), 0)
    return "\n".join(line for line in lines[start:] if line.strip())


if __name__ == "__main__":
    main()
