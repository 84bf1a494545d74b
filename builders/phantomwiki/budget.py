"""Refuse, before any work, a configuration whose estimated memory exceeds what this machine has.

The estimate comes from measured peaks (README, "Speed"): generating every subset of n = 1,000,000 peaks at
about 7.1 GB, so about 7.2 kB a person; n5000_s1's instances hold about 110 kB of text a question, so 150 kB
a question with its rows. A configuration the machine cannot hold ends in one line naming the estimate
instead of growing until the operating system kills it. LEAKPROOF_MEMORY_LIMIT overrides the machine's
memory (bytes, or with a K, M, G or T suffix), or turns the check off ("off") for people who know better.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .config import ConfigError, Settings, universe_name
from .templates import generate_templates

BASE_BYTES = 300_000_000  # the interpreter, datasets, pyarrow and the vocabularies
BYTES_PER_PERSON = 7_200
BYTES_PER_QUESTION = 150_000
LIMIT_VARIABLE = "LEAKPROOF_MEMORY_LIMIT"
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)B?\s*$", re.IGNORECASE)


def estimate(settings: Settings) -> int:
    """Bytes that generating every subset of `settings` needs at its peak, by the measured rates."""
    questions = settings.questions_per_template * len(generate_templates(settings.depth))
    return BASE_BYTES + BYTES_PER_PERSON * settings.size + BYTES_PER_QUESTION * questions


def machine_memory() -> int | None:
    """The memory this process may use: physical memory, or a smaller cgroup limit; None where neither is known."""
    found = []
    try:
        found.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        pass
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 1 << 60:
            found.append(int(text))
    return min(found) if found else None


def _limit() -> int | None:
    value = os.environ.get(LIMIT_VARIABLE)
    if value is None:
        return machine_memory()
    if value.strip().lower() == "off":
        return None
    match = _SIZE.match(value)
    if not match:
        raise ConfigError(f"{LIMIT_VARIABLE}={value!r} is not a size; give bytes such as 64G, or off")
    return int(float(match.group(1)) * 1024 ** "_KMGT".index(match.group(2).upper() or "_"))


def check(settings: Settings, at_once: int = 1) -> None:
    """A one-line ConfigError when `settings` would need more memory than this machine has (`at_once` such universes
    held together, as `generate --num-proc` makes several)."""
    limit = _limit()
    needed = estimate(settings) * at_once
    if limit is not None and needed > limit:
        together = f" ({at_once} at once: --num-proc 1 makes one at a time)" if at_once > 1 else ""
        raise ConfigError(
            f"{universe_name(settings)} with questions_per_template="
            f"{settings.questions_per_template}{together} needs about {needed / 1e9:,.1f} GB by our measures "
            f"({BYTES_PER_PERSON / 1000:.1f} kB a person, {BYTES_PER_QUESTION / 1000:.0f} kB a question), "
            f"more than the {limit / 1e9:,.1f} GB this machine has; choose fewer people or questions, or set "
            f"{LIMIT_VARIABLE}=off if you know better"
        )
