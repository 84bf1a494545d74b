"""Shared fixtures for the NeoQA tests: the repository on sys.path and the fixture release on disk."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

import make_fixture_release  # noqa: E402


@pytest.fixture(scope="session")
def encrypted_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture release, encrypted with the published key (23456)."""
    return make_fixture_release.write_release(tmp_path_factory.mktemp("release-encrypted"))


@pytest.fixture(scope="session")
def plain_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture release as plain JSONL."""
    return make_fixture_release.write_release(tmp_path_factory.mktemp("release-plain"), key=None)
