"""Dataset cards for the Hub: Jinja2 Markdown templates, their fixed metadata, citations and the canary string.

They are package data, found next to this file whether the package is installed or run from a checkout.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).resolve().parent


def path(name: str) -> Path:
    """The card file `name` (e.g. ``phantom_wiki.md``); a one-line FileNotFoundError if it was not shipped."""
    found = FOLDER / name
    if not found.is_file():
        raise FileNotFoundError(f"card file {name!r} is missing from {FOLDER}; reinstall leakproof-qa")
    return found


def text(name: str) -> str:
    """The text of a card file, without its final newline."""
    return path(name).read_text(encoding="utf-8").rstrip("\n")


def metadata(name: str) -> dict[str, Any]:
    """The fixed card metadata of a dataset, from ``{name}.json``."""
    return json.loads(text(f"{name}.json"))


CANARY = text("canary.txt")
