"""The chat client against a hostile endpoint on 127.0.0.1: what it reads is checked, bounded in size and in time."""

from __future__ import annotations

import socket
import time
import tracemalloc

import pytest

from leakproof_qa.phantom_env.client import ChatClient, EndpointError
from tests.env.hostile_server import Drip, Flood, HostileServer, Silent, chat, response

pytestmark = pytest.mark.integration

QUESTION = [{"role": "user", "content": "Question: who?"}]
CALL = {"id": "c1", "type": "function", "function": {"name": "RetrieveArticle", "arguments": '{"entity": "Ann"}'}}


def client(server: HostileServer, **options) -> ChatClient:
    return ChatClient(server.base_url, "m", **{"backoff": 0.0, "retries": 2, **options})


def one_line(error: pytest.ExceptionInfo) -> str:
    text = str(error.value)
    assert "\n" not in text and len(text) < 400
    return text


@pytest.mark.parametrize(
    "reply, field",
    [
        (chat(message="a string"), "choices[0].message as str"),
        (chat(usage="many"), "usage as str"),
        (chat(message={"role": "assistant", "content": 5}), "choices[0].message.content as int"),
        (chat(message={"role": "assistant", "content": [{"type": "text", "text": 5}]}), "message.content as list"),
        (chat(message={"role": "assistant", "tool_calls": "RetrieveArticle"}), "message.tool_calls as str"),
        (chat(message={"role": "assistant", "tool_calls": [{"function": None}]}), "tool_calls[0].function as None"),
        (chat(message={"role": "assistant", "tool_calls": ["x"]}), "tool_calls[0] as NoneType"),
        (
            chat(message={"role": "assistant", "tool_calls": [{**CALL, "function": {"name": "X", "arguments": 5}}]}),
            "tool_calls[0].function.arguments as int",
        ),
        (
            chat(message={"role": "assistant", "tool_calls": [{**CALL, "function": {"name": 5}}]}),
            "tool_calls[0].function.name as int",
        ),
        (chat(choices=[]), "without choices[0]"),
        (response(b"[1, 2]"), "without choices[0]"),
    ],
)
def test_a_reply_field_of_the_wrong_type_is_one_line_naming_the_field(reply, field):
    with HostileServer([reply]) as server:
        with pytest.raises(EndpointError) as error:
            client(server).complete(QUESTION)
    said = one_line(error)
    assert server.base_url in said and field in said.replace("'", ""), said


def test_what_the_protocol_allows_is_read_content_parts_object_arguments_and_no_usage():
    parts = {"role": "assistant", "content": [{"type": "text", "text": "Answer: "}, {"type": "text", "text": "Ann"}]}
    call = {**CALL, "function": {"name": "F", "arguments": {"a": [1]}}}
    as_object = {"role": "assistant", "content": None, "tool_calls": [call]}
    with HostileServer([chat(message=parts), chat(message=as_object, usage={"total_tokens": "7", "n": 2})]) as server:
        first, second = client(server).complete(QUESTION), client(server).complete(QUESTION)
    assert first["message"] == {"role": "assistant", "content": "Answer: Ann"} and first["usage"]["total_tokens"] == 5
    assert second["message"]["tool_calls"][0]["function"] == {"name": "F", "arguments": '{"a": [1]}'}
    assert second["usage"] == {"n": 2}  # counts that are not whole numbers are left out, not trusted


BROKEN = {
    "a body cut short": response(b'{"choices": [', length=4000),
    "a 70 KB header": response(b"{}", headers=("X-Big: " + "a" * 70_000,)),
    "150 headers": response(b"{}", headers=tuple(f"X-{i}: {i}" for i in range(150))),
    "a bad status line": b"HTTP/9 nonsense\r\n\r\n",
    "a server that hangs up": b"",
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_reply_mid_run_is_retried(case):
    with HostileServer([chat(), BROKEN[case], BROKEN[case], chat()]) as server:
        endpoint = client(server)
        endpoint.complete(QUESTION)  # the endpoint is there
        assert endpoint.complete(QUESTION)["message"]["content"] == "Answer: x"
        assert server.requests == 4


@pytest.mark.parametrize("case", sorted(set(BROKEN) - {"a body cut short"}))  # that one has answered: retried
def test_a_broken_first_reply_is_said_at_once_in_one_line(case):
    slept: list[float] = []
    with HostileServer([BROKEN[case]]) as server:
        with pytest.raises(EndpointError) as error:
            client(server, retries=5, sleep=slept.append).complete(QUESTION)
        assert server.requests == 1 and slept == []
    assert server.base_url in one_line(error)


def test_an_endpoint_that_keeps_breaking_ends_after_its_retries_in_one_line():
    with HostileServer([chat(), BROKEN["a body cut short"]]) as server:
        endpoint = client(server, retries=3)
        endpoint.complete(QUESTION)
        with pytest.raises(EndpointError) as error:
            endpoint.complete(QUESTION)
        assert server.requests == 1 + 4
    assert "cut its reply short" in one_line(error) and "4 times" in str(error.value)


def test_an_unreachable_endpoint_is_said_at_once_without_retries():
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]  # nothing listens here once the socket closes
    slept: list[float] = []
    began = time.monotonic()
    with pytest.raises(EndpointError) as error:
        ChatClient(f"http://127.0.0.1:{port}/v1", "m", sleep=slept.append).complete(QUESTION)
    assert time.monotonic() - began < 2 and slept == []
    assert f"cannot reach http://127.0.0.1:{port}/v1/chat/completions" in one_line(error)


def test_bytes_that_are_not_utf8_name_the_endpoint():
    with HostileServer([response(b'{"choices": "\xff\xfe"}')]) as server:
        with pytest.raises(EndpointError) as error:
            client(server).complete(QUESTION)
    assert f"{server.base_url}/chat/completions answered bytes that are not UTF-8 (at byte 13)" in one_line(error)


def test_a_100_mb_reply_is_refused_at_the_cap_in_bounded_memory_and_time():
    with HostileServer([Flood(100 << 20)]) as server:
        tracemalloc.start()
        began = time.monotonic()
        with pytest.raises(EndpointError) as error:
            client(server, max_reply_bytes=2 << 20).complete(QUESTION)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert time.monotonic() - began < 5 and peak < 10 << 20, (time.monotonic() - began, peak)
    assert "sent a reply over 2,097,152 bytes (--max-reply-bytes)" in one_line(error)


@pytest.mark.parametrize("hostile", [Drip(chat(), every=0.3), Silent()], ids=["slow drip", "never answers"])
def test_a_slow_or_silent_endpoint_ends_within_the_deadline(hostile):
    with HostileServer([hostile]) as server:
        began = time.monotonic()
        with pytest.raises(EndpointError) as error:
            client(server, timeout=1.5).complete(QUESTION)
        took = time.monotonic() - began
    assert 1.4 < took < 3, took
    assert "did not answer within 1.5 s (--timeout)" in one_line(error)


def test_a_slow_drip_mid_run_is_retried_each_try_within_the_deadline():
    with HostileServer([chat(), Drip(chat(), every=0.3), chat()]) as server:
        endpoint = client(server, timeout=1.0)
        endpoint.complete(QUESTION)
        began = time.monotonic()
        assert endpoint.complete(QUESTION)["message"]["content"] == "Answer: x"
        assert time.monotonic() - began < 2.5 and server.requests == 3


def test_a_run_whose_endpoint_turns_hostile_stops_in_one_line_keeping_what_it_saved(tmp_path):
    from leakproof_qa.builders.phantomwiki.config import settings_from
    from leakproof_qa.builders.phantomwiki.rows import generate
    from leakproof_qa.phantom_env.runner import TRAJECTORIES, read_trajectories, run, tasks_of
    from leakproof_qa.phantom_env.tools import Corpus

    generated = generate(settings_from("n50_s1")[0])
    tasks = tasks_of(generated)[:5]
    with HostileServer([chat(), chat(), chat(message={"role": "assistant", "content": 7})]) as server:
        with pytest.raises(EndpointError) as error:
            run(client(server), Corpus.from_generated(generated), tasks, tmp_path, mode="tools")
        assert server.requests == 3  # the third question's reply was refused; no fourth question was asked
    assert "choices[0].message.content as int" in one_line(error)
    assert list(read_trajectories(tmp_path / TRAJECTORIES)) == [t.id for t in tasks[:2]]
