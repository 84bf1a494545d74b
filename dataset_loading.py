"""`load_dataset` for a packaged builder: the same return types as `datasets.load_dataset`, with its cache."""

from __future__ import annotations

from typing import Any

import datasets


def load_from_builder(
    builder_cls: type[datasets.DatasetBuilder],
    config_name: str,
    split: str | None = None,
    streaming: bool = False,
    cache_dir: str | None = None,
    **builder_kwargs: Any,
) -> datasets.Dataset | datasets.DatasetDict | datasets.IterableDataset | datasets.IterableDatasetDict:
    """Build `config_name` of `builder_cls` (or reuse its cache) and return it as `datasets.load_dataset` would."""
    builder = builder_cls(config_name=config_name, cache_dir=cache_dir, **builder_kwargs)
    if streaming:
        streamed = builder.as_streaming_dataset(split=split)
        return streamed if split is not None else datasets.IterableDatasetDict(streamed)
    builder.download_and_prepare()
    return builder.as_dataset(split=split)
