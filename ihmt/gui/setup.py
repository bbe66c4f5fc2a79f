"""Set-up logic for the GUI: a fenced folder browser, registration snippets, preview/confirm writes.

Why a preview/confirm pair: the token that guards the API lives in a URL, and URLs leak. So the
one endpoint that writes takes nothing but the id of a preview made moments earlier; the path,
the bytes and the original file's checksum are all fixed at preview time, on the server. A page
holding a stolen token can at most create a store or a ``.mcp.json`` inside the folder tree the
user allowed at start-up, and only after previewing exactly that.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shlex
import stat
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..api import IHMT
from ..config import MCP_SERVER_NAME as SERVER_NAME
from ..errors import GuiInputError, InputError, OutsideRootError
from ..loop import settings as hook_settings
from ..loop.settings import HookPlan

LIST_PAGE = 200  # folders per page of the folder browser
LIST_PAGE_MAX = 1000
PREVIEW_TTL = 600.0  # seconds a preview stays confirmable
MAX_PREVIEWS = 32
MAX_JSON_BYTES = 1_000_000  # an existing .mcp.json larger than this is refused, not parsed


def repo_root() -> Path:
    """The clone this package runs from (mcp_server.py sits at its top)."""
    return Path(__file__).resolve().parents[2]


def mcp_server_path() -> Path:
    return repo_root() / "mcp_server.py"


# -- the fenced folder browser ------------------------------------------------------------------
class FolderFence:
    """Only folders inside ``root`` (after resolving symlinks) may be listed or targeted."""

    def __init__(self, root: str | os.PathLike, also: tuple = ()) -> None:
        self.root = Path(root).expanduser().resolve()
        # single folders allowed outside the root: the memory the GUI was started on, so
        # switching away from a --path outside the root never makes it unreachable
        self.also = {Path(p).expanduser().resolve() for p in also}

    def check(self, raw: str | os.PathLike | None) -> Path:
        """The resolved folder for ``raw``; raises unless it is an existing folder in the fence."""
        if raw is None or raw == "":
            return self.root
        if not isinstance(raw, (str, os.PathLike)):
            raise GuiInputError("a folder path must be a string", "bad_path")
        text = os.fspath(raw)
        if "\x00" in text or len(text) > 4096:
            raise GuiInputError("invalid folder path", "bad_path")
        path = Path(text).expanduser()
        if not path.is_absolute():
            raise GuiInputError("give an absolute folder path", "not_absolute")
        try:
            resolved = path.resolve(strict=True)
        except (OSError, RuntimeError):
            raise GuiInputError("no such folder", "no_folder") from None
        if not self.contains(resolved):
            raise OutsideRootError(self.root)
        if not resolved.is_dir():
            raise GuiInputError("not a folder", "not_folder")
        return resolved

    def contains(self, resolved: Path) -> bool:
        return resolved == self.root or self.root in resolved.parents or resolved in self.also

    def listing(
        self, raw: str | None, offset: int = 0, limit: int = LIST_PAGE, hidden: bool = True
    ) -> dict:
        """One page of the subfolders of a folder (never files), sorted by name.

        Only cheap facts are gathered for every entry (its name, and for a symbolic link where
        it resolves, so links out of the fence are never counted); the costlier ones (is it a
        store, does it hold .mcp.json) only for the page shown. So a folder with tens of
        thousands of subfolders answers fast and ``total`` says how many there are.
        """
        folder = self.check(raw)
        names: list[tuple[str, Path | None]] = []
        hidden_count = 0
        try:
            with os.scandir(folder) as scan:
                for entry in scan:
                    inside, target = self._inside_dir(entry)
                    if not inside:
                        continue
                    if entry.name.startswith(".") and not hidden:
                        hidden_count += 1
                        continue
                    names.append((entry.name, target))
        except OSError as exc:
            raise GuiInputError(
                f"cannot read this folder: {exc.strerror or exc}",
                "unreadable_folder",
                detail=str(exc.strerror or exc),
            ) from None
        names.sort(key=lambda item: (item[0].lower(), item[0]))
        page = names[offset : offset + limit]
        entries = [
            {
                "name": name,
                "path": str(target),
                "hidden": name.startswith("."),
                "store": _looks_like_store(target),
                "mcp_json": os.path.isfile(os.path.join(target, ".mcp.json")),
            }
            for name, target in ((n, t or folder / n) for n, t in page)
        ]
        inside_parent = folder != self.root and self.contains(folder.parent)
        parent = folder.parent if inside_parent else None
        return {
            "path": str(folder),
            "root": str(self.root),
            "parent": str(parent) if parent is not None else None,
            "crumbs": self._crumbs(folder),
            "entries": entries,
            "total": len(names),
            "offset": offset,
            "limit": limit,
            "more": max(0, len(names) - offset - len(entries)),
            "hidden_count": hidden_count,
            "store": _looks_like_store(folder),
            "mcp_json": (folder / ".mcp.json").is_file(),
        }

    def _inside_dir(self, entry: os.DirEntry) -> tuple[bool, Path | None]:
        """Whether an entry is a folder inside the fence, and for a symbolic link its target.

        A plain subfolder of a checked folder stays inside and needs no Path (building 20,000
        of them is most of a big listing's cost); only a link is resolved and checked.
        """
        try:
            if not entry.is_dir(follow_symlinks=True):
                return False, None
            if not entry.is_symlink():
                return True, None
            target = Path(entry.path).resolve(strict=True)
        except (OSError, RuntimeError):
            return False, None
        return self.contains(target), target

    def _crumbs(self, folder: Path) -> list[dict]:
        parts = [folder]
        while parts[-1] != self.root and self.root in parts[-1].parents:
            parts.append(parts[-1].parent)
        return [{"name": p.name or str(p), "path": str(p)} for p in reversed(parts)]


def _looks_like_store(folder: Path) -> bool:
    try:
        return IHMT.holds_store(folder)
    except (OSError, ValueError):
        return False


def valid_folder_name(name: str) -> str:
    """One new path component typed by the user: no separators, no dot-dot, not empty."""
    if not isinstance(name, str):
        raise GuiInputError("the new folder name must be a string", "folder_name")
    name = name.strip()
    bad = ("/", "\\", "\x00", ":")
    if not name or name in (".", "..") or any(b in name for b in bad) or len(name) > 120:
        raise GuiInputError("give a plain folder name (no slashes)", "folder_name")
    return name


# -- what a registration looks like --------------------------------------------------------------
def server_entry(workspace: Path) -> dict:
    """The ``.mcp.json`` entry for this clone and this memory folder."""
    return {
        "command": sys.executable,
        "args": [str(mcp_server_path())],
        "env": {"IHMT_HOME": str(workspace)},
    }


def _shell_join(words: list[str]) -> str:
    if os.name == "nt":
        return subprocess.list2cmdline(words)
    return " ".join(shlex.quote(w) for w in words)


def _toml_string(value: str) -> str:
    out = []
    for ch in value:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def snippets(workspace: Path) -> dict:
    """Commands and config fragments to copy; the GUI never runs an agent's CLI itself."""
    python, server, home = sys.executable, str(mcp_server_path()), str(workspace)
    claude = _shell_join(
        ["claude", "mcp", "add", SERVER_NAME, "-s", "user", "-e", f"IHMT_HOME={home}", "--"]
        + [python, server]
    )
    codex = _shell_join(
        ["codex", "mcp", "add", SERVER_NAME, "--env", f"IHMT_HOME={home}", "--", python, server]
    )
    toml = "\n".join(
        [
            f"[mcp_servers.{SERVER_NAME}]",
            f"command = {_toml_string(python)}",
            f"args = [{_toml_string(server)}]",
            'default_tools_approval_mode = "approve"',
            "",
            f"[mcp_servers.{SERVER_NAME}.env]",
            f"IHMT_HOME = {_toml_string(home)}",
            "",
        ]
    )
    opencode = {
        "mcp": {
            SERVER_NAME: {
                "type": "local",
                "command": [python, server],
                "environment": {"IHMT_HOME": home},
                "enabled": True,
            }
        }
    }
    return {
        "claude": {"command": claude, "verify": "claude mcp list"},
        "codex": {"command": codex, "config_path": "~/.codex/config.toml", "config": toml},
        "opencode": {
            "config_path": "~/.config/opencode/opencode.json",
            "json": json.dumps(opencode, indent=2, ensure_ascii=False) + "\n",
        },
        "python": python,
        "mcp_server": server,
        "mcp_server_exists": Path(server).is_file(),
        "workspace": home,
    }


# -- previews and confirmed writes ----------------------------------------------------------------
@dataclass
class Preview:
    id: str
    kind: str  # "store", "project" or "hooks"
    target: Path  # the one file or folder this preview may create
    data: bytes = b""
    original_sha: str | None = None  # checksum of the file when previewed; None = absent
    plan: HookPlan | None = None  # a hooks preview: exactly what applying it does
    created: float = field(default_factory=time.monotonic)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class SetupService:
    """Previews writes and performs exactly the previewed one on confirmation."""

    def __init__(self, fence: FolderFence) -> None:
        self.fence = fence
        self._previews: dict[str, Preview] = {}
        self._lock = threading.Lock()

    # previews ----------------------------------------------------------------------------------
    def preview_store(self, folder: str, name: str | None = None) -> dict:
        path = Path(folder).expanduser()
        if not name and path.is_absolute() and not path.exists():
            # first run: the default memory folder (~/.ihmt) does not exist yet
            folder, name = str(path.parent), path.name
        base = self.fence.check(folder)
        workspace = base / valid_folder_name(name) if name else base
        if workspace.exists() and not workspace.is_dir():
            raise GuiInputError("a file with that name already exists", "file_exists")
        if workspace.is_symlink():
            raise GuiInputError(
                "the chosen folder is a symbolic link; pick its target instead", "symlink_folder"
            )
        workspace = IHMT.locate(workspace)
        if not self.fence.contains(workspace.resolve() if workspace.exists() else workspace):
            raise OutsideRootError(self.fence.root)
        exists = IHMT.store_exists(workspace)
        info = {
            "kind": "store",
            "workspace": str(workspace),
            "store": str(IHMT.store_folder(workspace)),
            "exists": exists,
            "creates": [] if exists else _store_listing(IHMT.store_folder(workspace)),
        }
        if exists:
            info["id"] = None
            return info
        info["id"] = self._remember(Preview(id="", kind="store", target=workspace))
        return info

    def preview_project(self, folder: str, workspace: Path, replace: bool = False) -> dict:
        project = self.fence.check(folder)
        target = project / ".mcp.json"
        if target.is_symlink():
            raise GuiInputError(
                ".mcp.json in that folder is a symbolic link; IHMT will not follow it",
                "mcp_symlink",
            )
        if target.exists() and not target.is_file():
            raise GuiInputError(".mcp.json in that folder is not a regular file", "mcp_not_file")
        entry = server_entry(workspace)
        original: bytes | None = None
        data: dict = {}
        if target.exists():
            original = target.read_bytes()
            if len(original) > MAX_JSON_BYTES:
                raise GuiInputError(
                    "the existing .mcp.json is too large to merge safely", "mcp_too_large"
                )
            data = _parse_mcp_json(original)
        servers = data.setdefault("mcpServers", {})
        if not isinstance(servers, dict):
            raise GuiInputError(
                'the existing .mcp.json has an "mcpServers" value that is not an object',
                "mcp_not_object",
            )
        others = [name for name in servers if name != SERVER_NAME]
        current = servers.get(SERVER_NAME)
        info: dict = {
            "kind": "project",
            "path": str(target),
            "exists": original is not None,
            "other_servers": others,
            "entry": entry,
            "existing_entry": current,
            "id": None,
        }
        if current == entry:
            info["status"] = "unchanged"
            info["text"] = original.decode("utf-8", "replace") if original else ""
            return info
        if current is not None and not replace:
            info["status"] = "conflict"
            info["text"] = ""
            return info
        servers[SERVER_NAME] = entry
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        payload = text.encode("utf-8")
        info["status"] = "replace" if current is not None else ("merge" if original else "new")
        info["text"] = text
        info["id"] = self._remember(
            Preview(
                id="",
                kind="project",
                target=target,
                data=payload,
                original_sha=_sha(original) if original is not None else None,
            )
        )
        return info

    # the agents' hooks (optional) ---------------------------------------------------------------
    def _hooks_project(self, folder: str | None) -> Path | None:
        return self.fence.check(folder) if folder else None

    def hooks_status(self, folder: str | None = None) -> dict:
        """IHMT's hooks in each agent's user settings and, for a chosen project folder, its
        project settings (the rows of ``ihmt hooks status``)."""
        project = self._hooks_project(folder)
        rows = []
        for agent in hook_settings.AGENTS:
            rows.append(hook_settings.status_of(agent, "user").to_dict())
            if project is not None:
                rows.append(hook_settings.status_of(agent, "project", project).to_dict())
        return {
            "rows": rows,
            "project": str(project) if project else "",
            "events": hook_settings.EVENTS,
        }

    def preview_hooks(
        self, agent: object, scope: object, action: object, folder: str | None, workspace: Path
    ) -> dict:
        """The plan of ``hooks install`` / ``uninstall`` for one agent and scope: the settings
        file, every file operation and the settings file's diff; confirmable once.

        User settings (``~/.claude``, ``~/.codex``) lie outside the folder fence by nature; the
        plan's content is fixed here (this interpreter, this clone, the active memory), so the
        page can choose only which of these two files and whether to add or remove."""
        if agent not in hook_settings.AGENTS:
            raise GuiInputError('agent must be "claude" or "codex"', "bad_agent")
        if scope not in hook_settings.SCOPES:
            raise GuiInputError('scope must be "user" or "project"', "bad_scope")
        if action not in ("install", "uninstall"):
            raise GuiInputError('action must be "install" or "uninstall"', "bad_action")
        project = None
        if scope == "project":
            if not folder:
                raise GuiInputError("choose the project folder first", "no_project_folder")
            project = self._hooks_project(folder)
        try:
            if action == "install":
                plan = hook_settings.plan_install(agent, scope, workspace=workspace, cwd=project)
            else:
                plan = hook_settings.plan_uninstall(agent, scope, cwd=project)
        except InputError as exc:
            raise GuiInputError(str(exc), "hooks_refused") from None
        path = Path(plan.change.path)
        if scope == "project" and not self.fence.contains(path.parent.parent.resolve()):
            raise OutsideRootError(self.fence.root)  # the project's top lies above the fence
        info = {
            "kind": "hooks",
            "agent": agent,
            "scope": scope,
            "action": action,
            "path": str(path),
            "result": plan.change.action,  # what applying it does: installed, restored, ...
            "events": plan.change.events,
            "steps": plan.describe(),
            "diff": plan.diff(),
            "id": None,
        }
        if plan.changes_anything:
            info["id"] = self._remember(Preview(id="", kind="hooks", target=path, plan=plan))
        return info

    def apply_hooks(self, preview: Preview) -> dict:
        """Apply a confirmed hooks plan (refused when the settings file changed since)."""
        try:
            change = hook_settings.apply(preview.plan)
        except InputError as exc:
            raise GuiInputError(str(exc), "hooks_changed") from None
        return change.to_dict()

    def _remember(self, preview: Preview) -> str:
        preview.id = secrets.token_urlsafe(18)
        with self._lock:
            self._expire()
            while len(self._previews) >= MAX_PREVIEWS:
                self._previews.pop(next(iter(self._previews)))
            self._previews[preview.id] = preview
        return preview.id

    def _expire(self) -> None:
        now = time.monotonic()
        for key in [k for k, p in self._previews.items() if now - p.created > PREVIEW_TTL]:
            del self._previews[key]

    # confirmation --------------------------------------------------------------------------------
    def take(self, preview_id: object) -> Preview:
        """The preview for ``preview_id``, removed so it can be confirmed only once."""
        if not isinstance(preview_id, str) or not preview_id or len(preview_id) > 64:
            raise GuiInputError("unknown or expired preview; preview again", "preview_expired")
        with self._lock:
            self._expire()
            preview = self._previews.pop(preview_id, None)
        if preview is None:
            raise GuiInputError("unknown or expired preview; preview again", "preview_expired")
        return preview

    def write_project(self, preview: Preview) -> dict:
        """Write the previewed bytes, unless the folder or the file moved on since the preview."""
        target = preview.target
        folder = self.fence.check(str(target.parent))
        if folder != target.parent:
            raise GuiInputError(
                "the project folder changed since the preview; preview again", "preview_stale"
            )
        if target.is_symlink():
            raise GuiInputError(
                ".mcp.json became a symbolic link since the preview; preview again", "preview_stale"
            )
        now = target.read_bytes() if target.exists() else None
        now_sha = _sha(now) if now is not None else None
        if now_sha != preview.original_sha:
            raise GuiInputError(".mcp.json changed since the preview; preview again", "mcp_changed")
        # a merge keeps the file's mode (a 644 project file stays 644); a new one is 644 too,
        # like any file a project commits (it holds paths, no secret)
        mode = stat.S_IMODE(target.stat().st_mode) if now is not None else 0o644
        IHMT.write_file(target, preview.data)
        os.chmod(target, mode)
        return {"written": str(target), "bytes": len(preview.data), "sha256": _sha(preview.data)}

    def check_store_target(self, preview: Preview) -> Path:
        """The workspace a store preview may create, re-checked against the fence."""
        workspace = preview.target
        anchor = workspace if workspace.exists() else workspace.parent
        self.fence.check(str(anchor))
        if workspace.is_symlink():
            raise GuiInputError(
                "the chosen folder became a symbolic link; preview again", "preview_stale"
            )
        return workspace


def _parse_mcp_json(raw: bytes) -> dict:
    try:
        data = json.loads(raw.decode("utf-8-sig")) if raw.strip() else {}
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise GuiInputError(
            "the existing .mcp.json is not valid JSON; fix it by hand first (IHMT will not overwrite it)",
            "mcp_invalid",
        ) from None
    if not isinstance(data, dict):
        raise GuiInputError(
            "the existing .mcp.json is not a JSON object; IHMT will not overwrite it", "mcp_invalid"
        )
    return data


def _store_listing(root: Path) -> list[str]:
    return [
        f"{root}/",
        f"{root}/root.json",
        f"{root}/ihmt.config.json",
        f"{root}/layer_0/",
        f"{root}/layers/",
        f"{root}/records/",
        f"{root}/state/",
    ]


__all__ = [
    "FolderFence",
    "GuiInputError",
    "OutsideRootError",
    "Preview",
    "SetupService",
    "mcp_server_path",
    "server_entry",
    "snippets",
]
