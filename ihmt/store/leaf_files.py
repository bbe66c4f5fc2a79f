"""Leaf files as the store reads them: a file becomes a MemoryLeaf only once its header is
trusted; ``LeafFiles`` lists, loads, places and quarantines the files under layer_0.

Part of the store (the file format on disk), not of the tree: the tree, the search engine and
the write coordinator read leaves through this module.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import StoreCorruptError
from ..models import MemoryLeaf
from .atomic import atomic_write_bytes
from .ids import header_problem, inside, valid_domain, valid_leaf_id
from .layout import StoreLayout
from .leaf_format import parse_leaf, render_leaf
from .quarantine import move_aside
from .salvage import salvage


def read_leaf_file(path: Path) -> MemoryLeaf:
    """A leaf from its file; a damaged file, or a header whose id, domain or field types
    cannot be trusted (they become paths and catalog rows), raises StoreCorruptError."""
    header, body = parse_leaf(path.read_bytes(), name=path.name)
    problem = header_problem(header)
    if problem:
        raise StoreCorruptError(f"{path.name}: {problem}")
    return leaf_from_header(header, body)


def leaf_from_header(header: dict, body: str) -> MemoryLeaf:
    known = set(MemoryLeaf.__dataclass_fields__) - {"content"}
    data = {k: v for k, v in header.items() if k in known and v is not None}
    data.setdefault("timestamp", "")
    data.setdefault("data_type", "GENERIC")
    data.setdefault("domain", "general")
    data.setdefault("source", "")
    data.setdefault("position", 0)
    return MemoryLeaf(content=body, **data)


class LeafFiles:
    """The leaf files under layer_0, read as untrusted input: listed without following
    symbolic links, loaded (a damaged header over an intact body is repaired), put where
    their header says, or moved aside to quarantine/ with a reason, never deleted."""

    def __init__(self, layout: StoreLayout) -> None:
        self.layout = layout

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

    def place(self, path: Path, leaf: MemoryLeaf, notes: list[str], quarantine: bool) -> bool:
        """Make sure a leaf file sits where its (validated) header says; False when it had
        to be set aside instead (a place outside layer_0, or another file already there)."""
        expected = self.layout.leaf_path(leaf.domain, leaf.leaf_id)
        if expected == path:
            return True
        if not inside(self.layout.layer0, expected.parent):
            self.set_aside(path, "its header names a place outside layer_0", notes, quarantine)
            return False
        if expected.exists():
            where = self.layout.relative(expected)
            reason = f"a second copy of {leaf.leaf_id} (the one at {where} is kept)"
            self.set_aside(path, reason, notes, quarantine)
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
                self.set_aside(path, str(exc).removeprefix(path.name + ": "), notes, quarantine)
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
            self.set_aside(path, problem, notes, quarantine)
            return None
        return leaf_from_header(header, body)

    def set_aside(self, path: Path, reason: str, notes: list[str], quarantine: bool) -> None:
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
