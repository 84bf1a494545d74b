"""One universe's instances and rag rows made in forked workers are the rows one process makes, in the same order."""

from __future__ import annotations

import os
import signal

import pytest

from leakproof_qa.builders.cli import forked_rows
from leakproof_qa.builders.cli.forked_rows import (
    FEWEST_QUESTIONS,
    ForkedRows,
    build_index,
    can_fork,
    index_elsewhere,
    take_index,
)
from leakproof_qa.builders.cli.forked_writer import ForkedWriter, partial_path, write_subset
from leakproof_qa.builders.phantomwiki.config import SUBSETS, settings_from
from leakproof_qa.builders.phantomwiki.rows import ROWS, generate, prepare, shared_evidence
from leakproof_qa.builders.processes import ForkedCall, ForkedProcessError

pytestmark = pytest.mark.skipif(not can_fork(), reason="workers are forked")


def every_row(name: str, processes: int, **knobs: object) -> tuple[int, dict[str, list[dict]]]:
    """(processes that made the heavy rows, each subset's rows) of a freshly generated universe."""
    generated = prepare(generate(settings_from(name, **knobs)[0]), SUBSETS)
    with ForkedRows(generated, SUBSETS, processes) as made:
        return made.processes, {subset: list(made.rows(subset)) for subset in SUBSETS}


def test_two_processes_make_the_rows_one_process_makes():
    used, forked = every_row("n200_s1", 2)
    _, alone = every_row("n200_s1", 1)
    assert used == 2
    assert forked["instances"] and forked["rag"]
    for subset in SUBSETS:
        assert forked[subset] == alone[subset], subset


@pytest.mark.parametrize(
    "knobs",
    [
        {"rag_rows": "all", "instance_layout": "ablation"},
        {"context_tokens": 4096, "distractors": "easy"},
    ],
)
def test_three_processes_make_the_same_rows_with_other_settings(knobs):
    used, forked = every_row("n150_s2", 3, questions_per_template=2, **knobs)
    _, alone = every_row("n150_s2", 1, questions_per_template=2, **knobs)
    assert used == 3 and forked["instances"] and forked["rag"]
    assert forked["instances"] == alone["instances"]
    assert forked["rag"] == alone["rag"]


def test_given_a_writer_the_instance_rows_go_to_it_part_by_part_and_make_the_same_files(tmp_path):
    """The row makers hand each part's instance rows to the forked writer as they make it (it takes them in
    meanwhile); the files are the files of one process's rows."""
    generated = prepare(generate(settings_from("n200_s1")[0]), SUBSETS)
    (tmp_path / "alone").mkdir()
    (tmp_path / "forked").mkdir()
    for subset in ("instances", "rag"):
        write_subset(generated, subset, None, tmp_path / "alone", "parquet")
    with (
        ForkedWriter(generated, tmp_path / "forked", "parquet", 2) as writer,
        ForkedRows(generated, SUBSETS, 2, writer) as made,
    ):
        assert made.processes == 2
        with pytest.raises(RuntimeError, match="went to the writer part by part"):
            made.rows("instances")
        for subset in ("instances", "rag"):
            made.write(subset, writer)
        written = writer.close()
    assert written["instances"][0] > 0 and written["rag"][0] > 0
    for subset in ("instances", "rag"):
        forked = (tmp_path / "forked" / f"{subset}.parquet").read_bytes()
        assert forked == partial_path(tmp_path / "alone", subset, "parquet").read_bytes(), subset


def test_the_rows_of_the_dataset_builders_parts_joined_are_the_forked_rows():
    generated = prepare(generate(settings_from("n100_s3", questions_per_template=2)[0]), SUBSETS)
    with ForkedRows(generated, ["instances"], 2) as made:
        forked = list(made.rows("instances"))
    parts = [row for part in range(16) for row in ROWS["instances"](generated, (part, 16))]
    assert forked == parts


def test_a_universe_of_few_questions_is_made_in_one_process():
    generated = prepare(generate(settings_from("n60_s1", questions_per_template=0)[0]), SUBSETS)
    assert len(generated.questions) < FEWEST_QUESTIONS
    with ForkedRows(generated, SUBSETS, 2) as made:
        assert made.processes == 1
        assert list(made.rows("instances")) == list(ROWS["instances"](generated))


def test_a_workers_error_is_raised_here(monkeypatch):
    made_here = forked_rows.part_rows
    here = os.getpid()

    def failing(generated, subsets, part):
        if os.getpid() != here:  # only in the worker: its error must cross the pipe and be raised here
            raise RuntimeError(f"part {part} failed")
        return made_here(generated, subsets, part)

    monkeypatch.setattr(forked_rows, "part_rows", failing)
    generated = prepare(generate(settings_from("n100_s1", questions_per_template=2)[0]), SUBSETS)
    with ForkedRows(generated, SUBSETS, 2) as made:
        assert made.processes == 2
        with pytest.raises(RuntimeError, match=r"part \d+ failed"):
            list(made.rows("instances"))


def test_fewer_than_one_process_is_refused_in_one_line():
    generated = generate(settings_from("n30_s1")[0])
    with pytest.raises(ValueError, match="processes=0 must be at least 1"):
        ForkedRows(generated, SUBSETS, 0)


def test_the_index_built_in_a_forked_process_ranks_as_the_one_built_here():
    generated = generate(settings_from("n120_s5", questions_per_template=1)[0])
    building = index_elsewhere(generated, SUBSETS, 2)
    assert building is not None
    take_index(generated, building)
    there = shared_evidence(generated).pool.index
    here = build_index(generated)
    query = generated.questions[0].question
    assert there.retrieve([query], 10) == here.retrieve([query], 10)
    assert there.scores(query).tolist() == here.scores(query).tolist()


def test_no_index_is_built_elsewhere_for_one_process_or_subsets_without_retrieval():
    generated = generate(settings_from("n40_s1")[0], with_questions=False)
    assert index_elsewhere(generated, SUBSETS, 1) is None
    assert index_elsewhere(generated, ["questions", "corpus"], 2) is None


def test_a_forked_calls_error_is_raised_here():
    with pytest.raises(ZeroDivisionError):
        ForkedCall(divmod, 1, 0).result()
    assert ForkedCall(divmod, 7, 2).result() == (3, 1)


def test_a_worker_that_dies_is_reported_in_one_line(monkeypatch):
    made_here = forked_rows.part_rows
    here = os.getpid()

    def dying(generated, subsets, part):
        if os.getpid() != here:
            os._exit(9)  # as the kernel ends a process out of memory, without a word
        return made_here(generated, subsets, part)

    monkeypatch.setattr(forked_rows, "part_rows", dying)
    generated = prepare(generate(settings_from("n100_s1", questions_per_template=2)[0]), SUBSETS)
    with ForkedRows(generated, SUBSETS, 2) as made:
        with pytest.raises(ForkedProcessError, match="row worker process ended without a result, exit code 9"):
            list(made.rows("instances"))


def test_a_writer_that_dies_while_the_rows_are_made_is_reported_in_one_line(tmp_path):
    """A worker handing its parts to a writer that is gone would wait for it forever (the queue's pipe fills)."""
    generated = prepare(generate(settings_from("n500_s1")[0]), SUBSETS)
    with (
        pytest.raises(ForkedProcessError, match="file writer process ended before the rows were made, exit code -9"),
        ForkedWriter(generated, tmp_path, "parquet", 2) as writer,
        ForkedRows(generated, SUBSETS, 2, writer) as made,
    ):
        os.kill(writer._process.pid, signal.SIGKILL)
        made.write("instances", writer)
    assert list(tmp_path.iterdir()) == []


WRITER_DIES = """
import os, signal, sys
from pathlib import Path
from leakproof_qa.builders.cli.forked_writer import ForkedWriter
from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.rows import ROWS, generate, prepare
from leakproof_qa.builders.processes import ForkedProcessError

generated = prepare(generate(settings_from("n100_s1", questions_per_template=2)[0]), ["instances"])
writer = ForkedWriter(generated, Path(sys.argv[1]), "parquet", 2)
writer.write("instances", ROWS["instances"](generated))  # more than a pipe holds: the queue's thread waits
os.kill(writer._process.pid, signal.SIGKILL)
try:
    writer.close()
except ForkedProcessError as error:
    print(error)
"""


def test_a_writer_that_dies_is_reported_in_one_line_and_nothing_waits_for_it(tmp_path):
    """The rows handed to it and still in the queue are dropped: the process ends (it used to wait at exit for the
    queue's thread, which waited for the writer to read)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", WRITER_DIES, str(tmp_path)], capture_output=True, text=True, timeout=120, check=True
    )
    assert "file writer process ended without a result, exit code -9" in done.stdout
    assert list(tmp_path.iterdir()) == []


def test_a_forked_call_that_dies_or_raises_what_cannot_be_pickled_is_reported_in_one_line():
    with pytest.raises(ForkedProcessError, match="exit code 3"):
        ForkedCall(os._exit, 3).result()
    with pytest.raises(RuntimeError, match="Unpicklable: two arguments"):
        ForkedCall(_raise_unpicklable).result()


class Unpicklable(Exception):
    def __init__(self, first: str, second: str) -> None:
        super().__init__(f"{first} {second}")


def _raise_unpicklable() -> None:
    raise Unpicklable("two", "arguments")


def test_ctrl_c_is_left_to_the_parent_which_ends_its_children():
    # Python's own Ctrl-C handler, whatever this run inherited (a background job starts with SIGINT ignored)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert ForkedCall(signal.getsignal, signal.SIGINT).result() == signal.SIG_IGN
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # this process still stops on Ctrl-C
    finally:
        signal.signal(signal.SIGINT, before)
