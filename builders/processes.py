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


class ForkedCall:
    """`function(*args)` run in a forked process (it inherits this one's objects), its result sent back pickled:
    work for a core this process leaves idle. `result()` waits for it and raises its error, if any."""

    def __init__(self, function: Callable[..., Any], *args: Any) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self._receiver, sender = context.Pipe(duplex=False)
        self._process = context.Process(target=_send_result, args=(sender, function, args), daemon=True)
        self._process.start()
        sender.close()

    def result(self) -> Any:
        """The function's result (once: the process is gone after)."""
        try:
            failed, value = self._receiver.recv()
        finally:
            self.close()
        if failed:
            raise value
        return value

    def close(self) -> None:
        """End the process, done or not."""
        self._receiver.close()
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()


def _send_result(sender: Any, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        sent = (False, function(*args))
    except BaseException as error:  # raised by result(), in the parent
        sent = (True, error)
    sender.send(sent)
    sender.close()
