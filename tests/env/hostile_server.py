"""A hostile OpenAI-style endpoint on 127.0.0.1 (port 0): each connection gets the next scripted reply, byte for byte.

A reply is raw bytes (a whole HTTP response, or a broken one), `Drip(data, every)` (one byte every `every` seconds),
`Silent()` (reads the request, never answers) or `Flood(size)` (a valid-looking reply of `size` bytes, sent as
fast as the client reads). The last reply repeats. Bounded: every connection is closed, and every wait ends, when
the `with` block ends. What it does not cover: TLS, HTTP/2, a real model.
"""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Drip:
    data: bytes
    every: float


@dataclass(frozen=True)
class Silent:
    pass


@dataclass(frozen=True)
class Flood:
    size: int


Reply = bytes | Drip | Silent | Flood


def response(body: bytes, status: str = "200 OK", headers: tuple[str, ...] = (), length: int | None = None) -> bytes:
    """An HTTP/1.1 response with `body`; `length` overrides Content-Length (larger than the body: a cut reply)."""
    head = [f"HTTP/1.1 {status}", "Content-Type: application/json", f"Content-Length: {length or len(body)}"]
    return ("\r\n".join([*head, *headers]) + "\r\n\r\n").encode() + body


def chat(message: Any = None, usage: Any = None, **fields: Any) -> bytes:
    """A chat-completion reply whose choices[0].message is `message` (an assistant's "Answer: x" by default)."""
    reply = {
        "id": "chat-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message or {"role": "assistant", "content": "Answer: x"}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5} if usage is None else usage,
        **fields,
    }
    return response(json.dumps(reply).encode())


class HostileServer:
    """`with HostileServer([reply, ...]) as server: ... server.base_url ... server.requests` (requests answered)."""

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = replies
        self.requests = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.1)
        host, port = self._sock.getsockname()[:2]
        self.base_url = f"http://{host}:{port}/v1"
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> HostileServer:
        thread = threading.Thread(target=self._accept, daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=10)
        self._sock.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._sock.accept()
            except TimeoutError:
                continue
            with self._lock:
                reply = self.replies[min(self.requests, len(self.replies) - 1)]
                self.requests += 1
            thread = threading.Thread(target=self._serve, args=(connection, reply), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _serve(self, connection: socket.socket, reply: Reply) -> None:
        with connection:
            try:
                self._read_request(connection)
                if isinstance(reply, bytes):
                    connection.sendall(reply)
                elif isinstance(reply, Drip):
                    for byte in reply.data:
                        if self._stop.wait(reply.every):
                            return
                        connection.sendall(bytes([byte]))
                elif isinstance(reply, Flood):
                    connection.sendall(response(b"", length=reply.size))
                    block = b"[" + b"0," * (1 << 15)
                    sent = 0
                    while sent < reply.size and not self._stop.is_set():
                        connection.sendall(block)
                        sent += len(block)
                else:
                    self._stop.wait()
            except OSError:  # the client hung up (as it should, at its deadline or its cap)
                return

    def _read_request(self, connection: socket.socket) -> None:
        connection.settimeout(10)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = connection.recv(65536)
            if not chunk:
                return
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = next(
            (int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")),
            0,
        )
        while len(body) < length:
            chunk = connection.recv(65536)
            if not chunk:
                return
            body += chunk
