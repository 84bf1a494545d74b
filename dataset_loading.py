"""`load_dataset` for a packaged builder: the same return types as `datasets.load_dataset`, with its cache."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import datasets


class CacheDirError(ValueError):
    """A cache_dir that cannot hold a cache (a file, or not writable); the message is one line."""


def usable_cache_dir(cache_dir: str | os.PathLike | None) -> None:
    """Raise CacheDirError unless `cache_dir` is None or a folder this process can write (made if missing)."""
    if cache_dir is None:
        return
    path = Path(cache_dir).expanduser()
    if path.exists() and not path.is_dir():
        raise CacheDirError(f"cache_dir {path} is a file; give a folder (or leave cache_dir out for the datasets cache)")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CacheDirError(f"cannot make cache_dir {path}: {error.strerror}; give a folder you can write") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise CacheDirError(f"cache_dir {path} is not writable; give a folder you can write")


def load_from_builder(
    builder_cls: type[datasets.DatasetBuilder],
    config_name: str,
    split: str | None = None,
    streaming: bool = False,
    cache_dir: str | None = None,
    **builder_kwargs: Any,
) -> datasets.Dataset | datasets.DatasetDict | datasets.IterableDataset | datasets.IterableDatasetDict:
    """Build `config_name` of `builder_cls` (or reuse its cache) and return it as `datasets.load_dataset` would."""
    usable_cache_dir(cache_dir)
    builder = builder_cls(config_name=config_name, cache_dir=cache_dir, **builder_kwargs)
    if streaming:
        streamed = builder.as_streaming_dataset(split=split)
        return streamed if split is not None else datasets.IterableDatasetDict(streamed)
    builder.download_and_prepare()
    return builder.as_dataset(split=split)
