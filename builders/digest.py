"""A digest of the package's code and data, so a cache built by other code is never served."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from . import __version__

_SUFFIXES = {".py", ".tsv", ".txt", ".pl", ".json"}


@lru_cache(maxsize=None)
def code_digest(*folders: str) -> str:
    """sha256 over the version and every code or data file below the named folders of builders/."""
    root = Path(__file__).parent
    digest = hashlib.sha256(__version__.encode())
    for folder in folders:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and path.suffix in _SUFFIXES and "__pycache__" not in path.parts:
                digest.update(path.relative_to(root).as_posix().encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
