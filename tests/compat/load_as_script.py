"""phantom_wiki.py and neoqa.py as classic loading scripts, on a `datasets` that still runs them (3.x).

Run in a virtualenv with datasets==3.6.0 and this package installed:
    python tests/compat/load_as_script.py
It exits non-zero unless every subset of both loads through its script and equals the generator's rows.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import datasets

from leakproof_qa.builders.neoqa.generate import GeneratedSplit
from leakproof_qa.builders.neoqa.settings import SUBSETS as NEOQA_SUBSETS
from leakproof_qa.builders.neoqa.settings import settings_from as neoqa_settings_from
from leakproof_qa.builders.phantomwiki import rows as engine
from leakproof_qa.builders.phantomwiki.config import SUBSETS, settings_from

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "phantom_wiki.py"
NEOQA_SCRIPT = ROOT / "neoqa.py"
NEOQA_NAME = "t2_s1"
NEOQA_JSON_FIELDS = {"questions": ("meta",), "timelines": ("named_entity_snapshots", "named_entities", "properties")}
"""Where datasets 3.x, which has no Json feature, stores a NeoQA field as JSON text (read back with json.loads)."""


def phantom_wiki_loads(cache: str) -> bool:
    """Every PhantomWiki subset through the script equals the generator's rows."""
    generated = engine.generate(settings_from("n50_s1")[0])
    for subset in SUBSETS:
        ds = datasets.load_dataset(
            str(SCRIPT), f"n50_s1_{subset}", split="test", cache_dir=cache, trust_remote_code=True
        )
        expected = list(engine.ROWS[subset](generated))
        if ds.to_list() != expected:
            print(f"FAILED: subset {subset} differs from the generator's rows")
            return False
        print(f"ok: {subset} ({ds.num_rows} rows)")
    again = datasets.load_dataset(str(SCRIPT), "n50_s1", split="test", cache_dir=cache, trust_remote_code=True)
    if again.num_rows != 500:
        print("FAILED: the cached questions did not load back")
        return False
    return True


def _parsed(value: Any, path: tuple[str, ...]) -> Any:
    """`value` with the JSON text at `path` (field names, through lists) read back into its value."""
    if not path:
        return json.loads(value)
    if isinstance(value, list):
        return [_parsed(item, path) for item in value]
    return {**value, path[0]: _parsed(value[path[0]], path[1:])}


def neoqa_loads(cache: str) -> bool:
    """Every subset of a small generated NeoQA configuration through the script equals the generator's rows."""
    settings, _ = neoqa_settings_from(NEOQA_NAME)
    for subset in NEOQA_SUBSETS:
        name = f"{NEOQA_NAME}_{subset}"
        ds = datasets.load_dataset(str(NEOQA_SCRIPT), name, split="test", cache_dir=cache, trust_remote_code=True)
        rows = ds.to_list()
        if subset in NEOQA_JSON_FIELDS:
            rows = [_parsed(row, NEOQA_JSON_FIELDS[subset]) for row in rows]
        if not rows or rows != list(GeneratedSplit(settings, subset)):
            print(f"FAILED: neoqa {name} differs from the generator's rows")
            return False
        print(f"ok: neoqa {name} ({ds.num_rows} rows)")
    return True


def main() -> int:
    print(f"datasets {datasets.__version__}: loading {SCRIPT.name} and {NEOQA_SCRIPT.name} as scripts")
    with tempfile.TemporaryDirectory() as cache:
        if not phantom_wiki_loads(cache) or not neoqa_loads(cache):
            return 1
    print("script loading: every subset equals the generator rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
