"""The GUI server never freezes: a slow call runs beside the others (a real server, real HTTP).

Each slow call is held at a known point by a test hook (an Event), so every assertion is about
ordering and overlap — "info answered while the listing was still running" — never about how
many milliseconds something took.
"""

from __future__ import annotations

import threading

import pytest

import ihmt.gui.setup as gui_setup
from ihmt import IHMT
from ihmt.gui.locks import ReadWriteLock
from tests.test_gui_security import _build_store, _start, _stop

WAIT = 10.0  # seconds a test waits for something that must happen (never reached when green)


@pytest.fixture
def gui(tmp_path):
    home = tmp_path / "allowed"
    big = home / "big"
    big.mkdir(parents=True)
    for i in range(20_000):
        (big / f"d{i:05d}").mkdir()
    workspace = home / "mem"
    _build_store(workspace)
    (home / "other").mkdir()
    _build_store(home / "other")
    running = _start(workspace, home)
    yield running
    _stop(running)


class Hold:
    """Blocks the thread that reaches it until released; says when one got there."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.release = threading.Event()

    def __call__(self) -> None:
        self.reached.set()
        assert self.release.wait(WAIT), "the test never released the held call"


def in_thread(fn, *args):
    box: dict = {}
    thread = threading.Thread(target=lambda: box.update(result=fn(*args)), daemon=True)
    thread.start()
    return thread, box


def test_a_20000_folder_listing_is_paged(gui):
    big = gui.home / "big"
    status, first = gui.get_json(f"/api/fs/list?path={big}&limit=200")
    assert status == 200
    assert first["total"] == 20_000 and len(first["entries"]) == 200
    assert first["entries"][0]["name"] == "d00000" and first["more"] == 19_800
    status, second = gui.get_json(f"/api/fs/list?path={big}&offset=200&limit=200")
    assert second["entries"][0]["name"] == "d00200" and second["offset"] == 200
    status, last = gui.get_json(f"/api/fs/list?path={big}&offset=19990&limit=200")
    assert len(last["entries"]) == 10 and last["more"] == 0
    assert gui.get_json(f"/api/fs/list?path={big}&limit=100000")[0] == 400


def test_info_and_search_answer_while_a_big_listing_is_in_progress(gui, monkeypatch):
    hold = Hold()
    real = gui_setup._looks_like_store

    def slow_store_check(folder):
        if folder.parent.name == "big":
            hold()
        return real(folder)

    monkeypatch.setattr(gui_setup, "_looks_like_store", slow_store_check)
    listing, box = in_thread(gui.get_json, f"/api/fs/list?path={gui.home / 'big'}&limit=1000")
    assert hold.reached.wait(WAIT)
    try:
        assert gui.get_json("/api/info")[0] == 200
        status, found = gui.post_json("/api/search", {"query": "staging database port"})
        assert status == 200 and found["hits"]
        assert listing.is_alive()  # both answered while the listing was still held
    finally:
        hold.release.set()
    listing.join(WAIT)
    assert box["result"][0] == 200 and len(box["result"][1]["entries"]) == 1000


def test_reads_of_a_store_overlap_and_a_switch_waits_for_them(gui, monkeypatch):
    hold = Hold()
    real_search = IHMT.search

    def held_search(self, query, *args, **kwargs):
        if query == "hold this search":
            hold()
        return real_search(self, query, *args, **kwargs)

    monkeypatch.setattr(IHMT, "search", held_search)
    search, search_box = in_thread(gui.post_json, "/api/search", {"query": "hold this search"})
    assert hold.reached.wait(WAIT)
    lock = gui.server.app.locks.of(gui.workspace)
    try:
        assert lock.readers == 1
        assert gui.get_json("/api/overview")[0] == 200  # a second read ran beside the first
        switch, switch_box = in_thread(
            gui.post_json, "/api/memory/select", {"folder": str(gui.home / "other")}
        )
        switch.join(0.3)
        assert switch.is_alive() and "result" not in switch_box  # the write waits for the read
        assert gui.server.app.workspace == gui.workspace
    finally:
        hold.release.set()
    search.join(WAIT)
    switch.join(WAIT)
    assert search_box["result"][0] == 200
    assert switch_box["result"][0] == 200
    assert gui.get_json("/api/info")[1]["workspace"] == str(gui.home / "other")


def test_a_waiting_writer_holds_back_new_readers():
    lock = ReadWriteLock()
    order: list[str] = []
    first_in = threading.Event()
    let_go = threading.Event()

    def reader(name, gate=None):
        with lock.read():
            order.append(name)
            if gate is not None:
                first_in.set()
                gate.wait(WAIT)

    def writer():
        with lock.write():
            order.append("writer")

    r1 = threading.Thread(target=reader, args=("r1", let_go))
    r1.start()
    assert first_in.wait(WAIT)
    w = threading.Thread(target=writer)
    w.start()
    while not lock._writers_waiting:  # the writer is queued behind r1
        threading.Event().wait(0.001)
    r2 = threading.Thread(target=reader, args=("r2",))
    r2.start()
    let_go.set()
    for t in (r1, w, r2):
        t.join(WAIT)
    assert order == ["r1", "writer", "r2"]
