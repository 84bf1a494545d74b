"""Run one function over several argument tuples, in this process or in a pool of fresh ones, results in order."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def default_processes() -> int:
    """The processes a command uses unless told: two where the machine has two cores or more (the benchmark's: one
    universe's heavy rows split in two take about half the time), else one."""
    return min(2, os.cpu_count() or 1)


def each_result(function: Callable[..., T], jobs: Sequence[tuple[Any, ...]], processes: int) -> Iterator[T]:
    """`function(*job)` for each job, in order: here when `processes` is 1 (or there is one job), else in a pool of
    at most `processes` spawned workers (each imports afresh, so no thread or lock of this process is copied into
    it; `function` must be importable by name). Results come back in the jobs' order as each is ready."""
    if processes == 1 or len(jobs) <= 1:
        for job in jobs:
            yield function(*job)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(min(processes, len(jobs)), mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(function, *job) for job in jobs]
        for future in futures:
            yield future.result()
