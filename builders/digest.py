"""A digest of the package's code and data, so a cache built by other code is never served."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from . import __version__

_SUFFIXES = {".py", ".tsv", ".txt", ".pl", ".json"}


PHANTOMWIKI_CODE = (
    "phantomwiki",
    "__init__.py",
    "rng.py",
    "evidence.py",
    "retrieval.py",
    "metrics.py",
    "labels.py",
    "checks.py",
    "tokens.py",
    "tsv.py",
    "settings.py",
)
"""Exactly what phantom_wiki rows are made by: the generator's folder and the shared modules it imports (a test
holds this equal to what generating every subset loads); the CLI, reports and publishing are left out, so editing
them never moves a cache or a release's code digest."""


def digested_files(*names: str) -> list[Path]:
    """The files a digest reads: everything below a named folder of builders/, or the files a glob names in it."""
    root = Path(__file__).parent
    files = []
    for name in names:
        target = root / name
        paths = sorted(target.rglob("*")) if target.is_dir() else sorted(root.glob(name))
        files += [p for p in paths if p.is_file() and p.suffix in _SUFFIXES and "__pycache__" not in p.parts]
    return files


@cache
def code_digest(*names: str) -> str:
    """sha256 over the version and every code or data file `digested_files(*names)` lists."""
    root = Path(__file__).parent
    digest = hashlib.sha256(__version__.encode())
    for path in digested_files(*names):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
