"""The lm-eval tasks this package ships, in one table: each task's name, its dataset, and the subset its documents
are rows of. What else names the tasks follows it: `task_requests.SUBSET_OF_TASK` is derived from it, and a test
(tests/lmeval/test_task_table.py) fails when a YAML under tasks/, a module's `__all__` or tasks/utils.py lags.

Adding a task: its YAML under tasks/, its functions in a task module's `__all__`, and its row here. This module
imports nothing of the package, so the CLI can read it without loading a task (or lm_eval).
"""

from __future__ import annotations

from dataclasses import dataclass

PREFIX = "phantom_wiki_"
"""The PhantomWiki tasks' metadata keys: phantom_wiki_config, phantom_wiki_seed, phantom_wiki_<setting>, ..."""


@dataclass(frozen=True)
class Task:
    """One lm-eval task: its name, its dataset, the module of its loader (the YAML's `custom_dataset`), and the
    subset of the dataset whose rows its documents are (a document's `id` is the row's id; None: not shown by id)."""

    name: str
    dataset: str
    module: str
    subset: str | None
    swept: str | None = None  # what it sweeps, when its documents are the subset's rows at other settings than given


TASKS: tuple[Task, ...] = (
    Task("phantom_wiki_questions", "phantom_wiki", "leakproof_qa.leakproof_eval.phantom_wiki_tasks", "questions"),
    Task("phantom_wiki_instances", "phantom_wiki", "leakproof_qa.leakproof_eval.phantom_wiki_tasks", "instances"),
    Task("phantom_wiki_instances_cite", "phantom_wiki", "leakproof_qa.leakproof_eval.phantom_wiki_tasks", "instances"),
    Task("phantom_wiki_mc", "phantom_wiki", "leakproof_qa.leakproof_eval.phantom_wiki_tasks", "instances"),
    Task("phantom_wiki_rag", "phantom_wiki", "leakproof_qa.leakproof_eval.phantom_wiki_sweeps", "rag"),
    Task("phantom_wiki_rag_cite", "phantom_wiki", "leakproof_qa.leakproof_eval.phantom_wiki_sweeps", "rag"),
    Task(
        "phantom_wiki_long",
        "phantom_wiki",
        "leakproof_qa.leakproof_eval.phantom_wiki_sweeps",
        "instances",
        "max_seq_lengths",
    ),
    Task("neoqa", "neoqa", "leakproof_qa.leakproof_eval.neoqa_tasks", None),
    Task("neoqa_gen", "neoqa", "leakproof_qa.leakproof_eval.neoqa_tasks", None),
)

TASK_MODULES: tuple[str, ...] = tuple(dict.fromkeys(task.module for task in TASKS))
"""The modules tasks/utils.py makes visible to lm_eval (each exports exactly what the YAMLs name, in `__all__`)."""
