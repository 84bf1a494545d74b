"""The shortcut audit (spec/validity.md): probes that see only what a prompt shows, trained on one universe's
`instances` and scored on another's, each beside its fair baseline.

    python benchmarks/shortcut_audit.py                         # train on n500_s1, test on n500_s2, and back
    python benchmarks/shortcut_audit.py --size 5000 --seeds 1 2

The probes are builders/analysis/shortcuts.py; tests/phantomwiki/test_shortcuts.py holds their margins. Also printed:
the lm-eval document order, probed the same way (does a row's position tell its label?).
"""

from __future__ import annotations

import argparse
import time

from builders.analysis.shortcuts import Finding, balanced_accuracy, refuse, table
from builders.analysis.shortcuts import audit as run_audit
from builders.phantomwiki.config import format_name, settings_from
from builders.phantomwiki.instances import build_instances
from builders.phantomwiki.rows import generate
from leakproof_eval.ordering import BLOCK, interleaved


def rows_of(size: int, seed: int) -> list[dict]:
    return build_instances(generate(settings_from(format_name(size, 20, seed))[0]))


def order_finding(rows: list[dict], seed: int) -> Finding:
    """How well a row's position in lm-eval's order tells answer / refuse: the best of predicting by the position
    within a block, by every k-th row (k = 2..30), and by the first row of the order."""
    ordered = interleaved(rows, lambda r: r["answerable"] == "sufficient", seed, "instances")
    gold = [refuse(r) for r in ordered]
    best = 0.5
    for period in range(2, 31):
        for phase in range(period):
            guess = ["answer" if i % period == phase else "refuse" for i in range(len(ordered))]
            best = max(best, balanced_accuracy(gold, guess))
    return Finding(f"lm-eval position -> answer / refuse (block {BLOCK}, best period)", "balanced accuracy", best, 0.5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=500)
    parser.add_argument("--seeds", type=int, nargs=2, default=[1, 2])
    args = parser.parse_args()
    first, second = args.seeds
    start = time.perf_counter()
    rows = {seed: rows_of(args.size, seed) for seed in (first, second)}
    for train, test in ((first, second), (second, first)):
        print(
            f"\ntrain on n{args.size}_s{train} ({len(rows[train])} rows), test on n{args.size}_s{test} "
            f"({len(rows[test])} rows)\n"
        )
        print(table([*run_audit(rows[train], rows[test]), order_finding(rows[test], test)]))
    print(f"\n{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
