"""What one MCP server process owns: the store handle and this agent session's state.

Standard library only; the tools in ``mcp_tools`` call into it. One server process serves one
agent session, so the scratch pad, the read cache and the open project indexes live exactly as
long as the session.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import default_workspace

log = logging.getLogger("ihmt.mcp")

MAX_OPEN_PROJECTS = 8


@dataclass
class Session:
    """The session's state, each piece made on first use.

    The IHMT handle is opened on first use (start-up stays fast) and kept: the library re-reads
    shared state on every call, so saves made by other server processes on the same IHMT_HOME
    are visible on the next call.
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
            if self._memory is None or not self._memory.exists():
                from .api import IHMT

                self._memory = IHMT.initialize(self.home)
                log.info("memory store: %s", self._memory.path)
                # with semantic search, the store's resident model process (unless one runs):
                # every agent's server then asks that one model instead of loading its own, and
                # the first search waits for it rather than load a second copy
                self._memory.share_model()
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
        from .vcs.project import project_arg, project_of

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


__all__ = ["MAX_OPEN_PROJECTS", "Session"]
