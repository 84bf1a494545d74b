"""What an lm-eval task sends a model for one document: lm_eval's own request building over the shipped tasks.

`python -m phantom_wiki show NAME --as prompt` prints it. Nothing here writes a prompt: lm_eval loads the task
from its YAML (so `doc_to_text`, the description and the delimiters are the task's), orders its documents as an
evaluation does, and builds the one document's requests with `Task.build_all_requests(samples=[position])`, the
path `lm_eval --samples` takes. A chat model (`--apply_chat_template`) gets the same text as its user message.
"""

from __future__ import annotations

import contextlib
import io
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import TaskSetupError, tasks_path
from .task_table import PREFIX, TASKS

SUBSET_OF_TASK: dict[str, str] = {
    task.name: task.subset for task in TASKS if task.dataset == "phantom_wiki" and task.subset is not None
}
"""Each PhantomWiki task and the subset its documents are rows of (a document's `id` is the row's id)."""
SWEPT: dict[str, str] = {task.name: task.swept for task in TASKS if task.swept is not None}
"""The tasks whose documents are their subset's rows at settings they sweep (not the rows `show` selects)."""
DEFAULT_TASK: dict[str, str] = {
    "questions": "phantom_wiki_questions",
    "instances": "phantom_wiki_instances",
    "rag": "phantom_wiki_rag",
}


@dataclass(frozen=True)
class Requests:
    """One document's requests: where it stands in the task's order, and what each request sends."""

    position: int  # 0-based, in the order the task evaluates its documents (`--limit position + 1` includes it)
    total: int
    context: str  # the text the model reads (every request of a document shares it)
    continuations: tuple[str, ...]  # multiple choice: the options' continuations, scored after the context
    generation: Mapping[str, Any]  # generate_until: lm_eval's generation arguments (stop sequences, token budget)


def task_for(subset: str, task: str | None) -> str:
    """The task whose prompt to show for a row of `subset`: `task`, checked to read that subset, or its default."""
    if task is None:
        if subset not in DEFAULT_TASK:
            raise TaskSetupError(
                f"no lm-eval task sends {subset} rows to a model; --as prompt works on the "
                + ", ".join(DEFAULT_TASK)
                + " subsets"
            )
        return DEFAULT_TASK[subset]
    if task not in SUBSET_OF_TASK:
        raise TaskSetupError(f"--task {task!r} is not a PhantomWiki task; the tasks are {', '.join(SUBSET_OF_TASK)}")
    wanted = SUBSET_OF_TASK[task]
    if task in SWEPT:
        raise TaskSetupError(
            f"task {task} evaluates {wanted} rows made at each of its {SWEPT[task]}, not the rows of one "
            f"configuration, so --as prompt cannot show one; give --task {DEFAULT_TASK[wanted]}"
        )
    if wanted != subset:
        name = "without a subset suffix" if wanted == "questions" else f"ending in _{wanted}"
        raise TaskSetupError(f"task {task} evaluates rows of the {wanted} subset, not {subset}: give a name {name}")
    return task


def requests_for(task: str, universe: str, settings: Mapping[str, Any], doc_id: str) -> Requests:
    """The requests `task` sends for the document `doc_id` of `universe` (e.g. n500_s1) with these settings."""
    from lm_eval.tasks import TaskManager

    metadata = {f"{PREFIX}config": universe, **{f"{PREFIX}{key}": value for key, value in settings.items()}}
    quiet = logging.getLogger("lm_eval")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        # lm_eval and `datasets` draw bars and log notes on stderr while they load; the prompt is all we print
        with contextlib.redirect_stderr(io.StringIO()):
            loaded = TaskManager(include_path=tasks_path(), include_defaults=False, metadata=metadata).load([task])
            built = loaded["tasks"][task]
            positions = [index for index, doc in enumerate(built.eval_docs) if doc["id"] == doc_id]
            if not positions:
                raise TaskSetupError(f"task {task} over {universe} has no document {doc_id!r}")
            built.build_all_requests(samples=positions[:1])
    finally:
        quiet.setLevel(level)
    instances = built.instances
    first = instances[0]
    scored = first.request_type == "loglikelihood"
    return Requests(
        position=positions[0],
        total=len(built.eval_docs),
        context=first.args[0],
        continuations=tuple(instance.args[1] for instance in instances) if scored else (),
        generation={} if scored else dict(first.args[1]),
    )
