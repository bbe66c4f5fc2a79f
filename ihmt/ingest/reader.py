"""Reading files for ingestion: bad input is skipped or flagged with a reason, never raised.

A folder walk skips version-control and build folders, virtual environments and whatever the
folder's .gitignore files exclude, and never follows a symlink loop.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SKIP_DIRS = {
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    "env",
    ".env",
    "node_modules",
    "__pycache__",
    "build",
    "dist",
    "target",
    "out",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".idea",
    ".vscode",
    ".gradle",
    "vendor",
    "site-packages",
    ".eggs",
    "ihmt_memory",
    "ihmt_projects",
    ".next",
    ".cache",
    "coverage",
    "htmlcov",
}
BINARY_EXTENSIONS = {
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".bmp",
    ".ico",
    ".webp",
    ".pdf",
    ".zip",
    ".gz",
    ".tgz",
    ".bz2",
    ".xz",
    ".7z",
    ".rar",
    ".jar",
    ".war",
    ".class",
    ".so",
    ".dylib",
    ".dll",
    ".exe",
    ".o",
    ".a",
    ".pyc",
    ".pyo",
    ".whl",
    ".mp3",
    ".mp4",
    ".mov",
    ".avi",
    ".wav",
    ".flac",
    ".ttf",
    ".otf",
    ".woff",
    ".woff2",
    ".sqlite",
    ".sqlite3",
    ".db",
    ".bin",
    ".dat",
    ".iso",
    ".psd",
    ".xls",
    ".xlsx",
    ".doc",
    ".docx",
    ".ppt",
    ".pptx",
    ".parquet",
    ".npy",
    ".pkl",
}


@dataclass
class ReadOutcome:
    path: Path
    text: str | None
    skipped: str | None = None  # reason when the file is not ingested
    warning: str | None = None  # reason when it is ingested with a caveat


def read_text_file(path: Path, max_bytes: int) -> ReadOutcome:
    try:
        size = path.stat().st_size
    except OSError as exc:
        return ReadOutcome(path, None, skipped=f"unreadable ({exc.strerror or exc})")
    if size > max_bytes:
        return ReadOutcome(
            path,
            None,
            skipped=f"too large ({size:,} bytes > limit {max_bytes:,}; see max_file_bytes)",
        )
    if path.suffix.lower() in BINARY_EXTENSIONS:
        return ReadOutcome(path, None, skipped="binary file type")
    try:
        data = path.read_bytes()
    except OSError as exc:
        return ReadOutcome(path, None, skipped=f"unreadable ({exc.strerror or exc})")
    return decode_bytes(path, data)


def decode_bytes(path: Path, data: bytes) -> ReadOutcome:
    if b"\x00" in data[:65536] and not _is_utf16(data):
        return ReadOutcome(path, None, skipped="binary content (NUL bytes)")
    if not data.strip():
        return ReadOutcome(path, None, skipped="empty file")
    try:
        return ReadOutcome(path, data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    if _is_utf16(data):
        try:
            return ReadOutcome(path, data.decode("utf-16"), warning="decoded from UTF-16")
        except UnicodeDecodeError:
            pass
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd")
    if bad > max(16, len(text) // 20):
        return ReadOutcome(path, None, skipped="binary content (not text in UTF-8)")
    return ReadOutcome(path, text, warning=f"invalid UTF-8: {bad} byte(s) replaced with U+FFFD")


def _is_utf16(data: bytes) -> bool:
    return data[:2] in (b"\xff\xfe", b"\xfe\xff")


class GitIgnore:
    """The subset of .gitignore rules people actually write: globs, dir/, /anchored, !negation."""

    def __init__(self) -> None:
        self.rules: list[tuple[Path, str, bool, bool, bool]] = []

    def load(self, folder: Path) -> None:
        file = folder / ".gitignore"
        try:
            lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return
        for raw in lines:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            negate = line.startswith("!")
            if negate:
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.strip("/") if dir_only else line
            anchored = line.startswith("/") or "/" in line
            self.rules.append((folder, line.lstrip("/"), negate, dir_only, anchored))

    def ignored(self, path: Path, is_dir: bool) -> bool:
        verdict = False
        for base, pattern, negate, dir_only, anchored in self.rules:
            if dir_only and not is_dir:
                continue
            try:
                rel = path.relative_to(base).as_posix()
            except ValueError:
                continue
            target = rel if anchored else path.name
            if fnmatch.fnmatchcase(target, pattern) or (
                not anchored and fnmatch.fnmatchcase(rel, pattern)
            ):
                verdict = not negate
        return verdict


def walk_files(root: Path) -> Iterator[tuple[Path, str | None]]:
    """Yield (file, None) to ingest or (path, reason) for what is skipped, in sorted order."""
    seen: set[tuple[int, int]] = set()
    ignore = GitIgnore()

    def visit(folder: Path) -> Iterator[tuple[Path, str | None]]:
        try:
            st = folder.stat()
        except OSError as exc:
            yield folder, f"unreadable folder ({exc.strerror or exc})"
            return
        key = (st.st_dev, st.st_ino)
        if key in seen:
            yield folder, "symlink loop (folder already visited)"
            return
        seen.add(key)
        ignore.load(folder)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            yield folder, f"unreadable folder ({exc.strerror or exc})"
            return
        for entry in entries:
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if entry.name in SKIP_DIRS or entry.name.endswith(".egg-info"):
                    continue
                if ignore.ignored(path, True):
                    continue
                yield from visit(path)
            elif entry.is_file():
                if ignore.ignored(path, False) or entry.name == ".gitignore":
                    continue
                yield path, None
            else:
                yield path, "not a regular file"

    yield from visit(root)
