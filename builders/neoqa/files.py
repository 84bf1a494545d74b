"""A generated configuration's subsets as Parquet files: every timeline generated once for all subsets, rows turned
into Arrow by columns, blocks of timelines written in parallel, the same bytes whatever the number of processes.

    {subset}/test-00000-of-0000N.parquet     one file per block of BLOCK_TIMELINES timelines, per subset

A block is the unit of work and of files. Its timelines are generated one at a time (every subset's rows of a
timeline from one generation, `subset_rows`); each subset's rows of TIMELINES_PER_TABLE timelines become one Arrow
table (builders/arrow_columns.py); the tables go into the block's file of that subset in row groups of about
ROW_GROUP_BYTES. No column statistics are written (a third of Parquet's work on the instances' texts, and no reader
of these files asks for them). A block's files depend on the settings and the block's number only, so whichever
process (or Ray worker) writes a block, and however many there are, the files are the same bytes. Plain
`datasets.load_dataset("parquet", data_files=...)` reads them with the face's features (they are in each file's
metadata). Nothing here imports `datasets`: the face hands over the schemas and its JSON encoder (`Schemas`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from .. import arrow_columns
from .generate import shown_documents, subset_rows
from .settings import INSTANCE_SUBSETS, SPLIT, SUBSETS, Settings

BLOCK_TIMELINES = 50
"""Timelines per block: per file of each subset, and per task when a cluster writes one configuration."""
TIMELINES_PER_TABLE = 5
"""Timelines whose rows become Arrow together: fewer, larger conversions (a fifth less work than one at a time),
while the rows held stay small."""
ROW_GROUP_BYTES = 64 << 20
"""A row group closes once its Arrow bytes reach this (or ROW_GROUP_ROWS rows), at a table's end."""
ROW_GROUP_ROWS = 10_000
DICTIONARY_PAGE_BYTES = 32 << 20
"""Parquet keeps dictionary-encoding a column chunk until its dictionary reaches this (pyarrow's default is 1 MiB):
a row group of instances repeats a few thousand distinct article lines many times, so their dictionary keeps the
file small (half the size) and the writing shorter than falling back to plain pages."""


@dataclass(frozen=True)
class Schemas:
    """What the face decides about the files: each subset's Arrow schema to convert rows to (JSON fields as the
    `arrow.json` type, which arrow_columns encodes with `json_text`) and to write (its `datasets` features' schema,
    the features in the metadata; the same types, or JSON as text where that `datasets` stores it so)."""

    arrow: Mapping[str, pa.Schema]
    files: Mapping[str, pa.Schema]
    json_text: arrow_columns.JsonText
    include_documents: bool = True


def block_count(settings: Settings) -> int:
    """How many blocks (and files per subset) a configuration has."""
    return -(-settings.timelines // BLOCK_TIMELINES)


def block_timelines(settings: Settings, block: int) -> range:
    """The timelines of block `block`."""
    return range(block * BLOCK_TIMELINES, min(settings.timelines, (block + 1) * BLOCK_TIMELINES))


def shard_name(subset: str, block: int, blocks: int) -> str:
    """A block's file of `subset`, relative to the configuration's folder."""
    return f"{subset}/{SPLIT}-{block:05d}-of-{blocks:05d}.parquet"


def timeline_tables(
    settings: Settings, timelines: Sequence[int], subsets: Sequence[str], schemas: Schemas
) -> dict[str, pa.Table]:
    """The rows of `timelines` of each subset as one Arrow table per subset, each timeline generated once."""
    wanted = tuple(subsets) + (("news",) if set(subsets) & set(INSTANCE_SUBSETS) and "news" not in subsets else ())
    rows: dict[str, list[dict[str, Any]]] = {subset: [] for subset in subsets}
    documents: dict[str, list[list[dict[str, Any]]]] = {subset: [] for subset in subsets}
    for index in timelines:
        made = subset_rows(settings, index, wanted)
        for subset in subsets:
            rows[subset] += made[subset]
            if subset in INSTANCE_SUBSETS:
                documents[subset] += shown_documents(made[subset], made["news"], schemas.include_documents)
    return {
        subset: arrow_columns.table(
            rows[subset],
            schemas.arrow[subset],
            schemas.json_text,
            {"documents": documents[subset]} if subset in INSTANCE_SUBSETS else None,
        )
        for subset in subsets
    }


class _GroupedWriter:
    """One Parquet file written in row groups of about ROW_GROUP_BYTES, each closed at a table's end."""

    def __init__(self, path: Path, schema: pa.Schema) -> None:
        self.schema = schema
        self.writer = pq.ParquetWriter(
            path, self.schema, write_statistics=False, dictionary_pagesize_limit=DICTIONARY_PAGE_BYTES
        )
        self.pending: list[pa.Table] = []
        self.rows = self.pending_rows = self.pending_bytes = 0

    def add(self, table: pa.Table) -> None:
        self.pending.append(table.cast(self.schema))
        self.rows += table.num_rows
        self.pending_rows += table.num_rows
        self.pending_bytes += table.get_total_buffer_size()
        if self.pending_bytes >= ROW_GROUP_BYTES or self.pending_rows >= ROW_GROUP_ROWS:
            self._flush()

    def _flush(self) -> None:
        if self.pending_rows:
            group = pa.concat_tables(self.pending)
            self.writer.write_table(group, row_group_size=group.num_rows)
        self.pending, self.pending_rows, self.pending_bytes = [], 0, 0

    def close(self) -> int:
        self._flush()
        self.writer.close()
        return self.rows


def write_block(
    settings: Settings, block: int, subsets: Sequence[str], schemas: Schemas, folder: str | os.PathLike[str]
) -> dict[str, int]:
    """Write block `block`'s file of each subset into `folder`; return the rows written per subset."""
    folder = Path(folder)
    blocks = block_count(settings)
    writers = {}
    for subset in subsets:
        path = folder / shard_name(subset, block, blocks)
        path.parent.mkdir(parents=True, exist_ok=True)
        writers[subset] = _GroupedWriter(path, schemas.files[subset])
    try:
        timelines = block_timelines(settings, block)
        for start in range(0, len(timelines), TIMELINES_PER_TABLE):
            group = timelines[start : start + TIMELINES_PER_TABLE]
            for subset, table in timeline_tables(settings, group, subsets, schemas).items():
                writers[subset].add(table)
    finally:
        rows = {subset: writer.close() for subset, writer in writers.items()}
    return rows  # Arrow's freed memory is kept for the next block (returning it costs a tenth of the build)


def _write_block_job(job: tuple[Settings, int, Sequence[str], Schemas, str]) -> tuple[int, dict[str, int]]:
    return job[1], write_block(*job)


def each_block(
    settings: Settings, subsets: Sequence[str], schemas: Schemas, folder: Path, processes: int
) -> Iterator[tuple[int, dict[str, int]]]:
    """Write every block into `folder`, in `processes` processes (forked where the platform allows, so that the
    schemas and the JSON encoder need not be importable by name); yield (block, rows per subset) as each ends."""
    jobs = [(settings, block, tuple(subsets), schemas, str(folder)) for block in range(block_count(settings))]
    if processes <= 1 or len(jobs) <= 1:
        yield from map(_write_block_job, jobs)
        return
    import multiprocessing

    from ..processes import can_fork

    context = multiprocessing.get_context("fork" if can_fork() else "spawn")
    with context.Pool(min(processes, len(jobs))) as pool:
        yield from pool.imap_unordered(_write_block_job, jobs)


def write_configuration(
    settings: Settings,
    subsets: Sequence[str],
    schemas: Schemas,
    out: str | os.PathLike[str],
    processes: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, int]:
    """Write every block of `subsets` into a hidden work folder beside their place in `out`, then give each subset's
    folder its place (replacing one there): an error or a kill on the way leaves no subset half written. Return the
    rows written per subset; `progress(blocks done, blocks)` is told as blocks end."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    work = out / f".generating-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    try:
        rows = dict.fromkeys(subsets, 0)
        blocks = block_count(settings)
        for done, (_, written) in enumerate(each_block(settings, subsets, schemas, work, processes), 1):
            for subset, count in written.items():
                rows[subset] += count
            if progress is not None:
                progress(done, blocks)
        for subset in subsets:
            shutil.rmtree(out / subset, ignore_errors=True)
            os.replace(work / subset, out / subset)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows


def ordered_subsets(subsets: Iterable[str] | None) -> list[str]:
    """The chosen subsets in their canonical order (all when None)."""
    chosen = set(SUBSETS if subsets is None else subsets)
    return [subset for subset in SUBSETS if subset in chosen]


def subset_files(folder: str | os.PathLike[str], subset: str) -> list[str]:
    """The files of one subset in a configuration's folder, in order (for `load_dataset("parquet", ...)`)."""
    return sorted(str(path) for path in (Path(folder) / subset).glob(f"{SPLIT}-*.parquet"))


def read_tables(folder: str | os.PathLike[str], subset: str) -> Iterator[pa.Table]:
    """A written subset's row groups as Arrow tables, in order (publishing re-shards them)."""
    for path in subset_files(folder, subset):
        parquet = pq.ParquetFile(path)
        for group in range(parquet.num_row_groups):
            yield parquet.read_row_group(group)
