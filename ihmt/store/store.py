"""MemoryStore: leaf files, the write lock, crash recovery, check and rebuild.

Every write goes through ``writing()``: it refuses at once on a store this process cannot
write (reads need no lock and replay nothing, so a read-only store still answers), takes the
store-wide OS lock and, before doing anything else, finishes whatever a killed writer left
announced in the catalog's ``pending`` table (a leaf written but not indexed is indexed; a
removal half done is completed).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path

from ..config import IHMTConfig
from ..errors import StoreCorruptError
from ..models import CheckReport, MemoryLeaf
from ..tree.builder import Tree
from ..tree.refs import leaf_ref, leaf_terms
from .atomic import atomic_write_bytes, remove_stale_temps
from .catalog import (
    Catalog,
    catalog_writable,
    disk_full_error,
    disk_trouble,
    path_writable,
    read_only_error,
)
from .ids import header_problem, inside, valid_domain, valid_leaf_id
from .layout import StoreLayout
from .leaf_files import leaf_checksum, leaf_from_header, read_leaf_file
from .leaf_format import parse_leaf, render_leaf
from .lock import StoreLock
from .quarantine import entries as quarantine_entries
from .quarantine import move_aside
from .records import read_records
from .salvage import salvage

log = logging.getLogger("ihmt.store")


def leaf_row(layout: StoreLayout, leaf: MemoryLeaf, dl: int) -> dict:
    return {
        "id": leaf.leaf_id,
        "domain": leaf.domain,
        "source": leaf.source,
        "position": leaf.position,
        "path": layout.relative(layout.leaf_path(leaf.domain, leaf.leaf_id)),
        "timestamp": leaf.timestamp,
        "data_type": leaf.data_type,
        "checksum": leaf.checksum,
        "dl": dl,
    }


class MemoryStore:
    def __init__(
        self, layout: StoreLayout, config: IHMTConfig, tree: Tree, catalog: Catalog
    ) -> None:
        self.layout = layout
        self.config = config
        self.tree = tree
        self.catalog = catalog
        self.lock = StoreLock(layout.lock)
        self.fact_hook = None  # callable(leaf) -> list[dict], set by the facade
        self.last_facts: list[dict] = []  # facts extracted by the last index_leaves call

    # -- locking and recovery ----------------------------------------------------------------
    @contextlib.contextmanager
    def writing(self, recover: bool = True) -> Iterator[None]:
        """The write lock, after finishing what a killed writer left (unless ``recover`` is
        False: a rebuild re-derives everything and must not need the old catalog). A full
        disk met anywhere inside is named as such, with the store's path."""
        if not self.lock.held:
            self.refuse_if_read_only()
        try:
            with self.lock:
                if self.lock.depth == 1 and recover:
                    self.recover()
                    self.tree.entries()  # start every write from the trunk other writers left
                yield
        except OSError as exc:
            if disk_trouble(exc, self.layout.catalog) != "full":
                raise
            raise disk_full_error(self.layout.root, exc.strerror or str(exc)) from None

    def refuse_if_read_only(self) -> None:
        """Refuse a write up front on a store this process cannot write, so that nothing is
        half done (no lock file, no pending replay, no leaf file) and the message is one line."""
        root = self.layout.root
        for path in (root, self.layout.state, self.layout.layer0):
            if path.exists() and not path_writable(path, folder=True):
                where = "its folder" if path == root else f"{path.relative_to(root)}/"
                raise read_only_error(root, f"{where} cannot be written")
        if not catalog_writable(self.layout.catalog):
            raise read_only_error(root, "state/catalog.sqlite3 cannot be written")
        if self.catalog.read_only and not self.catalog.reopen_if_writable():
            if self.catalog.full:
                raise self.catalog.refusal()
            raise read_only_error(root, "its catalog could only be opened for reading")

    def recover(self) -> list[str]:
        """Finish writes a killed process announced; returns what was done, in words."""
        done = []
        pending = self.catalog.pending()
        if not pending:
            return done
        for rel, leaf_id in pending:
            path = self.layout.root / rel
            if leaf_id.startswith("-"):
                self.remove_leaves([leaf_id[1:]])
                done.append(f"completed the removal of {leaf_id[1:]}")
                continue
            if self.catalog.leaf_row(leaf_id) is None and path.exists():
                try:
                    leaf = read_leaf_file(path)
                except PermissionError:
                    done.append(unreadable_note(rel))
                    continue
                except StoreCorruptError:
                    path.unlink(missing_ok=True)
                    done.append(f"discarded a half-written leaf {path.name}")
                else:
                    self.index_leaves([leaf])
                    done.append(f"indexed leaf {leaf_id} written before an interruption")
        with self.catalog.transaction() as conn:
            self.catalog.clear_pending(conn, [p for p, _ in pending])
        remove_stale_temps(self.layout.root)
        if done:
            log.warning("recovered an interrupted write: %s", "; ".join(done))
        return done

    # -- leaves --------------------------------------------------------------------------------
    def read_leaf(self, leaf_id: str) -> MemoryLeaf | None:
        row = self.catalog.leaf_row(leaf_id)
        if row is None:
            return None
        try:
            return read_leaf_file(self.layout.root / row["path"])
        except (OSError, StoreCorruptError):
            return None

    def write_leaves(self, leaves: list[MemoryLeaf]) -> list[MemoryLeaf]:
        """Write new leaves and index them; returns the ones that were not stored before.

        Order: announce (pending), write the files, make them durable, then index them in one
        transaction. A single leaf is fsynced on its own; a batch is written first and made
        durable with one os.sync(), which costs one flush instead of one per file.
        """
        seen: set[str] = set()
        fresh = []
        for leaf in leaves:
            if leaf.leaf_id in seen or self.catalog.leaf_row(leaf.leaf_id) is not None:
                continue
            seen.add(leaf.leaf_id)
            fresh.append(leaf)
        if not fresh:
            return []
        self.catalog.announce(
            [
                (
                    self.layout.relative(self.layout.leaf_path(leaf.domain, leaf.leaf_id)),
                    leaf.leaf_id,
                )
                for leaf in fresh
            ]
        )
        bulk = len(fresh) > 8 and hasattr(os, "sync")
        folders = set()
        for leaf in fresh:
            path = self.layout.leaf_path(leaf.domain, leaf.leaf_id)
            atomic_write_bytes(path, render_leaf(leaf.header(), leaf.content), durable=not bulk)
            folders.add(path.parent)
        if bulk:
            os.sync()
        self.index_leaves(fresh)
        return fresh

    def index_leaves(self, leaves: list[MemoryLeaf]) -> None:
        counted = [(leaf, leaf_terms(leaf)) for leaf in leaves]
        # the trunk as of the catalog's current generation (another process may have written
        # since this one last did); only then is it safe to stamp it with our new generation
        self.tree.entries()
        with self.catalog.transaction() as conn:
            fresh = self.catalog.add_leaves(
                conn,
                [
                    (leaf_row(self.layout, leaf, sum(counts.values())), counts.keys())
                    for leaf, counts in counted
                ],
            )
            refs = []
            facts = []
            for leaf, counts in counted:
                if leaf.leaf_id in fresh:
                    fresh.discard(leaf.leaf_id)
                    refs.append(leaf_ref(leaf, counts))
                    if self.fact_hook is not None:
                        facts += self.fact_hook(leaf)
            if facts:
                self.catalog.add_facts(conn, facts)
            paths = [
                self.layout.relative(self.layout.leaf_path(x.domain, x.leaf_id)) for x in leaves
            ]
            self.catalog.clear_pending(conn, paths)
            generation = self.catalog.bump_generation(conn)
        self.tree.adopt_generation(generation)
        self.tree.add_entries(refs)
        self.last_facts = facts

    def remove_leaves(self, leaf_ids: list[str]) -> int:
        """Take leaves out of the tree, the catalog and the disk (announced first)."""
        rows = [r for r in (self.catalog.leaf_row(i) for i in leaf_ids) if r is not None]
        if not rows:
            return 0
        self.catalog.announce([(r["path"], "-" + r["id"]) for r in rows])
        # the terms to un-count come from the file, or — when it is already gone (a merge,
        # a hand deletion) — from the reference its parent branch or the trunk keeps
        terms_by_id = {}
        for row in rows:
            try:
                terms_by_id[row["id"]] = list(
                    leaf_terms(read_leaf_file(self.layout.root / row["path"])).keys()
                )
            except (OSError, StoreCorruptError):
                terms_by_id[row["id"]] = self._terms_from_tree(row["id"])
        self.tree.entries()
        self.tree.detach([r["id"] for r in rows])
        with self.catalog.transaction() as conn:
            for row in rows:
                self.catalog.remove_leaf(conn, row["id"], terms_by_id[row["id"]])
            self.catalog.clear_pending(conn, [r["path"] for r in rows])
            self.tree.adopt_generation(self.catalog.bump_generation(conn))
        for row in rows:
            (self.layout.root / row["path"]).unlink(missing_ok=True)
        return len(rows)

    def _terms_from_tree(self, leaf_id: str) -> list[str]:
        parent = self.catalog.parent_of(leaf_id)
        try:
            refs = self.tree.read_branch(parent)["children"] if parent else self.tree.entries()
        except StoreCorruptError:
            return []
        for ref in refs:
            if ref["id"] == leaf_id:
                return list(ref.get("tf", {}))
        return []

    def leaf_files(self, notes: list[str] | None = None, quarantine: bool = False) -> list[Path]:
        """The leaf files under layer_0, never following a symbolic link (a link could lead
        a rebuild outside the store); links are named in ``notes`` and, with ``quarantine``,
        moved aside."""
        layer0 = self.layout.layer0
        if not layer0.is_dir() or layer0.is_symlink():
            return []
        found = []
        for folder, dirs, files in os.walk(layer0):
            base = Path(folder)
            links = [base / d for d in dirs if (base / d).is_symlink()]
            for name in files:
                if name.endswith(".txt"):
                    path = base / name
                    (links if path.is_symlink() else found).append(path)
            for link in links:
                if notes is None:
                    continue
                if quarantine:
                    self.quarantine(
                        link, "a symbolic link in layer_0 (leaves are plain files)", notes
                    )
                else:
                    notes.append(f"{self.layout.relative(link)} is a symbolic link; ignored")
        return sorted(found)

    def unreadable_count(self) -> int:
        """Leaf files this process may not read: search cannot see them (stats says so)."""
        return sum(1 for path in self.leaf_files() if not os.access(path, os.R_OK))

    def symlinks_in_layer0(self) -> list[Path]:
        layer0 = self.layout.layer0
        out = []
        for folder, dirs, files in os.walk(layer0):
            base = Path(folder)
            out += [base / n for n in [*dirs, *files] if (base / n).is_symlink()]
        return sorted(out)

    # -- check ---------------------------------------------------------------------------------
    def check(self) -> CheckReport:
        report = CheckReport()
        layout = self.layout
        try:
            root = self.tree.read_root()
        except StoreCorruptError as exc:
            report.problems.append(f"root.json: {exc}")
            root = None
        rows = {r["id"]: r for r in self.catalog.all_leaves()}
        report.leaves = len(rows)
        for leaf_id, row in rows.items():
            path = layout.root / row["path"]
            if not path.exists():
                report.problems.append(f"leaf {leaf_id}: its file {row['path']} is missing")
                continue
            try:
                data = path.read_bytes()
            except PermissionError:
                report.unreadable.append(row["path"])
                report.problems.append(unreadable_note(row["path"]))
                continue
            except OSError as exc:
                report.problems.append(f"cannot read {row['path']}: {exc.strerror or exc}")
                continue
            try:
                header, body = parse_leaf(data, name=row["path"])
            except StoreCorruptError as exc:
                fixable = salvage(path, data) is not None
                report.problems.append(
                    f"leaf {leaf_id}: {exc}"
                    + (
                        "; the text is intact: `ihmt check --repair` rewrites the header"
                        if fixable
                        else ""
                    )
                )
                continue
            problem = header_problem(header)
            if problem:
                report.problems.append(f"leaf {leaf_id}: {problem}")
                continue
            if header.get("leaf_id") != leaf_id:
                report.problems.append(
                    f"leaf {leaf_id}: header names a different id {header.get('leaf_id')!r}"
                )
            if header.get("checksum") != leaf_checksum(body):
                report.problems.append(
                    f"leaf {leaf_id}: text does not match its checksum (edited by hand?)"
                )
        indexed_paths = {r["path"] for r in rows.values()}
        for path in self.leaf_files():
            rel = layout.relative(path)
            if rel in indexed_paths:
                continue
            if not os.access(path, os.R_OK):
                report.unreadable.append(rel)
                report.problems.append(unreadable_note(rel))
            else:
                report.problems.append(f"file {rel} is in layer_0 but not in the catalog")
        for link in self.symlinks_in_layer0():
            report.problems.append(
                f"{layout.relative(link)} is a symbolic link in layer_0 (leaves are plain files)"
            )
        report.quarantined = [e.to_dict() for e in quarantine_entries(layout.root)]
        branches = {b["id"]: b for b in self.catalog.all_branches()}
        report.branches = len(branches)
        reachable: set[str] = set()
        if root is not None:
            if root.get("generation") != self.catalog.generation():
                report.problems.append("root.json is older than the catalog (an interrupted write)")
            stack = [(e["id"], e["kind"]) for e in root.get("entries", [])]
            seen_parent: dict[str, str] = {node_id: "root" for node_id, _ in stack}
            while stack:
                node_id, kind = stack.pop()
                if kind == "leaf":
                    reachable.add(node_id)
                    continue
                try:
                    branch = self.tree.read_branch(node_id)
                except StoreCorruptError as exc:
                    report.problems.append(str(exc))
                    continue
                for child in branch.get("children", []):
                    if child["id"] in seen_parent:
                        report.problems.append(f"{child['id']} has two parents")
                    seen_parent[child["id"]] = node_id
                    stack.append((child["id"], child["kind"]))
        for leaf_id in rows:
            if leaf_id not in reachable and root is not None:
                report.problems.append(f"leaf {leaf_id} is not reachable from the root")
        on_disk = set()
        if layout.layers.is_dir():
            for path in layout.layers.rglob("*.json"):
                on_disk.add(path.stem)
                if path.stem not in branches:
                    report.problems.append(
                        f"stray branch file {layout.relative(path)} (not in the catalog)"
                    )
        for branch_id in branches:
            if branch_id not in on_disk:
                report.problems.append(f"branch {branch_id}: its file is missing")
        if self.catalog.pending():
            report.problems.append(
                "an interrupted write is pending (it is completed by the next write)"
            )
        return report

    # -- rebuild -------------------------------------------------------------------------------
    def forget_derived(self) -> None:
        """Drop this process's cached tree state before a rebuild (the files stay: the live
        catalog, the trunk and the branches keep serving readers until the swap)."""
        self.tree.forget_cached()
        self.layout.layers.mkdir(parents=True, exist_ok=True)

    def remove_stray_branches(self) -> int:
        """After a rebuild was swapped in and the trunk written: branch files the new catalog
        does not know belonged to the old tree; they are derived, so they go."""
        known = {b["path"] for b in self.catalog.all_branches()}
        removed = 0
        if not self.layout.layers.is_dir():
            return 0
        for path in self.layout.layers.rglob("*.json"):
            if self.layout.relative(path) not in known:
                path.unlink(missing_ok=True)
                self.tree.cache.forget(path)
                removed += 1
        return removed

    def reindex_from_leaves(self, quarantine: bool = True) -> list[str]:
        """Index every readable leaf file. A damaged header over an intact body is rewritten;
        a file that cannot be trusted is moved aside with its reason, never deleted; a file
        this process may not read is left where it is and named (it is not damage)."""
        notes: list[str] = []
        tombstones = {r.get("leaf_id") for r in read_records(self.layout.records, "tombstone")}
        leaves = []
        for path in self.leaf_files(notes, quarantine=quarantine):
            leaf = self.load_leaf(path, notes, quarantine=quarantine)
            if leaf is None:
                continue
            if leaf.leaf_id in tombstones:
                path.unlink(missing_ok=True)
                notes.append(f"removed forgotten leaf {leaf.leaf_id}")
                continue
            digest = leaf_checksum(leaf.content)
            if leaf.checksum != digest:
                # the text was edited by hand: the file is the truth, so accept the edit
                leaf.checksum = digest
                atomic_write_bytes(path, render_leaf(leaf.header(), leaf.content))
                notes.append(f"accepted a hand edit of {leaf.leaf_id} (checksum updated)")
            if self.place(path, leaf, notes, quarantine):
                leaves.append(leaf)
        leaves.sort(key=lambda x: (x.ingested_at, x.source, x.position))
        for start in range(0, len(leaves), 500):
            self.index_leaves(leaves[start : start + 500])
        return notes

    def place(self, path: Path, leaf: MemoryLeaf, notes: list[str], quarantine: bool) -> bool:
        """Make sure a leaf file sits where its (validated) header says; False when it had
        to be set aside instead (a place outside layer_0, or another file already there)."""
        expected = self.layout.leaf_path(leaf.domain, leaf.leaf_id)
        if expected == path:
            return True
        if not inside(self.layout.layer0, expected.parent):
            self._set_aside(path, "its header names a place outside layer_0", notes, quarantine)
            return False
        if expected.exists():
            where = self.layout.relative(expected)
            reason = f"a second copy of {leaf.leaf_id} (the one at {where} is kept)"
            self._set_aside(path, reason, notes, quarantine)
            return False
        expected.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, expected)
        notes.append(f"moved {path.name} to its domain folder")
        return True

    def load_leaf(self, path: Path, notes: list[str], quarantine: bool = True) -> MemoryLeaf | None:
        """One leaf file, read as untrusted input: repaired when only its header is damaged,
        quarantined (or, without ``quarantine``, skipped) when it cannot be trusted, left in
        place when it cannot be read. Every outcome but a clean read adds a note."""
        rel = self.layout.relative(path)
        try:
            data = path.read_bytes()
        except PermissionError:
            notes.append(unreadable_note(rel))
            return None
        except OSError as exc:
            notes.append(f"cannot read {rel}: {exc.strerror or exc}; left in place")
            return None
        try:
            header, body = parse_leaf(data, name=path.name)
        except StoreCorruptError as exc:
            fixed = salvage(path, data) if quarantine else None
            if fixed is None:
                self._set_aside(path, str(exc).removeprefix(path.name + ": "), notes, quarantine)
                return None
            header, body = fixed
            atomic_write_bytes(path, render_leaf(header, body))
            notes.append(f"repaired header of {rel} ({str(exc).removeprefix(path.name + ': ')})")
        problem = header_problem(header)
        if problem and quarantine and damaged_id(path, header):
            fixed = salvage(path, data)
            if fixed is not None:
                header, body = fixed
                atomic_write_bytes(path, render_leaf(header, body))
                notes.append(f"repaired header of {rel} ({problem})")
                problem = None
        if problem:
            self._set_aside(path, problem, notes, quarantine)
            return None
        return leaf_from_header(header, body)

    def _set_aside(self, path: Path, reason: str, notes: list[str], quarantine: bool) -> None:
        if quarantine:
            self.quarantine(path, reason, notes)
        else:
            notes.append(f"skipped unreadable leaf {path.name}: {reason}")

    def quarantine(self, path: Path, reason: str, notes: list[str]) -> str:
        """Move a file aside (never delete it), with its origin and reason recorded."""
        name = move_aside(self.layout.root, path, reason)
        notes.append(f"quarantined {path.name} as quarantine/{name}: {reason}")
        return name


def damaged_id(path: Path, header: dict) -> bool:
    """A header id or domain that differs from the file's own (well-formed) name by a
    character or two of damage, not a value someone chose: worth repairing, not quarantine."""
    if not valid_leaf_id(path.stem):
        return False
    want = {"leaf_id": path.stem, "domain": path.stem[2:].rsplit("-", 2)[0]}
    for name, expected in want.items():
        value = header.get(name)
        if name == "domain" and valid_domain(value):
            continue
        if name == "leaf_id" and value == expected:
            continue
        if not isinstance(value, str) or len(value) != len(expected):
            return False
        if sum(a != b for a, b in zip(value, expected, strict=True)) > 2:
            return False
    return True


def unreadable_note(rel: str) -> str:
    return (
        f"cannot read {rel}: permission denied; fix with `chmod u+r` on it (or `chown` it "
        "to the user that runs ihmt); left in place"
    )


def store_size(root: Path) -> tuple[int, int]:
    files = 0
    size = 0
    for path in root.rglob("*"):
        if path.is_file():
            files += 1
            size += path.stat().st_size
    return files, size


def dump_json(data) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2)
