"""The one reader of the project's TSV data files (relations, attributes, places, premise wordings, the RL
curriculum, the report's columns): rows of tab-separated fields, with blank lines and `#` comments skipped."""

from __future__ import annotations

from pathlib import Path


def rows(path: Path) -> list[list[str]]:
    """The rows of the UTF-8 TSV file at `path`: each line that is neither blank nor a `#` comment, split at tabs."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line and not line.startswith("#")]
