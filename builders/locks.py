"""A lock on a folder one process writes (a release, an agent run), so a second writer is refused, told who holds it.

The lock is `fcntl.flock` on a small file that names its holder (process id, command, start time). The kernel
releases it when the holder ends, however it ends, so a killed holder never leaves a stale lock; the holder
removes the file when it is done. A process that locked a file its last holder had just removed (between our
open and our flock) sees that the path now names another file, and locks again.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class FolderBusy(RuntimeError):
    """Another process holds the lock; the message is one line naming it."""


def holder_text() -> str:
    """How this process names itself in a lock: its id, its command (shortened) and when it took the lock."""
    command = " ".join(os.path.basename(arg) if i == 0 else arg for i, arg in enumerate(sys.argv))
    command = command if len(command) <= 100 else command[:97] + "..."
    return f"process {os.getpid()} ({command or 'python'}) since {time.strftime('%Y-%m-%d %H:%M:%S')}"


@contextmanager
def held(lock: Path, what: str, fix: str) -> Iterator[None]:
    """Hold the lock file `lock` while the block runs; FolderBusy("{what} is in use by <holder>; {fix}") if another
    process holds it. The lock's folder is made if missing (OSError if it cannot be)."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip() or "another process"
            os.close(fd)
            raise FolderBusy(f"{what} is in use by {holder}; {fix}") from None
        try:
            current = os.stat(lock)
        except FileNotFoundError:
            current = None
        opened = os.fstat(fd)
        if current is not None and (current.st_dev, current.st_ino) == (opened.st_dev, opened.st_ino):
            break
        os.close(fd)  # its holder removed it after we opened it: lock the file the path names now
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, holder_text().encode("utf-8", "replace"), 0)
        yield
    finally:
        try:
            lock.unlink(missing_ok=True)  # while still holding it: the next writer makes a fresh file
        finally:
            os.close(fd)
