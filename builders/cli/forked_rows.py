"""One universe's heavy subsets (instances, rag) made in several processes, the same rows as in one.

The stages every subset shares (universe, articles, questions, the evidence with its BM25 index) run once, in this
process; then it forks workers, which inherit them. This process and its workers each take the next unclaimed piece
of the questions (PIECES contiguous pieces, four to each of the rows.PARTS parts `load_dataset(num_proc=K)` shards
by) and make that piece's instance rows and rag rows before balancing; this process joins the pieces in order. A
question's rows are a pure function of the universe and the question (every draw comes from a stream seeded by the
question or its row, and the caches only remember what they compute), so the joined rows are the ones one process
makes; the rag balance is drawn here, over every piece's rows, as in one process.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from typing import Any

from ..phantomwiki.corpus import Corpus
from ..phantomwiki.distractor_pool import DistractorPool
from ..phantomwiki.rag_rows import build_rag, every_rag_row
from ..phantomwiki.rows import PARTS, ROWS, Generated, instance_evidence, instance_rows, part_of, shared_evidence
from ..phantomwiki.stages import timed
from ..processes import ForkedCall, can_fork, parent_gone, quiet_child, receive, sendable
from ..retrieval import Bm25Index
from .forked_writer import ForkedWriter

HEAVY = ("instances", "rag")
"""The subsets whose rows take most of the time (per question: labels, shadows, distractors, options, retrieval)."""
PIECES = 4 * PARTS
"""The contiguous pieces of the questions the processes take in turn: smaller than the parts, so that when the last is
taken the other processes wait for less (a part's rows take from 0.1 to 0.5 s at n5000; in order the pieces make up
the questions, as the parts do)."""
FEWEST_QUESTIONS = 2 * PARTS
"""Below this many questions a universe is made in one process: forking would cost more than it saves."""

PartRows = dict[str, list[Any]]
"""One part's rows by heavy subset: instance rows, and (cell, row) of every rag row before the balance."""


def needs_index(generated: Generated, subsets: Sequence[str]) -> bool:
    """Whether the rows of `subsets` query the BM25 index (rag retrieves with it; hard distractors rank by it)."""
    return "rag" in subsets or "instances" in subsets and generated.settings.distractors == "hard"


def build_index(generated: Generated) -> Bm25Index:
    """The BM25 index over the articles of `generated` that its evidence would build (DistractorPool.index)."""
    return DistractorPool(Corpus(generated), generated.settings).index


def index_elsewhere(generated: Generated, subsets: Sequence[str], processes: int) -> ForkedCall | None:
    """The BM25 index `subsets` need, built in a forked process from the articles (they are all it reads) while
    this one samples the questions; None where one process is asked for or no index is needed."""
    if processes == 1 or not can_fork() or not needs_index(generated, subsets):
        return None
    return ForkedCall(build_index, generated)


def take_index(generated: Generated, building: ForkedCall | None) -> None:
    """Give the evidence of `generated` the index `index_elsewhere` built, waiting for it (a stage: 'BM25 index')."""
    if building is not None:
        with timed(generated.timings, "BM25 index", generated.progress):
            shared_evidence(generated).pool.index = building.result()


def part_rows(generated: Generated, subsets: Sequence[str], part: int) -> PartRows:
    """The heavy `subsets`' rows of one of PIECES pieces of the questions."""
    made: PartRows = {}
    if "instances" in subsets:
        made["instances"] = list(instance_rows(generated, (part, PIECES)))
    if "rag" in subsets:
        questions = part_of(generated.questions, (part, PIECES))
        made["rag"] = every_rag_row(shared_evidence(generated), questions)
    return made


def _made(generated: Generated, subsets: Sequence[str], part: int, writer: ForkedWriter | None) -> PartRows:
    """One part's heavy rows, its instance rows handed to `writer` (when given) rather than kept."""
    made = part_rows(generated, subsets, part)
    if writer is not None and "instances" in made:
        writer.part("instances", part, made.pop("instances"))
    return made


def _claim(counter: Any) -> int:
    """The next unclaimed piece (PIECES or more when none is left)."""
    with counter.get_lock():
        part = int(counter.value)
        counter.value = part + 1
    return part


def _worker(
    generated: Generated, subsets: Sequence[str], counter: Any, sender: Any, writer: ForkedWriter | None
) -> None:
    """A forked worker: make parts while any is unclaimed, then send them all at once (sending as it goes would wait
    on the parent, which is busy making its own parts); with a `writer`, each part's instance rows go to it as soon as
    they are made, and are in its pipe before the rest is sent."""
    quiet_child()
    made: dict[int, PartRows] = {}
    try:
        while (part := _claim(counter)) < PIECES:
            if parent_gone():  # no one waits for these rows
                return
            made[part] = _made(generated, subsets, part, writer)
        if writer is not None:
            writer.flush()
        sent: object = made
    except BaseException as error:  # the parent raises it; a worker never dies silently
        sent = sendable(error)
    try:
        sender.send(sent)
    except OSError:  # the parent stopped waiting (an error there ended it)
        pass
    finally:
        sender.close()


class ForkedRows:
    """Each subset's rows of one prepared universe (rows.prepare), the heavy ones made in `processes` processes: the
    workers start at once and work while this process writes the other subsets. Given a forked `writer`, each part's
    instance rows go to it as soon as they are made (from this process and the workers), so the writer takes them in
    while the rows are made rather than after: write their file with `write`. Use it as a context manager, so that
    its workers are ended on any error."""

    def __init__(
        self, generated: Generated, subsets: Sequence[str], processes: int, writer: ForkedWriter | None = None
    ) -> None:
        self.generated = generated
        self.heavy = [subset for subset in HEAVY if subset in subsets]
        self.parts: dict[int, PartRows] | None = None
        self._workers: list[tuple[Any, Any]] = []
        self._writer: ForkedWriter | None = None  # the writer the instance rows go to, part by part
        self.processes = 1  # how many make the heavy rows: this one and its workers
        if processes < 1:
            raise ValueError(f"processes={processes} must be at least 1")
        if processes == 1 or not self.heavy or len(generated.questions) < FEWEST_QUESTIONS or not can_fork():
            return
        if "instances" in self.heavy:
            instance_evidence(generated)  # a length the universe cannot fill is refused here, once, before forking
        evidence = shared_evidence(generated)
        if needs_index(generated, self.heavy) and "BM25 index" not in generated.timings:  # shared, not built twice
            with timed(generated.timings, "BM25 index", generated.progress):
                _ = evidence.pool.index  # built on first use
        context = multiprocessing.get_context("fork")
        self._counter = context.Value("i", 0)
        processes = min(processes, PIECES)
        if writer is not None and writer.forked and "instances" in self.heavy:
            self._writer = writer
        try:
            for _ in range(processes - 1):
                receiver, sender = context.Pipe(duplex=False)
                worker = context.Process(
                    target=_worker, args=(generated, self.heavy, self._counter, sender, self._writer), daemon=True
                )
                worker.start()
                sender.close()
                self._workers.append((worker, receiver))
        except BaseException:
            self.close()  # the workers started so far
            raise
        self.processes = processes

    def __enter__(self) -> ForkedRows:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the workers (they have sent their parts, or are no longer wanted)."""
        for worker, receiver in self._workers:
            receiver.close()
            if worker.is_alive():
                worker.terminate()
            worker.join()
        self._workers = []

    def write(self, subset: str, writer: ForkedWriter) -> None:
        """Have `writer` write `subset`'s file: from the parts it was handed (the instances, given a writer), or from
        `rows`."""
        if subset == "instances" and self._writer is not None:
            self._joined()
            self._writer.write_parts(subset, PIECES)
        else:
            writer.write(subset, self.rows(subset))

    def rows(self, subset: str) -> Iterator[dict]:
        """The rows of `subset`, in the order one process makes them."""
        if subset not in self.heavy or not self._workers and self.parts is None:
            return ROWS[subset](self.generated)
        if subset == "instances" and self._writer is not None:
            raise RuntimeError("the instance rows went to the writer part by part; write their file with write()")
        parts = self._joined()
        if subset == "instances":
            return (row for part in range(PIECES) for row in parts[part]["instances"])
        evidence = shared_evidence(self.generated)
        if evidence.rag_every is None:
            evidence.rag_every = [made for part in range(PIECES) for made in parts[part]["rag"]]
        return iter(build_rag(self.generated, evidence=evidence))

    def _joined(self) -> dict[int, PartRows]:
        """Every part: this process makes the parts still unclaimed, then takes the workers'."""
        if self.parts is not None:
            return self.parts
        parts: dict[int, PartRows] = {}
        while (part := _claim(self._counter)) < PIECES:
            parts[part] = _made(self.generated, self.heavy, part, self._writer)
        for worker, receiver in self._workers:
            if self._writer is not None:
                self._writer.watch(receiver)  # the worker waits on the writer for its parts to be taken
            sent = receive(receiver, worker, "row worker")
            if isinstance(sent, BaseException):
                raise sent
            parts.update(sent)
        self.close()
        self.parts = parts
        return parts
