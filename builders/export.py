"""Write dataset rows as Parquet (with the `datasets` features in its schema, so plain load_dataset reads it) or
JSONL."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa

FORMATS = ("parquet", "jsonl")
ROWS_PER_GROUP = 10_000
WHOLE_FILE_COLUMN = "content"
"""The column of a table whose one value is a whole file (the database's Prolog program, 300 MB at a million people).
Parquet keeps no min / max of a value above 4 KB and a dictionary of one value saves nothing, but pyarrow would copy
the value several times to try both, so such a table is written without either."""


def writer_options(schema: pa.Schema) -> dict[str, bool]:
    """ParquetWriter options: pyarrow's defaults, but no statistics or dictionary for a whole-file table."""
    if schema.names == [WHOLE_FILE_COLUMN]:
        return {"write_statistics": False, "use_dictionary": False}
    return {}


def _batches(rows: Iterable[dict], size: int) -> Iterator[list[dict]]:
    iterator = iter(rows)
    while batch := list(islice(iterator, size)):
        yield batch


def write_rows(rows: Iterable[dict], path: Path, file_format: str, schema: pa.Schema) -> int:
    """Write `rows` to `path` in `file_format`; return how many were written."""
    if file_format not in FORMATS:
        raise ValueError(f"unknown format {file_format!r}: expected one of {', '.join(FORMATS)}")
    count = 0
    if file_format == "jsonl":
        with open(path, "w", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                count += 1
        return count
    import pyarrow as pa  # here, so the command line's --help never loads Arrow
    import pyarrow.parquet as pq

    with pq.ParquetWriter(path, schema, **writer_options(schema)) as writer:
        for batch in _batches(rows, ROWS_PER_GROUP):
            table = pa.Table.from_pylist(batch, schema=schema)
            count += len(batch)
            batch.clear()  # the rows' Python objects go before Parquet encodes (a database row is 300 MB at 1M)
            writer.write_table(table)
    if count == 0:  # ParquetWriter wrote the schema only; that is a valid empty table
        pq.write_table(schema.empty_table(), path)
    pa.default_memory_pool().release_unused()  # Arrow's allocator keeps freed pages; the next stage wants them back
    return count


def parquet_part(rows: list[dict], schema: pa.Schema) -> pa.Table:
    """One part of a subset's rows as an Arrow table, for `write_parquet_parts` (a writer converts each part as it
    comes, so that less is left to do once the last has come)."""
    import pyarrow as pa

    return pa.Table.from_pylist(rows, schema=schema)


def write_parquet_parts(parts: Iterable[pa.Table], path: Path, schema: pa.Schema) -> int:
    """Write the rows of `parts` (parquet_part tables, in order) to `path` as Parquet, the same bytes as write_rows
    writes of their rows: the same row groups, each one contiguous table; return how many rows were written."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = list(parts)
    whole = pa.concat_tables(tables) if tables else schema.empty_table()
    del tables
    count = whole.num_rows
    with pq.ParquetWriter(path, schema, **writer_options(schema)) as writer:
        for start in range(0, count, ROWS_PER_GROUP):
            writer.write_table(whole.slice(start, ROWS_PER_GROUP).combine_chunks())
    del whole
    if count == 0:  # as write_rows: the schema's empty table
        pq.write_table(schema.empty_table(), path)
    pa.default_memory_pool().release_unused()
    return count
