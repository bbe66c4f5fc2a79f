"""Issue 20 point 11: the stdio MCP server answers every line a client sends.

A malformed line (bad JSON, a lone surrogate, deep nesting, not JSON-RPC) used to be dropped by
the SDK's reader with no reply, so the client waited forever. Each one now gets a JSON-RPC
error (-32700 parse error with id null, -32600 invalid request with the id when readable), and
the next valid request is answered as usual. The live tests talk raw bytes to a real server
subprocess; a reader thread with a generous limit guards against a hang (not a timing check).
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt.mcp_wire import INVALID_REQUEST, MAX_DEPTH, PARSE_ERROR, WireError, check_line

ROOT = Path(__file__).resolve().parent.parent
STARTUP_LIMIT = 90  # importing the SDK takes several seconds on a busy machine
REPLY_LIMIT = 20  # a hang guard, never a timing assertion

DEEP = (
    b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":'
    + b"[" * 5000
    + b"]" * 5000
    + b"}}"
)
BAD_LINES = [
    # (line, expected code, expected id)
    (b"{bad json", PARSE_ERROR, None),
    (b'{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"x":"\\ud800"}}', PARSE_ERROR, None),
    (
        b'{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"x":"\xed\xa0\x80"}}',
        PARSE_ERROR,
        None,
    ),
    (b'{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"x":"\xff"}}', PARSE_ERROR, None),
    (DEEP, PARSE_ERROR, None),
    (b"[" * 300 + b"]" * 300, PARSE_ERROR, None),
    (b'{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"x":NaN}}', PARSE_ERROR, None),
    (b'{"jsonrpc":"1.0","id":9,"method":"tools/list"}', INVALID_REQUEST, 9),
    (b'{"id":"ten"}', INVALID_REQUEST, "ten"),
    (b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":5}', INVALID_REQUEST, 11),
    (b'{"jsonrpc":"2.0","id":12,"method":7}', INVALID_REQUEST, 12),
    (b'{"jsonrpc":"2.0","id":[13],"method":"tools/list"}', INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":null,"method":"tools/list"}', INVALID_REQUEST, None),
    (b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}', INVALID_REQUEST, None),
    (b"[]", INVALID_REQUEST, None),
    (b"42", INVALID_REQUEST, None),
    (b'"hello"', INVALID_REQUEST, None),
]


def _validator():
    pytest.importorskip("mcp")
    from ihmt.mcp_wire import sdk_validator

    return sdk_validator()


@pytest.mark.parametrize("line,code,rid", BAD_LINES, ids=range(len(BAD_LINES)))
def test_bad_line_gets_the_right_error(line, code, rid):
    with pytest.raises(WireError) as caught:
        check_line(line, _validator())
    reply = caught.value.reply
    assert reply["jsonrpc"] == "2.0" and reply["id"] == rid
    assert reply["error"]["code"] == code
    assert "\n" not in reply["error"]["message"]


def test_valid_lines_pass_unchanged():
    validate = _validator()
    for line in (
        '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":'
        '{"text":"emoji \\ud83c\\udf89 and ünïcode ' + "[" * 10 + '"}}}',
        '{"jsonrpc":"2.0","id":2,"result":{}}',
    ):
        assert check_line(line.encode(), validate) == line


def test_nesting_at_the_limit_passes():
    inner = "[" * (MAX_DEPTH - 3) + "]" * (MAX_DEPTH - 3)
    line = '{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":' + inner + "}}"
    assert check_line(line.encode(), _validator()) == line


@settings(max_examples=300)
@given(st.one_of(st.binary(max_size=200), st.text(max_size=200).map(str.encode)))
def test_every_line_is_taken_by_the_sdk_or_answered(raw):
    """No line is dropped: either the SDK accepts what passes, or there is an error reply."""
    validate = _validator()
    try:
        text = check_line(raw, validate)
    except WireError as exc:
        assert exc.reply["error"]["code"] in (PARSE_ERROR, INVALID_REQUEST)
        json.dumps(exc.reply)  # the reply itself can always be sent
    else:
        validate(text)


# -- a real server over raw stdio ------------------------------------------------------------


class RawServer:
    """``python mcp_server.py`` with raw byte lines in and one reader thread out."""

    def __init__(self, home: Path) -> None:
        env = {
            "IHMT_HOME": str(home),
            "HOME": str(home.parent),
            "PYTHONIOENCODING": "utf-8",
            "PATH": "/usr/bin:/bin",
        }
        self.log = open(home.parent / "server.log", "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "mcp_server.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=env,
            cwd=str(home.parent),
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, line: bytes) -> None:
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def receive(self, limit: float = REPLY_LIMIT) -> dict:
        try:
            return json.loads(self.lines.get(timeout=limit))
        except queue.Empty:
            pytest.fail(f"no reply within {limit} s (the server dropped the line)")

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.log.close()


@pytest.fixture
def raw_server(tmp_path):
    pytest.importorskip("mcp")
    home = tmp_path / "srv" / ".ihmt"
    home.parent.mkdir(parents=True)
    server = RawServer(home)
    server.send(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        ).encode()
    )
    assert server.receive(STARTUP_LIMIT)["id"] == 0
    server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    yield server
    server.close()


def test_live_server_answers_each_bad_line_then_the_next_request(raw_server):
    for n, (line, code, rid) in enumerate(BAD_LINES):
        raw_server.send(line)
        raw_server.send(
            json.dumps({"jsonrpc": "2.0", "id": 1000 + n, "method": "tools/list"}).encode()
        )
        error = raw_server.receive()
        assert error.get("id") == rid and error["error"]["code"] == code, (n, error)
        answer = raw_server.receive()
        assert answer["id"] == 1000 + n and answer["result"]["tools"], (n, answer)


def test_live_server_still_saves_and_searches_after_garbage(raw_server):
    raw_server.send(b"\x00\x01garbage\xff")
    assert raw_server.receive()["error"]["code"] == PARSE_ERROR
    call = {
        "jsonrpc": "2.0",
        "id": "s1",
        "method": "tools/call",
        "params": {
            "name": "save_memory",
            "arguments": {"text": "The nightly backup job runs at 02:30 on the storage host."},
        },
    }
    raw_server.send(json.dumps(call).encode())
    saved = raw_server.receive()
    assert saved["id"] == "s1" and not saved["result"].get("isError"), saved
    call = {
        "jsonrpc": "2.0",
        "id": "q1",
        "method": "tools/call",
        "params": {"name": "search_memory", "arguments": {"query": "nightly backup job"}},
    }
    raw_server.send(json.dumps(call).encode())
    found = raw_server.receive()
    assert "02:30" in found["result"]["content"][0]["text"], found
