"""The texts prompts are built from: the templates in `prompts/`, and the documents' texts, held once per process.

lm_eval keeps every document in memory and writes each one into `--log_samples` output. A PhantomWiki
document names its articles by title and the universe by key, so the corpus is held once, not once per
question; a NeoQA document holds ids only, so the decrypted release text never reaches the logs.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

_TEXTS: dict[str, Any] = {}


def keep(key: str, texts: Any) -> str:
    """Hold `texts` under `key` (replacing what was there: same key, same texts) and return the key."""
    _TEXTS[key] = texts
    return key


def texts(key: str) -> Any:
    """The texts held under `key`; a document from another process or an unloaded task is a one-line error."""
    try:
        return _TEXTS[key]
    except KeyError:
        raise KeyError(
            f"no texts loaded for {key!r}: documents of these tasks are built by the task's own loader "
            "in the same process"
        ) from None


@cache
def template(name: str) -> str:
    """A prompt template shipped in `prompts/` (data, not code), e.g. `template("neoqa")`."""
    return (Path(__file__).resolve().parent / "prompts" / f"{name}.txt").read_text(encoding="utf-8").rstrip("\n")


PHANTOM_WIKI_TEMPLATES = ("phantom_wiki_evidence", "phantom_wiki_evidence_cite", "phantom_wiki_zeroshot")


@cache
def instruction_lines() -> tuple[str, ...]:
    """The fixed lines of the PhantomWiki prompts (no placeholder): a response that repeats one is echoing it."""
    return tuple(
        line
        for name in PHANTOM_WIKI_TEMPLATES
        for line in template(name).splitlines()
        if line.strip() and "{" not in line
    )
