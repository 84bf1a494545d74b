"""Stream rows into Parquet shards of bounded size, plain or sealed, hashing every byte as it is written.

A shard is closed once its bytes reach the limit, so a subset of any size is written with one
batch of rows in memory.  Each shard's schema carries the `datasets` features (in the form every
`datasets` version from 2.x on reads) and the canary string in its key-value metadata.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from leakproof_qa.encryption.aead_stream import SALT_SIZE, SealWriter, Sink

from ..export import writer_options

MAX_SHARD_BYTES = 250 * 1000 * 1000
ROWS_PER_BATCH = 10_000  # at most; fewer when rows are large (an instance carries 20 articles)
BATCH_BYTES = 64 << 20  # Arrow bytes of one batch (one row group), so a batch of large rows stays small
FIRST_BATCH = 1_000  # rows of the first batch, which measures how large the rows are
PLAIN_SUFFIX = ".parquet"
SEALED_SUFFIX = ".parquet-aead"  # no `.parquet` extension of its own: `datasets` must not take it for data
_SALT_LABEL = b"leakproof-qa shard salt v1\0"


@dataclass(frozen=True)
class Shard:
    """One written file: where it is in the release, its rows, and digests of what was published and sealed."""

    path: str  # relative to the release folder, with "/" separators
    rows: int
    size: int
    sha256: str
    plaintext_size: int | None = None  # sealed shards: the Parquet bytes inside
    plaintext_sha256: str | None = None


def legacy_features(features: dict[str, Any]) -> dict[str, Any]:
    """`datasets` features as a dict, lists written `[feature]` (what `datasets` 2.x and 3.x read; 4.x and 5.x too)."""

    def convert(value: Any) -> Any:
        if isinstance(value, dict):
            if value.get("_type") == "List" and value.get("length", -1) == -1:
                return [convert(value["feature"])]
            return {key: convert(item) for key, item in value.items()}
        if isinstance(value, list):
            return [convert(item) for item in value]
        return value

    return convert(features)


PLACE_KEY = b"leakproof_qa"  # key-value metadata naming the configuration a shard belongs to


def shard_schema(schema: pa.Schema, features: dict[str, Any], canary: str, config_name: str | None = None) -> pa.Schema:
    """`schema` with the `datasets` features, the canary and (for a release) the shard's configuration as metadata.

    The configuration travels inside the Parquet bytes (inside the authenticated plaintext of a sealed shard), so a
    loader can tell a shard that was swapped or renamed into another configuration's place.
    """
    info = json.dumps({"info": {"features": legacy_features(features)}}, sort_keys=True)
    metadata = {b"huggingface": info.encode(), b"canary": canary.encode()}
    if config_name is not None:
        metadata[PLACE_KEY] = json.dumps({"config_name": config_name}, sort_keys=True).encode()
    return schema.with_metadata(metadata)


def shard_place(path: Path) -> tuple[str | None, int]:
    """(the configuration a shard says it belongs to, or None for a shard written without one; its rows)."""
    metadata = pq.read_metadata(path)
    place = (metadata.metadata or {}).get(PLACE_KEY)
    return (json.loads(place)["config_name"] if place else None), metadata.num_rows


def shard_salt(name: str) -> bytes:
    """A per-file salt that depends only on the shard's place in the release, so re-publishing gives the same bytes."""
    return hashlib.sha256(_SALT_LABEL + name.encode()).digest()[:SALT_SIZE]


class _Digesting:
    """A write-only binary sink that hashes and counts what passes on to `target`."""

    def __init__(self, target: Sink) -> None:
        self.target = target
        self.digest = hashlib.sha256()
        self.size = 0
        self.closed = False

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:
        self.digest.update(data)
        self.size += len(data)
        self.target.write(data)
        return len(data)

    def tell(self) -> int:
        return self.size

    def flush(self) -> None:
        self.target.flush()

    def close(self) -> None:
        self.closed = True


class _OpenShard:
    """One shard being written: the file, the optional sealing layer, the Parquet writer and two digests."""

    def __init__(self, path: Path, schema: pa.Schema, passphrase: str | None, salt_name: str) -> None:
        self.path = path
        self.file = open(path, "wb")
        self.published = _Digesting(self.file)
        self.sealer = SealWriter(self.published, passphrase, shard_salt(salt_name)) if passphrase else None
        self.plain = _Digesting(self.sealer or self.published)
        self.writer = pq.ParquetWriter(self.plain, schema, **writer_options(schema))
        self.rows = 0
        self.groups = 0

    def write(self, table: pa.Table) -> None:
        self.writer.write_table(table)  # one row group, flushed to the sink at once
        self.rows += table.num_rows
        self.groups += 1

    def finish(self) -> int:
        """Write the Parquet footer and the last sealed chunk; return the footer's size in bytes."""
        before = self.plain.size
        self.writer.close()
        if self.sealer:
            self.sealer.close()
        self.file.close()
        return self.plain.size - before

    def abandon(self) -> None:
        self.file.close()
        self.path.unlink(missing_ok=True)


def _next_size(table: pa.Table, most: int) -> int:
    """Rows of the next batch: about BATCH_BYTES by the size of the rows of `table`, at most `most`."""
    return max(1, min(most, int(BATCH_BYTES * table.num_rows / max(table.nbytes, 1))))


def _tables(rows: Iterable[dict], schema: pa.Schema, most: int) -> Iterator[pa.Table]:
    """Arrow tables of at most `most` rows and about BATCH_BYTES each, sized by the rows seen so far."""
    iterator = iter(rows)
    size = min(most, FIRST_BATCH)
    while batch := list(islice(iterator, size)):
        table = pa.Table.from_pylist(batch, schema=schema)
        del batch
        size = _next_size(table, most)
        yield table


def rebatched(tables: Iterable[pa.Table], schema: pa.Schema, most: int = ROWS_PER_BATCH) -> Iterator[pa.Table]:
    """The rows of `tables` (in order, cast to `schema`) in the batches `_tables` would make of them as rows: the
    same shards, byte for byte, from Arrow made elsewhere (builders/neoqa/files.py's fast writer)."""
    pending: list[pa.Table] = []
    held = 0
    size = min(most, FIRST_BATCH)
    for table in tables:
        pending.append(table.cast(schema))
        held += table.num_rows
        while held >= size:
            whole = pa.concat_tables(pending)
            batch = whole.slice(0, size).combine_chunks()
            pending, held = [whole.slice(size)], held - size
            size = _next_size(batch, most)
            yield batch
    if held:
        yield pa.concat_tables(pending).combine_chunks()


def write_shards(
    rows: Iterable[dict],
    folder: Path,
    stem: str,
    schema: pa.Schema,
    *,
    passphrase: str | None = None,
    max_bytes: int = MAX_SHARD_BYTES,
    rows_per_batch: int = ROWS_PER_BATCH,
    tables: Iterable[pa.Table] | None = None,
) -> list[Shard]:
    """Write `rows` to `folder/{stem}-00000-of-0000N{suffix}` shards of at most about `max_bytes` each.

    No rows, no shard: `datasets` cannot load a split without rows, so an empty subset is not published.

    `stem` is relative to `folder` (e.g. ``n5000_s1_corpus/test``).  Before a batch goes into a shard, its
    Parquet size is estimated from the compression seen so far, and the footer from the footers written so
    far; a shard that it would push past the limit is closed first, and a batch larger than a tenth of the
    limit is written in slices. `tables` (Arrow batches made elsewhere, see `rebatched`) stand in for `rows`.
    """
    suffix = SEALED_SUFFIX if passphrase else PLAIN_SUFFIX
    (folder / stem).parent.mkdir(parents=True, exist_ok=True)
    finished: list[tuple[Path, _OpenShard]] = []
    current: _OpenShard | None = None
    ratio = 1.0  # Parquet bytes per Arrow byte, learnt as shards are written
    footer_per_group = 4096.0  # footer bytes per row group, learnt from each finished shard
    arrow_bytes = parquet_bytes = 0

    def open_next() -> _OpenShard:
        name = f"{stem}-{len(finished):05d}"
        return _OpenShard(folder / f"{name}.partial", schema, passphrase, name)

    try:
        for table in _tables(rows, schema, rows_per_batch) if tables is None else tables:
            pieces = max(1, -(-int(table.nbytes * ratio) // (max_bytes // 10)))
            step = -(-table.num_rows // pieces)
            for start in range(0, table.num_rows, step):
                piece = table.slice(start, step)
                if (
                    current is not None
                    and current.rows
                    and (
                        current.plain.size + piece.nbytes * ratio + (current.groups + 1) * footer_per_group > max_bytes
                    )
                ):
                    footer_per_group = current.finish() / current.groups
                    finished.append((current.path, current))
                    current = None
                current = current or open_next()
                before = current.plain.size
                current.write(piece)
                arrow_bytes += piece.nbytes
                parquet_bytes += current.plain.size - before
                ratio = parquet_bytes / arrow_bytes if arrow_bytes else ratio
        if current is not None:
            current.finish()
            finished.append((current.path, current))
            current = None
    except BaseException:
        if current is not None:
            current.abandon()
        for path, _ in finished:
            path.unlink(missing_ok=True)
        raise
    shards = []
    total = len(finished)
    for index, (partial, shard) in enumerate(finished):
        final = folder / f"{stem}-{index:05d}-of-{total:05d}{suffix}"
        os.replace(partial, final)
        shards.append(
            Shard(
                path=final.relative_to(folder).as_posix(),
                rows=shard.rows,
                size=shard.published.size,
                sha256=shard.published.digest.hexdigest(),
                plaintext_size=shard.plain.size if passphrase else None,
                plaintext_sha256=shard.plain.digest.hexdigest() if passphrase else None,
            )
        )
    return shards
