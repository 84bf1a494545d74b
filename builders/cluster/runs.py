"""Many configurations written as `generate` writes each, to any filesystem pyarrow reaches, whole or not at all.

    OUT/manifest.json               every configuration: settings, versions, each file's size and sha256
    OUT/{name}/configuration.json   the same record for one configuration, written with it
    OUT/{name}/...                  its files, byte for byte what `generate NAME --out OUT/NAME` writes
    OUT/.staging/                   work folders of running jobs (removed at the start and end of a run)

A job writes one configuration into a local scratch folder (the same code `generate` runs), records each file's
size and sha256, copies the folder into OUT/.staging/ and renames it into place: a job killed on the way leaves at
most a staging folder, never a partial configuration, and the next run removes it. A configuration counts as done
when its record names this package's version and code digest and every file it lists has that size and sha256 (read
back, not taken from the folder's existence), so running the same command again redoes only what is missing or
damaged. OUT is a local path or a URI pyarrow.fs understands (s3://, gs://, hdfs://, ...; credentials from the
environment, as pyarrow reads them). Nothing here imports Ray.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..publishing.manifest import file_digest

RECORD = "configuration.json"
MANIFEST = "manifest.json"
STAGING = ".staging"
FORMAT = "leakproof-qa configurations"

Writer = Callable[[Any, tuple[str, ...], Path], None]
"""Writes one configuration's subsets into a local folder, as `generate` does: (settings, subsets, folder)."""


@dataclass(frozen=True)
class Job:
    """One configuration to write: everything a worker needs, picklable (the writer by its module and name)."""

    dataset: str  # phantom_wiki or neoqa
    name: str  # the configuration's canonical name, its folder under OUT
    settings: Any  # the dataset's Settings
    subsets: tuple[str, ...]
    writer: Writer
    versions: Mapping[str, str] = field(default_factory=dict)  # package_version, code_digest
    memory: int = 0  # bytes a worker needs at its peak (phantom_wiki's budget), 0 when small


def filesystem(out: str) -> tuple[Any, str]:
    """(the pyarrow filesystem, the path within it) of OUT: a URI, or a local path made absolute."""
    from pyarrow import fs

    if "://" in out:
        return fs.FileSystem.from_uri(out)
    return fs.LocalFileSystem(), os.path.abspath(out)


def file_digests(folder: Path) -> dict[str, dict[str, Any]]:
    """Size and sha256 of every file below a local folder, by path relative to it ("/" separators)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            size, sha256 = file_digest(path)
            found[path.relative_to(folder).as_posix()] = {"size": size, "sha256": sha256}
    return found


def record_of(job: Job, files: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A configuration's record: what it is, what made it, and its files."""
    return {
        "configuration": job.name,
        "dataset": job.dataset,
        "settings": asdict(job.settings),
        "subsets": list(job.subsets),
        **job.versions,
        "files": files,
    }


def staging_name(name: str) -> str:
    """A work folder's name, unique to this attempt (host, process, clock: a retried task never meets its own)."""
    return f"{name}.{socket.gethostname()}-{os.getpid()}-{time.monotonic_ns()}"


def publish_folder(local: Path, out: str, name: str) -> None:
    """Copy a whole local folder into OUT/.staging/, then rename it to OUT/name (replacing what was there)."""
    from pyarrow import fs

    target, root = filesystem(out)
    staging = f"{root}/{STAGING}/{staging_name(name)}"
    target.create_dir(staging, recursive=True)
    fs.copy_files(str(local), staging, source_filesystem=fs.LocalFileSystem(), destination_filesystem=target)
    final = f"{root}/{name}"
    if target.get_file_info(final).type != fs.FileType.NotFound:
        target.delete_dir(final)
    target.move(staging, final)


def write_job(job: Job, out: str) -> dict[str, Any]:
    """A worker's whole job: write the configuration locally, record its files, put it in place; its record."""
    with tempfile.TemporaryDirectory(prefix="leakproof-job-") as scratch:
        folder = Path(scratch) / job.name
        folder.mkdir()
        job.writer(job.settings, job.subsets, folder)
        record = record_of(job, file_digests(folder))
        (folder / RECORD).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        publish_folder(folder, out, job.name)
    return record


def _read(target: Any, path: str) -> bytes | None:
    try:
        with target.open_input_stream(path) as stream:
            return bytes(stream.read())
    except (FileNotFoundError, OSError):
        return None


def _matches(target: Any, path: str, expected: Mapping[str, Any]) -> bool:
    """Whether the file at `path` has the expected size and sha256 (read in full)."""
    try:
        digest, size = hashlib.sha256(), 0
        with target.open_input_stream(path) as stream:
            while chunk := stream.read(1 << 20):
                digest.update(chunk)
                size += len(chunk)
    except (FileNotFoundError, OSError):
        return False
    return size == expected.get("size") and digest.hexdigest() == expected.get("sha256")


def finished_record(job: Job, out: str) -> dict[str, Any] | None:
    """The record of `job`'s configuration if OUT holds it whole, made by this version and code with these settings
    and subsets, every listed file its recorded size and sha256; else None (it is to be written)."""
    target, root = filesystem(out)
    text = _read(target, f"{root}/{job.name}/{RECORD}")
    try:
        record = json.loads(text) if text is not None else None
    except ValueError:
        return None
    if not isinstance(record, dict) or not isinstance(record.get("files"), dict):
        return None
    expected = record_of(job, record["files"])
    if record != expected:
        return None
    files: dict[str, Any] = record["files"]
    return record if all(_matches(target, f"{root}/{job.name}/{p}", d) for p, d in files.items()) else None


def clear_staging(out: str) -> None:
    """Remove OUT/.staging/ (work folders of jobs that died; none runs while this run starts or ends)."""
    from pyarrow import fs

    target, root = filesystem(out)
    if target.get_file_info(f"{root}/{STAGING}").type != fs.FileType.NotFound:
        target.delete_dir(f"{root}/{STAGING}")


def write_manifest(records: Iterable[Mapping[str, Any]], out: str, dataset: str, versions: Mapping[str, str]) -> None:
    """OUT/manifest.json: every configuration's record, sorted by name, written whole (staged, then renamed)."""
    target, root = filesystem(out)
    document = {
        "format": FORMAT,
        "dataset": dataset,
        **versions,
        "configurations": {record["configuration"]: record for record in records},
    }
    text = json.dumps(document, indent=2, sort_keys=True) + "\n"
    target.create_dir(f"{root}/{STAGING}", recursive=True)
    staged = f"{root}/{STAGING}/{staging_name(MANIFEST)}"
    with target.open_output_stream(staged) as stream:
        stream.write(text.encode("utf-8"))
    target.move(staged, f"{root}/{MANIFEST}")


Runner = Callable[[list[Job], str], Iterator[dict[str, Any]]]
"""Runs jobs (here or on Ray) and yields each one's record as it ends."""


def run_locally(processes: int) -> Runner:
    """Jobs run on this machine: one at a time, or `processes` at once in fresh processes."""
    from ..processes import each_result

    def run(jobs: list[Job], out: str) -> Iterator[dict[str, Any]]:
        return each_result(write_job, [(job, out) for job in jobs], processes)

    return run


def run_many(
    jobs: list[Job], out: str, runner: Runner, say: Callable[[str], None] = lambda line: None
) -> tuple[list[dict[str, Any]], list[str]]:
    """Write every job's configuration under OUT that is not already there whole, then the manifest of all of them;
    return (every record, in the jobs' order; the names skipped as done)."""
    if not jobs:
        raise ValueError("no configuration to write")
    target, root = filesystem(out)
    target.create_dir(root, recursive=True)
    clear_staging(out)
    records: dict[str, dict[str, Any]] = {}
    skipped = []
    for job in jobs:
        done = finished_record(job, out)
        if done is not None:
            records[job.name] = done
            skipped.append(job.name)
    say(f"{len(skipped)} of {len(jobs)} configuration(s) already written whole; writing {len(jobs) - len(skipped)}")
    todo = [job for job in jobs if job.name not in records]
    if todo:
        for record in runner(todo, out):
            records[record["configuration"]] = record
            say(f"wrote {record['configuration']} ({len(record['files'])} files)")
    ordered = [records[job.name] for job in jobs]
    write_manifest(ordered, out, jobs[0].dataset, jobs[0].versions)
    clear_staging(out)
    return ordered, skipped


def seeds(text: str) -> list[int]:
    """Seeds from `1-1000`, `5`, or `1-3,7,9-10` (in order, each once), or a one-line ValueError."""
    found: list[int] = []
    for part in text.split(","):
        low, dash, high = part.strip().partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise ValueError(f"--seeds {text!r}: give seeds as 1-1000, 5, or 1-3,7 (whole numbers, low-high)")
        start, end = int(low), int(high or low)
        if end < start:
            raise ValueError(f"--seeds {text!r}: {part} runs backwards; give low-high")
        found += [seed for seed in range(start, end + 1) if seed not in found]
    return found
