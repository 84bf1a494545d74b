"""Progress a user sees while a universe is generated: a bar over the stages that names the one running and the time
each finished one took, and a bar over the rows each subset writes. Inside `load_dataset` both are `datasets`' own
tqdm, so `datasets.disable_progress_bars()` turns them off; the command line does not import `datasets` (a second of
start-up) and draws plain tqdm bars, which HF_DATASETS_DISABLE_PROGRESS_BARS=1 turns off in both."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

_TRUE = {"1", "ON", "YES", "TRUE"}  # what `datasets` reads as true in an environment variable


def tqdm(*args: Any, **kwargs: Any) -> Any:
    """A progress bar: `datasets`' own when it is loaded, else tqdm's, off when HF_DATASETS_DISABLE_PROGRESS_BARS."""
    if "datasets" in sys.modules:
        from datasets.utils import tqdm as datasets_tqdm

        return datasets_tqdm(*args, **kwargs)
    from tqdm import tqdm as plain_tqdm

    disabled = os.environ.get("HF_DATASETS_DISABLE_PROGRESS_BARS", "").upper() in _TRUE
    return plain_tqdm(*args, disable=disabled or kwargs.pop("disable", False), **kwargs)


class StageBar:
    """A `progress` callback for the engine (called with a stage's name as it begins) drawn as one bar."""

    def __init__(self, title: str, stages: Sequence[str]) -> None:
        self.bar = tqdm(total=len(stages), desc=title, unit="stage", leave=True)
        self.timings: dict[str, float] = {}
        self._running: tuple[str, float] | None = None

    def __call__(self, stage: str) -> None:
        self._finish()
        self._running = (stage, time.perf_counter())
        self.bar.set_postfix_str(self._text(), refresh=True)

    def close(self) -> dict[str, float]:
        """End the last stage and the bar; the seconds each stage took."""
        self._finish()
        self.bar.set_postfix_str(self._text(), refresh=False)
        self.bar.close()
        return self.timings

    def _finish(self) -> None:
        if self._running is not None:
            stage, began = self._running
            self.timings[stage] = time.perf_counter() - began
            self._running = None
            self.bar.update(1)

    def _text(self) -> str:
        done = [f"{stage} {seconds:.2f}s" for stage, seconds in self.timings.items()]
        running = [f"{self._running[0]}..."] if self._running else []
        return ", ".join(done + running)

    def __enter__(self) -> StageBar:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def counted(rows: Iterable[dict], what: str, total: int | None = None) -> Iterator[dict]:
    """`rows`, passed through a bar that counts them (against `total` when it is known)."""
    yield from tqdm(rows, desc=what, total=total, unit=" rows", leave=False)
