"""Work folders named with their process id, and the sweep that removes those of processes that are gone.

Publishing writes a release into `.{out}.publishing-{pid}` beside `--out`, and loading a sealed release
decrypts into `{name}.partial-{pid}` in the cache, each renamed into place when whole. A process killed
in between leaves its folder behind (plaintext Parquet, for a decryption); the next run removes every such
folder whose process no longer exists, so nothing outlives a killed process beyond the next run. A folder
whose process is alive (another run at work) is left alone.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path


def staging(beside: Path, prefix: str) -> Path:
    """This process's work folder `beside/{prefix}{pid}` (not created)."""
    return beside / f"{prefix}{os.getpid()}"


def alive(pid: int) -> bool:
    """Whether a process with this id exists (one we may not signal exists too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_orphans(folder: Path, marker: str) -> list[Path]:
    """Remove the entries of `folder` named `...{marker}{pid}` whose process is gone; return what was removed."""
    removed: list[Path] = []
    if not folder.is_dir():
        return removed
    pattern = re.compile(re.escape(marker) + r"(\d+)$")
    for entry in sorted(folder.iterdir()):
        match = pattern.search(entry.name)
        if match and int(match.group(1)) != os.getpid() and not alive(int(match.group(1))):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed


def restore(folder: Path, marker: str) -> bool:
    """Put `folder` back from `...{marker}{pid}` beside it, where a process that died had moved it aside to put its
    replacement in (see builders/publishing/phantomwiki.py); True when it did."""
    if folder.exists() or not folder.parent.is_dir():
        return False
    pattern = re.compile(re.escape(marker) + r"(\d+)$")
    for entry in sorted(folder.parent.iterdir()):
        match = pattern.search(entry.name)
        if match and int(match.group(1)) != os.getpid() and not alive(int(match.group(1))):
            os.replace(entry, folder)
            return True
    return False
