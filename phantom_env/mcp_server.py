"""`python -m phantom_wiki mcp CONFIG`: the paper's tools over one universe as a Model Context Protocol server.

Agent frameworks and desktop assistants that speak MCP reach the universe through the `mcp` SDK's server: the
variant's tools from the one table (tools.TOOLS; RetrieveArticle and Search, or with `--tools bm25` Search and
Lookup) with the observations `Episode.call` gives, byte for byte, plus two tools of this server: `Questions` (the
universe's questions, a page at a time) and `SubmitAnswer` (scores an answer to a question id as the runner does:
answer-set precision, recall, F1, exact match). Arguments that do not fit a tool's schema, and unknown tools, are an
error result (`isError`) whose text is one line naming what the tool takes. Stdio by default (one client per
process); `--port N` serves streamable HTTP on 127.0.0.1 only. The server keeps one Lookup cursor (the article the
last Search showed): give each agent of the BM25 variant a server of its own.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from leakproof_qa.builders.metrics import answer_scores
from leakproof_qa.builders.phantomwiki.config import ConfigError, parse_universe, settings_from
from leakproof_qa.builders.phantomwiki.rows import generate

from .runner import Task, tasks_of
from .tools import FINISH, INVALID, Corpus, Episode, ToolArgumentError, bind_arguments, function_schema, tools_of

PAGE = 100  # questions one Questions call lists at most


class Universe:
    """What the server holds: the universe's questions by id and one Episode of its tools."""

    def __init__(self, tasks: Sequence[Task], corpus: Corpus, variant: str = "atomic") -> None:
        self.tasks = list(tasks)
        self.by_id = {task.id: task for task in self.tasks}
        self.episode = Episode(corpus, variant)

    def questions(self, start: int = 0, count: int = 20) -> str:
        """One line per question, `id<TAB>question`, from position `start`."""
        if not 0 <= start <= len(self.tasks) or not 1 <= count <= PAGE:
            raise ToolArgumentError(
                f"Invalid arguments: start must be from 0 to {len(self.tasks)} and count from 1 to {PAGE}; "
                f"got start={start}, count={count}."
            )
        return "\n".join(f"{task.id}\t{task.question}" for task in self.tasks[start : start + count])

    def submit_answer(self, question_id: str, answer: list[str]) -> str:
        """The answer's scores against the question's gold answers, as JSON."""
        task = self.by_id.get(question_id)
        if task is None:
            raise ToolArgumentError(f"Invalid arguments: no question has the id {question_id!r}; see Questions.")
        answers = [part.strip() for part in ",".join(answer).split(",") if part.strip()]
        return json.dumps({"question_id": question_id, "answer": answers, **answer_scores(answers, task.gold)})


@dataclass(frozen=True)
class ServerTool:
    """A tool of this server besides the table's: name, description, argument help, and its Universe method."""

    name: str
    description: str
    helps: dict[str, str]
    method: Callable[..., str]


SERVER_TOOLS = (
    ServerTool(
        "Questions",
        f"List the universe's questions, one per line as 'id<TAB>question' ({PAGE} at most per call).",
        {"start": "The position of the first question (default 0).", "count": "How many (default 20)."},
        Universe.questions,
    ),
    ServerTool(
        "SubmitAnswer",
        "Score an answer to one question: answer-set precision, recall, F1 and exact match, as JSON.",
        {"question_id": "The question's id, from Questions.", "answer": 'The answers, e.g. ["Ann Lee", "Bo Li"].'},
        Universe.submit_answer,
    ),
)


def tool_schemas(variant: str) -> list[dict[str, Any]]:
    """Every tool the server lists, as OpenAI-format function schemas: the variant's (Finish aside) and its own."""
    table = [tool.schema() for tool in tools_of(variant) if tool.name != FINISH]
    return table + [function_schema(t.name, t.description, t.method, t.helps) for t in SERVER_TOOLS]


def call(universe: Universe, name: str, arguments: Any) -> tuple[str, bool]:
    """Run one tool call: (the text the client sees, whether it is an error)."""
    try:
        for extra in SERVER_TOOLS:
            if extra.name == name:
                return extra.method(universe, **bind_arguments(name, extra.method, arguments)), False
        tool = universe.episode.tools.get(name)
        if tool is None or tool.name == FINISH:
            names = [schema["function"]["name"] for schema in tool_schemas(universe.episode.variant)]
            return f"Unknown tool {name!r}; the tools are {', '.join(names)}.", True
        return tool.run(universe.episode, tool.argument_text(arguments)).text, False
    except ToolArgumentError as error:
        return str(error), True


def build_server(universe: Universe, name: str) -> Any:
    """The MCP server (the SDK's low-level Server) of a universe's tools."""
    import mcp_types as types
    from mcp.server import Server

    listed = [
        types.Tool(
            name=schema["function"]["name"],
            description=schema["function"]["description"],
            input_schema=schema["function"]["parameters"],
        )
        for schema in tool_schemas(universe.episode.variant)
    ]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        text, is_error = call(universe, params.name, params.arguments if params.arguments is not None else {})
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=is_error)

    return Server(
        f"phantom_wiki {name}",
        instructions="Answer questions about a fictional universe with the PhantomWiki paper's tools: list them "
        "with Questions, read articles with the tools, and score an answer with SubmitAnswer.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def parser() -> argparse.ArgumentParser:
    """The mcp command's arguments."""
    p = argparse.ArgumentParser(
        prog="python -m phantom_wiki mcp",
        description="Serve the paper's tools over one universe as an MCP server (stdio, or streamable HTTP on "
        "127.0.0.1): RetrieveArticle and Search (or Search and Lookup), Questions and SubmitAnswer.",
    )
    p.add_argument("config", help="the universe, e.g. n500_s1")
    p.add_argument("--tools", choices=tuple(INVALID), default="atomic", help="atomic (default) or bm25")
    p.add_argument("--port", type=int, help="serve streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio")
    return p


def main(argv: list[str]) -> int:
    """Run the server until the client leaves (stdio) or it is interrupted (HTTP); user errors are one line."""
    args = parser().parse_args(argv)
    try:
        parse_universe(args.config, "mcp")
        if args.port is not None and not 1 <= args.port <= 65535:
            raise ConfigError(f"--port {args.port} must be from 1 to 65535")
        try:
            import mcp  # noqa: F401
        except ImportError:
            raise ConfigError("the MCP server needs the mcp SDK: pip install 'leakproof-qa[mcp]'") from None
        generated = generate(settings_from(args.config)[0])
    except ConfigError as error:
        print(f"phantom_wiki mcp: {error}", file=sys.stderr)
        return 2
    universe = Universe(tasks_of(generated), Corpus.from_generated(generated), args.tools)
    server = build_server(universe, args.config)
    if args.port is None:
        _serve_stdio(server)
    else:
        import uvicorn

        print(f"phantom_wiki mcp: serving {args.config} at http://127.0.0.1:{args.port}/mcp", file=sys.stderr)
        uvicorn.run(server.streamable_http_app(host="127.0.0.1"), host="127.0.0.1", port=args.port, log_level="warning")
    return 0


def _serve_stdio(server: Any) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)
