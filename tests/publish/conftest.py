"""Fixtures of the publishing specs: releases of n50_s1 (plain and encrypted) and the Hub stand-in."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from builders.publishing.phantomwiki import write_release
from tests.publish.hub_standin import HubStandIn
from tests.publish.publish_helpers import CONFIG, PASSPHRASE, ROOT, TOKEN


@pytest.fixture(scope="session")
def plain_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """n50_s1, every subset, plain Parquet."""
    return write_release([CONFIG], tmp_path_factory.mktemp("plain") / "release").folder


@pytest.fixture(scope="session")
def encrypted_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """n50_s1, every subset, sealed with PASSPHRASE."""
    return write_release([CONFIG], tmp_path_factory.mktemp("encrypted") / "release", passphrase=PASSPHRASE).folder


@pytest.fixture
def hub() -> Iterator[HubStandIn]:
    """A fresh Hub stand-in on an ephemeral port of 127.0.0.1."""
    standin = HubStandIn(TOKEN).start()
    try:
        yield standin
    finally:
        standin.stop()


@pytest.fixture
def hub_env(hub: HubStandIn, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Environment for a subprocess that talks to the stand-in as a user would: HF_ENDPOINT and HF_TOKEN."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("HF_", "HUGGING"))}
    env.update(
        HF_ENDPOINT=hub.endpoint,
        HF_TOKEN=TOKEN,
        HF_HOME=str(tmp_path / "hf-home"),
        HF_HUB_DISABLE_PROGRESS_BARS="1",
        PYTHONPATH=str(ROOT),
    )
    monkeypatch.setenv("HF_TOKEN", TOKEN)  # the in-process client reads it at each call, as the CLI does
    return env
