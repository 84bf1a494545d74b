"""Shared fixtures of the publishing specs: releases of n50_s1 (plain and encrypted), the Hub stand-in, helpers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests" / "neoqa"))

from builders.phantomwiki.config import settings_from  # noqa: E402
from builders.phantomwiki.generate import Generated, generate  # noqa: E402
from builders.publishing.phantomwiki import write_release  # noqa: E402
from hub_standin import HubStandIn  # noqa: E402

CONFIG = "n50_s1"
PASSPHRASE = "phantom wiki 2025 public key"
TOKEN = "hf_standin_test_token"


@lru_cache(maxsize=None)
def generated(name: str = CONFIG) -> Generated:
    """The universe `name` with every stage run, once per session."""
    return generate(settings_from(name)[0])


def one_line(error: BaseException) -> None:
    """User errors are one line, with the internal exception hidden."""
    assert "\n" not in str(error)
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)


def release_files(folder: Path) -> dict[str, bytes]:
    """Every file below `folder`, by relative path."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def copy_release(source: Path, tmp_path: Path) -> Path:
    """A copy of a release to alter."""
    return Path(shutil.copytree(source, tmp_path / "release"))


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
    env.update(HF_ENDPOINT=hub.endpoint, HF_TOKEN=TOKEN, HF_HOME=str(tmp_path / "hf-home"),
               HF_HUB_DISABLE_PROGRESS_BARS="1", PYTHONPATH=str(ROOT))
    monkeypatch.setenv("HF_TOKEN", TOKEN)  # the in-process client reads it at each call, as the CLI does
    return env


def run(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """Run `python -m ...` (or a script) with this interpreter."""
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=env)
