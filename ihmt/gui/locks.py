"""Read/write coordination for the GUI's requests: many readers of a store, or one writer.

Why not one lock: a slow call (a search over a large store, a folder with 20,000 subfolders)
must not freeze every other call. Reads of a store run side by side; what changes which store
is open (switching, creating) waits for the reads of that store and runs alone; calls that do
not touch a store (folder listing, info) take no store lock at all.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class ReadWriteLock:
    """Many readers or one writer; a waiting writer holds back new readers so it is not starved."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer = False
        self._writers_waiting = 0

    @contextmanager
    def read(self) -> Iterator[None]:
        with self._cond:
            while self._writer or self._writers_waiting:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    @contextmanager
    def write(self) -> Iterator[None]:
        with self._cond:
            self._writers_waiting += 1
            try:
                while self._writer or self._readers:
                    self._cond.wait()
            finally:
                self._writers_waiting -= 1
            self._writer = True
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()

    @property
    def readers(self) -> int:
        """How many reads hold the lock now (tests use it to prove overlap)."""
        with self._cond:
            return self._readers


class StoreLocks:
    """One ReadWriteLock per memory folder, made on first use."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, ReadWriteLock] = {}

    def of(self, workspace: object) -> ReadWriteLock:
        key = str(workspace)
        with self._guard:
            lock = self._locks.get(key)
            if lock is None:
                lock = self._locks[key] = ReadWriteLock()
            return lock


__all__ = ["ReadWriteLock", "StoreLocks"]
