"""`python -m phantom_wiki mcp CONFIG` spoken to by the mcp SDK's own client: over stdio (and streamable HTTP on
127.0.0.1), the tools are listed from the one table, each gives the observation `Episode.call` gives, bad arguments
are an error result of one line, and a session answers a question end to end."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from leakproof_qa.builders.phantomwiki.config import settings_from
from leakproof_qa.builders.phantomwiki.rows import generate
from leakproof_qa.phantom_env.mcp_server import tool_schemas
from leakproof_qa.phantom_env.runner import tasks_of
from leakproof_qa.phantom_env.tools import Corpus, Episode

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
CONFIG = "n50_s1"


def stdio(*arguments: str) -> Any:
    command = [sys.executable, "-m", "phantom_wiki", "mcp", CONFIG, *arguments]
    environment = {"PYTHONPATH": os.environ.get("PYTHONPATH", str(REPO))}
    return stdio_client(StdioServerParameters(command=command[0], args=command[1:], env=environment, cwd=REPO))


async def texts(client: Client, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    result = await client.call_tool(name, arguments)
    (content,) = result.content
    return content.text, result.is_error


def test_over_stdio_the_tools_are_the_tables_and_observe_what_episodes_observe():
    generated = generate(settings_from(CONFIG)[0])
    tasks = tasks_of(generated)
    local = Episode(Corpus.from_generated(generated))
    person = generated.articles[3].title
    hobby = next(line for line in generated.articles[3].article.splitlines() if "hobby" in line).split(" is ")[-1]

    async def session() -> dict[str, Any]:
        async with Client(stdio()) as client:
            listed = (await client.list_tools()).tools
            seen = {
                "names": [tool.name for tool in listed],
                "schemas": [tool.input_schema for tool in listed],
                "retrieve": await texts(client, "RetrieveArticle", {"entity": person}),
                "missing": await texts(client, "RetrieveArticle", {"entity": "Nobody Atall"}),
                "search": await texts(client, "Search", {"attribute": hobby.rstrip(".")}),
                "questions": await texts(client, "Questions", {"start": 0, "count": 3}),
                "wrong key": await texts(client, "Search", {"query": "x"}),
                "wrong type": await texts(client, "Questions", {"count": "3"}),
                "unknown": await texts(client, "Finish", {"answer": ["x"]}),
                "no such id": await texts(client, "SubmitAnswer", {"question_id": "nope", "answer": []}),
                "too many": await texts(client, "Questions", {"count": 1000}),
            }
            return seen

    seen = asyncio.run(session())
    assert seen["names"] == ["RetrieveArticle", "Search", "Questions", "SubmitAnswer"]
    assert seen["schemas"] == [schema["function"]["parameters"] for schema in tool_schemas("atomic")]
    assert seen["retrieve"] == (local.call("RetrieveArticle", person.lower()).text, False)
    assert seen["missing"] == (local.call("RetrieveArticle", "nobody atall").text, False)
    assert seen["search"] == (local.call("Search", hobby.rstrip(".").lower()).text, False)
    assert seen["questions"] == ("\n".join(f"{t.id}\t{t.question}" for t in tasks[:3]), False)
    for case, message in [
        ("wrong key", 'Invalid arguments: Search takes {"attribute": <a string>}; got "query".'),
        ("wrong type", '"count" is a string.'),
        ("unknown", "Unknown tool 'Finish'; the tools are RetrieveArticle, Search, Questions, SubmitAnswer."),
        ("no such id", "no question has the id 'nope'; see Questions."),
        ("too many", "count from 1 to 100; got start=0, count=1000."),
    ]:
        text, is_error = seen[case]
        assert is_error and text.endswith(message) and "\n" not in text, case


def test_a_session_answers_a_question_end_to_end_and_is_scored():
    tasks = tasks_of(generate(settings_from(CONFIG)[0]))
    task = next(t for t in tasks if t.start_value is None and len(t.required) >= 2)

    async def session() -> tuple[list[str], dict[str, Any], dict[str, Any]]:
        async with Client(stdio()) as client:
            listing, _ = await texts(client, "Questions", {"start": tasks.index(task), "count": 1})
            question_id, question = listing.split("\t")
            assert question == task.question
            read = [(await texts(client, "RetrieveArticle", {"entity": title}))[0] for title in task.required]
            right, _ = await texts(client, "SubmitAnswer", {"question_id": question_id, "answer": task.gold})
            wrong, _ = await texts(client, "SubmitAnswer", {"question_id": question_id, "answer": ["Nobody Atall"]})
            return read, json.loads(right), json.loads(wrong)

    read, right, wrong = asyncio.run(session())
    assert all(text.startswith(f"# {title}") for text, title in zip(read, task.required))
    assert right["f1"] == right["exact_match"] == 1.0 and wrong["f1"] == 0.0


def test_the_bm25_variant_lists_search_and_lookup_and_keeps_the_lookup_cursor():
    generated = generate(settings_from(CONFIG)[0])
    local = Episode(Corpus.from_generated(generated), "bm25")
    person = generated.articles[0].title

    async def session() -> list[Any]:
        async with Client(stdio("--tools", "bm25")) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            search = await texts(client, "Search", {"entity": person})
            lookups = [await texts(client, "Lookup", {"keyword": "hobby"}) for _ in range(2)]
            return [names, search, lookups]

    names, search, lookups = asyncio.run(session())
    assert names == ["Search", "Lookup", "Questions", "SubmitAnswer"]
    assert search == (local.call("Search", person.lower()).text, False)
    assert lookups == [(local.call("Lookup", "hobby").text, False), (local.call("Lookup", "hobby").text, False)]


def test_streamable_http_on_127_0_0_1_serves_the_same_tools():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "phantom_wiki", "mcp", CONFIG, "--port", str(port)],
        cwd=REPO,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as attempt:
                if attempt.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            time.sleep(0.1)

        async def session() -> tuple[list[str], tuple[str, bool]]:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                names = [tool.name for tool in (await client.list_tools()).tools]
                return names, await texts(client, "Search", {"query": "x"})

        names, (text, is_error) = asyncio.run(session())
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert names == ["RetrieveArticle", "Search", "Questions", "SubmitAnswer"] and is_error and "attribute" in text


def test_bad_command_lines_are_one_line():
    for arguments, message in [
        (["n50_s1_corpus"], "mcp works on a whole universe: give 'n50_s1'"),
        (["n50_s1", "--port", "70000"], "--port 70000 must be from 1 to 65535"),
        (["n50_x1"], "phantom_wiki mcp: "),
    ]:
        done = subprocess.run(
            [sys.executable, "-m", "phantom_wiki", "mcp", *arguments], cwd=REPO, capture_output=True, text=True
        )
        assert done.returncode == 2 and message in done.stderr and done.stderr.count("\n") == 1, done.stderr
