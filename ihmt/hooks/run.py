"""One hook event: payload on stdin -> the facade -> context on stdout. Never breaks the agent.

Claude Code and Codex both send ``{"hook_event_name", "session_id", "transcript_path", "cwd",
...}`` and both read ``{"hookSpecificOutput": {"hookEventName", "additionalContext"}}`` from
stdout for SessionStart and UserPromptSubmit. Events:

    SessionStart            the brief for the project in ``cwd``
    UserPromptSubmit        memories that confidently answer ``prompt``
    PreCompact, SessionEnd, Stop   capture the transcript's unread part

Whatever happens — no store, a locked, read-only or damaged one, malformed JSON, an unknown
event, a missing or half-written transcript — the exit code is 0, stdout holds nothing or valid
JSON, and stderr holds one line saying why nothing was done. A watchdog ends the process
after ``BUDGET`` seconds.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
import threading
from pathlib import Path

MAX_PAYLOAD = 4 * 1024 * 1024
BUDGET = {"SessionStart": 8, "UserPromptSubmit": 4}  # seconds; captures get CAPTURE_BUDGET
CAPTURE_BUDGET = 40
CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit")
CAPTURE_EVENTS = ("PreCompact", "SessionEnd", "Stop")


def _note(text: str) -> None:
    try:
        sys.stderr.write("ihmt hook: " + " ".join(str(text).split())[:300] + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _watchdog(seconds: int) -> None:
    """End the process (exit 0) if the event takes longer than its budget."""

    def expire(*_args) -> None:
        _note(f"gave up after {seconds}s (memory busy or slow); nothing was added")
        os._exit(0)

    if hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGALRM, expire)
        signal.alarm(seconds)
    else:
        timer = threading.Timer(seconds, expire)
        timer.daemon = True
        timer.start()


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def site_packages_if_needed(config) -> None:
    """Under ``python -S`` (the installed command), add site-packages when this store's settings
    need an installed package: semantic search (sentence-transformers) or an LLM summarizer
    (its SDK). Everything else runs on the standard library alone."""
    if not sys.flags.no_site or "site" in sys.modules:
        return
    if config.semantic or config.summarizer_backend not in ("", "heuristic"):
        import site

        site.main()


def _quiet_library_logs() -> None:
    """A capture may make the library log (an LLM backend's warnings, several lines); the
    capture's own notes already say what happened, one line each, so those logs stay out of
    the agent's stderr. Only captures pay for importing logging."""
    import logging

    logging.getLogger("ihmt").addHandler(logging.NullHandler())


def handle(payload: dict, workspace: str | None, agent: str) -> str:
    """The JSON to print for one event ("" for nothing). Raises on trouble (caught by run)."""
    from ..api import IHMT
    from ..vcs.project import project_of

    event = _text(payload.get("hook_event_name"))
    if event not in CONTEXT_EVENTS + CAPTURE_EVENTS:
        _note(f"ignored unknown event {event[:60]!r}")
        return ""
    cwd = _text(payload.get("cwd"))
    project = project_of(cwd) if cwd else ""
    memory = IHMT.open(workspace)
    try:
        if event in CAPTURE_EVENTS:
            # a capture may summarize with an LLM and embed what it saves; the brief and a
            # prompt's answer are read without the semantic model (see IHMT.prompt_recall)
            site_packages_if_needed(memory.config)
        if event in CAPTURE_EVENTS:
            _quiet_library_logs()
            transcript = _text(payload.get("transcript_path"))
            if not transcript:
                _note(f"{event}: the payload has no transcript_path; nothing captured")
                return ""
            report = memory.capture(
                transcript,
                session=_text(payload.get("session_id")),
                agent=agent,
                project=project,
                cwd=cwd or None,
            )
            if report.skipped:
                _note(report.skipped)
            for note in report.notes:
                _note(note)
            return ""
        if event == "SessionStart":
            memory.start_resident_model()  # semantic search: loaded by the first prompt
            context = memory.session_brief(project)
        else:
            context = memory.prompt_recall(_text(payload.get("prompt")), project, load_model=False)
    finally:
        memory.close()
    if not context:
        return ""
    return json.dumps(
        {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}},
        ensure_ascii=False,
    )


def run(agent: str, workspace: str | None, stdin=None, stdout=None) -> int:
    """Read stdin, handle the event, print; always 0."""
    stdin = stdin if stdin is not None else sys.stdin.buffer
    stdout = stdout if stdout is not None else sys.stdout
    try:
        raw = stdin.read(MAX_PAYLOAD + 1)
    except (OSError, ValueError) as exc:
        _note(f"could not read the payload ({exc}); nothing done")
        return 0
    if len(raw) > MAX_PAYLOAD:
        _note("the payload is larger than 4 MB; nothing done")
        return 0
    try:
        payload = json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        _note("the payload on stdin is not valid JSON; nothing done")
        return 0
    if not isinstance(payload, dict):
        _note("the payload on stdin is not a JSON object; nothing done")
        return 0
    event = _text(payload.get("hook_event_name"))
    if event not in CONTEXT_EVENTS:
        gc.enable()  # the entry turned it off for a quick read; a capture may read megabytes
    _watchdog(BUDGET.get(event, CAPTURE_BUDGET))
    out = ""
    try:
        out = handle(payload, workspace, agent)
    except FileNotFoundError as exc:
        _note(f"{event}: {exc.strerror or 'not found'}: {exc.filename or ''}; nothing done")
    except OSError as exc:
        _note(f"{event}: {exc.strerror or exc}; nothing done")
    except Exception as exc:  # an IHMTError (missing, locked, read-only, damaged) or a bug
        from ..errors import IHMTError

        kind = "" if isinstance(exc, IHMTError) else f"internal error {exc.__class__.__name__}: "
        _note(f"{event}: {kind}{exc}; nothing done")
    if out:
        try:
            stdout.write(out + "\n")
            stdout.flush()
        except (OSError, ValueError):
            pass
    return 0


def main(argv: list[str]) -> int:
    """``[hooks run] --agent NAME [--path W]``: the agent's per-event command; unknown words
    are ignored, never an error (the agent must not be disturbed)."""
    agent, path = "claude", None
    items = iter(argv)
    for item in items:
        if item == "--agent":
            agent = next(items, agent)
        elif item == "--path":
            path = next(items, None)
    return run(agent, workspace_arg(path))


def workspace_arg(value: str | None) -> str | None:
    return str(Path(value).expanduser()) if value else None
