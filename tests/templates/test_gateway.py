"""The gateway in assets/serving/template-llm-api.md, extracted and run under uvicorn on 127.0.0.1
in front of a fake engine (fake_upstream.py) that streams slowly and records disconnects."""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
import logging
import re
import socket
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import uvicorn

from skillcheck.extract import extract

from .fake_upstream import FakeUpstream, Seen, sse_body

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "assets" / "serving" / "template-llm-api.md"
LOGGER = "uvicorn.error.gateway"
KEY_A, KEY_B, KEY_C = "sk-test-a", "sk-test-b", "sk-test-c"
ENV = {
    "API_KEYS": f"{KEY_A}:tenant-a,{KEY_B}:tenant-b,{KEY_C}:tenant-c",
    "UPSTREAM_API_KEY": "upstream-secret",
    "MAX_INPUT_TOKENS": "200",
    "BYTES_PER_TOKEN": "4",
    "MAX_OUTPUT_TOKENS": "64",
    "MAX_CONCURRENCY": "3",
    "MAX_QUEUE": "1",
    "TENANT_MAX_CONCURRENCY": "2",
    "QUEUE_TIMEOUT_S": "3",
    "FIRST_BYTE_TIMEOUT_S": "3",
    "REQUEST_TIMEOUT_S": "15",
    "RETRY_AFTER_S": "7",
}
FAST_S = 1.0  # "at once": far below every timeout configured above


class Served:
    """An ASGI app under uvicorn in a thread, on a free loopback port."""

    def __init__(self, app: Any) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        config = uvicorn.Config(
            app,
            log_config=None,
            access_log=False,
            lifespan="on",
            ws="none",
            http="h11",
            loop="asyncio",
            timeout_graceful_shutdown=2,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def __enter__(self) -> Served:
        self.thread.start()
        end = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < end and self.thread.is_alive(), "uvicorn did not start"
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


@pytest.fixture(scope="module")
def upstream() -> Iterator[FakeUpstream]:
    fake = FakeUpstream().start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def gateway(
    upstream: FakeUpstream, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ModuleType]:
    """gateway.py from the template, imported from its file with the test environment set."""
    out = tmp_path_factory.mktemp("gateway")
    results = extract(TEMPLATE.read_text(encoding="utf-8"), out)
    assert [r.name for r in results if r.problem is None] == ["gateway.py"], results
    spec = importlib.util.spec_from_file_location("gateway_under_test", out / "gateway.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    with pytest.MonkeyPatch.context() as mp:
        for k, v in {**ENV, "UPSTREAM_URL": upstream.url}.items():
            mp.setenv(k, v)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


@pytest.fixture(scope="module")
def served(gateway: ModuleType) -> Iterator[Served]:
    with Served(gateway.app) as srv:
        yield srv


@pytest.fixture
def gw(served: Served, gateway: ModuleType) -> Iterator[httpx.Client]:
    """A client for the shared gateway, which is idle (no slot, queue or tenant count held)."""
    state = gateway.app.state.gateway
    wait_until(
        lambda: (
            state.limiter.active == 0
            and not state.limiter.waiters
            and not any(state.tenant_active.values())
        ),
        5,
        "gateway still busy",
    )
    with httpx.Client(base_url=served.url, timeout=20) as client:
        yield client


def wait_until(cond: Any, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(what)
        time.sleep(0.01)


def rid() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


def chat(model: str, *, stream: bool = False, content: str = "hi", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": content}]}
    if stream:
        body["stream"] = True
    return {**body, **extra}


def headers(key: str | None, request_id: str) -> dict[str, str]:
    h = {"x-request-id": request_id}
    if key is not None:
        h["authorization"] = f"Bearer {key}"
    return h


def post(
    client: httpx.Client,
    key: str | None,
    body: Mapping[str, Any],
    request_id: str | None = None,
    path: str = "/v1/chat/completions",
) -> tuple[httpx.Response, float]:
    t0 = time.monotonic()
    r = client.post(path, json=body, headers=headers(key, request_id or rid()))
    return r, time.monotonic() - t0


def metrics(client: httpx.Client) -> str:
    r = client.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    return r.text


def sample(text: str, name: str, **labels: str) -> float | None:
    """The value of one series in Prometheus text, or None."""
    for line in text.splitlines():
        m = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)", line)
        if not m or m.group(1) != name:
            continue
        got = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        if all(got.get(k) == v for k, v in labels.items()):
            return float(m.group(4))
    return None


# --- authentication -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "auth",
    [
        None,
        "Bearer sk-wrong",
        "Bearer",
        "Basic sk-test-a",
        "Bearer sk-test-a-longer",
        "bearer sk-test",
    ],
)
def test_bad_or_missing_key_is_401(
    gw: httpx.Client, upstream: FakeUpstream, auth: str | None
) -> None:
    request_id = rid()
    h = headers(None, request_id) | ({"authorization": auth} if auth is not None else {})
    r = gw.post("/v1/chat/completions", json=chat("json/0"), headers=h)
    assert r.status_code == 401
    assert r.headers["www-authenticate"] == "Bearer"
    assert "API key" in r.json()["error"]["message"]
    assert request_id not in upstream.seen


def test_good_key_reaches_upstream_with_the_upstream_key(
    gw: httpx.Client, upstream: FakeUpstream
) -> None:
    request_id = rid()
    r, _ = post(gw, KEY_B, chat("json/0", priority=-100, kv_transfer_params={"x": 1}), request_id)
    assert r.status_code == 200
    assert r.json()["choices"][0]["message"]["content"] == "hello"
    assert r.headers["x-request-id"] == request_id
    seen = upstream.wait_for(request_id)
    assert seen.headers["authorization"] == "Bearer upstream-secret"  # never the client's key
    assert "priority" not in seen.body and "kv_transfer_params" not in seen.body


@pytest.mark.parametrize("model", ["drop-once/json/0", "drop-once/stream/3/0.01/0.01"])
def test_a_reused_connection_closed_unanswered_is_sent_again(
    gw: httpx.Client, upstream: FakeUpstream, model: str
) -> None:
    """An engine that closes a pooled keep-alive connection without answering (llama-server
    b11312 did, for under 1 request in 100) never saw the request: the gateway sends it once
    more and counts it, instead of answering 502."""
    before = sample(metrics(gw), "gateway_upstream_resent_total") or 0.0
    request_id = rid()
    stream = model.startswith("drop-once/stream")
    r, _ = post(gw, KEY_B, chat(model, stream=stream), request_id)
    assert r.status_code == 200, r.text
    assert upstream.arrivals[request_id] == 2
    assert sample(metrics(gw), "gateway_upstream_resent_total") == before + 1
    if stream:
        assert r.text.rstrip().endswith("data: [DONE]")


# --- token caps at the boundary -------------------------------------------------------------


def test_oversized_input_is_400_with_a_clear_message(
    gw: httpx.Client, upstream: FakeUpstream
) -> None:
    request_id = rid()
    # 1,000 bytes of content plus "user" = 1,004 bytes / 4 bytes per token = 251 tokens
    r, took = post(gw, KEY_A, chat("json/0", content="x" * 1000), request_id)
    assert r.status_code == 400 and took < FAST_S
    msg = r.json()["error"]["message"]
    assert "about 251 tokens" in msg and "at most 200" in msg
    assert request_id not in upstream.seen


def test_prompt_of_token_ids_counts_each_id(gw: httpx.Client) -> None:
    ok, _ = post(gw, KEY_A, {"model": "json/0", "prompt": list(range(200))}, path="/v1/completions")
    assert ok.status_code == 200
    big, _ = post(
        gw, KEY_A, {"model": "json/0", "prompt": list(range(201))}, path="/v1/completions"
    )
    assert big.status_code == 400 and "at most 200" in big.json()["error"]["message"]


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [
        ("max_tokens", 65, "max_tokens=65 is over this API's limit of 64"),
        ("max_completion_tokens", 100000, "max_completion_tokens=100000 is over"),
        ("max_tokens", 0, "max_tokens must be a positive integer"),
        ("max_tokens", "12", "max_tokens must be a positive integer"),
        ("n", 2, "n must be between 1 and 1"),
    ],
)
def test_output_cap_over_the_limit_is_400(
    gw: httpx.Client, upstream: FakeUpstream, field: str, value: object, needle: str
) -> None:
    request_id = rid()
    r, took = post(gw, KEY_A, chat("json/0", **{field: value}), request_id)
    assert r.status_code == 400 and took < FAST_S
    assert needle in r.json()["error"]["message"]
    assert request_id not in upstream.seen


def test_output_cap_is_made_explicit(gw: httpx.Client, upstream: FakeUpstream) -> None:
    at_cap, absent, completions = rid(), rid(), rid()
    assert post(gw, KEY_A, chat("json/0", max_tokens=64), at_cap)[0].status_code == 200
    assert post(gw, KEY_A, chat("json/0"), absent)[0].status_code == 200
    assert (
        post(gw, KEY_A, {"model": "json/0", "prompt": "hi"}, completions, "/v1/completions")[
            0
        ].status_code
        == 200
    )
    assert upstream.wait_for(at_cap).body["max_tokens"] == 64
    assert upstream.wait_for(absent).body["max_completion_tokens"] == 64
    assert upstream.wait_for(completions).body["max_tokens"] == 16


def test_body_over_the_size_cap_is_413(gw: httpx.Client) -> None:
    r, _ = post(gw, KEY_A, chat("json/0", content="x" * 1_100_000))
    assert r.status_code == 413


# --- streaming ------------------------------------------------------------------------------


def test_stream_bytes_pass_through_in_order_as_they_arrive(
    gw: httpx.Client, upstream: FakeUpstream
) -> None:
    request_id = rid()
    t0 = time.monotonic()
    arrivals: list[tuple[float, bytes]] = []
    with gw.stream(
        "POST",
        "/v1/chat/completions",
        json=chat("stream/8/0.15/0", stream=True),
        headers=headers(KEY_A, request_id),
    ) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        for chunk in r.iter_raw():
            arrivals.append((time.monotonic() - t0, chunk))
    body = b"".join(c for _, c in arrivals)
    assert body == sse_body(8)  # byte for byte, nothing reordered, added or dropped
    datas = [ln[6:] for ln in body.decode().splitlines() if ln.startswith("data: ")]
    tokens = [json.loads(d)["choices"][0]["delta"]["content"] for d in datas[:-1]]
    assert tokens == [f"tok{i} " for i in range(8)] and datas[-1] == "[DONE]"

    # Relayed as produced, not buffered: each token about 0.15 s after the one before it.
    def at(token: bytes) -> float:
        return next(t for t, c in arrivals if token in c)

    assert at(b"tok0") < 0.6 and at(b"tok3") < at(b"tok7") - 0.3
    assert upstream.wait_for(request_id).finished


def test_client_disconnect_mid_stream_cancels_upstream(
    gw: httpx.Client, gateway: ModuleType, upstream: FakeUpstream
) -> None:
    request_id = rid()
    with gw.stream(
        "POST",
        "/v1/chat/completions",
        json=chat("stream/400/0.05/0", stream=True),
        headers=headers(KEY_A, request_id),
    ) as r:
        lines = r.iter_lines()
        got = [ln for ln in (next(lines) for _ in range(6)) if ln.startswith("data:")]
        assert len(got) == 3
        closed_at = time.monotonic()
    seen = upstream.wait_for(request_id)
    wait_until(lambda: seen.disconnected_at is not None, 3, "upstream never saw the disconnect")
    assert seen.disconnected_at is not None and seen.disconnected_at - closed_at < 3
    assert not seen.finished and seen.events < 100
    state = gateway.app.state.gateway
    wait_until(lambda: state.limiter.active == 0, 3, "slot not released")
    assert (
        sample(metrics(gw), "gateway_stream_aborts_total", reason="client_disconnect") or 0
    ) >= 1


def test_client_disconnect_before_first_token_cancels_upstream(
    gw: httpx.Client, upstream: FakeUpstream
) -> None:
    request_id = rid()
    t0 = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):  # the client gives up while the engine "prefills"
        gw.post(
            "/v1/chat/completions",
            json=chat("stream/5/0/30", stream=True),
            headers=headers(KEY_A, request_id),
            timeout=httpx.Timeout(5, read=0.5),
        )
    seen = upstream.wait_for(request_id)
    wait_until(lambda: seen.disconnected_at is not None, 5, "upstream never saw the disconnect")
    assert seen.disconnected_at is not None
    assert seen.disconnected_at - t0 < 2.5  # well before the 3 s first-byte deadline


def test_client_disconnect_cancels_a_non_streaming_call(
    gw: httpx.Client, upstream: FakeUpstream
) -> None:
    request_id = rid()
    t0 = time.monotonic()
    with pytest.raises(httpx.ReadTimeout):
        gw.post(
            "/v1/chat/completions",
            json=chat("json/30"),
            headers=headers(KEY_A, request_id),
            timeout=httpx.Timeout(5, read=0.5),
        )
    seen = upstream.wait_for(request_id)
    wait_until(lambda: seen.disconnected_at is not None, 5, "upstream never saw the disconnect")
    assert seen.disconnected_at is not None and seen.disconnected_at - t0 < 2.5


def test_no_first_token_before_the_deadline_is_504(
    gw: httpx.Client, upstream: FakeUpstream
) -> None:
    request_id = rid()
    r, took = post(gw, KEY_A, chat("stream/5/0/30", stream=True), request_id)
    assert r.status_code == 504 and 2.5 < took < 8
    assert "first token" in r.json()["error"]["message"]
    seen = upstream.wait_for(request_id)
    wait_until(lambda: seen.disconnected_at is not None, 3, "upstream stream left open")


# --- admission control ----------------------------------------------------------------------


def test_over_capacity_fails_fast_with_retry_after(
    gw: httpx.Client, gateway: ModuleType, upstream: FakeUpstream
) -> None:
    state = gateway.app.state.gateway
    slow = chat("stream/400/0.05/0", stream=True)
    with ExitStack() as stack, ThreadPoolExecutor(2) as pool:
        held = [
            stack.enter_context(
                gw.stream("POST", "/v1/chat/completions", json=slow, headers=headers(key, rid()))
            )
            for key in (KEY_A, KEY_A, KEY_B)
        ]
        assert [r.status_code for r in held] == [200, 200, 200]
        assert state.limiter.active == 3  # MAX_CONCURRENCY reached

        # Tenant a holds its 2 requests: 429 at once, before any queueing.
        r, took = post(gw, KEY_A, chat("json/0"))
        assert r.status_code == 429 and took < FAST_S
        assert r.headers["retry-after"] == "7"
        assert "tenant-a" in r.json()["error"]["message"]

        # Tenant b's second request waits in the queue (MAX_QUEUE = 1) ...
        queued = pool.submit(post, gw, KEY_B, chat("json/0"))
        wait_until(lambda: len(state.limiter.waiters) == 1, 3, "request not queued")
        assert sample(metrics(gw), "gateway_queue_depth") == 1
        assert sample(metrics(gw), "gateway_in_flight") == 3
        # ... so the queue is full: tenant c gets 503 at once.
        r, took = post(gw, KEY_C, chat("json/0"))
        assert r.status_code == 503 and took < FAST_S
        assert r.headers["retry-after"] == "7"
        # The queued request gives up after QUEUE_TIMEOUT_S = 3 s, also with 503.
        r, took = queued.result(timeout=10)
        assert r.status_code == 503 and 2.5 < took < 6
        assert r.headers["retry-after"] == "7"

        # A slot freed by a client that leaves passes straight to the next waiter.
        waiting = pool.submit(post, gw, KEY_C, chat("json/0"))
        wait_until(lambda: len(state.limiter.waiters) == 1, 3, "request not queued")
        held[0].close()
        r, took = waiting.result(timeout=10)
        assert r.status_code == 200 and took < 2.5

    text = metrics(gw)
    assert sample(text, "gateway_rejected_total", reason="tenant_limit", tenant="tenant-a") == 1
    assert sample(text, "gateway_rejected_total", reason="queue_full", tenant="tenant-c") == 1
    assert sample(text, "gateway_rejected_total", reason="queue_timeout", tenant="tenant-b") == 1


def test_upstream_503_is_passed_on_with_retry_after(gw: httpx.Client) -> None:
    r, _ = post(gw, KEY_A, chat("status/503"))
    assert r.status_code == 503 and r.headers["retry-after"] == "7"
    r, _ = post(gw, KEY_A, chat("status/400"))
    assert r.status_code == 400 and "retry-after" not in r.headers


# --- metrics and logs -----------------------------------------------------------------------


def test_metrics_expose_counters_in_prometheus_text(gw: httpx.Client) -> None:
    assert post(gw, KEY_B, chat("json/0"))[0].status_code == 200
    assert post(gw, "sk-nope", chat("json/0"))[0].status_code == 401
    with gw.stream(
        "POST",
        "/v1/chat/completions",
        json=chat("stream/2/0/0", stream=True),
        headers=headers(KEY_B, rid()),
    ) as r:
        r.read()
    text = metrics(gw)
    for line in text.splitlines():
        assert re.fullmatch(r"# (HELP|TYPE) \S+ .+|[a-z_]+(\{[^}]*\})? [0-9.e+-]+", line), line
    assert (
        sample(
            text,
            "gateway_requests_total",
            route="/v1/chat/completions",
            tenant="tenant-b",
            status="200",
        )
        or 0
    ) >= 2
    assert (sample(text, "gateway_rejected_total", reason="auth") or 0) >= 1
    assert sample(text, "gateway_in_flight") is not None
    assert sample(text, "gateway_queue_depth") is not None
    assert (sample(text, "gateway_upstream_latency_seconds_count", phase="total") or 0) >= 1
    assert (sample(text, "gateway_upstream_latency_seconds_count", phase="first_byte") or 0) >= 1
    assert sample(text, "gateway_upstream_latency_seconds_bucket", phase="total", le="+Inf")
    for name in (
        "gateway_requests_total",
        "gateway_rejected_total",
        "gateway_in_flight",
        "gateway_queue_depth",
        "gateway_upstream_latency_seconds",
    ):
        assert f"# TYPE {name} " in text


def log_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


def test_logs_carry_no_prompt_text_by_default(
    gw: httpx.Client, upstream: FakeUpstream, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    secret = "PROMPT-SECRET-7f3a"
    ok, streamed, big = rid(), rid(), rid()
    post(gw, KEY_A, chat("json/0", content=secret), ok)
    with gw.stream(
        "POST",
        "/v1/chat/completions",
        json=chat("stream/2/0/0", stream=True, content=secret),
        headers=headers(KEY_A, streamed),
    ) as r:
        r.read()
    post(gw, KEY_A, chat("json/0", content=secret + "x" * 1000), big)
    for request_id in (ok, streamed, big):
        wait_until(
            lambda rq=request_id: any(f"request_id={rq} " in m for m in log_lines(caplog)),
            3,
            f"no log line for {request_id}",
        )
    lines = log_lines(caplog)
    assert any(f"request_id={ok} tenant=tenant-a" in m and "status=200" in m for m in lines)
    assert any(
        f"request_id={big} " in m and "status=400" in m and "input_tokens_est=" in m for m in lines
    )
    everything = "\n".join(lines + [r.getMessage() for r in caplog.records])
    assert secret not in everything and KEY_A not in everything


# --- the opt-in switches and a short total deadline, on a second gateway ----------------------


@pytest.fixture(scope="module")
def second(gateway: ModuleType, upstream: FakeUpstream) -> Iterator[Served]:
    env = {
        **ENV,
        "UPSTREAM_URL": upstream.url,
        "OUTPUT_TOKENS_POLICY": "clamp",
        "LOG_PROMPTS": "1",
        "TENANT_CACHE_SALT": "salt-secret",
        "METRICS_TOKEN": "m-token",
        "REQUEST_TIMEOUT_S": "2",
    }
    with Served(gateway.create_app(gateway.Settings.from_env(env))) as srv:
        yield srv


def test_clamp_policy_prompt_logging_and_tenant_salt(
    second: Served, upstream: FakeUpstream, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    with httpx.Client(base_url=second.url, timeout=20) as client:
        a1, a2, b1 = rid(), rid(), rid()
        r, _ = post(
            client,
            KEY_A,
            chat("json/0", content="DEBUG-PROMPT", max_tokens=1000, cache_salt="client-chosen"),
            a1,
        )
        assert r.status_code == 200
        post(client, KEY_A, chat("json/0"), a2)
        post(client, KEY_B, chat("json/0"), b1)
        assert client.get("/metrics").status_code == 401
        auth = {"authorization": "Bearer m-token"}
        assert client.get("/metrics", headers=auth).status_code == 200
    seen: dict[str, Seen] = {k: upstream.wait_for(k) for k in (a1, a2, b1)}
    assert seen[a1].body["max_tokens"] == 64  # clamped, not rejected
    salt_a = hmac.new(b"salt-secret", b"tenant-a", hashlib.sha256).hexdigest()
    assert seen[a1].body["cache_salt"] == seen[a2].body["cache_salt"] == salt_a
    assert seen[b1].body["cache_salt"] != salt_a
    assert any("DEBUG-PROMPT" in m for m in log_lines(caplog))
    assert all("salt-secret" not in m and salt_a not in m for m in log_lines(caplog))


def test_total_deadline_ends_a_stream_with_an_error_event(
    second: Served, upstream: FakeUpstream
) -> None:
    request_id = rid()
    t0 = time.monotonic()
    with (
        httpx.Client(base_url=second.url, timeout=20) as client,
        client.stream(
            "POST",
            "/v1/chat/completions",
            json=chat("stream/400/0.05/0", stream=True),
            headers=headers(KEY_A, request_id),
        ) as r,
    ):
        assert r.status_code == 200  # already sent when the deadline hits
        body = r.read().decode()
    took = time.monotonic() - t0
    assert 1.5 < took < 5
    events = [ln[6:] for ln in body.splitlines() if ln.startswith("data: ")]
    assert events[-1] == "[DONE]"
    assert json.loads(events[-2])["error"]["type"] == "deadline"
    assert "tok0 " in body and "tok399" not in body
    seen = upstream.wait_for(request_id)
    wait_until(lambda: seen.disconnected_at is not None, 3, "upstream stream left open")
