"""`python -m neoqa generate NAME --out DIR`: every subset as Parquet that plain `datasets` reads back as
`neoqa.load_dataset` gives it, the same bytes whatever the number of processes, nothing half written."""

from __future__ import annotations

import hashlib
from pathlib import Path

import datasets
import pyarrow as pa
import pytest

import neoqa
from leakproof_qa.builders import arrow_columns
from leakproof_qa.builders.neoqa import files
from leakproof_qa.builders.neoqa.settings import SUBSETS, settings_from
from leakproof_qa.builders.publishing.neoqa_generated import _storage


def digests(folder: Path) -> dict[str, str]:
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of two timelines, so that a small configuration has several blocks (and files per subset)."""
    monkeypatch.setattr(files, "BLOCK_TIMELINES", 2)


def test_plain_datasets_reads_every_subset_back_as_load_dataset_gives_it(tmp_path):
    assert neoqa.main(["generate", "t3_s2", "--out", str(tmp_path / "out"), "--num-proc", "1"]) == 0
    for subset in SUBSETS:
        plain = datasets.load_dataset(
            "parquet",
            data_files={"test": files.subset_files(tmp_path / "out", subset)},
            split="test",
            cache_dir=str(tmp_path / "plain"),
        )
        ours = neoqa.load_dataset(f"t3_s2_{subset}", split="test", cache_dir=str(tmp_path / "ours"))
        assert plain.features == ours.features, subset
        assert plain.to_list() == ours.to_list(), subset


def test_the_files_are_the_same_bytes_with_one_process_or_two(tmp_path, small_blocks):
    settings, _ = settings_from("t5_s1")
    schemas = neoqa.file_schemas()
    one = files.write_configuration(settings, SUBSETS, schemas, tmp_path / "one", processes=1)
    two = files.write_configuration(settings, SUBSETS, schemas, tmp_path / "two", processes=2)
    assert one == two and one["news"] > 0
    assert digests(tmp_path / "one") == digests(tmp_path / "two")
    assert len(files.subset_files(tmp_path / "one", "news")) == 3  # 5 timelines in blocks of 2
    assert not [p for p in (tmp_path / "one").iterdir() if p.name.startswith(".")]  # no work folder left


def test_a_block_that_fails_leaves_no_subset_behind(tmp_path, small_blocks, monkeypatch):
    settings, _ = settings_from("t5_s1")
    written = files.write_block

    def failing(settings, block, *args):
        if block == 1:
            raise RuntimeError("the disk is full")
        return written(settings, block, *args)

    monkeypatch.setattr(files, "write_block", failing)
    with pytest.raises(RuntimeError, match="the disk is full"):
        files.write_configuration(settings, SUBSETS, neoqa.file_schemas(), tmp_path, processes=1)
    assert list(tmp_path.iterdir()) == []


def test_generate_refuses_in_one_line(tmp_path, capsys):
    out = tmp_path / "out"
    assert neoqa.main(["generate", "t2_s1", "--out", str(out), "--subsets", "news"]) == 0
    for argv, says in [
        (["generate", "t2_s1", "--out", str(out), "--subsets", "news"], "already holds news; pass --overwrite"),
        (["generate", "t2_s1_news", "--out", str(out)], "give 't2_s1'; choose --subsets"),
        (["generate", "t2_s1", "--out", str(out), "--num-proc", "0"], "--num-proc 0 must be at least 1"),
    ]:
        with pytest.raises(SystemExit) as exit_:
            neoqa.main(argv)
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1
    assert neoqa.main(["generate", "t2_s1", "--out", str(out), "--subsets", "news", "--overwrite"]) == 0


# ------------------------------------------------------------------ rows to Arrow by columns

SCHEMA = pa.schema(
    [
        ("name", pa.string()),
        ("meta", pa.json_()),
        ("docs", pa.list_(pa.struct([("id", pa.string()), ("lines", pa.list_(pa.string())), ("extra", pa.json_())]))),
        ("counts", pa.list_(pa.int32())),
    ]
)


def rows_sharing_documents() -> list[dict]:
    a = {"id": "a", "lines": ["one", "two"], "extra": {"k": [1, 2]}}
    b = {"id": "b", "lines": [], "extra": None}
    return [
        {"name": "x", "meta": {"v": "p/q"}, "docs": [a, b, a], "counts": [1, 2]},
        {"name": None, "meta": None, "docs": [], "counts": None},
        {"name": "z", "meta": [1, "é"], "docs": [b, a], "counts": []},
    ]


def by_rows(rows: list[dict]) -> pa.Table:
    """The same rows converted one at a time, JSON fields encoded first: what a row-by-row writer gives."""

    def encoded(row: dict) -> dict:
        docs = row["docs"]
        return {
            **row,
            "meta": None if row["meta"] is None else neoqa.json_text(row["meta"]),
            "docs": [{**d, "extra": None if d["extra"] is None else neoqa.json_text(d["extra"])} for d in docs],
        }

    plain = pa.schema([(f.name, _storage(f.type)) for f in SCHEMA])
    return pa.Table.from_pylist([encoded(row) for row in rows], schema=plain)


def test_columns_give_the_values_a_row_by_row_conversion_gives():
    rows = rows_sharing_documents()
    made = arrow_columns.table(rows, SCHEMA, neoqa.json_text)
    assert made.schema == SCHEMA
    assert made.cast(by_rows(rows).schema).equals(by_rows(rows))


def test_a_shared_object_is_converted_once_and_repeated_by_value():
    rows = rows_sharing_documents()
    unshared = [{**row, "docs": [dict(d) for d in row["docs"]]} for row in rows]
    assert arrow_columns.table(rows, SCHEMA, neoqa.json_text).equals(
        arrow_columns.table(unshared, SCHEMA, neoqa.json_text)
    )


@pytest.mark.parametrize("subset, shard_bytes", [("questions", 20_000), ("neoqa", 200_000)])
def test_publish_cuts_the_fast_arrow_into_the_shards_rows_made_one_at_a_time_give(tmp_path, subset, shard_bytes):
    """`python -m neoqa publish` reads the fast writer's files back and cuts them into the batches and shards that
    rows encoded one at a time (`Features.encode_example`, its former path) give: the same bytes."""
    from leakproof_qa.builders.neoqa.generate import GeneratedSplit
    from leakproof_qa.builders.publishing.neoqa_generated import plain_schema
    from leakproof_qa.builders.publishing.shards import rebatched, shard_schema, write_shards

    settings, _ = settings_from("t3_s1")
    features = neoqa.FEATURES[subset]
    schema = shard_schema(plain_schema(features.arrow_schema), features.to_dict(), "canary", subset)
    encoded = (features.encode_example(row) for row in GeneratedSplit(settings, subset))
    by_rows = write_shards(encoded, tmp_path / "rows", "test", schema, rows_per_batch=50, max_bytes=shard_bytes)
    files.write_configuration(settings, [subset], neoqa.file_schemas(), tmp_path / "fast")
    tables = rebatched(files.read_tables(tmp_path / "fast", subset), schema, 50)
    by_tables = write_shards(
        [], tmp_path / "tables", "test", schema, rows_per_batch=50, max_bytes=shard_bytes, tables=tables
    )
    assert len(by_rows) > 1 and [s.sha256 for s in by_tables] == [s.sha256 for s in by_rows]
