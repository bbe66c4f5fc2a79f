"""The resident process itself (see resident.py): load the semantic model once, answer the
hooks' dense searches on this store's socket, exit when idle, when the settings change or when
asked. A service above the facade, like semantic.admin; run as
``python -m ihmt.semantic.resident_server WORKSPACE`` (resident.start does)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from pathlib import Path

from .fusion import DenseHits
from .resident import (
    FAILED_NAME,
    LOCK_NAME,
    MAX_IDS,
    MAX_REQUEST,
    MAX_TEXT,
    address,
    recv_line,
    wanted,
)
from .retriever import SEARCH_CATCH_UP

IDLE_SECONDS = 1800  # a resident process with no request for this long exits
CHECK_SECONDS = 30  # ... and it looks at the store's settings this often


def _request(raw: bytes) -> tuple[str, list[str]] | None:
    """(text, also) of a search, or None for a request to stop."""
    data = json.loads(raw)
    if isinstance(data, dict) and data.get("stop") is True:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
        raise ValueError("a request is {text, also}")
    also = data.get("also", [])
    if not isinstance(also, list) or not all(isinstance(i, str) and len(i) < 200 for i in also):
        raise ValueError("also: a list of memory ids")
    return data["text"][:MAX_TEXT], also[:MAX_IDS]


def _reply(hits: DenseHits | None) -> dict:
    if hits is None:
        return {"none": True}
    return {
        "top": hits.top,
        "score": hits.score,
        "cosine": hits.cosine,
        "best": hits.best,
        "background": hits.background,
    }


def serve(workspace: str, idle: float = IDLE_SECONDS) -> int:
    """Load the model once and answer prompts' dense searches until idle for ``idle`` seconds
    or the store's settings change. Exits at once when another process serves this store."""
    import fcntl

    from ..api import IHMT

    memory = IHMT.open(workspace)
    state_dir = memory.layout.state
    settings = memory.layout.config
    lock = open(state_dir / LOCK_NAME, "a+b")  # noqa: SIM115 - held for the process's life
    for attempt in range(5):  # ``running`` holds the lock for an instant to look at it
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except OSError:
            if attempt == 4:  # another process serves this store
                memory.close()
                lock.close()
                return 0
            time.sleep(0.05)
    path = address(state_dir)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        if memory.semantic is None or not wanted(memory.config):
            return 0
        failed = state_dir / FAILED_NAME
        if memory.semantic.embedder() is None:  # the model cannot load: say so, stop
            with contextlib.suppress(OSError):  # ... and prompts start none for a while
                failed.write_text(memory.semantic.error[:500] + "\n", encoding="utf-8")
            sys.stderr.write(f"ihmt resident model: {memory.semantic.error}\n")
            return 1
        with contextlib.suppress(FileNotFoundError):
            failed.unlink()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        old_mask = os.umask(0o177)  # the socket: read and write for this user only
        try:
            server.bind(path)
        finally:
            os.umask(old_mask)
        server.listen(16)
        server.settimeout(min(idle, CHECK_SECONDS))
        stamp, last = _stamp(settings), time.monotonic()
        served = [0]  # searches answered, told to whoever stops the process
        while time.monotonic() - last < idle and _stamp(settings) == stamp:
            # a changed settings file (semantic switched off, another model): the next
            # prompt starts a process that reads them anew
            try:
                conn, _ = server.accept()
            except TimeoutError:
                _catch_up(memory)
                continue
            with conn:
                if not _answer(conn, memory, served):
                    break
            last = time.monotonic()
        return 0
    finally:
        server.close()
        with contextlib.suppress(OSError):
            if os.path.exists(path):
                os.unlink(path)
        memory.close()
        lock.close()


def _catch_up(memory) -> None:
    """Between prompts, embed the memories saved since (a capture of a few leaves leaves
    them to the next search), so that search does not spend its time budget on them."""
    index = memory.semantic
    try:
        if not index.in_step():
            index.sync(limit=SEARCH_CATCH_UP)
    except Exception:  # a broken sidecar: the next search answers on words, rebuild repairs
        return


def _stamp(path: Path) -> tuple[int, int]:
    try:
        info = path.stat()
    except OSError:
        return (0, 0)
    return (info.st_mtime_ns, info.st_size)


def _answer(conn: socket.socket, memory, served: list[int]) -> bool:
    """Answer one request; False when it asked the process to stop."""
    conn.settimeout(2.0)
    going_on = True
    try:
        request = _request(recv_line(conn, MAX_REQUEST))
        if request is None:
            reply, going_on = {"stopping": True, "answered": served[0]}, False
        else:
            reply = _reply(memory.semantic.search(*request))
            served[0] += 1
    except (OSError, ValueError, RecursionError):  # nesting past the parser's depth too
        reply = {"error": "bad request"}
    with contextlib.suppress(OSError):
        conn.sendall(json.dumps(reply).encode() + b"\n")
    return going_on


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.stderr.write("usage: python -m ihmt.semantic.resident WORKSPACE\n")
        return 2
    started = time.monotonic()
    try:
        return serve(args[0])
    except Exception as exc:  # a background process: nobody reads a traceback
        sys.stderr.write(f"ihmt resident model: {exc} after {time.monotonic() - started:.0f}s\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
