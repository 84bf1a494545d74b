"""Fixtures every spec folder may use: the Hub stand-in (tests/publish/hub_standin.py) on 127.0.0.1, and the
environment a subprocess needs to reach it as a user's client would (publishing, lm-eval and the agent read from it);
and the slow mark of the tests tests/data/slow_tests.tsv names."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from leakproof_qa.builders.tsv import rows
from tests.publish.hub_standin import HubStandIn
from tests.publish.publish_helpers import ROOT, TOKEN

SLOW_TESTS = Path(__file__).with_name("data") / "slow_tests.tsv"


def slow_listed(nodeid: str, listed: list[str]) -> bool:
    """Whether a test is one a row of slow_tests.tsv names: its file, its name (any parameters), or its name with
    its parameters, exactly or up to a row's trailing "-"."""
    for row in listed:
        whole = nodeid == row or nodeid.startswith(row + "::") or nodeid.startswith(row + "[")
        if whole or (row.endswith("-") and nodeid.startswith(row)):
            return True
    return False


@pytest.hookimpl(tryfirst=True)  # before -m reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    listed = [row[0] for row in rows(SLOW_TESTS)]
    for item in items:
        if slow_listed(item.nodeid, listed):
            item.add_marker(pytest.mark.slow)


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
