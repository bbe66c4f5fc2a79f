"""The catalog: a derived SQLite index next to the plain-file store.

Why SQLite (standard library) and not a JSON file: saving one memory must not rewrite a file
whose size grows with the number of memories, several processes write at once, and a killed
writer must leave a consistent index. SQLite gives row-level updates, cross-process
transactions and a journal for free. It is *derived*: ``rebuild`` recreates it from the leaf
files, and a missing or unreadable catalog is rebuilt rather than trusted.

Tables
    leaves    one row per leaf: where its file is, domain, source, order, parent, length
    branches  one row per branch: layer, domain, parent
    terms     document frequency of every indexed term (global BM25 statistics)
    links     OUTDATED links (old leaf -> new leaf), mirrored from records/
    facts     the fact timeline's raw facts (extracted from leaves or recorded)
    pending   leaf files a writer announced before writing them (crash recovery)
    meta      counters: leaf count, total length, generation

One module by design (about 950 lines): every SQL statement on the catalog database lives
here, so the schema, its migrations and every query that depends on them change together.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..errors import CatalogDamagedError, StoreCorruptError, StoreWriteError
from ..text.vocabulary import VOCABULARY_VERSION

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS leaves (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    domain TEXT NOT NULL,
    source TEXT NOT NULL,
    position INTEGER NOT NULL,
    path TEXT NOT NULL,
    timestamp TEXT NOT NULL,
    data_type TEXT NOT NULL,
    checksum TEXT NOT NULL,
    dl INTEGER NOT NULL,
    parent TEXT
);
CREATE INDEX IF NOT EXISTS leaves_source ON leaves(source, position);
CREATE INDEX IF NOT EXISTS leaves_parent ON leaves(parent);
CREATE INDEX IF NOT EXISTS leaves_orphans ON leaves(domain, seq) WHERE parent IS NULL;
CREATE TABLE IF NOT EXISTS branches (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    layer INTEGER NOT NULL,
    domain TEXT NOT NULL,
    path TEXT NOT NULL,
    parent TEXT
);
CREATE INDEX IF NOT EXISTS branches_parent ON branches(parent);
CREATE TABLE IF NOT EXISTS terms (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS links (
    old_id TEXT NOT NULL, new_id TEXT NOT NULL, created TEXT NOT NULL,
    PRIMARY KEY (old_id, new_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS facts (
    rowid INTEGER PRIMARY KEY, source_leaf TEXT, data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS facts_leaf ON facts(source_leaf);
CREATE TABLE IF NOT EXISTS pending (path TEXT PRIMARY KEY, leaf_id TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class Catalog:
    """Thread-safe handle on the catalog database (one connection per thread).

    A catalog this process may not write (a read-only folder, mount or file) is opened for
    reading only, so searches still work; ``read_only`` then says so and every write is
    refused with :func:`read_only_error` before anything is touched.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._ready = False
        self.read_only = False
        self.full = False  # opened for reading only because the disk is full
        self._epoch = 0  # bumped to make every thread reopen (the store became writable)
        self._staging = False  # building a replacement catalog beside the live one

    # -- connection -------------------------------------------------------------------------
    def _conn(self) -> sqlite3.Connection:
        local = self._local
        conn = getattr(local, "conn", None)
        if conn is not None and (
            local.epoch != self._epoch
            or (local.snapshot is not None and local.snapshot != _signature(self.path))
            or _replaced(self.path, local.inode)
        ):
            # an immutable snapshot whose file changed (someone with write access wrote), a
            # store that became writable, or a catalog another process's rebuild swapped in:
            # reopen rather than read stale or torn pages (SQLite neither checkpoints nor
            # deletes side files when it closes a database file that was replaced)
            conn.close()
            conn = local.conn = None
        if conn is None:
            local.snapshot = None
            if not catalog_writable(self.path):
                conn = self._open_read_only("state/ cannot be written")
            else:
                conn = self._open_or_fall_back()
            local.conn = conn
            local.epoch = self._epoch
            local.inode = _inode(self.path)
        return conn

    def _open_or_fall_back(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass
        try:
            return self._open_writable()
        except sqlite3.OperationalError as exc:
            if self._staging:
                raise _write_error(exc, self.path) from None
            if disk_trouble(exc, self.path) == "full":
                # nothing needs writing to answer a search: read, and refuse writes by name
                conn = self._open_read_only(str(exc))
                self.full = True
                return conn
            if "readonly" in str(exc) or "unable to open" in str(exc):
                return self._open_read_only(str(exc))
            if not _damage(exc):
                raise _write_error(exc, self.path) from None
            raise damaged_error(self.path, exc) from None
        except sqlite3.DatabaseError as exc:
            raise damaged_error(self.path, exc) from None

    def _open_writable(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, timeout=60.0, isolation_level=None, check_same_thread=False
        )
        try:
            if self._staging:
                # a replacement built beside the live catalog: thrown away if the process dies,
                # so no write-ahead log and no fsync per commit; made durable once, at the swap
                conn.execute("PRAGMA journal_mode=MEMORY")
                conn.execute("PRAGMA synchronous=OFF")
                if not self._ready:
                    conn.executescript(_SCHEMA)
                    _stamp_if_empty(conn)
                    self._ready = True
                self.read_only = False
                return conn
            conn.execute("PRAGMA journal_mode=WAL")
            # WAL + NORMAL survives any process crash; after a power cut the last commits may be
            # missing, which `check` reports and `check --repair` re-indexes from the leaf files
            # (those are fsynced before their commit).
            conn.execute("PRAGMA synchronous=NORMAL")
            # forgotten text must not linger in free pages of the database file
            conn.execute("PRAGMA secure_delete=ON")
            if not self._ready:
                conn.executescript(_SCHEMA)
                _stamp_if_empty(conn)
                self._ready = True
        except BaseException:
            conn.close()
            raise
        self.read_only = False
        return conn

    def _open_read_only(self, cause: str) -> sqlite3.Connection:
        """A store the user may read but not write still answers searches.

        A WAL database normally needs its ``-shm`` file, which a reader creates when missing:
        impossible in a folder it cannot write. So: ``mode=ro`` when that file exists (or can
        be created), which sees the latest commits and coexists with a writer; otherwise, with
        no committed pages waiting in ``-wal``, an ``immutable`` snapshot of the file that
        needs no side files and is reopened whenever the file changes.
        """
        root = self.path.parent.parent
        if not self.path.exists():
            raise read_only_error(
                root,
                f"it has no catalog yet and {cause}",
                "make it writable and run `ihmt rebuild` to create one",
            )
        wal, shm = _side_file(self.path, "-wal"), _side_file(self.path, "-shm")
        conn = None
        failure: Exception | None = None
        if shm.exists() or path_writable(self.path.parent, folder=True):
            try:
                conn = self._connect_ro("mode=ro")
            except sqlite3.DatabaseError as exc:
                failure = exc
        if conn is None:
            if _size(wal) > 0:
                raise read_only_error(
                    root,
                    "its catalog has recent changes in state/catalog.sqlite3-wal that cannot be "
                    f"read without write access ({failure or cause})",
                    "make state/ writable for one command (any, e.g. `ihmt stats`) to fold them in",
                )
            signature = _signature(self.path)
            try:
                conn = self._connect_ro("mode=ro&immutable=1")
            except sqlite3.DatabaseError as exc:
                if _damage(exc):
                    raise damaged_error(self.path, exc) from None
                raise read_only_error(
                    root, f"its catalog cannot be read ({exc})", "nothing can be searched"
                ) from None
            self._local.snapshot = signature
        self.read_only = True
        self._ready = True
        return conn

    def _connect_ro(self, options: str) -> sqlite3.Connection:
        conn = sqlite3.connect(
            f"{self.path.as_uri()}?{options}",
            uri=True,
            timeout=60.0,
            isolation_level=None,
            check_same_thread=False,
        )
        try:
            conn.execute("SELECT 1 FROM meta LIMIT 1").fetchall()
        except BaseException:
            conn.close()
            raise
        return conn

    def reopen_if_writable(self) -> bool:
        """After the store became writable again (a long-lived server): drop the read-only
        connections so the next use opens the catalog for writing. True when it did."""
        if not self.read_only or not catalog_writable(self.path):
            return False
        if self.full and disk_is_full(self.path):
            return False
        self.read_only = False
        self.full = False
        self._epoch += 1
        return True

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the database and truncate it (after a forget)."""
        try:
            self._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.DatabaseError:
            pass

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT: all or nothing, even if the process is killed."""
        conn = self._conn()
        if self.read_only:
            raise self.refusal()
        if conn.in_transaction:
            yield conn
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as exc:
            raise _write_error(exc, self.path) from None
        try:
            yield conn
        except sqlite3.DatabaseError as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            if not isinstance(exc, sqlite3.OperationalError) and not _damage(exc):
                raise  # an integrity or programming error is a bug, not the disk's doing
            raise _write_error(exc, self.path) from None
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise
        try:
            conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise _write_error(exc, self.path) from None

    def refusal(self) -> StoreWriteError:
        """Why this catalog, opened for reading only, takes no write (one line)."""
        root = self.path.parent.parent
        if self.full:
            return disk_full_error(root, "database or disk is full")
        return read_only_error(root, "its catalog cannot be written")

    def _rows(self, sql: str, params: Iterable = ()) -> list[tuple]:
        try:
            return self._conn().execute(sql, tuple(params)).fetchall()
        except sqlite3.DatabaseError as exc:
            if _damage(exc):
                raise damaged_error(self.path, exc) from None
            if disk_trouble(exc, self.path):
                raise _write_error(exc, self.path) from None
            raise StoreCorruptError(f"catalog query failed ({exc}); try again") from None

    # -- completeness -----------------------------------------------------------------------
    def incomplete(self) -> str:
        """Why the catalog may lack memories that layer_0 holds ("" when it is complete).

        Set when an indexing pass over many files starts and cleared in the transaction that
        ends it, so a killed pass leaves the mark and no later save clears it; one indexed
        lookup, so every search can afford it."""
        try:
            return self.meta("incomplete", "")
        except StoreCorruptError:
            return ""

    def unreadable(self) -> int:
        """How many leaf files the last full pass (rebuild, check, reconcile) could not read
        for lack of permission: search cannot see them, and says so. One indexed lookup."""
        try:
            return max(0, int(self.meta("unreadable", "0")))
        except (StoreCorruptError, ValueError):
            return 0

    def set_unreadable(self, conn: sqlite3.Connection, count: int) -> None:
        """Record the unreadable count a pass found; a pass that finds none clears it."""
        if count > 0:
            self.set_meta(conn, "unreadable", int(count))
        else:
            conn.execute("DELETE FROM meta WHERE key='unreadable'")

    def mark_incomplete(self, why: str) -> None:
        with self.transaction() as conn:
            self.set_meta(conn, "incomplete", why)

    def clear_incomplete(self, conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM meta WHERE key='incomplete'")

    # -- rebuilding beside the live catalog ---------------------------------------------------
    @contextlib.contextmanager
    def staged(self) -> Iterator[list[str]]:
        """Build a replacement catalog in a temporary file in state/ and swap it in when the
        block ends; the live catalog stays untouched (and searchable by other processes) until
        then, and stays in place if the block fails or the process is killed.

        Yields a list that receives what the swap did in words (a damaged catalog moved
        aside). Call with the store's write lock held."""
        home = self.path
        home.parent.mkdir(parents=True, exist_ok=True)
        for stale in home.parent.glob(".catalog.*.rebuild*"):  # from a killed rebuild
            with contextlib.suppress(OSError):
                stale.unlink()
        import tempfile  # here: only a rebuild needs it, readers never do

        try:
            fd, name = tempfile.mkstemp(dir=home.parent, prefix=".catalog.", suffix=".rebuild")
        except OSError as exc:
            raise _os_write_error(exc, home) from None
        os.close(fd)
        staging = Path(name)
        notes: list[str] = []
        self._switch(staging, staging=True)
        try:
            yield notes
            conn = self._conn()
            conn.execute("PRAGMA journal_mode=DELETE")
            self.close()
            _fsync_file(staging)
            notes += self._swap_in(staging, home)
        except BaseException:
            self.close()
            for suffix in ("", "-journal", "-wal", "-shm"):
                with contextlib.suppress(OSError):
                    _side_file(staging, suffix).unlink()
            raise
        finally:
            self._switch(home, staging=False)

    def _switch(self, path: Path, staging: bool) -> None:
        self.close()
        self.path = path
        self._staging = staging
        self._ready = False
        self.read_only = False
        self.full = False
        self._epoch += 1

    def _swap_in(self, staging: Path, home: Path) -> list[str]:
        """Replace ``home`` with ``staging``. A healthy old catalog is checkpointed first, so
        no committed page is left in a -wal that would be replayed onto the new file; a
        damaged one is moved aside with its side files, never deleted."""
        notes = []
        if home.exists():
            problem = catalog_problem(home)
            if problem:
                aside = move_aside(home)
                notes.append(f"moved the damaged catalog ({problem}) aside to state/{aside.name}")
        os.replace(staging, home)
        from .atomic import fsync_dir

        fsync_dir(home.parent)
        return notes

    # -- meta -------------------------------------------------------------------------------
    def meta(self, key: str, default: str = "0") -> str:
        rows = self._rows("SELECT value FROM meta WHERE key=?", (key,))
        return rows[0][0] if rows else default

    def set_meta(self, conn: sqlite3.Connection, key: str, value) -> None:
        conn.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, str(value)),
        )

    def bump_generation(self, conn: sqlite3.Connection) -> int:
        row = conn.execute("SELECT value FROM meta WHERE key='generation'").fetchone()
        # A fresh catalog starts at a random point so that a process which cached state for
        # generation g of a catalog that was since rebuilt never mistakes the new one for it.
        if row:
            gen = int(row[0]) + 1
        else:  # imported here: readers (the hooks) never need it
            import secrets

            gen = secrets.randbits(40) << 12
        self.set_meta(conn, "generation", gen)
        return gen

    def vocabulary_current(self) -> bool:
        """True when the indexed terms were made by today's vocabulary (text/vocabulary.py)."""
        return self.meta("vocabulary", "0") == str(VOCABULARY_VERSION)

    def generation(self) -> int:
        return int(self.meta("generation", "0"))

    def _next_seq(self, conn: sqlite3.Connection) -> int:
        row = conn.execute("SELECT value FROM meta WHERE key='seq'").fetchone()
        seq = int(row[0]) + 1 if row else 1
        self.set_meta(conn, "seq", seq)
        return seq

    # -- statistics -------------------------------------------------------------------------
    def corpus_stats(self) -> tuple[int, float]:
        """(number of leaves, average indexed length) for BM25."""
        rows = self._rows("SELECT key, value FROM meta WHERE key IN ('n_leaves', 'total_dl')")
        data = {k: int(v) for k, v in rows}
        n = data.get("n_leaves", 0)
        avgdl = data.get("total_dl", 0) / n if n else 1.0
        return n, max(avgdl, 1.0)

    def document_frequencies(self, terms: Iterable[str]) -> dict[str, int]:
        terms = sorted(set(terms))
        if not terms:
            return {}
        out: dict[str, int] = {}
        for i in range(0, len(terms), 500):
            chunk = terms[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for term, df in self._rows(
                f"SELECT term, df FROM terms WHERE term IN ({marks})", chunk
            ):
                out[term] = df
        return out

    # -- leaves -----------------------------------------------------------------------------
    def add_leaf(self, conn: sqlite3.Connection, row: dict, term_set: Iterable[str]) -> bool:
        """Index one leaf; False when it was already indexed (idempotent re-ingest)."""
        return bool(self.add_leaves(conn, [(row, term_set)]))

    def add_leaves(
        self, conn: sqlite3.Connection, items: list[tuple[dict, Iterable[str]]]
    ) -> set[str]:
        """Index many leaves in one pass; returns the ids that were new."""
        ids = [row["id"] for row, _ in items]
        present: set[str] = set()
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            marks = ",".join("?" * len(chunk))
            present.update(
                r[0] for r in conn.execute(f"SELECT id FROM leaves WHERE id IN ({marks})", chunk)
            )
        fresh = []
        seen: set[str] = set()
        for row, terms in items:
            if row["id"] in present or row["id"] in seen:
                continue
            seen.add(row["id"])
            fresh.append((row, set(terms)))
        if not fresh:
            return set()
        first = self._next_seq(conn)
        self.set_meta(conn, "seq", first + len(fresh) - 1)
        conn.executemany(
            "INSERT INTO leaves(id, seq, domain, source, position, path, timestamp, data_type,"
            " checksum, dl, parent) VALUES(?,?,?,?,?,?,?,?,?,?,NULL)",
            [
                (
                    row["id"],
                    first + i,
                    row["domain"],
                    row["source"],
                    row["position"],
                    row["path"],
                    row["timestamp"],
                    row["data_type"],
                    row["checksum"],
                    row["dl"],
                )
                for i, (row, _) in enumerate(fresh)
            ],
        )
        df: dict[str, int] = {}
        per_domain: dict[str, int] = {}
        total_dl = 0
        for row, terms in fresh:
            for term in terms:
                df[term] = df.get(term, 0) + 1
            per_domain[row["domain"]] = per_domain.get(row["domain"], 0) + 1
            total_dl += row["dl"]
        conn.executemany(
            "INSERT INTO terms(term, df) VALUES(?, ?) ON CONFLICT(term) DO UPDATE SET"
            " df=df+excluded.df",
            list(df.items()),
        )
        self._add_counts(conn, len(fresh), total_dl)
        for domain, count in per_domain.items():
            self._bump(conn, f"leaves_domain:{domain}", count)
        return {row["id"] for row, _ in fresh}

    def _bump(self, conn: sqlite3.Connection, key: str, delta: int) -> None:
        conn.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET"
            " value=CAST(CAST(value AS INTEGER) + ? AS TEXT)",
            (key, str(delta), delta),
        )

    def remove_leaf(self, conn: sqlite3.Connection, leaf_id: str, term_set: Iterable[str]) -> None:
        row = conn.execute("SELECT dl, domain FROM leaves WHERE id=?", (leaf_id,)).fetchone()
        if not row:
            return
        self._bump(conn, f"leaves_domain:{row[1]}", -1)
        conn.execute("DELETE FROM leaves WHERE id=?", (leaf_id,))
        conn.executemany("UPDATE terms SET df=df-1 WHERE term=?", [(t,) for t in set(term_set)])
        conn.execute("DELETE FROM terms WHERE df<=0")
        conn.execute("DELETE FROM facts WHERE source_leaf=?", (leaf_id,))
        self._add_counts(conn, -1, -row[0])

    def _add_counts(self, conn: sqlite3.Connection, leaves: int, dl: int) -> None:
        for key, delta in (("n_leaves", leaves), ("total_dl", dl)):
            conn.execute(
                "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET"
                " value=CAST(CAST(value AS INTEGER) + ? AS TEXT)",
                (key, str(delta), delta),
            )

    def leaf_row(self, leaf_id: str) -> dict | None:
        rows = self._rows(
            "SELECT id, domain, source, position, path, timestamp, data_type, checksum, dl, parent"
            " FROM leaves WHERE id=?",
            (leaf_id,),
        )
        return _leaf_dict(rows[0]) if rows else None

    def leaves_of_source(self, source: str) -> list[dict]:
        rows = self._rows(
            "SELECT id, domain, source, position, path, timestamp, data_type, checksum, dl, parent"
            " FROM leaves WHERE source=? ORDER BY position",
            (source,),
        )
        return [_leaf_dict(r) for r in rows]

    def all_leaves(self) -> list[dict]:
        rows = self._rows(
            "SELECT id, domain, source, position, path, timestamp, data_type, checksum, dl, parent"
            " FROM leaves ORDER BY source, position"
        )
        return [_leaf_dict(r) for r in rows]

    def leaf_checksums(self) -> dict[str, str]:
        """Every indexed leaf's checksum by id (what the vector sidecar is compared with)."""
        return dict(self._rows("SELECT id, checksum FROM leaves"))

    def leaves_in_order(self, after_seq: int = 0) -> list[tuple[str, int, str, str, int, str]]:
        """(id, seq, domain, source, position, timestamp) of the leaves stored after
        ``after_seq``, in storage order (semantic/context.py links neighbours with them)."""
        return self._rows(
            "SELECT id, seq, domain, source, position, timestamp FROM leaves"
            " WHERE seq > ? ORDER BY seq",
            (after_seq,),
        )

    def sources(self) -> list[str]:
        return [r[0] for r in self._rows("SELECT DISTINCT source FROM leaves ORDER BY source")]

    def leaf_ids_like(self, prefix: str) -> list[str]:
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return [
            r[0]
            for r in self._rows(
                "SELECT id FROM leaves WHERE id LIKE ? ESCAPE '\\' ORDER BY id LIMIT 20",
                (escaped + "%",),
            )
        ]

    # -- tree links -------------------------------------------------------------------------
    def add_branch(
        self, conn: sqlite3.Connection, branch_id: str, layer: int, domain: str, path: str
    ) -> None:
        if conn.execute("SELECT 1 FROM branches WHERE id=?", (branch_id,)).fetchone():
            conn.execute("UPDATE branches SET path=?, layer=? WHERE id=?", (path, layer, branch_id))
            return
        seq = self._next_seq(conn)
        conn.execute(
            "INSERT INTO branches(id, seq, layer, domain, path, parent) VALUES(?,?,?,?,?,NULL)",
            (branch_id, seq, layer, domain, path),
        )
        self._bump(conn, f"branches_layer:{layer}", 1)

    def remove_branch(self, conn: sqlite3.Connection, branch_id: str) -> None:
        row = conn.execute("SELECT layer FROM branches WHERE id=?", (branch_id,)).fetchone()
        if row:
            conn.execute("DELETE FROM branches WHERE id=?", (branch_id,))
            self._bump(conn, f"branches_layer:{row[0]}", -1)

    def set_parent(
        self, conn: sqlite3.Connection, child_ids: Iterable[str], parent: str | None
    ) -> None:
        child_ids = list(child_ids)
        leaves = [(parent, c) for c in child_ids if c.startswith("L-")]
        branches = [(parent, c) for c in child_ids if not c.startswith("L-")]
        if leaves:
            conn.executemany("UPDATE leaves SET parent=? WHERE id=?", leaves)
        if branches:
            conn.executemany("UPDATE branches SET parent=? WHERE id=?", branches)

    def branch_row(self, branch_id: str) -> dict | None:
        rows = self._rows(
            "SELECT id, layer, domain, path, parent FROM branches WHERE id=?", (branch_id,)
        )
        if not rows:
            return None
        r = rows[0]
        return {"id": r[0], "layer": r[1], "domain": r[2], "path": r[3], "parent": r[4]}

    def all_branches(self) -> list[dict]:
        rows = self._rows(
            "SELECT id, layer, domain, path, parent FROM branches ORDER BY layer, seq"
        )
        return [
            {"id": r[0], "layer": r[1], "domain": r[2], "path": r[3], "parent": r[4]} for r in rows
        ]

    def parentless(self) -> list[tuple[str, str, int]]:
        """Every node without a parent: (id, domain, layer), in creation order per layer."""
        leaves = self._rows("SELECT id, domain, 0 FROM leaves WHERE parent IS NULL ORDER BY seq")
        branches = self._rows(
            "SELECT id, domain, layer FROM branches WHERE parent IS NULL ORDER BY layer, seq"
        )
        return [tuple(r) for r in leaves] + [tuple(r) for r in branches]

    def parent_of(self, node_id: str) -> str | None:
        table = "leaves" if node_id.startswith("L-") else "branches"
        rows = self._rows(f"SELECT parent FROM {table} WHERE id=?", (node_id,))
        return rows[0][0] if rows else None

    # -- pending writes (crash recovery) -----------------------------------------------------
    def announce(self, entries: list[tuple[str, str]]) -> None:
        with self.transaction() as conn:
            conn.executemany("INSERT OR REPLACE INTO pending(path, leaf_id) VALUES(?, ?)", entries)

    def pending(self) -> list[tuple[str, str]]:
        return [tuple(r) for r in self._rows("SELECT path, leaf_id FROM pending")]

    def clear_pending(self, conn: sqlite3.Connection, paths: Iterable[str]) -> None:
        conn.executemany("DELETE FROM pending WHERE path=?", [(p,) for p in paths])

    # -- links and facts --------------------------------------------------------------------
    def add_link(self, conn: sqlite3.Connection, old_id: str, new_id: str, created: str) -> None:
        conn.execute(
            "INSERT OR IGNORE INTO links(old_id, new_id, created) VALUES(?,?,?)",
            (old_id, new_id, created),
        )

    def links(self) -> list[tuple[str, str, str]]:
        return [tuple(r) for r in self._rows("SELECT old_id, new_id, created FROM links")]

    def stale_links(self, backed: set[tuple[str, str]]) -> list[tuple[str, str]]:
        """OUTDATED links no record in ``backed`` (old id, new id) keeps any more, or whose
        old or new leaf is gone: what a rebuild from the leaves and records would drop."""
        return [
            (old, new)
            for old, new, _ in self.links()
            if (old, new) not in backed or self.leaf_row(old) is None or self.leaf_row(new) is None
        ]

    def remove_links(self, conn: sqlite3.Connection, pairs: Iterable[tuple[str, str]]) -> None:
        conn.executemany("DELETE FROM links WHERE old_id=? AND new_id=?", list(pairs))

    def remove_links_of(self, conn: sqlite3.Connection, leaf_ids: Iterable[str]) -> None:
        """Every link from or to these leaves (they are being forgotten)."""
        conn.executemany("DELETE FROM links WHERE old_id=? OR new_id=?", [(i, i) for i in leaf_ids])

    def add_facts(self, conn: sqlite3.Connection, facts: list[dict]) -> None:
        conn.executemany(
            "INSERT INTO facts(source_leaf, data) VALUES(?, ?)",
            [(f.get("source_leaf"), json.dumps(f, ensure_ascii=False)) for f in facts],
        )

    def all_facts(self) -> list[dict]:
        return [json.loads(r[0]) for r in self._rows("SELECT data FROM facts ORDER BY rowid")]

    def counts(self) -> dict:
        """Counters kept in meta by every insert and delete: no table scan, O(1) in n."""
        per_layer: dict[int, int] = {}
        per_domain: dict[str, int] = {}
        leaves = 0
        for key, value in self._rows(
            "SELECT key, value FROM meta WHERE key LIKE 'branches_layer:%'"
            " OR key LIKE 'leaves_domain:%' OR key='n_leaves'"
        ):
            count = int(value)
            if key == "n_leaves":
                leaves = count
            elif count > 0 and key.startswith("branches_layer:"):
                per_layer[int(key.split(":", 1)[1])] = count
            elif count > 0:
                per_domain[key.split(":", 1)[1]] = count
        return {"leaves": leaves, "branches_per_layer": per_layer, "leaves_per_domain": per_domain}


def _stamp_if_empty(conn: sqlite3.Connection) -> None:
    """An empty catalog will be filled with today's terms: record the vocabulary it uses. A
    filled one keeps the stamp it has (none for a store indexed before stamps existed)."""
    if conn.execute("SELECT 1 FROM leaves LIMIT 1").fetchone() is None:
        conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES('vocabulary', ?)",
            (str(VOCABULARY_VERSION),),
        )


def catalog_problem(path: Path) -> str:
    """Why the catalog file at ``path`` cannot serve as the index ("" when it can).

    A healthy one is also checkpointed (its -wal folded in and truncated), so it can be
    replaced without leaving committed pages in side files."""
    if _size(path) == 0:
        return "an empty file"
    try:
        conn = sqlite3.connect(path, timeout=60.0, isolation_level=None)
    except sqlite3.Error as exc:
        return str(exc)
    try:
        row = conn.execute("PRAGMA quick_check(1)").fetchone()
        if not row or row[0] != "ok":
            return f"integrity check: {row[0] if row else 'no answer'}"
        conn.execute("SELECT value FROM meta LIMIT 1").fetchall()
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy and busy[0]:
            raise StoreWriteError(
                f"the catalog {path} is busy in another process; close it and run the rebuild again"
            )
        with contextlib.suppress(sqlite3.OperationalError):  # refused while others have it open
            conn.execute("PRAGMA journal_mode=DELETE")
    except sqlite3.DatabaseError as exc:
        if _damage(exc):
            return str(exc)
        raise _write_error(exc, path) from None
    finally:
        conn.close()
    return ""


def move_aside(path: Path) -> Path:
    """Rename a damaged catalog and its side files to ``<name>.damaged-<UTC time>``."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    for suffix in ("-wal", "-shm", "-journal"):
        side = _side_file(path, suffix)
        if side.exists():
            os.replace(side, _side_file(target, suffix))
    os.replace(path, target)
    return target


def damaged_error(path: Path, exc: BaseException | str) -> CatalogDamagedError:
    """The one message every command gives on a damaged catalog: what and the command."""
    return CatalogDamagedError(
        f"the catalog {path} is damaged ({exc}); run `ihmt rebuild` to move it aside and "
        "rebuild it from the memories (no memory is lost)"
    )


def disk_full_error(root: Path, detail: str) -> StoreWriteError:
    return StoreWriteError(
        f"the disk holding {root} is full ({detail}); free space and retry; nothing was changed"
    )


DISK_FULL_BYTES = 1 << 20  # below this much free space, an I/O error is taken for a full disk


def disk_is_full(path: Path) -> bool:
    """Free space (for this user) on the file system holding ``path`` is below 1 MiB."""
    probe = path if path.exists() else path.parent
    try:
        st = os.statvfs(probe)
    except (OSError, AttributeError):  # pragma: no cover - Windows has no statvfs
        return False
    return st.f_bavail * st.f_frsize < DISK_FULL_BYTES


def disk_trouble(exc: BaseException, path: Path) -> str:
    """ "full" for a full disk, "io" for another I/O failure, "" for neither."""
    text = str(exc)
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        return "full"
    if "full" in text:
        return "full"
    if "disk I/O" in text or (isinstance(exc, OSError) and exc.errno == errno.EIO):
        return "full" if disk_is_full(path) else "io"
    return ""


def read_only_error(root: Path, detail: str, advice: str = "") -> StoreWriteError:
    """The one message every refused write (or unreadable catalog) on a read-only store gives;
    by default it names the fix (write access for this user) and that nothing changed."""
    advice = advice or (
        f"nothing was changed; to write, give this user write access (`chmod -R u+w {root}`, "
        "or run ihmt as the store's owner)"
    )
    return StoreWriteError(f"the memory at {root} is read-only: {detail}; {advice}")


def catalog_writable(path: Path) -> bool:
    """Whether this process may write the catalog: the file and its folder (SQLite creates
    ``-wal``/``-shm`` beside it). A folder that does not exist yet is left to the open."""
    if not path.parent.exists():
        return True
    if not path_writable(path.parent, folder=True):
        return False
    return not path.exists() or path_writable(path)


def path_writable(path: Path, folder: bool = False) -> bool:
    """os.access with the effective ids (what the kernel will enforce, read-only mounts too).

    Windows: only files; a folder's read-only attribute there means "customized", not "locked".
    """
    if folder and os.name == "nt":  # pragma: no cover - Windows only
        return True
    if os.access in os.supports_effective_ids:
        return os.access(path, os.W_OK, effective_ids=True)
    return os.access(path, os.W_OK)  # pragma: no cover - platforms without effective ids


def _side_file(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except OSError:
        return None


def _replaced(path: Path, inode: int | None) -> bool:
    """Another file now sits at ``path`` (a rebuild swapped one in). A file deleted by hand
    is no reason to reopen: that would start an empty catalog under a running process."""
    now = _inode(path)
    return now is not None and now != inode


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _damage(exc: BaseException) -> bool:
    """SQLite's words for a file that is not (or no longer) a usable database."""
    text = str(exc)
    return type(exc) is sqlite3.DatabaseError or any(
        marker in text
        for marker in ("not a database", "malformed", "database corrupt", "no such table")
    )


def _signature(path: Path) -> tuple:
    """What changes when anyone writes the catalog: the file itself and a write-ahead log."""
    try:
        st = path.stat()
        main = (st.st_ino, st.st_size, st.st_mtime_ns)
    except OSError:
        main = None
    return main, _side_file(path, "-wal").exists()


def _os_write_error(exc: OSError, path: Path) -> StoreWriteError:
    root = path.parent.parent
    if disk_trouble(exc, path) == "full":
        return disk_full_error(root, exc.strerror or str(exc))
    return StoreWriteError(f"could not write {path} ({exc.strerror or exc}); nothing was changed")


def _write_error(exc: sqlite3.DatabaseError, path: Path) -> StoreWriteError | StoreCorruptError:
    """A failed catalog write in words a user can act on; nothing was committed."""
    text = str(exc)
    trouble = disk_trouble(exc, path)
    if trouble == "full":
        return disk_full_error(path.parent.parent, text)
    if trouble == "io":
        return StoreWriteError(
            f"the disk holding {path.parent.parent} failed a read or write ({text}); "
            "nothing was changed — check the disk and retry"
        )
    if _damage(exc):
        return damaged_error(path, exc)
    if "readonly" in text or "read-only" in text:
        return StoreWriteError(
            "the store is read-only (cannot write state/catalog.sqlite3); nothing was saved"
        )
    return StoreWriteError(f"could not write the store's catalog ({text}); nothing was saved")


def _leaf_dict(r: tuple) -> dict:
    keys = (
        "id",
        "domain",
        "source",
        "position",
        "path",
        "timestamp",
        "data_type",
        "checksum",
        "dl",
        "parent",
    )
    return dict(zip(keys, r, strict=True))
