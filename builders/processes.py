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


class ForkedProcessError(RuntimeError):
    """A forked process ended without sending its result (killed, out of memory, or its pipe closed)."""


def can_fork() -> bool:
    """Whether work may run in forked processes that inherit this one's objects: on Linux only (macOS offers fork,
    but its system libraries are not safe to use after it)."""
    import multiprocessing
    import sys

    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def receive(receiver: Any, process: Any, what: str) -> Any:
    """What a forked `process` sent on `receiver`; a one-line ForkedProcessError naming its exit code when it ended
    without sending (the likeliest cause at a large size: the kernel ended it for memory)."""
    try:
        return receiver.recv()
    except (EOFError, OSError):
        process.join(timeout=5)
        code = process.exitcode
        cause = " (killed by the kernel: out of memory?)" if code == -9 else ""
        raise ForkedProcessError(f"the {what} process ended without a result, exit code {code}{cause}") from None


def sendable(error: BaseException) -> BaseException:
    """`error` if it pickles and comes back as itself, else a RuntimeError holding its type, message and traceback
    (an exception whose __init__ takes other arguments than its message cannot cross a pipe)."""
    import pickle
    import traceback

    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:
        lines = "".join(traceback.format_exception(error)).rstrip()
        return RuntimeError(f"{type(error).__name__}: {error}\n{lines}")


def quiet_child() -> None:
    """In a forked process: leave Ctrl-C to the parent, which ends its children (else each prints a traceback)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def parent_gone() -> bool:
    """In a forked process: whether the process that forked it has ended (its work is then no longer wanted)."""
    import multiprocessing

    parent = multiprocessing.parent_process()
    return parent is not None and not parent.is_alive()


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

    def __enter__(self) -> ForkedCall:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def result(self) -> Any:
        """The function's result (once: the process is gone after)."""
        try:
            failed, value = receive(self._receiver, self._process, "forked call")
        finally:
            self.close()
        if failed:
            raise value
        return value

    def close(self) -> None:
        """End the process, done or not (again: nothing)."""
        self._receiver.close()
        if self._process.is_alive():
            self._process.terminate()
        self._process.join()


def _send_result(sender: Any, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
    quiet_child()
    try:
        sent = (False, function(*args))
    except BaseException as error:  # raised by result(), in the parent
        sent = (True, sendable(error))
    try:
        sender.send(sent)
    except (BrokenPipeError, OSError):  # the parent no longer waits for it
        pass
    finally:
        sender.close()
