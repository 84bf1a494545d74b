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
# without importing `datasets`. What runs only as a program imports the command line (the top floor) here, and
# only here: the agent, MCP and task-folder commands are the faces' own (builders/cli/faces.py).
if __name__ == "__main__":
    from leakproof_qa.builders.cli.faces import FACES
    from leakproof_qa.builders.cli.phantomwiki import main
    from leakproof_qa.builders.phantomwiki.config import ConfigError as _ConfigError

    try:
        sys.exit(main(sys.argv[1:], faces=FACES))
    except _ConfigError as error:
        sys.exit(f"phantom_wiki: {error}")

from typing import TYPE_CHECKING, Any

from leakproof_qa.builders import __version__, metrics

if TYPE_CHECKING or "datasets" in sys.modules:
    # `datasets` is loading this file as a script (3.x) and looks for the builder in its namespace; otherwise the
    # builder (and `datasets`, about a second) is imported on first use, by __getattr__ below.
    from leakproof_qa.dataset_builders.phantom_wiki import PhantomWiki, PhantomWikiConfig

if TYPE_CHECKING:
    import datasets

__all__ = ["PhantomWiki", "PhantomWikiConfig", "__version__", "load_dataset", "load_published", "metrics", "publish"]
_BUILDER_NAMES = ("PhantomWiki", "PhantomWikiConfig")


def __getattr__(name: str) -> Any:
    """The builder classes, imported on first use (so `import phantom_wiki` stays quick)."""
    if name in _BUILDER_NAMES:
        from leakproof_qa.dataset_builders import phantom_wiki as builder

        value = globals()[name] = getattr(builder, name)
        return value
    raise AttributeError(f"module 'phantom_wiki' has no attribute {name!r}")


def load_dataset(
    name: str,
    split: str | None = None,
    streaming: bool = False,
    cache_dir: str | None = None,
    num_proc: int | None = None,
    **kwargs: Any,
) -> datasets.Dataset | datasets.DatasetDict | datasets.IterableDataset | datasets.IterableDatasetDict:
    """Generate (or load from the `datasets` cache) the configuration `name`, as `datasets.load_dataset` would;
    `num_proc` processes write its rows (the same rows as one process)."""
    from leakproof_qa.builders.phantomwiki.config import ConfigError
    from leakproof_qa.dataset_builders.phantom_wiki import PhantomWiki
    from leakproof_qa.dataset_loading import load_from_builder

    if isinstance(split, str) and any(part.split("[")[0].strip() != "test" for part in split.split("+")):
        raise ConfigError(
            f'unknown split {split!r}: a phantom_wiki configuration has one split, test (e.g. split="test" or '
            '"test[:100]")'
        )
    return load_from_builder(
        PhantomWiki, name, split=split, streaming=streaming, cache_dir=cache_dir, num_proc=num_proc, **kwargs
    )


def publish(configurations: str | list[str], out: str | None = None, **options: Any) -> Any:
    """Write configurations as a Hub dataset folder (Parquet shards, card, manifest) and optionally upload it.

    Options: subsets, encrypt, passphrase, passphrase_in_card, replace, num_proc, the generation settings, and where
    on the Hub (builders.publishing.hub.HubTarget's fields: repo_id, private, revision, gated, token, endpoint);
    see builders.publishing.phantomwiki.publish.
    """
    from leakproof_qa.builders.publishing.hub import HubTarget
    from leakproof_qa.builders.publishing.phantomwiki import publish as publish_release

    options = dict(options)
    return publish_release(configurations, out, hub=HubTarget.taken_from(options), **options)


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
    import datasets

    from leakproof_qa.builders.publishing.errors import ReleaseError
    from leakproof_qa.builders.publishing.loading import open_release

    if split is not None and split.split("[")[0] != "test":
        raise ReleaseError(f"unknown split {split!r}: a published PhantomWiki configuration has one split, test")
    from leakproof_qa.dataset_loading import release_caches

    cache, hub_cache = release_caches(cache_dir)
    opened = open_release(
        repo_id_or_dir,
        name,
        passphrase=passphrase,
        cache_root=cache,
        revision=revision,
        hub_cache=hub_cache,
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
