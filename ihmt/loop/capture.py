"""Capture: a session transcript becomes saved memories, each once.

Each capture reads the transcript from where the last capture of that session stopped (a small
offset file per session under ``state/hooks/``), extracts what a later session needs
(``extract.py``, or the configured LLM backend), and saves it with the session's project and
id. Nothing is saved twice: a memory's id is a hash of its words and its project, so the same
statement seen again (an overlapping read, a second session, a re-run after a crash) is
"already remembered", and the offset only moves forward after the saves.

Switched off by ``"hooks_capture": false`` in ``ihmt.config.json`` (everywhere) or by a file
named ``.ihmt-no-capture`` at the project's top folder (that project).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError, SecretDetectedError
from .extract import Captured, extract
from .transcript import read_turns

NO_CAPTURE_FILE = ".ihmt-no-capture"
MAX_SAVES = 200  # memories saved by one capture (a runaway transcript cannot flood the store)
_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass
class CaptureReport:
    saved: list[str] = field(default_factory=list)
    already: int = 0
    skipped: str = ""  # why nothing was read ("" when the capture ran)
    notes: list[str] = field(default_factory=list)
    offset: int = 0

    def to_dict(self) -> dict:
        from dataclasses import asdict

        return asdict(self)


def capture_disabled(memory, cwd: str | os.PathLike | None) -> str:
    """Why capture is off here, or ""."""
    if memory.config.extra.get("hooks_capture") is False:
        return "capture is off (hooks_capture is false in ihmt.config.json)"
    if cwd:
        folder = Path(cwd)
        for candidate in (folder, *folder.parents):
            if (candidate / NO_CAPTURE_FILE).exists():
                return f"capture is off for this project ({candidate / NO_CAPTURE_FILE})"
            if (candidate / ".git").exists():
                break
    return ""


def _offset_name(agent: str, session: str) -> str:
    """The session's offset file under the store's hooks state (see ``IHMT.state_path``)."""
    digest = hashlib.sha256(session.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return f"{_SAFE.sub('_', agent)[:20]}-{digest}.json"


def _read_offset(path: Path, transcript: str) -> int:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    if not isinstance(data, dict) or data.get("transcript") != transcript:
        return 0
    offset = data.get("offset")
    return offset if isinstance(offset, int) and offset >= 0 else 0


def _write_offset(memory, name: str, transcript: str, offset: int, session: str) -> None:
    memory.write_state(
        name, json.dumps({"transcript": transcript, "offset": offset, "session": session[:200]})
    )


def _llm_items(memory, items: list[Captured]) -> list[Captured]:
    """With an LLM summarizer configured, let it restate each kept piece as one self-contained
    sentence; any failure keeps the heuristic text."""
    if memory.config.summarizer_backend in ("", "heuristic") or not items:
        return items
    try:
        out = []
        for item in items:
            text = memory.restate(item.text)
            out.append(Captured(text or item.text, item.timestamp, item.kind, item.correction))
        return out
    except Exception:  # a model that fails must never cost the capture
        return items


def capture_transcript(
    memory,
    transcript_path: str,
    *,
    session: str,
    agent: str = "claude",
    project: str = "",
    cwd: str | None = None,
) -> CaptureReport:
    """Save what the unread part of this session's transcript holds; see the module doc."""
    report = CaptureReport()
    why = capture_disabled(memory, cwd)
    if why:
        report.skipped = why
        return report
    if not session or not isinstance(session, str):
        raise InputError("the hook payload has no session_id")
    transcript = os.path.realpath(transcript_path)
    state = _offset_name(agent, session)
    start = _read_offset(memory.state_path(state), transcript)
    chunk = read_turns(transcript, start)
    report.offset = chunk.end
    if chunk.skipped_bytes:
        report.notes.append(f"skipped {chunk.skipped_bytes:,} bytes of oversized transcript")
    if chunk.damaged_lines:
        report.notes.append(f"skipped {chunk.damaged_lines} damaged transcript line(s)")
    items = _llm_items(memory, extract(chunk.turns))[:MAX_SAVES]
    from ..privacy.secrets import redact

    for item in items:
        text, _findings = redact(item.text)
        try:
            saved = memory.save(
                text,
                timestamp=item.timestamp or None,
                project=project,
                session=session,
                replaces=text if item.correction else "",
            )
        except SecretDetectedError:
            continue  # redaction left something that still looks secret: never stored
        if saved.new:
            report.saved += saved.leaf_ids
        else:
            report.already += 1
    if chunk.end != start:
        _write_offset(memory, state, transcript, chunk.end, session)
    return report
