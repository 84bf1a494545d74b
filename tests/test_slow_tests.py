"""tests/data/slow_tests.tsv, the tests marked slow apart from their files: each row names a test that exists, and the
mark reaches exactly the tests a row names."""

from __future__ import annotations

import re
from pathlib import Path

from leakproof_qa.builders.tsv import rows
from tests.conftest import SLOW_TESTS, slow_listed

ROOT = Path(__file__).resolve().parents[1]


def test_each_row_names_a_test_file_or_a_test_function_that_exists():
    for test, seconds, why in rows(SLOW_TESTS):
        path, _, name = test.partition("::")
        assert (ROOT / path).is_file(), test
        function = re.split(r"[\[]", name)[0]
        if function:
            assert f"def {function}(" in (ROOT / path).read_text(encoding="utf-8"), test
        assert float(seconds) > 0 and why, test


def test_a_row_names_its_file_its_test_or_its_parameters_and_nothing_else():
    listed = ["tests/a/test_x.py", "tests/b/test_y.py::test_one", "tests/c/test_z.py::test_two[16384-"]
    assert slow_listed("tests/a/test_x.py::test_anything[1]", listed)
    assert slow_listed("tests/b/test_y.py::test_one[p]", listed) and slow_listed("tests/b/test_y.py::test_one", listed)
    assert not slow_listed("tests/b/test_y.py::test_one_more", listed)
    assert slow_listed("tests/c/test_z.py::test_two[16384-0.5]", listed)
    assert not slow_listed("tests/c/test_z.py::test_two[4096-0.5]", listed)
    assert not slow_listed("tests/a/test_x2.py::test_anything", listed)
