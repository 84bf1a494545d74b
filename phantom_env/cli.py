"""`python -m phantom_wiki agent CONFIG ...`: run an agent over every question of a universe and score it."""

from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from leakproof_qa.builders.phantomwiki.config import (
    ConfigError,
    Settings,
    format_name,
    parse_universe,
    settings_from,
    universe_name,
)
from leakproof_qa.builders.phantomwiki.rows import generate
from leakproof_qa.builders.publishing.errors import ReleaseError
from leakproof_qa.builders.publishing.passphrase import add_passphrase_options, passphrase_from

from .baselines import OracleModel, RandomWalkModel
from .client import MAX_REPLY_BYTES, TIMEOUT, ChatClient, EndpointError
from .release import ReleaseRowsError, corpus_of, tasks_of_rows
from .runner import MODES, SCORES, TRAJECTORIES, Model, RunError, Task, run, table, tasks_of
from .tools import INVALID, Corpus

BASELINES = ("oracle", "random-walk")


def parser() -> argparse.ArgumentParser:
    """The agent command's arguments."""
    p = argparse.ArgumentParser(
        prog="python -m phantom_wiki agent",
        description="Run an agent with the paper's tools (RetrieveArticle, Search, Finish) over every question of a "
        "universe, against an OpenAI-compatible chat endpoint or a baseline without weights; write one "
        "trajectory per question (trajectories.jsonl, resumable), run.json (what the run is) and scores.json, and "
        "print the scores.",
    )
    p.add_argument("config", help="the universe, e.g. n500_s1 or n5000_d10_s3")
    p.add_argument(
        "--release",
        metavar="DIR_OR_REPO",
        help="read the universe's questions and articles from a published release (a folder or a Hub dataset ORG/NAME "
        "holding its questions and corpus) instead of generating them",
    )
    p.add_argument("--revision", help="with --release from the Hub: its branch, tag or commit (default main)")
    add_passphrase_options(p)
    p.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="with --release: where Hub downloads and opened shards go (default: datasets')",
    )
    p.add_argument("--base-url", help="the endpoint, e.g. http://127.0.0.1:8000/v1 (vLLM, llama.cpp's server, OpenAI)")
    p.add_argument(
        "--model",
        required=True,
        help="the model name the endpoint serves; without --base-url, a baseline: oracle or random-walk",
    )
    p.add_argument(
        "--mode",
        choices=MODES,
        default="react",
        help="react: the paper's Thought/Action/Observation text protocol; tools: native function calling "
        "(default %(default)s)",
    )
    p.add_argument(
        "--tools",
        choices=tuple(INVALID),
        default="atomic",
        help="atomic: RetrieveArticle and Search (the paper's); bm25: Search by title or BM25, and Lookup "
        "(default %(default)s)",
    )
    p.add_argument(
        "--max-steps",
        type=int,
        default=50,
        metavar="N",
        help="model calls per question at most (default %(default)s, the paper's); the table says how many "
        "questions stopped there",
    )
    p.add_argument(
        "--max-tokens",
        type=int,
        default=1024,
        metavar="N",
        help="tokens the endpoint may write per step (default %(default)s; a ReAct step needs about 100, and a small "
        "model that never stops spends them all on every step)",
    )
    p.add_argument("--limit", type=int, metavar="N", help="run the first N questions only (default: all)")
    p.add_argument(
        "--concurrency", type=int, default=1, metavar="K", help="questions run at once (default %(default)s)"
    )
    p.add_argument(
        "--out",
        required=True,
        help="folder for run.json, trajectories.jsonl and scores.json; a rerun of the same run resumes, another run "
        "is refused",
    )
    p.add_argument(
        "--overwrite", action="store_true", help="delete the run --out holds (its three files) and start again"
    )
    p.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        metavar="VAR",
        help="environment variable holding the API key (default %(default)s; none is fine locally)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=TIMEOUT,
        metavar="SECONDS",
        help="a request's whole time, connect to last byte (default %(default)g)",
    )
    p.add_argument(
        "--max-reply-bytes",
        type=int,
        default=MAX_REPLY_BYTES,
        metavar="N",
        help="a larger reply is refused (default %(default)d, 8 MiB)",
    )
    p.add_argument("--seed", type=int, default=0, help="the random walk's seed (default %(default)s)")
    return p


def _check(args: argparse.Namespace) -> None:
    """Refuse, in one line, the options a run cannot start with."""
    for name in ("max_steps", "max_tokens", "concurrency", "limit", "max_reply_bytes"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise ConfigError(f"--{name.replace('_', '-')} {value} must be at least 1")
    if not 0 < args.timeout < math.inf:
        raise ConfigError(f"--timeout {args.timeout} must be a positive number of seconds")
    parse_universe(args.config, "agent")
    if not args.base_url and args.model not in BASELINES:
        raise ConfigError(
            f"give --base-url for model {args.model!r}, or --model {' or '.join(BASELINES)} "
            "to run a baseline without weights"
        )
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; give a folder")


def _model(args: argparse.Namespace, tasks: list[Task]) -> Model:
    """The model a run asks: an endpoint's, or a baseline without weights (the oracle, the random walk)."""
    if args.base_url:
        return ChatClient(
            args.base_url,
            args.model,
            api_key=os.environ.get(args.api_key_env) or None,
            timeout=args.timeout,
            max_tokens=args.max_tokens,
            max_reply_bytes=args.max_reply_bytes,
        )
    return OracleModel(tasks) if args.model == "oracle" else RandomWalkModel(args.seed)


def main(argv: list[str]) -> int:
    """Run the command; user errors end in one line."""
    args = parser().parse_args(argv)
    try:
        _check(args)
        out = Path(args.out)
        settings, tasks, corpus, release = _source(args)
        model = _model(args, tasks)
        identity: dict[str, Any] = {
            "universe": universe_name(settings),
            "settings": asdict(settings),
            "model": args.model,
            "base_url": args.base_url,
        }
        if args.base_url:
            identity["max_tokens"] = args.max_tokens
        if release is not None:
            identity["release"] = release
        if args.model == "random-walk" and not args.base_url:
            identity["seed"] = args.seed

        def progress(done: int, total: int) -> None:
            if done == total or done % 50 == 0:
                print(f"... {done}/{total} questions", file=sys.stderr, flush=True)

        summary = run(
            model,
            corpus,
            tasks,
            out,
            args.mode,
            args.tools,
            args.max_steps,
            args.concurrency,
            progress,
            identity=identity,
            overwrite=args.overwrite,
        )
    except (ConfigError, EndpointError, RunError, ReleaseError, ReleaseRowsError) as error:
        print(f"phantom_wiki agent: {error}", file=sys.stderr)
        return 2
    print(table(summary))
    print(f"wrote {out / TRAJECTORIES} and {out / SCORES}")
    return 0


def _source(args: argparse.Namespace) -> tuple[Settings, list[Task], Corpus, dict[str, Any] | None]:
    """(settings, tasks, corpus, the release's record or None): generated, or read from --release as released."""
    passphrase = passphrase_from(args)
    if not args.release:
        given = [option for option in ("revision", "cache_dir") if getattr(args, option) is not None]
        if given or passphrase is not None:
            option = given[0].replace("_", "-") if given else "passphrase-file/--passphrase-env"
            raise ConfigError(f"--{option} is an option of --release; give --release DIR_OR_REPO too, or leave it out")
        generated = generate(settings_from(args.config)[0])
        return generated.settings, tasks_of(generated)[: args.limit], Corpus.from_generated(generated), None
    from leakproof_qa.builders.publishing.source import find_universe
    from leakproof_qa.dataset_loading import CacheDirError, release_caches

    try:
        cache_root, hub_cache = release_caches(args.cache_dir)
    except CacheDirError as error:
        raise ConfigError(f"--cache-dir: {error}") from None
    release = find_universe(
        args.release,
        format_name(*parse_universe(args.config, "agent")),
        needs=("questions", "corpus"),
        passphrase=passphrase,
        cache_root=cache_root,
        hub_cache=hub_cache,
        revision=args.revision,
    )
    if release.encrypted and passphrase is None:
        raise ConfigError(
            f"{args.release} is encrypted: give its passphrase with --passphrase-env VAR or --passphrase-file FILE "
            "(the release's README.md says where to find it)"
        )
    if passphrase is not None and not release.encrypted:
        raise ConfigError(f"{args.release} is not encrypted, so it takes no passphrase; leave --passphrase-* out")
    corpus_rows = release.rows("corpus")
    tasks = tasks_of_rows(release.rows("questions")[: args.limit], corpus_rows)
    return release.settings, tasks, corpus_of(corpus_rows), release.record()
