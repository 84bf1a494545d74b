"""`python -m phantom_wiki`: generate a universe's subsets to files, publish universes for the Hub, list the names
and settings, export a universe to Prolog, re-solve v1 questions; the faces above add `agent` and `tasks-path`."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, NoReturn

from .. import __version__
from ..cluster import add_ray_option
from ..export import FORMATS as EXPORT_FORMATS
from ..phantomwiki.config import (
    DEFAULT_SUBSET,
    EXAMPLES,
    GRAMMAR,
    RANGES,
    SUBSETS,
    ConfigError,
    Settings,
    parse_universe,
    settings_from,
    universe_name,
)
from ..processes import default_processes, each_result
from ..publishing.passphrase import add_passphrase_options, passphrase_from
from . import show, verify

SUBSET_TEXT = {
    "questions": "multi-hop questions with exact answers, Prolog queries and the facts behind them",
    "corpus": "one wiki-style article per person, with the facts it states",
    "database": "the universe as one Prolog program (v1 form)",
    "instances": "each question with sufficient or insufficient evidence plus distractors, and unanswerable variants",
    "rag": "each question with its BM25 top-k articles and whether they suffice",
}

DESCRIPTION = (
    "PhantomWiki: fictional universes, their articles and multi-hop questions with exact answers, made "
    "afresh from a configuration name. Generate a universe's subsets to files, publish universes for the "
    "Hub, list the names and settings, export a universe to Prolog, re-solve v1 questions, run an agent, "
    "or find the lm-evaluation-harness tasks."
)

GRAMMAR_TEXT = f"""configuration names: {GRAMMAR}
  n5000_s1              5,000 people, seed 1, question depth 20 (the paper's), the questions subset
  n500_d10_s3_corpus    500 people, seed 3, depth 10, the corpus subset
  subsets: {", ".join(SUBSETS)} (default {DEFAULT_SUBSET}); other settings are options (see `list`)"""

Face = Callable[[list[str]], int]
"""A command a layer above adds (agent, tasks-path): it takes the rest of the command line, returns the exit code."""


def _knob_arguments(
    parser: argparse.ArgumentParser, stages: tuple[str, ...], settings: type[Settings] = Settings
) -> None:
    """An option for each setting that shapes one of `stages`, with what it does, its default and range."""
    group = parser.add_argument_group("settings (see `python -m phantom_wiki list`)")
    for f in settings.knob_fields():
        knob, default, stage, text = f.name, f.default, f.metadata["stage"], f.metadata["help"]
        if stage not in stages:
            continue
        flag = "--" + knob.replace("_", "-")
        expected = f.metadata["expected"]
        shown = repr(default) if default == "" else default  # an empty default is shown as '', not as nothing
        help_text = f"{text} (default {shown}" + (f"; {expected})" if expected else ")")
        if isinstance(default, bool):  # --places / --no-places
            group.add_argument(flag, dest=knob, action=argparse.BooleanOptionalAction, default=default, help=help_text)
        else:
            group.add_argument(
                flag,
                dest=knob,
                type=type(default),
                default=default,
                metavar=type(default).__name__.upper(),
                help=help_text.replace("%", "%%"),
            )


def _knobs(args: argparse.Namespace) -> dict[str, Any]:
    return {knob: getattr(args, knob) for knob in Settings.knobs() if hasattr(args, knob)}


def settings_lines(settings: type[Settings] = Settings) -> list[str]:
    """One line per setting for `list`: its name, stage, default, what it does and its range."""
    lines = []
    for f in settings.knob_fields():
        expected = f"; {f.metadata['expected']}" if f.metadata["expected"] else ""
        lines.append(f"  {f.name:<23} {f.metadata['stage']:<9} default {f.default!s:<9} {f.metadata['help']}{expected}")
    return lines


def settings_table(settings: type[Settings] = Settings) -> str:
    """The settings as the README's Markdown table (a test holds the README's equal to this)."""
    rows = ["| setting | shapes | default | what it does; range |", "|---|---|---|---|"]
    for f in settings.knob_fields():
        expected = f"; {f.metadata['expected']}" if f.metadata["expected"] else ""
        rows.append(f"| `{f.name}` | {f.metadata['stage']} | `{f.default!r}` | {f.metadata['help']}{expected} |")
    return "\n".join(rows)


def _settings(args: argparse.Namespace, name: str) -> Settings:
    hint = "choose subsets with --subsets" if args.command == "generate" else ""
    parse_universe(name, args.command, hint)
    return settings_from(name, **_knobs(args))[0]


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def write_files(
    settings: Settings,
    subsets: list[str],
    out: Path,
    file_format: str,
    bars: bool = False,
    processes: int = 1,
    progress: Callable[[str], None] | None = None,
) -> tuple[Any, dict[str, int]]:
    """Generate one universe and write `subsets` into `out`: (the generated universe, rows written per subset).
    `bars` draws the stage and row bars (for one universe at a time; a pool of them prints a line each). With
    `processes` > 1 a forked writer writes the files (forked_writer.py) and the instances and rag rows are made in
    `processes` processes (forked_rows.py): the same files. Without bars, `progress` is told each stage as it
    begins."""
    from ..phantomwiki import rows as engine
    from ..phantomwiki.config import universe_name
    from ..progress import StageBar
    from .forked_rows import ForkedRows, index_elsewhere, take_index
    from .forked_writer import ForkedWriter

    bar = StageBar(universe_name(settings), engine.stage_names(subsets)) if bars else None
    generated = engine.generate(settings, False, "corpus" in subsets, progress=bar if bar is not None else progress)
    with ForkedWriter(generated, out, file_format, processes) as writer:
        early = [name for name in ("corpus", "database") if name in subsets and writer.forked]
        tell = progress if bar is None and progress is not None else lambda stage: None
        for name in early:  # what the universe and its articles make, written while the questions are sampled
            tell(f"write {name}")
            writer.write(name)
        index = index_elsewhere(generated, subsets, processes)  # built meanwhile too
        try:
            engine.prepare(generated, subsets)
            take_index(generated, index)
        finally:
            if index is not None:
                index.close()
        if bar is not None:
            bar.close()
        with ForkedRows(generated, subsets, processes, writer if writer.forked else None) as made:
            for subset in [name for name in subsets if name not in early]:
                tell(f"write {subset}")
                began = time.perf_counter()
                if writer.forked:
                    made.write(subset, writer)
                else:
                    rows = made.rows(subset)
                    writer.write(subset, _counted(generated, subset, rows) if bars else rows)
                if writer.forked:  # the rows made here, the file written there meanwhile
                    generated.timings[f"rows {subset}"] = time.perf_counter() - began
        written = writer.close()
    for subset in subsets:
        generated.timings[f"write {subset}"] = written[subset][1]
    return generated, {subset: written[subset][0] for subset in subsets}


def _counted(generated: Any, subset: str, rows: Iterable[dict]) -> Iterator[dict]:
    """`rows` behind a bar that counts them, against the subset's size where it is known before they are made."""
    from ..progress import counted

    total = {"questions": len(generated.questions), "corpus": len(generated.articles), "database": 1}
    return counted(rows, f"writing {subset}", total.get(subset))


def _write_in_worker(settings: Settings, subsets: list[str], out: Path, file_format: str) -> tuple[int, float]:
    """A pool's task: one universe written; (rows written, seconds). Nothing large goes back to the parent."""
    began = time.perf_counter()
    _, written = write_files(settings, subsets, out, file_format)
    return sum(written.values()), time.perf_counter() - began


def _generate(args: argparse.Namespace) -> int:
    from ..analysis.report import summary
    from ..phantomwiki.budget import check as check_memory

    universes = [_settings(args, name) for name in args.configs]
    names = [universe_name(settings) for settings in universes]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ConfigError(f"{repeated[0]} is given twice; give each universe once")
    if args.num_proc < 1:
        raise ConfigError(f"--num-proc {args.num_proc} must be at least 1")
    at_once = min(args.num_proc, len(universes))  # several universes: this many are held at once
    for settings in universes:
        check_memory(settings, at_once)  # before any bar is drawn: a refusal is one line
    subsets = [subset for subset in SUBSETS if subset in (args.subsets or SUBSETS)]
    out = _out_folder(args.out)
    # one universe: its files in --out; several: one folder each, named canonically (n5000_s1/, n5000_s2/, ...)
    folders = [out] if len(universes) == 1 else [_out_folder(str(out / name)) for name in names]
    taken = [
        (folder / f"{s}.{args.format}").relative_to(out).as_posix()
        for folder in folders
        for s in subsets
        if (folder / f"{s}.{args.format}").exists()
    ]
    if taken and not args.overwrite:
        raise ConfigError(
            f"--out {out} already holds {', '.join(taken[:3])}{' ...' if len(taken) > 3 else ''}; "
            "pass --overwrite to replace them, or give another folder"
        )
    start = time.perf_counter()
    if len(universes) == 1:
        generated, written = write_files(universes[0], subsets, out, args.format, bars=True, processes=args.num_proc)
        print(summary(generated, written, time.perf_counter() - start))
        print(f"wrote {', '.join(f'{s}.{args.format}' for s in subsets)} to {out}")
        return 0
    jobs = list(zip(universes, names, folders))
    results = each_result(_write_in_worker, [(s, subsets, folder, args.format) for s, _, folder in jobs], args.num_proc)
    for (_, name, folder), (rows, seconds) in zip(jobs, results):
        print(f"{name:<24} {rows:>10,} rows  {seconds:6.2f} s  -> {folder}", flush=True)
    print(
        f"wrote {len(jobs)} universes ({', '.join(subsets)}) to {out} in {time.perf_counter() - start:.1f} s "
        f"with {min(args.num_proc, len(jobs))} process(es)"
    )
    return 0


def write_universe(settings: Settings, subsets: tuple[str, ...], folder: Path) -> None:
    """A cluster job's work: one universe's subsets into `folder`, as `generate` writes them (Parquet)."""
    write_files(settings, list(subsets), folder, "parquet")


def _generate_many(args: argparse.Namespace) -> int:
    """`generate-many n5000 --seeds 1-1000 --out DIR [--ray ADDRESS]`: each universe as `generate` writes it, plus
    a manifest; on this machine's cores, or one Ray task per universe (builders/cluster/)."""
    from ..cluster.runs import Job, run_locally, run_many, seeds
    from ..digest import PHANTOMWIKI_CODE, code_digest
    from ..phantomwiki.budget import check as check_memory
    from ..phantomwiki.budget import estimate

    if args.num_proc < 1:
        raise ConfigError(f"--num-proc {args.num_proc} must be at least 1")
    names = [f"{args.prefix}_s{seed}" for seed in seeds(args.seeds)]
    universes = [_settings(args, name) for name in names]
    subsets = tuple(subset for subset in SUBSETS if subset in (args.subsets or SUBSETS))
    versions = {"package_version": __version__, "code_digest": code_digest(*PHANTOMWIKI_CODE)}
    jobs = [Job("phantom_wiki", universe_name(s), s, subsets, write_universe, versions, estimate(s)) for s in universes]
    if args.ray:
        from ..cluster.on_ray import ray_runner

        runner = ray_runner(args.ray)
    else:
        for settings in universes:
            check_memory(settings, min(args.num_proc, len(jobs)))
        runner = run_locally(args.num_proc)
    start = time.perf_counter()
    records, skipped = run_many(jobs, args.out, runner, _say)
    print(
        f"{len(records)} universes in {args.out} ({len(skipped)} already written whole, "
        f"{len(records) - len(skipped)} written) in {time.perf_counter() - start:.1f} s; manifest.json lists them"
    )
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


def _timed_lines(start: float) -> Callable[[str], None]:
    """Publishing's progress: each stage's name as it begins, with the seconds since `start`."""
    return lambda stage: _say(f"{time.perf_counter() - start:8.1f}s  {stage}")


def _publish(args: argparse.Namespace) -> int:
    from ..publishing.hub import HubTarget
    from ..publishing.phantomwiki import publish

    if args.num_proc < 1:
        raise ConfigError(f"--num-proc {args.num_proc} must be at least 1")

    start = time.perf_counter()
    release = publish(
        args.configs,
        args.out,
        subsets=args.subsets,
        encrypt=args.encrypt,
        passphrase=passphrase_from(args),
        passphrase_in_card=args.passphrase_in_card,
        hub=HubTarget(args.repo_id, args.private, args.revision, args.gated) if args.repo_id else None,
        replace=args.replace,
        num_proc=args.num_proc,
        progress=_timed_lines(start),
        **_knobs(args),
    )
    manifest = release.manifest
    for name in manifest.config_names():
        entries = manifest.entries(name)
        size = sum(entry.size for entry in entries)
        print(f"{name:<28} {manifest.rows(name):>10,} rows  {len(entries)} file(s)  {size:>14,} bytes")
    kind = "encrypted (cc-by-nd-4.0)" if manifest.encryption else "plain Parquet (cc-by-4.0)"
    print(
        f"{kind}, leakproof-qa {manifest.package_version}, code {manifest.code_digest}; "
        f"{time.perf_counter() - start:.1f} s"
    )
    if release.folder is not None:
        print(f"wrote {release.folder} (README.md, manifest.json and the shards)")
    if release.commit_url:
        print(f"uploaded to {args.repo_id}: {release.commit_url}")
    return 0


def _list(args: argparse.Namespace) -> int:
    print(GRAMMAR_TEXT.split("\n")[0])
    print(f"  e.g. {EXAMPLES}; the size is at least 1, the seed at least 0, the depth {RANGES['depth'][1]}")
    print("\nsubsets (one split, test):")
    for subset in SUBSETS:
        print(f"  {subset:<10} {SUBSET_TEXT[subset]}" + (" (the default)" if subset == DEFAULT_SUBSET else ""))
    print("\nsettings (keyword arguments of load_dataset and publish; --kebab-case options of generate and publish):")
    print("\n".join(settings_lines()))
    return 0


def _prolog(args: argparse.Namespace) -> int:
    from ..phantomwiki.prolog import write_program
    from ..phantomwiki.stages import generate_universe

    out = _out_folder(args.out)
    universe = generate_universe(_settings(args, args.config))
    program = write_program(universe, out)
    print(f"wrote {program} (facts.pl + rules.pl); try: swipl {program}")
    return 0


def _resolve(args: argparse.Namespace) -> int:
    from ..analysis.resolve import read_questions, resolve

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


FACE_HELP = {
    "agent": "run an agent with the paper's tools over a universe's questions against an OpenAI-compatible "
    "endpoint (python -m phantom_wiki agent --help)",
    "mcp": "serve the paper's tools over a universe as an MCP server, stdio or HTTP",
    "tasks-path": "print the lm-evaluation-harness task folder, for lm_eval --include_path",
}


class OneLineErrors(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (argparse prints the whole usage first: 26 lines for a bad
    --subsets value); its subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} ({self.prog} --help lists the options)\n")


def parser(faces: Mapping[str, Face] | None = None) -> argparse.ArgumentParser:
    """The command-line interface; `faces` are the commands the layers above add."""
    top = OneLineErrors(
        prog="python -m phantom_wiki",
        description=DESCRIPTION,
        epilog=GRAMMAR_TEXT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    top.add_argument("--version", action="version", version=f"leakproof-qa {__version__}")
    commands = top.add_subparsers(dest="command", required=True, metavar="command")
    everything = ("universe", "questions", "instances")
    gen = commands.add_parser(
        "generate",
        help="write a universe's subsets to files (Parquet or JSON lines)",
        description="Write a universe's subsets to files (Parquet or JSON lines).",
        epilog=GRAMMAR_TEXT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    gen.add_argument(
        "configs",
        nargs="+",
        metavar="config",
        help="universes, e.g. n5000_s1 or n500_d10_s3 (no subset suffix); several, e.g. n5000_s{1..32}, "
        "go to one folder each under --out",
    )
    gen.add_argument("--out", required=True, help="output folder (created if needed)")
    gen.add_argument(
        "--num-proc",
        type=int,
        default=default_processes(),
        metavar="K",
        help="processes: K universes at once, or one universe's instances and rag rows made in K "
        f"(default {default_processes()}, two on two cores; the files are the same)",
    )
    gen.add_argument(
        "--subsets",
        nargs="+",
        choices=SUBSETS,
        metavar="SUBSET",
        help=f"write only these ({', '.join(SUBSETS)}; default: all five)",
    )
    gen.add_argument("--format", choices=EXPORT_FORMATS, default="parquet", help="file format (default parquet)")
    gen.add_argument("--overwrite", action="store_true", help="replace the subset files --out already holds")
    _knob_arguments(gen, everything)
    many = commands.add_parser(
        "generate-many",
        help="write many universes (a prefix and seeds), each as generate writes it, plus a manifest; on Ray if asked",
        description="Write many universes, OUT/{prefix}_s{seed}/, each byte for byte as `generate` writes it, plus "
        "OUT/manifest.json (configurations, versions, each file's size and sha256). Each universe is staged and "
        "renamed when whole; running the command again skips the universes already written whole (checked by "
        "digest). OUT is a local path or a URI pyarrow reaches (s3://...). With --ray, one Ray task per universe.",
        epilog=GRAMMAR_TEXT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    many.add_argument("prefix", help="the universes' name without the seed, e.g. n5000 or n500_d10")
    many.add_argument("--seeds", required=True, help="seeds, e.g. 1-1000 or 1-3,7")
    many.add_argument("--out", required=True, help="output folder or URI")
    add_ray_option(many)
    many.add_argument(
        "--num-proc",
        type=int,
        default=default_processes(),
        metavar="K",
        help=f"without --ray: K universes at once (default {default_processes()})",
    )
    many.add_argument("--subsets", nargs="+", choices=SUBSETS, metavar="SUBSET", help="write only these")
    _knob_arguments(many, everything)
    pub = commands.add_parser(
        "publish",
        help="write universes as a Hub dataset folder; optionally upload it",
        description="Write universes as a Hub dataset folder (Parquet shards, card, manifest); optionally upload it.",
        epilog=GRAMMAR_TEXT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pub.add_argument("configs", nargs="+", metavar="config", help="universes, e.g. n5000_s1 n500_d10_s3")
    pub.add_argument("--out", help="release folder (new, empty, or an earlier release); needed unless --repo-id")
    pub.add_argument(
        "--num-proc",
        type=int,
        default=1,
        metavar="K",
        help="generate K universes at once, in K processes (default 1; the release is the same)",
    )
    pub.add_argument(
        "--subsets",
        nargs="+",
        choices=SUBSETS,
        metavar="SUBSET",
        help=f"publish only these ({', '.join(SUBSETS)}; default: all five)",
    )
    pub.add_argument("--encrypt", action="store_true", help="seal every shard (AES-256-GCM); license cc-by-nd-4.0")
    add_passphrase_options(pub)
    pub.add_argument(
        "--no-passphrase-in-card",
        dest="passphrase_in_card",
        action="store_false",
        help="leave the passphrase out of the card (default: a public release states it)",
    )
    pub.add_argument("--repo-id", help="upload to this Hub dataset repo (ORG/NAME), created if needed")
    pub.add_argument("--private", action="store_true", help="make the repo private")
    pub.add_argument("--revision", help="upload to this branch (created if needed)")
    pub.add_argument("--gated", choices=("auto", "manual"), help="gate access to the repo")
    pub.add_argument(
        "--replace",
        action="store_true",
        help="delete configurations the folder or repo holds that this release leaves out",
    )
    _knob_arguments(pub, everything)
    commands.add_parser(
        "list",
        help="list the configuration grammar, the subsets and every setting with its default",
        description="List the configuration grammar, the subsets and every setting with its default and range.",
    )
    pro = commands.add_parser(
        "prolog",
        help="write a universe as a Prolog program swipl consults",
        description="Write a universe as a Prolog program: facts.pl, rules.pl and program.pl, which holds both "
        "(swipl program.pl).",
    )
    pro.add_argument("config", help="a universe, e.g. n500_s1")
    pro.add_argument("--out", required=True, help="output folder (created if needed)")
    _knob_arguments(pro, ("universe",))
    res = commands.add_parser(
        "resolve",
        help="re-solve v1 questions over a v1 universe",
        description="Re-solve the reference (v1) implementation's questions over its universe "
        "and report which stored answers we reproduce.",
    )
    res.add_argument("--database", required=True, help="v1 facts.pl (or the text of v1's database config)")
    res.add_argument("--questions", required=True, help="v1 questions.json (a JSON list) or JSON lines")
    shw = commands.add_parser(
        "show",
        help="show one row of a subset: readable, as JSON, or as the prompt an lm-eval task sends",
        description="Show one row of a subset: readable (the label and why, the documents with the required ones "
        "marked, the options), as the row's JSON, or as exactly the prompt an lm-eval task sends for it.",
        epilog=GRAMMAR_TEXT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    show.add_arguments(shw)
    _knob_arguments(shw, everything)
    ver = commands.add_parser(
        "verify",
        help="check every label of a configuration's instances and rag rows with the independent verifier",
        description="Check every label of a configuration's instances and rag rows (generated, or a published "
        "release as published) with a verifier that reads only the rows' text and shares no code with the "
        "generator: one line per row with a problem, then a summary; exit 1 on any problem.",
        epilog=GRAMMAR_TEXT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verify.add_arguments(ver)
    _knob_arguments(ver, everything)
    for name in faces or {}:
        face = commands.add_parser(name, add_help=False, help=FACE_HELP.get(name))
        face.add_argument("arguments", nargs=argparse.REMAINDER)
    return top


def _show(args: argparse.Namespace) -> int:
    return show.run(*settings_from(args.config, **_knobs(args)), args)


def main(argv: list[str], faces: Mapping[str, Face] | None = None) -> int:
    """Run one command; user errors end in a one-line message."""
    if faces and argv[:1] and argv[0] in faces:  # a face parses its own arguments, --help included
        return faces[argv[0]](argv[1:])
    args = parser(faces).parse_args(argv)
    handlers = {"generate": _generate, "publish": _publish, "list": _list, "prolog": _prolog, "resolve": _resolve}
    handlers["generate-many"] = _generate_many
    handlers["show"] = _show
    handlers["verify"] = lambda args: verify.run(args, _knobs(args))
    try:
        return handlers[args.command](args)
    except (ConfigError, ValueError, FileNotFoundError, ImportError) as error:
        print(f"phantom_wiki: {error}", file=sys.stderr)
        return 2
