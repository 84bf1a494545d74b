"""The `phantom_wiki` dataset: a fresh PhantomWiki universe, its articles and questions, from a configuration name.

    import phantom_wiki
    questions = phantom_wiki.load_dataset("n5000_s1", split="test")     # 5,000 people, seed 1, depth 20
    corpus = phantom_wiki.load_dataset("n5000_s1_corpus", split="test")
    phantom_wiki.metrics.instance_scores(instances, predictions)         # scoring: F1/EM, ADTScore, citations

Names follow n{size}[_d{depth}]_s{seed}[_{subset}]; other settings are keyword arguments.
The same file is a classic `datasets` loading script where `datasets` still runs them (3.x).
"""

from __future__ import annotations

import sys

# The command line comes first: it needs none of the builder below, so `python -m phantom_wiki --help` starts
# without importing `datasets` (the agent and lm-eval commands are the faces above builders/, added here).


def _agent(arguments: list[str]) -> int:
    """`python -m phantom_wiki agent ...`: the agent environment's command line (phantom_env)."""
    from phantom_env.cli import main as agent

    return agent(arguments)


def _tasks_path(arguments: list[str]) -> int:
    """`python -m phantom_wiki tasks-path`: where the lm-evaluation-harness tasks are, for --include_path."""
    from leakproof_eval import tasks_path

    if arguments:
        sys.exit(f"phantom_wiki: tasks-path takes no arguments, got {' '.join(arguments)}")
    print(tasks_path())
    return 0


if __name__ == "__main__":
    from builders.cli.phantomwiki import main
    from builders.phantomwiki.config import ConfigError as _ConfigError

    try:
        sys.exit(main(sys.argv[1:], faces={"agent": _agent, "tasks-path": _tasks_path}))
    except _ConfigError as error:
        sys.exit(f"phantom_wiki: {error}")

import inspect
from dataclasses import dataclass
from typing import Any

import datasets

import cards
from builders import __version__, metrics
from builders.digest import PHANTOMWIKI_CODE, code_digest
from builders.phantomwiki import generate as engine
from builders.phantomwiki.budget import check as check_memory
from builders.phantomwiki.config import ConfigError, Settings, settings_from
from builders.phantomwiki.features import FEATURES

__all__ = ["PhantomWiki", "PhantomWikiConfig", "load_dataset", "load_published", "metrics", "publish"]

_DESCRIPTION = (
    "PhantomWiki: an on-demand benchmark of fictional people, their wiki-style articles and multi-hop "
    "questions with exact answers, generated afresh from a configuration name so no model can have seen it."
)
_CITATION = cards.text("phantom_wiki.bib")
_HOMEPAGE = "https://github.com/kilian-group/phantom-wiki"
_LICENSE = "cc-by-4.0"


@dataclass
class PhantomWikiConfig(datasets.BuilderConfig):
    """A configuration name plus the knobs it does not spell out; `size`, `seed`, `depth` may repeat the name."""

    size: int | None = None
    seed: int | None = None
    depth: int | None = None
    friendship_degree: float = Settings.friendship_degree
    max_tree_size: int = Settings.max_tree_size
    max_tree_depth: int = Settings.max_tree_depth
    max_children: int = Settings.max_children
    questions_per_template: int = Settings.questions_per_template
    easy_mode: bool = Settings.easy_mode
    instance_layout: str = Settings.instance_layout
    instance_documents: int = Settings.instance_documents
    max_evidence: int = Settings.max_evidence
    attribute_questions: bool = Settings.attribute_questions
    unanswerable: int = Settings.unanswerable
    distractors: str = Settings.distractors
    document_format: str = Settings.document_format
    retrieval_k: int = Settings.retrieval_k
    retriever: str = Settings.retriever

    def __post_init__(self) -> None:
        super().__post_init__()
        knobs = {name: getattr(self, name) for name in Settings.knobs()}
        knobs.update({k: getattr(self, k) for k in ("size", "seed", "depth") if getattr(self, k) is not None})
        self.settings, self.subset = settings_from(self.name, **knobs)
        check_memory(self.settings)  # before `datasets` starts a generation it would wrap errors of


_BUILDER_ARGUMENTS = set(inspect.signature(datasets.DatasetBuilder.__init__).parameters) - {"self", "config_kwargs"}


class PhantomWiki(datasets.GeneratorBasedBuilder):
    """Generates the universe once per configuration and writes the subset the name asks for."""

    BUILDER_CONFIG_CLASS = PhantomWikiConfig
    VERSION = datasets.Version(__version__)
    DEFAULT_WRITER_BATCH_SIZE = 1000

    def __init__(self, *args: Any, hash: str | None = None, **kwargs: Any) -> None:
        unknown = set(kwargs) - _BUILDER_ARGUMENTS - set(PhantomWikiConfig.__dataclass_fields__)
        if unknown:
            known = ", ".join(sorted(set(Settings.knobs()) | {"size", "seed", "depth"}))
            raise ConfigError(f"unknown setting {sorted(unknown)[0]!r}; the settings are {known}")
        # The cache path holds this digest: other generator code or data never reuses an old cache.
        digest = code_digest(*PHANTOMWIKI_CODE)
        super().__init__(*args, hash=f"{hash}-{digest}" if hash else digest, **kwargs)

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=FEATURES[self.config.subset],
            homepage=_HOMEPAGE,
            citation=_CITATION,
            license=_LICENSE,
        )

    def _split_generators(self, dl_manager: Any) -> list[datasets.SplitGenerator]:
        return [datasets.SplitGenerator(name=datasets.Split.TEST)]

    def _generate_examples(self) -> Any:
        subset = self.config.subset
        yield from enumerate(engine.ROWS[subset](_universe(self.config.settings, subset, self.config.name)))


_LATEST: dict[Settings, engine.Generated] = {}
"""The universe generated last, kept so that loading several of its subsets one after another builds it once."""


def _universe(settings: Settings, subset: str, title: str) -> engine.Generated:
    """The universe `settings` make, with the stages `subset` needs, behind a progress bar of those stages."""
    from builders.cli.progress import StageBar

    generated = _LATEST.get(settings)
    if generated is None:
        _LATEST.clear()  # never two universes in memory at once
    todo = [stage for stage in engine.stage_names([subset]) if generated is None or stage not in generated.timings]
    with StageBar(title, todo) as bar:
        if generated is None:
            generated = _LATEST[settings] = engine.generate(settings, False, False, progress=bar)
        generated.progress = bar
        engine.prepare(generated, [subset])
        generated.progress = None
    return generated


def load_dataset(
    name: str, split: str | None = None, streaming: bool = False, cache_dir: str | None = None, **kwargs: Any
) -> datasets.Dataset | datasets.DatasetDict | datasets.IterableDataset | datasets.IterableDatasetDict:
    """Generate (or load from the `datasets` cache) the configuration `name`, as `datasets.load_dataset` would."""
    from dataset_loading import load_from_builder

    return load_from_builder(PhantomWiki, name, split=split, streaming=streaming, cache_dir=cache_dir, **kwargs)


def publish(configurations: str | list[str], out: str | None = None, **options: Any) -> Any:
    """Write configurations as a Hub dataset folder (Parquet shards, card, manifest) and optionally upload it.

    Options: subsets, encrypt, passphrase, passphrase_in_card, repo_id, private, revision, gated, token,
    endpoint, replace, and the generation settings; see builders.publishing.phantomwiki.publish.
    """
    from builders.publishing.phantomwiki import publish as publish_release

    return publish_release(configurations, out, **options)


def load_published(
    repo_id_or_dir: str,
    name: str,
    split: str | None = "test",
    passphrase: str | None = None,
    cache_dir: str | None = None,
    revision: str | None = None,
    *,
    token: str | None = None,
    endpoint: str | None = None,
) -> datasets.Dataset | datasets.DatasetDict:
    """Load configuration `name` of a published release (a folder or a Hub dataset repo), checked and decrypted.

    Only that configuration's files are downloaded; each is checked against manifest.json, sealed shards are
    decrypted into the `datasets` cache, and the result is what `datasets.load_dataset` returns.
    """
    from pathlib import Path

    from builders.publishing.errors import ReleaseError
    from builders.publishing.loading import open_release

    if split is not None and split.split("[")[0] != "test":
        raise ReleaseError(f"unknown split {split!r}: a published PhantomWiki configuration has one split, test")
    from dataset_loading import usable_cache_dir

    usable_cache_dir(cache_dir)
    cache = Path(cache_dir or datasets.config.HF_DATASETS_CACHE)
    opened = open_release(
        repo_id_or_dir,
        name,
        passphrase=passphrase,
        cache_root=cache,
        revision=revision,
        hub_cache=cache / "hub" if cache_dir else None,
        token=token,
        endpoint=endpoint,
    )
    loaded = datasets.load_dataset(
        "parquet", data_files={"test": [str(path) for path in opened.files]}, split=split, cache_dir=str(cache)
    )
    test = loaded["test"] if isinstance(loaded, datasets.DatasetDict) else loaded
    if split in (None, "test") and test.num_rows != opened.rows:
        raise ReleaseError(
            f"{opened.config_name} of {opened.source} has {test.num_rows} rows but manifest.json lists {opened.rows}: "
            "the release and its manifest do not match; re-publish it"
        )
    return loaded
