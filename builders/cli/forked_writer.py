"""A universe's subset files written by a forked process while this one makes the rows, the same files as in one.

Forked once the universe and its articles exist, the writer imports Arrow's converters (without pandas, which
pyarrow would import on its first table only to ask whether the rows are pandas objects: half a second) and writes
the corpus and database from its own copy of them while this process samples the questions: the second core, idle in
those stages, does the writing. The rows of the other subsets are made here (forked_rows.py) and handed over in a
queue, whose thread sends them while this process goes on; the instance rows part by part, from each process that
makes them, as each part is made, so that the writer converts them to Arrow meanwhile and little is left to do after
the last row.
Each file is written under a hidden partial name and given its own only when every file is written: a refusal or an
error on the way (a length the universe cannot fill is refused after the corpus is written) leaves no file behind.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import sys
import time
from collections.abc import Iterable
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from ..export import parquet_part, write_parquet_parts, write_rows
from ..phantomwiki.features import arrow_schema
from ..phantomwiki.rows import ROWS, Generated
from ..processes import ForkedProcessError, can_fork, parent_gone, quiet_child, receive, sendable

Written = dict[str, tuple[int, float]]
"""Subset -> (rows written, seconds its file took)."""
PARTS_DONE = -1
"""The part index of the job that asks for the file of a subset handed over part by part (its third item: how many)."""


def final_path(out: Path, subset: str, file_format: str) -> Path:
    return out / f"{subset}.{file_format}"


def partial_path(out: Path, subset: str, file_format: str) -> Path:
    """Where a subset's file is written until every file is: hidden, and never a name a reader looks for."""
    return out / f".{subset}.{file_format}.partial"


def write_subset(generated: Generated, subset: str, rows: Iterable[dict] | None, out: Path, file_format: str) -> int:
    """Write one subset's partial file into `out` (`rows`, or those `generated` makes); return its rows."""
    made = ROWS[subset](generated) if rows is None else rows
    schema = arrow_schema(subset, generated.settings)
    return write_rows(made, partial_path(out, subset, file_format), file_format, schema)


def _next_job(jobs: Any) -> Any:
    """The next job, or None once the parent is gone (a writer never outlives the process that forked it)."""
    while True:
        try:
            return jobs.get(timeout=1)
        except queue.Empty:
            if parent_gone():
                return None


class _NoPandas:
    """An import hook that refuses pandas (see `without_pandas`)."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] == "pandas":
            raise ModuleNotFoundError("the forked writer does without pandas", name=name)
        return None


def without_pandas() -> None:
    """In the forked writer only: keep pyarrow from importing pandas, which it does on its first array just to ask
    whether the values are a pandas object (about half a second of a core; ours are lists of dicts). Refused, pandas
    is taken by pyarrow as not installed, and the files are the same; where pandas is already imported, nothing
    changes."""
    if "pandas" not in sys.modules and _NoPandas not in sys.meta_path:
        sys.meta_path.insert(0, _NoPandas)


class _Parts:
    """The parts of the subsets handed over part by part, kept until their file is asked for: as Arrow tables for
    Parquet (each converted as it comes, so the rows are converted while they are made, not after the last), else
    as rows."""

    def __init__(self, generated: Generated, out: Path, file_format: str) -> None:
        self.generated, self.out, self.file_format = generated, out, file_format
        self.kept: dict[str, dict[int, Any]] = {}

    def take(self, subset: str, index: int, rows: list[dict]) -> None:
        if self.file_format == "parquet":
            kept: Any = parquet_part(rows, arrow_schema(subset, self.generated.settings))
            rows.clear()
        else:
            kept = rows
        self.kept.setdefault(subset, {})[index] = kept

    def write(self, subset: str, count: int) -> int:
        """Write `subset`'s partial file from its `count` parts, in order; return its rows."""
        parts = self.kept.pop(subset, {})
        missing = [index for index in range(count) if index not in parts]
        if missing:
            raise RuntimeError(
                f"the writer has no part {missing[0]} of {count} of {subset}; every part must be sent first"
            )
        in_order = (parts.pop(index) for index in range(count))
        if self.file_format == "parquet":
            schema = arrow_schema(subset, self.generated.settings)
            return write_parquet_parts(in_order, partial_path(self.out, subset, self.file_format), schema)
        rows = (row for part in in_order for row in part)
        return write_subset(self.generated, subset, rows, self.out, self.file_format)


def _writer(generated: Generated, out: Path, file_format: str, jobs: Any, sender: Any) -> None:
    """The forked writer: write each (subset, rows or None) from `jobs` until None, keeping the parts of a subset
    handed over part by part ((subset, index, rows)) until (subset, PARTS_DONE, count) asks for their file; then send
    what it wrote, or the first error (the jobs after an error are read and dropped, so the parent never waits on a
    full queue)."""
    quiet_child()
    without_pandas()
    written: Written = {}
    parts = _Parts(generated, out, file_format)
    failed: BaseException | None = None
    while (job := _next_job(jobs)) is not None:
        if failed is not None:
            continue
        began = time.perf_counter()
        try:
            if len(job) == 2:
                count = write_subset(generated, job[0], job[1], out, file_format)
            elif job[1] != PARTS_DONE:
                parts.take(*job)
                continue
            else:
                count = parts.write(job[0], job[2])
            written[job[0]] = (count, time.perf_counter() - began)
        except BaseException as error:  # the parent raises it; the writer never dies silently
            failed = sendable(error)
    try:
        sender.send(failed if failed is not None else written)
    except OSError:  # the parent is gone, or stopped waiting
        pass
    finally:
        sender.close()


class ForkedWriter:
    """Writes subset files into `out`: in a forked process when `processes` > 1 (and the platform forks), else here,
    at once. Use it as a context manager, so that the writer is ended on any error."""

    def __init__(self, generated: Generated, out: Path, file_format: str, processes: int) -> None:
        self.generated, self.out, self.file_format = generated, out, file_format
        self.written: Written = {}
        self._asked: list[str] = []  # the subsets whose partial files may exist
        self._process: Any = None
        self.forked = processes > 1 and can_fork()  # whether a forked process writes the files
        if self.forked:
            context = multiprocessing.get_context("fork")
            self._jobs = context.Queue()
            self._results, sender = context.Pipe(duplex=False)
            self._process = context.Process(
                target=_writer, args=(generated, out, file_format, self._jobs, sender), daemon=True
            )
            self._process.start()
            sender.close()

    def write(self, subset: str, rows: Iterable[dict] | None = None) -> None:
        """Write `subset`'s file: from `rows`, or (None) from the rows the writer's copy of the universe makes, which
        holds the stages run before it forked (the corpus and database need no more)."""
        self._asked.append(subset)
        if self._process is None:
            began = time.perf_counter()
            count = write_subset(self.generated, subset, rows, self.out, self.file_format)
            self.written[subset] = (count, time.perf_counter() - began)
            return
        self._jobs.put((subset, None if rows is None else list(rows)))

    def part(self, subset: str, index: int, rows: list[dict]) -> None:
        """Hand over one part of `subset`'s rows, in any order and from any process forked after this writer (the
        forked row makers send theirs as each is made, so the writer takes them in while the rows are made); the
        file is written by `write_parts`. The writer must be forked."""
        if self._process is None:
            raise RuntimeError("parts go to a forked writer only; write the rows with write() here")
        self._jobs.put((subset, index, rows))

    def flush(self) -> None:
        """In a forked process that handed over parts: wait until they are all in the writer's pipe (a queue sends
        from a thread), so that whatever this process does next comes after them."""
        if self._process is not None:
            self._jobs.close()
            self._jobs.join_thread()

    def watch(self, receiver: Any) -> None:
        """Wait until `receiver` has something to read, while the writer lives: a process handing the writer parts
        waits for it once the queue's pipe is full, so a writer that ended (killed for memory) is raised here, in one
        line, rather than waited for."""
        if self._process is None:
            return
        if receiver not in wait([receiver, self._process.sentinel]):
            self._process.join(timeout=5)
            code = self._process.exitcode
            raise ForkedProcessError(f"the file writer process ended before the rows were made, exit code {code}")

    def write_parts(self, subset: str, count: int) -> None:
        """Write `subset`'s file from its `count` parts, joined in order; every part must be handed over (and flushed,
        by a process that is not this one) before."""
        if self._process is None:
            raise RuntimeError("parts go to a forked writer only; write the rows with write() here")
        self._asked.append(subset)
        self._jobs.put((subset, PARTS_DONE, count))

    def close(self) -> Written:
        """Wait until every file is written and give each its name; return (rows, seconds) per subset, or raise the
        writer's error."""
        if self._process is not None:
            self._jobs.put(None)
            try:
                sent = receive(self._results, self._process, "file writer")
            except BaseException:  # the writer is gone: what the queue still holds will never be read
                self._jobs.cancel_join_thread()
                self._end()
                self.discard()
                raise
            self._end()
            if isinstance(sent, BaseException):
                self.discard()
                raise sent
            self.written.update(sent)
        for subset in self._asked:
            os.replace(partial_path(self.out, subset, self.file_format), final_path(self.out, subset, self.file_format))
        self._asked = []
        return self.written

    def discard(self) -> None:
        """Remove the partial files written so far (an error stopped the writing)."""
        for subset in self._asked:
            partial_path(self.out, subset, self.file_format).unlink(missing_ok=True)
        self._asked = []

    def _end(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        self._jobs.close()
        self._jobs.join_thread()
        self._results.close()
        if process.is_alive():
            process.terminate()
        process.join()

    def __enter__(self) -> ForkedWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is None:
            self.close()
            return
        if self._process is not None:
            self._jobs.cancel_join_thread()  # an error here: the files are not wanted, stop the writer
            self._process.terminate()
            self._end()
        self.discard()
