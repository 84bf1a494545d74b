"""phantom_wiki.py as a classic loading script, on a `datasets` that still runs them (3.x).

Run in a virtualenv with datasets==3.6.0 and this package installed:
    python tests/compat/load_as_script.py
It exits non-zero unless every subset loads through the script and equals the generator's rows.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import datasets

from leakproof_qa.builders.phantomwiki import rows as engine
from leakproof_qa.builders.phantomwiki.config import SUBSETS, settings_from

SCRIPT = Path(__file__).resolve().parents[2] / "phantom_wiki.py"


def main() -> int:
    print(f"datasets {datasets.__version__}: loading {SCRIPT.name} as a script")
    generated = engine.generate(settings_from("n50_s1")[0])
    with tempfile.TemporaryDirectory() as cache:
        for subset in SUBSETS:
            ds = datasets.load_dataset(
                str(SCRIPT), f"n50_s1_{subset}", split="test", cache_dir=cache, trust_remote_code=True
            )
            expected = list(engine.ROWS[subset](generated))
            if ds.to_list() != expected:
                print(f"FAILED: subset {subset} differs from the generator's rows")
                return 1
            print(f"ok: {subset} ({ds.num_rows} rows)")
        again = datasets.load_dataset(str(SCRIPT), "n50_s1", split="test", cache_dir=cache, trust_remote_code=True)
        if again.num_rows != 500:
            print("FAILED: the cached questions did not load back")
            return 1
    print("script loading: every subset equals the generator rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
