"""Read a release back: find one configuration's files (folder or Hub), check them against the manifest, decrypt.

The result is a list of local Parquet files for `datasets` to read.  Sealed shards are opened into a folder of
the `datasets` cache named after the digests of exactly those shards; each is decrypted into a file without a name
(O_TMPFILE, which the kernel frees if the process is killed), given a name in a staging folder only once it
authenticated and matched its manifest digest, and the folder is renamed into place when every shard has; so
neither an error nor a SIGKILL leaves decrypted bytes behind. (Where the system has no unnamed files, the shards are
decrypted into the staging folder itself, which the next load removes if a kill left it: this process holds an
flock on it while it works, which the kernel drops when the process ends, so a sweep never takes a live load's.)
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from leakproof_qa.encryption.aead_stream import SealedFileError, check_passphrase, iter_unsealed, unseal_file

from .errors import ReleaseError
from .hub import download
from .manifest import MANIFEST, Entry, Manifest, file_digest, verify
from .phantomwiki import DATASET, hub_config_name
from .shards import PLAIN_SUFFIX, SEALED_SUFFIX, shard_place
from .staging import held_folder, restore, sweep

DECRYPTED = "leakproof_published"  # folder of decrypted shards inside the `datasets` cache
_REPO_ID = re.compile(r"^[\w.-]+/[\w.-]+$")


@dataclass(frozen=True)
class Located:
    """A release's manifest and where it was read: a folder, or a Hub repository at one commit."""

    source: str
    folder: Path  # the release folder, or the Hub snapshot folder of the commit
    manifest: Manifest
    manifest_sha256: str  # names the release exactly: every file's digest is in it
    commit: str | None  # the Hub commit the manifest was read at (None for a folder)
    fix: str  # how to get a bad file right


@dataclass(frozen=True)
class Opened:
    """One configuration of a release, ready for `datasets`: local Parquet files and the rows the manifest promises."""

    config_name: str
    files: list[Path]
    rows: int
    located: Located

    @property
    def source(self) -> str:
        """The release folder or Hub dataset id it was read from."""
        return self.located.source


def locate(
    source: str | Path,
    *,
    revision: str | None = None,
    hub_cache: Path | None = None,
    token: str | None = None,
    endpoint: str | None = None,
) -> Located:
    """Read the manifest of a local release folder or of a Hub repository (manifest.json alone, at the commit
    `revision` resolves to, so later downloads can be pinned to that commit)."""
    path = Path(source).expanduser()
    restore(path, f".{path.name}.previous-")  # a publish killed while it replaced this release: put the old one back
    if path.is_dir():
        manifest = Manifest.read(path)
        fix = f"publish {path} again, or copy the release again"
        return Located(str(source), path, manifest, file_digest(path / MANIFEST)[1], None, fix)
    text = str(source)
    if not _REPO_ID.match(text) or text.startswith((".", "/", "~")):
        raise ReleaseError(f"{text!r} is neither a release folder nor a Hub dataset id of the form ORG/NAME")
    snapshot = download(text, [MANIFEST], revision=revision, cache_dir=hub_cache, token=token, endpoint=endpoint)
    manifest = Manifest.read(snapshot)
    fix = f"re-download it (delete {snapshot.parent.parent} to start afresh) or ask the publisher"
    # the snapshot folder is named by its commit: what is read later comes from the manifest's own commit
    return Located(text, snapshot, manifest, file_digest(snapshot / MANIFEST)[1], snapshot.name, fix)


def _entries(manifest: Manifest, config_name: str, folder: Path) -> list[Entry]:
    """The manifest's files of `config_name`, checked for agreement with the manifest and with the folder."""
    if manifest.dataset != DATASET:
        raise ReleaseError(f"{folder} is a {manifest.dataset!r} release, not {DATASET!r}; load it with its own loader")
    entries = manifest.entries(config_name)
    if not entries and config_name in manifest.empty:
        raise ReleaseError(f"configuration {config_name!r} has no rows, so this release left it out")
    if not entries:
        names = ", ".join(manifest.config_names())
        raise ReleaseError(f"configuration {config_name!r} is not in this release; it holds {names}")
    for entry in entries:
        expected = SEALED_SUFFIX if manifest.encryption else PLAIN_SUFFIX
        if not entry.path.endswith(expected) or (manifest.encryption and entry.plaintext_sha256 is None):
            raise ReleaseError(
                f"{MANIFEST} does not match its files: {entry.path} should be a {expected} file"
                f"{' with a plaintext digest' if manifest.encryption else ''}; re-publish the release"
            )
    folders = {(folder / entry.path).parent for entry in entries}
    listed = {entry.path for entry in manifest.files}
    for directory in folders:
        for found in sorted(directory.glob(f"*{SEALED_SUFFIX if manifest.encryption else PLAIN_SUFFIX}")):
            relative = found.relative_to(folder).as_posix()
            if relative not in listed:
                raise ReleaseError(
                    f"{relative} is in the release folder but not in {MANIFEST}: the folder and its manifest do not "
                    "match; remove the file or re-publish the release"
                )
    return entries


def _check_place(path: Path, entry: Entry) -> None:
    """The shard at `path` holds the rows the manifest lists for `entry`: its own configuration and row count.

    A shard swapped or renamed into another configuration's place, together with its manifest entry, passes the
    sha256 check; the configuration its Parquet metadata names does not. (Shards of releases written before
    the metadata carried it are checked by their row count alone.)
    """
    try:
        config_name, rows = shard_place(path)
    except (OSError, ValueError, KeyError) as error:
        raise ReleaseError(
            f"{entry.path} is not a readable Parquet shard ({type(error).__name__}); re-publish or "
            "re-download the release"
        ) from None
    if config_name not in (None, entry.config_name):
        raise ReleaseError(
            f"{entry.path} holds the rows of {config_name}, not of {entry.config_name}: shards were "
            "swapped or renamed; re-publish or re-download the release"
        )
    if rows != entry.rows:
        raise ReleaseError(
            f"{entry.path} has {rows} rows but {MANIFEST} lists {entry.rows}: the release and its "
            "manifest do not match; re-publish or re-download the release"
        )


def _decrypted(folder: Path, entries: list[Entry], passphrase: str, cache_root: Path, config_name: str) -> list[Path]:
    """Open every sealed shard into the cache (or reuse an earlier opening whose digests still match)."""
    key = hashlib.sha256("".join(f"{e.path}:{e.sha256}\n" for e in entries).encode()).hexdigest()[:16]
    target = cache_root / DECRYPTED / f"{config_name}-{key}"
    sweep(target.parent, ".partial-")  # the plaintext of an opening that was killed (never a live one's)
    names = [Path(entry.path).name.removesuffix(SEALED_SUFFIX) + PLAIN_SUFFIX for entry in entries]
    if _opened_before(folder, entries, passphrase, [target / name for name in names]):
        return [target / name for name in names]
    unnamed: list[tuple[str, int]] = []  # (the shard's name, its unnamed file)
    with held_folder(target.parent, f"{target.name}.partial-") as staging:
        try:
            for name, entry in zip(names, entries):
                handle = _unnamed_file(target.parent)
                if handle is not None:
                    unnamed.append((name, handle))
                _open_shard(folder, entry, passphrase, staging / name, handle)
            _link_unnamed(unnamed, staging)  # named only once every shard is whole and checked
            shutil.rmtree(target, ignore_errors=True)
            os.replace(staging, target)
        finally:
            for _, handle in unnamed:
                os.close(handle)
    return [target / name for name in names]


def _opened_before(folder: Path, entries: list[Entry], passphrase: str, opened: list[Path]) -> bool:
    """Whether an earlier opening of these shards is whole in the cache; it is reused only for the right passphrase."""
    expected = [(entry.plaintext_size, entry.plaintext_sha256) for entry in entries]
    if not all(path.is_file() and file_digest(path) == digest for path, digest in zip(opened, expected)):
        return False
    for path, entry in zip(opened, entries):
        _check_place(path, entry)
    try:
        for entry in entries:
            check_passphrase(folder / entry.path, passphrase, where=entry.path)
    except SealedFileError as error:
        raise ReleaseError(str(error)) from None
    return True


def _open_shard(folder: Path, entry: Entry, passphrase: str, named: Path, handle: int | None) -> None:
    """Decrypt one shard into the unnamed file `handle` (or, where there is none, into `named`) and check it against
    its manifest entry before its plaintext can reach the cache."""
    plain = Path(f"/proc/self/fd/{handle}") if handle is not None else named
    try:
        if handle is None:  # no unnamed files here: a kill leaves this file until the next load
            unseal_file(folder / entry.path, plain, passphrase, where=entry.path)
        else:
            with open(folder / entry.path, "rb") as source, open(handle, "wb", closefd=False) as sink:
                for chunk in iter_unsealed(source, passphrase, where=entry.path):
                    sink.write(chunk)
    except SealedFileError as error:
        raise ReleaseError(str(error)) from None
    if file_digest(plain) != (entry.plaintext_size, entry.plaintext_sha256):
        raise ReleaseError(
            f"{entry.path} decrypts, but not to the Parquet bytes {MANIFEST} lists: the release and its "
            "manifest do not match; re-publish the release"
        )
    _check_place(plain, entry)


def _link_unnamed(unnamed: list[tuple[str, int]], staging: Path) -> None:
    """Give each unnamed file its name in `staging`: linkat(AT_SYMLINK_FOLLOW) of /proc/self/fd/N."""
    if not unnamed:
        return
    descriptors = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name, handle in unnamed:
            os.link(str(handle), staging / name, src_dir_fd=descriptors, follow_symlinks=True)
    finally:
        os.close(descriptors)


def _unnamed_file(folder: Path) -> int | None:
    """A file without a name in `folder` (Linux's O_TMPFILE), or None where the system has none: the kernel frees
    it when the process ends, however it ends, so plaintext decrypted into it never outlives a killed load."""
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None:
        return None
    try:
        return os.open(folder, flag | os.O_RDWR, 0o600)
    except OSError as error:
        if error.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            return None
        raise


def open_release(
    source: str | Path,
    name: str,
    *,
    passphrase: str | None = None,
    cache_root: Path,
    revision: str | None = None,
    hub_cache: Path | None = None,
    token: str | None = None,
    endpoint: str | None = None,
) -> Opened:
    """Check and, if sealed, decrypt configuration `name` of a release; return its local Parquet files."""
    config_name = hub_config_name(name)
    located = locate(source, revision=revision, hub_cache=hub_cache, token=token, endpoint=endpoint)
    folder, manifest = located.folder, located.manifest
    paths = [entry.path for entry in manifest.entries(config_name)]
    if located.commit is not None and paths:
        download(located.source, paths, revision=located.commit, cache_dir=hub_cache, token=token, endpoint=endpoint)
    entries = _entries(manifest, config_name, folder)
    verify(folder, entries, located.fix)
    rows = sum(entry.rows for entry in entries)
    if not manifest.encryption:
        if passphrase:
            raise ReleaseError(
                f"{config_name} of {source} is not encrypted, so it takes no passphrase; leave "
                "passphrase out (or point at the encrypted release you meant)"
            )
        for entry in entries:
            _check_place(folder / entry.path, entry)
        return Opened(config_name, [folder / entry.path for entry in entries], rows, located)
    if not passphrase:
        raise ReleaseError(
            f"{config_name} of {source} is encrypted: pass passphrase=... (the release's README.md gives it)"
        )
    files = _decrypted(folder, entries, passphrase, cache_root, config_name)
    return Opened(config_name, files, rows, located)
