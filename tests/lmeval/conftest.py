"""Fixtures of the lm-evaluation-harness specs (helpers: harness.py); skipped without the lm-eval extra."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip(
    "lm_eval", reason="the lm-eval extra is not installed: pip install -e '.[lm-eval]' (scripts/test.sh does)"
)

from tests.neoqa import make_fixture_release


@pytest.fixture(scope="session")
def universes(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A `datasets` cache for the session: each universe is generated once, whichever spec needs it first."""
    return str(tmp_path_factory.mktemp("universes"))


@pytest.fixture(scope="session")
def neoqa_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The invented NeoQA fixture release, encrypted with the published key."""
    return make_fixture_release.write_release(tmp_path_factory.mktemp("neoqa-release"))
