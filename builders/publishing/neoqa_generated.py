"""Publish generated NeoQA configurations (our data: CC BY 4.0 plain, CC BY-ND 4.0 sealed) as a Hub-ready folder.

    {name}_{subset}/test-00000-of-0000N.parquet    plain shards (or .parquet-aead, sealed), per subset
    README.md                                       a dataset card naming the settings, the license and the canary
    manifest.json                                   every file with its configuration, subset, rows, size, sha256

The same shard writer, manifest and card machinery as `phantom_wiki publish`. The release's text is never
involved: a generated configuration holds only fictional text drawn from our word lists and templates.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pyarrow as pa

from leakproof_qa import cards

from .. import __version__
from ..neoqa.generate import GeneratedSplit
from ..neoqa.settings import SUBSETS, ConfigError, Settings, format_name, settings_from
from .card import CARD, hub_configs, size_category
from .errors import PublishError
from .hub import HubTarget, open_repo
from .manifest import ENCRYPTION, MANIFEST, Entry, Manifest
from .shards import MAX_SHARD_BYTES, PLAIN_SUFFIX, SEALED_SUFFIX, shard_schema, write_shards

DATASET = "neoqa-generated"
PLAIN_LICENSE = "cc-by-4.0"
SEALED_LICENSE = "cc-by-nd-4.0"


def _configurations(names: Sequence[str] | str, knobs: dict[str, Any]) -> list[tuple[str, Settings]]:
    """(canonical name, settings) of each generated configuration to publish; subsets are chosen apart."""
    names = [names] if isinstance(names, str) else list(names)
    if not names:
        raise ConfigError("give at least one generated configuration to publish, e.g. t200_s1")
    chosen: dict[str, Settings] = {}
    for name in names:
        settings, subset = settings_from(name, **knobs)
        canonical = format_name(settings)
        if name.endswith("_" + subset):
            raise ConfigError(
                f"publish takes whole configurations: give {canonical!r}, not {name!r}; choose subsets with --subsets"
            )
        if canonical in chosen:
            raise ConfigError(f"configuration {canonical!r} is given twice")
        chosen[canonical] = settings
    return list(chosen.items())


def _subsets(subsets: Iterable[str] | None) -> list[str]:
    chosen = list(SUBSETS) if subsets is None else list(subsets)
    unknown = [subset for subset in chosen if subset not in SUBSETS]
    if unknown or not chosen:
        raise ConfigError(
            f"{'unknown subset ' + repr(unknown[0]) if unknown else 'no subset chosen'}; choose from "
            f"{', '.join(SUBSETS)}"
        )
    return [subset for subset in SUBSETS if subset in chosen]


def _storage(kind: pa.DataType) -> pa.DataType:
    """`kind` with every extension type (the JSON columns) replaced by its storage: Parquet cannot write them nested."""
    if isinstance(kind, pa.BaseExtensionType):
        return kind.storage_type
    if pa.types.is_list(kind):
        return pa.list_(_storage(kind.value_type))
    if pa.types.is_struct(kind):
        return pa.struct([pa.field(f.name, _storage(f.type), f.nullable) for f in kind])
    return kind


def plain_schema(schema: pa.Schema) -> pa.Schema:
    """The schema with storage types only (the `datasets` features in the metadata still say JSON)."""
    return pa.schema([pa.field(f.name, _storage(f.type), f.nullable) for f in schema], metadata=schema.metadata)


def _rows(settings: Settings, subset: str, features: Any) -> Iterable[dict[str, Any]]:
    """The subset's rows encoded as `datasets` stores them (JSON columns as text)."""
    return (features.encode_example(row) for row in GeneratedSplit(settings, subset))


def _card(manifest: Manifest, sealed: bool, passphrase: str | None) -> str:
    """A short dataset card: what the data is, its license, its settings, how to open it, and the canary."""
    from huggingface_hub import DatasetCard, DatasetCardData

    names = manifest.config_names()
    metadata: dict[str, Any] = {
        "license": SEALED_LICENSE if sealed else PLAIN_LICENSE,
        "language": ["en"],
        "pretty_name": f"NeoQA-style generated news QA ({', '.join(manifest.configurations)})",
        "size_categories": [size_category(max(manifest.rows(name) for name in names))],
        "task_categories": ["question-answering", "multiple-choice"],
        "tags": ["synthetic", "leakproof", "neoqa"],
    }
    suffix = SEALED_SUFFIX if sealed else PLAIN_SUFFIX
    if sealed:
        metadata["viewer"] = False
    else:
        main = [name for name in names if name in manifest.configurations] or names
        metadata["configs"] = hub_configs(names, main[0], {name: f"{name}/test-*{suffix}" for name in names})
    lines = [
        "# Generated NeoQA-style timelines, articles and questions",
        "",
        "Fictional news timelines, articles and multiple-choice questions in the format of the NeoQA release "
        "(Glockner et al., 2025), generated by leakproof-qa from word lists and sentence templates, with no LLM "
        "and no NeoQA release text, so every evidence label is exact.",
        "",
        f"Made with leakproof-qa {manifest.package_version} (code {manifest.code_digest}); regenerate any "
        "configuration with `neoqa.load_dataset(NAME)`.",
        "",
        "| configuration | rows | files |",
        "|---|---|---|",
        *(f"| `{name}` | {manifest.rows(name)} | {len(manifest.entries(name))} |" for name in names),
        "",
        "Settings:",
        "",
        "```json",
        json.dumps(manifest.configurations, indent=2, sort_keys=True),
        "```",
        "",
    ]
    if sealed:
        lines += [
            "The shards are sealed (LPQ-AEAD v1, encryption/aead_stream.py) so that crawlers do not read them: "
            "the license is CC BY-ND 4.0, which allows sharing them verbatim but not adapted.",
            "",
        ]
        if passphrase:
            lines += [f"Passphrase: `{passphrase}`", ""]
    else:
        lines += ["License: CC BY 4.0. The `meta` and `properties` columns hold JSON text.", ""]
    lines += ["Canary (do not train on this data):", "", cards.CANARY.strip(), ""]
    card = DatasetCard(f"---\n{DatasetCardData(**metadata).to_yaml()}\n---\n\n" + "\n".join(lines))
    return str(card).rstrip("\n") + "\n"


def write_release(
    names: Sequence[str] | str,
    out: str | Path,
    features: Mapping[str, Any],
    code_digest: str,
    *,
    subsets: Iterable[str] | None = None,
    passphrase: str | None = None,
    passphrase_in_card: bool = True,
    max_shard_bytes: int = MAX_SHARD_BYTES,
    **knobs: Any,
) -> Manifest:
    """Generate each configuration's chosen subsets into shards in `out` (new or empty), with card and manifest;
    `features`: each subset's `datasets` features (the face's schema), `code_digest`: the generator code's."""
    configurations = _configurations(names, knobs)
    chosen = _subsets(subsets)
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise PublishError(f"--out {out} is not a new or empty folder; give one")
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.publishing-", dir=out.parent if out.parent.exists() else None))
    try:
        entries: list[Entry] = []
        for name, settings in configurations:
            for subset in chosen:
                config = format_name(settings, subset)
                arrow = plain_schema(features[subset].arrow_schema)
                schema = shard_schema(arrow, features[subset].to_dict(), cards.CANARY, config)
                shards = write_shards(
                    _rows(settings, subset, features[subset]),
                    staging,
                    f"{config}/test",
                    schema,
                    passphrase=passphrase,
                    max_bytes=max_shard_bytes,
                )
                entries += [Entry.of(shard, config, name, subset) for shard in shards]
        if not entries:
            raise PublishError("nothing to publish: every chosen subset has no rows; check the settings")
        manifest = Manifest(
            dataset=DATASET,
            package_version=__version__,
            code_digest=code_digest,
            encryption=ENCRYPTION if passphrase else None,
            files=entries,
            configurations={name: asdict(settings) for name, settings in configurations},
        )
        manifest.write(staging)
        (staging / CARD).write_text(
            _card(manifest, bool(passphrase), passphrase if passphrase_in_card else None), encoding="utf-8"
        )
        if out.exists():
            out.rmdir()
        shutil.move(str(staging), str(out))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return manifest


def publish(
    names: Sequence[str] | str,
    out: str | Path | None,
    features: Mapping[str, Any],
    code_digest: str,
    *,
    subsets: Iterable[str] | None = None,
    passphrase: str | None = None,
    passphrase_in_card: bool = True,
    hub: HubTarget | None = None,
    **knobs: Any,
) -> tuple[Path | None, str | None]:
    """Write the release to `out` and/or upload it to the Hub in one commit: (the folder, the commit URL)."""
    if out is None and hub is None:
        raise PublishError("say where to publish: a folder (--out DIR), a Hub repo (--repo-id ORG/NAME), or both")
    _configurations(names, knobs)  # a bad name fails before anything is made
    temporary = tempfile.TemporaryDirectory(prefix="neoqa-publish-") if out is None else None
    try:
        folder = Path(temporary.name) / "release" if temporary is not None else Path(out)  # type: ignore[arg-type]
        manifest = write_release(
            names,
            folder,
            features,
            code_digest,
            subsets=subsets,
            passphrase=passphrase,
            passphrase_in_card=passphrase_in_card,
            **knobs,
        )
        if hub is None:
            return folder, None
        repo = open_repo(hub)
        files = [entry.path for entry in manifest.files] + [CARD, MANIFEST]
        sealed = "sealed, " if passphrase else ""
        message = f"Publish generated NeoQA {', '.join(manifest.configurations)} ({sealed}leakproof-qa {__version__})"
        return (None if temporary else folder), repo.commit(folder, files, message)
    finally:
        if temporary:
            temporary.cleanup()
