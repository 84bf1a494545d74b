"""Subset files written by a forked writer are the files written here; its errors are raised here."""

from __future__ import annotations

import pytest

from leakproof_qa.builders.cli.forked_rows import can_fork
from leakproof_qa.builders.cli.forked_writer import ForkedWriter, write_subset
from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.rows import ROWS, generate

pytestmark = pytest.mark.skipif(not can_fork(), reason="the writer is forked")


@pytest.mark.parametrize("file_format", ["parquet", "jsonl"])
def test_the_forked_writer_writes_the_files_written_here(tmp_path, file_format):
    for processes in (1, 2):
        out = tmp_path / str(processes)
        out.mkdir()
        generated = generate(settings_from("n80_s4", questions_per_template=1)[0], with_questions=False)
        with ForkedWriter(generated, out, file_format, processes) as writer:
            assert writer.forked == (processes == 2)
            writer.write("corpus")  # from the writer's own copy of the universe and its articles
            writer.write("database")
            sampled = generate(settings_from("n80_s4", questions_per_template=1)[0])
            writer.write("questions", ROWS["questions"](sampled))  # rows made here, handed over
            written = writer.close()
        assert {subset: count for subset, (count, _) in written.items()} == {
            "corpus": 80,
            "database": 1,
            "questions": len(sampled.questions),
        }
    for subset in ("corpus", "database", "questions"):
        name = f"{subset}.{file_format}"
        assert (tmp_path / "2" / name).read_bytes() == (tmp_path / "1" / name).read_bytes(), subset


def test_an_error_of_the_writer_is_raised_here_when_it_closes(tmp_path):
    generated = generate(settings_from("n40_s1")[0], with_questions=False)
    with ForkedWriter(generated, tmp_path / "no such folder", "parquet", 2) as writer:
        writer.write("corpus")
        writer.write("database")  # read and dropped after the first error
        with pytest.raises(FileNotFoundError, match="no such folder"):
            writer.close()


def test_an_error_here_ends_the_writer(tmp_path):
    generated = generate(settings_from("n40_s1")[0], with_questions=False)
    with pytest.raises(RuntimeError, match="stop"), ForkedWriter(generated, tmp_path, "parquet", 2) as writer:
        writer.write("corpus")
        process = writer._process
        raise RuntimeError("stop")
    assert not process.is_alive()


@pytest.mark.parametrize("file_format", ["parquet", "jsonl"])
def test_parts_handed_over_in_any_order_make_the_file_of_the_rows_in_order(tmp_path, file_format):
    generated = generate(settings_from("n80_s4", questions_per_template=1)[0])
    rows = list(ROWS["questions"](generated))
    cut = [0, 7, 7, len(rows) // 2, len(rows)]  # an empty part too
    (tmp_path / "whole").mkdir()
    (tmp_path / "parts").mkdir()
    write_subset(generated, "questions", rows, tmp_path / "whole", file_format)
    with ForkedWriter(generated, tmp_path / "parts", file_format, 2) as writer:
        for index in (3, 0, 2, 1):
            writer.part("questions", index, rows[cut[index] : cut[index + 1]])
        writer.write_parts("questions", 4)
        assert writer.close()["questions"][0] == len(rows)
    parts = (tmp_path / "parts" / f"questions.{file_format}").read_bytes()
    assert parts == (tmp_path / "whole" / f".questions.{file_format}.partial").read_bytes()


def test_parquet_parts_make_the_row_groups_the_rows_make(tmp_path, monkeypatch):
    """Parts converted to Arrow one by one and joined give the bytes write_rows gives, row group by row group (a
    group here of 7 rows, so that groups straddle parts)."""
    from leakproof_qa.builders import export
    from leakproof_qa.builders.phantomwiki.features import arrow_schema
    from leakproof_qa.builders.phantomwiki.rows import part_of

    monkeypatch.setattr(export, "ROWS_PER_GROUP", 7)
    generated = generate(settings_from("n80_s4", questions_per_template=1)[0])
    rows = list(ROWS["questions"](generated))
    schema = arrow_schema("questions", generated.settings)
    export.write_rows(rows, tmp_path / "rows.parquet", "parquet", schema)
    for count in (1, 5, 16):
        parts = [export.parquet_part(list(part_of(rows, (index, count))), schema) for index in range(count)]
        assert export.write_parquet_parts(parts, tmp_path / "parts.parquet", schema) == len(rows)
        assert (tmp_path / "parts.parquet").read_bytes() == (tmp_path / "rows.parquet").read_bytes(), count
    export.write_rows([], tmp_path / "rows.parquet", "parquet", schema)
    assert export.write_parquet_parts([export.parquet_part([], schema)], tmp_path / "parts.parquet", schema) == 0
    assert (tmp_path / "parts.parquet").read_bytes() == (tmp_path / "rows.parquet").read_bytes()


def test_a_part_never_handed_over_is_an_error_at_close_and_leaves_no_file(tmp_path):
    generated = generate(settings_from("n40_s1")[0])
    with ForkedWriter(generated, tmp_path, "parquet", 2) as writer:
        writer.part("questions", 0, list(ROWS["questions"](generated)))
        writer.write_parts("questions", 2)
        with pytest.raises(RuntimeError, match="no part 1 of 2 of questions"):
            writer.close()
    assert list(tmp_path.iterdir()) == []


def test_parts_go_to_a_forked_writer_only(tmp_path):
    generated = generate(settings_from("n40_s1")[0], with_questions=False)
    with ForkedWriter(generated, tmp_path, "parquet", 1) as writer, pytest.raises(RuntimeError, match="forked writer"):
        writer.part("corpus", 0, [])


WRITE_WITHOUT_PANDAS = """
import sys
from pathlib import Path
from leakproof_qa.builders.cli.forked_writer import without_pandas, write_subset
from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.rows import generate

without_pandas()
generated = generate(settings_from("n80_s4", questions_per_template=1)[0])
for subset in ("corpus", "database", "questions"):
    write_subset(generated, subset, None, Path(sys.argv[1]), "parquet")
print("pandas imported" if "pandas" in sys.modules else "no pandas")
"""


def test_the_writer_writes_the_same_parquet_without_importing_pandas(tmp_path):
    """pyarrow imports pandas on its first array only to ask whether the values are pandas objects; the writer
    refuses it that import (half a second of a core) and its files keep their bytes."""
    import subprocess
    import sys

    from leakproof_qa.builders.cli.forked_writer import partial_path, write_subset

    (tmp_path / "without").mkdir()
    (tmp_path / "with").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", WRITE_WITHOUT_PANDAS, str(tmp_path / "without")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "no pandas"
    generated = generate(settings_from("n80_s4", questions_per_template=1)[0])
    for subset in ("corpus", "database", "questions"):
        write_subset(generated, subset, None, tmp_path / "with", "parquet")
        without = partial_path(tmp_path / "without", subset, "parquet").read_bytes()
        assert without == partial_path(tmp_path / "with", subset, "parquet").read_bytes(), subset
