"""A release someone else made is untrusted: its manifest never makes us read or delete outside its folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import phantom_wiki
from leakproof_qa.builders.publishing.errors import ReleaseError
from leakproof_qa.builders.publishing.phantomwiki import write_release
from tests.publish.publish_helpers import CONFIG, PASSPHRASE, copy_release, one_line


def edit_manifest(release: Path, change) -> None:
    manifest = json.loads((release / "manifest.json").read_text())
    change(manifest["files"])
    (release / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize(
    "path",
    [
        "../victim.txt",
        "/tmp/victim.txt",
        "n50_s1/../../victim.txt",
        "n50_s1/./test-00000-of-00001.parquet",
        "n50_s1\\..\\victim.txt",
        "victim.txt",
        "n50_s1/sub/test-00000-of-00001.parquet",
        "n50_s1/notes.txt",
    ],
)
def test_publishing_over_a_release_whose_manifest_points_outside_deletes_nothing(plain_release, tmp_path, path):
    release = copy_release(plain_release, tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    absolute = Path("/tmp/victim.txt")
    edit_manifest(release, lambda files: files[0].update(path=path if not path.startswith("/") else str(absolute)))
    before = sorted(p.relative_to(release).as_posix() for p in release.rglob("*"))
    with pytest.raises(ReleaseError) as error:
        write_release([CONFIG], release)
    one_line(error.value)
    assert "re-download the release" in str(error.value)
    assert (
        victim.read_text() == "mine" and sorted(p.relative_to(release).as_posix() for p in release.rglob("*")) == before
    )


def test_loading_a_release_whose_manifest_points_outside_reads_nothing(plain_release, tmp_path):
    release = copy_release(plain_release, tmp_path)
    outside = tmp_path / "outside.parquet"
    outside.write_bytes((release / "n50_s1" / "test-00000-of-00001.parquet").read_bytes())
    edit_manifest(
        release, lambda files: [f.update(path="../outside.parquet") for f in files if f["config_name"] == CONFIG]
    )
    with pytest.raises(ReleaseError, match="not a file this release can hold") as error:
        phantom_wiki.load_published(release, CONFIG, cache_dir=str(tmp_path / "cache"))
    one_line(error.value)


@pytest.mark.parametrize(
    "field, value",
    [("rows", "many"), ("rows", True), ("size", -1), ("sha256", "zz"), ("config_name", "../n50_s1"), ("rows", 1.5)],
)
def test_a_manifest_field_of_the_wrong_kind_is_one_line(plain_release, tmp_path, field, value):
    release = copy_release(plain_release, tmp_path)
    edit_manifest(release, lambda files: files[0].update({field: value}))
    with pytest.raises(ReleaseError) as error:
        phantom_wiki.load_published(release, CONFIG, cache_dir=str(tmp_path / "cache"))
    one_line(error.value)


@pytest.mark.parametrize("value", [0, 1.5e6, True, -1])
def test_a_shard_size_that_is_not_a_size_is_one_line(tmp_path, value):
    from leakproof_qa.builders.publishing.errors import PublishError

    with pytest.raises(PublishError, match="max_shard_bytes=.* must be a whole number of bytes") as error:
        write_release([CONFIG], tmp_path / "release", max_shard_bytes=value)
    one_line(error.value)
    assert not (tmp_path / "release").exists()


def test_a_passphrase_for_a_plain_release_is_refused_not_ignored(plain_release, tmp_path):
    with pytest.raises(ReleaseError, match="is not encrypted, so it takes no passphrase") as error:
        phantom_wiki.load_published(plain_release, CONFIG, passphrase="secret", cache_dir=str(tmp_path / "cache"))
    one_line(error.value)


@pytest.fixture(scope="module")
def two_configurations(tmp_path_factory):
    """A plain and a sealed release of two universes with the same subsets."""
    root = tmp_path_factory.mktemp("two")
    plain = write_release(["n50_s1", "n50_s2"], root / "plain", subsets=["rag"]).folder
    sealed = write_release(["n50_s1", "n50_s2"], root / "sealed", subsets=["rag"], passphrase="pw").folder
    return plain, sealed


def swap(release: Path) -> None:
    """Swap the two configurations' shards together with their manifest entries (sizes, digests, rows)."""
    one, two = (f"{name}_rag/" + next((release / f"{name}_rag").iterdir()).name for name in ("n50_s1", "n50_s2"))
    (release / one).rename(release / "spare")
    (release / two).rename(release / one)
    (release / "spare").rename(release / two)

    def change(files):
        a, b = (next(f for f in files if f["path"] == path) for path in (one, two))
        for key in ("size", "sha256", "rows", "plaintext_size", "plaintext_sha256"):
            if key in a:
                a[key], b[key] = b[key], a[key]

    edit_manifest(release, change)


@pytest.mark.parametrize("sealed", [False, True])
def test_swapped_shards_with_their_manifest_entries_are_refused_and_leave_no_plaintext(
    two_configurations, tmp_path, sealed
):
    release = copy_release(two_configurations[sealed], tmp_path)
    swap(release)
    cache = tmp_path / "cache"
    with pytest.raises(
        ReleaseError, match="holds the rows of n50_s2_rag, not of n50_s1_rag: shards were swapped"
    ) as error:
        phantom_wiki.load_published(release, "n50_s1_rag", passphrase="pw" if sealed else None, cache_dir=str(cache))
    one_line(error.value)
    assert not [p for p in cache.rglob("*.parquet")] if cache.exists() else True


def test_a_row_count_off_by_one_leaves_no_decrypted_shard(two_configurations, tmp_path):
    release = copy_release(two_configurations[True], tmp_path)
    edit_manifest(release, lambda files: files[0].update(rows=files[0]["rows"] + 1))
    cache = tmp_path / "cache"
    with pytest.raises(ReleaseError, match="rows but manifest.json lists"):
        phantom_wiki.load_published(release, files_config(release), passphrase="pw", cache_dir=str(cache))
    assert not list(cache.rglob("*.parquet")) if cache.exists() else True


def files_config(release: Path) -> str:
    return json.loads((release / "manifest.json").read_text())["files"][0]["config_name"]


def a_dead_pid() -> int:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_a_killed_publishings_staging_folder_is_removed_by_the_next_run_and_a_running_ones_is_kept(tmp_path):
    out = tmp_path / "release"
    dead = tmp_path / f".release.publishing-{a_dead_pid()}"
    running = tmp_path / f".release.publishing-{os.getppid()}"  # the process that started these tests: alive
    for folder in (dead, running):
        (folder / "n50_s1").mkdir(parents=True)
        (folder / "n50_s1" / "test-00000-of-00001.parquet").write_bytes(b"PAR1 plaintext rows")
    write_release([CONFIG], out, subsets=["rag"])
    assert not dead.exists() and running.exists()


def test_a_killed_openings_decrypted_copy_is_removed_by_the_next_load(encrypted_release, tmp_path):
    cache = tmp_path / "cache"
    phantom_wiki.load_published(encrypted_release, "n50_s1_rag", passphrase=PASSPHRASE, cache_dir=str(cache))
    (decrypted,) = [p.parent for p in cache.rglob("*.parquet") if p.parent.name.startswith("n50_s1_rag-")]
    leftover = decrypted.with_name(f"n50_s1_corpus-0123456789abcdef.partial-{a_dead_pid()}")
    leftover.mkdir()
    (leftover / "test-00000-of-00001.parquet").write_bytes(b"PAR1 decrypted plaintext")
    phantom_wiki.load_published(encrypted_release, "n50_s1_rag", passphrase=PASSPHRASE, cache_dir=str(cache))
    assert not leftover.exists()


def test_a_hub_that_never_answers_ends_in_one_line_within_the_timeout(tmp_path):
    """A server on 127.0.0.1 that accepts every request and never answers (for at most 30 s)."""
    import socket
    import subprocess
    import sys
    import threading
    import time

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(30)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            held.append(connection)  # read nothing, answer nothing

    threading.Thread(target=accept, daemon=True).start()
    env = {
        **os.environ,
        "HF_ENDPOINT": f"http://127.0.0.1:{listener.getsockname()[1]}",
        "HF_TOKEN": "hf_standin",
        "LEAKPROOF_HUB_TIMEOUT": "2",
        "HF_HUB_DISABLE_TELEMETRY": "1",
    }
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "phantom_wiki", "publish", "n5_s1", "--repo-id", "lab/stalled"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    spent = time.perf_counter() - began
    stop.set()
    listener.close()
    for connection in held:
        connection.close()
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert last.startswith("phantom_wiki: could not create the repository of Hub dataset 'lab/stalled' (ReadTimeout")
    assert "did not answer in time (LEAKPROOF_HUB_TIMEOUT" in last
    assert spent < 20


KILLER = """
import os, shutil, sys
from leakproof_qa.builders.publishing.phantomwiki import write_release
out, kill_at, config = sys.argv[1], int(sys.argv[2]), sys.argv[3]
calls = [0]
def killing(function):
    def wrapped(*args, **kwargs):
        calls[0] += 1
        if calls[0] == kill_at:
            os._exit(9)  # as SIGKILL: no cleanup, no finally
        return function(*args, **kwargs)
    return wrapped
os.replace, shutil.rmtree = killing(os.replace), killing(shutil.rmtree)
write_release([config], out, subsets=["questions", "rag"], replace=True, max_shard_bytes=200_000)
print("finished after", calls[0], "renames and removals")
"""


@pytest.mark.slow
def test_a_release_killed_at_any_point_of_its_replacement_loads_whole_and_the_next_publish_repairs_it(tmp_path):
    import shutil
    import subprocess
    import sys

    def publish(out: Path, kill_at: int, config: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", KILLER, str(out), str(kill_at), config], capture_output=True, text=True
        )

    old = tmp_path / "old"
    steps = int(publish(old, 0, "n8_s1").stdout.split()[2])  # how many renames and removals a publish makes
    # while shards are written into the staging folder (1, the middle), and at each rename and removal of the
    # swap itself (the last few), and after the end (no kill)
    for kill_at in sorted({1, steps // 2, *range(max(1, steps - 3), steps + 2)}):
        out = tmp_path / f"release-{kill_at}"
        shutil.copytree(old, out)
        killed = publish(out, kill_at, "n8_s2")
        names = set()
        for name in ("n8_s1", "n8_s1_rag", "n8_s2", "n8_s2_rag"):
            try:
                phantom_wiki.load_published(out, name, cache_dir=str(tmp_path / "cache"))
                names.add(name)
            except ReleaseError:
                pass
        assert names in ({"n8_s1", "n8_s1_rag"}, {"n8_s2", "n8_s2_rag"}), (kill_at, killed.returncode, names)
        if kill_at >= steps - 3:
            assert publish(out, 0, "n8_s2").returncode == 0  # the next publish takes the folder as it is
            assert not [p for p in tmp_path.iterdir() if p.name.startswith(f".release-{kill_at}.")]


OPENER = """
import sys, time
import leakproof_qa.builders.publishing.loading as loading
import phantom_wiki
loading._unnamed_file = lambda folder: None  # plaintext goes straight into the staging folder, as without O_TMPFILE
open_shard = loading._open_shard
def first_then_wait(*args):
    open_shard(*args)
    print("decrypted one shard", flush=True)
    time.sleep(120)  # killed here, halfway through
loading._open_shard = first_then_wait
phantom_wiki.load_published(sys.argv[1], "n50_s1_rag", passphrase=sys.argv[2], cache_dir=sys.argv[3])
"""


def partial_folders(cache: Path) -> list[Path]:
    return sorted(p for p in (cache / "leakproof_published").iterdir() if ".partial-" in p.name)


def an_opening_stopped_halfway(release: Path, cache: Path):
    """A process loading `release` into `cache` that has decrypted one shard into its staging folder and waits."""
    import subprocess
    import sys

    opener = subprocess.Popen(
        [sys.executable, "-c", OPENER, str(release), PASSPHRASE, str(cache)], stdout=subprocess.PIPE, text=True
    )
    assert opener.stdout is not None and opener.stdout.readline().strip() == "decrypted one shard"
    (staging,) = partial_folders(cache)
    assert staging.name.endswith(f".partial-{opener.pid}") and list(staging.glob("*.parquet"))
    return opener


def until_dead_unreaped(pid: int) -> None:
    """Wait until process `pid` has ended, every thread of it, but its parent has not collected it (a zombie: its
    id still exists)."""
    import time

    for _ in range(500):
        status = dict(line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
        if status["State"].startswith("Z") and status["Threads"] == "1":
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} did not end within 5 s of SIGKILL")


@pytest.mark.parametrize("reaped", [True, False], ids=["reaped", "not-yet-reaped"])
def test_a_load_killed_while_decrypting_leaves_no_plaintext_past_the_next_load(encrypted_release, tmp_path, reaped):
    """Killed with SIGKILL halfway: the next load removes its staging folder, also while the killed process is
    not yet reaped by its parent (its process id still exists then, the lock it held does not)."""
    import signal

    cache = tmp_path / "cache"
    opener = an_opening_stopped_halfway(encrypted_release, cache)
    opener.send_signal(signal.SIGKILL)
    if reaped:
        opener.wait()
    else:
        until_dead_unreaped(opener.pid)
    try:
        loaded = phantom_wiki.load_published(
            encrypted_release, "n50_s1_rag", passphrase=PASSPHRASE, cache_dir=str(cache)
        )
        assert partial_folders(cache) == [] and len(loaded) > 0
    finally:
        opener.wait()


def test_a_load_leaves_the_staging_folder_of_a_load_still_at_work(encrypted_release, tmp_path):
    import signal

    cache = tmp_path / "cache"
    opener = an_opening_stopped_halfway(encrypted_release, cache)
    try:
        (working,) = partial_folders(cache)
        phantom_wiki.load_published(encrypted_release, "n50_s1_rag", passphrase=PASSPHRASE, cache_dir=str(cache))
        assert partial_folders(cache) == [working] and list(working.glob("*.parquet"))
    finally:
        opener.send_signal(signal.SIGKILL)
        opener.wait()


def test_the_sweep_of_staging_folders_removes_nothing_a_link_points_to(encrypted_release, tmp_path):
    cache = tmp_path / "cache"
    phantom_wiki.load_published(encrypted_release, "n50_s1_rag", passphrase=PASSPHRASE, cache_dir=str(cache))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "mine.parquet").write_bytes(b"PAR1 not the cache's")
    link = cache / "leakproof_published" / f"n50_s1_rag-0123456789abcdef.partial-{a_dead_pid()}"
    link.symlink_to(outside, target_is_directory=True)
    phantom_wiki.load_published(encrypted_release, "n50_s1_rag", passphrase=PASSPHRASE, cache_dir=str(cache))
    assert (outside / "mine.parquet").read_bytes() == b"PAR1 not the cache's"


def test_a_dead_loads_staging_folder_named_with_our_own_process_id_is_removed_too(encrypted_release, tmp_path):
    """In a container every run may get the same process id: a killed run's folder can carry ours."""
    cache = tmp_path / "cache"
    leftover = cache / "leakproof_published" / f"n50_s1_corpus-0123456789abcdef.partial-{os.getpid()}"
    leftover.mkdir(parents=True)
    (leftover / "test-00000-of-00001.parquet").write_bytes(b"PAR1 decrypted plaintext")
    phantom_wiki.load_published(encrypted_release, "n50_s1_rag", passphrase=PASSPHRASE, cache_dir=str(cache))
    assert partial_folders(cache) == []
