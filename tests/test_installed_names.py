"""What installing the package puts on a user's sys.path: the datasets' modules and leakproof_qa, nothing generic."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_wheel_installs_phantom_wiki_neoqa_and_leakproof_qa_alone(tmp_path):
    # a copy of the source without build output, so a stale build/ folder of the checkout cannot leak into the wheel
    source = tmp_path / "source"
    skipped = shutil.ignore_patterns(".*", "build", "dist", "*.egg-info", "__pycache__", "runs", "tests")
    shutil.copytree(ROOT, source, symlinks=True, ignore=skipped)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(source),
        ],
        check=True,
        capture_output=True,
        cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("leakproof_qa-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top == {"phantom_wiki.py", "neoqa.py", "leakproof_qa"}
    # the parts are copied in whole: code, data files, the lm-eval task folder, the card templates
    for part in (
        "leakproof_qa/builders/phantomwiki/solver.py",
        "leakproof_qa/builders/phantomwiki/data/relations.tsv",
        "leakproof_qa/dataset_loading.py",
        "leakproof_qa/leakproof_eval/tasks/phantom_wiki.yaml",
        "leakproof_qa/cards/phantom_wiki.md",
        "leakproof_qa/phantom_env/tools.py",
        "leakproof_qa/encryption/__init__.py",
    ):
        assert part in names, part
