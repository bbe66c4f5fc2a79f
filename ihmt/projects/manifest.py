"""The sync manifest: what the project index last saw of each file, so a sync costs stat calls.

One JSON object per project (``<project store>/manifest.json``), written atomically and only
when a sync changed something::

    {"format_version": 1, "root": "/abs/project", "settings": "...",
     "files": {"src/app.py": {"size": 812, "mtime_ns": 1712..., "sha256": "…",
                               "tokens": 203, "rank": 4, "language": "python",
                               "leaves": ["L-code-0000-…", …],
                               "symbols": [{"name": "App.run", "kind": "method",
                                            "start_line": 10, "end_line": 31,
                                            "tokens": 120, "id": "L-code-…"}, …]}},
     "rejected": {"fixtures/null.py": {"size": 40, "mtime_ns": 1712...,
                                       "reason": "binary content (NUL bytes)"}}}

Why JSON and not a SQLite table: the manifest is small (one row per source file, a few
hundred bytes each), it is derived (the next sync rebuilds it from the project if it is lost
or damaged), a person can read it, and ``project_map`` is built from it alone. Because every
sync stats every file anyway, rewriting it once when something changed costs the same order
as the sync itself; a sync that finds nothing changed never writes it.

A file is compared by (size, mtime_ns) first; only when those moved is it read and hashed,
and only when the hash moved is it re-ingested (a ``touch`` costs one read, no re-ingest).
A file read and left out (binary, undecodable) is kept under "rejected" the same way, so an
unchanged one is reported as skipped without being read on every sync.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..ingest.chunkers.code import LANGUAGE_BY_EXTENSION
from ..ingest.reader import walk_files
from ..store.atomic import atomic_write_text
from ..text.tokens import estimate_tokens

MANIFEST_VERSION = 1
MAX_SOURCE_BYTES = 1_000_000  # larger files are generated or vendored, not read by people

# Source code (the chunker knows its structure) ...
CODE_LANGUAGES = {
    **LANGUAGE_BY_EXTENSION,
    ".pyi": "python",
    ".mts": "typescript",
    ".cts": "typescript",
}
# ... plus the few text kinds a code question is often answered by.
TEXT_KINDS = {".md", ".rst", ".toml", ".cfg", ".ini", ".yaml", ".yml", ".sh", ".sql"}
SKIPPED_SUFFIXES = (".min.js", ".min.mjs", ".bundle.js")  # generated, one huge line


@dataclass
class FileEntry:
    """What the index knows about one source file."""

    size: int
    mtime_ns: int
    sha256: str
    tokens: int = 0
    rank: int = 0
    language: str = ""
    leaves: list[str] = field(default_factory=list)
    symbols: list[dict] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict) -> FileEntry:
        return cls(
            size=int(data["size"]),
            mtime_ns=int(data["mtime_ns"]),
            sha256=str(data["sha256"]),
            tokens=int(data.get("tokens", 0)),
            rank=int(data.get("rank", 0)),
            language=str(data.get("language", "")),
            leaves=[str(x) for x in data.get("leaves", [])],
            symbols=[dict(s) for s in data.get("symbols", [])],
        )


@dataclass
class Rejected:
    """A file the index read and left out (binary content, not text in any known encoding),
    kept with its size and mtime so that, while it stays the same, no sync reads it again."""

    size: int
    mtime_ns: int
    reason: str

    @classmethod
    def from_dict(cls, data: dict) -> Rejected:
        return cls(int(data["size"]), int(data["mtime_ns"]), str(data["reason"]))


@dataclass
class Manifest:
    root: str
    settings: str
    files: dict[str, FileEntry] = field(default_factory=dict)
    rejected: dict[str, Rejected] = field(default_factory=dict)

    def to_json(self) -> str:
        data = {
            "format_version": MANIFEST_VERSION,
            "root": self.root,
            "settings": self.settings,
            "files": {rel: asdict(entry) for rel, entry in sorted(self.files.items())},
            "rejected": {rel: asdict(entry) for rel, entry in sorted(self.rejected.items())},
        }
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def load_manifest(path: Path, root: str, settings: str) -> tuple[Manifest, bool]:
    """(manifest, trusted): a missing, damaged or foreign manifest gives an empty one and
    False, so the caller reconciles the store with the project instead of trusting it."""
    empty = Manifest(root=root, settings=settings)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if (
            not isinstance(data, dict)
            or data.get("format_version") != MANIFEST_VERSION
            or data.get("root") != root
            or data.get("settings") != settings
        ):
            return empty, False
        files = {str(rel): FileEntry.from_dict(e) for rel, e in data.get("files", {}).items()}
        rejected = {str(rel): Rejected.from_dict(e) for rel, e in data.get("rejected", {}).items()}
    except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError, AttributeError):
        return empty, False
    return Manifest(root=root, settings=settings, files=files, rejected=rejected), True


def save_manifest(path: Path, manifest: Manifest) -> None:
    # not fsynced: the manifest is derived, and a lost write only costs the next sync a re-hash
    atomic_write_text(path, manifest.to_json(), durable=False)


# -- what belongs to the index ---------------------------------------------------------------


@dataclass(frozen=True)
class Seen:
    """A candidate file as the walk saw it (stat only)."""

    path: Path
    size: int
    mtime_ns: int


def source_kind(name: str) -> str | None:
    """'code', 'text' or None (not indexed) from a file name."""
    lower = name.lower()
    if lower.endswith(SKIPPED_SUFFIXES):
        return None
    suffix = os.path.splitext(lower)[1]
    if suffix in CODE_LANGUAGES:
        return "code"
    if suffix in TEXT_KINDS:
        return "text"
    return None


def scan_project(root: Path) -> tuple[dict[str, Seen], list[tuple[str, str]]]:
    """Every indexable file under ``root`` by posix relative path, and what was skipped.

    Costs one stat per file (the walk honours .gitignore and skips vendored and build
    folders); no source file is opened.
    """
    seen: dict[str, Seen] = {}
    skipped: list[tuple[str, str]] = []
    for path, reason in walk_files(root):
        rel = path.relative_to(root).as_posix()
        if reason:
            skipped.append((rel, reason))
            continue
        if source_kind(path.name) is None:
            continue
        try:
            st = path.stat()
        except OSError as exc:
            skipped.append((rel, f"unreadable ({exc.strerror or exc})"))
            continue
        if st.st_size > MAX_SOURCE_BYTES:
            skipped.append((rel, f"too large for the code index ({st.st_size:,} bytes)"))
            continue
        if st.st_size == 0:
            continue
        seen[rel] = Seen(path, st.st_size, st.st_mtime_ns)
    return seen, skipped


@dataclass
class Plan:
    """What a sync has to do, before any file is read."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)  # size or mtime moved: hash to decide
    unchanged: int = 0
    rejected: list[str] = field(default_factory=list)  # left out before, unchanged: not read
    forgotten: list[str] = field(default_factory=list)  # left out before, now gone

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.moved or self.forgotten)


def plan_sync(manifest: Manifest, seen: dict[str, Seen]) -> Plan:
    plan = Plan()
    for rel, now in seen.items():
        entry = manifest.files.get(rel)
        if entry is None:
            left_out = manifest.rejected.get(rel)
            if left_out and (left_out.size, left_out.mtime_ns) == (now.size, now.mtime_ns):
                plan.rejected.append(rel)
            else:
                plan.added.append(rel)
        elif entry.size != now.size or entry.mtime_ns != now.mtime_ns:
            plan.moved.append(rel)
        else:
            plan.unchanged += 1
    plan.removed = [rel for rel in manifest.files if rel not in seen]
    plan.forgotten = sorted(rel for rel in manifest.rejected if rel not in seen)
    plan.added.sort()
    plan.moved.sort()
    plan.removed.sort()
    return plan


def symbols_of(leaves: list) -> list[dict]:
    """The map entries of one file's leaves (in order): each named class, method, function,
    top-level constant or variable, or section with its line range, size and leaf id.

    A symbol whose header leaf leaves a bracket open (``function f<\n`` when the generic
    parameters span lines, ``class A {`` followed by fields) is continued by the untitled
    leaves after it until the brackets balance or the next named leaf starts; their ids go in
    ``more`` so find_code can return the whole symbol.
    """
    out: list[dict] = []
    open_symbol: dict | None = None
    depth = 0
    for leaf in leaves:
        tokens = estimate_tokens(leaf.content)
        symbol = symbol_of(leaf.leaf_id, leaf.title, leaf.tags, leaf.span, tokens)
        if symbol is None and open_symbol is not None and not leaf.title:
            end = int(leaf.span.get("end_line", open_symbol["end_line"]))
            open_symbol["end_line"] = end - trailing_blank_lines(leaf.content)
            open_symbol["tokens"] += tokens
            open_symbol.setdefault("more", []).append(leaf.leaf_id)
            depth += _bracket_balance(leaf.content)
            if depth <= 0:
                open_symbol = None
            continue
        open_symbol = None
        if symbol is None:
            continue
        symbol["end_line"] = max(
            symbol["start_line"], symbol["end_line"] - trailing_blank_lines(leaf.content)
        )
        out.append(symbol)
        depth = _bracket_balance(leaf.content)
        if symbol["kind"] != "section" and (depth > 0 or leaf.content.rstrip().endswith("<")):
            open_symbol = symbol
            depth = max(depth, 1)
    return out


def trailing_blank_lines(text: str) -> int:
    """How many whole blank lines end a leaf. Leaves tile the file, so the blank lines
    between two symbols belong to the one above; a symbol's line range stops before them."""
    lines = text.splitlines()
    count = 0
    while count < len(lines) - 1 and not lines[-1 - count].strip():
        count += 1
    return count


def _bracket_balance(text: str) -> int:
    return sum(text.count(c) for c in "({[") - sum(text.count(c) for c in ")}]")


def symbol_of(leaf_id: str, title: str, tags: list[str], span: dict, tokens: int) -> dict | None:
    """The map entry of one leaf: a named class (or type), method, function, top-level
    constant or variable (``const:`` / ``var:`` tags, Go and TypeScript), or section; None
    otherwise."""
    if not title or "imports" in tags:
        return None
    if any(t.startswith("method:") for t in tags):
        kind = "method"
    elif any(t.startswith("function:") for t in tags):
        kind = "function"
    elif any(t.startswith("class:") for t in tags):
        kind = "class"
    elif any(t.startswith("const:") for t in tags):
        kind = "const"
    elif any(t.startswith("var:") for t in tags):
        kind = "var"
    elif "type:code" in tags:
        return None
    else:
        kind = "section"
    return {
        "name": title,
        "kind": kind,
        "start_line": int(span.get("start_line", 0)),
        "end_line": int(span.get("end_line", 0)),
        "tokens": tokens,
        "id": leaf_id,
    }
