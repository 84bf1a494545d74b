"""lm-evaluation-harness tasks for PhantomWiki and NeoQA: a fresh universe per evaluation, scored by `builders.metrics`.

    lm_eval --tasks phantom_wiki --include_path "$(python -m phantom_wiki tasks-path)" \
        --metadata '{"phantom_wiki_seed": 7}' ...
    python -m leakproof_qa run --model oracle --tasks phantom_wiki_instances --limit 50  # no-weights models

The task folder (`tasks/`: YAML, a thin `utils.py`) ships as package data; the code it names lives here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

TASKS_PATH: Path = Path(__file__).resolve().parent / "tasks"


class TaskSetupError(ValueError):
    """A task cannot be set up from the given metadata (bad key, bad value, missing data); the message is one line."""


def require_strings(given: Mapping[str, Any], prefix: str, keys: Iterable[str]) -> None:
    """A one-line TaskSetupError for the first of `keys` that `given` holds as anything but a string."""
    for key in keys:
        if key in given and not isinstance(given[key], str):
            raise TaskSetupError(f"{prefix}{key}={given[key]!r} must be a string (JSON text in quotes)")


def tasks_path() -> str:
    """The folder to pass to lm_eval's `--include_path`."""
    return str(TASKS_PATH)
