"""builders/tsv.py, the one reader of the project's TSV data files, and the files it reads."""

from __future__ import annotations

from pathlib import Path

from leakproof_qa.builders.tsv import rows

ROOT = Path(__file__).resolve().parents[1]


def test_a_row_is_each_line_split_at_tabs_blank_lines_and_comments_skipped(tmp_path):
    path = tmp_path / "table.tsv"
    path.write_bytes("# name\tvalue\n\nsister\tune s\u0153ur\n\nempty\t\t\n  # indented is data\tx\n".encode())
    assert rows(path) == [["sister", "une s\u0153ur"], ["empty", "", ""], ["  # indented is data", "x"]]


def test_every_tsv_data_file_reads_to_rows_of_one_width():
    found = sorted(p for p in ROOT.glob("*/**/data/*.tsv") if ".venv" not in p.parts)
    assert len(found) >= 6
    for path in found:
        widths = {len(row) for row in rows(path)}
        assert len(widths) == 1 and widths.pop() >= 2, path.relative_to(ROOT)
