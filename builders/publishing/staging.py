"""Work folders named with their process id, and the sweeps that remove those of processes that are gone.

Publishing writes a release into `.{out}.publishing-{pid}` beside `--out` (under the release folder's lock), and
loading a sealed release decrypts into `{name}.partial-{pid}` in the cache, each renamed into place when whole. A
process killed in between leaves its folder behind (plaintext Parquet, for a decryption); the next run removes it,
so nothing outlives a killed process beyond the next run, and a folder another run is at work in is left alone.
For publishing a process id that no longer exists marks a folder as dead. A decryption's folder is held by an flock
on the folder itself (`held_folder`), which the kernel drops when its process ends, however it ends: a process id
can mislead (a killed process not yet reaped still has its id, ids are reused, a cache shared between containers
sees another namespace's ids), a lock cannot.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
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


@contextmanager
def held_folder(beside: Path, prefix: str) -> Iterator[Path]:
    """A fresh work folder `beside/{prefix}{pid}` (`{prefix}{pid}-{n}` if a live process holds that name) that this
    process holds an flock on while the block runs, and removes at the end; `sweep` never removes a held folder."""
    beside.mkdir(parents=True, exist_ok=True)
    taken = 0
    while True:
        folder = beside / f"{prefix}{os.getpid()}{f'-{taken}' if taken else ''}"
        try:
            folder.mkdir()
        except FileExistsError:
            if folder not in sweep(beside, prefix):  # a dead process's (or ours from before): else take another name
                taken += 1
            continue
        try:
            handle = _locked(folder)
        except OSError:  # no flock on this file system: the folder's process id marks it as ours
            handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        if handle is not None:
            break
        # a sweep took it between our mkdir and our lock, and removes it: make another
    try:
        yield folder
    finally:
        try:
            if _same(folder, handle):  # not if it was renamed into place (another may have its name by now)
                shutil.rmtree(folder, ignore_errors=True)
        finally:
            os.close(handle)


def sweep(folder: Path, marker: str) -> list[Path]:
    """Remove the folders of `folder` named `...{marker}{pid}` (or `{pid}-{n}`) that no live process holds (see
    held_folder); return what was removed. Where the file system has no flock on folders, a folder counts as held
    while its named process exists. Only real folders directly in `folder` are touched, never what a link points to."""
    removed: list[Path] = []
    if not folder.is_dir():
        return removed
    pattern = re.compile(re.escape(marker) + r"(\d+)(?:-\d+)?$")
    for entry in sorted(folder.iterdir()):
        match = pattern.search(entry.name)
        if not match or entry.is_symlink() or not entry.is_dir():
            continue
        try:
            handle = _locked(entry)
        except OSError:  # no flock here: its process id tells
            if int(match.group(1)) != os.getpid() and not alive(int(match.group(1))):
                removed += _removed(entry)
            continue
        if handle is None:
            continue  # a live process holds it
        try:
            removed += _removed(entry)
        finally:
            os.close(handle)
    return removed


def _removed(folder: Path) -> list[Path]:
    """Remove `folder` (never following a link inside it); [folder] if it is gone, [] if it could not be removed."""
    shutil.rmtree(folder, ignore_errors=True)
    return [] if os.path.lexists(folder) else [folder]


def _locked(folder: Path) -> int | None:
    """An open handle of `folder` with an exclusive flock on it, or None if another process holds one or the name
    no longer names the folder we opened (it was removed or replaced); OSError where there is no flock."""
    try:
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:  # gone, not a folder (a link put in its place), or not ours to open
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(handle)
        return None
    except OSError:
        os.close(handle)
        raise
    if not _same(folder, handle):
        os.close(handle)
        return None
    return handle


def _same(folder: Path, handle: int) -> bool:
    """Whether the name `folder` still names the folder open as `handle`."""
    try:
        named = os.lstat(folder)
    except FileNotFoundError:
        return False
    opened = os.fstat(handle)
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)
