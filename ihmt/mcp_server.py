"""The stdio MCP server: IHMT's long-term memory and session tools for AI agents.

    python3 mcp_server.py            # from a clone; the store is $IHMT_HOME/ihmt_memory
    ihmt-mcp                         # the same, once the package is installed

A presenter, like the CLI. This module is the entry point and what one server process owns
(the ``Session``); it imports only the standard library, so a missing SDK (an optional extra)
is reported in one line. The tools themselves are typed functions registered on the SDK's
``MCPServer`` in ``mcp_tools``; ``mcp_wire`` answers malformed protocol lines in front of it.
Nothing but the SDK writes to stdout.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import default_workspace
from .text.clean import one_line

log = logging.getLogger("ihmt.mcp")

MISSING_SDK = "the MCP server needs the mcp package: pip install -r requirements-mcp.txt"
MAX_OPEN_PROJECTS = 8


@dataclass
class Session:
    """What one server process owns: the store handle and this session's scratch state.

    One server process serves one agent session, so the scratch pad, the read cache and the
    open project indexes live exactly as long as the session. The IHMT handle is opened on
    first use (start-up stays fast) and kept: the library re-reads shared state on every call,
    so saves made by other server processes on the same IHMT_HOME are visible on the next call.
    """

    home: Path = field(default_factory=default_workspace)
    cwd: Path = field(default_factory=Path.cwd)
    _memory: Any = field(default=None, init=False, repr=False)
    _scratch: Any = field(default=None, init=False, repr=False)
    _files: Any = field(default=None, init=False, repr=False)
    _indexes: dict[Path, Any] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def memory(self):
        """The store, created on first use (and again if its folder was deleted meanwhile)."""
        with self._lock:
            if self._memory is None or not self._memory.store_exists():
                from .api import IHMT

                self._memory = IHMT.initialize(self.home)
                log.info("memory store: %s", self._memory.path)
            return self._memory

    @property
    def scratch(self):
        if self._scratch is None:
            from .session.scratch import ScratchPad

            self._scratch = ScratchPad()
        return self._scratch

    @property
    def files(self):
        if self._files is None:
            from .session.file_cache import FileReadCache

            self._files = FileReadCache(root=self.cwd)
        return self._files

    def project(self, given: str) -> str:
        """The project a call is about: ``given`` ("global" = none), else the project of the
        folder the agent started this server in (its git remote or path)."""
        from .loop.project import project_arg, project_of

        named = project_arg(given, self.cwd)
        return project_of(self.cwd) if named is None else named

    def project_index(self, given: str):
        """The never-stale code index of the project at ``given`` (relative to ``cwd``).

        The indexes opened in this session are kept (a few at most), so their manifests stay
        in memory and a call on an unchanged project costs only the stat calls of its sync.
        """
        from .projects.index import ProjectIndex, default_projects_dir, resolve_project

        path = Path(given.strip()).expanduser()
        root = resolve_project(path if path.is_absolute() else self.cwd / path)
        with self._lock:
            index = self._indexes.get(root)
            if index is None:
                if len(self._indexes) >= MAX_OPEN_PROJECTS:
                    self._indexes.pop(next(iter(self._indexes))).close()
                index = ProjectIndex(root, default_projects_dir(self.home))
                self._indexes[root] = index
            return index


def main(argv: list[str] | None = None) -> None:
    """Run the stdio server until the client closes the connection."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help"):
        sys.stderr.write(
            "usage: mcp_server.py\n\nIHMT's stdio MCP server. An MCP client (Claude Code, Codex, "
            "opencode, ...) starts it; the store is $IHMT_HOME/ihmt_memory (default ~/.ihmt).\n"
        )
        raise SystemExit(0)
    level = getattr(logging, os.environ.get("IHMT_LOG_LEVEL", "").strip().upper(), None)
    logging.basicConfig(
        stream=sys.stderr,
        level=level if isinstance(level, int) else logging.WARNING,
        format="ihmt-mcp %(levelname)s %(name)s: %(message)s",
    )
    try:
        from .mcp_tools import serve
    except ImportError as exc:
        sys.stderr.write(_import_failure(exc) + "\n")
        raise SystemExit(1) from None
    from . import __version__

    if sys.stdin.isatty():
        sys.stderr.write("IHMT MCP server: waiting for an MCP client on stdin (Ctrl-C quits)\n")
    try:
        serve(Session(), __version__)
    except KeyboardInterrupt:
        pass


def _import_failure(exc: ImportError) -> str:
    """One line saying how to get a working SDK: missing, too old (1.x), or broken."""
    missing = exc.name or ""
    if missing == "mcp" or (missing.startswith("mcp.") and not _importable("mcp")):
        return MISSING_SDK
    if missing.startswith("mcp."):  # a 1.x SDK has no mcp.server.mcpserver
        return (
            "the installed mcp package is older than 2.3 (this server needs mcp>=2.3,<3): "
            "pip install --upgrade -r requirements-mcp.txt"
        )
    return (
        f"the installed mcp package failed to import ({one_line(str(exc))}); "
        "reinstall it: pip install --upgrade -r requirements-mcp.txt"
    )


def _importable(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


__all__ = ["MISSING_SDK", "Session", "main"]
