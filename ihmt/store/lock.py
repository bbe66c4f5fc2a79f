"""One store-wide write lock shared by every process.

An OS lock (``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows) on ``state/write.lock``:
the kernel releases it when the holder dies, so a killed writer never leaves a stale lock.
Re-entrant within one process so a facade call may nest (save -> consolidate). Only writers
take it: readers never create or open the lock file, so a read-only store can still be read.
"""

from __future__ import annotations

import errno
import os
import threading
import time
from pathlib import Path

from ..errors import StoreLockedError
from .catalog import read_only_error

_READ_ONLY_ERRNOS = {errno.EACCES, errno.EPERM, errno.EROFS}

if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


class StoreLock:
    """Exclusive, cross-process, re-entrant write lock."""

    def __init__(self, path: Path, timeout: float = 120.0) -> None:
        self.path = path
        self.timeout = timeout
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    def acquire(self) -> None:
        self._thread_lock.acquire()
        if self._depth > 0:
            self._depth += 1
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            self._thread_lock.release()
            if exc.errno in _READ_ONLY_ERRNOS:
                # the lock is taken only to write, so a lock that cannot be opened for writing
                # means the store cannot be written at all: say that, not "locked"
                folder = self.path.parent
                root = folder.parent if folder.name == "state" else folder  # a store's state/
                raise read_only_error(
                    root, f"cannot open {self.path.name} ({exc.strerror})"
                ) from None
            raise StoreLockedError(
                f"cannot open the store lock {self.path}: {exc.strerror}"
            ) from None
        deadline = time.monotonic() + self.timeout
        delay = 0.001
        while not _try_lock(fd):
            if time.monotonic() > deadline:
                os.close(fd)
                self._thread_lock.release()
                raise StoreLockedError(
                    f"another process has held the store's write lock for {self.timeout:.0f} s"
                )
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        self._fd = fd
        self._depth = 1

    def release(self) -> None:
        if self._depth <= 0:
            raise RuntimeError("release of an unheld store lock")
        self._depth -= 1
        if self._depth == 0 and self._fd is not None:
            try:
                _unlock(self._fd)
            finally:
                os.close(self._fd)
                self._fd = None
        self._thread_lock.release()

    @property
    def held(self) -> bool:
        return self._depth > 0

    @property
    def depth(self) -> int:
        """How many times this process holds the lock (1 = the outermost acquire)."""
        return self._depth

    def __enter__(self) -> StoreLock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()
