"""A small client for OpenAI-compatible chat endpoints (vLLM, llama.cpp's server, OpenAI, ...): POST /chat/completions.

Retries with exponential back-off (honouring Retry-After) on HTTP 429 and 5xx and on dropped connections, a
bounded number of times; every other failure is an EndpointError whose message is one line saying what to fix.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any

RETRYABLE = frozenset({429, 500, 502, 503, 504})


class EndpointError(RuntimeError):
    """The endpoint cannot be used as configured (wrong URL, model or key, or it keeps failing); one line."""


class ChatClient:
    """`complete(messages, tools=None, stop=None)` -> {"message": {...}, "usage": {...}} from one endpoint and model."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 120.0,
        retries: int = 5,
        backoff: float = 1.0,
        max_tokens: int = 1024,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise EndpointError(f"--base-url {base_url!r} is not an http(s) URL; give e.g. http://127.0.0.1:8000/v1")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.api_key, self.timeout = model, api_key, timeout
        self.retries, self.backoff, self.max_tokens, self.sleep = retries, backoff, max_tokens, sleep

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
        reply = self._post(body)
        try:
            message = reply["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            raise EndpointError(
                f"{self.url} answered without choices[0].message; is it an OpenAI-compatible chat endpoint?"
            ) from None
        return {"message": message, "usage": reply.get("usage") or {}}

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read())
            except urllib.error.HTTPError as error:
                detail = _detail(error)
                if error.code not in RETRYABLE or attempt == self.retries:
                    raise EndpointError(_explain(error.code, self.url, self.model, detail, attempt)) from None
                self.sleep(_wait(error.headers.get("Retry-After"), self.backoff * 2**attempt))
            except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
                reason = getattr(error, "reason", error)
                if attempt == self.retries:
                    raise EndpointError(
                        f"cannot reach {self.url}: {reason}; is the server running and is --base-url "
                        "right (it ends in /v1)?"
                    ) from None
                self.sleep(self.backoff * 2**attempt)
            except json.JSONDecodeError:
                raise EndpointError(f"{self.url} did not answer JSON; is it an OpenAI-compatible endpoint?") from None
        raise AssertionError("the retry loop always returns or raises")


def _detail(error: urllib.error.HTTPError) -> str:
    try:
        body = json.loads(error.read() or b"{}")
        message = body.get("error", {}).get("message") if isinstance(body.get("error"), dict) else body.get("error")
        return " ".join(str(message or body.get("detail") or "").split())[:300]
    except (json.JSONDecodeError, AttributeError, OSError):
        return ""


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
