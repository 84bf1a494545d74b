#!/usr/bin/env bash
# Install everything and run the tests: the main suite on current `datasets` (with the lm-eval extra, so the
# lm-evaluation-harness tasks run end to end); phantom_wiki.py as a classic loading script on datasets 3.6
# (which needs huggingface_hub < 1.0) in a virtualenv of its own, where the package is installed non-editable;
# and, in .venv-bare (the newest `datasets`, none of this package), plain `datasets` reading a published folder;
# then the lint and type gates (ruff, mypy) and the tests, on every core (pytest-xdist).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
python3 -m venv .venv-datasets3
.venv-datasets3/bin/pip install -q --upgrade pip
.venv-datasets3/bin/pip install -q "datasets==3.6.0" "huggingface_hub<1.0" .
.venv-datasets3/bin/python tests/compat/load_as_script.py
.venv-datasets3/bin/python tests/compat/tasks_installed.py
python3 -m venv .venv-bare
.venv-bare/bin/pip install -q --upgrade pip
.venv-bare/bin/pip install -q datasets
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python -m pytest -q -n auto --dist load --durations=20
