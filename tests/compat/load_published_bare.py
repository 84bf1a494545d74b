"""Load configurations of a published PhantomWiki folder with nothing but `datasets`; dump their rows as JSON lines.

    python load_published_bare.py RELEASE_DIR OUT_DIR CONFIG... [--require-bare]

Writes OUT_DIR/CONFIG.jsonl per configuration.  Run by tests/publish/test_publish_bare.py in a virtualenv that
has `datasets` and, with --require-bare, not this package: a user with `datasets` and no code of ours reads
what we publish.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
from pathlib import Path

import datasets


def main(argv: list[str]) -> int:
    bare = "--require-bare" in argv
    folder, out, *configs = [arg for arg in argv if arg != "--require-bare"]
    if bare:
        ours = ("phantom_wiki", "leakproof_qa", "builders", "cards")
        present = [name for name in ours if importlib.util.find_spec(name)]
        if present:
            print(f"not a bare environment: {', '.join(present)} can be imported", file=sys.stderr)
            return 3
    with tempfile.TemporaryDirectory() as cache:
        for config in configs:
            rows = datasets.load_dataset(folder, config, split="test", cache_dir=cache)
            with open(Path(out) / f"{config}.jsonl", "w", encoding="utf-8") as handle:
                for row in rows:
                    handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            print(f"datasets {datasets.__version__}: {config} has {rows.num_rows} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
