"""`python -m phantom_wiki verify CONFIG_OR_RELEASE`: check every label of a configuration's instances and rag rows
with the independent verifier (builders.verification), generated afresh or read from a published release.

One line per row with a problem (its instance_id, where it is, what is wrong), then a summary; exit 1 on any problem,
0 otherwise (bad input is one line and exit 2, as for the other commands). The rows come from generation (as
`generate` makes them) or from a release as it was published (plain or sealed); the verifier reads only their text.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from ..phantomwiki.config import ConfigError, Settings, format_name, parse_name, settings_from, universe_name
from ..publishing.passphrase import add_passphrase_options, passphrase_from
from ..verification import SUBSETS, Verifier

Source = list[tuple[str, str, Callable[[], Iterable[Mapping[str, Any]]]]]
"""What to check: (configuration name shown, subset, its rows when asked for)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The verify command's own arguments (the settings are added beside them, as for generate)."""
    parser.add_argument(
        "source",
        metavar="CONFIG_OR_RELEASE",
        help="a configuration (n500_s1 for its instances and rag, n500_s1_instances for one subset), a published "
        "release folder, or a Hub dataset repo ORG/NAME",
    )
    parser.add_argument(
        "--subsets",
        nargs="+",
        choices=SUBSETS,
        metavar="SUBSET",
        help=f"check only these ({', '.join(SUBSETS)}; default both, or the subset the name gives)",
    )
    add_passphrase_options(parser)
    parser.add_argument("--revision", help="a Hub release's branch, tag or commit (default main)")
    parser.add_argument("--cache-dir", help="where a release is downloaded and opened (default: the datasets cache)")


def run(args: argparse.Namespace, knobs: Mapping[str, Any]) -> int:
    """Verify what `args` names; 1 if any row has a problem, else 0. Bad input raises a one-line ValueError."""
    source = _source(args, knobs)
    verifier = Verifier()
    flagged = 0
    for config, subset, rows in source:
        for problem in verifier.rows(rows(), subset, config):
            flagged += 1
            print(problem.line(), flush=True)
    print(verifier.tally.summary())
    return 1 if flagged else 0


def _source(args: argparse.Namespace, knobs: Mapping[str, Any]) -> Source:
    if Path(args.source).expanduser().is_dir() or ("/" in args.source and not args.source.startswith((".", "/", "~"))):
        changed = sorted(k for k, v in knobs.items() if v != getattr(Settings, k))
        if changed:
            raise ConfigError(
                f"--{changed[0].replace('_', '-')} shapes a generated configuration; a release holds the rows as "
                "they were published: leave it out"
            )
        return _released(args)
    if args.passphrase_file or args.passphrase_env or args.revision or args.cache_dir:
        raise ConfigError(
            f"{args.source} is a configuration name: --passphrase-*, --revision and --cache-dir are options of a "
            "release (a folder or ORG/NAME)"
        )
    return _generated(args, knobs)


def _subsets(args: argparse.Namespace, named: str | None) -> list[str]:
    if named is not None and named not in SUBSETS:
        raise ConfigError(f"verify checks the {' and '.join(SUBSETS)} subsets; {named} has no labels to check")
    wanted = args.subsets or ([named] if named else list(SUBSETS))
    if named is not None and wanted != [named]:
        raise ConfigError(f"{args.source} names the {named} subset; leave out --subsets or the suffix")
    return [subset for subset in SUBSETS if subset in wanted]


def _generated(args: argparse.Namespace, knobs: Mapping[str, Any]) -> Source:
    size, depth, seed, subset = parse_name(args.source)
    named = subset if args.source.endswith("_" + subset) else None
    subsets = _subsets(args, named)
    settings = settings_from(format_name(size, depth, seed), **knobs)[0]
    generated: list[Any] = []

    def rows(subset: str) -> Iterator[Mapping[str, Any]]:
        from ..phantomwiki import rows as engine
        from . import prepared

        if not generated:
            generated.append(prepared(settings, subsets, bars=sys.stderr.isatty()))
        return engine.ROWS[subset](generated[0])

    name = universe_name(settings)
    return [(f"{name}_{subset}", subset, partial(rows, subset)) for subset in subsets]


def _released(args: argparse.Namespace) -> Source:
    from ..publishing.loading import locate
    from ..publishing.source import find_universe

    passphrase = passphrase_from(args)
    cache_root, hub_cache = _caches(args.cache_dir)
    located = locate(args.source, revision=args.revision, hub_cache=hub_cache)
    if located.manifest.encryption is not None and passphrase is None:
        raise ConfigError(
            f"{args.source} is encrypted: give its passphrase with --passphrase-env VAR or --passphrase-file FILE "
            "(the release's README.md says where to find it)"
        )
    if located.manifest.encryption is None and passphrase is not None:
        raise ConfigError(f"{args.source} is not encrypted, so it takes no passphrase; leave --passphrase-* out")
    held = set(located.manifest.config_names()) | set(located.manifest.empty)
    source: Source = []
    for universe in located.manifest.configurations or {}:
        size, depth, seed, _ = parse_name(universe)
        present = [s for s in _subsets(args, None) if format_name(size, depth, seed, s) in held]
        if not present:
            continue
        release = find_universe(
            args.source,
            universe,
            needs=present,
            passphrase=passphrase,
            cache_root=cache_root,
            hub_cache=hub_cache,
            revision=located.commit or args.revision,
        )
        source += [(release.config_name(s), s, partial(release.rows, s)) for s in present]
    if not source:
        raise ConfigError(f"{args.source} holds no {' or '.join(_subsets(args, None))} rows to verify")
    return source


def _caches(cache_dir: str | None) -> tuple[Path, Path | None]:
    """(where sealed shards are opened, the Hub cache): inside --cache-dir when given, else the `datasets` cache and
    the Hub client's own (as load_published reads a release)."""
    if cache_dir is not None:
        root = Path(cache_dir).expanduser()
        if root.exists() and not root.is_dir():
            raise ConfigError(f"--cache-dir {cache_dir} is a file; give a folder")
        return root, root / "hub"
    from datasets import config  # reading a release is reading Arrow: the one use of `datasets` builders allow

    return Path(config.HF_DATASETS_CACHE), None
