"""Capture: a session transcript becomes saved memories, each once.

Each capture reads the transcript from where the last capture of that session stopped (a small
offset file per session under ``state/hooks/``), extracts what a later session needs
(``extract.py``; with an LLM summarizer configured, the model restates each piece, see
``restate_items``), and saves it with the session's project and id. Nothing is saved twice: a
memory's id is a hash of its words and its project, so the same statement seen again (an
overlapping read, a second session, a re-run after a crash) is "already remembered", and the
offset only moves forward after the saves. A model words a piece differently each time, so
with one configured each piece saved is also remembered by a hash of the extractor's words
(``restated-seen.txt``: hashes only, no text) and never sent again.

Switched off by ``"hooks_capture": false`` in ``ihmt.config.json`` (everywhere) or by a file
named ``.ihmt-no-capture`` at the project's top folder (that project).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import re_cache
from ..errors import InputError, SecretDetectedError
from .extract import Captured, extract
from .transcript import read_turns

NO_CAPTURE_FILE = ".ihmt-no-capture"
MAX_SAVES = 200  # memories saved by one capture (a runaway transcript cannot flood the store)
_SAFE = re_cache.compile(r"[^A-Za-z0-9_.-]")


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


RESTATE_PROMPT = (
    "You keep a long-term memory for a coding agent. Rewrite the note you are given as one "
    "self-contained statement a later session can use without any other context: who or "
    "what it is about, and what was stated, decided, preferred or corrected. Keep names, "
    "dates, numbers, file paths and commands exactly as written; add nothing that is not in "
    "the note. Reply with the statement only."
)
LLM_BUDGET = 20.0  # seconds one capture may spend asking the model (the hook's watchdog is 40)
LLM_TIMEOUT = 10.0  # seconds for one request
SEEN_STATE = "restated-seen.txt"
SEEN_KEEP = 20_000  # pieces remembered as saved through the model (oldest forgotten first)


def uses_llm(memory) -> bool:
    return memory.config.summarizer_backend not in ("", "heuristic")


def piece_key(project: str, text: str) -> str:
    """A piece as the extractor kept it, in its project (a hash: no text is kept)."""
    return hashlib.sha256(f"{project}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _read_seen(memory) -> set[str]:
    """The keys of pieces already saved through the model. One key a line, appended as each
    is saved; a torn last line (a crash mid-append) is just not a key. Past twice
    ``SEEN_KEEP`` lines the file is rewritten with the newest ``SEEN_KEEP``."""
    try:
        lines = memory.state_path(SEEN_STATE).read_text(encoding="ascii", errors="replace")
    except OSError:
        return set()
    keys = [k for k in lines.split("\n") if len(k) == 32]
    if len(keys) > 2 * SEEN_KEEP:
        memory.write_state(SEEN_STATE, "".join(k + "\n" for k in keys[-SEEN_KEEP:]))
        keys = keys[-SEEN_KEEP:]
    return set(keys)


def _remember_seen(memory, key: str) -> None:
    path = memory.state_path(SEEN_STATE)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="ascii") as handle:
        handle.write(key + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def llm_timeout(memory) -> float:
    """Seconds for one request: ``hooks_llm_timeout`` in ihmt.config.json, else 10."""
    value = memory.config.extra.get("hooks_llm_timeout")
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= LLM_BUDGET:
        return float(value)
    return LLM_TIMEOUT


def restate_items(
    memory, items: list[Captured], notes: list[str], budget: float = LLM_BUDGET
) -> list[Captured]:
    """Each piece restated by the configured LLM summarizer as one self-contained statement.
    When the model fails or the time budget runs out, that piece and the rest keep the
    heuristic extractor's text, and one note says why."""
    deadline = time.monotonic() + budget
    timeout = llm_timeout(memory)
    out: list[Captured] = []
    for i, item in enumerate(items):
        left = deadline - time.monotonic()
        why = ""
        text = ""
        if left < 1.0:
            why = "ran out of time"
        else:
            try:
                text = memory.restate(item.text, RESTATE_PROMPT, timeout=min(timeout, left))
            except Exception as exc:  # a model that fails must never cost the capture
                why = f"failed: {exc}"
        if why:
            backend = memory.config.summarizer_backend
            notes.append(
                f"the LLM summarizer ({backend}) {why}; kept the heuristic extractor's text "
                f"for {len(items) - i} memories"
            )
            return out + items[i:]
        out.append(Captured(text or item.text, item.timestamp, item.kind, item.correction))
    return out


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
    from ..privacy.secrets import redact

    # credentials are redacted before anything (a model included) sees the text
    pieces = []
    for piece in extract(chunk.turns)[:MAX_SAVES]:
        text, _findings = redact(piece.text)
        pieces.append(Captured(text, piece.timestamp, piece.kind, piece.correction))
    items = pieces
    if uses_llm(memory):
        # the model words a piece differently each time it is asked: a piece once saved
        # through it is never asked about again (a re-run after a crash, the same words in
        # another session), so it cannot be saved twice under other words
        seen = _read_seen(memory)
        fresh = [p for p in pieces if piece_key(project, p.text) not in seen]
        report.already += len(pieces) - len(fresh)
        pieces = fresh
        items = restate_items(memory, pieces, report.notes)
    for piece, item in zip(pieces, items, strict=True):
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
        if uses_llm(memory):  # at once: a crash after this save cannot repeat it
            _remember_seen(memory, piece_key(project, piece.text))
    if chunk.end != start:
        _write_offset(memory, state, transcript, chunk.end, session)
    return report
