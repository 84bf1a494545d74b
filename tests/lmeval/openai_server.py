"""A small, bounded OpenAI-style server on 127.0.0.1 (port 0), for lm_eval's `local-completions` and
`local-chat-completions`.

It answers `POST /v1/completions` (`prompt`: a string or a list) and `POST /v1/chat/completions`
(`messages`: the prompt is the last message's content) with `answer(prompt)`, serves at most
`max_requests` prompts (then HTTP 429), and stops when its `with` block ends. A log-probability request
(`echo` with `logprobs`, what multiple-choice tasks send: token ids when lm_eval has a tokenizer) is answered with
log-probability 0 for every token, so every option ties; the prompts are kept as sent. What it does not cover:
a real model or tokenizer, streaming, tool calls, authentication, rate limits and retries of a real provider.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class CompletionServer:
    """`with CompletionServer(answer, max_requests=10) as server: ... server.url ... server.prompts`."""

    def __init__(self, answer: Callable[[str], str], max_requests: int) -> None:
        self.answer, self.max_requests = answer, max_requests
        self.prompts: list[str] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The completions endpoint, e.g. http://127.0.0.1:40123/v1/completions (chat: .../v1/chat/completions)."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1/completions"

    @property
    def chat_url(self) -> str:
        """The chat completions endpoint."""
        return self.url.replace("/v1/completions", "/v1/chat/completions")

    def __enter__(self) -> CompletionServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    def _complete(self, body: dict[str, Any], chat: bool) -> tuple[int, dict[str, Any]]:
        prompts = [body["messages"][-1]["content"]] if chat else body.get("prompt")
        prompts = [prompts] if isinstance(prompts, str) else list(prompts or [])
        with self._lock:
            if len(self.prompts) + len(prompts) > self.max_requests:
                return 429, {"error": {"message": f"this test server answers {self.max_requests} prompts only"}}
            self.prompts.extend(prompts)
        if chat:
            choices = [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": self.answer(prompts[0])},
                    "finish_reason": "stop",
                }
            ]
            return 200, {"id": "chat-test", "object": "chat.completion", "model": body.get("model"), "choices": choices}
        if body.get("echo") and body.get("logprobs"):
            choices = [{"index": i, "text": "", "logprobs": _zero_logprobs(p)} for i, p in enumerate(prompts)]
            return 200, {"id": "cmpl-test", "object": "text_completion", "model": body.get("model"), "choices": choices}
        choices = [
            {"index": i, "text": self.answer(p), "finish_reason": "stop", "logprobs": None}
            for i, p in enumerate(prompts)
        ]
        return 200, {"id": "cmpl-test", "object": "text_completion", "model": body.get("model"), "choices": choices}

    @property
    def scored(self) -> list[Any]:
        """The log-probability prompts received (token id lists when lm_eval tokenized them)."""
        return [p for p in self.prompts if not isinstance(p, str)]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                route = self.path.rstrip("/")
                if route not in ("/v1/completions", "/v1/chat/completions"):
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                self._send(*server._complete(body, chat=route.endswith("chat/completions")))

            def do_GET(self) -> None:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        return Handler


def _zero_logprobs(prompt: str | list[int]) -> dict[str, Any]:
    """OpenAI's echo log-probs for a prompt and one generated token: 0 for each (the first token has none)."""
    tokens = len(prompt) if isinstance(prompt, list) else len(prompt.split())
    values: list[float | None] = [None] + [0.0] * tokens
    return {"token_logprobs": values, "top_logprobs": [None] + [{"x": 0.0}] * tokens}
