"""A real threaded HTTP server on 127.0.0.1 with the routes the probe tests need.

It records every request (method, path, headers), counts body bytes actually written, and
tracks how many requests are in flight at once.

Routes (``<x>`` is a path segment):

    /ok, /page                    200 (an HTML page with ids 'install', 'late' and name 'legacy')
    /slow/<seconds>               200 after a delay
    /status/<code>                that status
    /flaky/<key>                  503 the first time, then 200
    /ratelimit/<key>/<seconds>    429 with Retry-After: <seconds> the first time, then 200
    /ratelimit-date/<key>/<secs>  the same with an HTTP-date
    /always429/<seconds>          429 with Retry-After, always
    /redirect/<n>                 302 to /redirect/<n-1>; /redirect/0 is 200
    /moved, /moved308             301 (308) to /ok
    /moved-then-temp              301 to /temp, which is 302 to /ok
    /moved-to-404                 301 to /status/404
    /loop/a, /loop/b              302 to each other
    /hang                         reads the request and never answers
    /big, /big.html               50 MB body (HEAD: headers only); big.html has id="top" first
    /big-nohead                   50 MB body; HEAD is 405
    /nohead                       HEAD 405, GET 200
    /browser-only                 403 unless the User-Agent mentions Mozilla
    /to-private                   302 to http://169.254.169.254/latest/meta-data/
    /to-ftp                       302 to ftp://files.example.org/a
    anything else                 404
"""

from __future__ import annotations

import email.utils
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BIG = 50 * 1024 * 1024
CHUNK = 64 * 1024
PAGE = (
    b"<!doctype html><html><head><title>page</title></head><body>"
    b'<h2 id="install">Install</h2><a name="legacy"></a><p>text</p>'
    + b"<p>filler</p>" * 2000
    + b"<h2 id='late'>Late</h2></body></html>"
)


@dataclass(frozen=True)
class Hit:
    method: str
    path: str
    headers: dict[str, str]
    at: float


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._route()

    def do_HEAD(self) -> None:
        self._route()

    def _write(self, data: bytes) -> bool:
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
            return False
        self.server.owner.add_bytes(len(data))
        return True

    def reply(
        self,
        code: int,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
        ctype: str = "text/html; charset=utf-8",
    ) -> None:
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            self._write(body)

    def redirect(self, code: int, location: str) -> None:
        self.reply(code, headers={"Location": location})

    def big(self, head_allowed: bool, first: bytes = b"") -> None:
        if self.command == "HEAD" and not head_allowed:
            self.reply(405)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(BIG))
        self.end_headers()
        if self.command == "HEAD":
            return
        sent = 0
        chunk = b"x" * CHUNK
        if first:
            self._write(first)
            sent = len(first)
        while sent < BIG:
            n = min(CHUNK, BIG - sent)
            if not self._write(chunk[:n]):
                return
            sent += n

    def send_response(self, code: int, message: str | None = None) -> None:
        self._leave()  # done before the client can see the answer and send the next request
        super().send_response(code, message)

    def _leave(self) -> None:
        if getattr(self, "_in_flight", False):
            self._in_flight = False
            self.server.owner.leave()

    def _route(self) -> None:
        owner = self.server.owner
        path = self.path.split("?", 1)[0]
        n = owner.record(self.command, path, dict(self.headers.items()))
        self._in_flight = True
        try:
            self._dispatch(path, n)
        finally:
            self._leave()

    def _dispatch(self, path: str, n: int) -> None:
        owner = self.server.owner
        parts = path.strip("/").split("/")
        head, args = parts[0], parts[1:]
        if head in ("ok", "page"):
            self.reply(200, PAGE)
        elif head == "slow":
            time.sleep(float(args[0]))
            self.reply(200, b"slow")
        elif head == "status":
            self.reply(int(args[0]), b"status")
        elif head == "flaky":
            self.reply(503 if n == 1 else 200)
        elif head == "ratelimit":
            self.reply(429, headers={"Retry-After": args[1]}) if n == 1 else self.reply(200)
        elif head == "ratelimit-date":
            when = email.utils.formatdate(time.time() + float(args[1]), usegmt=True)
            self.reply(429, headers={"Retry-After": when}) if n == 1 else self.reply(200)
        elif head == "always429":
            self.reply(429, headers={"Retry-After": args[0]})
        elif head == "redirect":
            k = int(args[0])
            self.redirect(302, f"/redirect/{k - 1}") if k > 0 else self.reply(200)
        elif head == "moved":
            self.redirect(301, "/ok")
        elif head == "moved308":
            self.redirect(308, "/ok")
        elif head == "moved-then-temp":
            self.redirect(301, "/temp")
        elif head == "temp":
            self.redirect(302, "/ok")
        elif head == "moved-to-404":
            self.redirect(301, "/status/404")
        elif head == "loop":
            self.redirect(302, "/loop/b" if args[0] == "a" else "/loop/a")
        elif head == "hang":
            owner.release.wait(30)
            self.close_connection = True
        elif head == "big":
            self.big(head_allowed=True)
        elif head == "big.html":
            self.big(head_allowed=True, first=b'<html><body><h1 id="top">Top</h1>')
        elif head == "big-nohead":
            self.big(head_allowed=False)
        elif head == "nohead":
            self.reply(405 if self.command == "HEAD" else 200, b"ok")
        elif head == "browser-only":
            ua = self.headers.get("User-Agent", "")
            self.reply(200 if "Mozilla" in ua else 403, b"page")
        elif head == "to-private":
            self.redirect(302, "http://169.254.169.254/latest/meta-data/")
        elif head == "to-ftp":
            self.redirect(302, "ftp://files.example.org/a")
        else:
            self.reply(404, b"not found")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: ProbeServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients close connections early on purpose (timeouts, unread bodies)


class InFlight:
    """Requests in flight now and at the peak, possibly shared by several servers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.now = 0
        self.peak = 0

    def enter(self) -> None:
        with self._lock:
            self.now += 1
            self.peak = max(self.peak, self.now)

    def leave(self) -> None:
        with self._lock:
            self.now -= 1


class ProbeServer:
    def __init__(self, tracker: InFlight | None = None) -> None:
        self.tracker = tracker or InFlight()
        self._lock = threading.Lock()
        self.release = threading.Event()
        self.hits: list[Hit] = []
        self.counts: Counter[str] = Counter()
        self.bytes_sent = 0
        self.httpd = _Server(("127.0.0.1", 0), _Handler)
        self.httpd.owner = self
        self.port = self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def start(self) -> ProbeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def reset(self) -> None:
        with self._lock:
            self.hits.clear()
            self.counts.clear()
            self.bytes_sent = 0
            self.tracker.peak = self.tracker.now

    def record(self, method: str, path: str, headers: dict[str, str]) -> int:
        with self._lock:
            self.hits.append(Hit(method, path, headers, time.monotonic()))
            self.counts[path] += 1
            n = self.counts[path]
        self.tracker.enter()
        return n

    def leave(self) -> None:
        self.tracker.leave()

    @property
    def max_in_flight(self) -> int:
        return self.tracker.peak

    def add_bytes(self, n: int) -> None:
        with self._lock:
            self.bytes_sent += n

    def requests(self, prefix: str = "/") -> list[tuple[str, str]]:
        with self._lock:
            return [(h.method, h.path) for h in self.hits if h.path.startswith(prefix)]
