"""The GUI server over plain HTTP: token, Host/Origin checks, headers, static files, set-up writes.

Each test talks to a real server bound to 127.0.0.1 on a free port, in a thread, through
http.client (or a raw socket where http.client would fix the request up for us).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ihmt import IHMT
from ihmt.gui.server import CSP, GuiServer, make_server

ROOT = Path(__file__).resolve().parent.parent

MEMORIES = [
    ("2024-03-11", "Diario. Vivo en Madrid y trabajo en Nubalia Software como desarrolladora."),
    ("2026-02-03", "Diario. Me he mudado: ahora vivo en Valencia, cerca del mar."),
    ("2025-05-02", "The staging database listens on port 8443 behind the VPN."),
    ("2025-06-10", "Luis from the climbing gym recommended the Albarracín boulders."),
]


@dataclass
class Gui:
    server: GuiServer
    home: Path  # the folder browser's root
    workspace: Path

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def token(self) -> str:
        return self.server.token

    def request(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        token: str | bytes | None = "good",
        headers: dict | None = None,
        raw: bytes | None = None,
    ):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        all_headers = {"Host": f"127.0.0.1:{self.port}"}
        if token == "good":
            token = self.token
        if token is not None:
            all_headers["X-IHMT-Token"] = token
        payload = raw
        if body is not None:
            payload = json.dumps(body).encode("utf-8")
            all_headers["Content-Type"] = "application/json"
        all_headers.update(headers or {})
        conn.request(method, path, body=payload, headers=all_headers)
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data

    def get_json(self, path: str, **kwargs):
        status, _headers, data = self.request("GET", path, **kwargs)
        return status, json.loads(data) if data else None

    def post_json(self, path: str, body: object, **kwargs):
        status, _headers, data = self.request("POST", path, body, **kwargs)
        return status, json.loads(data) if data else None

    def alive(self) -> bool:
        return self.get_json("/api/info")[0] == 200


def _build_store(workspace: Path) -> None:
    memory = IHMT.initialize(workspace, branch_factor=4, target_tokens=400, max_tokens=600)
    for when, text in MEMORIES:
        memory.ingest_text(text, source=f"note-{when}", timestamp=when)
    memory.flush()
    memory.close()


def _start(workspace: Path, home: Path) -> Gui:
    server = make_server(workspace, port=0, browse_root=home)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    return Gui(server, home, workspace)


def _stop(gui: Gui) -> None:
    gui.server.shutdown()
    gui.server.server_close()
    gui.server.app.close()


@pytest.fixture
def gui(tmp_path, store_template):
    import shutil

    home = tmp_path / "allowed"
    (home / "projects" / "alpha").mkdir(parents=True)
    (home / "notes.txt").write_text("not a folder", encoding="utf-8")
    workspace = home / "mem"
    shutil.copytree(store_template, workspace)
    running = _start(workspace, home)
    yield running
    _stop(running)


def snapshot(*folders: Path) -> dict[str, bytes]:
    files = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.is_symlink():
                files[str(path)] = path.read_bytes()
    return files


# -- token ---------------------------------------------------------------------------------------
def test_api_without_token_is_forbidden(gui):
    assert gui.get_json("/api/info", token=None)[0] == 403
    assert gui.get_json("/api/overview", token=None)[0] == 403
    assert gui.post_json("/api/search", {"query": "Madrid"}, token=None)[0] == 403


def test_wrong_token_is_forbidden(gui):
    assert gui.get_json("/api/info", token="x" * len(gui.token))[0] == 403
    assert gui.get_json("/api/info", token=gui.token[:-1])[0] == 403
    assert gui.get_json("/api/info?token=nope", token=None)[0] == 403


def test_token_in_query_or_header_is_accepted(gui):
    assert gui.get_json("/api/info")[0] == 200
    status, info = gui.get_json(f"/api/info?token={gui.token}", token=None)
    assert status == 200 and info["workspace"] == str(gui.workspace)


@pytest.mark.parametrize(
    "token",
    [
        "ñ" * 43,  # non-ASCII text, sent as Latin-1 by http.client
        "ñ".encode() * 20,  # raw UTF-8 bytes in the header
        b"\xff\xfe\x00bad",
        "A" * 20_000,  # huge
        "",
    ],
)
def test_malformed_header_token_is_forbidden_and_server_survives(gui, token):
    status, _h, _d = gui.request("GET", "/api/info", token=token)
    assert status in (403, 400)
    assert gui.alive()


@pytest.mark.parametrize(
    "query",
    ["token=%C3%B1%C3%B1", "token=%FF%FE", "token=%00", "token=" + "B" * 30_000, "token="],
)
def test_malformed_query_token_is_forbidden_and_server_survives(gui, query):
    status, _h, _d = gui.request("GET", "/api/info?" + query, token=None)
    assert status == 403
    assert gui.alive()


def test_enormous_request_line_does_not_kill_the_server(gui):
    status, _h, _d = gui.request("GET", "/api/info?token=" + "C" * 70_000, token=None)
    assert status in (403, 414)
    assert gui.alive()


# -- Host and Origin ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "host", ["evil.example:{port}", "127.0.0.1:1", "evil.example", "127.0.0.1"]
)
def test_foreign_host_is_forbidden(gui, host):
    headers = {"Host": host.format(port=gui.port)}
    assert gui.request("GET", "/api/info", headers=headers)[0] == 403
    assert gui.request("GET", "/", headers=headers)[0] == 403  # DNS rebinding: the page too


def test_missing_host_is_forbidden(gui):
    with socket.create_connection(("127.0.0.1", gui.port), timeout=5) as sock:
        sock.sendall(f"GET /api/info?token={gui.token} HTTP/1.0\r\n\r\n".encode())
        reply = sock.recv(200)
    assert reply.split(b"\r\n", 1)[0].endswith(b"403 Forbidden")


def test_localhost_host_is_accepted(gui):
    assert gui.request("GET", "/api/info", headers={"Host": f"localhost:{gui.port}"})[0] == 200


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "null", "http://127.0.0.1:1", "https://127.0.0.1:{port}"]
)
def test_foreign_origin_is_forbidden(gui, origin):
    headers = {"Origin": origin.format(port=gui.port)}
    assert gui.request("GET", "/api/info", headers=headers)[0] == 403
    assert gui.post_json("/api/search", {"query": "Madrid"}, headers=headers)[0] == 403


def test_same_origin_is_accepted(gui):
    for origin in (f"http://127.0.0.1:{gui.port}", f"http://localhost:{gui.port}"):
        assert (
            gui.post_json("/api/search", {"query": "Madrid"}, headers={"Origin": origin})[0] == 200
        )


def test_cross_site_fetch_metadata_is_forbidden(gui):
    assert gui.get_json("/api/info", headers={"Sec-Fetch-Site": "cross-site"})[0] == 403
    assert gui.get_json("/api/info", headers={"Sec-Fetch-Site": "same-site"})[0] == 403
    assert gui.get_json("/api/info", headers={"Sec-Fetch-Site": "same-origin"})[0] == 200


# -- response headers --------------------------------------------------------------------------------
def test_good_request_has_csp_and_no_cors(gui):
    for path in ("/api/info", "/", "/static/app.js"):
        status, headers, _data = gui.request("GET", path)
        assert status == 200, path
        assert headers["content-security-policy"] == CSP
        for directive in (
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            "connect-src 'self'",
            "frame-ancestors 'none'",
            "base-uri 'none'",
            "form-action 'none'",
        ):
            assert directive in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
        assert not [h for h in headers if h.startswith("access-control-")], path
    _status, headers, _data = gui.request("GET", "/api/info")
    assert headers["cache-control"] == "no-store"
    assert headers["content-type"].startswith("application/json")


def test_preflight_and_other_methods_get_no_cors(gui):
    headers = {"Origin": f"http://127.0.0.1:{gui.port}", "Access-Control-Request-Method": "POST"}
    for method in ("OPTIONS", "PUT", "DELETE", "PATCH"):
        status, got, _data = gui.request(method, "/api/search", headers=headers)
        assert status == 405
        assert not [h for h in got if h.startswith("access-control-")]


def test_errors_carry_security_headers(gui):
    status, headers, _data = gui.request("GET", "/api/info", token=None)
    assert status == 403
    assert headers["content-security-policy"] == CSP
    assert headers["x-content-type-options"] == "nosniff"


# -- static files -----------------------------------------------------------------------------------------
def test_static_files_are_served(gui):
    status, headers, data = gui.request("GET", "/", token=None)
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert b"/static/app.js" in data
    for name, kind in (
        ("app.js", "text/javascript"),
        ("app.css", "text/css"),
        ("i18n.js", "text/javascript"),
    ):
        status, headers, _data = gui.request("GET", f"/static/{name}", token=None)
        assert status == 200 and headers["content-type"].startswith(kind)


@pytest.mark.parametrize(
    "path",
    [
        "/../etc/passwd",
        "/static/../../etc/passwd",
        "/static/../server.py",
        "/static/%2e%2e/%2e%2e/etc/passwd",
        "/static/%2e%2e%2fserver.py",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/static/.%2e/server.py",
        "//etc/passwd",
        "/static//etc/passwd",
        "/static/..\\server.py",
        "/static/..%5cserver.py",
        "/static/C:\\Windows\\win.ini",
        "/static/app.js/../../server.py",
        "/static/",
        "/static",
        "/static/.hidden.js",
        "/static/app.py",
        "/etc/passwd",
        "/server.py",
        "http://evil.example/static/app.js",
    ],
)
def test_traversal_attempts_are_refused(gui, path):
    status, _headers, data = gui.request("GET", path, token=None)
    assert status in (403, 404), path
    assert b"root:" not in data and b"import" not in data


STATIC = Path(__file__).resolve().parent.parent / "ihmt" / "gui" / "static"
SERVED = {f.read_bytes() for f in STATIC.iterdir() if f.suffix in (".html", ".css", ".js")}


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(
        st.sampled_from(
            [
                "static",
                "..",
                ".",
                "%2e%2e",
                "%2f",
                "%5c",
                "\\",
                "",
                "app.js",
                "etc",
                "passwd",
                "server.py",
                "C:",
            ]
        ),
        min_size=1,
        max_size=6,
    )
)
def test_only_the_static_allow_list_is_ever_served(gui, segments):
    path = "/" + "/".join(segments)
    status, _headers, data = gui.request("GET", path, token=None)
    if status == 200:
        assert data in SERVED, path  # only ever one of the shipped files
    else:
        assert status in (403, 404), (path, status)


def test_no_directory_listing(gui):
    status, _headers, data = gui.request("GET", "/static/", token=None)
    assert status == 404
    assert b"app.js" not in data


# -- request bodies --------------------------------------------------------------------------------------
def test_request_bodies_are_capped_and_validated(gui):
    big = b'{"query": "' + b"a" * (70 * 1024) + b'"}'
    headers = {"Content-Type": "application/json"}
    assert gui.request("POST", "/api/search", raw=big, headers=headers)[0] == 413
    assert gui.request("POST", "/api/search", raw=b"{not json", headers=headers)[0] == 400
    assert gui.request("POST", "/api/search", raw=b"[1, 2]", headers=headers)[0] == 400
    assert gui.request("POST", "/api/search", raw=b"\xff\xfe", headers=headers)[0] == 400
    text = {"Content-Type": "text/plain"}
    assert gui.request("POST", "/api/search", raw=b'{"query": "x"}', headers=text)[0] == 415
    with socket.create_connection(("127.0.0.1", gui.port), timeout=5) as sock:
        sock.sendall(
            (
                f"POST /api/search HTTP/1.1\r\nHost: 127.0.0.1:{gui.port}\r\n"
                f"X-IHMT-Token: {gui.token}\r\nContent-Type: application/json\r\n\r\n"
            ).encode()
        )
        assert sock.recv(100).split(b"\r\n", 1)[0].endswith(b"411 Length Required")
    assert gui.alive()


def test_bad_parameters_are_clean_errors(gui):
    assert gui.get_json("/api/node?id=N1-../../../etc/passwd")[0] == 400
    assert gui.get_json("/api/node?id=L-not-a-branch")[0] == 400
    assert gui.get_json("/api/node?id=N1-general-0000000000")[0] == 404
    assert gui.get_json("/api/leaf?id=../../etc/passwd")[0] == 400
    assert gui.get_json("/api/leaf?id=L-general-9999-0000000000")[0] == 404
    assert gui.get_json("/api/node?id=root&offset=-1")[0] == 400
    assert gui.get_json("/api/node?id=root&limit=abc")[0] == 400
    assert gui.post_json("/api/search", {"query": ""})[0] == 400
    assert gui.post_json("/api/search", {"query": 5})[0] == 400
    assert gui.post_json("/api/search", {"query": "x", "top_k": "all"})[0] == 400
    assert gui.get_json("/api/nothing")[0] == 404
    assert gui.get_json("/api/search")[0] == 405
    assert gui.alive()


def test_error_bodies_keep_their_shape(gui):
    """Every refusal is {"error", "code", "params"}: the page words the code, whichever module
    raised it (the GUI's request checks, the folder fence, the engine)."""
    leaf = "L-general-9999-0000000000"
    cases = [
        ("/api/node?id=L-x", 400, "bad_id", {}),
        (f"/api/leaf?id={leaf}", 404, "no_memory", {"id": leaf}),
        ("/api/node?id=root&limit=0", 400, "bad_page", {"max": 500}),
        ("/api/fs/list?path=/", 403, "outside_root", {"root": str(gui.home.resolve())}),
        ("/api/fs/list?path=relative", 400, "not_absolute", {}),
    ]
    for path, status, code, params in cases:
        got, body = gui.get_json(path)
        assert (got, set(body)) == (status, {"error", "code", "params"}), path
        assert (body["code"], body["params"]) == (code, params), path
        assert body["error"] and "\n" not in body["error"], path


def test_gui_and_hook_loop_reach_the_memory_only_through_the_facade():
    """No attribute access to the facade's collaborators and no import of store/tree/search
    from ihmt/gui or ihmt/loop (settings.py's atomic file writer is the one import allowed)."""
    import ast

    inner = {"tree", "catalog", "store", "resolver", "layout", "engine"}
    found = []
    for path in sorted((ROOT / "ihmt" / "gui").glob("*.py")) + sorted(
        (ROOT / "ihmt" / "loop").glob("*.py")
    ):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in inner:
                found.append(f"{path.name}:{node.lineno} .{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.level == 2:
                package = (node.module or "").split(".")[0]
                allowed = path.name == "settings.py" and node.module == "store.atomic"
                if package in {"store", "tree", "search"} and not allowed:
                    found.append(f"{path.name}:{node.lineno} from ..{node.module}")
    assert found == []


# -- read-only over the memory ------------------------------------------------------------------------------
def test_browsing_the_memory_changes_no_file(gui):
    before = snapshot(
        gui.workspace / "ihmt_memory" / "layer_0", gui.workspace / "ihmt_memory" / "layers"
    )
    status, overview = gui.get_json("/api/overview")
    assert status == 200 and overview["leaves"] == len(MEMORIES)
    for domain in overview["domains"]:
        status, page = gui.get_json(f"/api/node?id=root&domain={domain['name']}")
        assert status == 200
        stack = list(page["children"])
        while stack:
            ref = stack.pop()
            if ref["kind"] == "leaf":
                status, leaf = gui.get_json(f"/api/leaf?id={ref['id']}")
                assert status == 200 and leaf["content"].strip()
                assert "tf" not in ref and "vocab" not in ref
            else:
                stack += gui.get_json(f"/api/node?id={ref['id']}")[1]["children"]
    status, page = gui.get_json("/api/node?id=root&offset=0&limit=1")
    assert status == 200 and page["total"] == overview["entries"] and len(page["children"]) == 1
    status, page = gui.get_json(f"/api/node?id=root&offset={overview['entries']}&limit=1")
    assert status == 200 and page["children"] == []
    assert gui.post_json("/api/search", {"query": "Madrid"})[0] == 200
    assert gui.get_json("/api/timeline")[0] == 200
    after = snapshot(
        gui.workspace / "ihmt_memory" / "layer_0", gui.workspace / "ihmt_memory" / "layers"
    )
    assert before == after


def test_timeline_reports_supersession(gui):
    status, data = gui.get_json("/api/timeline")
    assert status == 200
    location = next(k for k in data["keys"] if k["key"] == "user::location")
    values = [(p["value"], p["status"]) for p in location["periods"]]
    assert ("Madrid", "HISTORICAL") in values
    assert values[-1][1] == "ACTIVE" and "Valencia" in values[-1][0]
    assert any("Madrid" in c["notice"] for c in data["contradictions"])


# -- the folder browser ----------------------------------------------------------------------------------------
def test_folder_browser_lists_subfolders_only_inside_the_root(gui):
    status, listing = gui.get_json("/api/fs/list")
    assert status == 200
    assert listing["path"] == str(gui.home.resolve())
    names = {e["name"] for e in listing["entries"]}
    assert names == {"projects", "mem"}  # notes.txt is a file: never listed
    assert next(e for e in listing["entries"] if e["name"] == "mem")["store"] is True
    assert listing["parent"] is None
    status, inner = gui.get_json(f"/api/fs/list?path={gui.home / 'projects'}")
    assert status == 200 and [e["name"] for e in inner["entries"]] == ["alpha"]


@pytest.mark.parametrize(
    "path",
    ["/", "/etc", "{home}/..", "{home}/projects/../..", "{outside}"],
)
def test_folder_browser_refuses_paths_outside_the_root(gui, path):
    raw = path.format(home=gui.home, outside=gui.home.parent)
    status, body = gui.get_json("/api/fs/list?path=" + raw)
    assert status == 403, body
    assert "entries" not in body


def test_folder_browser_refuses_relative_and_missing_paths(gui):
    assert gui.get_json("/api/fs/list?path=projects")[0] == 400
    assert gui.get_json(f"/api/fs/list?path={gui.home}/missing")[0] == 400
    assert gui.get_json(f"/api/fs/list?path={gui.home}/notes.txt")[0] == 400


def test_symlinks_are_resolved_before_the_check(gui):
    outside = gui.home.parent / "secret-place"
    (outside / "inner").mkdir(parents=True)
    (gui.home / "sneaky").symlink_to(outside, target_is_directory=True)
    status, listing = gui.get_json("/api/fs/list")
    assert status == 200
    assert "sneaky" not in {e["name"] for e in listing["entries"]}
    assert gui.get_json(f"/api/fs/list?path={gui.home / 'sneaky'}")[0] == 403
    assert (
        gui.post_json(
            "/api/setup/preview", {"kind": "project", "folder": str(gui.home / "sneaky")}
        )[0]
        == 403
    )
    assert gui.post_json("/api/memory/select", {"folder": str(gui.home / "sneaky")})[0] == 403


# -- set-up writes: preview, then confirm -----------------------------------------------------------------------
def test_confirm_refuses_unknown_preview_ids(gui):
    before = snapshot(gui.home)
    for body in ({"id": "nope"}, {"id": 12}, {}, {"id": ""}, {"id": "x" * 500}):
        status, reply = gui.post_json("/api/setup/confirm", body)
        assert status == 400, body
        assert "preview" in reply["error"]
    status, _reply = gui.post_json(
        "/api/setup/confirm", {"path": str(gui.home / "evil.json"), "text": "{}"}
    )
    assert status == 400
    assert snapshot(gui.home) == before


def test_preview_then_confirm_writes_exactly_the_previewed_bytes(gui):
    project = gui.home / "projects" / "alpha"
    before = snapshot(gui.home)
    status, preview = gui.post_json(
        "/api/setup/preview", {"kind": "project", "folder": str(project)}
    )
    assert status == 200 and preview["status"] == "new" and preview["id"]
    assert snapshot(gui.home) == before  # a preview writes nothing
    entry = json.loads(preview["text"])["mcpServers"]["ihmt-memory"]
    assert entry == {
        "command": sys.executable,
        "args": [str(ROOT / "mcp_server.py")],
        "env": {"IHMT_HOME": str(gui.workspace)},
    }
    status, done = gui.post_json("/api/setup/confirm", {"id": preview["id"]})
    assert status == 200
    after = snapshot(gui.home)
    target = str(project / ".mcp.json")
    assert set(after) - set(before) == {target}
    assert after[target] == preview["text"].encode("utf-8")
    assert {k: v for k, v in after.items() if k != target} == before
    assert done["bytes"] == len(after[target])
    # a preview id is good for one write only
    assert gui.post_json("/api/setup/confirm", {"id": preview["id"]})[0] == 400
    # and previewing again now finds nothing to do
    assert (
        gui.post_json("/api/setup/preview", {"kind": "project", "folder": str(project)})[1][
            "status"
        ]
        == "unchanged"
    )


def test_existing_mcp_json_keeps_other_servers(gui):
    project = gui.home / "projects" / "alpha"
    other = {"command": "node", "args": ["/opt/other/server.js"], "env": {"TOKEN_FILE": "/x"}}
    original = {"mcpServers": {"other-server": other}, "someSetting": [1, 2, 3]}
    (project / ".mcp.json").write_text(json.dumps(original), encoding="utf-8")
    status, preview = gui.post_json(
        "/api/setup/preview", {"kind": "project", "folder": str(project)}
    )
    assert status == 200 and preview["status"] == "merge"
    assert preview["other_servers"] == ["other-server"]
    assert gui.post_json("/api/setup/confirm", {"id": preview["id"]})[0] == 200
    written = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    assert written["mcpServers"]["other-server"] == other
    assert written["someSetting"] == [1, 2, 3]
    assert set(written["mcpServers"]) == {"other-server", "ihmt-memory"}


def test_a_different_ihmt_entry_needs_explicit_replacement(gui):
    project = gui.home / "projects" / "alpha"
    other = {"command": "deno", "args": ["run", "x.ts"]}
    stale = {"command": "/old/python", "args": ["/old/mcp_server.py"], "env": {"IHMT_HOME": "/old"}}
    original = json.dumps({"mcpServers": {"ihmt-memory": stale, "other": other}}).encode()
    (project / ".mcp.json").write_bytes(original)
    status, preview = gui.post_json(
        "/api/setup/preview", {"kind": "project", "folder": str(project)}
    )
    assert status == 200 and preview["status"] == "conflict" and preview["id"] is None
    assert preview["existing_entry"] == stale
    assert (project / ".mcp.json").read_bytes() == original
    status, preview = gui.post_json(
        "/api/setup/preview", {"kind": "project", "folder": str(project), "replace": True}
    )
    assert status == 200 and preview["status"] == "replace" and preview["id"]
    assert gui.post_json("/api/setup/confirm", {"id": preview["id"]})[0] == 200
    written = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    assert written["mcpServers"]["other"] == other
    assert written["mcpServers"]["ihmt-memory"]["env"] == {"IHMT_HOME": str(gui.workspace)}


def test_a_file_changed_after_the_preview_is_not_overwritten(gui):
    project = gui.home / "projects" / "alpha"
    (project / ".mcp.json").write_text('{"mcpServers": {}}', encoding="utf-8")
    _status, preview = gui.post_json(
        "/api/setup/preview", {"kind": "project", "folder": str(project)}
    )
    (project / ".mcp.json").write_text(
        '{"mcpServers": {"mine": {"command": "x"}}}', encoding="utf-8"
    )
    status, reply = gui.post_json("/api/setup/confirm", {"id": preview["id"]})
    assert status == 400 and "changed" in reply["error"]
    assert "mine" in (project / ".mcp.json").read_text(encoding="utf-8")


def test_broken_mcp_json_is_refused_not_overwritten(gui):
    project = gui.home / "projects" / "alpha"
    (project / ".mcp.json").write_text("{ broken", encoding="utf-8")
    status, reply = gui.post_json("/api/setup/preview", {"kind": "project", "folder": str(project)})
    assert status == 400 and "not valid JSON" in reply["error"]
    assert (project / ".mcp.json").read_text(encoding="utf-8") == "{ broken"


def test_project_preview_outside_the_root_is_refused(gui):
    outside = gui.home.parent / "elsewhere"
    outside.mkdir()
    status, _reply = gui.post_json(
        "/api/setup/preview", {"kind": "project", "folder": str(outside)}
    )
    assert status == 403
    assert not (outside / ".mcp.json").exists()


def test_creating_a_store_needs_preview_and_confirm(gui):
    before = snapshot(gui.home)
    status, preview = gui.post_json(
        "/api/setup/preview", {"kind": "store", "folder": str(gui.home), "name": "fresh"}
    )
    assert status == 200 and not preview["exists"] and preview["id"]
    assert not (gui.home / "fresh").exists()
    assert snapshot(gui.home) == before
    status, done = gui.post_json("/api/setup/confirm", {"id": preview["id"]})
    assert status == 200 and done["exists"]
    assert (gui.home / "fresh" / "ihmt_memory" / "root.json").is_file()
    assert gui.get_json("/api/info")[1]["workspace"] == str(gui.home / "fresh")
    assert gui.get_json("/api/overview")[1]["leaves"] == 0
    for bad in ("../escape", "a/b", "..", ""):
        body = {"kind": "store", "folder": str(gui.home), "name": bad}
        status, _reply = gui.post_json("/api/setup/preview", body)
        assert status == 400 or (bad == "" and status == 200), bad
    assert not (gui.home.parent / "escape").exists()


def test_first_run_creates_the_missing_default_folder(tmp_path):
    home = tmp_path / "allowed"
    home.mkdir()
    running = _start(home / ".ihmt", home)
    try:
        status, info = running.get_json("/api/info")
        assert status == 200 and not info["exists"]
        assert running.get_json("/api/overview")[1]["code"] == "no_store"
        status, preview = running.post_json(
            "/api/setup/preview", {"kind": "store", "folder": info["workspace"]}
        )
        assert status == 200 and preview["id"] and not (home / ".ihmt").exists()
        assert running.post_json("/api/setup/confirm", {"id": preview["id"]})[0] == 200
        assert (home / ".ihmt" / "ihmt_memory" / "root.json").is_file()
        outside = tmp_path / "not-allowed" / ".ihmt"
        status, _reply = running.post_json(
            "/api/setup/preview", {"kind": "store", "folder": str(outside)}
        )
        assert status in (400, 403) and not outside.exists()
    finally:
        _stop(running)


def test_snippets_use_this_python_and_the_memory_folder(gui):
    status, snippets = gui.get_json("/api/setup/snippets")
    assert status == 200
    assert snippets["claude"]["command"].startswith("claude mcp add ihmt-memory -s user -e ")
    assert f"IHMT_HOME={gui.workspace}" in snippets["claude"]["command"]
    assert sys.executable in snippets["claude"]["command"]
    assert "codex mcp add ihmt-memory --env" in snippets["codex"]["command"]
    assert "[mcp_servers.ihmt-memory]" in snippets["codex"]["config"]
    opencode = json.loads(snippets["opencode"]["json"])["mcp"]["ihmt-memory"]
    assert opencode["type"] == "local" and opencode["environment"] == {
        "IHMT_HOME": str(gui.workspace)
    }


# -- the command line -------------------------------------------------------------------------------------------
def test_gui_py_prints_the_url_and_stops_cleanly_on_ctrl_c(tmp_path, store_template):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "gui.py"),
            "--path",
            str(store_template),
            "--port",
            "0",
            "--no-browser",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("IHMT GUI: http://127.0.0.1:")
        url = line.split(": ", 1)[1].strip()
        port = int(url.split(":")[2].split("/")[0])
        token = url.split("token=", 1)[1]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", f"/api/info?token={token}")
        assert conn.getresponse().status == 200
        conn.close()
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    assert "Traceback" not in err and "stopped" in err


def test_gui_py_rejects_a_bad_port():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "gui.py"), "--port", "70000", "--no-browser"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


# -- the page itself ----------------------------------------------------------------------------------------------
def _i18n_tables() -> dict[str, set[str]]:
    text = (STATIC / "i18n.js").read_text(encoding="utf-8")
    tables = {}
    for lang in ("en", "es"):
        start = text.index(f"\n  {lang}: {{")
        end = text.index("\n  },", start)
        tables[lang] = set(re.findall(r"^\s+'([a-z_.]+)':", text[start:end], flags=re.M))
    return tables


def test_every_string_exists_in_both_languages():
    tables = _i18n_tables()
    assert tables["en"] == tables["es"]
    app = (STATIC / "app.js").read_text(encoding="utf-8")
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    used = set(re.findall(r"\bt\('([a-z_.]+)'", app))
    used |= set(re.findall(r'data-i18n(?:-title|-placeholder)?="([a-z_.]+)"', page))
    for key in re.findall(r"\btn\('([a-z_.]+)'", app):
        used |= {key + ".one", key + ".other"}
    assert used <= tables["en"], used - tables["en"]


def test_page_has_no_inline_code_and_inserts_data_as_text():
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    assert not re.search(r"<script(?![^>]*\bsrc=)", page)  # CSP: no inline script
    assert "<style" not in page and " style=" not in page and "onclick=" not in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    app = (STATIC / "app.js").read_text(encoding="utf-8")
    assert "innerHTML" not in app and "insertAdjacentHTML" not in app and "eval(" not in app
    assert "https://" not in app and "http://" not in app.replace("http://www.w3.org/2000/svg", "")


# -- small set-up promises ------------------------------------------------------------------------
def test_merging_into_mcp_json_keeps_its_file_mode(gui):
    target = gui.home / "projects" / "alpha" / ".mcp.json"
    target.write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}), encoding="utf-8")
    os.chmod(target, 0o644)
    status, preview = gui.post_json(
        "/api/setup/preview", {"kind": "project", "folder": str(target.parent)}
    )
    assert status == 200 and preview["status"] == "merge"
    assert gui.post_json("/api/setup/confirm", {"id": preview["id"]})[0] == 200
    assert "ihmt-memory" in target.read_text(encoding="utf-8")
    assert target.stat().st_mode & 0o777 == 0o644


def test_a_starting_memory_outside_the_root_stays_reachable(tmp_path, store_template):
    import shutil

    home = tmp_path / "allowed"
    (home / "mem").mkdir(parents=True)
    shutil.copytree(store_template, home / "mem", dirs_exist_ok=True)
    outside = tmp_path / "elsewhere" / "start"
    shutil.copytree(store_template, outside)
    running = _start(outside, home)
    try:
        select = "/api/memory/select"
        assert running.post_json(select, {"folder": str(home / "mem")})[0] == 200
        status, back = running.post_json(select, {"folder": str(outside)})
        assert status == 200 and back["workspace"] == str(outside)
        status, listing = running.get_json(f"/api/fs/list?path={outside}")
        assert status == 200 and listing["parent"] is None  # its own folder, nothing above
        assert running.get_json(f"/api/fs/list?path={outside.parent}")[0] == 403
    finally:
        _stop(running)


def test_a_folder_without_a_store_is_not_made_active_before_confirmation(gui):
    empty = gui.home / "projects" / "alpha"
    status, body = gui.post_json("/api/memory/select", {"folder": str(empty)})
    assert status == 400 and body["code"] == "no_store_there"
    assert gui.get_json("/api/info")[1]["workspace"] == str(gui.workspace)
    status, preview = gui.post_json("/api/setup/preview", {"kind": "store", "folder": str(empty)})
    assert status == 200 and preview["exists"] is False
    assert gui.get_json("/api/info")[1]["workspace"] == str(gui.workspace)  # still the old one
    status, made = gui.post_json("/api/setup/confirm", {"id": preview["id"]})
    assert status == 200 and made["workspace"] == str(empty)
