"""`python -m phantom_wiki`: generate a configuration's subsets to files, export it to Prolog, re-solve v1 questions,
or print the lm-evaluation-harness task folder (`tasks-path`, for `lm_eval --include_path`)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..export import FORMATS, write_rows
from . import generate as engine
from .config import SUBSETS, ConfigError, Settings, parse_name, settings_from
from .prolog import write_program
from .report import summary
from .resolve import read_questions, resolve


def _knob_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = Settings(size=1, seed=0)
    for knob in Settings.knobs():
        flag = "--" + knob.replace("_", "-")
        default = getattr(defaults, knob)
        if isinstance(default, bool):
            parser.add_argument(flag, dest=knob, action="store_true", help=f"(default {default})")
        else:
            parser.add_argument(flag, dest=knob, type=type(default), default=default, help=f"(default {default})")


def _settings(args: argparse.Namespace) -> Settings:
    _, _, _, subset = parse_name(args.config)
    if args.config.endswith("_" + subset):
        raise ConfigError(f"{args.command} works on a whole universe: give {args.config.removesuffix('_' + subset)!r} without the _{subset} suffix")
    return settings_from(args.config, **{knob: getattr(args, knob) for knob in Settings.knobs()})[0]


def _progress(stage: str) -> None:
    print(f"... {stage}", file=sys.stderr, flush=True)


def _generate(args: argparse.Namespace) -> int:
    from .features import FEATURES

    settings = _settings(args)
    start = time.perf_counter()
    generated = engine.generate(settings, progress=_progress)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for subset in SUBSETS:
        _progress(f"writing {subset}")
        path = out / f"{subset}.{args.format}"
        written[subset] = write_rows(engine.ROWS[subset](generated), path, args.format, FEATURES[subset].arrow_schema)
    print(summary(generated, written, time.perf_counter() - start))
    print(f"wrote {', '.join(f'{s}.{args.format}' for s in SUBSETS)} to {out}")
    return 0


def _prolog(args: argparse.Namespace) -> int:
    universe = engine.generate_universe(_settings(args))
    program = write_program(universe, args.out)
    print(f"wrote {program} (facts.pl + rules.pl); try: swipl {program}")
    return 0


def _resolve(args: argparse.Namespace) -> int:
    try:
        database = Path(args.database).read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"cannot read the database {args.database}: {error.strerror}") from None
    questions = read_questions(args.questions)
    reproduced, differences = resolve(database, questions)
    print(f"reproduced {reproduced} of {len(questions)} stored answers")
    for diff in differences:
        print(f"differs: {diff.id} {diff.question!r}\n  stored:   {diff.stored}\n  computed: {diff.computed}")
    return 0 if not differences else 1


def _tasks_path(args: argparse.Namespace) -> int:
    from leakproof_eval import tasks_path

    print(tasks_path())
    return 0


def parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    top = argparse.ArgumentParser(prog="python -m phantom_wiki", description=__doc__)
    commands = top.add_subparsers(dest="command", required=True)
    gen = commands.add_parser("generate", help="write every subset of a configuration")
    gen.add_argument("config", help="e.g. n5000_s1 or n500_d10_s3")
    gen.add_argument("--out", required=True, help="output directory")
    gen.add_argument("--format", choices=FORMATS, default="parquet")
    _knob_arguments(gen)
    pro = commands.add_parser("prolog", help="write the universe as a Prolog program swipl consults")
    pro.add_argument("config")
    pro.add_argument("--out", required=True)
    _knob_arguments(pro)
    res = commands.add_parser("resolve", help="re-solve v1 questions over a v1 universe")
    res.add_argument("--database", required=True, help="v1 facts.pl (or the text of v1's database config)")
    res.add_argument("--questions", required=True, help="v1 questions.json (a JSON list) or JSON lines")
    commands.add_parser("tasks-path", help="print the lm-evaluation-harness task folder, for lm_eval --include_path")
    return top


def main(argv: list[str]) -> int:
    """Run one command; user errors end in a one-line message."""
    args = parser().parse_args(argv)
    handlers = {"generate": _generate, "prolog": _prolog, "resolve": _resolve, "tasks-path": _tasks_path}
    try:
        return handlers[args.command](args)
    except (ConfigError, ValueError, FileNotFoundError) as error:
        print(f"phantom_wiki: {error}", file=sys.stderr)
        return 2
