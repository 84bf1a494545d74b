"""The commands `python -m phantom_wiki` hands to the faces above the engines: the agent environment, its MCP server,
and the lm-evaluation-harness task folder; each is imported only when its command runs, and parses its own arguments."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def agent(arguments: list[str]) -> int:
    """`python -m phantom_wiki agent ...`: the agent environment's command line (phantom_env)."""
    from leakproof_qa.phantom_env.cli import main

    return main(arguments)


def mcp(arguments: list[str]) -> int:
    """`python -m phantom_wiki mcp ...`: the agent tools as an MCP server (phantom_env.mcp_server)."""
    from leakproof_qa.phantom_env.mcp_server import main

    return main(arguments)


def tasks_path(arguments: list[str]) -> int:
    """`python -m phantom_wiki tasks-path`: where the lm-evaluation-harness tasks are, for --include_path."""
    from leakproof_qa.leakproof_eval import tasks_path as folder

    argparse.ArgumentParser(
        prog="python -m phantom_wiki tasks-path",
        description="Print the folder of this package's lm-evaluation-harness tasks, for lm_eval --include_path.",
    ).parse_args(arguments)
    print(folder())
    return 0


FACES: dict[str, Callable[[list[str]], int]] = {"agent": agent, "mcp": mcp, "tasks-path": tasks_path}
