"""`agent --release`: the agent over a published release (plain and sealed, from a folder and from the Hub stand-in,
tests/publish/hub_standin.py, reached by the real huggingface_hub client through HF_ENDPOINT as a user's would; what
the stand-in does not cover is said there). The oracle scores 1.0 with the trajectories of the generated universe,
run.json records the release, and what is wrong or missing is one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.rows import corpus_rows, generate, question_rows
from leakproof_qa.builders.publishing.phantomwiki import write_release
from leakproof_qa.phantom_env.cli import main
from leakproof_qa.phantom_env.release import ReleaseRowsError, tasks_of_rows
from leakproof_qa.phantom_env.runner import RUN_FILE, SCORES, TRAJECTORIES, tasks_of
from tests.publish.publish_helpers import CONFIG, PASSPHRASE, downloaded, hub_releases, release_record

pytestmark = pytest.mark.integration

HUB_REPO = "leakproof-lab/phantom_wiki-agent"
ORACLE = ["--model", "oracle", "--mode", "tools", "--max-steps", "1000"]  # above every question's minimum


@pytest.mark.parametrize("name", ["n50_s1", "n500_s1", "n200_d10_s3"])
def test_the_tasks_read_from_released_rows_are_those_of_the_universe_required_sets_and_all(name):
    generated = generate(settings_from(name)[0])
    tasks = tasks_of_rows(list(question_rows(generated)), list(corpus_rows(generated)))
    assert tasks == tasks_of(generated)
    assert sum(task.start_value is not None for task in tasks) > 0  # attribute starts, read from the closed world


def test_questions_and_a_corpus_that_do_not_belong_together_are_one_line():
    generated = generate(settings_from(CONFIG)[0])
    other = generate(settings_from("n50_s2")[0])
    with pytest.raises(ReleaseRowsError, match=r"asks about .*, who has no article in the released corpus"):
        tasks_of_rows(list(question_rows(generated)), list(corpus_rows(other)))


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """n50_s1's questions and corpus published plain and sealed, and its questions and rag alone."""
    root = tmp_path_factory.mktemp("releases")
    subsets = ["questions", "corpus"]
    return {
        "plain": write_release([CONFIG], root / "plain", subsets=subsets).folder,
        "sealed": write_release([CONFIG], root / "sealed", subsets=subsets, passphrase=PASSPHRASE).folder,
        "no-corpus": write_release([CONFIG], root / "no-corpus", subsets=["questions", "rag"]).folder,
    }


@pytest.fixture(scope="module")
def generated_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The oracle's run over the generated universe, to hold the release's runs against."""
    out = tmp_path_factory.mktemp("generated") / "run"
    assert main([CONFIG, *ORACLE, "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("which, passphrase", [("plain", []), ("sealed", ["--passphrase-env", "PW_KEY"])])
def test_the_oracle_over_a_release_folder_scores_one_with_the_generated_universe_s_trajectories(
    releases, generated_run, tmp_path, monkeypatch, capsys, which, passphrase
):
    monkeypatch.setenv("PW_KEY", PASSPHRASE)
    out = tmp_path / "run"
    arguments = [CONFIG, "--release", str(releases[which]), *passphrase, "--cache-dir", str(tmp_path / "cache")]
    assert main([*arguments, *ORACLE, "--out", str(out)]) == 0
    assert "| F1 | 1.000 |" in capsys.readouterr().out
    scores = json.loads((out / SCORES).read_text())
    assert scores["questions"] == scores["finished"] == 500 and scores["f1"] == scores["exact_match"] == 1.0
    assert (out / TRAJECTORIES).read_bytes() == (generated_run / TRAJECTORIES).read_bytes()
    recorded, generated = (json.loads((folder / RUN_FILE).read_text()) for folder in (out, generated_run))
    assert recorded.pop("release") == release_record(releases[which], which == "sealed")
    assert recorded == generated  # the universe, its settings and the run, as the generated run records them
    assert PASSPHRASE not in (out / RUN_FILE).read_text()


def test_a_rerun_on_another_release_is_refused_naming_the_difference(releases, tmp_path, capsys):
    out = str(tmp_path / "run")
    plain = [CONFIG, "--release", str(releases["plain"]), "--limit", "5", *ORACLE, "--out", out]
    assert main(plain) == 0
    other = write_release([CONFIG], tmp_path / "other", subsets=["questions", "corpus"], questions_per_template=2)
    capsys.readouterr()
    again = [CONFIG, "--release", str(other.folder), "--limit", "5", *ORACLE, "--out", out]
    assert main(again) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--out {out} holds a run with release " in err and "--overwrite" in err


def test_the_oracle_over_a_plain_and_a_sealed_release_on_the_hub_scores_one(hub, hub_env, tmp_path):
    published = hub_releases(hub, HUB_REPO, ["questions", "corpus", "instances"], tmp_path)  # instances: never read
    (tmp_path / "key").write_text(PASSPHRASE + "\n")
    hub.requests.clear()
    for which, passphrase in (("plain", []), ("sealed", ["--passphrase-file", str(tmp_path / "key")])):
        out = tmp_path / which
        done = subprocess.run(
            [sys.executable, "-m", "phantom_wiki", "agent", CONFIG, "--release", f"{HUB_REPO}-{which}", *passphrase]
            + [*ORACLE, "--out", str(out)],
            cwd=tmp_path,
            env=hub_env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert "| F1 | 1.000 |" in done.stdout
        commit = hub.repos[f"datasets/{HUB_REPO}-{which}"].branches["main"]
        recorded = json.loads((out / RUN_FILE).read_text())["release"]
        assert recorded == release_record(published[which], which == "sealed", commit, f"{HUB_REPO}-{which}")
    shards = {f"{name}/test-00000-of-00001.parquet" for name in (CONFIG, f"{CONFIG}_corpus")}
    assert downloaded(hub) == {"manifest.json"} | shards | {shard + "-aead" for shard in shards}  # never the instances


@pytest.mark.parametrize(
    "which, arguments, says",
    [
        ("sealed", ["--passphrase-file", "{wrong}"], "wrong passphrase"),
        ("sealed", [], "is encrypted: give its passphrase with --passphrase-env VAR or --passphrase-file FILE"),
        ("plain", ["--passphrase-file", "{key}"], "is not encrypted, so it takes no passphrase"),
        (
            "no-corpus",
            [],
            "holds n50_s1 without its corpus subset (it holds questions, rag); publish n50_s1 with corpus",
        ),
        ("plain", ["--passphrase", PASSPHRASE], "never give a passphrase on the command line"),
        ("plain", ["--passphrase-env", "PW_NOT_SET"], "environment variable PW_NOT_SET (--passphrase-env) is not set"),
        ("plain", ["--cache-dir", "{key}"], "--cache-dir: cache_dir {key} is a file; give a folder"),
    ],
)
def test_what_is_wrong_with_a_release_is_one_line_and_exit_2(releases, tmp_path, capsys, which, arguments, says):
    (tmp_path / "wrong").write_text("not the passphrase\n")
    (tmp_path / "key").write_text(PASSPHRASE + "\n")
    places = {"wrong": str(tmp_path / "wrong"), "key": str(tmp_path / "key")}
    arguments = [argument.format(**places) for argument in arguments]
    code = main([CONFIG, "--release", str(releases[which]), *arguments, *ORACLE, "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and says.format(**places) in err, err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    "arguments, says",
    [
        (["n50_s2", "--release", "{plain}"], "{plain} holds no universe n50_s2 (it holds n50_s1)"),
        (["n50_s1", "--release", "no/such/release"], "'no/such/release' is neither a release folder nor a Hub"),
        (["n50_s1", "--revision", "main"], "--revision is an option of --release; give --release DIR_OR_REPO too"),
        (["n50_s1", "--passphrase-env", "HOME"], "--passphrase-file/--passphrase-env is an option of --release"),
    ],
)
def test_a_universe_the_release_lacks_or_an_option_without_a_release_is_one_line(
    releases, tmp_path, capsys, arguments, says
):
    arguments = [argument.format(plain=releases["plain"]) for argument in arguments]
    assert main([*arguments, *ORACLE, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says.format(plain=releases["plain"]) in err, err
