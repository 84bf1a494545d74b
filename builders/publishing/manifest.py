"""`manifest.json`: every published file with its configuration, subset, rows, size and sha256.

The manifest is written last, from the digests taken while the files were written, and read
first by the loader, which checks every file it uses against it before reading a byte of data.
Keys are sorted and nothing depends on the clock, so the same release gives the same manifest.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .errors import ReleaseError
from .shards import Shard

MANIFEST = "manifest.json"
FORMAT = "leakproof-qa release"
FORMAT_VERSION = 1
ENCRYPTION = "LPQ-AEAD v1: AES-256-GCM, scrypt, 1 MiB chunks (encryption/aead_stream.py)"
_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")  # one path part: no separator, no "..", no leading dot
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,200}$")
_HEX = re.compile(r"^[0-9a-f]{64}$")
_SHARD = re.compile(r"^test-\d{5}-of-\d{5}\.parquet(?:-aead)?$")  # what phantom_wiki publish writes
_STRINGS = ("path", "config_name", "configuration", "subset", "split", "sha256")


@dataclass(frozen=True)
class Entry:
    """One published file."""

    path: str
    config_name: str  # the Hub configuration, e.g. n5000_s1_corpus
    configuration: str  # the universe, e.g. n5000_s1
    subset: str
    split: str
    rows: int
    size: int
    sha256: str
    plaintext_size: int | None = None
    plaintext_sha256: str | None = None

    @classmethod
    def of(cls, shard: Shard, config_name: str, configuration: str, subset: str, split: str = "test") -> Entry:
        """The entry of a freshly written shard."""
        return cls(
            shard.path,
            config_name,
            configuration,
            subset,
            split,
            shard.rows,
            shard.size,
            shard.sha256,
            shard.plaintext_size,
            shard.plaintext_sha256,
        )


@dataclass(frozen=True)
class Manifest:
    """What a release holds and how it was made."""

    dataset: str
    package_version: str
    code_digest: str
    encryption: str | None
    files: list[Entry]
    configurations: dict[str, dict[str, Any]] = field(default_factory=dict)  # universe name -> its settings
    empty: list[str] = field(default_factory=list)  # Hub configurations left out because they have no rows

    def entries(self, config_name: str) -> list[Entry]:
        """The files of one Hub configuration, in shard order."""
        return sorted((e for e in self.files if e.config_name == config_name), key=lambda e: e.path)

    def config_names(self) -> list[str]:
        """Every Hub configuration of the release, in publishing order."""
        return list(dict.fromkeys(entry.config_name for entry in self.files))

    def rows(self, config_name: str) -> int:
        """Rows of one Hub configuration."""
        return sum(entry.rows for entry in self.entries(config_name))

    def to_json(self) -> str:
        """The manifest as canonical JSON (sorted keys, two-space indent, final newline)."""
        document = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "dataset": self.dataset,
            "package_version": self.package_version,
            "code_digest": self.code_digest,
            "encryption": self.encryption,
            "configurations": self.configurations,
            "empty": self.empty,
            "files": [
                {key: value for key, value in asdict(entry).items() if value is not None} for entry in self.files
            ],
        }
        return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    def write(self, folder: Path) -> Path:
        """Write `folder/manifest.json`."""
        path = folder / MANIFEST
        path.write_text(self.to_json(), encoding="utf-8")
        return path

    @classmethod
    def read(cls, folder: Path) -> Manifest:
        """Read `folder/manifest.json`, or raise a one-line ReleaseError saying what is wrong with it."""
        path = folder / MANIFEST
        if not path.is_file():
            raise ReleaseError(
                f"{folder} has no {MANIFEST}: it is not a release written by `phantom_wiki publish` "
                "(or it is incomplete); point at the release folder or Hub repository"
            )
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
            if document.get("format") != FORMAT:
                raise ReleaseError(f"{path} is not a {FORMAT} manifest; point at a folder written by a publish command")
            if document.get("format_version") != FORMAT_VERSION:
                raise ReleaseError(
                    f"{path} has format version {document.get('format_version')}; this package reads version "
                    f"{FORMAT_VERSION}: upgrade leakproof-qa"
                )
            files = [_entry(entry, document["dataset"], path) for entry in document["files"]]
            return cls(
                document["dataset"],
                document["package_version"],
                document["code_digest"],
                document["encryption"],
                files,
                document.get("configurations", {}),
                document.get("empty", []),
            )
        except (ValueError, KeyError, TypeError) as error:
            if isinstance(error, ReleaseError):
                raise
            what = f"{type(error).__name__}: {error}"
            raise ReleaseError(f"{path} is damaged ({what}); re-download the release") from None


def _entry(raw: Any, dataset: Any, manifest: Path) -> Entry:
    """One file entry, checked before any file is read or deleted: a release never points outside its folder.

    Its path is `folder/file`, two plain parts (no absolute path, no "..", no separator inside a part), of the
    form the publisher writes (`{config}/test-00000-of-00001.parquet[-aead]` for phantom_wiki); its counts are
    whole numbers and its digests hex.
    """
    entry = Entry(**raw)  # an unknown or missing field is a TypeError: a damaged manifest
    problems = [name for name in _STRINGS if not isinstance(getattr(entry, name), str)]
    problems += [name for name in ("rows", "size") if type(getattr(entry, name)) is not int or getattr(entry, name) < 0]
    if entry.plaintext_size is not None and (type(entry.plaintext_size) is not int or entry.plaintext_size < 0):
        problems.append("plaintext_size")
    if problems:
        raise ReleaseError(
            f"{manifest} lists a file whose {problems[0]} is {getattr(entry, problems[0])!r}; "
            "the manifest is damaged or was edited: re-download the release"
        )
    parts = entry.path.split("/")
    safe = len(parts) == 2 and all(_PART.match(part) for part in parts)
    if safe and dataset == "phantom_wiki":
        safe = parts[0] == entry.config_name and bool(_SHARD.match(parts[1]))
    if not safe:
        raise ReleaseError(
            f"{manifest} lists {entry.path!r}, which is not a file this release can hold (expected "
            "FOLDER/FILE inside the release); refusing to read or delete it: re-download the release"
        )
    digests = [entry.sha256] + ([entry.plaintext_sha256] if entry.plaintext_sha256 is not None else [])
    names = (entry.config_name, entry.configuration, entry.subset, entry.split)
    if not all(isinstance(d, str) and _HEX.match(d) for d in digests) or not all(_NAME.match(n) for n in names):
        raise ReleaseError(
            f"{manifest} lists {entry.path} with a malformed name or sha256; the manifest is damaged "
            "or was edited: re-download the release"
        )
    return entry


def file_digest(path: Path, block: int = 1 << 20) -> tuple[int, str]:
    """(size, sha256 hex) of a file, read in blocks."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(block):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


def verify(folder: Path, entries: Iterable[Entry], fix: str) -> None:
    """Check that every entry's file exists with the listed size and sha256; `fix` says how to get it right."""
    for entry in entries:
        path = folder / entry.path
        if not path.is_file():
            raise ReleaseError(f"{entry.path} is listed in {MANIFEST} but missing from {folder}; {fix}")
        size, sha256 = file_digest(path)
        if (size, sha256) != (entry.size, entry.sha256):
            what = f"{size} bytes instead of {entry.size}" if size != entry.size else "its sha256 differs"
            raise ReleaseError(
                f"{entry.path} does not match {MANIFEST} ({what}): the file was altered or is incomplete; {fix}"
            )
