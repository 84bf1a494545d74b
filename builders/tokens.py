"""Token counts of documents: exact with a tokenizer on this machine, or an estimate that needs none.

A long instance is filled to a number of tokens (`context_tokens`), so something must count them:
  * `tokenizer="<name or folder>"`: any `transformers` tokenizer whose files are on this machine (a name in the
    Hugging Face cache, or a folder holding tokenizer.json / tokenizer_config.json); nothing is downloaded. Counts
    are exact: the tokens of the text without special tokens;
  * `tokenizer=""` (the default): the estimate, one token per CHARS_PER_TOKEN characters, rounded up. Measured
    against real vocabularies (GPT-4's cl100k_base, Qwen2.5's, Qwen3.5/3.6's and a BPE trained on our own corpus;
    benchmarks/long_context_bench.py, the README's table) it overcounts the documents of a long instance, so a row
    never holds more real tokens than asked, by the margin the README gives.
Documents are counted as the prompts show them: each text stripped, joined by a blank line (`joined`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, Protocol

CHARS_PER_TOKEN = 3
SEPARATOR = "\n\n"
"""What stands between two documents in a prompt (leakproof_eval's evidence prompts join them so)."""
ESTIMATE = "estimate"
"""The name rows record for the estimate (`tokenizer=""`)."""


class TokenizerError(ValueError):
    """A tokenizer that cannot be loaded here; the message is one line."""


def joined(texts: Sequence[str]) -> str:
    """Documents as a prompt shows them: each stripped, a blank line between them."""
    return SEPARATOR.join(text.strip() for text in texts)


class Counter(Protocol):
    """Counts the tokens of a text."""

    name: str

    def count(self, text: str) -> int:
        """The number of tokens of `text`."""

    def counts(self, texts: Sequence[str]) -> list[int]:
        """The number of tokens of each of `texts`."""

    def documents(self, texts: Sequence[str]) -> int:
        """The number of tokens of documents `texts` as a prompt joins them (`joined`)."""


class Estimate:
    """One token per CHARS_PER_TOKEN characters of each document, rounded up, and one per blank line between two: no
    tokenizer needed, and above real counts (README). Counted document by document, so a fill can add them up."""

    name = ESTIMATE

    def count(self, text: str) -> int:
        return math.ceil(len(text) / CHARS_PER_TOKEN)

    def counts(self, texts: Sequence[str]) -> list[int]:
        return [self.count(text) for text in texts]

    def documents(self, texts: Sequence[str]) -> int:
        stripped = [text.strip() for text in texts]
        return sum(self.counts(stripped)) + self.count(SEPARATOR) * max(0, len(stripped) - 1)


class Exact:
    """A `transformers` tokenizer's exact counts (special tokens left out: they are the prompt's, not the text's)."""

    def __init__(self, name: str, tokenizer: Any) -> None:
        self.name = name
        self._tokenizer = tokenizer

    def count(self, text: str) -> int:
        return len(self._tokenizer(text, add_special_tokens=False)["input_ids"])

    def counts(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        return [len(ids) for ids in self._tokenizer(list(texts), add_special_tokens=False)["input_ids"]]

    def documents(self, texts: Sequence[str]) -> int:
        return self.count(joined(texts))


@cache
def counter(tokenizer: str = "") -> Counter:
    """The counter a `tokenizer` setting names: the estimate for "", else that tokenizer, loaded from local files
    only (a one-line TokenizerError when it is not on this machine)."""
    if not tokenizer:
        return Estimate()
    try:
        import transformers
    except ImportError:
        raise TokenizerError(
            f"tokenizer={tokenizer!r} needs the transformers package: pip install transformers "
            "(or leave tokenizer empty for the estimate)"
        ) from None
    try:
        loaded = transformers.AutoTokenizer.from_pretrained(tokenizer, local_files_only=True)
    except Exception as error:
        what = "a folder without tokenizer files" if Path(tokenizer).expanduser().is_dir() else "not on this machine"
        raise TokenizerError(
            f"tokenizer={tokenizer!r} cannot be loaded: {what} ({type(error).__name__}); give a folder holding "
            "tokenizer files or a name already in the Hugging Face cache (nothing is downloaded), or leave it empty "
            "for the estimate"
        ) from None
    if not loaded("The son of Ann Lee is Bo Lee.", add_special_tokens=False)["input_ids"]:
        raise TokenizerError(f"tokenizer={tokenizer!r} encodes text to no tokens, so it cannot measure a length")
    return Exact(tokenizer, loaded)
