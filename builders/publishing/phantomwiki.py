"""Publish PhantomWiki configurations as one folder that is exactly a Hub dataset repository.

    {config}/test-00000-of-0000N.parquet        plain shards (or .parquet-aead, sealed), per configuration
    README.md                                   the dataset card (cards/phantom_wiki.md)
    manifest.json                               every file with its configuration, subset, rows, size, sha256

Hub configuration names follow the package's grammar: the universe name (``n5000_s1``, ``n500_d10_s3``)
for the questions and ``{universe}_{subset}`` for the other subsets.  Each universe is generated once
and its subsets are streamed into shards, so peak memory is that of generating the universe.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from leakproof_qa import cards

from .. import __version__
from ..checks import is_whole
from ..digest import PHANTOMWIKI_CODE, code_digest
from ..locks import FolderBusy, held
from ..neoqa import CONFIG_NAMES as NEOQA_CONFIG_NAMES
from ..phantomwiki import rows as engine
from ..phantomwiki.config import SUBSETS, ConfigError, Settings, format_name, parse_name, parse_universe, settings_from
from ..phantomwiki.features import arrow_schema, subset_features
from ..processes import each_result
from .card import CARD, hub_configs, render, size_category
from .errors import PublishError, refuse
from .hub import HubTarget, open_repo
from .manifest import ENCRYPTION, MANIFEST, Entry, Manifest
from .shards import MAX_SHARD_BYTES, PLAIN_SUFFIX, SEALED_SUFFIX, shard_schema, write_shards
from .staging import remove_orphans, restore
from .staging import staging as staging_folder

DATASET = "phantom_wiki"
MIN_SHARD_BYTES = 10_000  # smaller shards would hold a row or two each
REPO_PLACEHOLDER = "<org>/<name>"
MAX_NUM_PROC = 256

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Release:
    """A release folder (None once a temporary one is uploaded and removed), its manifest, and the Hub commit."""

    folder: Path | None
    manifest: Manifest
    commit_url: str | None = None

    def files(self) -> list[str]:
        """Every file of the release, relative to its folder: the shards, the card and the manifest."""
        return [entry.path for entry in self.manifest.files] + [CARD, MANIFEST]


def hub_config_name(name: str) -> str:
    """The Hub configuration holding `name` (any spelling the grammar allows): n5000_d20_s1_questions -> n5000_s1."""
    return format_name(*parse_name(name))


def _universes(configurations: Sequence[str], knobs: dict[str, object]) -> list[tuple[str, Settings]]:
    """(canonical name, settings) of each configuration, refusing subset suffixes and repeats."""
    if isinstance(configurations, str):
        configurations = [configurations]
    if not configurations:
        raise ConfigError("give at least one configuration to publish, e.g. n5000_s1")
    universes: dict[str, Settings] = {}
    for name in configurations:
        if name in NEOQA_CONFIG_NAMES:
            raise refuse(repr(name), "it is a NeoQA configuration: decrypted or rebuilt NeoQA rows")
        canonical = format_name(*parse_universe(name, "publish", "choose subsets with --subsets (subsets=[...])"))
        if canonical in universes:
            raise ConfigError(f"configuration {canonical!r} is given twice")
        universes[canonical] = settings_from(name, **knobs)[0]
    return list(universes.items())


def _subsets(subsets: Iterable[str] | None) -> list[str]:
    chosen = list(SUBSETS) if subsets is None else list(subsets)
    unknown = [subset for subset in chosen if subset not in SUBSETS]
    if unknown or not chosen:
        what = f"unknown subset {unknown[0]!r}" if unknown else "no subset chosen"
        raise ConfigError(f"{what}; choose from {', '.join(SUBSETS)}")
    return [subset for subset in SUBSETS if subset in chosen]


def _writing_order(subsets: list[str]) -> list[str]:
    """The database (one row: the whole universe as a Prolog program) goes last, when nothing else needs the text."""
    return [subset for subset in subsets if subset != "database"] + (["database"] if "database" in subsets else [])


def _config_names(universes: list[tuple[str, Settings]], subsets: list[str]) -> list[str]:
    """The Hub configurations a release of these universes and subsets holds."""
    return [format_name(s.size, s.depth, s.seed, subset) for _, s in universes for subset in subsets]


def _refuse_dropping(held: Iterable[str], kept: Sequence[str], where: str) -> None:
    """A release replaces the one already there; refuse when that would silently delete whole configurations."""
    dropped = sorted(set(held) - set(kept))
    if dropped:
        raise PublishError(
            f"{where} already holds {', '.join(dropped)}, which this release leaves out and would delete: name those "
            "configurations and subsets too to keep them (unchanged files are not uploaded again), "
            "or pass --replace (replace=True) to delete them"
        )


def _prepare_out(out: Path, names: Sequence[str], replace: bool) -> Manifest | None:
    """Refuse an `out` that holds anything but an earlier release, or one with configurations not in `names`
    (unless `replace`); return the earlier release's manifest if there is one."""
    here, target = Path.cwd().resolve(), out.resolve()
    if target == here or target in here.parents:
        raise PublishError(
            f"--out {out} is the folder you are in{'' if target == here else ' or holds it'}: a release replaces its "
            "folder whole, which would pull it from under you; give a folder of its own, e.g. --out releases/NAME"
        )
    if not out.exists():
        return None
    if not out.is_dir():
        raise PublishError(f"--out {out} is a file; give a new or empty folder")
    if (out / MANIFEST).is_file():
        old = Manifest.read(out)
        if not replace:
            _refuse_dropping(old.config_names(), names, f"--out {out}")
        return old
    if any(out.iterdir()):
        raise PublishError(f"--out {out} is not empty and holds no release ({MANIFEST}); give a new or empty folder")
    return None


def _previous(out: Path) -> str:
    """The marker of the folder an old release is moved aside to while the new one is moved in."""
    return f".{out.name}.previous-"


def _carry_over(out: Path, staging: Path) -> None:
    """Copy into `staging` the files of `out` that are not part of its release (a user's notes): they stay."""
    old = Manifest.read(out) if (out / MANIFEST).is_file() else None
    ours = {CARD, MANIFEST} | {entry.path for entry in (old.files if old else [])}
    for path in sorted(out.rglob("*")):
        relative = path.relative_to(out).as_posix()
        if relative in ours or (path.is_dir() and not path.is_symlink()) or (staging / relative).exists():
            continue
        (staging / relative).parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            (staging / relative).symlink_to(os.readlink(path))
        else:
            shutil.copy2(path, staging / relative)


def _replace_release(staging: Path, out: Path) -> None:
    """Put the new release, complete in `staging`, in the place of `out` as a whole.

    Two renames: the old folder aside, the new one in; then the old one is deleted. A process killed before
    the first leaves the old release in place; after the second, the new one; between them, the old one whole
    beside it, which the next publish or load puts back (staging.restore). Nothing is ever half replaced.
    Files of the folder that are not the release's are copied over first, so they stay.
    """
    for folder in sorted(staging.rglob("*"), reverse=True):  # an empty subset's folder holds no shard
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    if not out.exists():
        os.replace(staging, out)
        return
    _carry_over(out, staging)
    previous = staging_folder(out.parent, _previous(out))
    os.replace(out, previous)
    os.replace(staging, out)
    shutil.rmtree(previous, ignore_errors=True)


def write_shards_of(
    universe: str,
    settings: Settings,
    chosen: list[str],
    staging: Path,
    passphrase: str | None,
    max_shard_bytes: int,
    progress: Progress | None = None,
) -> tuple[list[Entry], list[str]]:
    """Generate one universe and write its chosen subsets as shards into `staging`: (their entries, the Hub
    configurations left out for having no rows). Each subset is streamed, and what only earlier subsets need is
    freed before the database's one big row."""
    with_questions, with_articles, _ = engine.needs(chosen)  # the evidence: built when a subset asks for it
    generated = engine.generate(settings, with_questions=with_questions, with_articles=with_articles, progress=progress)
    entries: list[Entry] = []
    empty: list[str] = []
    for subset in _writing_order(chosen):
        if subset == "database":  # last: the articles, questions and index are freed before its one big row
            generated.articles, generated.questions = [], []
            generated.derived.clear()
            generated.universe.forget_indexes()
        config = format_name(settings.size, settings.depth, settings.seed, subset)
        if progress:
            progress(f"writing {config}")
        schema = shard_schema(arrow_schema(subset, settings), subset_features(subset, settings), cards.CANARY, config)
        shards = write_shards(
            engine.ROWS[subset](generated),
            staging,
            f"{config}/test",
            schema,
            passphrase=passphrase,
            max_bytes=max_shard_bytes,
        )
        entries += [Entry.of(shard, config, universe, subset) for shard in shards]
        if not shards:
            empty.append(config)
    return entries, empty


def _each_universe(
    universes: list[tuple[str, Settings]],
    chosen: list[str],
    staging: Path,
    passphrase: str | None,
    max_shard_bytes: int,
    num_proc: int,
    progress: Progress | None,
) -> Iterator[tuple[list[Entry], list[str]]]:
    """`write_shards_of` each universe, in order: in this process, or in a pool of `num_proc` (one universe
    each at a time; the shards' bytes do not depend on which process wrote them)."""
    jobs = [(universe, settings, chosen, staging, passphrase, max_shard_bytes) for universe, settings in universes]
    if num_proc == 1 or len(universes) == 1:  # here, with the caller's progress
        for job in jobs:
            yield write_shards_of(*job, progress)
        return
    for (universe, _), written in zip(universes, each_result(write_shards_of, jobs, num_proc)):
        if progress:
            progress(f"wrote {universe}")
        yield written


def write_release(
    configurations: Sequence[str],
    out: str | Path,
    *,
    subsets: Iterable[str] | None = None,
    passphrase: str | None = None,
    passphrase_in_card: bool = True,
    repo_id: str | None = None,
    max_shard_bytes: int = MAX_SHARD_BYTES,
    replace: bool = False,
    num_proc: int = 1,
    progress: Progress | None = None,
    **knobs: object,
) -> Release:
    """Generate each configuration once and write the chosen subsets, the card and the manifest to `out`, with
    `num_proc` processes writing universes side by side (the same bytes as one).

    An earlier release in `out` is replaced; one holding configurations this release leaves out is refused
    unless `replace` is set.
    """
    _check_num_proc(num_proc)
    if not is_whole(max_shard_bytes) or max_shard_bytes < MIN_SHARD_BYTES:
        raise PublishError(
            f"max_shard_bytes={max_shard_bytes!r} must be a whole number of bytes, at least "
            f"{MIN_SHARD_BYTES} (default {MAX_SHARD_BYTES})"
        )
    universes = _universes(configurations, knobs)
    chosen = _subsets(subsets)
    out = Path(os.path.normpath(out))
    _prepare_out(out, _config_names(universes, chosen), replace)  # before anything is made beside it
    lock = out.parent / f".{out.name}.lock"
    try:
        with held(lock, f"--out {out}", "wait for that publish to end, or choose another --out"):
            return _write_locked(
                universes,
                chosen,
                out,
                passphrase,
                passphrase_in_card,
                repo_id,
                max_shard_bytes,
                replace,
                num_proc,
                progress,
            )
    except FolderBusy as error:
        raise PublishError(str(error)) from None
    except OSError as error:
        full = error.errno in (errno.ENOSPC, errno.EDQUOT)
        raise PublishError(
            f"cannot write {error.filename or out}: {error.strerror or error}; "
            + ("free some space or choose another --out; " if full else "")
            + "nothing was half-written: the folder holds what it held before"
        ) from None


def _write_locked(
    universes: list[tuple[str, Settings]],
    chosen: list[str],
    out: Path,
    passphrase: str | None,
    passphrase_in_card: bool,
    repo_id: str | None,
    max_shard_bytes: int,
    replace: bool,
    num_proc: int,
    progress: Progress | None,
) -> Release:
    """write_release's work, while this process holds the folder's lock: no other publish reads or writes it."""
    restore(out, _previous(out))  # a run killed between moving the old release aside and the new one in
    remove_orphans(out.parent, _previous(out))
    remove_orphans(out.parent, f".{out.name}.publishing-")  # what a killed run left: it may hold plaintext
    _prepare_out(out, _config_names(universes, chosen), replace)
    staging = staging_folder(out.parent, f".{out.name}.publishing-")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        entries: list[Entry] = []
        empty: list[str] = []
        writes = _each_universe(universes, chosen, staging, passphrase, max_shard_bytes, num_proc, progress)
        for written, blank in writes:
            entries += written
            empty += blank
            for config in blank:
                if progress:
                    progress(f"{config} has no rows: left out (datasets cannot load an empty split)")
        entries.sort(key=lambda e: ([u for u, _ in universes].index(e.configuration), SUBSETS.index(e.subset)))
        if not entries:
            raise PublishError(
                f"nothing to publish: every chosen subset has no rows ({', '.join(empty)}); check the settings"
            )
        manifest = Manifest(
            dataset=DATASET,
            package_version=__version__,
            code_digest=code_digest(*PHANTOMWIKI_CODE),
            encryption=ENCRYPTION if passphrase else None,
            files=entries,
            configurations={universe: asdict(settings) for universe, settings in universes},
            empty=empty,
        )
        manifest.write(staging)
        (staging / CARD).write_text(
            _card(manifest, passphrase if passphrase_in_card else None, bool(passphrase), repo_id), encoding="utf-8"
        )
        release = Release(out, manifest)
        _replace_release(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return release


def _check_num_proc(num_proc: object) -> None:
    if not is_whole(num_proc) or not 1 <= num_proc <= MAX_NUM_PROC:
        raise PublishError(
            f"num_proc={num_proc!r} must be a whole number of processes from 1 to {MAX_NUM_PROC} (each holds a "
            "universe; more than the machine's cores gain nothing)"
        )


def _card(manifest: Manifest, passphrase: str | None, encrypted: bool, repo_id: str | None) -> str:
    """The dataset card of a release."""
    fixed = cards.metadata("phantom_wiki")
    names = manifest.config_names()
    default = names[0]
    universes = list(manifest.configurations)
    metadata = {
        key: fixed[key]
        for key in (
            "language",
            "annotations_creators",
            "language_creators",
            "multilinguality",
            "source_datasets",
            "task_categories",
            "tags",
        )
    }
    metadata.update(
        license=fixed["encrypted_license"] if encrypted else fixed["license"],
        pretty_name=f"{fixed['pretty_name']} ({', '.join(universes)})",
        size_categories=[size_category(max(manifest.rows(name) for name in names))],
    )
    suffix = SEALED_SUFFIX if encrypted else PLAIN_SUFFIX
    if encrypted:
        metadata["viewer"] = False
    else:
        metadata["configs"] = hub_configs(names, default, {name: f"{name}/test-*{suffix}" for name in names})
    configs = [
        {
            "name": name,
            "subset": manifest.entries(name)[0].subset,
            "rows": manifest.rows(name),
            "files": len(manifest.entries(name)),
            "bytes": sum(e.size for e in manifest.entries(name)),
            "default": name == default,
        }
        for name in names
    ]
    return render(
        "phantom_wiki.md",
        metadata,
        homepage=fixed["homepage"],
        version=manifest.package_version,
        code_digest=manifest.code_digest,
        encrypted=encrypted,
        passphrase=passphrase,
        repo=repo_id or REPO_PLACEHOLDER,
        default=default,
        configs=configs,
        universes=universes,
        citation=cards.text("phantom_wiki.bib"),
        settings={u: json.dumps(s, indent=2) for u, s in manifest.configurations.items()},
    )


def publish(
    configurations: Sequence[str],
    out: str | Path | None = None,
    *,
    subsets: Iterable[str] | None = None,
    encrypt: bool = False,
    passphrase: str | None = None,
    passphrase_in_card: bool = True,
    hub: HubTarget | None = None,
    max_shard_bytes: int = MAX_SHARD_BYTES,
    replace: bool = False,
    num_proc: int = 1,
    progress: Progress | None = None,
    **knobs: object,
) -> Release:
    """Write a release folder (`out`, or a temporary one) and, with `hub`, upload it to the Hub in one commit.

    The release replaces what the folder or the repo (at its revision) held; if that held configurations this one
    leaves out, nothing is done unless `replace` is set (then their files are deleted in the same commit).
    """
    repo_id = hub.repo_id if hub is not None else None
    if encrypt and not passphrase:
        raise PublishError("encrypt=True needs a passphrase (CLI: --passphrase-file FILE or --passphrase-env VAR)")
    if passphrase and not encrypt:
        raise PublishError("a passphrase was given without encrypt=True (CLI: --encrypt); say which you mean")
    _check_num_proc(num_proc)
    if out is None and hub is None:
        raise PublishError("say where to publish: a folder (--out DIR), a Hub repo (--repo-id ORG/NAME), or both")
    # a bad name or folder, or a release that would drop configurations, fails before anything is generated
    names = _config_names(_universes(configurations, knobs), _subsets(subsets))
    if out is not None:
        _prepare_out(Path(out), names, replace)
    repo = None
    if hub is not None:
        if progress:
            progress(f"preparing {repo_id}")
        repo = open_repo(hub)
        if not replace:
            branch = f" (branch {hub.revision!r})" if hub.revision else ""
            _refuse_dropping(repo.data_configs(), names, f"Hub dataset {repo_id!r}{branch}")
    temporary = tempfile.TemporaryDirectory(prefix="phantom_wiki-publish-") if out is None else None
    try:
        folder = Path(temporary.name) / "release" if temporary is not None else Path(str(out))
        release = write_release(
            configurations,
            folder,
            subsets=subsets,
            passphrase=passphrase if encrypt else None,
            passphrase_in_card=passphrase_in_card,
            repo_id=repo_id,
            max_shard_bytes=max_shard_bytes,
            replace=replace,
            num_proc=num_proc,
            progress=progress,
            **knobs,
        )
        if repo is None:
            return release
        if progress:
            progress(f"uploading to {repo_id}")
        manifest = release.manifest
        message = (
            f"Publish {', '.join(manifest.configurations)} ({'encrypted, ' if encrypt else ''}"
            f"leakproof-qa {manifest.package_version}, code {manifest.code_digest})"
        )
        return Release(None if temporary else folder, manifest, repo.commit(folder, release.files(), message))
    finally:
        if temporary:
            temporary.cleanup()
