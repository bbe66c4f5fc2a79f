"""A resident process that keeps the semantic model loaded for the agents' hooks.

Each hook is a new process: loading torch and the model costs 3-4 s there, more than the
per-prompt hook may take. So with ``semantic: true`` the session-start hook (or the first
prompt) starts this process in the background; it loads the model once, listens on a Unix
socket only its user can open, and answers each prompt's dense side (``DenseHits``: the
nearest memories and the cosines of the lexical candidates) in a few milliseconds. A prompt
that finds no resident process answers on words alone and starts one for the next prompt.
After 30 idle minutes, or when the store's settings change, it exits.

A process that can load the model itself (``ihmt search``, the MCP server, the GUI) asks the
resident process too while it has not (``SharedModel``): a search from the command line then
takes a fraction of a second instead of about five, and one model serves all of a store's
agents. The MCP server starts one when it opens a semantic store, and a search that finds one
still loading waits for it (once per process) rather than load a second copy; with none
running a process loads its own model, as before.

This module is the prompts' side and what both sides share; the process itself is
resident_server.py (a service above the facade). One process per store: a lock file in the
store's state folder keeps a second one from starting. What comes through the socket is
checked like any other input (sizes, types, finite numbers); a reply that is not what a
resident process writes is ignored (the prompt is answered on words).
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path

from .fusion import DenseHits, Fusion

SETTING = "semantic_resident"  # false in ihmt.config.json: never start one (words alone)
CONNECT_SECONDS = 0.2  # a prompt waits this long to reach it ...
REPLY_SECONDS = 1.0  # ... and this long for its answer, then answers on words
# a process that could load the model itself (the CLI, the MCP server) waits this long, once,
# for a resident process that is still loading it, and this long for each reply
STARTING_WAIT = 30.0
STARTING_POLL = 0.2
LOCK_GRACE = 10.0  # ... and counts one it has just started as loading until it takes the lock
SHARED_REPLY_SECONDS = 10.0
MAX_REQUEST = 64 * 1024  # bytes of one request: a prompt and the lexical candidates' ids
MAX_REPLY = 1024 * 1024
MAX_TEXT = 4000
MAX_IDS = 500
SOCKET_NAME = "embedder.sock"
LOCK_NAME = "embedder.lock"
FAILED_NAME = "embedder.failed"  # why the last one could not load the model (and when)
RETRY_SECONDS = 600  # ... after which a prompt may start another
_UNIX_PATH = 100  # a socket path longer than this does not bind on every platform


def address(state_dir: Path) -> str:
    """The socket's path: in the store's state folder, or where that path is too long for a
    socket, in a folder of this user's only under the temporary directory."""
    here = str(Path(state_dir) / SOCKET_NAME)
    if len(here.encode()) <= _UNIX_PATH:
        return here
    import hashlib

    key = hashlib.sha1(str(Path(state_dir).resolve()).encode()).hexdigest()[:16]
    return str(_private_dir() / f"{key}.sock")


def _private_dir() -> Path:
    import tempfile

    folder = Path(tempfile.gettempdir()) / f"ihmt-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    info = folder.stat()
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise OSError(f"{folder} is not private to this user")
    return folder


def recv_line(conn: socket.socket, limit: int) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
        if len(data) > limit:
            raise ValueError("message too large")
    return data


# -- the prompt's side ---------------------------------------------------------------------------


class ResidentDense:
    """The engine's dense side (``search(text, also)``), answered by the resident process; None
    (words alone) when it is not there, which starts one for the next prompt."""

    def __init__(self, state_dir: Path, workspace: Path, fusion: Fusion) -> None:
        self.state_dir = Path(state_dir)
        self.workspace = Path(workspace)
        self.fusion = fusion
        self.reached = False  # whether the last search was answered by the resident process

    def search(self, text: str, also=()) -> DenseHits | None:
        self.reached = False
        if not supported():
            return None
        try:
            reply = self._ask(search_request(text, also))
        except (OSError, ValueError):
            start(self.workspace, self.state_dir)
            return None
        hits = _hits_of(reply, self.fusion)
        self.reached = hits is not None
        return hits

    def _ask(self, request: dict) -> dict:
        return _exchange(self.state_dir, request, REPLY_SECONDS)


class SharedModel:
    """The dense side of a process that can load the model itself (``ihmt search``, the MCP
    server, the GUI). Until this process has loaded it, a search this store's resident process
    answers goes there: milliseconds instead of the seconds a load costs (``ihmt search`` took
    about 5 s), and one model in memory for all of a store's agents. When none answers, this
    process's own index answers, loading the model as before; it starts no resident process
    (the hooks and the MCP server do). ``reached`` says which side answered the last search."""

    def __init__(self, local, state_dir: Path, config) -> None:
        self.local = local
        self.config = config
        self.state_dir = Path(state_dir)
        self.reached = False
        self.waited = False  # a process waits for a loading resident process once at most
        self.expected_until = 0.0  # this process started one: it may not hold the lock yet

    def expect_resident(self) -> None:
        """This process has just started the store's resident process: until it takes the
        store's lock (a moment after it starts), count it as loading."""
        self.expected_until = time.monotonic() + LOCK_GRACE

    def search(self, text: str, also=()) -> DenseHits | None:
        self.reached = False
        if not self.local.model_loaded() and wanted(self.config):
            hits = self._ask_resident(search_request(text, also))
            if hits is not None:
                self.reached = True
                return hits
        return self.local.search(text, also)

    def _ask_resident(self, request: dict) -> DenseHits | None:
        """The resident process's answer, or None. One that holds the store's lock but does
        not listen yet is loading the model (started a moment ago, by a session start or by
        an MCP server): waiting for it costs no more than loading a second copy here."""
        deadline = time.monotonic() + STARTING_WAIT
        while True:
            try:
                reply = _exchange(self.state_dir, request, SHARED_REPLY_SECONDS)
            except ValueError:
                return None
            except OSError:
                # (one that could not load the model says so and lets the lock go)
                loading = running(self.state_dir) or (
                    time.monotonic() < self.expected_until and not failed_recently(self.state_dir)
                )
                if self.waited or time.monotonic() >= deadline or not loading:
                    self.waited = True
                    return None
                time.sleep(STARTING_POLL)
                continue
            self.waited = True
            return _hits_of(reply, self.local.fusion)


def search_request(text: str, also=()) -> dict:
    """A dense search for the resident process, cut to the sizes it accepts."""
    return {"text": str(text)[:MAX_TEXT], "also": list(also)[:MAX_IDS]}


def _exchange(state_dir: Path, request: dict, reply_seconds: float) -> dict:
    """One request to this store's resident process and its reply (a JSON object); OSError
    when it cannot be reached in time, ValueError when the reply is not an object."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(CONNECT_SECONDS)
        conn.connect(address(Path(state_dir)))
        conn.settimeout(reply_seconds)
        conn.sendall(json.dumps(request).encode() + b"\n")
        reply = json.loads(recv_line(conn, MAX_REPLY) or b"null")
    if not isinstance(reply, dict):
        raise ValueError("not a reply")
    return reply


def _hits_of(reply: dict, fusion: Fusion) -> DenseHits | None:
    """The reply as DenseHits, or None when it is not one a resident process writes."""
    try:
        top = [str(i) for i in reply["top"]]
        score = {str(k): _finite(v) for k, v in reply["score"].items()}
        cosine = {str(k): _finite(v) for k, v in reply["cosine"].items()}
        best = [(str(i), _finite(c)) for i, c in reply["best"]][:2]
        background = _finite(reply["background"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return DenseHits(fusion, top, score, cosine, best, background)


def _finite(value) -> float:
    """A cosine or a score: a number (not a string, not NaN, not infinite)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("not a number")
    number = float(value)
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError("not a finite number")
    return number


def supported() -> bool:
    """Unix sockets and file locks: not on Windows, where prompts are answered on words."""
    try:
        import fcntl  # noqa: F401
    except ImportError:
        return False
    return hasattr(socket, "AF_UNIX")


def wanted(config) -> bool:
    """Semantic search on, and the resident process not switched off in the settings."""
    return bool(config.semantic) and config.extra.get(SETTING, True) is not False and supported()


def running(state_dir: Path) -> bool:
    """Whether a resident process holds this store's lock."""
    import fcntl

    try:
        with open(Path(state_dir) / LOCK_NAME, "a+b") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return True
            fcntl.flock(lock, fcntl.LOCK_UN)
            return False
    except OSError:
        return False


def start(workspace: Path, state_dir: Path) -> bool:
    """Start a resident process for this store in the background (False when one runs or
    it cannot be started). It runs with site-packages, where the model's packages are."""
    if not supported() or running(state_dir) or failed_recently(state_dir):
        return False
    import subprocess

    package_parent = str(Path(__file__).resolve().parents[2])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")])),
    }
    try:
        subprocess.Popen(
            [sys.executable, "-m", "ihmt.semantic.resident_server", str(workspace)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
            env=env,
        )
    except OSError:
        return False
    return True


def failed_recently(state_dir: Path) -> bool:
    """Whether a resident process could not load the model in the last ``RETRY_SECONDS``:
    then prompts do not start one each (each would spend seconds failing the same way)."""
    try:
        when = (Path(state_dir) / FAILED_NAME).stat().st_mtime
    except OSError:
        return False
    return 0 <= time.time() - when < RETRY_SECONDS


def stop(state_dir: Path) -> int | None:
    """Ask this store's resident process to exit: how many searches it answered, or None when
    none was reached."""
    if not supported():
        return None
    try:
        reply = _exchange(state_dir, {"stop": True}, REPLY_SECONDS * 5)
    except (OSError, ValueError):
        return None
    if reply.get("stopping") is not True:
        return None
    answered = reply.get("answered")
    return answered if isinstance(answered, int) else 0
