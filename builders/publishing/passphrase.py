"""A release's passphrase on the command line: from a file or an environment variable, never from the line itself
(shell history and `ps` show it). Used by `publish --encrypt` and by `agent --release`."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..phantomwiki.config import ConfigError


def add_passphrase_options(parser: argparse.ArgumentParser) -> None:
    """--passphrase-file FILE and --passphrase-env VAR (and a hidden --passphrase, refused in one line)."""
    parser.add_argument("--passphrase-file", help="file holding the passphrase (its first line)")
    parser.add_argument("--passphrase-env", metavar="VAR", help="environment variable holding the passphrase")
    parser.add_argument("--passphrase", help=argparse.SUPPRESS)  # refused with a one-line error: never on the line


def passphrase_from(args: argparse.Namespace) -> str | None:
    """The passphrase from --passphrase-file or --passphrase-env (None if neither); a one-line ConfigError if it is
    given on the command line, twice, or cannot be read."""
    if args.passphrase is not None:
        raise ConfigError(
            "never give a passphrase on the command line (shell history and `ps` show it); "
            "use --passphrase-file FILE or --passphrase-env VAR"
        )
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
