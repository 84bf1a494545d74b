"""The `neoqa` dataset: the official NeoQA release, decrypted and re-paired on your machine, on current `datasets`.

Configurations: raw records ``timelines``, ``news``, ``questions`` and instance sets
``neoqa``, ``optimal-evidence``, ``context-ablation`` (appendix E of Glockner et al., 2025),
splits ``dev`` and ``test`` (``context-ablation``: ``test`` only, as released).  All work
lives in ``builders.neoqa``; this module holds the configuration, the schema and the
``datasets`` plumbing.  License: CC BY-ND 4.0; never publish the decrypted or re-paired text.

    python -m neoqa neoqa --data-dir DIR --decryption-key 23456   # prints the row counts
    python -m neoqa publish --data-dir DIR --repo-id ORG/NAME     # the release files verbatim, still encrypted
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields, make_dataclass
from pathlib import Path
from typing import Any

import datasets

import leakproof_qa.builders.neoqa as engine
from leakproof_qa import cards, encryption
from leakproof_qa.builders import metrics
from leakproof_qa.builders.checks import is_whole
from leakproof_qa.builders.cluster import add_ray_option
from leakproof_qa.builders.neoqa import parse_answer
from leakproof_qa.builders.neoqa.generate import LICENSE as GENERATED_LICENSE
from leakproof_qa.builders.neoqa.generate import LICENSE_NOTICE as GENERATED_NOTICE
from leakproof_qa.builders.neoqa.generate import GeneratedSplit
from leakproof_qa.builders.neoqa.settings import (
    DEFAULT_SUBSET,
    EXAMPLES,
    GRAMMAR,
    SUBSETS,
    ConfigError,
    Settings,
    format_name,
    settings_from,
    settings_lines,
)
from leakproof_qa.dataset_loading import load_from_builder

__all__ = ["NeoQA", "load_dataset", "metrics", "parse_answer", "publish", "publish_generated"]

# The features on every datasets the package supports (>= 3.6), chosen here once.
JSON_AS_TEXT: bool = not hasattr(datasets, "Json")
"""True on a datasets without the Json feature (3.x): there a JSON field is a string column holding its JSON text
(json.loads gives the value back); elsewhere Json stores the same text and gives the value itself."""
_JSON_FIELDS: dict[str, tuple[str, ...]] = {
    "questions": ("meta",),
    "timelines": ("named_entity_snapshots", "named_entities", "properties"),
}
"""Where each subset's rows hold a JSON field: the path of field names (through lists) to it."""


def _list(feature: Any) -> Any:
    """A list of `feature`: `datasets.List` (datasets >= 4), or on datasets 3.x the list literal that reads as one
    there (3.x's Sequence of a dict would be a dict of lists); the same Arrow schema, list<item: ...>, on both."""
    return datasets.List(feature) if hasattr(datasets, "List") else [feature]


_STR = datasets.Value("string")
_INT = datasets.Value("int32")
_JSON = _STR if JSON_AS_TEXT else datasets.Json()
_STRS = _list(_STR)

NEWS_FEATURES = datasets.Features(
    {
        "timeline_id": _STR,
        "article_id": _STR,
        "event_id": _STR,
        "headline": _STR,
        "passages": _STRS,  # entity markup stripped
        "headline_marked": _STR,
        "passages_marked": _STRS,  # as released: {Name|TYPE-n}
        "created_at": _INT,
        "date": _STR,
        "news_profile": _STR,
        "used_items": _STRS,
        "unsure_evidences": _STRS,
    }
)
QUESTION_FEATURES = datasets.Features(
    {
        "timeline_id": _STR,
        "question_id": _STR,
        "parent_question_id": _STR,
        "category": _STR,
        "evidence_ids": _STRS,
        "question": _STR,
        "answer": _STR,
        "date": _STR,
        "created_at": _INT,
        "distractors": _list({"answer": _STR, "explanation": _STR, "distractor-sentences": _STRS}),
        "answer_options": _STRS,  # release order
        "sufficient_article_ids": _STRS,
        "all_sufficient_article_id_combinations": _list(_STRS),
        "meta": _JSON,
    }
)
TIMELINE_FEATURES = datasets.Features(
    {
        "timeline_id": _STR,
        "genre": {"category": _STR, "genre_id": _STR},
        "event_type": {"category": _STR, "event_type_id": _STR},
        "initial_summary": _STR,
        "events": _list(
            {
                "event_id": _STR,
                "created_at": _INT,
                "date": _STR,
                "initial_summary": _STR,
                "used_named_entities": _list({"id": _STR, "new": datasets.Value("bool")}),
                "outline": _list({"id": _STR, "pos": _INT, "sentence": _STR, "sentence_marked": _STR}),
            }
        ),
        "named_entity_snapshots": _list(
            {
                "created_at": _INT,
                "for_event": _STR,
                "date": _STR,
                "named_entities": _list(
                    {  # flattened from the release's per-type groups
                        "entity_type": _STR,
                        "id": _STR,
                        "name": _STR,
                        "description": _STR,
                        "history": _list({"created_at": _INT, "event_update": _STR, "date": _STR}),
                        "properties": _JSON,  # every other, type-specific field
                    }
                ),
            }
        ),
    }
)
INSTANCE_FEATURES = datasets.Features(
    {
        "instance_id": _STR,
        "question_family_id": _STR,
        "question_id": _STR,
        "parent_question_id": _STR,
        "timeline_id": _STR,
        "category": _STR,
        "answerable": _STR,
        "question": _STR,
        "date": _STR,
        "created_at": _INT,
        "answer": _STR,  # gold: the answer, or "Unanswerable" when the model must deflect
        "answer_options": _STRS,
        "gold_answer_idx": _INT,  # one seeded order per question family
        "evidence_ids": _STRS,
        "use_evidence_documents": _STRS,  # article ids in the order shown
        "documents": _list({"article_id": _STR, "headline": _STR, "date": _STR, "passages": _STRS}),
        "sufficient_article_ids": _STRS,
        "irrelevant_article_ids": _STRS,
        "removed_article_ids": _STRS,
        "missing_evidence_ids": _STRS,
    }
)
FEATURES: dict[str, datasets.Features] = {
    "timelines": TIMELINE_FEATURES,
    "news": NEWS_FEATURES,
    "questions": QUESTION_FEATURES,
    **{name: INSTANCE_FEATURES for name in ("neoqa", "optimal-evidence", "context-ablation")},
}

CITATION = cards.text("neoqa.bib")


_ENCODE_JSON = json.dumps if JSON_AS_TEXT else datasets.Json().encode_example


def json_text(value: Any) -> str:
    """A JSON field's value as the text this datasets stores it as (its Json feature's encoder; json.dumps on 3.x)."""
    return _ENCODE_JSON(value)


def _json_typed(kind: Any, path: tuple[str, ...]) -> Any:
    """`kind` (an Arrow type) with the field at `path` (field names, through lists) typed as Arrow's JSON."""
    import pyarrow as pa

    if not path:
        return pa.json_()
    if pa.types.is_list(kind):
        return pa.list_(_json_typed(kind.value_type, path))
    return pa.struct([(f.name, _json_typed(f.type, path[1:]) if f.name == path[0] else f.type) for f in kind])


def file_schema(subset: str) -> Any:
    """The Arrow schema `datasets` stores `subset` in, with its features and the canary in the metadata (what a
    written file holds, so that plain `load_dataset("parquet", ...)` gives these features back)."""
    from leakproof_qa.builders.publishing.shards import shard_schema

    return shard_schema(FEATURES[subset].arrow_schema, FEATURES[subset].to_dict(), cards.CANARY)


def conversion_schema(subset: str) -> Any:
    """`file_schema` with the JSON fields typed as Arrow's JSON even on datasets 3.x (whose storage, a string, is
    what 3.x stores), so that rows become Arrow the same way on every datasets (builders/arrow_columns.py)."""
    import pyarrow as pa

    schema = file_schema(subset)
    if not JSON_AS_TEXT or subset not in _JSON_FIELDS:
        return schema
    path = _JSON_FIELDS[subset]
    fields = [(f.name, _json_typed(f.type, path[1:]) if f.name == path[0] else f.type) for f in schema]
    return pa.schema(fields, metadata=schema.metadata)


def file_schemas(include_documents: bool = True) -> Any:
    """What the fast writer (builders/neoqa/files.py) needs from this face: each subset's schemas, the JSON encoder."""
    from leakproof_qa.builders.neoqa.files import Schemas

    return Schemas(
        {subset: conversion_schema(subset) for subset in SUBSETS},
        {subset: file_schema(subset) for subset in SUBSETS},
        json_text,
        include_documents,
    )


@dataclass
class _Options(datasets.BuilderConfig):
    """The knobs of every NeoQA configuration: seed, decryption key, Hub source, documents on/off."""

    seed: int | None = None  # the release's shuffles: 1 when None; a generated name's own seed otherwise
    decryption_key: int | str | None = None
    hub_repo_id: str | None = None
    revision: str | None = None
    include_documents: bool = True

    def validate(self) -> None:
        """Raise a one-line ValueError for a knob with an impossible value."""
        if self.seed is not None and not is_whole(self.seed):
            raise ValueError(f"seed must be an integer, got {self.seed!r}")
        if self.decryption_key is not None:
            encryption.key_byte(self.decryption_key)


def _refuse_generator_settings(name: str, given: Mapping[str, Any]) -> None:
    """A release configuration takes none of the generator's settings: one line naming the first given."""
    knobs = sorted(key for key in Settings.knobs() if given.get(key) is not None)
    if knobs:
        raise ConfigError(
            f"{knobs[0]} is a setting of generated configurations ({engine.GRAMMAR}); the release configuration "
            f"{name!r} takes none"
        )


def _post_init(self: Any) -> None:
    """Parse a generated name and its settings once, here; a release name takes none of the generator's settings."""
    datasets.BuilderConfig.__post_init__(self)
    knobs = {name: getattr(self, name) for name in Settings.knobs() if getattr(self, name) is not None}
    self.settings, self.subset = None, self.name
    if not engine.is_generated_name(self.name):
        _refuse_generator_settings(self.name, knobs)
        return
    given = [name for name in ("data_dir", "decryption_key", "hub_repo_id", "revision") if getattr(self, name)]
    if given:
        raise ConfigError(f"generated NeoQA configuration {self.name!r} reads no release files: leave out {given[0]}")
    if self.seed is not None:
        knobs["seed"] = self.seed
    self.settings, self.subset = settings_from(self.name, **knobs)


NeoQAConfig = make_dataclass(
    "NeoQAConfig",
    [(f.name, "int | None", field(default=None)) for f in Settings.knob_fields()],
    bases=(_Options,),
    namespace={
        "__post_init__": _post_init,
        "__doc__": "A NeoQA configuration: a release one, or a generated one with its settings.",
    },
)
NeoQAConfig.__module__ = __name__  # so a config pickles (datasets hashes and copies it)


def _code_files() -> list[Path]:
    """The files a configuration's rows are a function of (besides the release files): the cache key."""
    engine_dir = Path(engine.__file__).parent
    return [
        Path(__file__),
        *engine_dir.glob("*.py"),
        *(engine_dir / "data").glob("*.json"),
        *Path(encryption.__file__).parent.glob("*.py"),
    ]


_BUILDER_ARGUMENTS = set(inspect.signature(datasets.DatasetBuilder.__init__).parameters) - {"self", "config_kwargs"}


class NeoQA(datasets.ArrowBasedBuilder):
    """NeoQA from its official release files, or generated from a name: raw records and the instance sets."""

    BUILDER_CONFIG_CLASS = NeoQAConfig
    DEFAULT_WRITER_BATCH_SIZE = 100  # an instance can carry 100+ articles: keep the cache's record batches small
    TABLE_ROWS = 100  # a release's rows per Arrow table, for the same reason
    VERSION = datasets.Version("1.3.0")  # 1.1.0: seeded orders; 1.2.0: answerable in builders.labels; 1.3.0: generated
    BUILDER_CONFIGS = [NeoQAConfig(name=name, version="1.0.0") for name in engine.CONFIG_NAMES]

    def __init__(self, *args: Any, repo_id: str | None = None, hash: str | None = None, **kwargs: Any) -> None:
        """Take ``repo_id`` as the Hub source, and key the cache on this code and the release files."""
        name = kwargs.get("config_name")
        if name is None:
            raise ValueError(
                f"NeoQA needs a configuration name: one of {', '.join(engine.CONFIG_NAMES)}, or {engine.GRAMMAR}"
            )
        engine.check_config(name)
        unknown = sorted(set(kwargs) - _BUILDER_ARGUMENTS - {f.name for f in fields(NeoQAConfig)})
        if unknown:
            known = ", ".join(sorted({*Settings.knobs(), *_Options.__dataclass_fields__} - {"name", "description"}))
            raise ConfigError(f"unknown NeoQA setting {unknown[0]!r}; the settings are {known}")
        generated = engine.is_generated_name(name)
        if not generated:
            _refuse_generator_settings(name, kwargs)
        if generated:
            self.BUILDER_CONFIGS = []  # a generated name is made on the fly, not looked up among the release's
        if hash is None:
            hash = engine.fingerprint(_code_files(), None if generated else kwargs.get("data_dir"))
        kwargs = {key: value for key, value in kwargs.items() if value is not None}
        super().__init__(*args, hash=hash, **({"hub_repo_id": repo_id} if repo_id else {}), **kwargs)

    def _info(self) -> datasets.DatasetInfo:
        """Describe the configuration, its schema and the license."""
        if self.config.settings is not None:
            return datasets.DatasetInfo(
                description=f"NeoQA-style data generated for '{self.config.name}'. {GENERATED_NOTICE}",
                features=FEATURES[self.config.subset],
                homepage="https://github.com/amazon-science/NeoQA",
                license=GENERATED_LICENSE,
                citation=CITATION,
            )
        return datasets.DatasetInfo(
            description=f"NeoQA '{self.config.name}', built from the official release. {engine.LICENSE_NOTICE}",
            features=FEATURES[self.config.name],
            homepage="https://github.com/amazon-science/NeoQA",
            license=engine.LICENSE,
            citation=CITATION,
        )

    def no_rows(self) -> str:
        """Why this configuration has no rows and what would give some (dataset_loading says it instead of `datasets`'
        bare "corresponds to no data")."""
        settings, name = self.config.settings, self.config.name
        if settings is None:
            return f"NeoQA {name!r} has no rows in these release files"
        if self.config.subset == "context-ablation":  # each question's own timeline must hold that many articles
            takes = f"question with {max(engine.ABLATION_SIZES)} earlier articles unrelated to it beside its evidence"
            more = "more events per timeline (the name's _e part"
        else:
            takes = "question its earlier articles can answer"
            more = "more timelines or more events per timeline (the name's _e part"
        return (
            f"{name} has no rows: its {settings.timelines} timeline(s) of {settings.events} events hold no {takes}; "
            f"{more}, {Settings.events} by default) give rows"
        )

    def _split_generators(self, dl_manager: Any) -> list[datasets.SplitGenerator]:
        """Locate (or fetch), decrypt, validate and assemble every split before any row is written."""
        config = self.config
        config.validate()
        if config.settings is not None:
            prepared = GeneratedSplit(config.settings, config.subset, config.include_documents)
            timelines = list(range(config.settings.timelines))  # a list: `num_proc` processes share it out
            return [
                datasets.SplitGenerator(
                    name=engine.GENERATED_SPLIT, gen_kwargs={"prepared": prepared, "timelines": timelines}
                )
            ]
        from leakproof_qa.builders.publishing.neoqa import (
            release_source,  # imported here: only loading a release needs it
        )

        root = release_source(
            config.data_dir, config.hub_repo_id, engine.files_needed(config.name), revision=config.revision
        )
        seed = 1 if config.seed is None else config.seed
        return [
            datasets.SplitGenerator(
                name=split,
                gen_kwargs={
                    "prepared": engine.PreparedSplit(
                        root, config.name, split, config.decryption_key, seed, config.include_documents
                    )
                },
            )
            for split in engine.CONFIG_SPLITS[config.name]
        ]

    def _generate_tables(
        self, prepared: engine.PreparedSplit | GeneratedSplit, timelines: list[int] | None = None
    ) -> Iterator[tuple[int | str, Any]]:
        """Yield the rows as Arrow tables made by columns (builders/arrow_columns.py), as `python -m neoqa generate`
        makes them: a generated split's one timeline at a time, of the timelines this process was given (each keyed
        by its timeline); a release's TABLE_ROWS rows at a time, keyed by their first row's position."""
        from itertools import islice

        from leakproof_qa.builders import arrow_columns
        from leakproof_qa.builders.neoqa.files import timeline_tables

        subset = self.config.subset
        schemas = file_schemas(self.config.include_documents)
        if isinstance(prepared, GeneratedSplit):
            for index in prepared.timelines if timelines is None else timelines:
                table = timeline_tables(prepared.settings, [index], (subset,), schemas)[subset]
                yield index, table.cast(schemas.files[subset])
            return
        rows, start = iter(prepared), 0
        while batch := list(islice(rows, self.TABLE_ROWS)):
            table = arrow_columns.table(batch, schemas.arrow[subset], json_text)
            yield start, table.cast(schemas.files[subset])
            start += len(batch)


def load_dataset(
    name: str,
    split: str | None = None,
    data_dir: str | None = None,
    decryption_key: int | str | None = None,
    *,
    repo_id: str | None = None,
    seed: int | None = None,
    streaming: bool = False,
    cache_dir: str | None = None,
    **kwargs: Any,
) -> datasets.Dataset | datasets.DatasetDict | datasets.IterableDataset | datasets.IterableDatasetDict:
    """Load one NeoQA configuration: generated from its name (``t200_s1``: our data, no files needed), or from local
    release files (``data_dir``) or a Hub repo (``repo_id``). ``seed`` orders the release's shuffles (default 1)."""
    engine.check_config(name, split if split is not None and not any(c in split for c in "[+") else None)
    if not engine.is_generated_name(name) and data_dir is None and repo_id is None:
        raise FileNotFoundError(
            "NeoQA needs its release files: pass data_dir=<directory with dev.news.jsonl etc.> "
            f"or repo_id=<Hub dataset holding them, e.g. {engine.DEFAULT_HUB_REPO!r}>; or name a generated "
            f"configuration, {engine.GRAMMAR} (e.g. t200_s1)"
        )
    return load_from_builder(
        NeoQA,
        name,
        split=split,
        streaming=streaming,
        cache_dir=cache_dir,
        data_dir=data_dir,
        decryption_key=decryption_key,
        repo_id=repo_id,
        seed=seed,
        **kwargs,
    )


def publish(data_dir: str | Path, out: str | Path | None = None, **hub: Any) -> tuple[Path | None, str | None]:
    """Publish the official release files of `data_dir` verbatim (still encrypted) to a folder and/or the Hub
    (`hub`: builders.publishing.hub.HubTarget's fields, repo_id, private, revision, gated, token, endpoint).

    Decrypted files, re-encrypted files and rebuilt rows are refused with a one-line error citing CC BY-ND 4.0.
    Returns (the folder written, or None; the Hub commit URL, or None).
    """
    from leakproof_qa.builders.publishing.hub import HubTarget
    from leakproof_qa.builders.publishing.neoqa import publish as publish_release

    options = dict(hub)
    target = HubTarget.taken_from(options)
    if options:
        raise TypeError(f"publish() got unexpected keyword arguments: {', '.join(sorted(options))}")
    return publish_release(data_dir, out, hub=target)


def publish_generated(
    names: str | list[str],
    out: str | Path | None = None,
    *,
    subsets: list[str] | None = None,
    passphrase: str | None = None,
    passphrase_in_card: bool = True,
    num_proc: int | None = None,
    **options: Any,
) -> tuple[Path | None, str | None]:
    """Publish generated configurations (our data): plain (CC BY 4.0), or sealed with `passphrase` (CC BY-ND 4.0),
    to a folder and/or the Hub (`options`: HubTarget's fields, and generator settings), each configuration made in
    `num_proc` processes (two on two cores by default; the release is the same). Returns (folder, commit URL).
    """
    from leakproof_qa.builders.publishing.hub import HubTarget
    from leakproof_qa.builders.publishing.neoqa_generated import publish as publish_ours

    options = dict(options)
    target = HubTarget.taken_from(options)
    from leakproof_qa.builders.processes import default_processes

    return publish_ours(
        names,
        out,
        FEATURES,
        fingerprint_of_code(),
        schemas=file_schemas(),
        processes=default_processes() if num_proc is None else num_proc,
        subsets=subsets,
        passphrase=passphrase,
        passphrase_in_card=passphrase_in_card,
        hub=target,
        **options,
    )


def fingerprint_of_code() -> str:
    """The digest of the code and data a generated configuration is a function of."""
    return engine.fingerprint(_code_files(), None)


def _publish_generated_main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """`python -m neoqa publish t200_s1 ...`: generated configurations, plain or sealed."""
    from leakproof_qa.builders.publishing.passphrase import passphrase_from

    if args.data_dir or args.decryption_key is not None:
        parser.exit(2, "error: generated configurations read no release files: leave out --data-dir\n")
    passphrase = passphrase_from(args)
    if args.encrypt != bool(passphrase):
        parser.exit(
            2, "error: --encrypt and a passphrase (--passphrase-file FILE or --passphrase-env VAR) go together\n"
        )
    folder, commit = publish_generated(
        args.configurations,
        args.out,
        subsets=args.subsets,
        passphrase=passphrase,
        passphrase_in_card=not args.passphrase_not_in_card,
        repo_id=args.repo_id,
        private=args.private,
        revision=args.revision,
        gated=args.gated,
    )
    if folder is not None:
        print(
            f"wrote {folder} ({'sealed, CC BY-ND 4.0' if passphrase else 'plain, CC BY 4.0'}; README.md, manifest.json)"
        )
    if commit:
        print(f"uploaded to {args.repo_id}: {commit}")
    return 0


def publish_main(argv: list[str]) -> int:
    """CLI: `python -m neoqa publish --data-dir DIR ...` (the release, verbatim) or `publish t200_s1 ...` (ours)."""
    from leakproof_qa.builders.publishing.errors import refuse
    from leakproof_qa.builders.publishing.passphrase import add_passphrase_options

    parser = argparse.ArgumentParser(
        prog="python -m neoqa publish",
        description="Publish generated NeoQA configurations (python -m neoqa publish t200_s1 --out DIR: our data, "
        "plain CC BY 4.0, or sealed CC BY-ND 4.0 with --encrypt), or the official NeoQA release files verbatim "
        "(--data-dir DIR, still encrypted), to a folder and/or a Hub dataset repo, with a card and manifest.json. "
        "The release is CC BY-ND 4.0: decrypted files, re-encrypted files and rebuilt rows are refused.",
    )
    parser.add_argument("configurations", nargs="*", help="generated configurations, e.g. t200_s1")
    parser.add_argument("--data-dir", help="directory with the encrypted release files")
    parser.add_argument("--out", help="write the Hub-ready folder here")
    parser.add_argument("--repo-id", help="upload to this Hub dataset repo (ORG/NAME), created if needed")
    parser.add_argument("--private", action="store_true", help="make the repo private")
    parser.add_argument("--revision", help="upload to this branch (created if needed)")
    parser.add_argument("--gated", choices=("auto", "manual"), help="gate access to the repo")
    parser.add_argument("--subsets", nargs="+", choices=SUBSETS, help="generated: these subsets only (default all)")
    parser.add_argument("--encrypt", action="store_true", help="generated: seal the shards (CC BY-ND 4.0)")
    parser.add_argument(
        "--passphrase-not-in-card", action="store_true", help="generated, sealed: leave the passphrase out of the card"
    )
    add_passphrase_options(parser)
    parser.add_argument("--decryption-key", help=argparse.SUPPRESS)  # refused: publishing never decrypts
    args = parser.parse_args(argv)
    try:
        if args.configurations and all(engine.is_generated_name(name) for name in args.configurations):
            return _publish_generated_main(args, parser)
        if args.configurations:
            raise refuse(", ".join(args.configurations), "configurations are decrypted or rebuilt NeoQA rows")
        if args.decryption_key is not None:
            raise refuse("with --decryption-key", "publishing never decrypts; the release files go up encrypted")
        if not args.data_dir:
            parser.exit(2, "error: give --data-dir DIR (the release files) or generated configurations (t200_s1)\n")
        folder, commit = publish(
            args.data_dir,
            args.out,
            repo_id=args.repo_id,
            private=args.private,
            revision=args.revision,
            gated=args.gated,
        )
    except (ValueError, FileNotFoundError) as error:
        parser.exit(2, f"error: {error}\n")
    if folder is not None:
        print(f"wrote {folder} (the release files verbatim in data/, README.md, manifest.json)")
    if commit:
        print(f"uploaded to {args.repo_id}: {commit}")
    return 0


def generate_main(argv: list[str]) -> int:
    """CLI: `python -m neoqa generate t1000_s1 --out DIR`: every subset of a generated configuration as Parquet."""
    import time

    from leakproof_qa.builders.neoqa.files import ordered_subsets, write_configuration
    from leakproof_qa.builders.processes import default_processes

    parser = argparse.ArgumentParser(
        prog="python -m neoqa generate",
        description="Write every subset of a generated configuration as Parquet (DIR/{subset}/test-*.parquet), "
        "each timeline generated once for all subsets; `datasets.load_dataset('parquet', data_files=...)` reads "
        "them back with the same rows and features as neoqa.load_dataset. The files are the same bytes whatever "
        "--num-proc.",
    )
    parser.add_argument("name", metavar="NAME", help=f"a generated configuration, {GRAMMAR} without a subset")
    parser.add_argument("--out", required=True, help="output folder (created if needed)")
    parser.add_argument("--subsets", nargs="+", choices=SUBSETS, help="write only these (default: all six)")
    parser.add_argument(
        "--num-proc", type=int, default=default_processes(), help="processes sharing the blocks of timelines"
    )
    parser.add_argument("--overwrite", action="store_true", help="replace subsets --out already holds")
    parser.add_argument("--no-documents", action="store_true", help="instance rows without their documents' text")
    add_ray_option(parser)
    _settings_options(parser)
    args = parser.parse_args(argv)
    knobs = {name: getattr(args, name) for name in Settings.knobs() if getattr(args, name) is not None}
    try:
        settings, subset = settings_from(args.name, **knobs)
        if args.name.endswith("_" + subset):
            raise ConfigError(f"generate takes a whole configuration: give {format_name(settings)!r}; choose --subsets")
        if args.num_proc < 1:
            raise ConfigError(f"--num-proc {args.num_proc} must be at least 1")
        subsets = ordered_subsets(args.subsets)
        out = Path(args.out)
        if out.exists() and not out.is_dir():
            raise ConfigError(f"--out {out} is a file; give a folder")
        taken = [name for name in subsets if (out / name).exists()]
        if taken and not args.overwrite:
            raise ConfigError(f"--out {out} already holds {', '.join(taken)}; pass --overwrite, or give another folder")
        began = time.perf_counter()
        schemas = file_schemas(not args.no_documents)
        if args.ray:
            from leakproof_qa.builders.cluster.on_ray import write_neoqa_blocks

            rows = write_neoqa_blocks(settings, tuple(subsets), schemas, args.out, args.ray)
        else:
            rows = write_configuration(settings, subsets, schemas, out, args.num_proc)
    except (ValueError, OSError, ImportError) as error:
        parser.exit(2, f"error: {error}\n")
    for name in subsets:
        print(f"{format_name(settings, name):<36} {rows[name]:>10,} rows  -> {out / name}")
    print(
        f"wrote {len(subsets)} subsets to {out} in {time.perf_counter() - began:.1f} s with {args.num_proc} process(es)"
    )
    return 0


def write_generated(settings: Settings, subsets: tuple[str, ...], folder: Path) -> None:
    """A cluster job's work: one generated configuration's subsets into `folder`, as `generate` writes them."""
    from leakproof_qa.builders.neoqa.files import write_configuration

    write_configuration(settings, subsets, file_schemas(), folder, processes=1)


def generate_many_main(argv: list[str]) -> int:
    """CLI: `python -m neoqa generate-many t200 --seeds 1-50 --out DIR [--ray ADDRESS]`."""
    import time

    from leakproof_qa.builders.cluster.runs import Job, run_locally, run_many, seeds
    from leakproof_qa.builders.neoqa.files import ordered_subsets
    from leakproof_qa.builders.processes import default_processes

    parser = argparse.ArgumentParser(
        prog="python -m neoqa generate-many",
        description="Write many generated configurations, OUT/{prefix}_s{seed}/, each byte for byte as `generate` "
        "writes it, plus OUT/manifest.json (configurations, versions, each file's size and sha256). Each is staged "
        "and renamed when whole; running again skips those already written whole (checked by digest). OUT is a "
        "local path or a URI pyarrow reaches. With --ray, one Ray task per configuration.",
    )
    parser.add_argument("prefix", help="the configurations' name without the seed, e.g. t200 or t50_e8")
    parser.add_argument("--seeds", required=True, help="seeds, e.g. 1-50 or 1-3,7")
    parser.add_argument("--out", required=True, help="output folder or URI")
    add_ray_option(parser)
    parser.add_argument("--num-proc", type=int, default=default_processes(), help="without --ray: at once")
    parser.add_argument("--subsets", nargs="+", choices=SUBSETS, help="write only these (default: all six)")
    _settings_options(parser)
    args = parser.parse_args(argv)
    knobs = {name: getattr(args, name) for name in Settings.knobs() if getattr(args, name) is not None}
    try:
        if args.num_proc < 1:
            raise ConfigError(f"--num-proc {args.num_proc} must be at least 1")
        subsets = tuple(ordered_subsets(args.subsets))
        versions = {"package_version": engine_version(), "code_digest": fingerprint_of_code()}
        jobs = []
        for seed in seeds(args.seeds):
            settings, subset = settings_from(f"{args.prefix}_s{seed}", **knobs)
            if subset != DEFAULT_SUBSET:
                raise ConfigError(f"give the configurations' prefix without a subset, e.g. {format_name(settings)}")
            jobs.append(Job("neoqa", format_name(settings), settings, subsets, write_generated, versions))
        if args.ray:
            from leakproof_qa.builders.cluster.on_ray import ray_runner

            runner = ray_runner(args.ray)
        else:
            runner = run_locally(args.num_proc)
        began = time.perf_counter()
        records, skipped = run_many(jobs, args.out, runner, lambda line: print(line, file=sys.stderr))
    except (ValueError, OSError, ImportError) as error:
        parser.exit(2, f"error: {error}\n")
    print(
        f"{len(records)} configurations in {args.out} ({len(skipped)} already written whole, "
        f"{len(records) - len(skipped)} written) in {time.perf_counter() - began:.1f} s; manifest.json lists them"
    )
    return 0


def engine_version() -> str:
    """The package's version (what made a configuration, in its record)."""
    from leakproof_qa.builders import __version__

    return __version__


def list_main(argv: list[str]) -> int:
    """CLI: `python -m neoqa list`: the release configurations, the generated names' grammar and every setting."""
    argparse.ArgumentParser(
        prog="python -m neoqa list",
        description="List NeoQA's configurations: the release's, and the generated names' grammar and settings.",
    ).parse_args(argv)
    print(f"release configurations (need the release files): {', '.join(engine.CONFIG_NAMES)}")
    print(f"generated configurations: {GRAMMAR}, e.g. {EXAMPLES}")
    print(f"  subsets: {', '.join(SUBSETS)} (default {DEFAULT_SUBSET}); one split, {engine.GENERATED_SPLIT!r}")
    print("settings (in the name, or keyword arguments / --options):")
    print("\n".join(settings_lines()))
    return 0


def _settings_options(parser: argparse.ArgumentParser) -> None:
    """One --option per keyword setting, made from the declarations (builders.neoqa.settings)."""
    group = parser.add_argument_group("settings of generated configurations (see `python -m neoqa list`)")
    for f in Settings.knob_fields():
        group.add_argument(
            "--" + f.name.replace("_", "-"), type=int, help=f"{f.metadata['help']} (default {f.default})"
        )


def main(argv: list[str] | None = None) -> int:
    """CLI: build one configuration and print its row counts per split (and per answerability)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["publish"]:
        return publish_main(argv[1:])
    if argv[:1] == ["list"]:
        return list_main(argv[1:])
    if argv[:1] == ["generate"]:
        return generate_main(argv[1:])
    if argv[:1] == ["generate-many"]:
        return generate_many_main(argv[1:])
    parser = argparse.ArgumentParser(
        prog="python -m neoqa",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="NeoQA on current `datasets`: build one configuration (generated from its name, or from the "
        "official release) and print its row counts per split (and per answerability).",
        epilog="commands:\n"
        "  python -m neoqa NAME ...      build one configuration and print its row counts (this help)\n"
        "  python -m neoqa list          the configurations, the generated names' grammar and every setting\n"
        "  python -m neoqa generate ...  every subset of a generated configuration as Parquet (generate --help)\n"
        "  python -m neoqa generate-many ...  many configurations (a prefix and seeds), here or on Ray\n"
        "  python -m neoqa publish ...   publish generated data, or the release files verbatim (publish --help)",
    )
    parser.add_argument(
        "name", metavar="NAME", help=f"a release configuration ({', '.join(engine.CONFIG_NAMES)}) or {GRAMMAR}"
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--data-dir", help="directory with the release's {dev,test}.*.jsonl files")
    source.add_argument("--repo-id", help="Hub dataset repository holding the release files")
    parser.add_argument(
        "--decryption-key", help=f"key of the encrypted files (the release's is {encryption.RELEASE_KEY})"
    )
    parser.add_argument("--split", help="one split (default: every split the configuration has)")
    parser.add_argument("--seed", type=int, help="release: seed of the documents' and options' order (default 1)")
    parser.add_argument("--cache-dir", help="the `datasets` cache folder (default: the usual one)")
    _settings_options(parser)
    args = parser.parse_args(argv)
    knobs = {name: getattr(args, name) for name in Settings.knobs() if getattr(args, name) is not None}
    try:
        loaded = load_dataset(
            args.name,
            split=args.split,
            data_dir=args.data_dir,
            repo_id=args.repo_id,
            decryption_key=args.decryption_key,
            seed=args.seed,
            cache_dir=args.cache_dir,
            **knobs,
        )
    except (ValueError, FileNotFoundError) as error:
        parser.exit(2, f"error: {error}\n")
    splits = {args.split: loaded} if args.split else dict(loaded)
    for split, rows in splits.items():
        labels = Counter(rows["answerable"]) if "answerable" in rows.column_names else {}
        detail = ", ".join(f"{label}={count}" for label, count in sorted(labels.items()))
        print(f"{args.name}/{split}: {len(rows)} rows" + (f" ({detail})" if detail else ""))
    return 0


if __name__ == "__main__":  # re-import so the builder's module (and cache folder) is `neoqa`, not `__main__`
    from neoqa import main as _main

    raise SystemExit(_main())
