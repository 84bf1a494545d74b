"""The functions these task YAMLs name: thin aliases of `leakproof_eval` (installed with this package), where the
code lives."""

from leakproof_eval.neoqa_tasks import AGGREGATIONS as _NEOQA
from leakproof_eval.neoqa_tasks import NeoQATask  # noqa: F401
from leakproof_eval.neoqa_tasks import gold_number as neoqa_gold_number  # noqa: F401
from leakproof_eval.neoqa_tasks import load_neoqa as neoqa_load  # noqa: F401
from leakproof_eval.neoqa_tasks import multiple_choice_prompt as neoqa_multiple_choice_prompt  # noqa: F401
from leakproof_eval.neoqa_tasks import prompt as neoqa_prompt  # noqa: F401
from leakproof_eval.neoqa_tasks import read_choices as neoqa_read_choices  # noqa: F401
from leakproof_eval.neoqa_tasks import score_generation as neoqa_score_generation  # noqa: F401
from leakproof_eval.neoqa_tasks import score_multiple_choice as neoqa_score_multiple_choice  # noqa: F401
from leakproof_eval.phantom_wiki_sweeps import PhantomWikiTask  # noqa: F401
from leakproof_eval.phantom_wiki_sweeps import load_long as phantom_wiki_load_long  # noqa: F401
from leakproof_eval.phantom_wiki_tasks import AGGREGATIONS as _PHANTOM_WIKI
from leakproof_eval.phantom_wiki_tasks import CHOICE_AGGREGATIONS as _PHANTOM_WIKI_MC
from leakproof_eval.phantom_wiki_tasks import evidence_prompt as phantom_wiki_evidence_prompt  # noqa: F401
from leakproof_eval.phantom_wiki_tasks import gold_text as phantom_wiki_target  # noqa: F401
from leakproof_eval.phantom_wiki_tasks import load_instances as phantom_wiki_load_instances  # noqa: F401
from leakproof_eval.phantom_wiki_tasks import load_instances_cite as phantom_wiki_load_instances_cite  # noqa: F401
from leakproof_eval.phantom_wiki_tasks import load_mc as phantom_wiki_load_mc  # noqa: F401
from leakproof_eval.phantom_wiki_tasks import load_questions as phantom_wiki_load_questions  # noqa: F401
from leakproof_eval.phantom_wiki_tasks import load_rag as phantom_wiki_load_rag  # noqa: F401
from leakproof_eval.phantom_wiki_tasks import load_rag_cite as phantom_wiki_load_rag_cite  # noqa: F401
from leakproof_eval.phantom_wiki_tasks import mc_prompt as phantom_wiki_mc_prompt  # noqa: F401
from leakproof_eval.phantom_wiki_tasks import question_prompt as phantom_wiki_question_prompt  # noqa: F401
from leakproof_eval.phantom_wiki_tasks import read_answers as phantom_wiki_read_answers  # noqa: F401
from leakproof_eval.phantom_wiki_tasks import read_predictions as phantom_wiki_read_predictions  # noqa: F401
from leakproof_eval.phantom_wiki_tasks import score_choice as phantom_wiki_score_choice  # noqa: F401
from leakproof_eval.phantom_wiki_tasks import score_evidence as phantom_wiki_score_evidence  # noqa: F401
from leakproof_eval.phantom_wiki_tasks import score_evidence_cite as phantom_wiki_score_evidence_cite  # noqa: F401
from leakproof_eval.phantom_wiki_tasks import score_question as phantom_wiki_score_question  # noqa: F401

# Aggregations, one name per metric (a YAML `aggregation: !function` names a module attribute).
globals().update({f"phantom_wiki_{name}": function for name, function in _PHANTOM_WIKI.items()})
globals().update({f"phantom_wiki_mc_{name}": function for name, function in _PHANTOM_WIKI_MC.items()})
globals().update({f"neoqa_{name}": function for name, function in _NEOQA.items()})
