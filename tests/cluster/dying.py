"""A cluster task that dies the first time it runs for a configuration (its worker process ends mid-job, after it
has begun to stage files), then does the real work: what Ray's retry must recover from."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from leakproof_qa.builders.cluster.runs import STAGING, Job, write_job


def dies_once(job: Job, out: str) -> dict[str, Any]:
    """Die (os._exit, as a kill would end the worker) on the first attempt for `job`, leaving half a staging folder;
    then write the configuration. The marker beside OUT says it died."""
    marker = Path(out).parent / f"died-{job.name}"
    if not marker.exists():
        marker.touch()
        half = Path(out) / STAGING / f"{job.name}.dying"
        half.mkdir(parents=True, exist_ok=True)
        (half / "questions.parquet").write_bytes(b"PAR1 half written")
        os._exit(1)
    return write_job(job, out)
