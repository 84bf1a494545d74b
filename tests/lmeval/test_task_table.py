"""One table of the lm-eval tasks (leakproof_eval.task_table): the YAMLs, the task modules' `__all__`, tasks/utils.py
and the subset map agree with it, so adding a task and forgetting one of them fails here."""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

from leakproof_qa import leakproof_eval
from leakproof_qa.leakproof_eval.task_requests import SUBSET_OF_TASK
from leakproof_qa.leakproof_eval.task_table import TASK_MODULES, TASKS

FOLDER = Path(leakproof_eval.tasks_path())


def yaml_text(path: Path) -> str:
    """A task YAML with the files it includes (lm_eval's `include:`), the including file's own lines first."""
    text = path.read_text()
    included = re.findall(r"^include: (\S+)$", text, re.MULTILINE)
    return text + "".join("\n" + yaml_text(path.with_name(name)) for name in included)


def task_yamls() -> dict[str, str]:
    """Each task the folder defines (a `task:` of a *.yaml lm_eval indexes), with its YAML and what it includes."""
    found = {}
    for path in sorted(FOLDER.glob("*.yaml")):
        names = re.findall(r"^task: (\w+)$", path.read_text(), re.MULTILINE)
        found.update({name: yaml_text(path) for name in names})
    return found


def named_functions() -> set[str]:
    """Every `!function utils.X` of every file in the task folder."""
    return {name for path in FOLDER.iterdir() for name in re.findall(r"!function utils\.(\w+)", path.read_text())}


def test_the_table_lists_exactly_the_tasks_the_yamls_define():
    assert [task.name for task in TASKS] and sorted(task.name for task in TASKS) == sorted(task_yamls())
    assert len({task.name for task in TASKS}) == len(TASKS)


def test_each_task_s_loader_lives_in_the_module_the_table_names():
    yamls = task_yamls()
    for task in TASKS:
        (loader, *_) = re.findall(r"^custom_dataset: !function utils\.(\w+)$", yamls[task.name], re.MULTILINE)
        assert loader in importlib.import_module(task.module).__all__, (task.name, loader)


def test_the_task_modules_export_exactly_what_the_yamls_name_each_under_its_own_name():
    exported: dict[str, str] = {}
    for module_name in TASK_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            assert name not in exported, f"{name} is exported by {exported.get(name)} and {module_name}"
            assert getattr(module, name).__name__ == name and getattr(module, name).__module__ == module_name, name
            exported[name] = module_name
    assert sorted(exported) == sorted(named_functions())


def test_tasks_utils_makes_visible_exactly_the_exported_names():
    spec = importlib.util.spec_from_file_location("task_utils", FOLDER / "utils.py")
    assert spec and spec.loader
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    visible = {name for name in vars(utils) if not name.startswith("_")} - {"import_module", "TASK_MODULES"}
    assert visible == named_functions()


def test_the_subset_map_holds_every_phantom_wiki_task_the_table_lists():
    phantom_wiki = {task.name: task.subset for task in TASKS if task.dataset == "phantom_wiki"}
    assert SUBSET_OF_TASK == phantom_wiki and SUBSET_OF_TASK["phantom_wiki_long"] == "instances"
    assert {task.dataset for task in TASKS} == {"phantom_wiki", "neoqa"}


def test_show_refuses_a_sweeping_task_in_one_line_and_names_the_task_to_use():
    import pytest

    from leakproof_qa.leakproof_eval import TaskSetupError
    from leakproof_qa.leakproof_eval.task_requests import task_for

    with pytest.raises(TaskSetupError) as error:
        task_for("instances", "phantom_wiki_long")
    said = str(error.value)
    assert "max_seq_lengths" in said and said.endswith("give --task phantom_wiki_instances") and "\n" not in said
    assert task_for("instances", "phantom_wiki_mc") == "phantom_wiki_mc" and task_for("rag", None) == "phantom_wiki_rag"
