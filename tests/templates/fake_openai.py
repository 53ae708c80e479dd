"""A fake OpenAI-compatible streaming server on 127.0.0.1 for the load-generator tests.

``POST /v1/chat/completions`` and ``POST /v1/completions`` answer with Server-Sent
Events the way vLLM does: a role chunk at once, then ``ttft_s`` later the first
content chunk, then one chunk every ``chunk_interval_s`` carrying
``tokens_per_chunk`` tokens, a finish chunk, a usage chunk when the request sets
``stream_options.include_usage`` (and ``send_usage`` is on), then ``data: [DONE]``.
With ``stream_options.continuous_usage_stats`` every chunk also carries cumulative
usage. The server records every request (arrival time, path, body, headers) and
the peak number of requests in flight, counted from arrival until just before the
final ``[DONE]`` is written, so that a client cannot see the end of one response
before the server has stopped counting it.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Behaviour:
    ttft_s: float = 0.2
    chunk_interval_s: float = 0.02
    tokens: int = 20  # per response; max_tokens lowers it when honour_max_tokens
    tokens_per_chunk: int = 1
    honour_max_tokens: bool = True
    send_usage: bool = True  # honour stream_options.include_usage
    fail_every: int = 0  # every n-th request (1-based) gets HTTP 500
    hang_every: int = 0  # every n-th request stalls after its role chunk
    drop_every: int = 0  # every n-th request: the connection closes with no response


@dataclass(frozen=True)
class Arrival:
    at: float  # time.monotonic() when the request body was read
    path: str
    body: dict[str, Any]
    headers: dict[str, str]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        n = owner.record(
            self.path, body if isinstance(body, dict) else {}, dict(self.headers.items())
        )
        self._left = False
        try:
            self._dispatch(n, body if isinstance(body, dict) else {})
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        finally:
            self._leave()

    def _leave(self) -> None:
        if not self._left:
            self._left = True
            self.server.owner.leave()

    def _json(self, code: int, obj: dict[str, Any]) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")

    def _event(self, obj: dict[str, Any]) -> None:
        self._chunk(b"data: " + json.dumps(obj).encode() + b"\n\n")

    def _dispatch(self, n: int, body: dict[str, Any]) -> None:
        owner = self.server.owner
        b = owner.behaviour
        path = self.path.split("?", 1)[0]
        if path not in ("/v1/chat/completions", "/v1/completions"):
            self._json(404, {"error": {"message": f"no route {path}"}})
            return
        if b.drop_every and n % b.drop_every == 0:
            # as a keep-alive connection closed by the server under a client that reuses it
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if b.fail_every and n % b.fail_every == 0:
            self._json(500, {"error": {"message": "injected failure"}})
            return
        chat = path == "/v1/chat/completions"
        opts = body.get("stream_options") or {}
        usage_on = b.send_usage and bool(opts.get("include_usage"))
        per_chunk = usage_on and bool(opts.get("continuous_usage_stats"))
        tokens = b.tokens
        if b.honour_max_tokens and isinstance(body.get("max_tokens"), int):
            tokens = min(tokens, body["max_tokens"])
        if chat:
            msgs = body.get("messages") or [{}]
            prompt_text = str(msgs[-1].get("content", ""))
        else:
            prompt_text = str(body.get("prompt", ""))
        prompt_tokens = len(prompt_text.split())

        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def usage(done: int) -> dict[str, int]:
            return {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": done,
                "total_tokens": prompt_tokens + done,
            }

        def event(
            text: str | None, done: int, finish: str | None = None, role: bool = False
        ) -> None:
            if chat:
                delta: dict[str, Any] = {"role": "assistant"} if role else {}
                if text is not None:
                    delta["content"] = text
                choice: dict[str, Any] = {"index": 0, "delta": delta}
                obj: dict[str, Any] = {
                    "id": f"chatcmpl-{n}",
                    "object": "chat.completion.chunk",
                    "model": body.get("model", ""),
                    "choices": [choice],
                }
            else:
                choice = {"index": 0, "text": text or ""}
                obj = {
                    "id": f"cmpl-{n}",
                    "object": "text_completion",
                    "model": body.get("model", ""),
                    "choices": [choice],
                }
            choice["finish_reason"] = finish
            if per_chunk:
                obj["usage"] = usage(done)
            self._event(obj)

        if chat:
            event("", 0, role=True)  # empty content: must not count as the first token
        if b.hang_every and n % b.hang_every == 0:
            owner.stopping.wait(30)
            self.close_connection = True
            return
        time.sleep(b.ttft_s)
        done = 0
        while done < tokens:
            if done:
                time.sleep(b.chunk_interval_s)
            k = min(b.tokens_per_chunk, tokens - done)
            done += k
            event("".join(f" w{done - k + i}" for i in range(k)), done)
        event(None if chat else "", done, finish="length")
        if usage_on:
            self._event(
                {
                    "id": f"x-{n}",
                    "object": "chat.completion.chunk" if chat else "text_completion",
                    "choices": [],
                    "usage": usage(done),
                }
            )
        self._leave()
        self._chunk(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FakeOpenAI


class FakeOpenAI:
    """Start with ``start()``; ``base_url`` is the server root; ``stop()`` when done."""

    def __init__(self, behaviour: Behaviour | None = None) -> None:
        self.behaviour = behaviour or Behaviour()
        self.arrivals: list[Arrival] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def record(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> int:
        with self._lock:
            self.arrivals.append(Arrival(time.monotonic(), path, body, headers))
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return len(self.arrivals)

    def leave(self) -> None:
        with self._lock:
            self.in_flight -= 1
