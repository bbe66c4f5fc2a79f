"""Capture with an LLM summarizer configured: the model's words are what is saved.

The backend is the real OpenAI-compatible one (the ``openai`` SDK, as ``ollama`` or
``lmstudio`` use it) talking to a small chat-completions server on 127.0.0.1 inside the test;
the hook is the installed command run as a subprocess. A failing or slow model costs nothing:
the heuristic extractor's text is saved, stderr holds one line saying so, the exit code is 0.
A model words a piece differently each time it is asked, and still nothing is saved twice.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ihmt import IHMT
from ihmt.loop import capture, settings
from ihmt.loop.extract import extract
from ihmt.loop.transcript import read_turns
from tests.test_llm_backends import openai_body

pytest.importorskip("openai")

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "hooks"
SESSION = "5f2c8a4e-1b7d-4c9e-9a31-2e6f0d8b7c11"
PREFIX = "Per the model:"


class FakeModel:
    """A chat-completions endpoint: ``mode`` is "good" (each reply numbered, so two answers
    about one piece differ), "500" or "slow" (answers after ``delay`` seconds)."""

    def __init__(self) -> None:
        self.mode = "good"
        self.delay = 5.0
        self.requests: list[dict] = []
        self.release = threading.Event()
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                model.requests.append(body)
                if model.mode == "500":
                    self.send(500, {"error": {"message": "boom", "type": "server_error"}})
                    return
                if model.mode == "slow":
                    model.release.wait(model.delay)
                note = body["messages"][-1]["content"]
                reply = f"{PREFIX} ({len(model.requests)}) {note}"
                self.send(200, openai_body(reply, body.get("model", "")))

            def send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (the slow case)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def model():
    fake = FakeModel()
    yield fake
    fake.close()


@pytest.fixture
def ws(tmp_path, model):
    IHMT.initialize(
        tmp_path / "ws",
        summarizer_backend="openai-compatible",
        summarizer_model="test-model",
        summarizer_base_url=model.url,
    ).close()
    return tmp_path / "ws"


@pytest.fixture
def transcript(tmp_path):
    path = tmp_path / "t.jsonl"
    shutil.copy(FIXTURES / "claude_session.jsonl", path)
    return path


def set_config(ws: Path, **values) -> None:
    config = ws / "ihmt_memory" / "ihmt.config.json"
    data = json.loads(config.read_text(encoding="utf-8"))
    config.write_text(json.dumps({**data, **values}), encoding="utf-8")


def capture_hook(ws, repo, transcript, session=SESSION, event="PreCompact"):
    data = {
        "session_id": session,
        "transcript_path": str(transcript),
        "cwd": str(repo),
        "hook_event_name": event,
        "trigger": "auto",
    }
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env.update(NO_PROXY="127.0.0.1,localhost", OPENAI_API_KEY="", OPENAI_BASE_URL="")
    return subprocess.run(
        ["sh", "-c", settings.hook_command("claude", ws)],
        input=json.dumps(data).encode(),
        capture_output=True,
        timeout=120,
        env=env,
    )


def saved(ws) -> list[str]:
    memory = IHMT.open(ws)
    try:
        return [leaf.content for leaf in memory.leaves("memory")]
    finally:
        memory.close()


def heuristic_pieces(transcript) -> list[str]:
    from ihmt.privacy.secrets import redact

    return [redact(p.text)[0] for p in extract(read_turns(str(transcript), 0).turns)]


def test_what_capture_saves_comes_from_the_model(ws, repo, transcript, model):
    run = capture_hook(ws, repo, transcript)
    assert run.returncode == 0 and run.stdout == b"", run.stderr
    assert run.stderr == b""  # a model that works leaves nothing to say
    pieces = heuristic_pieces(transcript)
    texts = saved(ws)
    assert len(texts) == len(pieces) == len(model.requests) > 3
    assert all(text.startswith(PREFIX) for text in texts)
    # each request held one redacted piece under the capture's own instruction
    sent = [r["messages"][-1]["content"] for r in model.requests]
    assert sent == pieces
    assert all(r["messages"][0]["content"] == capture.RESTATE_PROMPT for r in model.requests)
    assert all(r["model"] == "test-model" for r in model.requests)
    assert not any("sk-ant-api03" in s for s in sent)  # a credential never reaches the model


def test_a_failing_model_falls_back_to_the_extractor_with_one_line(ws, repo, transcript, model):
    model.mode = "500"
    run = capture_hook(ws, repo, transcript)
    assert run.returncode == 0 and run.stdout == b""
    lines = run.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert "LLM summarizer (openai-compatible) failed" in lines[0]
    assert "heuristic extractor" in lines[0] and lines[0].startswith("ihmt hook: ")
    assert sorted(saved(ws)) == sorted(heuristic_pieces(transcript))
    assert len(model.requests) == 1  # asked once; the rest were not held up by a broken model


def test_a_slow_model_falls_back_in_bounded_time(ws, repo, transcript, model):
    model.mode, model.delay = "slow", 30
    set_config(ws, hooks_llm_timeout=1)
    started = time.monotonic()
    run = capture_hook(ws, repo, transcript)
    elapsed = time.monotonic() - started
    assert run.returncode == 0
    lines = run.stderr.decode().splitlines()
    assert len(lines) == 1 and "LLM summarizer (openai-compatible) failed" in lines[0], lines
    assert sorted(saved(ws)) == sorted(heuristic_pieces(transcript))
    assert elapsed < 25  # one request timed out, not one per piece (a loose bound, not a timing)


def test_a_model_that_words_differently_each_time_never_saves_twice(
    ws, repo, transcript, model, tmp_path
):
    first = capture_hook(ws, repo, transcript)
    assert first.returncode == 0
    count, asked = len(saved(ws)), len(model.requests)
    # ten compactions of the same session, then the same words in another session and a
    # re-run with the session's offset lost (a crash before it was written)
    for _ in range(10):
        capture_hook(ws, repo, transcript)
    capture_hook(ws, repo, transcript, session="another-session", event="SessionEnd")
    for offset in (ws / "ihmt_memory" / "state" / "hooks").glob("claude-*.json"):
        offset.unlink()
    capture_hook(ws, repo, transcript)
    texts = saved(ws)
    assert len(texts) == count and len(set(texts)) == count
    assert len(model.requests) == asked  # nothing already saved is sent again
    # a new line is restated and saved, once
    with open(transcript, "a", encoding="utf-8") as handle:
        line = {
            "type": "user",
            "message": {"role": "user", "content": "Our CI runs on GitHub Actions with Ubuntu."},
            "timestamp": "2025-11-05T10:00:00.000Z",
            "sessionId": SESSION,
            "uuid": "u9",
        }
        handle.write(json.dumps(line) + "\n")
    capture_hook(ws, repo, transcript, event="SessionEnd")
    capture_hook(ws, repo, transcript, event="SessionEnd")
    texts = saved(ws)
    assert len(texts) == count + 1 and len(model.requests) == asked + 1
    assert any(t.startswith(PREFIX) and "GitHub Actions" in t for t in texts)


def test_without_a_model_configured_nothing_is_asked(tmp_path, repo, transcript, model):
    IHMT.initialize(tmp_path / "plain").close()
    run = capture_hook(tmp_path / "plain", repo, transcript)
    assert run.returncode == 0 and run.stderr == b""
    assert sorted(saved(tmp_path / "plain")) == sorted(heuristic_pieces(transcript))
    assert model.requests == []
    assert not (
        tmp_path / "plain" / "ihmt_memory" / "state" / "hooks" / "restated-seen.txt"
    ).exists()
