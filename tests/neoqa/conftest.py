"""Shared fixtures for the NeoQA tests: the fixture release on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.neoqa import make_fixture_release

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def encrypted_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture release, encrypted with the published key (23456)."""
    return make_fixture_release.write_release(tmp_path_factory.mktemp("release-encrypted"))


@pytest.fixture(scope="session")
def plain_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture release as plain JSONL."""
    return make_fixture_release.write_release(tmp_path_factory.mktemp("release-plain"), key=None)
