"""Publish the official NeoQA release files verbatim, still encrypted, with a card carrying NeoQA's attribution.

NeoQA's data is CC BY-ND 4.0: it may be shared verbatim with attribution, but adapted material may not be
shared.  So this publishes only the release's own files, byte for byte, after checking that each one is
still in the release's encrypted form with the release key and holds raw release records; decrypted files,
re-encrypted files and rebuilt rows (instances, or any `datasets` object) are refused with a one-line error.
The layout (``data/{split}.{kind}.jsonl`` plus ``manifest.json``) is what ``neoqa.load_dataset(..., repo_id=...)``
reads, and that loader checks the files against the manifest.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from leakproof_qa import cards
from leakproof_qa.encryption.neoqa_codec import (
    RELEASE_KEY,
    ReleaseFileNotFoundError,
    ReleaseFormatError,
    decode_line,
    is_encrypted_line,
)

from ..neoqa import CONFIG_NAMES, DEFAULT_HUB_REPO, RAW_KINDS, SPLITS
from ..neoqa.release import locate_release_file, read_rows, release_filename
from .card import CARD, render, size_category
from .errors import PublishError, ReleaseError, refuse
from .hub import HubTarget, download, open_repo
from .manifest import MANIFEST, Entry, Manifest, file_digest, verify

DATASET = "neoqa"
FOLDER = "data"
RELEASE_FILES = tuple(release_filename(split, kind) for split in SPLITS for kind in RAW_KINDS)
CODEC = f"NeoQA release codec: base64 of each JSON line XOR-ed with key % 256 (published key {RELEASE_KEY})"


def release_source(
    data_dir: str | Path | None,
    repo_id: str | None,
    filenames: Sequence[str],
    revision: str | None = None,
    cache_dir: str | None = None,
) -> Path:
    """The directory holding the release files a NeoQA configuration reads: `data_dir` as given, or a Hub snapshot
    of `repo_id` (the one bounded Hub client downloads only those files and the manifest); either way the files are
    checked against the folder's manifest.json when it has one (`python -m neoqa publish` writes it)."""
    if data_dir is not None and repo_id is not None:
        raise ReleaseFormatError("pass either data_dir (local release files) or repo_id (Hub dataset), not both")
    if data_dir is not None:
        path = Path(data_dir).expanduser()
        if not path.is_dir():
            raise ReleaseFileNotFoundError(
                f"data_dir {str(path)!r} is not a directory; pass the directory holding the NeoQA release files"
            )
        return _checked(path, filenames, "copy the release files again")
    if repo_id is not None:
        try:
            root = download(
                repo_id, [f"*{name}" for name in filenames] + [MANIFEST], revision=revision, cache_dir=cache_dir
            )
        except ReleaseError as error:
            raise ReleaseFileNotFoundError(
                f"could not fetch the NeoQA release from Hub dataset {repo_id!r} ({error}); "
                "pass data_dir=<local directory with the release files> instead"
            ) from None
        return _checked(root, filenames, "re-download them (delete the snapshot from the Hugging Face cache)")
    raise ReleaseFileNotFoundError(
        "NeoQA needs its release files: pass data_dir=<directory with dev.news.jsonl etc.> "
        f"or repo_id=<Hub dataset holding them, e.g. {DEFAULT_HUB_REPO!r}>"
    )


def _checked(root: Path, filenames: Sequence[str], fix: str) -> Path:
    """`root`, once the files it lists in its manifest (if it has one) have their recorded sizes and sha256."""
    if (root / MANIFEST).is_file():
        verify(root, [entry for entry in Manifest.read(root).files if Path(entry.path).name in filenames], fix)
    return root


def _first_line(path: Path) -> str:
    with path.open("rb") as handle:
        for raw in handle:
            line = raw.decode("utf-8", errors="replace").strip()
            if line:
                return line
    raise PublishError(f"{path} is empty; it is not an official NeoQA release file")


def check_verbatim(path: Path, split: str, kind: str) -> int:
    """Refuse a release file that is decrypted, re-encrypted or not raw release records; return its record count."""
    first = _first_line(path)
    if not is_encrypted_line(first):
        raise refuse(path.name, "it is decrypted NeoQA text (plain JSON lines)")
    try:
        decode_line(first, RELEASE_KEY, where=path.name)
    except ReleaseFormatError:
        raise refuse(
            path.name, f"it is not encrypted with the release key {RELEASE_KEY}, so it is not the release's own file"
        ) from None
    try:
        return len(read_rows(path.parent, split, kind, RELEASE_KEY))
    except ReleaseFormatError as error:
        raise refuse(path.name, f"it does not hold the release's raw records ({error})") from None


def write_release(data_dir: str | Path, out: str | Path, repo_id: str | None = None) -> tuple[Path, list[str]]:
    """Copy the six raw release files verbatim into `out/data/`, with a card and a manifest; return (out, files)."""
    root = Path(data_dir).expanduser()
    if not root.is_dir():
        raise PublishError(f"--data-dir {root} is not a directory; give the folder holding the NeoQA release files")
    out = Path(out)
    if out.exists() and any(out.iterdir()) and not (out / MANIFEST).is_file():
        raise PublishError(f"--out {out} is not empty and holds no release ({MANIFEST}); give a new or empty folder")
    entries = []
    for split in SPLITS:
        for kind in RAW_KINDS:
            source = locate_release_file(root, release_filename(split, kind))
            records = check_verbatim(source, split, kind)
            target = out / FOLDER / source.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            size, sha256 = file_digest(target)
            entries.append(Entry(f"{FOLDER}/{source.name}", kind, DATASET, kind, split, records, size, sha256))
    manifest = Manifest(
        dataset=DATASET, package_version="official release", code_digest="", encryption=CODEC, files=entries
    )
    manifest.write(out)
    fixed = cards.metadata("neoqa")
    metadata = {
        key: fixed[key]
        for key in (
            "pretty_name",
            "license",
            "language",
            "annotations_creators",
            "language_creators",
            "multilinguality",
            "source_datasets",
            "task_categories",
            "tags",
        )
    }
    metadata.update(viewer=False, size_categories=[size_category(max(entry.rows for entry in entries))])
    text = render(
        "neoqa.md",
        metadata,
        homepage=fixed["homepage"],
        repo=repo_id or "<org>/<name>",
        key=RELEASE_KEY,
        files=entries,
        citation=cards.text("neoqa.bib"),
        configs=", ".join(CONFIG_NAMES),
    )
    (out / CARD).write_text(text, encoding="utf-8")
    return out, [entry.path for entry in entries] + [CARD, MANIFEST]


def publish(
    data_dir: Any,
    out: str | Path | None = None,
    *,
    hub: HubTarget | None = None,
) -> tuple[Path | None, str | None]:
    """Publish the release files of `data_dir` verbatim to `out` and/or the Hub; return (folder, commit URL)."""
    repo_id = hub.repo_id if hub is not None else None
    if not isinstance(data_dir, (str, os.PathLike)):
        raise refuse(
            f"a {type(data_dir).__name__}",
            "only the release files are published, never decrypted or rebuilt NeoQA rows",
        )
    if out is None and repo_id is None:
        raise PublishError("say where to publish: a folder (--out DIR), a Hub repo (--repo-id ORG/NAME), or both")
    with tempfile.TemporaryDirectory(prefix="neoqa-publish-") as scratch:
        folder, files = write_release(Path(data_dir), Path(out) if out is not None else Path(scratch), repo_id)
        commit = None
        if hub is not None:
            repo = open_repo(hub)
            commit = repo.commit(folder, files, "Publish the official NeoQA release files verbatim (CC BY-ND 4.0)")
    return (folder if out is not None else None), commit
