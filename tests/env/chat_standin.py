"""A bounded OpenAI-style chat server on 127.0.0.1 (port 0) that plays a scripted agent, for the runner's specs.

`POST /v1/chat/completions` answers with `agent.complete(messages, tools)` (a baseline from phantom_env, so the
script is an agent that follows each question's evidence), after failing the requests listed in `failures`
(request number -> HTTP status, e.g. {2: 500, 5: 429}); it serves at most `max_requests` and then answers 400,
and requires `Authorization: Bearer <key>` when a key is set. A request with `"stream": true` is answered as
server-sent events: one `chat.completion.chunk` holding the whole message as its delta (tool calls indexed) and the
usage, then `data: [DONE]`. What it does not cover: a real model, token-by-token streaming, tokenizers, and a real
provider's rate limits.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ChatStandIn:
    """`with ChatStandIn(agent, max_requests=100) as server: ... server.base_url ... server.requests`."""

    def __init__(
        self,
        agent: Any,
        max_requests: int,
        failures: dict[int, int] | None = None,
        key: str | None = None,
        model: str = "scripted",
    ) -> None:
        self.agent, self.max_requests, self.failures, self.key, self.model = (
            agent,
            max_requests,
            failures or {},
            key,
            model,
        )
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ChatStandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    def _answer(self, path: str, body: dict[str, Any], authorization: str | None) -> tuple[int, dict[str, Any]]:
        if path != "/v1/chat/completions":
            return 404, {"error": {"message": f"no route {path}"}}
        if self.key and authorization != f"Bearer {self.key}":
            return 401, {"error": {"message": "invalid api key"}}
        if body.get("model") != self.model:
            return 404, {"error": {"message": f"model {body.get('model')!r} does not exist"}}
        with self._lock:
            number = len(self.requests) + 1
            if number > self.max_requests:
                return 400, {"error": {"message": f"this test server answers {self.max_requests} requests only"}}
            self.requests.append(body)
        if number in self.failures:
            return self.failures[number], {"error": {"message": "try again"}}
        reply = self.agent.complete(body["messages"], body.get("tools"), body.get("stop"))
        usage = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
        return 200, {
            "id": f"chat-{number}",
            "object": "chat.completion",
            "model": self.model,
            "usage": usage,
            "choices": [{"index": 0, "message": reply["message"], "finish_reason": "stop"}],
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                status, payload = server._answer(self.path, body, self.headers.get("Authorization"))
                streamed = status == 200 and body.get("stream") is True
                data = _events(payload) if streamed else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/event-stream" if streamed else "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                return

        return Handler


def _events(completion: dict[str, Any]) -> bytes:
    """A chat completion as the server-sent events of a stream: one chunk with the whole message, then [DONE]."""
    (choice,) = completion["choices"]
    delta = dict(choice["message"])
    if delta.get("tool_calls"):
        delta["tool_calls"] = [{**call, "index": index} for index, call in enumerate(delta["tool_calls"])]
    finish = "tool_calls" if delta.get("tool_calls") else choice["finish_reason"]
    chunk = {
        **{key: value for key, value in completion.items() if key != "choices"},
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
