"""The NeoQA engine: read the official release and rebuild its instance sets, as plain Python data.

The ``neoqa`` dataset face (``neoqa.py``) asks this package which files a configuration
needs (``files_needed``), then for each split a ``PreparedSplit``: everything is read,
decrypted and validated and the instances are assembled when it is created, so every
user error surfaces before ``datasets`` starts writing; iterating it yields the rows.
Nothing here imports ``datasets``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from leakproof_qa.builders.neoqa.answers import parse_answer
from leakproof_qa.builders.neoqa.instances import (
    ABLATION_SIZES,
    DEFLECTION_OPTION,
    INSTANCE_SETS,
    INSUFFICIENT,
    SUFFICIENT,
    UNANSWERABLE,
    InstanceBuilder,
)
from leakproof_qa.builders.neoqa.release import (
    DEFAULT_HUB_REPO,
    LICENSE,
    LICENSE_NOTICE,
    RAW_KINDS,
    SPLITS,
    check_complete,
    fingerprint,
    read_rows,
    release_filename,
    strip_markup,
)
from leakproof_qa.builders.neoqa.settings import GRAMMAR, ConfigError, is_generated_name, parse_name
from leakproof_qa.builders.neoqa.settings import SPLIT as GENERATED_SPLIT

CONFIG_NAMES: tuple[str, ...] = RAW_KINDS + INSTANCE_SETS
CONFIG_SPLITS: dict[str, tuple[str, ...]] = {
    **{name: SPLITS for name in CONFIG_NAMES},
    "context-ablation": ("test",),  # as released: test.neoqa-80.jsonl only
}


def check_config(name: str, split: str | None = None) -> None:
    """Raise a one-line ValueError for an unknown configuration or a split it does not have."""
    if is_generated_name(name):
        parse_name(name)
        if split is not None and split != GENERATED_SPLIT:
            raise ConfigError(
                f"generated NeoQA configuration {name!r} has one split, {GENERATED_SPLIT!r}, not {split!r}"
            )
        return
    if name not in CONFIG_SPLITS:
        raise ValueError(
            f"unknown NeoQA configuration {name!r}; choose one of {', '.join(CONFIG_NAMES)} (the release) or a "
            f"generated one, {GRAMMAR}"
        )
    if split is not None and split not in CONFIG_SPLITS[name]:
        raise ValueError(
            f"NeoQA configuration {name!r} has no split {split!r}; its splits are {', '.join(CONFIG_SPLITS[name])}"
        )


def files_needed(name: str) -> list[str]:
    """The release files a configuration reads, for all its splits."""
    check_config(name)
    kinds = (name,) if name in RAW_KINDS else ("news", "questions")
    return [release_filename(split, kind) for split in CONFIG_SPLITS[name] for kind in kinds]


def _document(news_row: dict[str, Any]) -> dict[str, Any]:
    """The part of an article an evaluator shows a model: id, headline, date and plain passages."""
    return {key: news_row[key] for key in ("article_id", "headline", "date", "passages")}


class PreparedSplit:
    """One split of one configuration, validated and assembled; iterate it for the rows."""

    def __init__(
        self,
        root: str | Path,
        name: str,
        split: str,
        key: int | str | None,
        seed: int = 1,
        include_documents: bool = True,
    ) -> None:
        """Read the split's release files and build its rows (instances by article id)."""
        check_config(name, split)
        check_complete(root, split, key)
        self.name, self.split, self.include_documents = name, split, include_documents
        if name in RAW_KINDS:
            self.rows = read_rows(root, split, name, key)
            self.articles: dict[str, dict[str, Any]] = {}
        else:
            news = read_rows(root, split, "news", key)
            questions = read_rows(root, split, "questions", key)
            self.rows = InstanceBuilder(questions, news, seed=seed).build(name)
            self.articles = {row["article_id"]: _document(row) for row in news}

    def __len__(self) -> int:
        """Number of rows."""
        return len(self.rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """Yield rows; instance rows get their documents' text attached here, lazily."""
        for row in self.rows:
            if self.name in RAW_KINDS:
                yield row
            else:
                documents = [self.articles[i] for i in row["use_evidence_documents"]] if self.include_documents else []
                yield {**row, "documents": documents}


__all__ = [
    "ABLATION_SIZES",
    "CONFIG_NAMES",
    "CONFIG_SPLITS",
    "GENERATED_SPLIT",
    "GRAMMAR",
    "ConfigError",
    "DEFAULT_HUB_REPO",
    "DEFLECTION_OPTION",
    "INSUFFICIENT",
    "LICENSE",
    "LICENSE_NOTICE",
    "SUFFICIENT",
    "UNANSWERABLE",
    "InstanceBuilder",
    "PreparedSplit",
    "check_config",
    "files_needed",
    "is_generated_name",
    "fingerprint",
    "parse_answer",
    "strip_markup",
]
