"""Many configurations at once, or one large NeoQA configuration in blocks: on this machine's cores or as Ray tasks.

`runs.py` holds what does not need Ray (the jobs, staging and renaming, digests, the manifest, pyarrow
filesystems); `on_ray.py` submits the same jobs as Ray tasks, and `ray_data.py` is the rotating RL dataset as a
Ray Data source. Ray is imported only inside those two, so `import phantom_wiki` stays quick and Ray optional
(`pip install "leakproof-qa[ray]"`). Ray schedules, retries and moves data: we write no scheduler.
"""

from typing import Any

RAY_MISSING = 'Ray is not installed: pip install "leakproof-qa[ray]" (or leave out --ray to use this machine\'s cores)'


def add_ray_option(parser: Any) -> None:
    """The `--ray ADDRESS` option of the commands that can run on a Ray cluster (an argparse parser or group)."""
    parser.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="run on the Ray cluster at ADDRESS (auto, ray://host:10001, or local to start one here); needs "
        'pip install "leakproof-qa[ray]"',
    )
