"""Helpers shared by the publishing specs: the configuration they publish, its universe, file and process helpers."""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from pathlib import Path

from builders.phantomwiki.config import settings_from
from builders.phantomwiki.generate import Generated, generate

ROOT = Path(__file__).resolve().parents[2]
CONFIG = "n50_s1"
PASSPHRASE = "phantom wiki 2025 public key"
TOKEN = "hf_standin_test_token"


@cache
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
    import shutil

    return Path(shutil.copytree(source, tmp_path / "release"))


def run(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """Run `python -m ...` (or a script) with this interpreter."""
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=env)
