"""What `python -m leakproof_qa run` checks before lm_eval loads: the names of this package's tasks and the metadata
they read, so that a mistake is one line within seconds. lm_eval itself reports them only once it has indexed its
thousands of task files and built the tasks (a minute or more on a small machine).

The checks are the tasks' own (phantom_wiki_tasks.check_metadata, neoqa_release.release_from, lengths_and_positions)
on the metadata the tasks will see: their YAML's defaults under the command line's `--metadata`. Nothing is read or
generated here; a release is opened by its task.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from . import TASKS_PATH, TaskSetupError
from .help import nearest, task_names

DATASETS = ("phantom_wiki", "neoqa")
"""The prefixes of this package's task, group and tag names (and of their metadata keys)."""
SWEPT_LENGTHS = ("phantom_wiki_long", "phantom_wiki_tasks")
"""The names that run phantom_wiki_long, which reads max_seq_lengths and evidence_positions."""


class _TaskYaml(yaml.SafeLoader):
    """lm_eval's task YAML read as plain data: its `!function` tags are names, not code to import."""


_TaskYaml.add_constructor("!function", lambda loader, node: None)


@cache
def _task_files() -> tuple[dict[str, Any], ...]:
    """Every task file of the shipped folder (the YAMLs and the `_*_yaml` files they include), as plain data."""
    paths = sorted(Path(TASKS_PATH).glob("*.yaml")) + sorted(Path(TASKS_PATH).glob("_*_yaml"))
    return tuple(yaml.load(path.read_text(encoding="utf-8"), Loader=_TaskYaml) or {} for path in paths)


def known_names() -> set[str]:
    """The tasks, groups and tags the shipped folder defines."""
    names = set(task_names())
    for data in _task_files():
        tags = data.get("tag") or []
        names.update([tags] if isinstance(tags, str) else tags)
        if isinstance(data.get("group"), str):
            names.add(data["group"])
    return names


def defaults(prefix: str) -> dict[str, Any]:
    """The metadata defaults the task files of a dataset give (`phantom_wiki_config: n500_s1`, ...), a copy (the
    checks fill in the `_resolved` record)."""
    merged: dict[str, Any] = {}
    for data in _task_files():
        metadata = data.get("metadata") or {}
        merged.update({key: value for key, value in metadata.items() if key.startswith(prefix)})
    return copy.deepcopy(merged)


def unknown_task(tasks: Sequence[str]) -> str | None:
    """Why a task named like one of this package's is not one of them (with the nearest name), or None."""
    known = known_names()
    for name in tasks:
        if name.startswith(DATASETS) and name not in known:
            return (
                f"--tasks {name}: no such task, group or tag in this package{nearest(name, known)}; "
                f"python -m leakproof_qa --help lists them"
            )
    return None


def metadata_problem(tasks: Sequence[str], metadata: Mapping[str, Any]) -> str | None:
    """Why the tasks named cannot be set up from `metadata` (one line), or None."""
    from .neoqa_release import release_from
    from .phantom_wiki_tasks import check_metadata, lengths_and_positions

    try:
        if any(name.startswith("phantom_wiki") for name in tasks):
            check_metadata({**defaults("phantom_wiki_"), **metadata})
        if any(name in SWEPT_LENGTHS for name in tasks):
            lengths_and_positions(metadata)
        if any(name.startswith("neoqa") for name in tasks):
            release_from({**defaults("neoqa_"), **metadata})
    except TaskSetupError as error:
        return str(error)
    return None
