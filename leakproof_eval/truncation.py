"""Refuse to score a multiple-choice prompt that lm_eval would cut to fit the model's `max_length`.

lm_eval left-truncates a log-likelihood request longer than `max_length` (2,048 by default for API models) with a
warning only: the documents at the start of the prompt are dropped and the options are still scored, so every score is
silently one of another prompt. `refuse_truncation()` makes such a request a one-line `TruncatedPrompt` instead, for
every model that encodes through lm_eval's `TemplateLM` (local-completions, hf, vllm, ...), whatever the server.
`python -m leakproof_qa run` holds it for the whole run; with `simple_evaluate`, wrap the call:
`with refuse_truncation(): simple_evaluate(...)`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from lm_eval.api.model import TemplateLM

from . import TaskSetupError


class TruncatedPrompt(TaskSetupError):
    """A prompt with its answer is longer than the model's max_length; the message is one line."""


def check_fits(context_tokens: int, continuation_tokens: int, max_length: int | None) -> None:
    """A TruncatedPrompt when `context_tokens + continuation_tokens` exceeds `max_length` (None: no limit known)."""
    total = context_tokens + continuation_tokens
    if max_length is not None and total > max_length:
        wanted = 1 << (total + 1).bit_length()  # a power of two with room for the +1 lm_eval's API models keep
        raise TruncatedPrompt(
            f"a multiple-choice prompt with its answer is {total:,} tokens, above the model's max_length "
            f"({max_length:,}): lm_eval would cut its start and score the rest; give max_length={wanted} (or the "
            "model's context length, if larger) in --model_args, or a smaller universe"
        )


@contextmanager
def refuse_truncation() -> Iterator[None]:
    """Within the block, every log-likelihood request a `TemplateLM` encodes must fit its `max_length`."""
    original = TemplateLM._encode_pair

    def encode_pair(self: TemplateLM, context: str, continuation: str) -> tuple[list[int], list[int]]:
        context_enc, continuation_enc = original(self, context, continuation)
        check_fits(len(context_enc), len(continuation_enc), _max_length(self))
        return context_enc, continuation_enc

    TemplateLM._encode_pair = encode_pair
    try:
        yield
    finally:
        TemplateLM._encode_pair = original


def _max_length(model: Any) -> int | None:
    """The longest input `model` scores whole: lm_eval's `max_length` (API models already keep one token back)."""
    try:
        value = model.max_length
    except (AttributeError, ValueError, TypeError):
        return None
    return int(value) if isinstance(value, int) and value > 0 else None
