"""IHMT's entries in the agents' hook settings: install, uninstall, status.

Both agents read the same shape (event -> list of matcher groups -> list of command hooks):

    Claude Code  ~/.claude/settings.json (user; $CLAUDE_CONFIG_DIR moves it) or
                 <project>/.claude/settings.json (project), key "hooks"
    Codex        ~/.codex/hooks.json (user; $CODEX_HOME moves it) or
                 <project>/.codex/hooks.json (project), key "hooks"

Install appends one group per event whose command is ``… hooks run --agent NAME`` and touches
nothing else in the file. It keeps the file's bytes as ``<file>.ihmt-backup`` and a note
``<file>.ihmt-installed`` (whether the file existed, the digest of what was written). Running
it again changes nothing. Uninstall restores the backup byte for byte when nobody edited the
file since; otherwise it removes only IHMT's entries and keeps everyone else's edits.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..store.atomic import atomic_write_bytes
from ..vcs.project import project_of

AGENTS = ("claude", "codex")
SCOPES = ("user", "project")
EVENTS = {
    "claude": ("SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd"),
    # Codex has no guaranteed SessionEnd on every exit path: Stop (end of each turn) captures
    # incrementally too
    "codex": ("SessionStart", "UserPromptSubmit", "PreCompact", "Stop", "SessionEnd"),
}
TIMEOUTS = {"SessionStart": 15, "UserPromptSubmit": 10}  # seconds; captures get 60
MARK = "hooks run --agent"
ROOT = Path(__file__).resolve().parent.parent.parent


@dataclass
class HookChange:
    agent: str
    scope: str
    path: str
    action: str  # "installed", "already installed", "removed", "restored", "not installed"
    events: list[str] = field(default_factory=list)
    backup: str = ""

    def to_dict(self) -> dict:
        from dataclasses import asdict

        return asdict(self)


def settings_path(agent: str, scope: str, cwd: str | os.PathLike | None = None) -> Path:
    if agent not in AGENTS:
        raise InputError(f"unknown agent {agent!r}; use one of {', '.join(AGENTS)}")
    if scope not in SCOPES:
        raise InputError(f"unknown scope {scope!r}; use user or project")
    if scope == "project":
        folder = Path(cwd or os.getcwd()).resolve()
        top = next((p for p in (folder, *folder.parents) if (p / ".git").exists()), folder)
        if not project_of(top):
            raise InputError(f"{folder} is not inside a project; use --scope user")
        return top / (".claude/settings.json" if agent == "claude" else ".codex/hooks.json")
    if agent == "claude":
        base = os.environ.get("CLAUDE_CONFIG_DIR") or str(Path.home() / ".claude")
        return Path(base).expanduser() / "settings.json"
    base = os.environ.get("CODEX_HOME") or str(Path.home() / ".codex")
    return Path(base).expanduser() / "hooks.json"


def hook_command(agent: str, workspace: str | os.PathLike | None, python: str = "") -> str:
    """The command the agent runs: this interpreter without ``site`` (``-S``: the entry adds
    site-packages only if an import needs them), this clone's hook entry (it skips the
    command line's start-up, paid on every prompt), the store."""
    entry = ROOT / "ihmt" / "hooks" / "__main__.py"
    parts = [python or sys.executable, "-S", str(entry), "hooks", "run", "--agent", agent]
    if workspace:
        parts += ["--path", str(Path(workspace).expanduser().resolve())]
    return shlex.join(parts)


def _ours(hook) -> bool:
    return isinstance(hook, dict) and MARK in str(hook.get("command", ""))


def _load(path: Path) -> tuple[bytes | None, dict]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, {}
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not raw.strip():
        return raw, {}
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise InputError(f"{path} is not valid JSON; fix it first, nothing was changed") from None
    if not isinstance(data, dict):
        raise InputError(f"{path} does not hold a JSON object; nothing was changed")
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise InputError(f'{path}: "hooks" is not an object; nothing was changed')
    return raw, data


def installed_events(data: dict) -> list[str]:
    hooks = data.get("hooks") if isinstance(data.get("hooks"), dict) else {}
    out = []
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            if isinstance(group, dict) and any(_ours(h) for h in group.get("hooks") or []):
                out.append(event)
                break
    return out


def _sidecars(path: Path) -> tuple[Path, Path]:
    return path.with_name(path.name + ".ihmt-backup"), path.with_name(path.name + ".ihmt-installed")


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def install(
    agent: str, scope: str = "user", workspace=None, cwd=None, python: str = ""
) -> HookChange:
    path = settings_path(agent, scope, cwd)
    raw, data = _load(path)
    change = HookChange(agent, scope, str(path), "already installed")
    wanted = EVENTS[agent]
    present = installed_events(data)
    if all(e in present for e in wanted):
        change.events = present
        return change
    command = hook_command(agent, workspace, python)
    hooks = data.setdefault("hooks", {})
    for event in wanted:
        if event in present:
            continue
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise InputError(f'{path}: "hooks.{event}" is not a list; nothing was changed')
        entry = {"type": "command", "command": command, "timeout": TIMEOUTS.get(event, 60)}
        groups.append({"hooks": [entry]})
    text = (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    backup, note = _sidecars(path)
    created_dir = not path.parent.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    if not note.exists():  # the first install keeps the untouched original
        if raw is not None:
            atomic_write_bytes(backup, raw)
            change.backup = str(backup)
        record = {"existed": raw is not None, "created_dir": created_dir}
    else:
        try:
            record = json.loads(note.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = {"existed": raw is not None, "created_dir": False}
    record["written"] = _digest(text)
    atomic_write_bytes(path, text)
    atomic_write_bytes(note, json.dumps(record).encode("utf-8"))
    change.action = "installed"
    change.events = list(wanted)
    return change


def uninstall(agent: str, scope: str = "user", cwd=None) -> HookChange:
    path = settings_path(agent, scope, cwd)
    raw, data = _load(path)
    backup, note = _sidecars(path)
    change = HookChange(agent, scope, str(path), "not installed")
    present = installed_events(data)
    try:
        record = json.loads(note.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = None
    if not present:
        note.unlink(missing_ok=True)
        return change
    change.events = present
    if isinstance(record, dict) and raw is not None and record.get("written") == _digest(raw):
        if record.get("existed") and backup.exists():
            atomic_write_bytes(path, backup.read_bytes())
        else:
            path.unlink()
        note.unlink(missing_ok=True)
        backup.unlink(missing_ok=True)
        if not record.get("existed") and record.get("created_dir"):
            try:
                path.parent.rmdir()
            except OSError:
                pass
        change.action = "restored"
    else:  # edited since: take out only IHMT's entries
        hooks = data.get("hooks", {})
        for event in list(hooks):
            groups = hooks[event] if isinstance(hooks[event], list) else []
            kept = []
            for group in groups:
                if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                    inner = [h for h in group["hooks"] if not _ours(h)]
                    if not inner and group["hooks"]:
                        continue
                    group = dict(group, hooks=inner)
                kept.append(group)
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
        if not hooks:
            data.pop("hooks", None)
        text = (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
        atomic_write_bytes(path, text)
        change.action = "removed"
    note.unlink(missing_ok=True)
    backup.unlink(missing_ok=True)
    return change


def status(cwd=None) -> list[HookChange]:
    out = []
    for agent in AGENTS:
        for scope in SCOPES:
            try:
                path = settings_path(agent, scope, cwd)
                _raw, data = _load(path)
            except InputError as exc:
                if scope == "project" and "not inside a project" in str(exc):
                    continue
                out.append(HookChange(agent, scope, "", f"unreadable: {exc}"))
                continue
            events = installed_events(data)
            action = "installed" if events else "not installed"
            out.append(HookChange(agent, scope, str(path), action, events))
    return out
