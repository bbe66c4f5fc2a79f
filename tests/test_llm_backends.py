"""LLM summarizer backends against real local HTTP servers speaking each provider's API.

Only 127.0.0.1 is contacted. The SDKs are optional: provider tests skip when one is missing.
"""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt.errors import InputError
from ihmt.tree import llm_backends as lb
from ihmt.tree.llm_backends import (
    AnthropicSummarizer,
    OpenAICompatibleSummarizer,
    build_prompt,
    make_backend,
    parse_reply,
)
from ihmt.tree.summary import ChildDigest, NodeSummary

GOOD = {
    "title": "Build and deploy notes",
    "summary": "How the project is built with make and deployed with a shell script.",
    "keywords": ["build", "deploy", "make"],
}
API_KEY = "sk-test-123"


class FakeFallback:
    """Recognisable stand-in for the heuristic summarizer."""

    name = "fake"

    def __init__(self) -> None:
        self.calls = 0

    def summarize(self, children: list[ChildDigest], *, domain: str, layer: int) -> NodeSummary:
        self.calls += 1
        return NodeSummary(title="FALLBACK", summary=f"fallback {domain} {layer}", keywords=["fb"])


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class FakeServer:
    url: str
    requests: list[Recorded] = field(default_factory=list)
    # mode: "good", "fenced", "garbage", "500", "hang"
    mode: str = "good"


def _anthropic_body(text: str, model: str) -> dict[str, Any]:
    return {
        "id": "msg_01test",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "model": model,
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 120, "output_tokens": 40},
    }


def openai_body(text: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 120, "completion_tokens": 40, "total_tokens": 160},
    }


def _reply_text(mode: str) -> str:
    if mode == "fenced":
        return "Sure! Here it is:\n```json\n" + json.dumps(GOOD) + "\n```\nHope that helps."
    if mode == "garbage":
        return "I am sorry, I cannot summarize this right now."
    return json.dumps(GOOD)


def _start_server(
    path: str, body_fn: Callable[[str, str], dict[str, Any]], release: threading.Event
) -> tuple[ThreadingHTTPServer, FakeServer]:
    state = FakeServer(url="")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def do_POST(self) -> None:  # noqa: N802 (http.server naming)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            body = json.loads(raw.decode("utf-8")) if raw else {}
            state.requests.append(
                Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            )
            if self.path != path:
                self._send(404, {"error": {"type": "not_found", "message": self.path}})
                return
            if state.mode == "hang":
                release.wait(10)
                return
            if state.mode == "500":
                self._send(500, {"error": {"type": "api_error", "message": "boom"}})
                return
            self._send(200, body_fn(_reply_text(state.mode), body.get("model", "")))

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    return server, state


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ambient keys, endpoints or proxies may leak into the tests."""
    for var in (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_AUTH_TOKEN",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


def _server_fixture(path: str, body_fn: Callable[[str, str], dict[str, Any]]) -> Iterator:
    release = threading.Event()
    server, state = _start_server(path, body_fn, release)
    try:
        yield state
    finally:
        release.set()
        server.shutdown()
        server.server_close()


@pytest.fixture
def anthropic_server() -> Iterator[FakeServer]:
    pytest.importorskip("anthropic")
    yield from _server_fixture("/v1/messages", _anthropic_body)


@pytest.fixture
def openai_server() -> Iterator[FakeServer]:
    pytest.importorskip("openai")
    yield from _server_fixture("/v1/chat/completions", openai_body)


def _closed_port_url() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _children() -> list[ChildDigest]:
    return [
        ChildDigest(
            title="Makefile targets",
            excerpt="make build compiles",
            keywords=["make", "build"],
            text="Run make build then make test.",
        ),
        ChildDigest(
            title="Deploy script",
            excerpt="deploy.sh pushes",
            keywords=["deploy"],
            text="./deploy.sh prod uploads the bundle.",
        ),
    ]


# Each provider: (server fixture name, factory(fallback, url, **kw), path, auth check)
def _anthropic(fb: FakeFallback, url: str, **kw: Any) -> AnthropicSummarizer:
    kw.setdefault("api_key", API_KEY)
    return AnthropicSummarizer(fb, model="claude-test", base_url=url, **kw)


def _openai(fb: FakeFallback, url: str, **kw: Any) -> OpenAICompatibleSummarizer:
    kw.setdefault("api_key", API_KEY)
    return OpenAICompatibleSummarizer(fb, model="gpt-test", base_url=url + "/v1", **kw)


def _auth_ok(provider: str, headers: dict[str, str]) -> bool:
    if provider == "anthropic":  # SDK versions differ: x-api-key or a bearer token
        if headers.get("x-api-key") == API_KEY:
            return True
    return headers.get("authorization") == f"Bearer {API_KEY}"


PROVIDERS = ["anthropic", "openai"]


@pytest.fixture(params=PROVIDERS)
def provider(request: pytest.FixtureRequest) -> tuple[str, FakeServer, Callable[..., Any]]:
    name = request.param
    server = request.getfixturevalue(f"{name}_server")
    factory = _anthropic if name == "anthropic" else _openai
    return name, server, factory


# --------------------------------------------------------------------------- provider cases


def test_good_reply_uses_model_summary(provider: tuple) -> None:
    name, server, factory = provider
    fb = FakeFallback()
    backend = factory(fb, server.url)
    result = backend.summarize(_children(), domain="proj", layer=1)
    assert result == NodeSummary(**GOOD)
    assert fb.calls == 0
    assert len(server.requests) == 1
    req = server.requests[0]
    assert req.body["model"] == ("claude-test" if name == "anthropic" else "gpt-test")
    assert req.body["max_tokens"] == 400
    prompt = json.dumps(req.body)
    assert "Makefile targets" in prompt and "Deploy script" in prompt
    assert _auth_ok(name, req.headers)
    assert backend.name == name


def test_fenced_reply_is_parsed(provider: tuple) -> None:
    _, server, factory = provider
    server.mode = "fenced"
    fb = FakeFallback()
    result = factory(fb, server.url).summarize(_children(), domain="proj", layer=2)
    assert result.title == GOOD["title"]
    assert result.keywords == GOOD["keywords"]
    assert fb.calls == 0


def test_garbage_reply_falls_back_and_logs_once(
    provider: tuple, caplog: pytest.LogCaptureFixture
) -> None:
    name, server, factory = provider
    server.mode = "garbage"
    fb = FakeFallback()
    backend = factory(fb, server.url)
    with caplog.at_level(logging.WARNING, logger="ihmt.tree"):
        first = backend.summarize(_children(), domain="proj", layer=1)
        second = backend.summarize(_children(), domain="proj", layer=1)
    assert first.title == second.title == "FALLBACK"
    assert fb.calls == 2
    bad = [r for r in caplog.records if "bad-reply" in r.getMessage()]
    assert len(bad) == 1 and bad[0].levelno == logging.WARNING and bad[0].name == "ihmt.tree"
    assert API_KEY not in caplog.text


def test_http_500_falls_back(provider: tuple, caplog: pytest.LogCaptureFixture) -> None:
    _, server, factory = provider
    server.mode = "500"
    fb = FakeFallback()
    with caplog.at_level(logging.WARNING, logger="ihmt.tree"):
        result = factory(fb, server.url).summarize(_children(), domain="d", layer=3)
    assert result.title == "FALLBACK" and result.summary == "fallback d 3"
    assert len(server.requests) == 1  # max_retries=0: no retry on 500
    assert "http-status" in caplog.text


def test_hanging_server_times_out_to_fallback(
    provider: tuple, caplog: pytest.LogCaptureFixture
) -> None:
    _, server, factory = provider
    server.mode = "hang"
    fb = FakeFallback()
    backend = factory(fb, server.url, timeout=1.0)
    with caplog.at_level(logging.WARNING, logger="ihmt.tree"):
        result = backend.summarize(_children(), domain="proj", layer=1)
    assert result.title == "FALLBACK"  # returned although the server never answers
    assert len(server.requests) == 1
    assert "(timeout)" in caplog.text


def test_connection_refused_falls_back(provider: tuple, caplog: pytest.LogCaptureFixture) -> None:
    _, _server, factory = provider
    fb = FakeFallback()
    with caplog.at_level(logging.WARNING, logger="ihmt.tree"):
        result = factory(fb, _closed_port_url(), timeout=2.0).summarize(
            _children(), domain="p", layer=1
        )
    assert result.title == "FALLBACK"
    assert "(connection)" in caplog.text


def test_circuit_breaker_stops_calling_after_three_failures(
    provider: tuple, caplog: pytest.LogCaptureFixture
) -> None:
    _, server, factory = provider
    server.mode = "500"
    fb = FakeFallback()
    backend = factory(fb, server.url)
    with caplog.at_level(logging.WARNING, logger="ihmt.tree"):
        results = [backend.summarize(_children(), domain="p", layer=1) for _ in range(6)]
    assert all(r.title == "FALLBACK" for r in results)
    assert len(server.requests) == 3
    assert fb.calls == 6
    assert caplog.text.count("http-status") == 1
    assert caplog.text.count("circuit-open") == 1
    server.mode = "good"  # even a recovered server is not contacted again
    backend.summarize(_children(), domain="p", layer=1)
    assert len(server.requests) == 3


def test_success_resets_failure_count(provider: tuple) -> None:
    _, server, factory = provider
    fb = FakeFallback()
    backend = factory(fb, server.url)
    for mode in ("500", "500", "good", "500", "500", "good"):
        server.mode = mode
        backend.summarize(_children(), domain="p", layer=1)
    assert len(server.requests) == 6


def test_anthropic_no_key_falls_back_without_request(
    anthropic_server: FakeServer, caplog: pytest.LogCaptureFixture
) -> None:
    fb = FakeFallback()
    backend = AnthropicSummarizer(fb, model="claude-test", base_url=anthropic_server.url)
    with caplog.at_level(logging.WARNING, logger="ihmt.tree"):
        for _ in range(3):
            assert backend.summarize(_children(), domain="p", layer=1).title == "FALLBACK"
    assert anthropic_server.requests == []
    assert caplog.text.count("no-key") == 1


def test_openai_no_key_no_base_url_falls_back_without_request(
    caplog: pytest.LogCaptureFixture,
) -> None:
    fb = FakeFallback()
    backend = OpenAICompatibleSummarizer(fb, model="gpt-test")
    with caplog.at_level(logging.WARNING, logger="ihmt.tree"):
        assert backend.summarize(_children(), domain="p", layer=1).title == "FALLBACK"
    assert "no-key" in caplog.text


def test_openai_local_runtime_without_key_uses_dummy_key(openai_server: FakeServer) -> None:
    fb = FakeFallback()
    backend = OpenAICompatibleSummarizer(fb, model="llama3.1", base_url=openai_server.url + "/v1")
    assert backend.summarize(_children(), domain="p", layer=1).title == GOOD["title"]
    assert openai_server.requests[0].headers["authorization"] == "Bearer not-needed"


def test_env_vars_supply_key_and_base_url(
    monkeypatch: pytest.MonkeyPatch, anthropic_server: FakeServer, openai_server: FakeServer
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_server.url)
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url + "/v1")
    fb = FakeFallback()
    a = AnthropicSummarizer(fb).summarize(_children(), domain="p", layer=1)
    o = OpenAICompatibleSummarizer(fb, model="m").summarize(_children(), domain="p", layer=1)
    assert a.title == o.title == GOOD["title"]
    assert anthropic_server.requests[0].body["model"] == "claude-sonnet-5"
    assert _auth_ok("anthropic", anthropic_server.requests[0].headers)
    assert _auth_ok("openai", openai_server.requests[0].headers)


def test_missing_sdk_falls_back(monkeypatch: pytest.MonkeyPatch, caplog) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)  # makes `import anthropic` fail
    monkeypatch.setitem(sys.modules, "openai", None)
    fb = FakeFallback()
    backends = [
        AnthropicSummarizer(fb, api_key=API_KEY, base_url="http://127.0.0.1:9"),
        OpenAICompatibleSummarizer(fb, model="m", base_url="http://127.0.0.1:9/v1"),
    ]
    with caplog.at_level(logging.WARNING, logger="ihmt.tree"):
        for backend in backends:
            for _ in range(2):
                assert backend.summarize(_children(), domain="p", layer=1).title == "FALLBACK"
    assert caplog.text.count("sdk-missing") == 2


def test_module_imports_without_sdks() -> None:
    code = (
        "import sys; import ihmt.tree.llm_backends; "
        "assert 'anthropic' not in sys.modules and 'openai' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# --------------------------------------------------------------------------- prompt + parsing


def test_prompt_is_bounded_and_fair() -> None:
    children = [
        ChildDigest(title=f"child-{i}", excerpt="e" * 2000, keywords=["k"] * 50, text="x" * 50_000)
        for i in range(5)
    ] + [ChildDigest(title="small-one", excerpt="tiny", text="short body")]
    system, user = build_prompt(children, domain="d", layer=1)
    assert len(system) + len(user) <= lb.PROMPT_CHAR_CAP
    for i in range(5):
        assert f"child-{i}" in user
    assert "short body" in user  # the small child keeps all its text
    sections = user.split("### Child ")[1:]
    big = [sec.count("x") for sec in sections[:5]]
    assert min(big) > 1000  # big children still get a real share...
    assert max(big) - min(big) <= 5  # ...and the same share


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.builds(
            ChildDigest,
            title=st.text(max_size=400),
            excerpt=st.text(max_size=1500),
            keywords=st.lists(st.text(max_size=30), max_size=30),
            text=st.text(max_size=6000),
        ),
        max_size=40,
    ),
    st.text(max_size=50),
)
def test_prompt_never_exceeds_cap(children: list[ChildDigest], domain: str) -> None:
    system, user = build_prompt(children, domain=domain, layer=2)
    assert len(system) + len(user) <= lb.PROMPT_CHAR_CAP


def test_prompt_with_many_children_stays_bounded() -> None:
    children = [ChildDigest(title=f"t{i}", excerpt="e" * 300, text="y" * 3000) for i in range(500)]
    system, user = build_prompt(children, domain="d", layer=4)
    assert len(system) + len(user) <= lb.PROMPT_CHAR_CAP
    assert "more children omitted" in user


def test_parse_reply_variants() -> None:
    assert parse_reply(json.dumps(GOOD)) == NodeSummary(**GOOD)
    prose = "Here you go: " + json.dumps(GOOD) + " -- done."
    assert parse_reply(prose) == NodeSummary(**GOOD)
    assert parse_reply("```\n" + json.dumps(GOOD) + "\n```") == NodeSummary(**GOOD)
    assert parse_reply("not json at all") is None
    assert parse_reply("") is None
    assert parse_reply('{"title": "", "summary": "x"}') is None
    assert parse_reply('{"title": "t", "summary": "   "}') is None
    assert parse_reply('["title", "summary"]') is None
    long = {
        "title": "T" * 500,
        "summary": "S" * 5000,
        "keywords": [f"kw{i}" for i in range(40)] + [3, None],
    }
    parsed = parse_reply(json.dumps(long))
    assert parsed is not None
    assert len(parsed.title) <= 120 and len(parsed.summary) <= 600
    assert len(parsed.keywords) == 16 and all(isinstance(k, str) for k in parsed.keywords)
    mixed = parse_reply('{"title": "t", "summary": "s", "keywords": ["a", 1, "b", "A"]}')
    assert mixed is not None and mixed.keywords == ["a", "b"]


# --------------------------------------------------------------------------- factory


def test_make_backend_names() -> None:
    fb = FakeFallback()
    assert make_backend("heuristic", model=None, base_url=None, fallback=fb) is fb
    a = make_backend("anthropic", model=None, base_url=None, fallback=fb)
    assert isinstance(a, AnthropicSummarizer) and a.model == "claude-sonnet-5"
    assert a.fallback is fb
    o = make_backend("ollama", model=None, base_url=None, fallback=fb)
    assert isinstance(o, OpenAICompatibleSummarizer)
    assert o.base_url == "http://127.0.0.1:11434/v1" and o.model == "llama3.1"
    lm = make_backend("lmstudio", model="qwen", base_url=None, fallback=fb)
    assert lm.base_url == "http://127.0.0.1:1234/v1" and lm.model == "qwen"
    custom = make_backend("openai-compatible", model="m", base_url="http://h/v1", fallback=fb)
    assert custom.base_url == "http://h/v1" and custom.name == "openai"
    assert isinstance(make_backend("openai", model="m", base_url=None, fallback=fb), type(custom))


def test_make_backend_unknown_name() -> None:
    with pytest.raises(InputError) as info:
        make_backend("gpt-magic", model=None, base_url=None, fallback=FakeFallback())
    message = str(info.value)
    assert "\n" not in message and "heuristic" in message and "ollama" in message
