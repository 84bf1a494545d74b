"""No-weights models for these tasks, registered with lm_eval: `oracle`, `always_deflect`, `constant`.

They bound what a score can be and check the scoring end to end: the oracle answers from each
request's document (lm_eval hands every request its `doc`; nothing gold is ever in a prompt) and
scores 1 on every metric; `always_deflect` declines everything it is asked, reading the prompt as a
model would; `constant` gives one fixed answer (`--model_args response=...`, default "Nobody").
Import this module (or run `python -m leakproof_qa run ...`) before lm_eval builds the model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import lm_eval.models  # noqa: F401  (registers lm_eval's own models first, so registering ours hides none)
from lm_eval.api.instance import Instance
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

from leakproof_qa.builders.metrics import DEFLECTION

from . import neoqa_tasks, phantom_wiki_tasks

_GOLD_RESPONSES = {
    phantom_wiki_tasks.BENCHMARK: phantom_wiki_tasks.gold_response,
    neoqa_tasks.BENCHMARK: neoqa_tasks.gold_response,
}
_DEFLECTION_OPTION = re.compile(r"^(\d+)\. Unanswerable$", re.MULTILINE)
_LM_EVAL_ARGUMENTS = ("batch_size", "max_batch_size", "device")
NO_WEIGHTS_MODELS = ("oracle", "always_deflect", "constant")
"""The registered names; `python -m leakproof_qa run` gives each `model=<name>` so that lm_eval files its results
under --output_path/<name>/ as it does for any named model (else it invents a random folder name)."""


class NoWeightsLM(LM):
    """A model that answers by rule: lm_eval's batching and device arguments are accepted and ignored."""

    def __init__(self, model: str | None = None, **kwargs: Any) -> None:
        super().__init__()
        if model is not None and model not in NO_WEIGHTS_MODELS:
            raise ValueError(f"model={model!r} is not a no-weights model; the names are {', '.join(NO_WEIGHTS_MODELS)}")
        unknown = sorted(set(kwargs) - set(_LM_EVAL_ARGUMENTS))
        if unknown:
            raise ValueError(f"{type(self).__name__} takes no model argument {unknown[0]!r}")

    def generate_until(self, requests: list[Instance], disable_tqdm: bool = False) -> list[str]:
        """One response per request."""
        return [self.respond(request) for request in requests]

    def loglikelihood(self, requests: list[Instance], disable_tqdm: bool = False) -> list[tuple[float, bool]]:
        """0 for the continuation the model would choose, -1 for every other (a multiple-choice answer)."""
        return [(0.0, True) if self.chooses(request) else (-1.0, False) for request in requests]

    def loglikelihood_rolling(self, requests: list[Instance], disable_tqdm: bool = False) -> list[float]:
        """No-weights models have no distribution over text to score."""
        raise NotImplementedError(
            f"{type(self).__name__} has no language model: it answers generate_until and multiple-choice tasks only"
        )

    def respond(self, request: Instance) -> str:
        """The text this model writes for a generation request."""
        raise NotImplementedError

    def chooses(self, request: Instance) -> bool:
        """Whether this model picks the continuation of a multiple-choice request."""
        raise NotImplementedError

    @property
    def tokenizer_name(self) -> str:
        """No tokenizer: a chat is flattened to its messages' text."""
        return "none"

    def apply_chat_template(self, chat_history: Sequence[dict[str, str]], add_generation_prompt: bool = True) -> str:
        """The messages' contents, one after another (these models read text, not tokens)."""
        return "\n\n".join(message["content"] for message in chat_history)


def _doc_benchmark(request: Instance) -> str:
    benchmark = request.doc.get("benchmark") if isinstance(request.doc, dict) else None
    if benchmark not in _GOLD_RESPONSES:
        raise ValueError(
            f"the oracle knows the gold answers of the phantom_wiki and neoqa tasks only, not of "
            f"task {request.task_name!r}"
        )
    return benchmark


@register_model("oracle")
class OracleLM(NoWeightsLM):
    """Answers from the gold fields of each request's document: 1.0 on every metric, or the scoring is wrong."""

    def respond(self, request: Instance) -> str:
        return _GOLD_RESPONSES[_doc_benchmark(request)](request.doc)

    def chooses(self, request: Instance) -> bool:
        _doc_benchmark(request)
        return request.idx == request.doc["gold_answer_idx"]


def _deflection_number(request: Instance) -> str | None:
    """The number of the prompt's "Unanswerable" option, if the prompt lists options."""
    found = _DEFLECTION_OPTION.findall(request.args[0])
    return found[-1] if found else None


@register_model("always_deflect")
class AlwaysDeflectLM(NoWeightsLM):
    """Declines every question: the "Unanswerable" option when the prompt lists one, else "insufficient information"."""

    def respond(self, request: Instance) -> str:
        number = _deflection_number(request)
        return DEFLECTION if number is None else f"Answer: {number}"

    def chooses(self, request: Instance) -> bool:
        number = _deflection_number(request)
        if number is None:
            raise ValueError(
                f"always_deflect found no 'N. Unanswerable' option in a multiple-choice prompt of "
                f"task {request.task_name!r}"
            )
        return request.args[1].strip() == number


@register_model("constant")
class ConstantLM(NoWeightsLM):
    """Gives the same response to everything (`response=...`); in multiple choice, the option equal to it, else the
    first."""

    def __init__(self, response: str = "Nobody", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.response = str(response)

    def respond(self, request: Instance) -> str:
        return self.response

    def chooses(self, request: Instance) -> bool:
        return request.args[1].strip() == self.response.strip()
