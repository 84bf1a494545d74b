"""Helpers of the lm-evaluation-harness specs: real lm_eval runs over the shipped task folder, offline."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from lm_eval import simple_evaluate
from lm_eval.api.model import LM
from lm_eval.tasks import TaskManager

from leakproof_qa.leakproof_eval import tasks_path

ROOT = Path(__file__).resolve().parents[2]


def task_manager(**metadata: Any) -> TaskManager:
    """lm_eval's TaskManager over the shipped task folder only (lm_eval's ~14,700 built-in tasks are not indexed)."""
    return TaskManager(include_path=tasks_path(), include_defaults=False, metadata=metadata)


@cache
def _loaded(metadata: str, names: tuple[str, ...]) -> tuple:
    """The groups and tasks `names` load to, built once per metadata (as JSON text: lists such as max_seq_lengths
    are values too): simple_evaluate takes built objects as it takes names."""
    loaded = task_manager(**json.loads(metadata)).load(list(names))
    groups = loaded.get("groups", {})
    children = {child for group in groups.values() for child in group.child_names}
    in_groups = {task.task_name for group in groups.values() for task in group.get_all_tasks()}
    return (
        *(group for name, group in groups.items() if name not in children),
        *(task for name, task in loaded["tasks"].items() if name not in in_groups),
    )


def evaluate(
    model: LM, names: Sequence[str], limit: int | None = None, log_samples: bool = False, **metadata: Any
) -> dict[str, Any]:
    """simple_evaluate of `model` on tasks (and groups) built once per (metadata, names) for the session."""
    tasks = list(_loaded(json.dumps(metadata, sort_keys=True), tuple(names)))
    return simple_evaluate(
        model=model,
        tasks=tasks,
        task_manager=task_manager(**metadata),
        limit=limit,
        bootstrap_iters=0,
        log_samples=log_samples,
    )


def scores(results: dict[str, Any], task: str) -> dict[str, float]:
    """A task's metrics without lm_eval's filter suffix and bookkeeping: {"f1": 1.0, ...}."""
    return {
        key.split(",")[0]: value
        for key, value in results["results"][task].items()
        if "," in key and "_stderr" not in key
    }
