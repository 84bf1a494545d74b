"""The functions the task YAMLs name (`!function utils.<name>`), each defined under that very name in
`leakproof_eval` (installed with this package): a task's code lives there, this file only makes it visible beside
the YAMLs, as lm_eval looks for it."""

from leakproof_eval.neoqa_tasks import *  # noqa: F403
from leakproof_eval.phantom_wiki_sweeps import *  # noqa: F403
from leakproof_eval.phantom_wiki_tasks import *  # noqa: F403
