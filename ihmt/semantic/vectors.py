"""The sidecar of leaf vectors: ``state/embeddings.sqlite3``, derived and rebuildable.

Why SQLite: a save appends a few rows instead of rewriting a file that grows with the store,
several processes can write under its own locking, and a forget deletes in place (with
secure_delete, so a forgotten memory's vector does not linger in free pages). Vectors are
stored as float16 (768 bytes for 384 dimensions) with a prefix of the checksum of the text they
were computed from, so a leaf edited by hand is re-embedded rather than trusted.

Reading keeps an in-memory float32 matrix that is refreshed incrementally: rows with a larger
rowid than the last one seen are appended; a removal (counted in ``meta``) or a new epoch (the
sidecar was cleared) triggers a full reload. Writes need only the standard library; numpy is
imported when the matrix is built, so forget works even without the extra installed.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

FILENAME = "embeddings.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vec (
    rowid INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    checksum TEXT NOT NULL,
    v BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def _new_epoch() -> str:
    """A random epoch tag (``os.urandom``, as ``secrets.token_hex`` uses, without importing
    ``secrets``: the facade imports this module on every open)."""
    return os.urandom(8).hex()


class VectorStore:
    """Leaf id -> unit vector, on disk and (lazily) as one matrix in memory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._lock = threading.Lock()
        # in-memory view
        self._ids: list[str] = []
        self._row_of: dict[str, int] = {}
        self._matrix = None  # numpy float32 [capacity, dim]
        self._count = 0
        self._seen = (None, None, 0)  # (epoch, removals, last rowid)
        self._model: tuple[str, str] | None = None  # (name, dim) written into a new file

    # -- connection --------------------------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None and not self.path.exists():  # deleted under us: start a new file
            conn.close()
            conn = None
        if conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                self.path, timeout=60.0, isolation_level=None, check_same_thread=False
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA secure_delete=ON")
            conn.executescript(_SCHEMA)
            if conn.execute("SELECT 1 FROM meta WHERE key='epoch'").fetchone() is None:
                conn.execute("INSERT OR IGNORE INTO meta VALUES ('epoch', ?)", (_new_epoch(),))
            if self._model and conn.execute("SELECT COUNT(*) FROM vec").fetchone()[0] == 0:
                for key, value in zip(("model", "dim"), self._model, strict=True):
                    conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
            self._local.conn = conn
        return conn

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        conn = self._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def exists(self) -> bool:
        return self.path.exists()

    # -- metadata ----------------------------------------------------------------------------
    def meta(self, key: str, default: str = "") -> str:
        row = self._conn().execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        with self._tx() as conn:
            conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, str(value)))

    def ensure_model(self, model: str, dim: int) -> bool:
        """Bind the sidecar to a model; vectors of another model are dropped. True if cleared."""
        self._model = (model, str(dim))
        if self.meta("model") == model and self.meta("dim") == str(dim):
            return False
        self.clear()
        with self._tx() as conn:
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('model', ?)", (model,))
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('dim', ?)", (str(dim),))
        return True

    # -- writes ------------------------------------------------------------------------------
    def add(self, items: Iterable[tuple[str, str, bytes]]) -> int:
        """Insert (leaf id, checksum, float16 bytes); an id already present is replaced."""
        rows = [(i, short_checksum(c), v) for i, c, v in {r[0]: r for r in items}.values()]
        if not rows:
            return 0
        with self._tx() as conn:
            replaced = 0
            for leaf_id, _, _ in rows:  # a replaced row gets a new rowid: readers must reload
                replaced += conn.execute("DELETE FROM vec WHERE id=?", (leaf_id,)).rowcount
            if replaced:
                _bump_removals(conn, replaced)
            conn.executemany("INSERT INTO vec (id, checksum, v) VALUES (?, ?, ?)", rows)
        return len(rows)

    def remove(self, leaf_ids: Iterable[str]) -> int:
        ids = list(dict.fromkeys(leaf_ids))
        if not ids or not self.path.exists():
            return 0
        removed = 0
        with self._tx() as conn:
            for start in range(0, len(ids), 500):
                part = ids[start : start + 500]
                marks = ",".join("?" * len(part))
                cur = conn.execute(f"DELETE FROM vec WHERE id IN ({marks})", part)
                removed += cur.rowcount
            if removed:
                _bump_removals(conn, removed)
        if removed:
            self.checkpoint()
        return removed

    def clear(self) -> None:
        with self._tx() as conn:
            conn.execute("DELETE FROM vec")
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('epoch', ?)", (_new_epoch(),))
        self.checkpoint()

    # -- reads -------------------------------------------------------------------------------
    def checkpoint(self) -> None:
        """Fold the write-ahead log into the file (after a bulk embed or a removal)."""
        with contextlib.suppress(sqlite3.DatabaseError):
            self._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def count(self) -> int:
        if not self.path.exists():
            return 0
        return int(self._conn().execute("SELECT COUNT(*) FROM vec").fetchone()[0])

    def checksums(self, ids: list[str] | None = None) -> dict[str, str]:
        """Leaf id -> short checksum of the stored vectors (all, or those of ``ids``)."""
        if not self.path.exists():
            return {}
        conn = self._conn()
        if ids is None:
            return dict(conn.execute("SELECT id, checksum FROM vec"))
        out: dict[str, str] = {}
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            out.update(conn.execute(f"SELECT id, checksum FROM vec WHERE id IN ({marks})", part))
        return out

    def size_bytes(self) -> int:
        total = 0
        for suffix in ("", "-wal", "-shm"):
            p = Path(str(self.path) + suffix)
            if p.exists():
                total += p.stat().st_size
        return total

    def matrix(self):
        """(ids, float32 matrix [n, dim]) of every stored vector, refreshed incrementally."""
        import numpy as np

        with self._lock:
            conn = self._conn()
            epoch = self.meta("epoch")
            removals = self.meta("removals", "0")
            last = self._seen[2]
            if (epoch, removals) != self._seen[:2]:
                self._ids, self._row_of, self._matrix, self._count, last = [], {}, None, 0, 0
            rows = conn.execute(
                "SELECT rowid, id, v FROM vec WHERE rowid > ? ORDER BY rowid", (last,)
            ).fetchall()
            if rows:
                block = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float16)
                block = block.reshape(len(rows), -1).astype(np.float32)
                self._append(block, [r[1] for r in rows])
                last = rows[-1][0]
            self._seen = (epoch, removals, last)
            if self._matrix is None:
                return [], np.zeros((0, 0), dtype=np.float32)
            return list(self._ids), self._matrix[: self._count]

    def _append(self, block, ids: list[str]) -> None:
        import numpy as np

        need = self._count + len(ids)
        if self._matrix is None or self._matrix.shape[1] != block.shape[1]:
            self._matrix = np.empty((max(need, 1024), block.shape[1]), dtype=np.float32)
            self._count, self._ids, self._row_of = 0, [], {}
            need = len(ids)
        elif need > self._matrix.shape[0]:
            grown = np.empty((max(need, 2 * self._matrix.shape[0]), block.shape[1]), np.float32)
            grown[: self._count] = self._matrix[: self._count]
            self._matrix = grown
        self._matrix[self._count : need] = block
        for offset, leaf_id in enumerate(ids):
            self._row_of[leaf_id] = self._count + offset
        self._ids.extend(ids)
        self._count = need

    def row_of(self, leaf_id: str) -> int | None:
        """Row of a leaf in the last matrix() (call matrix() first)."""
        return self._row_of.get(leaf_id)


def short_checksum(checksum: str) -> str:
    """16 hex digits of the leaf checksum: enough to notice an edited leaf, half the bytes."""
    return checksum.rsplit(":", 1)[-1][:16]


def _bump_removals(conn: sqlite3.Connection, n: int) -> None:
    row = conn.execute("SELECT value FROM meta WHERE key='removals'").fetchone()
    total = int(row[0]) + n if row else n
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('removals', ?)", (str(total),))
