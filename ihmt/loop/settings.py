"""IHMT's entries in the agents' hook settings: install, uninstall, status.

Both agents read the same shape (event -> list of matcher groups -> list of command hooks):

    Claude Code  ~/.claude/settings.json (user; $CLAUDE_CONFIG_DIR moves it) or
                 <project>/.claude/settings.json (project), key "hooks"
    Codex        ~/.codex/hooks.json (user; $CODEX_HOME moves it) or
                 <project>/.codex/hooks.json (project), key "hooks"

Each change is planned first (``plan_install`` / ``plan_uninstall``: the bytes before and
after, every file operation) and then applied (``apply``), so a front end can show the plan
and apply it on confirmation. Install appends one group per event whose command is ``… hooks run --agent NAME`` and touches
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


@dataclass
class HookPlan:
    """Exactly what an install or uninstall will do, computed without touching anything:
    the settings file's bytes now and after, and every file operation in order. ``apply``
    performs it only if the settings file still holds the bytes it was planned from (the GUI
    shows a plan, then applies it on the user's confirmation)."""

    change: HookChange
    before: bytes | None  # the settings file now (None: absent)
    after: bytes | None  # the settings file afterwards (None: removed; == before: unchanged)
    steps: list[tuple[str, str, bytes | None]] = field(default_factory=list)
    # ("mkdir", folder, None), ("write", file, bytes), ("remove", file, None),
    # ("rmdir", folder, None): rmdir only if the folder is then empty

    @property
    def changes_anything(self) -> bool:
        return bool(self.steps)

    def describe(self) -> list[str]:
        """One line per file operation, in plain words (what the preview lists)."""
        settings_file = self.change.path
        words = {
            "mkdir": "create the folder {}",
            "rmdir": "remove the folder {} if it is empty",
            "remove": "delete {}",
        }
        lines = []
        for kind, target, _data in self.steps:
            if kind == "write" and target == settings_file:
                if self.change.action == "restored":
                    lines.append(f"restore {target} to its bytes from before the install")
                else:
                    lines.append(f"{'rewrite' if self.before is not None else 'create'} {target}")
            elif kind == "write" and target.endswith(".ihmt-backup"):
                lines.append(f"save the original as {target} (uninstall restores it)")
            elif kind == "write":
                lines.append(f"write {target} (IHMT's note of what it installed)")
            elif kind == "remove" and target == settings_file:
                lines.append(f"delete {target} (IHMT created it)")
            else:
                lines.append(words[kind].format(target))
        return lines

    def diff(self) -> str:
        """The settings file's change as a unified diff ("" when it does not change)."""
        import difflib

        if self.after == self.before:
            return ""

        def lines(raw: bytes | None) -> list[str]:
            return raw.decode("utf-8", "replace").splitlines(keepends=True) if raw else []

        path = self.change.path
        before_name = path if self.before is not None else "/dev/null"
        after_name = path if self.after is not None else "/dev/null"
        return "".join(
            difflib.unified_diff(lines(self.before), lines(self.after), before_name, after_name)
        )


def _digest_of(raw: bytes | None) -> str:
    return _digest(raw) if raw is not None else ""


def plan_install(
    agent: str, scope: str = "user", workspace=None, cwd=None, python: str = ""
) -> HookPlan:
    """What ``install`` would do (nothing is written)."""
    path = settings_path(agent, scope, cwd)
    raw, data = _load(path)
    change = HookChange(agent, scope, str(path), "already installed")
    wanted = EVENTS[agent]
    present = installed_events(data)
    if all(e in present for e in wanted):
        change.events = present
        return HookPlan(change, raw, raw)
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
    plan = HookPlan(change, raw, text)
    if created_dir:
        plan.steps.append(("mkdir", str(path.parent), None))
    if not note.exists():  # the first install keeps the untouched original
        if raw is not None:
            plan.steps.append(("write", str(backup), raw))
            change.backup = str(backup)
        record = {"existed": raw is not None, "created_dir": created_dir}
    else:
        try:
            record = json.loads(note.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = {"existed": raw is not None, "created_dir": False}
    record["written"] = _digest(text)
    plan.steps.append(("write", str(path), text))
    plan.steps.append(("write", str(note), json.dumps(record).encode("utf-8")))
    change.action = "installed"
    change.events = list(wanted)
    return plan


def plan_uninstall(agent: str, scope: str = "user", cwd=None) -> HookPlan:
    """What ``uninstall`` would do (nothing is written)."""
    path = settings_path(agent, scope, cwd)
    raw, data = _load(path)
    backup, note = _sidecars(path)
    change = HookChange(agent, scope, str(path), "not installed")
    present = installed_events(data)
    try:
        record = json.loads(note.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = None
    plan = HookPlan(change, raw, raw)
    if not present:
        if note.exists():
            plan.steps.append(("remove", str(note), None))
        return plan
    change.events = present
    if isinstance(record, dict) and raw is not None and record.get("written") == _digest(raw):
        if record.get("existed") and backup.exists():
            plan.after = backup.read_bytes()
            plan.steps.append(("write", str(path), plan.after))
        else:
            plan.after = None
            plan.steps.append(("remove", str(path), None))
        plan.steps.append(("remove", str(note), None))
        plan.steps.append(("remove", str(backup), None))
        if not record.get("existed") and record.get("created_dir"):
            plan.steps.append(("rmdir", str(path.parent), None))
        change.action = "restored"
        return plan
    # edited since: take out only IHMT's entries
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
    plan.after = (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    plan.steps.append(("write", str(path), plan.after))
    plan.steps.append(("remove", str(note), None))
    plan.steps.append(("remove", str(backup), None))
    change.action = "removed"
    return plan


def apply(plan: HookPlan) -> HookChange:
    """Carry out a plan, unless its settings file changed since it was made."""
    path = Path(plan.change.path)
    try:
        now = path.read_bytes()
    except FileNotFoundError:
        now = None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if _digest_of(now) != _digest_of(plan.before) or (now is None) != (plan.before is None):
        raise InputError(f"{path} changed since this was planned; nothing was changed")
    for kind, target, data in plan.steps:
        where = Path(target)
        if kind == "mkdir":
            where.mkdir(parents=True, exist_ok=True)
        elif kind == "write":
            atomic_write_bytes(where, data or b"")
        elif kind == "remove":
            where.unlink(missing_ok=True)
        elif kind == "rmdir":
            try:
                where.rmdir()
            except OSError:
                pass
    return plan.change


def install(
    agent: str, scope: str = "user", workspace=None, cwd=None, python: str = ""
) -> HookChange:
    return apply(plan_install(agent, scope, workspace, cwd, python))


def uninstall(agent: str, scope: str = "user", cwd=None) -> HookChange:
    return apply(plan_uninstall(agent, scope, cwd))


def status_of(agent: str, scope: str, cwd=None) -> HookChange:
    """Whether IHMT's hooks are in one settings file. An unreadable file or a folder that is
    no project is a row saying so, never an error."""
    try:
        path = settings_path(agent, scope, cwd)
        _raw, data = _load(path)
    except InputError as exc:
        if scope == "project" and "not inside a project" in str(exc):
            return HookChange(agent, scope, "", "no project")
        return HookChange(agent, scope, "", f"unreadable: {exc}")
    events = installed_events(data)
    return HookChange(agent, scope, str(path), "installed" if events else "not installed", events)


def status(cwd=None) -> list[HookChange]:
    out = []
    for agent in AGENTS:
        for scope in SCOPES:
            change = status_of(agent, scope, cwd)
            if change.action != "no project":
                out.append(change)
    return out
