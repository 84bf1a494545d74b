"""How our universes and questions compare with the reference generator's (PyPI phantom-wiki 1.0.3).

    python benchmarks/fidelity.py                          # n = 50, 1,000, 10,000; depth 20 and 10; seeds 1-5
    python benchmarks/fidelity.py --sizes 50 --seeds 1 2 3

Prints one markdown table: each figure (builders/phantomwiki/fidelity.py says how it is defined) for
our universes beside the reference's, pooled over the seeds, at trees of at most 50 people and tree
depth 20. A figure outside its tolerance (10%; answer-count shares 3 points) is marked with a cross.

The reference figures are data (benchmarks/fidelity_reference.json). To measure them again, run the
reference (Python >= 3.12, `pip install phantom-wiki==1.0.3`) as the "commands" there say, then:

    python benchmarks/fidelity.py --measure-reference OUT_ROOT --reference-names NAMES_DIR

where OUT_ROOT holds one output folder per run, named n{size}_d{depth}_s{seed}, and NAMES_DIR is the
reference's phantom_wiki/facts/family/names folder (its first-name lists).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from leakproof_qa.builders.analysis.fidelity import (
    ANSWER_FIGURES,
    UNIVERSE_FIGURES,
    answer_figures,
    universe_figures,
    within,
)
from leakproof_qa.builders.phantomwiki.config import Settings, format_name, settings_from
from leakproof_qa.builders.phantomwiki.kinship import Kinship
from leakproof_qa.builders.phantomwiki.prolog import read_universe
from leakproof_qa.builders.phantomwiki.questions import sample_questions
from leakproof_qa.builders.phantomwiki.rows import generate_universe
from leakproof_qa.builders.phantomwiki.templates import generate_templates
from leakproof_qa.builders.phantomwiki.vocabulary import load_vocabulary

REFERENCE = Path(__file__).with_name("fidelity_reference.json")
SIZES, DEPTHS, SEEDS = (50, 1_000, 10_000), (20, 10), (1, 2, 3, 4, 5)
_RUN = re.compile(r"^n(\d+)_d(\d+)_s(\d+)$")


def ours(sizes, depths, seeds) -> dict[str, dict[str, float]]:
    """Our figures: key "n{size}" for universes, "n{size}_d{depth}" for questions."""
    vocab = load_vocabulary()
    figures: dict[str, dict[str, float]] = {}
    for size in sizes:
        universes = [generate_universe(settings_from(format_name(size, Settings.depth, seed))[0]) for seed in seeds]
        figures[f"n{size}"] = universe_figures(universes, vocab.female_first_names, vocab.male_first_names)
        for depth in depths:
            pooled = []
            for seed, universe in zip(seeds, universes):
                settings = settings_from(format_name(size, depth, seed))[0]
                questions = sample_questions(
                    generate_templates(depth),
                    Kinship(universe),
                    seed,
                    settings.questions_per_template,
                    settings.easy_mode,
                )
                pooled += [(q.answer, q.is_aggregation_question) for q in questions]
            figures[f"n{size}_d{depth}"] = answer_figures(pooled)
    return figures


def measure_reference(out_root: Path, names_dir: Path) -> dict[str, dict[str, float]]:
    """The reference's figures from its output folders n{size}_d{depth}_s{seed} (facts.pl, questions.json)."""
    female = json.loads((names_dir / "female_names.json").read_text(encoding="utf-8"))
    male = json.loads((names_dir / "male_names.json").read_text(encoding="utf-8"))
    runs: dict[tuple[int, int], list[Path]] = {}
    for folder in sorted(out_root.iterdir()):
        match = _RUN.match(folder.name)
        if match and (folder / "questions.json").exists():  # written last: the run finished
            size, depth, _ = map(int, match.groups())
            runs.setdefault((size, depth), []).append(folder)
    figures: dict[str, dict[str, float]] = {}
    for (size, depth), folders in sorted(runs.items()):
        if f"n{size}" not in figures:  # a universe does not depend on the question depth
            universes = [read_universe((f / "facts.pl").read_text(encoding="utf-8")) for f in folders]
            figures[f"n{size}"] = universe_figures(universes, female, male) | {"seeds": len(folders)}
        pooled = []
        for folder in folders:
            questions = json.loads((folder / "questions.json").read_text(encoding="utf-8"))
            pooled += [(q["answer"], q["is_aggregation_question"]) for q in questions]
        if pooled:
            figures[f"n{size}_d{depth}"] = answer_figures(pooled) | {"seeds": len(folders)}
    return figures


def _cell(figure, value: float | None) -> str:
    if value is None:
        return "n/a"
    if figure.percent:
        return f"{100 * value:.1f}%"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


def table(mine: dict, reference: dict, sizes, depths) -> tuple[list[str], list[str]]:
    """Markdown lines, and the figures outside their tolerance."""
    head = "| figure | " + " | ".join(f"n = {size:,} | reference" for size in sizes) + " |"
    lines = [head, "|---|" + "---:|---:|" * len(sizes)]
    misses = []
    rows = [(f, "n{size}", f.label) for f in UNIVERSE_FIGURES]
    for depth in depths:
        rows += [(f, "n{size}_d" + str(depth), f"depth {depth}: {f.label}") for f in ANSWER_FIGURES]
    for figure, key, label in rows:
        cells = []
        for size in sizes:
            group = key.format(size=size)
            value = mine[group][figure.key]
            expected = reference.get(group, {}).get(figure.key)
            mark = ""
            if expected is not None and not within(figure, value, expected):
                mark = " ✗"
                misses.append(f"{label} at n = {size:,}: {_cell(figure, value)} against {_cell(figure, expected)}")
            cells += [_cell(figure, value) + mark, _cell(figure, expected)]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines, misses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=SIZES)
    parser.add_argument("--depths", type=int, nargs="+", default=DEPTHS)
    parser.add_argument("--seeds", type=int, nargs="+", default=SEEDS)
    parser.add_argument("--measure-reference", type=Path, metavar="OUT_ROOT")
    parser.add_argument("--reference-names", type=Path, metavar="NAMES_DIR")
    args = parser.parse_args()
    data = json.loads(REFERENCE.read_text(encoding="utf-8"))
    if args.measure_reference:
        if not args.reference_names:
            parser.error("--measure-reference needs --reference-names (the reference's facts/family/names folder)")
        data["figures"] = measure_reference(args.measure_reference, args.reference_names)
        REFERENCE.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
        print(f"wrote {REFERENCE}")
        return
    mine = ours(args.sizes, args.depths, args.seeds)
    lines, misses = table(mine, data["figures"], args.sizes, args.depths)
    print(f"Seeds {', '.join(map(str, args.seeds))} pooled; trees of at most 50 people, tree depth 20.")
    print("\n".join(lines))
    print("All figures within tolerance." if not misses else "Outside tolerance:\n" + "\n".join(misses))


if __name__ == "__main__":
    main()
