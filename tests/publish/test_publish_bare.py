"""A published folder loads with plain `datasets` in a virtualenv that has never seen this package.

scripts/test.sh builds `.venv-bare` (the newest `datasets`, nothing of ours) and `.venv-datasets3`
(datasets 3.6, whose feature format predates `List`); CI runs both.  Run alone, the test is skipped
when the virtualenvs are missing, unless CI is set, where that is a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from leakproof_qa.builders.phantomwiki import rows as engine
from leakproof_qa.builders.phantomwiki.config import SUBSETS
from leakproof_qa.builders.publishing.phantomwiki import write_release
from tests.publish.publish_helpers import CONFIG, ROOT, generated, release_files

SCRIPT = ROOT / "tests" / "compat" / "load_published_bare.py"
HUB_NAMES = {"questions": CONFIG, **{s: f"{CONFIG}_{s}" for s in SUBSETS if s != "questions"}}


def interpreter(venv: str) -> Path:
    python = ROOT / venv / "bin" / "python"
    if not python.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{venv} is missing: scripts/test.sh builds it")
        pytest.skip(f"{venv} is missing: run scripts/test.sh to build it")
    return python


@pytest.mark.parametrize("venv, bare", [(".venv-bare", True), (".venv-datasets3", False)])
def test_plain_datasets_without_this_package_reads_the_published_rows(
    plain_release: Path, tmp_path: Path, venv: str, bare: bool
) -> None:
    python = interpreter(venv)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1"}
    args = [str(python), "-I", str(SCRIPT), str(plain_release), str(tmp_path), *HUB_NAMES.values()]
    done = subprocess.run(
        args + (["--require-bare"] if bare else []), capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    for subset, name in HUB_NAMES.items():
        rows = [json.loads(line) for line in (tmp_path / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]
        assert rows == list(engine.ROWS[subset](generated())), name


pytestmark = pytest.mark.integration


def test_an_installed_package_finds_its_cards_and_publishes_the_same_bytes_as_the_checkout(tmp_path: Path) -> None:
    # .venv-datasets3 holds a non-editable install (and datasets 3.6, huggingface_hub 0.x): the cards are package
    # data there, and the release, card, manifest and code digest included, is byte for byte the checkout's.
    python = interpreter(".venv-datasets3")
    script = (
        "import sys; from leakproof_qa import cards; "
        "from leakproof_qa.builders.publishing.phantomwiki import write_release; "
        "assert 'site-packages' in str(cards.FOLDER), cards.FOLDER; "
        "write_release(['n30_s1'], sys.argv[1], subsets=['database', 'corpus'], passphrase='p')"
    )
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [str(python), "-I", "-c", script, str(tmp_path / "installed")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    checkout = write_release(["n30_s1"], tmp_path / "checkout", subsets=["database", "corpus"], passphrase="p").folder
    installed = json.loads((tmp_path / "installed" / "manifest.json").read_text())["code_digest"]
    assert installed == json.loads((checkout / "manifest.json").read_text())["code_digest"], (
        ".venv-datasets3 holds other code than the checkout: scripts/test.sh reinstalls it"
    )
    assert release_files(tmp_path / "installed") == release_files(checkout)
