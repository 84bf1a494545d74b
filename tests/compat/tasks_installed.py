"""The lm-eval task folder ships inside the installed package, not only in a source checkout.

Run with the package installed non-editable (`pip install .`), as scripts/test.sh does in .venv-datasets3:
    python tests/compat/tasks_installed.py
It exits non-zero unless `python -m phantom_wiki tasks-path`, run outside the checkout, prints a folder
of the installed package holding every task file and prompt template of the checkout, byte for byte.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2] / "leakproof_eval"


def main() -> int:
    with tempfile.TemporaryDirectory() as elsewhere:
        done = subprocess.run(
            [sys.executable, "-m", "phantom_wiki", "tasks-path"], capture_output=True, text=True, cwd=elsewhere
        )
    if done.returncode != 0:
        print(f"FAILED: python -m phantom_wiki tasks-path: {done.stderr.strip()}")
        return 1
    tasks = Path(done.stdout.strip())
    if CHECKOUT in tasks.parents or "site-packages" not in tasks.parts:
        print(f"FAILED: tasks-path {tasks} is not inside an installed package")
        return 1
    for folder in ("tasks", "prompts"):
        shipped = sorted(p.name for p in (CHECKOUT / folder).iterdir() if p.is_file())
        for name in shipped:
            installed = tasks.parent / folder / name
            if not installed.is_file() or installed.read_bytes() != (CHECKOUT / folder / name).read_bytes():
                print(f"FAILED: {folder}/{name} is missing or differs in the installed package ({installed})")
                return 1
        print(f"{folder}: {len(shipped)} files installed in {tasks.parent / folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
