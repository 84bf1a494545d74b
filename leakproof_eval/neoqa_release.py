"""Which NeoQA source the `neoqa_*` metadata names: the official release's files, or a generated configuration
(`neoqa_generate`), checked in one line when wrong. Light (no lm_eval, no `datasets`), so `python -m leakproof_qa
run` checks the metadata before lm_eval loads; the tasks themselves are in neoqa_tasks.py.

The license follows the source: the release's text is CC BY-ND 4.0 and never reaches the logs; generated data is
ours, CC BY 4.0, and is logged as PhantomWiki's is.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import leakproof_qa.builders.neoqa as engine
from leakproof_qa.builders.checks import is_whole

from . import TaskSetupError, require_strings
from .help import nearest

PREFIX = "neoqa_"
RESOLVED = "resolved"
"""The metadata key the tasks fill in (never read): the configuration evaluated and, when generated, every setting,
so lm_eval's results file says which set was evaluated (as phantom_wiki_resolved does)."""
_KEYS = ("data_dir", "decryption_key", "config", "split", "seed", "cache_dir", "generate", RESOLVED)
RELEASE_LICENSE = "CC BY-ND 4.0"
"""The official release's text (Glockner et al., 2025): shared verbatim only, so it is never logged."""
GENERATED_LICENSE = "CC BY 4.0"
"""Generated configurations: our data, logged and shared as PhantomWiki's is."""


@dataclass(frozen=True)
class Release:
    """Which release files (or which generated configuration), which instance set and split, how to shuffle and
    cache them."""

    data_dir: str | None
    decryption_key: int | str | None
    config: str
    split: str
    seed: int
    cache_dir: str | None
    generated: str | None = None  # a generated configuration's name without subset, e.g. t200_s1

    @property
    def license(self) -> str:
        """The license of this source's text: the release's CC BY-ND 4.0, or CC BY 4.0 for generated data."""
        return RELEASE_LICENSE if self.generated is None else GENERATED_LICENSE

    def key(self) -> str:
        """A key naming this release's texts in this process (no text in it)."""
        source = self.generated or str(Path(str(self.data_dir)).expanduser().resolve())
        fields = [source, self.decryption_key, self.config, self.split, self.seed]
        return (
            f"neoqa_{self.config}_{self.split}_s{self.seed}#"
            + hashlib.sha256(json.dumps(fields).encode()).hexdigest()[:12]
        )

    def load(self, subset: str, **kwargs: Any) -> Any:
        """One configuration's rows from this source: an instance set, or the news."""
        import neoqa

        if self.generated is not None:
            return neoqa.load_dataset(
                f"{self.generated}_{subset}", split=self.split, cache_dir=self.cache_dir, **kwargs
            )
        return neoqa.load_dataset(
            subset,
            split=self.split,
            data_dir=self.data_dir,
            decryption_key=self.decryption_key,
            cache_dir=self.cache_dir,
            **kwargs,
        )


def _generated(ours: Mapping[str, Any]) -> Release:
    """The generated configuration `neoqa_generate` names; its instance set is the name's subset or neoqa_config."""
    from leakproof_qa.builders.neoqa.settings import INSTANCE_SUBSETS, SPLIT, format_name, settings_from

    name = ours["generate"]
    if ours.get("data_dir") or ours.get("decryption_key") is not None:
        raise TaskSetupError(
            f"{PREFIX}generate={name!r} reads no release files: leave out {PREFIX}data_dir and {PREFIX}decryption_key"
        )
    try:
        settings, subset = settings_from(name)
    except ValueError as error:
        raise TaskSetupError(f"{PREFIX}generate: {error}") from None
    config = subset if name.endswith("_" + subset) else ours.get("config", "neoqa")
    if config not in INSTANCE_SUBSETS:
        raise TaskSetupError(f"{PREFIX}generate={name!r}: choose an instance set, one of {', '.join(INSTANCE_SUBSETS)}")
    if ours.get("split", SPLIT) != SPLIT:
        raise TaskSetupError(f"{PREFIX}split={ours['split']!r}: a generated configuration has one split, {SPLIT!r}")
    resolved = ours.get(RESOLVED)
    if isinstance(resolved, dict):
        resolved.clear()
        resolved.update(
            {"configuration": format_name(settings, config), "license": GENERATED_LICENSE, **asdict(settings)}
        )
    return Release(None, None, config, SPLIT, settings.seed, ours.get("cache_dir"), format_name(settings))


def release_from(metadata: Mapping[str, Any]) -> Release:
    """The release (or generated configuration) the `neoqa_*` metadata keys describe; anything wrong is a one-line
    TaskSetupError."""
    ours = {key[len(PREFIX) :]: value for key, value in metadata.items() if key.startswith(PREFIX)}
    ours = {key: value for key, value in ours.items() if value is not None}  # the YAML's nulls: not given
    unknown = sorted(set(ours) - set(_KEYS))
    if unknown:
        raise TaskSetupError(
            f"unknown metadata key {PREFIX}{unknown[0]}{nearest(unknown[0], _KEYS, PREFIX)}; "
            "the keys are " + ", ".join(PREFIX + key for key in _KEYS)
        )
    require_strings(ours, PREFIX, ("data_dir", "config", "split", "cache_dir", "generate"))
    if ours.get("generate"):
        return _generated(ours)
    if not ours.get("data_dir"):
        raise TaskSetupError(
            "NeoQA needs its release files: pass --metadata "
            '\'{"neoqa_data_dir": "<directory of dev/test.*.jsonl>", "neoqa_decryption_key": 23456}\', '
            'or a generated configuration: \'{"neoqa_generate": "t200_s1"}\''
        )
    secret = ours.get("decryption_key")
    if secret is not None and (isinstance(secret, bool) or not isinstance(secret, (int, str))):
        raise TaskSetupError(f"{PREFIX}decryption_key={secret!r} must be a whole number or a string, e.g. 23456")
    config, split, seed = ours.get("config", "neoqa"), ours.get("split", "test"), ours.get("seed", 1)
    if config not in engine.INSTANCE_SETS:
        raise TaskSetupError(
            f"{PREFIX}config={config!r}: choose an instance set, one of {', '.join(engine.INSTANCE_SETS)}"
        )
    if not is_whole(seed):
        raise TaskSetupError(f"{PREFIX}seed={seed!r} must be an integer")
    try:
        engine.check_config(config, split)
    except ValueError as error:
        raise TaskSetupError(f"{PREFIX}split: {error}") from None
    resolved = ours.get(RESOLVED)
    if isinstance(resolved, dict):
        resolved.clear()
        resolved.update(
            {
                "configuration": config,
                "split": split,
                "seed": seed,
                "source": "the official release",
                "license": RELEASE_LICENSE,
            }
        )
    return Release(str(ours["data_dir"]), ours.get("decryption_key"), config, split, seed, ours.get("cache_dir"))
