"""Regenerate the first-name and surname vocab files from 1990 US Census dist.* files.

First names are disjoint and balanced: a name on both census lists goes to the gender whose census
frequency (column 2, percent of that gender) is higher and is dropped on a tie, then both lists keep
their most frequent names, as many as the shorter list has.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

VOCAB = Path(__file__).resolve().parent.parent / "builders" / "phantomwiki" / "vocab"

FEMALE, MALE, SURNAMES = "dist.female.first", "dist.male.first", "dist.all.last"
OUTPUT = {FEMALE: "female_first_names.txt", MALE: "male_first_names.txt", SURNAMES: "surnames.txt"}


def natural_case(raw: str, surname: bool) -> str:
    """Convert an upper-case census name to natural casing ("MCDONALD" -> "McDonald")."""
    name = raw.strip().capitalize()
    if surname and len(name) > 2 and name.startswith("Mc"):
        name = "Mc" + name[2:].capitalize()
    return name


def is_plain_alpha(name: str) -> bool:
    """Return True if the name consists only of ASCII letters A-Z / a-z."""
    return name.isascii() and name.isalpha()


def convert(src: Path, surname: bool) -> tuple[dict[str, float], list[str]]:
    """Read one census file (name, frequency in percent; frequency order): ({name: frequency}, dropped)."""
    kept: dict[str, float] = {}
    dropped: list[str] = []
    for line in src.read_text(encoding="ascii").splitlines():
        fields = line.split()
        if not fields:
            continue
        name = natural_case(fields[0], surname)
        if not is_plain_alpha(name) or name in kept:
            dropped.append(fields[0])
            continue
        kept[name] = float(fields[1])
    return kept, dropped


def disjoint_first_names(female: dict[str, float], male: dict[str, float]) -> tuple[list[str], list[str], dict]:
    """(female names, male names, what happened to the shared ones): disjoint, balanced, in census order."""
    shared = female.keys() & male.keys()
    to_female = {name for name in shared if female[name] > male[name]}
    to_male = {name for name in shared if male[name] > female[name]}
    tied = shared - to_female - to_male
    female_names = [name for name in female if name not in to_male | tied]
    male_names = [name for name in male if name not in to_female | tied]
    size = min(len(female_names), len(male_names))
    report = {
        "shared": len(shared),
        "to female": len(to_female),
        "to male": len(to_male),
        "tied, dropped": sorted(tied),
        "kept per gender": size,
    }
    return female_names[:size], male_names[:size], report


def _write(out: Path, names: list[str]) -> None:
    out.write_text("\n".join(names) + "\n", encoding="utf-8", newline="\n")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: scripts/build_names.py CENSUS_DIR [--out OUT_DIR]."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("census_dir", type=Path, help="directory holding the census dist.* files")
    parser.add_argument(
        "--out", type=Path, default=VOCAB, help="output directory (default: builders/phantomwiki/vocab)"
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    read = {}
    for src_name in (FEMALE, MALE, SURNAMES):
        read[src_name], dropped = convert(args.census_dir / src_name, src_name == SURNAMES)
        print(
            f"{src_name}: read {len(read[src_name])}, dropped {len(dropped)}" + (f" {dropped[:10]}" if dropped else "")
        )
    female, male, report = disjoint_first_names(read[FEMALE], read[MALE])
    print(f"first names on both lists: {report}")
    for src_name, names in ((FEMALE, female), (MALE, male), (SURNAMES, list(read[SURNAMES]))):
        _write(args.out / OUTPUT[src_name], names)
        print(f"{src_name} -> {OUTPUT[src_name]}: {len(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
