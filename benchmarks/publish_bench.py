"""What publishing costs: time over generating, encryption throughput on one core, and peak memory at scale.

    python benchmarks/publish_bench.py overhead [--config n5000_s1] [--repeat 3]
    python benchmarks/publish_bench.py throughput [--mib 256]
    python benchmarks/publish_bench.py memory [--config n1000000_s1]

`overhead` runs `python -m phantom_wiki generate CONFIG` (every subset as Parquet) and `publish CONFIG`
plain and encrypted, interleaved, each in a fresh process, and prints wall time and peak RSS with the
median of each; the target is at most +2 s over generating at n5000_s1.  `throughput` seals and opens a
file of random bytes with the sealed-file format (1 MiB chunks, scrypt included), each in a fresh
single-threaded process; the target is 200 MB/s each way.  `memory` generates and then publishes
(encrypted) one large configuration, one after the other, for the peak RSS of each; the target is that
publishing peaks no higher than generating (n = 1,000,000 takes about two and a half minutes and 3.1 GB for each,
package 0.8.0). What each command prints on stderr (its progress bars and stage lines) is passed through as it runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PASSPHRASE_VARIABLE = "PUBLISH_BENCH_PASSPHRASE"


def measure(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one child process, from its own rusage; its stderr (progress) is passed
    through as it comes, and its last 2,000 bytes are shown again if it fails."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    tail = bytearray()

    def pump() -> None:
        assert process.stderr is not None
        while chunk := process.stderr.read1(65536):
            sys.stderr.buffer.write(chunk)
            sys.stderr.buffer.flush()
            tail[:] = (tail + chunk)[-2000:]

    pumping = threading.Thread(target=pump, daemon=True)
    pumping.start()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    pumping.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{tail.decode(errors='replace')}")
    return wall, usage.ru_maxrss / 1024


def _commands(config: str, out: Path) -> dict[str, list[str]]:
    python = [sys.executable, "-m", "phantom_wiki"]
    return {
        "generate (all subsets, Parquet)": [*python, "generate", config, "--out", str(out / "generate")],
        "publish, plain": [*python, "publish", config, "--out", str(out / "plain")],
        "publish, encrypted": [
            *python,
            "publish",
            config,
            "--out",
            str(out / "encrypted"),
            "--encrypt",
            "--passphrase-env",
            PASSPHRASE_VARIABLE,
        ],
    }


def overhead(config: str, repeat: int) -> None:
    """Generate vs publish (plain, encrypted), interleaved `repeat` times."""
    env = {**os.environ, PASSPHRASE_VARIABLE: "benchmark passphrase"}
    runs: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="publish-bench-") as scratch:
        for _ in range(repeat):
            for name, command in _commands(config, Path(scratch)).items():
                shutil.rmtree(Path(scratch) / command[command.index("--out") + 1], ignore_errors=True)
                runs.setdefault(name, []).append(measure(command, env))
    base = statistics.median(wall for wall, _ in runs["generate (all subsets, Parquet)"])
    print(f"{config}, {repeat} interleaved runs each, fresh processes (load average {os.getloadavg()[0]:.2f})\n")
    print("| command | wall time, s (each run) | median, s | over generate, s | peak RSS, MB |")
    print("|---|---|---:|---:|---:|")
    for name, measured in runs.items():
        median = statistics.median(wall for wall, _ in measured)
        walls = ", ".join(f"{wall:.2f}" for wall, _ in measured)
        print(f"| {name} | {walls} | {median:.2f} | {median - base:+.2f} | {max(rss for _, rss in measured):.0f} |")


_THROUGHPUT_CHILD = """
import io, os, sys, time
from pathlib import Path
from leakproof_qa.encryption.aead_stream import SealWriter, iter_unsealed, seal_file, unseal_file
plain, sealed, opened, mode = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
class Discard:
    def write(self, data):
        return len(data)
    def flush(self):
        pass
if mode.endswith("memory"):  # the bytes are in memory already: the cipher's cost alone
    data = (plain if mode == "seal, memory" else sealed).read_bytes()
wall, cpu = time.perf_counter(), time.process_time()
if mode == "seal, file to file":
    seal_file(plain, sealed, "benchmark passphrase", salt=bytes(16))
elif mode == "open, file to file":
    unseal_file(sealed, opened, "benchmark passphrase")
elif mode == "seal, memory":
    view = memoryview(data)
    with SealWriter(Discard(), "benchmark passphrase", bytes(16)) as writer:
        for start in range(0, len(view), 1 << 16):
            writer.write(view[start:start + (1 << 16)])
else:
    for chunk in iter_unsealed(io.BytesIO(data), "benchmark passphrase"):
        pass
print(time.perf_counter() - wall, time.process_time() - cpu)
"""


def throughput(mib: int) -> None:
    """Seal and open `mib` MiB of random bytes, file to file and in memory, each in a fresh process."""
    with tempfile.TemporaryDirectory(prefix="publish-bench-") as scratch:
        plain, sealed, opened = (Path(scratch) / name for name in ("plain", "plain.sealed", "opened"))
        with open(plain, "wb") as out:
            for _ in range(mib):
                out.write(os.urandom(1 << 20))
        size = plain.stat().st_size
        print(
            f"{mib} MiB of random bytes, 1 MiB chunks, scrypt N=2**15 included, one thread "
            f"(load average {os.getloadavg()[0]:.2f})\n"
        )
        print("| what | wall, s | CPU, s | MB/s (wall) | MB/s (CPU) | peak RSS, MB |")
        print("|---|---:|---:|---:|---:|---:|")
        for mode in ("seal, file to file", "open, file to file", "seal, memory", "open, memory"):
            command = [sys.executable, "-c", _THROUGHPUT_CHILD, str(plain), str(sealed), str(opened), mode]
            process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE)
            _, status, usage = os.wait4(process.pid, 0)
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"{mode} failed")
            wall, cpu = (float(value) for value in process.stdout.read().split())
            print(
                f"| {mode} | {wall:.2f} | {cpu:.2f} | {size / 1e6 / wall:.0f} | {size / 1e6 / cpu:.0f} | "
                f"{usage.ru_maxrss / 1024:.0f} |"
            )
        if opened.read_bytes() != plain.read_bytes():
            sys.exit("the opened file differs from the plaintext")


def memory(config: str) -> None:
    """Generate, then publish encrypted, one configuration: peak RSS and wall time of each, one after the other."""
    env = {**os.environ, PASSPHRASE_VARIABLE: "benchmark passphrase"}
    with tempfile.TemporaryDirectory(prefix="publish-bench-") as scratch:
        commands = _commands(config, Path(scratch))
        print(f"{config}, one process after the other (load average {os.getloadavg()[0]:.2f})\n")
        print("| command | wall time, s | peak RSS, MB | output, MB |")
        print("|---|---:|---:|---:|")
        for name in ("generate (all subsets, Parquet)", "publish, encrypted"):
            command = commands[name]
            wall, rss = measure(command, env)
            out = Path(command[command.index("--out") + 1])
            size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
            print(f"| {name} | {wall:.1f} | {rss:.0f} | {size / 1e6:.0f} |", flush=True)
            shutil.rmtree(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="what", required=True)
    over = commands.add_parser("overhead")
    over.add_argument("--config", default="n5000_s1")
    over.add_argument("--repeat", type=int, default=3)
    speed = commands.add_parser("throughput")
    speed.add_argument("--mib", type=int, default=256)
    peak = commands.add_parser("memory")
    peak.add_argument("--config", default="n1000000_s1")
    args = parser.parse_args()
    if args.what == "overhead":
        overhead(args.config, args.repeat)
    elif args.what == "throughput":
        throughput(args.mib)
    else:
        memory(args.config)


if __name__ == "__main__":
    main()
