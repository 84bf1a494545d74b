"""The shortcut audit of generated NeoQA (spec/validity.md): probes that see only what a prompt shows, trained on
one generated configuration's `neoqa` instances and scored on another's, each beside its fair baseline.

    python benchmarks/neoqa_shortcut_audit.py                   # train on t100_s1, test on t100_s2, and back
    python benchmarks/neoqa_shortcut_audit.py --timelines 300 --seeds 3 4

The probes are builders/analysis/neoqa_shortcuts.py; tests/neoqa/test_neoqa_shortcuts.py holds their margins.
"""

from __future__ import annotations

import argparse
import time

from leakproof_qa.builders.analysis.neoqa_shortcuts import audit, table
from leakproof_qa.builders.neoqa.generate import GeneratedSplit
from leakproof_qa.builders.neoqa.settings import settings_from
from leakproof_qa.leakproof_eval.ordering import interleaved


def lm_eval_order(rows: list[dict], seed: int) -> list[dict]:
    """The rows in the order the NeoQA lm-eval task deals them (answerable and must-deflect interleaved)."""
    return interleaved(rows, lambda r: r["answerable"] == "sufficient", seed, "neoqa/test")


def rows_of(timelines: int, seed: int) -> list[dict]:
    """The `neoqa` instance rows of t{timelines}_s{seed}, with their documents."""
    return list(GeneratedSplit(settings_from(f"t{timelines}_s{seed}")[0], "neoqa"))


def main() -> None:
    """Print the audit's table for each direction."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timelines", type=int, default=100)
    parser.add_argument("--seeds", type=int, nargs=2, default=[1, 2])
    args = parser.parse_args()
    start = time.perf_counter()
    rows = {seed: rows_of(args.timelines, seed) for seed in args.seeds}
    first, second = args.seeds
    for train, test in ((first, second), (second, first)):
        print(
            f"\ntrain on t{args.timelines}_s{train} ({len(rows[train])} rows), test on t{args.timelines}_s{test} "
            f"({len(rows[test])} rows)\n"
        )
        print(table(audit(rows[train], rows[test], lm_eval_order(rows[test], test))))
    print(f"\n{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
