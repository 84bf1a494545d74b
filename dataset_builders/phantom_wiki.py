"""The `datasets` builder behind `phantom_wiki`: a configuration name in, a universe's subset out, cached by `datasets`.

It lives apart from the top-level phantom_wiki.py so that `import phantom_wiki` does not import `datasets` (about a
second); that module hands these classes out on first use. `datasets` names the dataset and its cache folder after
this module's name: phantom_wiki.
"""

from __future__ import annotations

import inspect
from dataclasses import field, make_dataclass
from functools import lru_cache
from typing import Any

import datasets

from leakproof_qa import cards
from leakproof_qa.builders import __version__
from leakproof_qa.builders.digest import PHANTOMWIKI_CODE, code_digest
from leakproof_qa.builders.phantomwiki import rows as engine
from leakproof_qa.builders.phantomwiki.budget import check as check_memory
from leakproof_qa.builders.phantomwiki.config import ConfigError, Settings, settings_from
from leakproof_qa.builders.phantomwiki.features import datasets_features

_DESCRIPTION = (
    "PhantomWiki: an on-demand benchmark of fictional people, their wiki-style articles and multi-hop "
    "questions with exact answers, generated afresh from a configuration name so no model can have seen it."
)
_CITATION = cards.text("phantom_wiki.bib")
_HOMEPAGE = "https://github.com/kilian-group/phantom-wiki"
_LICENSE = "cc-by-4.0"
PARTS = engine.PARTS
"""Contiguous parts of a subset's rows, the shards `load_dataset(num_proc=K)` spreads over K processes (at most 16)."""


@lru_cache(maxsize=64)
def _parsed(name: str, knobs: tuple[tuple[str, Any], ...]) -> tuple[Settings, str]:
    return settings_from(name, **dict(knobs))


def _settings(name: str, **knobs: Any) -> tuple[Settings, str]:
    """settings_from, once per name and knobs: one load_dataset makes its config twice (to find the cache folder
    without reading it, then the builder's), and the name is parsed at the first."""
    key = tuple(sorted(knobs.items()))
    try:
        hash(key)
    except TypeError:  # a knob that cannot be hashed (a list, say): refused in settings_from's words, uncached
        return settings_from(name, **knobs)
    return _parsed(name, key)


def _post_init(self: Any) -> None:
    """Parse the name and check the knobs, once: a bad one is our one line (a name outside the grammar, `../x`, is
    ours, not datasets' error), before `datasets` starts anything; the config then carries the settings on."""
    knobs = {name: getattr(self, name) for name in Settings.knobs()}
    knobs.update({k: getattr(self, k) for k in ("size", "seed", "depth") if getattr(self, k) is not None})
    self.settings, self.subset = _settings(self.name, **knobs)
    datasets.BuilderConfig.__post_init__(self)
    check_memory(self.settings)  # before `datasets` starts a generation it would wrap errors of


def config_class(settings: type[Settings] = Settings) -> type[datasets.BuilderConfig]:
    """The builder config made from the settings (config.setting): a configuration name plus a field for every
    setting the name does not spell out, with its default; `size`, `seed`, `depth` may repeat the name."""
    columns: list[tuple[str, Any, Any]] = [
        (name, "int | None", field(default=None)) for name in ("size", "seed", "depth")
    ]
    columns += [(f.name, f.type, field(default=f.default)) for f in settings.knob_fields()]
    made = make_dataclass(
        "PhantomWikiConfig",
        columns,
        bases=(datasets.BuilderConfig,),
        namespace={"__post_init__": _post_init, "__doc__": config_class.__doc__},
    )
    made.__module__ = __name__  # so a config pickles (datasets hashes and copies it)
    return made


PhantomWikiConfig = config_class()


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
            features=datasets_features(self.config.subset, self.config.settings),
            homepage=_HOMEPAGE,
            citation=_CITATION,
            license=_LICENSE,
        )

    def _split_generators(self, dl_manager: Any) -> list[datasets.SplitGenerator]:
        # The stages run here, in the parent: processes of num_proc > 1 start from a copy of it (fork) and only
        # write their parts' rows.
        generated_universe(self.config.settings, self.config.subset, self.config.name)
        parts = 1 if self.config.subset == "database" else PARTS
        return [datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={"parts": list(range(parts))})]

    def _generate_examples(self, parts: list[int]) -> Any:
        subset = self.config.subset
        generated = generated_universe(self.config.settings, subset, self.config.name)
        count = 1 if subset == "database" else PARTS
        for part in parts:
            for index, row in enumerate(engine.ROWS[subset](generated, (part, count))):
                yield f"{part}-{index}", row


_LATEST: dict[Settings, engine.Generated] = {}
"""The universe generated last, kept so that loading several of its subsets one after another builds it once."""


def generated_universe(settings: Settings, subset: str, title: str) -> engine.Generated:
    """The universe `settings` make, with the stages `subset` needs, behind a progress bar of those stages."""
    from leakproof_qa.builders.progress import StageBar

    generated = _LATEST.get(settings)
    if generated is None:
        _LATEST.clear()  # never two universes in memory at once
    todo = [stage for stage in engine.stage_names([subset]) if generated is None or stage not in generated.timings]
    if not todo and generated is not None:
        return generated
    with StageBar(title, todo) as bar:
        if generated is None:
            generated = _LATEST[settings] = engine.generate(settings, False, False, progress=bar)
        generated.progress = bar
        engine.prepare(generated, [subset])
        generated.progress = None
    return generated
