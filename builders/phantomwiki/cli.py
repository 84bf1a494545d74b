"""`python -m phantom_wiki`: generate a configuration's subsets to files, publish configurations for the Hub,
export a universe to Prolog, re-solve v1 questions, or print the lm-evaluation-harness task folder
(`tasks-path`, for `lm_eval --include_path`)."""

from __future__ import annotations

import argparse
import os
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
    out = _out_folder(args.out)
    taken = [f"{subset}.{args.format}" for subset in SUBSETS if (out / f"{subset}.{args.format}").exists()]
    if taken and not args.overwrite:
        raise ConfigError(f"--out {out} already holds {', '.join(taken)}; pass --overwrite to replace them, "
                          "or give another folder")
    start = time.perf_counter()
    generated = engine.generate(settings, progress=_progress)
    written = {}
    for subset in SUBSETS:
        _progress(f"writing {subset}")
        path = out / f"{subset}.{args.format}"
        written[subset] = write_rows(engine.ROWS[subset](generated), path, args.format, FEATURES[subset].arrow_schema)
    print(summary(generated, written, time.perf_counter() - start))
    print(f"wrote {', '.join(f'{s}.{args.format}' for s in SUBSETS)} to {out}")
    return 0


def _out_folder(path: str) -> Path:
    """`--out` as a folder that exists (created if needed), or a one-line ConfigError."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; give a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"cannot make the folder --out {out}: {error.strerror}") from None
    return out


def _passphrase(args: argparse.Namespace) -> str | None:
    """The passphrase from --passphrase-file or --passphrase-env; never from the command line itself."""
    if args.passphrase is not None:
        raise ConfigError("never give a passphrase on the command line (shell history and `ps` show it); "
                          "use --passphrase-file FILE or --passphrase-env VAR")
    if args.passphrase_file and args.passphrase_env:
        raise ConfigError("give the passphrase once: --passphrase-file or --passphrase-env, not both")
    if args.passphrase_file:
        try:
            passphrase = Path(args.passphrase_file).read_text(encoding="utf-8").rstrip("\r\n")
        except OSError as error:
            raise ConfigError(f"cannot read --passphrase-file {args.passphrase_file}: {error.strerror}") from None
        if not passphrase:
            raise ConfigError(f"--passphrase-file {args.passphrase_file} is empty; put the passphrase in it")
        return passphrase
    if args.passphrase_env:
        passphrase = os.environ.get(args.passphrase_env, "")
        if not passphrase:
            raise ConfigError(f"environment variable {args.passphrase_env} (--passphrase-env) is not set or empty")
        return passphrase
    return None


def _publish(args: argparse.Namespace) -> int:
    from ..publishing.phantomwiki import publish

    start = time.perf_counter()
    release = publish(
        args.configs, args.out, subsets=args.subsets, encrypt=args.encrypt, passphrase=_passphrase(args),
        passphrase_in_card=args.passphrase_in_card, repo_id=args.repo_id, private=args.private,
        revision=args.revision, gated=args.gated, replace=args.replace, progress=_progress,
        **{knob: getattr(args, knob) for knob in Settings.knobs()},
    )
    manifest = release.manifest
    for name in manifest.config_names():
        entries = manifest.entries(name)
        size = sum(entry.size for entry in entries)
        print(f"{name:<28} {manifest.rows(name):>10,} rows  {len(entries)} file(s)  {size:>14,} bytes")
    kind = "encrypted (cc-by-nd-4.0)" if manifest.encryption else "plain Parquet (cc-by-4.0)"
    print(f"{kind}, leakproof-qa {manifest.package_version}, code {manifest.code_digest}; "
          f"{time.perf_counter() - start:.1f} s")
    if release.folder is not None:
        print(f"wrote {release.folder} (README.md, manifest.json and the shards)")
    if release.commit_url:
        print(f"uploaded to {args.repo_id}: {release.commit_url}")
    return 0


def _prolog(args: argparse.Namespace) -> int:
    out = _out_folder(args.out)
    universe = engine.generate_universe(_settings(args))
    program = write_program(universe, out)
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


def _agent(args: argparse.Namespace) -> int:
    from phantom_env.cli import main as agent

    return agent(args.arguments)


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
    gen.add_argument("--overwrite", action="store_true", help="replace the subset files --out already holds")
    _knob_arguments(gen)
    pub = commands.add_parser("publish", help="write configurations as a Hub dataset folder; optionally upload it")
    pub.add_argument("configs", nargs="+", metavar="config", help="e.g. n5000_s1 n500_d10_s3")
    pub.add_argument("--out", help="release folder (new, empty, or an earlier release); needed unless --repo-id")
    pub.add_argument("--subsets", nargs="+", choices=SUBSETS, help="default: all five")
    pub.add_argument("--encrypt", action="store_true", help="seal every shard (AES-256-GCM); license cc-by-nd-4.0")
    pub.add_argument("--passphrase-file", help="file holding the passphrase (its first line)")
    pub.add_argument("--passphrase-env", metavar="VAR", help="environment variable holding the passphrase")
    pub.add_argument("--passphrase", help=argparse.SUPPRESS)  # refused with a one-line error: never on the command line
    pub.add_argument("--no-passphrase-in-card", dest="passphrase_in_card", action="store_false",
                     help="leave the passphrase out of the card (default: a public release states it)")
    pub.add_argument("--repo-id", help="upload to this Hub dataset repo (ORG/NAME), created if needed")
    pub.add_argument("--private", action="store_true", help="make the repo private")
    pub.add_argument("--revision", help="upload to this branch (created if needed)")
    pub.add_argument("--gated", choices=("auto", "manual"), help="gate access to the repo")
    pub.add_argument("--replace", action="store_true",
                     help="delete configurations the folder or repo holds that this release leaves out")
    _knob_arguments(pub)
    pro = commands.add_parser("prolog", help="write the universe as a Prolog program swipl consults")
    pro.add_argument("config")
    pro.add_argument("--out", required=True)
    _knob_arguments(pro)
    res = commands.add_parser("resolve", help="re-solve v1 questions over a v1 universe")
    res.add_argument("--database", required=True, help="v1 facts.pl (or the text of v1's database config)")
    res.add_argument("--questions", required=True, help="v1 questions.json (a JSON list) or JSON lines")
    commands.add_parser("tasks-path", help="print the lm-evaluation-harness task folder, for lm_eval --include_path")
    agent = commands.add_parser("agent", add_help=False, help="run an agent with the paper's tools over a universe's "
                                "questions against an OpenAI-compatible endpoint (python -m phantom_wiki agent --help)")
    agent.add_argument("arguments", nargs=argparse.REMAINDER)
    return top


def main(argv: list[str]) -> int:
    """Run one command; user errors end in a one-line message."""
    args = parser().parse_args(argv)
    handlers = {"generate": _generate, "publish": _publish, "prolog": _prolog, "resolve": _resolve,
                "tasks-path": _tasks_path, "agent": _agent}
    try:
        return handlers[args.command](args)
    except (ConfigError, ValueError, FileNotFoundError) as error:
        print(f"phantom_wiki: {error}", file=sys.stderr)
        return 2
