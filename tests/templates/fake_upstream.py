"""A fake OpenAI-compatible engine on 127.0.0.1 for the gateway template's tests.

It records every request by its X-Request-Id (path, headers, JSON body) and, for streams,
when the first event went out and when it saw the client go away. The request's ``model``
chooses the behaviour:

    "stream/<n>/<gap>/<first>"   SSE: <n> chunks <gap> s apart, the first after <first> s,
                                 then ``data: [DONE]``; stops as soon as the client leaves
    "json/<delay>"               a chat.completion JSON body after <delay> s
    "status/<code>"              that status with an OpenAI-style error body
    "drop-once/<behaviour>"      the first time a request id arrives, the connection closes
                                 with no response (as a keep-alive connection the engine closed);
                                 the second time, <behaviour>

Disconnects are seen by polling the socket for EOF between events, not by a failed write,
so they show up within one poll interval of the client closing the connection.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

POLL_S = 0.02


def sse_chunk(i: int) -> bytes:
    event = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": f"tok{i} "}}],
    }
    return b"data: " + json.dumps(event).encode() + b"\n\n"


def sse_body(n: int) -> bytes:
    """Exactly the bytes a complete stream of n chunks sends."""
    return b"".join(sse_chunk(i) for i in range(n)) + b"data: [DONE]\n\n"


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    started: float
    first_event_at: float | None = None
    disconnected_at: float | None = None
    finished: bool = False
    events: int = 0
    done: threading.Event = field(default_factory=threading.Event)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length", "0")))
        body = json.loads(raw or b"{}")
        seen = Seen(
            self.path, {k.lower(): v for k, v in self.headers.items()}, body, time.monotonic()
        )
        rid = self.headers.get("x-request-id") or f"anon-{id(seen)}"
        owner = self.server.owner
        owner.arrivals[rid] = owner.arrivals.get(rid, 0) + 1
        kind, *args = str(body.get("model", "json/0")).split("/")
        if kind == "drop-once":
            if owner.arrivals[rid] == 1:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            kind, *args = args
        owner.seen[rid] = seen
        try:
            if kind == "stream":
                self._stream(seen, int(args[0]), float(args[1]), float(args[2]))
            elif kind == "status":
                self._json(
                    int(args[0]), {"error": {"message": "fake failure", "code": int(args[0])}}
                )
            else:
                if self._wait_or_gone(seen, float(args[0]) if args else 0.0):
                    return
                self._json(
                    200,
                    {
                        "id": "chatcmpl-fake",
                        "object": "chat.completion",
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": "hello"},
                            }
                        ],
                    },
                )
                seen.finished = True
        finally:
            seen.done.set()

    def _json(self, code: int, obj: dict[str, Any]) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _peer_gone(self, timeout: float) -> bool:
        readable, _, _ = select.select([self.connection], [], [], timeout)
        if not readable:
            return False
        try:
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def _wait_or_gone(self, seen: Seen, seconds: float) -> bool:
        """Sleep ``seconds`` while watching the socket; True if the client went away."""
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if self._peer_gone(max(0.0, min(POLL_S, left))):
                seen.disconnected_at = time.monotonic()
                self.close_connection = True
                return True
            if left <= 0:
                return False

    def _stream(self, seen: Seen, n: int, gap: float, first: float) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")  # body ends when the connection closes
        self.end_headers()
        self.wfile.flush()
        for i in range(n):
            if self._wait_or_gone(seen, first if i == 0 else gap):
                return
            try:
                self.wfile.write(sse_chunk(i))
                self.wfile.flush()
            except OSError:
                seen.disconnected_at = time.monotonic()
                return
            seen.events += 1
            if seen.first_event_at is None:
                seen.first_event_at = time.monotonic()
        self.wfile.write(b"data: [DONE]\n\n")
        seen.finished = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FakeUpstream


class FakeUpstream:
    def __init__(self) -> None:
        self.seen: dict[str, Seen] = {}
        self.arrivals: dict[str, int] = {}  # request id -> times it arrived
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def start(self) -> FakeUpstream:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def wait_for(self, rid: str, timeout: float = 5.0) -> Seen:
        """The record for ``rid`` once the request arrived."""
        end = time.monotonic() + timeout
        while rid not in self.seen:
            if time.monotonic() > end:
                raise AssertionError(f"upstream never saw request {rid}")
            time.sleep(0.01)
        return self.seen[rid]
