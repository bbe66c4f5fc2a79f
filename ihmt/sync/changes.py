"""What changed in a store, in the words of a memory: added, replaced, outdated, forgotten.

Git sees files; a user thinks in memories. A new ``layer_0`` file is a memory added; a leaf
file removed without a tombstone was replaced (its document changed and was re-ingested);
a new ``outdated-*`` record is a correction link; a new ``tombstone-*`` record is a forget.
Also here: the check that a leaf or record file is whole before it is shared.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath

from ..errors import StoreCorruptError
from ..store.ids import header_problem
from ..store.leaf_format import leaf_checksum, parse_leaf
from ..store.records import tombstoned_ids as recorded_tombstones

LEAF_DIR = "layer_0/"
RECORD_DIR = "records/"
CONFIG_FILE = "ihmt.config.json"


@dataclass
class ChangeCounts:
    added: int = 0
    replaced: int = 0
    outdated: int = 0
    forgotten: int = 0
    facts: int = 0
    purged: int = 0  # files of forgotten leaves removed (the tombstone may be older)
    settings: bool = False

    def any(self) -> bool:
        return bool(
            self.added
            or self.replaced
            or self.outdated
            or self.forgotten
            or self.facts
            or self.purged
            or self.settings
        )

    def words(self) -> str:
        text = (
            f"{self.added} added, {self.replaced} replaced, "
            f"{self.outdated} outdated, {self.forgotten} forgotten"
        )
        if self.facts:
            text += f", {self.facts} fact(s) recorded"
        if self.purged > self.forgotten:
            text += f", {self.purged - self.forgotten} forgotten memory file(s) removed again"
        if self.settings:
            text += ", settings changed"
        return text

    def to_dict(self) -> dict:
        return asdict(self)


def is_leaf_path(path: str) -> bool:
    return path.startswith(LEAF_DIR) and path.endswith(".txt")


def is_record_path(path: str) -> bool:
    return path.startswith(RECORD_DIR) and path.endswith(".json")


def leaf_id_of(path: str) -> str:
    return PurePosixPath(path).stem


def tombstoned_ids(store_root: Path) -> set[str]:
    """The forgotten leaves of the store at ``store_root`` (``store.records``)."""
    return recorded_tombstones(store_root / "records")


def count_changes(entries: list[tuple[str, str]], tombstones: set[str]) -> ChangeCounts:
    """Counts from (status letter, path) pairs of a diff or a staged change set."""
    counts = ChangeCounts()
    for status, path in entries:
        if is_leaf_path(path):
            if status == "A":
                counts.added += 1
            elif status == "D" and leaf_id_of(path) in tombstones:
                counts.purged += 1
            elif status == "D":
                counts.replaced += 1
        elif is_record_path(path) and status == "A":
            kind = PurePosixPath(path).name.split("-", 1)[0]
            if kind == "outdated":
                counts.outdated += 1
            elif kind == "tombstone":
                counts.forgotten += 1
            elif kind == "fact":
                counts.facts += 1
        elif path == CONFIG_FILE and status == "M":
            counts.settings = True
    return counts


def leaf_bytes_valid(data: bytes, path: str) -> bool:
    """A whole leaf: parseable header, body matching its checksum, id matching the name."""
    try:
        header, body = parse_leaf(data, name=path)
    except StoreCorruptError:
        return False
    if header_problem(header):
        return False  # an id or field that cannot be trusted (it would become a path)
    return header.get("leaf_id") == leaf_id_of(path) and header.get("checksum") == leaf_checksum(
        body
    )


def record_bytes_valid(data: bytes) -> bool:
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(value, dict) and "kind" in value


def file_valid(store_root: Path, path: str) -> bool:
    """True for files that are not leaves or records, and for whole leaves and records."""
    if not (is_leaf_path(path) or is_record_path(path)):
        return True
    try:
        data = (store_root / path).read_bytes()
    except OSError:
        return False
    return leaf_bytes_valid(data, path) if is_leaf_path(path) else record_bytes_valid(data)


def leaf_sort_key(data: bytes, path: str) -> tuple:
    """Which of two versions of the same leaf wins a merge, the same answer on every machine:
    a whole file first, then the earliest save (ingested_at, timestamp), then the bytes."""
    if not leaf_bytes_valid(data, path):
        return (1, "", "", data)
    header, _ = parse_leaf(data, name=path)
    return (0, str(header.get("ingested_at", "")), str(header.get("timestamp", "")), data)
