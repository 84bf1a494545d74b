"""`load_dataset` for a packaged builder: the same return types as `datasets.load_dataset`, with its cache, checked.

A cache is a file someone (or a bad disk) may have changed: when a configuration is generated, the size
and sha256 of every file of its cache folder are recorded (`leakproof_digest.json`); a later load checks
them first (in full up to 2 GB of cache, beyond that the sizes and the first and last MiB, unless
LEAKPROOF_VERIFY_CACHE says `full` or `quick`). A damaged cache (a flipped byte, a truncated, emptied or
deleted file, a garbage dataset_info.json, a missing record) is said in one line and generated again:
the data is deterministic, so the copy made again is the one that was damaged.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

import datasets

DIGEST_FILE = "leakproof_digest.json"
VERIFY_VARIABLE = "LEAKPROOF_VERIFY_CACHE"
FULL_UP_TO = 2 << 30  # bytes of cache hashed in full by default
_ENDS = 1 << 20


class CacheDirError(ValueError):
    """A cache_dir that cannot hold a cache (a file, or not writable); the message is one line."""


class NoRowsError(ValueError):
    """A configuration whose split holds no row (a world too small for the subset); the message says why, in one
    line, where `datasets` would say only that the split "corresponds to no data"."""


def usable_cache_dir(cache_dir: str | os.PathLike | None) -> None:
    """Raise CacheDirError unless `cache_dir` is None or a folder this process can write (made if missing)."""
    if cache_dir is None:
        return
    path = Path(cache_dir).expanduser()
    if path.exists() and not path.is_dir():
        raise CacheDirError(
            f"cache_dir {path} is a file; give a folder (or leave cache_dir out for the datasets cache)"
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise CacheDirError(f"cannot make cache_dir {path}: {error.strerror}; give a folder you can write") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise CacheDirError(f"cache_dir {path} is not writable; give a folder you can write")


def release_caches(cache_dir: str | os.PathLike | None) -> tuple[Path, Path | None]:
    """Where a published release is read into: (the `datasets` cache, which holds opened sealed shards; the Hub cache,
    inside `cache_dir` when one is given, else None for the Hub client's own)."""
    usable_cache_dir(cache_dir)
    if cache_dir is None:
        return Path(datasets.config.HF_DATASETS_CACHE), None
    return Path(cache_dir).expanduser(), Path(cache_dir).expanduser() / "hub"


def load_from_builder(
    builder_cls: type[datasets.DatasetBuilder],
    config_name: str,
    split: str | None = None,
    streaming: bool = False,
    cache_dir: str | None = None,
    num_proc: int | None = None,
    **builder_kwargs: Any,
) -> datasets.Dataset | datasets.DatasetDict | datasets.IterableDataset | datasets.IterableDatasetDict:
    """Build `config_name` of `builder_cls` (or reuse its cache, checked) and return it as `datasets.load_dataset`
    would; `num_proc` processes prepare it, as in `datasets.load_dataset`."""
    if num_proc is not None and (isinstance(num_proc, bool) or not isinstance(num_proc, int) or num_proc < 1):
        raise ValueError(f"num_proc={num_proc!r}: give a whole number of processes, 1 or more (or None for one)")
    usable_cache_dir(cache_dir)
    if streaming:
        streamed = builder_cls(config_name=config_name, cache_dir=cache_dir, **builder_kwargs).as_streaming_dataset(
            split=split
        )
        return streamed if split is not None else datasets.IterableDatasetDict(streamed)
    folder = _cache_folder(builder_cls, config_name, cache_dir, builder_kwargs)
    if folder.is_dir():
        problem = _damage(folder)
        if problem:
            warnings.warn(
                f"the cached {config_name} in {folder} is damaged ({problem}); generating it again", stacklevel=3
            )
            shutil.rmtree(folder, ignore_errors=True)
    fresh = not folder.is_dir()
    builder = builder_cls(config_name=config_name, cache_dir=cache_dir, **builder_kwargs)
    try:
        builder.download_and_prepare(num_proc=num_proc)
    except Exception as error:  # `datasets` wraps what went wrong (DatasetGenerationError): a full disk is ours to say
        full = _full_disk(error)
        if full is None:
            raise
        raise CacheDirError(
            f"no space left on the device of the cache ({full.filename or folder.parent}) while writing "
            f"{config_name}; free some space or pass cache_dir= a folder with room (nothing half-written is kept)"
        ) from None
    if fresh:
        _record(Path(builder.cache_dir))
    _refuse_empty(builder, config_name, split)
    return builder.as_dataset(split=split)


def _refuse_empty(builder: datasets.DatasetBuilder, config_name: str, split: str | None) -> None:
    """A NoRowsError when every split asked for (a plain name, or all) holds no row: the builder's `no_rows()` says
    why and what would give rows, when it has one."""
    splits = builder.info.splits or {}
    wanted = list(splits) if split is None else [split]
    if not wanted or any(name not in splits or splits[name].num_examples for name in wanted):
        return
    explain = getattr(builder, "no_rows", None)
    raise NoRowsError(explain() if callable(explain) else f"{config_name} has no rows in {', '.join(wanted)}")


def _full_disk(error: BaseException) -> OSError | None:
    """The ENOSPC / EDQUOT OSError behind `error` (itself, its cause or its context), if one is."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in (errno.ENOSPC, errno.EDQUOT):
            return current
        current = current.__cause__ or current.__context__
    return None


def _cache_folder(
    builder_cls: type[datasets.DatasetBuilder], config_name: str, cache_dir: str | None, builder_kwargs: dict[str, Any]
) -> Path:
    """Where the builder keeps this configuration, found without reading it (a damaged one cannot be read)."""
    with tempfile.TemporaryDirectory() as empty:
        probe = builder_cls(config_name=config_name, cache_dir=empty, **builder_kwargs)
        relative = Path(probe.cache_dir).relative_to(Path(empty))
    return Path(cache_dir).expanduser() / relative if cache_dir else Path(datasets.config.HF_DATASETS_CACHE) / relative


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and p.name != DIGEST_FILE)


def _sha256(path: Path, full: bool) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        if full:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        else:
            digest.update(handle.read(_ENDS))
            handle.seek(max(0, path.stat().st_size - _ENDS))
            digest.update(handle.read(_ENDS))
    return digest.hexdigest()


def _record(folder: Path) -> None:
    """Record the size and sha256 (in full, and of the ends) of every file of a freshly written cache folder."""
    files = {
        p.name: {"size": p.stat().st_size, "sha256": _sha256(p, True), "ends": _sha256(p, False)}
        for p in _files(folder)
    }
    (folder / DIGEST_FILE).write_text(json.dumps({"files": files}, indent=1, sort_keys=True), encoding="utf-8")


def _damage(folder: Path) -> str | None:
    """What is wrong with a cache folder, or None when every file is as recorded."""
    try:
        recorded = json.loads((folder / DIGEST_FILE).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return f"no readable {DIGEST_FILE}"
    present = {p.name: p for p in _files(folder)}
    if set(present) != set(recorded):
        return f"files {sorted(set(recorded) ^ set(present))[0]!r} missing or unexpected"
    mode = os.environ.get(VERIFY_VARIABLE, "").lower()
    full = mode == "full" or (mode != "quick" and sum(p.stat().st_size for p in present.values()) <= FULL_UP_TO)
    for name, path in present.items():
        expected = recorded[name]
        if path.stat().st_size != expected.get("size"):
            return f"{name} has {path.stat().st_size} bytes, {expected.get('size')} were written"
        if _sha256(path, full) != expected.get("sha256" if full else "ends"):
            return f"{name} differs from what was written"
    return None
