"""`phantom_wiki_release`: the tasks read a published release (a folder or a Hub dataset repo) instead of generating.

Metadata keys: `phantom_wiki_release` (the folder or ORG/NAME), `phantom_wiki_release_passphrase_env` (the name of
the environment variable holding a sealed release's passphrase: never the passphrase itself, since lm_eval writes
metadata into its results files) and `phantom_wiki_release_revision` (a Hub branch, tag or commit; default main).
`phantom_wiki_config` names the universe of the release; its settings come from the release's manifest, so no other
setting may be given. The rows are the released rows, byte for byte; `phantom_wiki_resolved` records the release.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from leakproof_qa.builders.phantomwiki.config import Settings
from leakproof_qa.builders.publishing.errors import ReleaseError
from leakproof_qa.builders.publishing.source import NotInRelease, PublishedUniverse, find_universe

from . import TaskSetupError, require_strings
from .task_table import PREFIX

RELEASE = "release"
PASSPHRASE_ENV = "release_passphrase_env"
REVISION = "release_revision"
RELEASE_KEYS = (RELEASE, PASSPHRASE_ENV, REVISION)
_NAMED = ("size", "seed", "depth")


def wants_release(metadata: Mapping[str, Any]) -> bool:
    """Whether the metadata names a release or one of its options."""
    return any(PREFIX + key in metadata for key in RELEASE_KEYS)


def release_passphrase(ours: Mapping[str, Any]) -> str | None:
    """The passphrase the release keys name (None when they name none), checked without reading the release: every
    key a string, the release itself given, no setting beside it, the passphrase's variable set."""
    require_strings(ours, PREFIX, RELEASE_KEYS)
    if RELEASE not in ours:
        given = next(key for key in RELEASE_KEYS if key in ours)
        raise TaskSetupError(
            f"{PREFIX}{given} is an option of a release: give {PREFIX}{RELEASE} too (a folder or ORG/NAME)"
        )
    fixed = [key for key in (*_NAMED, *Settings.knobs()) if key in ours]
    if fixed:
        raise TaskSetupError(
            f"{PREFIX}{fixed[0]}: a release fixes every setting of its universes (its manifest records them); leave "
            f"{PREFIX}{fixed[0]} out, or leave {PREFIX}{RELEASE} out to generate the universe"
        )
    if PASSPHRASE_ENV not in ours:
        return None
    variable = ours[PASSPHRASE_ENV]
    passphrase = os.environ.get(variable, "")
    if not passphrase:
        raise TaskSetupError(
            f"environment variable {variable!r} ({PREFIX}{PASSPHRASE_ENV}) is not set or empty; set it to the "
            "release's passphrase"
        )
    return passphrase


def published(ours: Mapping[str, Any], universe: str, cache_dir: str | None) -> PublishedUniverse:
    """Universe `universe` of the release the metadata names; anything wrong is a one-line TaskSetupError."""
    passphrase = release_passphrase(ours)
    from leakproof_qa.dataset_loading import release_caches

    try:
        cache_root, hub_cache = release_caches(cache_dir)
    except ValueError as error:
        raise TaskSetupError(f"{PREFIX}cache_dir: {error}") from None
    try:
        release = find_universe(
            ours[RELEASE],
            universe,
            needs=(),
            passphrase=passphrase,
            cache_root=cache_root,
            hub_cache=hub_cache,
            revision=ours.get(REVISION),
        )
    except NotInRelease as error:
        raise TaskSetupError(f"{PREFIX}config={universe!r}: {error}") from None
    except ReleaseError as error:
        raise TaskSetupError(f"{PREFIX}{RELEASE}: {error}") from None
    if release.encrypted and passphrase is None:
        raise TaskSetupError(
            f"{PREFIX}{RELEASE}: {ours[RELEASE]} is encrypted: set an environment variable to its passphrase and name "
            f"it with {PREFIX}{PASSPHRASE_ENV} (never the passphrase itself: lm_eval writes metadata into its results)"
        )
    if not release.encrypted and passphrase is not None:
        raise TaskSetupError(
            f"{PREFIX}{PASSPHRASE_ENV}: {ours[RELEASE]} is not encrypted, so it takes no passphrase; leave it out"
        )
    return release


def require_same_code(release: PublishedUniverse, why: str) -> None:
    """A one-line TaskSetupError unless this version's code made the release (what `why` needs is derived by
    generating the universe again, which gives the release's rows only with the same code)."""
    from leakproof_qa.builders.digest import PHANTOMWIKI_CODE, code_digest

    made, ours = release.located.manifest.code_digest, code_digest(*PHANTOMWIKI_CODE)
    if made != ours:
        raise TaskSetupError(
            f"{PREFIX}{RELEASE}: {release.located.source} was made by code {made} (leakproof-qa "
            f"{release.located.manifest.package_version}), not by this version's {ours}: {why}; evaluate it with "
            "the version that made it"
        )


def released_rows(release: PublishedUniverse, subset: str) -> list[dict[str, Any]]:
    """The rows of one subset as released; a subset the release lacks, or a bad file, is a one-line TaskSetupError."""
    try:
        return release.rows(subset)
    except ReleaseError as error:
        raise TaskSetupError(f"{PREFIX}{RELEASE}: {error}") from None
