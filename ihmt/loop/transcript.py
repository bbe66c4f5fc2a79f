"""Agent session transcripts (JSONL), read from a byte offset: only what people said.

Claude Code writes one JSON object per line: ``{"type": "user"|"assistant", "message":
{"role", "content"}, "timestamp", "sessionId", "isSidechain", "isMeta", ...}``; ``content`` is a
string or a list of blocks (``text``, ``tool_use``, ``tool_result``, ``thinking``, ``image``).
Codex writes rollout lines ``{"timestamp", "type": "response_item", "payload": {"type":
"message", "role", "content": [{"type": "input_text"|"output_text", "text"}]}}`` (older
versions wrote the payload object itself on the line).

Kept: the text blocks of user and assistant messages. Dropped: tool calls and their outputs,
thinking, sub-agent (sidechain) and meta lines, compaction summaries, slash-command echoes,
the environment blocks Codex injects, and anything inside ``<private>…</private>``. The bytes
are untrusted: a damaged line is skipped, a half-written last line is left for the next read,
and one read never takes more than ``MAX_READ`` bytes or a line longer than ``MAX_LINE``.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field

from .. import re_cache

MAX_READ = 8 * 1024 * 1024  # bytes read per capture; a larger backlog is read from its tail
MAX_LINE = 512 * 1024  # a longer line is a file dump or a tool output: skipped unread
MAX_TEXT = 20_000  # characters kept of one message

_PRIVATE = re_cache.compile(r"<private>.*?(?:</private>|\Z)", re.S | re.I)
_SYSTEM_TAGS = re_cache.compile(
    r"<(system-reminder|command-name|command-message|command-args|local-command-stdout|"
    r"local-command-stderr|environment_context|user_instructions|ihmt-memory)>.*?(?:</\1>|\Z)",
    re.S,
)
_SKIP_USER_PREFIXES = (
    "<command-",
    "<local-command",
    "Caveat: The messages below were generated",
    "# AGENTS.md instructions",
    "<environment_context>",
    "<user_instructions>",
    "[Request interrupted",
)


@dataclass
class Turn:
    role: str  # "user" or "assistant"
    text: str
    timestamp: str = ""


@dataclass
class TranscriptChunk:
    turns: list[Turn] = field(default_factory=list)
    end: int = 0  # byte offset where the next read starts
    skipped_bytes: int = 0  # backlog not read (above MAX_READ) or over-long lines
    damaged_lines: int = 0


def clean_text(text: str) -> str:
    """The words of a message without private parts or system-injected blocks."""
    text = _PRIVATE.sub(" ", text)
    text = _SYSTEM_TAGS.sub(" ", text)
    return text.strip()[:MAX_TEXT]


def _blocks_text(content) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for block in content:
        if isinstance(block, dict) and block.get("type") in ("text", "input_text", "output_text"):
            text = block.get("text")
            if isinstance(text, str):
                parts.append(text)
    return "\n".join(parts)


def turn_of(obj) -> Turn | None:
    """The spoken turn on one transcript line, or None (tool traffic, meta, damage)."""
    if not isinstance(obj, dict):
        return None
    stamp = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else ""
    if obj.get("type") in ("user", "assistant") and isinstance(obj.get("message"), dict):
        if obj.get("isSidechain") or obj.get("isMeta") or obj.get("isCompactSummary"):
            return None
        if "toolUseResult" in obj:
            return None
        message = obj["message"]
        role = message.get("role") or obj["type"]
        content = message.get("content")
    else:
        payload = obj.get("payload") if isinstance(obj.get("payload"), dict) else obj
        if obj.get("type") not in (None, "response_item", "message"):
            return None
        if payload.get("type") != "message":
            return None
        role = payload.get("role")
        content = payload.get("content")
    if role not in ("user", "assistant"):
        return None
    raw = _blocks_text(content)
    if role == "user" and raw.lstrip().startswith(_SKIP_USER_PREFIXES):
        return None
    text = clean_text(raw)
    return Turn(role, text, stamp) if text else None


def read_turns(path: str | os.PathLike, start: int = 0) -> TranscriptChunk:
    """The turns written after byte ``start``. Raises OSError when the file cannot be read."""
    chunk = TranscriptChunk(end=start)
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if start > size:  # the file was replaced or truncated: read it again from the top
            start = 0
        if size - start > MAX_READ:
            chunk.skipped_bytes += size - MAX_READ - start
            start = size - MAX_READ
            handle.seek(start)
            handle.readline()  # resume at a line boundary
            start = handle.tell()
        else:
            handle.seek(start)
        pos = start
        while pos < size:
            line = handle.readline(MAX_LINE + 1)
            if not line:
                break
            if not line.endswith(b"\n"):
                if len(line) > MAX_LINE:  # an over-long line: skip to its end, unread
                    rest = handle.readline()
                    while rest and not rest.endswith(b"\n"):
                        rest = handle.readline()
                    chunk.skipped_bytes += handle.tell() - pos
                    pos = handle.tell()
                    continue
                break  # half-written last line: leave it for the next read
            pos += len(line)
            try:
                obj = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                chunk.damaged_lines += 1
                continue
            turn = turn_of(obj)
            if turn is not None:
                chunk.turns.append(turn)
        chunk.end = pos
    return chunk
