"""The functions the task YAMLs name (`!function utils.<name>`), each defined under that very name in
`leakproof_eval` (installed with this package): a task's code lives there, this file only makes it visible beside
the YAMLs, as lm_eval looks for it: the `__all__` of each task module the task table names."""

from importlib import import_module

from leakproof_qa.leakproof_eval.task_table import TASK_MODULES

for _module in map(import_module, TASK_MODULES):
    globals().update({_name: getattr(_module, _name) for _name in _module.__all__})
