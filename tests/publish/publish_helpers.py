"""Helpers shared by the publishing specs: the configuration they publish, its universe, file and process helpers."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from functools import cache
from pathlib import Path

from leakproof_qa.builders import __version__
from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.rows import Generated, generate
from tests.publish.hub_standin import HubStandIn

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


def hub_releases(hub: HubStandIn, repo: str, subsets: list[str], folder: Path) -> dict[str, Path]:
    """CONFIG's `subsets` published to the stand-in plain (as `{repo}-plain`) and sealed with PASSPHRASE (as
    `{repo}-sealed`), each also written to a folder of `folder`: {"plain": its folder, "sealed": its folder}."""
    import phantom_wiki

    published = {}
    for which, sealed in (("plain", False), ("sealed", True)):
        passphrase = PASSPHRASE if sealed else None
        release = phantom_wiki.publish(
            CONFIG,
            str(folder / which),
            repo_id=f"{repo}-{which}",
            subsets=subsets,
            encrypt=sealed,
            passphrase=passphrase,
            endpoint=hub.endpoint,
        )
        published[which] = folder / which
        assert release.folder == published[which]
    return published


def downloaded(hub: HubStandIn) -> set[str]:
    """The files the stand-in served (any repo, any revision), by path in the repo."""
    return {path.split("/resolve/")[1].split("/", 1)[1] for _, path in hub.requests if "/resolve/" in path}


def release_record(release: Path, encrypted: bool, revision: str | None = None, source: str | None = None) -> dict:
    """What lm-eval's results and the agent's run.json record of a release read from `source` (the folder itself if
    None), at the Hub commit `revision`."""
    manifest = release / "manifest.json"
    return {
        "source": source or str(release),
        "revision": revision,
        "manifest_sha256": hashlib.sha256(manifest.read_bytes()).hexdigest(),
        "code_digest": json.loads(manifest.read_text())["code_digest"],
        "package_version": __version__,
        "encrypted": encrypted,
    }
