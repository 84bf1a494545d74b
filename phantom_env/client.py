"""A client for OpenAI-compatible chat endpoints (vLLM, llama.cpp's server, OpenAI, ...): POST /chat/completions.

Every request is bounded: a total deadline from connecting to the last byte (`timeout`; a watchdog shuts the
socket when it passes, so a server that drips a byte at a time cannot hold it), and a cap on the reply's size
(`max_reply_bytes`). The reply is checked: the fields the runner reads must have the protocol's types, else one
line naming the field. Retried with exponential back-off (honouring Retry-After), `retries` times: HTTP 429 and 5xx
and, once the endpoint has answered at least once, a dropped connection, a body cut short, a malformed status line
or headers, or a passed deadline. Before its first answer such a failure is final at once: the endpoint is not
there or not an HTTP server, and waiting will not change that. Every failure is an EndpointError of one line.

The standard library's http.client, not httpx or the openai SDK: both time out per read, not per request (a server
sending a byte every 0.5 s held each past 25 s with a 2 s timeout), and neither checks types or caps size, so the
deadline, the cap and the checks would be ours either way; the deadline is simplest where we hold the socket.
The client connects directly (HTTP(S)_PROXY is not used).
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Sequence
from typing import Any

from leakproof_qa.builders.checks import is_number, is_whole

RETRYABLE = frozenset({429, 500, 502, 503, 504})
TIMEOUT = 300.0  # seconds a request may take in all, connect to last byte
MAX_REPLY_BYTES = 8 << 20  # a chat reply is a few kB; 8 MiB is room for long generations, not for a flood


class EndpointError(RuntimeError):
    """The endpoint cannot be used as configured (wrong URL, model or key, or it keeps failing); one line."""


class _Retryable(Exception):
    """A failure worth another try once the endpoint has shown it is there: the message says what happened."""


class ChatClient:
    """`complete(messages, tools=None, stop=None)` -> {"message": {...}, "usage": {...}} from one endpoint and model."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = TIMEOUT,
        retries: int = 5,
        backoff: float = 1.0,
        max_tokens: int = 1024,
        max_reply_bytes: int = MAX_REPLY_BYTES,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise EndpointError(f"--base-url {base_url!r} is not an http(s) URL; give e.g. http://127.0.0.1:8000/v1")
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            raise EndpointError(f"--base-url {base_url!r} has a bad port; give e.g. http://127.0.0.1:8000/v1") from None
        for name, value in (("timeout", timeout), ("max_reply_bytes", max_reply_bytes)):
            if not is_number(value) or not 0 < value < float("inf"):
                raise EndpointError(f"{name}={value!r} must be a positive number")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self._https, self._host, self._port = parts.scheme == "https", parts.hostname, port
        self._path = urllib.parse.urlsplit(self.url)._replace(scheme="", netloc="").geturl()
        self.model, self.api_key, self.timeout, self.max_reply_bytes = model, api_key, float(timeout), max_reply_bytes
        self.retries, self.backoff, self.max_tokens, self.sleep = retries, backoff, max_tokens, sleep
        self.answered = False  # whether the endpoint has sent a status line yet

    def complete(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] | None = None,
        stop: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """One chat completion: the assistant message (content and any tool_calls) and the usage the server reports."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": list(messages),
            "temperature": 0.0,
            "max_tokens": self.max_tokens,
        }
        if tools:
            body["tools"] = list(tools)
        if stop:
            body["stop"] = list(stop)
        return checked_reply(self._post(json.dumps(body).encode()), self.url)

    def _post(self, data: bytes) -> Any:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        for attempt in range(self.retries + 1):
            try:
                status, retry_after, body = self._exchange(data, headers)
            except _Retryable as failure:
                if not self.answered:
                    raise EndpointError(
                        f"{failure}; is the server running and is --base-url right (it ends in /v1)?"
                    ) from None
                if attempt == self.retries:
                    raise EndpointError(
                        f"{failure}, {attempt + 1} times; try again later or lower --concurrency"
                    ) from None
                self.sleep(self.backoff * 2**attempt)
                continue
            if 200 <= status < 300:
                return self._json(body)
            if status not in RETRYABLE or attempt == self.retries:
                raise EndpointError(_explain(status, self.url, self.model, _detail(body), attempt))
            self.sleep(_wait(retry_after, self.backoff * 2**attempt))
        raise AssertionError("the retry loop always returns or raises")

    def _connection(self) -> http.client.HTTPConnection:
        if self._https:
            return http.client.HTTPSConnection(
                self._host, self._port, timeout=self.timeout, context=ssl.create_default_context()
            )
        return http.client.HTTPConnection(self._host, self._port, timeout=self.timeout)

    def _exchange(self, data: bytes, headers: dict[str, str]) -> tuple[int, str | None, bytes]:
        """(status, Retry-After, body of at most max_reply_bytes) of one POST within the deadline."""
        connection = self._connection()
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            if connection.sock is not None:
                try:
                    connection.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        watchdog = threading.Timer(self.timeout, expire)
        watchdog.daemon = True
        watchdog.start()
        try:
            try:
                connection.request("POST", self._path, body=data, headers=headers)
                response = connection.getresponse()
                self.answered = True
                body = response.read(self.max_reply_bytes + 1)
            except (OSError, http.client.HTTPException) as error:
                if expired.is_set() or isinstance(error, TimeoutError):
                    raise _Retryable(f"{self.url} did not answer within {self.timeout:g} s (--timeout)") from None
                raise _Retryable(_failure(self.url, error)) from None
            if len(body) > self.max_reply_bytes:
                raise EndpointError(
                    f"{self.url} sent a reply over {self.max_reply_bytes:,} bytes (--max-reply-bytes); is it an "
                    "OpenAI-compatible chat endpoint, and is max_tokens what you meant?"
                )
            if expired.is_set():
                raise _Retryable(f"{self.url} did not answer within {self.timeout:g} s (--timeout)")
            if response.length:  # Content-Length promised more than arrived
                raise _Retryable(f"{self.url} cut its reply short ({len(body):,} bytes, {response.length:,} missing)")
            return response.status, response.getheader("Retry-After"), body
        finally:
            watchdog.cancel()
            connection.close()

    def _json(self, body: bytes) -> Any:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as error:
            raise EndpointError(
                f"{self.url} answered bytes that are not UTF-8 (at byte {error.start}); is it an OpenAI-compatible "
                "endpoint?"
            ) from None
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            raise EndpointError(f"{self.url} did not answer JSON; is it an OpenAI-compatible endpoint?") from None


def _failure(url: str, error: BaseException) -> str:
    """A failure of the transport in a few words."""
    if isinstance(error, http.client.IncompleteRead):
        return f"{url} cut its reply short"
    if isinstance(error, http.client.RemoteDisconnected):
        return f"{url} closed the connection without a reply"
    if isinstance(error, http.client.HTTPException):
        said = " ".join(str(error).split())[:80]
        return f"{url} sent no well-formed HTTP reply ({type(error).__name__}{': ' + said if said else ''})"
    reason = getattr(error, "strerror", None) or " ".join(str(error).split())[:120] or type(error).__name__
    return f"cannot reach {url}: {reason}"


def _wrong(url: str, field: str, value: Any, expected: str) -> EndpointError:
    return EndpointError(
        f"{url} answered with {field} as {type(value).__name__}, not {expected}; is it an OpenAI-compatible "
        "chat endpoint?"
    )


def _checked_content(content: Any, url: str) -> str | None:
    """A message's content as text: a string, None, or a list of text parts joined."""
    if isinstance(content, list):
        if not all(isinstance(part, dict) and isinstance(part.get("text", ""), str) for part in content):
            raise _wrong(url, "choices[0].message.content", content, "a string or a list of text parts")
        return "".join(part.get("text", "") for part in content)
    if content is not None and not isinstance(content, str):
        raise _wrong(url, "choices[0].message.content", content, "a string")
    return content


def _checked_call(call: Any, index: int, url: str) -> dict[str, Any]:
    """One tool call as {"id", "type", "function": {"name", "arguments" (a JSON string)}}."""
    where = f"choices[0].message.tool_calls[{index}]"
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        raise _wrong(url, f"{where}.function" if isinstance(call, dict) else where, function, "an object")
    name, arguments = function.get("name"), function.get("arguments")
    if not isinstance(name, str):
        raise _wrong(url, f"{where}.function.name", name, "a string")
    if isinstance(arguments, dict):
        arguments = json.dumps(arguments)
    elif arguments is None:
        arguments = "{}"
    elif not isinstance(arguments, str):
        raise _wrong(url, f"{where}.function.arguments", arguments, "a JSON string")
    identifier = call.get("id")
    return {
        "id": identifier if isinstance(identifier, str) else "",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def checked_reply(reply: Any, url: str) -> dict[str, Any]:
    """{"message": {"role", "content", "tool_calls"}, "usage"} of a chat-completion reply, with the protocol's types:
    content a string or None (a list of text parts is joined), tool_calls a list of {"id", "type", "function":
    {"name", "arguments" (a JSON string; an object is encoded)}}, usage an object of counts. Anything else is one
    line naming the field."""
    choices = reply.get("choices") if isinstance(reply, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise EndpointError(f"{url} answered without choices[0]; is it an OpenAI-compatible chat endpoint?")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise _wrong(url, "choices[0].message", message, "an object")
    calls = message.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        raise _wrong(url, "choices[0].message.tool_calls", calls, "a list")
    usage = reply.get("usage")
    if usage is not None and not isinstance(usage, dict):
        raise _wrong(url, "usage", usage, "an object")
    checked: dict[str, Any] = {"role": "assistant", "content": _checked_content(message.get("content"), url)}
    checked_calls = [_checked_call(call, index, url) for index, call in enumerate(calls or [])]
    if checked_calls:
        checked["tool_calls"] = checked_calls
    counts = {key: n for key, n in (usage or {}).items() if is_whole(n)}
    return {"message": checked, "usage": counts}


def _detail(body: bytes) -> str:
    """The error message an error reply carries, if it is JSON with one."""
    try:
        reply = json.loads(body.decode("utf-8") or "{}")
    except (UnicodeDecodeError, json.JSONDecodeError):
        return ""
    if not isinstance(reply, dict):
        return ""
    error = reply.get("error")
    message = error.get("message") if isinstance(error, dict) else error
    return " ".join(str(message or reply.get("detail") or "").split())[:300]


def _explain(code: int, url: str, model: str, detail: str, attempt: int) -> str:
    said = f" ({detail})" if detail else ""
    if code in (401, 403):
        return f"{url} refused the API key (HTTP {code}){said}; pass --api-key-env with the variable holding the key"
    if code == 404:
        return (
            f"{url} has no such endpoint or model {model!r} (HTTP 404){said}; check --base-url (it ends in /v1) "
            "and --model (the name the server lists at /v1/models)"
        )
    if code in RETRYABLE:
        return (
            f"{url} kept failing (HTTP {code} after {attempt + 1} tries){said}; try again later or lower --concurrency"
        )
    return f"{url} rejected the request (HTTP {code}){said}"


def _wait(retry_after: str | None, default: float) -> float:
    try:
        return min(60.0, max(0.0, float(retry_after))) if retry_after else default
    except ValueError:
        return default
