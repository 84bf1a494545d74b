"""Regenerate the first-name and surname vocab files from 1990 US Census dist.* files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (census source file, output file, apply surname "Mc" casing)
SOURCES: tuple[tuple[str, str, bool], ...] = (
    ("dist.female.first", "female_first_names.txt", False),
    ("dist.male.first", "male_first_names.txt", False),
    ("dist.all.last", "surnames.txt", True),
)


def natural_case(raw: str, surname: bool) -> str:
    """Convert an upper-case census name to natural casing ("MCDONALD" -> "McDonald")."""
    name = raw.strip().capitalize()
    if surname and len(name) > 2 and name.startswith("Mc"):
        name = "Mc" + name[2:].capitalize()
    return name


def is_plain_alpha(name: str) -> bool:
    """Return True if the name consists only of ASCII letters A-Z / a-z."""
    return name.isascii() and name.isalpha()


def convert(src: Path, surname: bool) -> tuple[list[str], list[str]]:
    """Read one census file (name in column 1, frequency order) and return (kept, dropped)."""
    kept: list[str] = []
    dropped: list[str] = []
    seen: set[str] = set()
    for line in src.read_text(encoding="ascii").splitlines():
        fields = line.split()
        if not fields:
            continue
        name = natural_case(fields[0], surname)
        if not is_plain_alpha(name) or name in seen:
            dropped.append(fields[0])
            continue
        seen.add(name)
        kept.append(name)
    return kept, dropped


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: build_names.py CENSUS_DIR [--out OUT_DIR]."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("census_dir", type=Path, help="directory holding the census dist.* files")
    parser.add_argument("--out", type=Path, default=HERE, help="output directory (default: this folder)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for src_name, out_name, surname in SOURCES:
        kept, dropped = convert(args.census_dir / src_name, surname)
        out = args.out / out_name
        out.write_text("\n".join(kept) + "\n", encoding="utf-8", newline="\n")
        print(f"{src_name} -> {out_name}: kept {len(kept)}, dropped {len(dropped)}"
              + (f" {dropped[:10]}" if dropped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
