"""A real full disk for the tests: a small tmpfs mounted on a folder, unmounted after (skipped where mounting is not
allowed: it needs root, as CI and the quickstart run). Writes past its size fail with ENOSPC from the kernel."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_disk(folder: Path, size: int) -> Iterator[Path]:
    """`folder` (made if missing) as a tmpfs of `size` bytes while the block runs."""
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.strip()}): a full disk needs root")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)
