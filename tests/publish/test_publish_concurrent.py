"""Two publishers, a full disk, the current folder: a release is never dropped, half-written or pulled away."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import phantom_wiki
from leakproof_qa.builders.publishing.errors import PublishError, ReleaseError
from leakproof_qa.builders.publishing.phantomwiki import write_release
from tests.full_disk import small_disk
from tests.publish.publish_helpers import ROOT

pytestmark = pytest.mark.integration

PAUSED = """
import sys, time
from pathlib import Path
import leakproof_qa.builders.publishing.phantomwiki as publishing
out, config, ready, go = sys.argv[1], sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
write = publishing.write_shards_of
def paused(*args, **kwargs):  # inside the lock, before any shard: say so, then wait to be let go (at most 60 s)
    ready.write_text("ready")
    for _ in range(600):
        if go.exists():
            break
        time.sleep(0.1)
    return write(*args, **kwargs)
publishing.write_shards_of = paused
publishing.write_release([config], out, subsets=["questions"])
"""


def loads(release: Path, name: str, cache: Path) -> bool:
    try:
        phantom_wiki.load_published(release, name, cache_dir=str(cache))
    except ReleaseError:
        return False
    return True


def test_a_second_publish_into_a_folder_being_written_is_refused_naming_the_first(tmp_path):
    out, ready, go = tmp_path / "release", tmp_path / "ready", tmp_path / "go"
    first = subprocess.Popen(
        [sys.executable, "-c", PAUSED, str(out), "n50_s1", str(ready), str(go)], cwd=ROOT, stderr=subprocess.PIPE
    )
    try:
        for _ in range(600):
            if ready.exists() or first.poll() is not None:
                break
            time.sleep(0.1)
        assert ready.exists(), first.stderr.read().decode() if first.stderr else ""
        with pytest.raises(PublishError) as error:
            write_release(["n50_s2"], out, subsets=["questions"])
        go.write_text("go")
        assert first.wait(60) == 0
    finally:
        first.kill()
        first.wait()
    said = str(error.value)
    assert f"--out {out} is in use by process {first.pid} (" in said and "\n" not in said
    assert "wait for that publish to end" in said
    assert loads(out, "n50_s1", tmp_path / "cache") and not loads(out, "n50_s2", tmp_path / "cache")


def test_two_publishes_of_different_configurations_at_once_never_both_succeed(tmp_path):
    for round_ in range(3):
        out = tmp_path / f"release-{round_}"
        runs = [
            subprocess.Popen(
                [sys.executable, "-m", "phantom_wiki", "publish", config, "--out", str(out), "--subsets", "questions"],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for config in ("n50_s1", "n50_s2")
        ]
        outcomes = [(run.wait(120), run.communicate()[1]) for run in runs]
        succeeded = [config for config, (code, _) in zip(("n50_s1", "n50_s2"), outcomes) if code == 0]
        refusals = [said.strip() for code, said in outcomes if code != 0]
        assert len(succeeded) == 1 and len(refusals) == 1, outcomes
        assert refusals[0].count("\n") == 0 and ("is in use by process" in refusals[0] or "leaves out" in refusals[0])
        held = {name for name in ("n50_s1", "n50_s2") if loads(out, name, tmp_path / "cache")}
        assert held == set(succeeded)
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(f".release-{round_}")) == []


def test_a_full_disk_is_one_line_and_leaves_the_earlier_release_whole(tmp_path):
    with small_disk(tmp_path / "disk", 400 << 10) as disk:
        out = disk / "release"
        write_release(["n50_s1"], out, subsets=["questions"])
        before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
        with pytest.raises(PublishError) as error:
            write_release(["n50_s1"], out, subsets=["questions", "corpus", "instances", "rag"])
        said = str(error.value)
        assert "No space left on device; free some space or choose another --out" in said and "\n" not in said
        assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
        assert sorted(p.name for p in disk.iterdir()) == ["release"]  # no staging folder, no lock left


@pytest.mark.parametrize("where", [".", "..", "sub/.."])
def test_publishing_into_the_current_folder_or_above_it_is_one_line(tmp_path, where):
    here = tmp_path / "here"
    (here / "sub").mkdir(parents=True)
    done = subprocess.run(
        [sys.executable, "-m", "phantom_wiki", "publish", "n5_s1", "--out", where],
        cwd=here,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "is the folder you are in" in done.stderr and "give a folder of its own" in done.stderr
    assert sorted(p.name for p in here.iterdir()) == ["sub"] and sorted(p.name for p in tmp_path.iterdir()) == ["here"]


@pytest.mark.parametrize("num_proc", ["99999999999999999999", "257"])
def test_a_num_proc_past_any_machine_is_refused(tmp_path, num_proc):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "phantom_wiki",
            "publish",
            "n5_s1",
            "--out",
            str(tmp_path / "r"),
            "--num-proc",
            num_proc,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "from 1 to 256" in done.stderr
    assert not (tmp_path / "r").exists()


KILLED_OPENING = """
import os, sys
import leakproof_qa.builders.publishing.loading as loading
import leakproof_qa.encryption.aead_stream as aead_stream
import phantom_wiki
unsealed = aead_stream.iter_unsealed
def killed(*args, **kwargs):  # the first chunk of plaintext is written, then the process is killed
    for chunk in unsealed(*args, **kwargs):
        yield chunk
        os.kill(os.getpid(), 9)
aead_stream.iter_unsealed = loading.iter_unsealed = killed
phantom_wiki.load_published(sys.argv[1], "n50_s1_corpus", passphrase=sys.argv[2], cache_dir=sys.argv[3])
"""


def test_a_sigkill_during_decryption_leaves_no_plaintext(encrypted_release, tmp_path):
    from tests.publish.publish_helpers import PASSPHRASE

    cache = tmp_path / "cache"
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_OPENING, str(encrypted_release), PASSPHRASE, str(cache)],
        cwd=ROOT,
        capture_output=True,
    )
    assert killed.returncode == -9, killed.stderr
    opened = cache / "leakproof_published"
    assert opened.is_dir()  # it got as far as decrypting
    assert [p for p in opened.rglob("*") if p.is_file()] == []  # and no decrypted byte has a name
    assert phantom_wiki.load_published(encrypted_release, "n50_s1_corpus", passphrase=PASSPHRASE, cache_dir=str(cache))
