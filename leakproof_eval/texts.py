"""The texts a task's prompts are built from, held once per process and named by a key the documents carry.

lm_eval keeps every document in memory and writes each one into `--log_samples` output. A PhantomWiki
document names its articles by title and the universe by key, so the corpus is held once, not once per
question; a NeoQA document holds ids only, so the decrypted release text never reaches the logs.
"""

from __future__ import annotations

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
        raise KeyError(f"no texts loaded for {key!r}: documents of these tasks are built by the task's own loader "
                       "in the same process") from None
