"""The instances (and rag) subsets the CLI writes read back with plain `datasets` exactly as built."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import datasets
import pytest

from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.features import datasets_features
from leakproof_qa.builders.phantomwiki.rows import ROWS, generate

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["n200_s4"])
def test_cli_parquet_loads_back_identical_with_plain_datasets(name, tmp_path):
    out = tmp_path / "out"
    run = subprocess.run(
        [sys.executable, "-m", "phantom_wiki", "generate", name, "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    generated = generate(settings_from(name)[0])
    for subset in ("instances", "rag"):
        loaded = datasets.load_dataset(
            "parquet", data_files=str(out / f"{subset}.parquet"), split="train", cache_dir=str(tmp_path / "cache")
        )
        assert loaded.features == datasets_features(subset)
        assert loaded.to_list() == list(ROWS[subset](generated))
        assert len(loaded) > 0
