"""The same jobs as Ray tasks: one per configuration, or one per block of a large NeoQA configuration's timelines.

Ray schedules the tasks (a phantom_wiki task asks for the memory builders/phantomwiki/budget.py estimates, so a
worker holds what it is given), retries a task whose worker dies (`max_retries`), and carries the small results
back; every file goes from the worker to OUT through pyarrow's filesystems (runs.py). The files are those one
machine writes, byte for byte: a task runs the same code on the same settings.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from typing import Any

from . import RAY_MISSING
from .runs import STAGING, Job, Runner, filesystem, staging_name, write_job

RETRIES = 3
"""Times Ray runs a task again after its worker died (killed, out of memory, its machine gone)."""


def ray_module() -> Any:
    """Ray, or a one-line ImportError saying what to install."""
    try:
        import ray
    except ImportError:
        raise ImportError(RAY_MISSING) from None
    return ray


def connect(address: str) -> Any:
    """Ray, connected to the cluster at `address` (`auto`, `ray://host:10001`, or `local` for one started here)."""
    ray = ray_module()
    if not ray.is_initialized():
        ray.init(address=None if address == "local" else address, log_to_driver=False)
    return ray


def _finished(ray: Any, refs: list[Any]) -> Iterator[Any]:
    """The tasks' results as each ends (an error is raised once Ray has given up retrying it)."""
    pending = list(refs)
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        yield ray.get(done[0])


def _refuse_infeasible(ray: Any, jobs: list[Job]) -> None:
    """A one-line ValueError when a job asks for more memory than any node of the cluster has (Ray would keep the
    task waiting for a node that never comes)."""
    largest = max((node["Resources"].get("memory", 0) for node in ray.nodes() if node.get("Alive")), default=0)
    big = max(jobs, key=lambda job: job.memory, default=None)
    if big is not None and big.memory > largest:
        raise ValueError(
            f"{big.name} needs about {big.memory / 1e9:,.1f} GB by our measures, more than any node of the Ray "
            f"cluster has ({largest / 1e9:,.1f} GB for tasks); add larger nodes or choose fewer people or questions"
        )


def ray_runner(address: str, task: Any = write_job) -> Runner:
    """Run jobs as Ray tasks on the cluster at `address`, one per configuration; `task(job, out)` is the work (the
    default writes the configuration; a test passes one that dies first)."""
    ray = connect(address)
    remote = ray.remote(max_retries=RETRIES)(task)

    def run(jobs: list[Job], out: str) -> Iterator[dict[str, Any]]:
        _refuse_infeasible(ray, jobs)
        refs = [remote.options(**({"memory": job.memory} if job.memory else {})).remote(job, out) for job in jobs]
        return _finished(ray, refs)

    return run


def write_block_to(settings: Any, block: int, subsets: tuple[str, ...], schemas: Any, work: str) -> dict[str, int]:
    """A Ray task: write one block of a NeoQA configuration locally and copy its files into the work folder `work`
    (on OUT's filesystem); its rows per subset."""
    from pyarrow import fs

    from ..neoqa.files import write_block

    target, path = filesystem(work)
    with tempfile.TemporaryDirectory(prefix="leakproof-block-") as scratch:
        rows = write_block(settings, block, subsets, schemas, scratch)
        fs.copy_files(scratch, path, source_filesystem=fs.LocalFileSystem(), destination_filesystem=target)
    return rows


def write_neoqa_blocks(
    settings: Any, subsets: tuple[str, ...], schemas: Any, out: str, address: str, task: Any = write_block_to
) -> dict[str, int]:
    """Every block of one NeoQA configuration as a Ray task, into OUT/.staging/; then each subset's folder renamed
    to OUT/{subset}, as `python -m neoqa generate` leaves them. Rows written per subset."""
    from pyarrow import fs

    from ..neoqa.files import block_count

    ray = connect(address)
    target, root = filesystem(out)
    work_path = f"{root}/{STAGING}/{staging_name('blocks')}"
    target.create_dir(work_path, recursive=True)
    work = work_path if "://" not in out else out.split("://")[0] + "://" + work_path
    remote = ray.remote(max_retries=RETRIES)(task)
    refs = [remote.remote(settings, block, subsets, schemas, work) for block in range(block_count(settings))]
    rows = dict.fromkeys(subsets, 0)
    try:
        for written in _finished(ray, refs):
            for subset, count in written.items():
                rows[subset] += count
        for subset in subsets:
            if target.get_file_info(f"{root}/{subset}").type != fs.FileType.NotFound:
                target.delete_dir(f"{root}/{subset}")
            target.move(f"{work_path}/{subset}", f"{root}/{subset}")
    finally:
        if target.get_file_info(work_path).type != fs.FileType.NotFound:
            target.delete_dir(work_path)
        if not target.get_file_info(fs.FileSelector(f"{root}/{STAGING}", allow_not_found=True)):
            target.delete_dir(f"{root}/{STAGING}")  # nothing else at work there: leave OUT as generate leaves it
    return rows
