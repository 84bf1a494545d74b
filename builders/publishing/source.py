"""A published release as the source of one universe's rows, for the faces that evaluate on it (lm-eval, the agent).

`find_universe` reads the manifest only (on the Hub: manifest.json at the commit the revision resolves to, which every
later read is pinned to), checks that the release holds the universe and the subsets asked for, and reads the
universe's settings from the manifest; `PublishedUniverse.rows` opens one subset through `open_release` (every file
checked against the manifest, sealed shards decrypted) and reads its Parquet shards as they were released. The Hub
is reached as the huggingface_hub client is configured (HF_ENDPOINT, HF_TOKEN), through the one bounded client.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..phantomwiki.config import SUBSETS, ConfigError, Settings, format_name, settings_from
from ..phantomwiki.features import arrow_schema
from .errors import ReleaseError
from .loading import Located, locate, open_release
from .phantomwiki import DATASET


class NotInRelease(ReleaseError):
    """The release holds no such universe, or the universe without a subset asked for; the message names what it
    holds."""


@dataclass(frozen=True)
class PublishedUniverse:
    """One universe of a release, pinned to the manifest read first: where, which commit, which settings."""

    located: Located
    universe: str  # the canonical name, e.g. n500_s1
    settings: Settings
    passphrase: str | None = field(repr=False, compare=False)
    cache_root: Path = field(repr=False, compare=False)  # where sealed shards are opened
    hub_cache: Path | None = field(repr=False, compare=False)

    @property
    def encrypted(self) -> bool:
        """Whether the release is sealed (its shards open with a passphrase only)."""
        return self.located.manifest.encryption is not None

    def config_name(self, subset: str) -> str:
        """The Hub configuration holding `subset` of this universe, e.g. n500_s1 (questions) or n500_s1_corpus."""
        return format_name(self.settings.size, self.settings.depth, self.settings.seed, subset)

    def record(self) -> dict[str, Any]:
        """What a results file records of the release: where it is, the commit or the manifest's sha256 that names its
        bytes, and the code digest and version of the package that made it (from its manifest)."""
        manifest = self.located.manifest
        return {
            "source": self.located.source,
            "revision": self.located.commit,
            "manifest_sha256": self.located.manifest_sha256,
            "code_digest": manifest.code_digest,
            "package_version": manifest.package_version,
            "encrypted": self.encrypted,
        }

    def require(self, subsets: Sequence[str]) -> None:
        """A one-line ReleaseError naming what the release holds of this universe unless it holds every subset."""
        manifest = self.located.manifest
        names = set(manifest.config_names()) | set(manifest.empty)
        lacking = [subset for subset in subsets if self.config_name(subset) not in names]
        if lacking:
            holds = [subset for subset in SUBSETS if self.config_name(subset) in names]
            raise NotInRelease(
                f"{self.located.source} holds {self.universe} without its {' and '.join(lacking)} subset (it holds "
                f"{', '.join(holds)}); publish {self.universe} with {' and '.join(lacking)} among the subsets"
            )

    def rows(self, subset: str) -> list[dict[str, Any]]:
        """Every row of one subset as released ([] for a subset the release left out for having no rows)."""
        import pyarrow.parquet as pq

        self.require([subset])
        name = self.config_name(subset)
        if name in self.located.manifest.empty:
            return []
        opened = open_release(
            self.located.source,
            name,
            passphrase=self.passphrase,
            cache_root=self.cache_root,
            revision=self.located.commit,
            hub_cache=self.hub_cache,
        )
        if opened.located.manifest_sha256 != self.located.manifest_sha256:
            raise ReleaseError(
                f"the release at {self.located.source} changed while it was read (its manifest.json is not the one "
                "read first); read it again once it is complete"
            )
        expected = arrow_schema(subset).remove_metadata()
        rows: list[dict[str, Any]] = []
        for path in opened.files:
            table = pq.read_table(path)
            if not table.schema.remove_metadata().equals(expected):
                made = self.located.manifest.package_version
                raise ReleaseError(
                    f"{name} of {self.located.source} has the columns {', '.join(table.schema.names)}, not those "
                    f"this version reads ({', '.join(expected.names)}): it was made by leakproof-qa {made}; "
                    "read it with that version"
                )
            rows += table.to_pylist()
        if len(rows) != opened.rows:
            raise ReleaseError(
                f"{name} of {self.located.source} has {len(rows)} rows but manifest.json lists {opened.rows}: "
                "the release and its manifest do not match; re-publish it"
            )
        return rows


def find_universe(
    source: str,
    universe: str,
    *,
    needs: Sequence[str],
    passphrase: str | None,
    cache_root: Path,
    hub_cache: Path | None = None,
    revision: str | None = None,
) -> PublishedUniverse:
    """The universe `universe` (a canonical name) of the release at `source` (a folder or a Hub dataset id), holding
    the subsets `needs`; anything missing or wrong is a one-line ReleaseError naming what the release holds. (Whether
    a passphrase is needed is the caller's to say, in its own words: see `encrypted`.)"""
    located = locate(source, revision=revision, hub_cache=hub_cache)
    manifest = located.manifest
    if manifest.dataset != DATASET:
        raise ReleaseError(f"{source} is a {manifest.dataset!r} release, not {DATASET!r}")
    if not isinstance(manifest.configurations, dict):
        raise ReleaseError(f"{source}: manifest.json lists no configurations object; re-download the release")
    held = list(manifest.configurations)
    if universe not in manifest.configurations:
        raise NotInRelease(f"{source} holds no universe {universe} (it holds {', '.join(held) or 'none'})")
    settings = _settings(manifest.configurations[universe], universe, source)
    found = PublishedUniverse(located, universe, settings, passphrase, cache_root, hub_cache)
    found.require(needs)
    return found


def _settings(recorded: Any, universe: str, source: str) -> Settings:
    """The settings the manifest records for `universe` (a setting it lacks, from an older release, is the default)."""
    damaged = f"{source}: manifest.json records the settings of {universe} as"
    if not isinstance(recorded, dict):
        raise ReleaseError(f"{damaged} {type(recorded).__name__}, not an object; re-download the release")
    named = ("size", "depth", "seed")
    unknown = sorted(set(recorded) - set(Settings.knobs()) - set(named))
    if unknown:
        raise ReleaseError(
            f"{damaged} having {unknown[0]!r}, a setting this version does not know; upgrade leakproof-qa"
        )
    try:
        return settings_from(universe, **recorded)[0]
    except ConfigError as error:
        raise ReleaseError(f"{damaged} something this version cannot use ({error}); re-download the release") from None
