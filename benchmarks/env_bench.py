"""Speed of the agent environment: the oracle agent over a universe, tool calls per second, score_answer per second,
and RL items per second with universes that rotate.

    python benchmarks/env_bench.py [--config n5000_s1] [--items 5000]

Prints a table with targets (issue 16): at least 10,000 tool calls per second of the environment on one core
(the tools replayed alone, so no model is the bottleneck) and at least 10,000 score_answer calls per second; and
(issue 28) at least 2,000 PhantomWikiDataset items per second on one core at n100 with a new universe every 100
items (each universe generated on first use, as a training run meets it).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.rows import generate
from leakproof_qa.phantom_env.baselines import OracleModel
from leakproof_qa.phantom_env.rl import PhantomWikiDataset, score_answer
from leakproof_qa.phantom_env.runner import TRAJECTORIES, read_trajectories, run, tasks_of
from leakproof_qa.phantom_env.tools import Corpus, Episode, tool_names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="n5000_s1")
    parser.add_argument("--items", type=int, default=5000, help="RL items read per rotation row (default 5000)")
    args = parser.parse_args()
    start = time.perf_counter()
    generated = generate(settings_from(args.config)[0])
    generated_at = time.perf_counter()
    corpus = Corpus.from_generated(generated)
    tasks = tasks_of(generated)
    indexed_at = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        summary = run(OracleModel(tasks), corpus, tasks, Path(out), mode="tools", max_steps=10_000)
        ran_at = time.perf_counter()
        trajectories = list(read_trajectories(Path(out) / TRAJECTORIES).values())
    calls = [(c["tool"], c["argument"]) for t in trajectories for c in t["tool_calls"]]
    began = time.perf_counter()
    for tool, argument in calls:
        Episode(corpus).call(tool, argument)
    tools_s = time.perf_counter() - began
    entries = [{"answer": ", ".join(t.gold), "metadata": {"answers": t.gold}} for t in tasks]
    began = time.perf_counter()
    rounds = 20
    for _ in range(rounds):
        for entry in entries:
            score_answer(entry["answer"], entry)
    score_s = time.perf_counter() - began
    per_tool = {name: sum(1 for tool, _ in calls if tool == name) for name in tool_names("atomic")}
    print(
        f"{args.config}: {len(tasks)} questions, oracle F1 {summary['f1']:.3f}, {len(calls)} tool calls "
        f"({', '.join(f'{n} {c}' for n, c in per_tool.items())})\n"
    )
    print("| measure | value | target |")
    print("|---|---:|---:|")
    print(f"| generate the universe and questions (s) | {generated_at - start:.2f} | |")
    print(f"| index the corpus for the tools (s) | {indexed_at - generated_at:.2f} | |")
    print(f"| oracle agent over every question, tools mode, through the runner (s) | {ran_at - indexed_at:.2f} | |")
    print(f"| environment tool calls per second (one core) | {len(calls) / tools_s:,.0f} | 10,000 |")
    print(f"| score_answer calls per second | {rounds * len(entries) / score_s:,.0f} | 10,000 |")
    for size, every in ((50, 100), (100, 100), (100, None), (500, 100), (500, 1000)):
        data = PhantomWikiDataset(f"n{size}_s1", seed=1, size=args.items, universe_every=every)
        began = time.perf_counter()
        read = sum(1 for _ in data)
        rate = read / (time.perf_counter() - began)
        rotation = f"a new universe every {every} items" if every else "one universe"
        target = "2,000" if (size, every) == (100, 100) else ""
        print(f"| RL items per second, n{size}, {rotation} | {rate:,.0f} | {target} |")


if __name__ == "__main__":
    main()
