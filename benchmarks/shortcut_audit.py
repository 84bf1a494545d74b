"""The shortcut audit (spec/validity.md): probes that see only what a prompt shows, trained on one universe's
`instances` and `rag` rows and scored on another's, each beside its fair baseline.

    PYTHONPATH=. .venv/bin/python benchmarks/shortcut_audit.py               # n500: s1 -> s2, and back
    PYTHONPATH=. .venv/bin/python benchmarks/shortcut_audit.py --size 5000   # n5000: the same seeds

The probes are builders/analysis/ (shortcuts.py lists them); tests/phantomwiki/test_shortcuts.py holds their
margins. Also printed: the lm-eval document order, probed the same way (does a row's position tell its label?),
rag's labels by hop count, and where the question's count ranks among a count row's numbers.
"""

from __future__ import annotations

import argparse
import time

from leakproof_qa.builders.analysis.probing import Finding, balanced_accuracy
from leakproof_qa.builders.analysis.shortcuts import Universe, audit, refuse, table, tables
from leakproof_qa.builders.phantomwiki.config import format_name, settings_from
from leakproof_qa.builders.phantomwiki.instances import build_instances, build_rag
from leakproof_qa.builders.phantomwiki.rows import generate
from leakproof_qa.leakproof_eval.ordering import BLOCK, interleaved


def universe(size: int, seed: int) -> Universe:
    """The instances and rag rows of n{size}_s{seed}, as the audit reads them."""
    generated = generate(settings_from(format_name(size, 20, seed))[0])
    return Universe.of(build_instances(generated), build_rag(generated))


def order_finding(test: Universe, seed: int) -> Finding:
    """How well a row's position in lm-eval's order tells answer / refuse: the best of predicting by the position
    within a block, by every k-th row (k = 2..30), and by the first row of the order."""
    ordered = interleaved(test.instances, lambda p: p.row["answerable"] == "sufficient", seed, "instances")
    gold = [refuse(p) for p in ordered]
    best = 0.5
    for period in range(2, 31):
        for phase in range(period):
            guess = ["answer" if i % period == phase else "refuse" for i in range(len(ordered))]
            best = max(best, balanced_accuracy(gold, guess))
    return Finding(
        f"lm-eval position -> answer / refuse (block {BLOCK}, best period)", "balanced accuracy", best, 0.5, len(gold)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=500)
    parser.add_argument("--seeds", type=int, nargs=2, default=[1, 2])
    args = parser.parse_args()
    first, second = args.seeds
    start = time.perf_counter()
    universes = {seed: universe(args.size, seed) for seed in (first, second)}
    for train, test in ((first, second), (second, first)):
        rows = universes[test]
        print(
            f"\ntrain on n{args.size}_s{train}, test on n{args.size}_s{test} ({len(rows.instances)} instances rows, "
            f"{len(rows.rag)} rag rows)\n"
        )
        print(table([*audit(universes[train], rows), order_finding(rows, test)]))
        print()
        print(tables(rows))
    print(f"\n{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
