"""Fixtures of the publishing specs: releases of n50_s1, plain and encrypted (the Hub stand-in: tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from leakproof_qa.builders.publishing.phantomwiki import write_release
from tests.publish.publish_helpers import CONFIG, PASSPHRASE


@pytest.fixture(scope="session")
def plain_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """n50_s1, every subset, plain Parquet."""
    return write_release([CONFIG], tmp_path_factory.mktemp("plain") / "release").folder


@pytest.fixture(scope="session")
def encrypted_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """n50_s1, every subset, sealed with PASSPHRASE."""
    return write_release([CONFIG], tmp_path_factory.mktemp("encrypted") / "release", passphrase=PASSPHRASE).folder
