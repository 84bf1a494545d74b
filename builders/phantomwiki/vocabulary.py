"""The versioned word lists a universe draws names and attributes from (see vocab/README.md)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

VOCAB_DIR = Path(__file__).with_name("vocab")


def _read_list(file_name: str) -> tuple[str, ...]:
    lines = (VOCAB_DIR / file_name).read_text(encoding="utf-8").splitlines()
    return tuple(line for line in lines if line)


@dataclass(frozen=True)
class Vocabulary:
    """First names by gender, surnames, jobs, hobbies, cities and schools, in file order."""

    female_first_names: tuple[str, ...]
    male_first_names: tuple[str, ...]
    surnames: tuple[str, ...]
    jobs: tuple[str, ...]
    hobbies: tuple[str, ...]
    cities: tuple[str, ...]  # birthplaces and cities of residence (people may or may not have one)
    schools: tuple[str, ...]


@lru_cache(maxsize=1)
def load_vocabulary() -> Vocabulary:
    """Read the shipped vocabularies once per process."""
    return Vocabulary(
        female_first_names=_read_list("female_first_names.txt"),
        male_first_names=_read_list("male_first_names.txt"),
        surnames=_read_list("surnames.txt"),
        jobs=_read_list("jobs.txt"),
        hobbies=_read_list("hobbies.txt"),
        cities=_read_list("cities.txt"),
        schools=_read_list("schools.txt"),
    )
