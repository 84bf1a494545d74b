"""Long benchmarks say what they are doing while they run (issue 29): each stage of phantomwiki_bench as it begins,
each engine and query kind of retrieval_bench and how far its slow engine is; the tables stay on stdout."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"

pytestmark = pytest.mark.integration


def run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args], capture_output=True, text=True, cwd=ROOT, timeout=600
    )


def test_phantomwiki_bench_prints_each_stage_as_it_begins_and_the_table_on_stdout():
    done = run("phantomwiki_bench.py", "--sizes", "50")
    assert done.returncode == 0, done.stderr
    stages = [line.split(" s  ", 1)[1] for line in done.stderr.splitlines() if line.strip().startswith("n50_s1")]
    began = [stage for stage in stages if stage in ("universe", "articles", "questions")]
    assert began == ["universe", "articles", "questions"] and stages[0] == "universe" and stages[-1] == "done"
    assert {"write questions", "write instances", "write rag", "evidence"} <= set(stages)
    assert "| 50 | **total (process wall, incl. imports)** |" in done.stdout and "n50_s1" not in done.stdout


def test_retrieval_bench_names_each_engine_and_query_kind_as_it_starts():
    done = run("retrieval_bench.py", "--config", "n50_s1", "--queries", "3")
    assert done.returncode == 0, done.stderr
    said = done.stderr.splitlines()
    assert said[0] == "generating n50_s1 and its queries ..."
    assert "rank_bm25: 3 question + evidence queries ..." in said and "bm25plus: indexing 50 articles ..." in said
    assert "| rank_bm25 |" in done.stdout and "queries ..." not in done.stdout


def test_the_slow_engine_says_how_far_it_is(capsys):
    spec = importlib.util.spec_from_file_location("retrieval_bench", BENCHMARKS / "retrieval_bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)

    class Index:
        def scores(self, query):
            return []

    bench.timed_queries(Index(), ["a", "b", "c"], "rank_bm25, question", every=0.0)
    assert capsys.readouterr().err.splitlines() == [
        f"  rank_bm25, question: {done}/3 queries in 0 s" for done in (1, 2, 3)
    ]
