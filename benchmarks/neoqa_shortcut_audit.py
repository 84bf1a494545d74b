"""The shortcut audit of generated NeoQA (spec/validity.md): probes that see only what a prompt shows, trained on
one generated configuration's rows and scored on another's, each beside its fair baseline, each instance set apart.

    python benchmarks/neoqa_shortcut_audit.py                                   # t100_s1 -> t100_s2, and back
    python benchmarks/neoqa_shortcut_audit.py --timelines 300 --seeds 3 4
    python benchmarks/neoqa_shortcut_audit.py --sets optimal-evidence --timelines 50

The probes are builders/analysis/neoqa_shortcuts.py (and the neoqa_*.py beside it); tests/neoqa/test_neoqa_shortcuts.py
holds their margins. Each configuration's rows are generated and read once, and serve both directions.
"""

from __future__ import annotations

import argparse
import time

from leakproof_qa.builders.analysis.neoqa_options import rank_table
from leakproof_qa.builders.analysis.neoqa_shortcuts import INSTANCE_SETS, audit, configuration, table


def main() -> None:
    """Print the audit's table for each direction, and the time it took."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timelines", type=int, default=100, help="timelines per configuration (default 100)")
    parser.add_argument("--seeds", type=int, nargs=2, default=[1, 2], help="the two configurations' seeds (1 2)")
    parser.add_argument(
        "--sets", nargs="+", choices=INSTANCE_SETS, default=list(INSTANCE_SETS), help="instance sets (all three)"
    )
    args = parser.parse_args()
    start = time.perf_counter()
    names = [f"t{args.timelines}_s{seed}" for seed in args.seeds]
    configurations = [configuration(name, args.sets) for name in names]
    print(f"rows generated and read in {time.perf_counter() - start:.1f} s")
    for train, test in (configurations, configurations[::-1]):
        counts = ", ".join(f"{name} {len(rows)}" for name, rows in test.sets.items())
        print(f"\ntrain on {train.name}, test on {test.name} (rows: {counts})\n")
        print(table(audit(train, test)))
        print(f"\nthe gold's rank among number options in {test.name} (a question's rows counted once)\n")
        print(rank_table([p for rows in test.sets.values() for p in rows]))
    print(f"\n{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
