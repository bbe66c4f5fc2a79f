"""A file read cache that remembers what it already handed to the agent.

Agents re-read the same files many times in one session; sending the whole file again
wastes context. The cache remembers the last full text it returned per path, so a repeat
read answers "UNCHANGED" and a read after an edit answers with a unified diff instead.
"""

from __future__ import annotations

import difflib
import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from ihmt.errors import InputError

MAX_REMEMBERED_FILES = 200
MAX_REMEMBERED_BYTES = 20_000_000
BINARY_SNIFF_BYTES = 8192
MAX_REPLACEMENT_RATIO = 0.01


@dataclass
class ReadResult:
    """What one read hands back; ``status`` is FULL, UNCHANGED, DIFF or RANGE."""

    status: str
    path: str
    text: str
    total_lines: int
    sha256: str


class FileReadCache:
    """Serve file reads, replacing repeats with UNCHANGED notices or diffs."""

    def __init__(self, max_bytes: int = 256_000, root: Path | None = None) -> None:
        self.max_bytes = max_bytes
        self.root = Path(root) if root is not None else None
        # path -> (text handed out, its size in bytes); ordered oldest-used first.
        self._seen: OrderedDict[str, tuple[str, int]] = OrderedDict()
        self._seen_bytes = 0
        self._lock = threading.Lock()

    def read(
        self,
        path: str,
        *,
        force: bool = False,
        start_line: int | None = None,
        end_line: int | None = None,
    ) -> ReadResult:
        """Read ``path``; FULL the first time (or with ``force``), then UNCHANGED or DIFF.

        A line range (1-based, inclusive) returns RANGE and leaves the remembered full
        version alone, so a later whole-file read still diffs against what the agent saw.
        """
        resolved = self._resolve(path)
        key = str(resolved)
        data = _read_bytes(resolved, key)
        text = _decode(data, key)
        lines = text.splitlines(keepends=True)
        digest = hashlib.sha256(data).hexdigest()

        if start_line is not None or end_line is not None:
            start, end = _check_range(start_line, end_line, len(lines), key)
            chunk = "".join(lines[start - 1 : end])
            self._check_cap(chunk, key, ranged=True)
            return ReadResult("RANGE", key, chunk, len(lines), digest)

        with self._lock:
            previous = self._seen.get(key)
            if force or previous is None:
                status, out = "FULL", text
            elif previous[0] == text:
                self._seen.move_to_end(key)
                note = f"UNCHANGED since last read ({len(lines)} lines, sha256 {digest[:12]}…)"
                return ReadResult("UNCHANGED", key, note, len(lines), digest)
            else:
                diff = _unified_diff(previous[0], text, key)
                status, out = ("DIFF", diff) if len(diff) <= len(text) else ("FULL", text)
            self._check_cap(out, key, ranged=False)
            self._remember(key, text, len(data))
        return ReadResult(status, key, out, len(lines), digest)

    def forget(self, path: str | None = None) -> None:
        """Drop the remembered version of one path (or all), forcing the next read FULL."""
        with self._lock:
            if path is None:
                self._seen.clear()
                self._seen_bytes = 0
                return
            entry = self._seen.pop(str(self._resolve(path)), None)
            if entry is not None:
                self._seen_bytes -= entry[1]

    def _resolve(self, path: str) -> Path:
        if not isinstance(path, str) or not path.strip():
            raise InputError("file path is empty")
        if "\x00" in path or any("\ud800" <= ch <= "\udfff" for ch in path):
            raise InputError("invalid path: it contains a NUL byte or a broken character")
        candidate = Path(path).expanduser()
        if not candidate.is_absolute():
            candidate = (self.root or Path.cwd()) / candidate
        try:
            return candidate.resolve()
        except (OSError, RuntimeError) as exc:
            raise InputError(f"cannot resolve path {path!r}: {exc}") from None

    def _check_cap(self, text: str, key: str, *, ranged: bool) -> None:
        size = len(text.encode("utf-8", "replace"))
        if size <= self.max_bytes:
            return
        hint = "a smaller start_line/end_line range" if ranged else "start_line/end_line"
        raise InputError(
            f"{key}: {size} bytes exceeds the read cap of {self.max_bytes} bytes; "
            f"use {hint} to read part of it"
        )

    def _remember(self, key: str, text: str, size: int) -> None:
        old = self._seen.pop(key, None)
        if old is not None:
            self._seen_bytes -= old[1]
        self._seen[key] = (text, size)
        self._seen_bytes += size
        while self._seen and (
            len(self._seen) > MAX_REMEMBERED_FILES or self._seen_bytes > MAX_REMEMBERED_BYTES
        ):
            _, (_, dropped) = self._seen.popitem(last=False)
            self._seen_bytes -= dropped


MAX_FILE_BYTES = 64_000_000


def _read_bytes(path: Path, key: str, limit: int | None = None) -> bytes:
    """Read raw bytes, turning every OS failure into a one-line InputError."""
    try:
        if not path.exists():
            raise InputError(f"file not found: {key}")
        if path.is_dir():
            raise InputError(f"is a directory, not a file: {key}")
        if not path.is_file():  # FIFOs and devices would block or never end
            raise InputError(f"not a regular file: {key}")
        if path.stat().st_size > MAX_FILE_BYTES:
            raise InputError(
                f"{key} is larger than {MAX_FILE_BYTES // 1_000_000} MB; read it with a tool "
                "made for big files"
            )
        with path.open("rb") as handle:
            return handle.read(limit + 1) if limit else handle.read()
    except PermissionError:
        raise InputError(f"permission denied: {key}") from None
    except IsADirectoryError:
        raise InputError(f"is a directory, not a file: {key}") from None
    except OSError as exc:
        raise InputError(f"cannot read {key}: {exc.strerror or exc}") from None


def _decode(data: bytes, key: str) -> str:
    """Decode UTF-8; tolerate a few bad bytes, but call mostly-undecodable data binary."""
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        raise InputError(f"binary file (NUL byte found), not shown: {key}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
    if text.count("\ufffd") >= max(1, len(text)) * MAX_REPLACEMENT_RATIO:
        raise InputError(f"binary or non-UTF-8 file, not shown: {key}")
    return text


def _check_range(start: int | None, end: int | None, total: int, key: str) -> tuple[int, int]:
    """Validate a 1-based inclusive range; an end past the last line is clipped."""
    first = 1 if start is None else start
    last = total if end is None else end
    if first < 1 or last < 1:
        raise InputError(f"line numbers start at 1 (got start_line={start}, end_line={end})")
    if first > last:
        raise InputError(f"start_line {first} is after end_line {last}")
    if first > total:
        raise InputError(f"start_line {first} is past the end of {key} ({total} lines)")
    return first, min(last, total)


def _unified_diff(old: str, new: str, key: str) -> str:
    """Unified diff old -> new; every diff line ends with a newline even at EOF."""
    label = key.lstrip("/")
    diff = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{label}",
        tofile=f"b/{label}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in diff)
