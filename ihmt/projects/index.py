"""ProjectIndex: a private, never-stale code cache per project, for find_code and project_map.

This module holds the index's state (its store, manifest and sync lock) and its two
queries; carrying out a sync is in sync.py, searching in search.py, fitting an answer to
the token budget in packing.py.

Each project gets its own IHMT store under ``$IHMT_PROJECTS_DIR`` (default
``$IHMT_HOME/ihmt_projects``), in a folder named after the project plus a hash of its
resolved path, so it is never mixed into long-term memory::

    ihmt_projects/requests-3f2a9c1b7d20/
      project.json      which project this is (root path), for people
      manifest.json     the sync manifest (see manifest.py)
      sync.lock         one syncing process at a time
      ihmt_memory/      an ordinary IHMT store: one leaf per symbol (code_chunk_mode="symbol")

Every call syncs first: stat every file, hash only what moved, re-ingest only what changed,
delete what vanished. A leaf's ``source`` is the file's posix path relative to the project
root and its ``extra["rank"]`` the file's index in sorted path order, so summary branches
cover neighbouring files. Code returned by find_code is the leaf text, which after the sync
equals the file's current lines.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import time
from pathlib import Path

from ..config import default_workspace
from ..errors import InputError
from ..store.atomic import atomic_write_text
from ..store.lock import StoreLock
from ..text.tokenize import plain_terms
from .manifest import (
    MANIFEST_VERSION,
    Manifest,
    load_manifest,
    plan_sync,
    save_manifest,
    scan_project,
)
from .naming import respelled
from .packing import pack, pack_tied
from .ranking import (
    is_test_path,
    named_files,
    normalize_scope,
    normalize_subpath,
    query_words,
    scope_filter,
    shadowed_stubs,
    under,
)
from .results import CodeAnswer, CodeSnippet, MapFile, ProjectMap, ProjectSyncReport
from .search import (
    code_reason,
    continuations,
    named_by_query,
    named_symbols,
    search_code,
    whole_symbols,
)
from .sync import Progress, apply_plan

__all__ = [
    "CodeAnswer",
    "CodeSnippet",
    "MapFile",
    "ProjectIndex",
    "ProjectMap",
    "ProjectSyncReport",
    "default_projects_dir",
    "find_code",
    "project_folder_name",
    "project_map",
    "resolve_project",
]

PROJECTS_DIRNAME = "ihmt_projects"
STORE_SETTINGS = {
    "code_chunk_mode": "symbol",
    "summarizer_backend": "heuristic",
    "target_tokens": 800,
    "max_tokens": 1600,
    "branch_factor": 8,
    # Code has many near-ties (a name used in several places). Only a real tie is AMBIGUOUS;
    # otherwise the best symbol is shown and the runners-up are listed as OTHER MATCHES.
    "ambiguity_margin": 0.06,
}
# Changes whenever the chunks a file gives change (store settings, or the code splitters:
# "chunks-2" = 2026-11-30, TS generics, Go/TS declarations, Python class bodies; "chunks-3",
# multi-line TS class fields set by a call or an arrow function are members), so an index
# built by an older version is rebuilt once instead of mixing two ways of cutting symbols.
SETTINGS_KEY = "symbol/800/1600/bf8/code-leaves/chunks-3"
MIN_MAX_TOKENS = 64
MAX_QUERY_CHARS = 4000
DETAILS = ("files", "symbols")


def default_projects_dir(workspace: str | os.PathLike | None = None) -> Path:
    """``$IHMT_PROJECTS_DIR``, else ``<workspace or $IHMT_HOME or ~/.ihmt>/ihmt_projects``."""
    env = os.environ.get("IHMT_PROJECTS_DIR", "").strip()
    if env:
        return Path(env).expanduser().absolute()
    base = Path(workspace).expanduser() if workspace else default_workspace()
    return base.absolute() / PROJECTS_DIRNAME


def project_folder_name(root: Path) -> str:
    """A readable slug plus a hash of the resolved path: two checkouts never share a store."""
    digest = hashlib.sha256(str(root).encode("utf-8", "surrogatepass")).hexdigest()[:12]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", root.name).strip("-.")[:40] or "root"
    return f"{slug}-{digest}"


def resolve_project(path: str | os.PathLike) -> Path:
    """The project's resolved root folder, or an InputError that says what is wrong."""
    if not isinstance(path, str | os.PathLike) or not str(path).strip():
        raise InputError("give the project's root folder (path is empty)")
    shown = _short(str(path))
    try:
        root = Path(path).expanduser().resolve(strict=True)
        is_dir = root.is_dir()
    except (OSError, RuntimeError, ValueError):  # ValueError: a NUL byte in the path
        raise InputError(f"no such folder: {shown}") from None
    if not is_dir:
        raise InputError(f"{shown} is not a folder; give the project's root folder")
    if root == Path(root.anchor) or root == Path.home().resolve():
        raise InputError(
            f"refusing to index {root} as a project (the whole disk or home folder); "
            "give the project's root folder"
        )
    return root


def _short(text: str, limit: int = 200) -> str:
    """A user-given value as it can appear in a one-line message."""
    flat = " ".join(text.replace("\x00", "\\0").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _code_terms(method):
    """Run a ProjectIndex method with code's own terms (see tokenize.plain_terms)."""

    @functools.wraps(method)
    def wrapped(*args, **kwargs):
        with plain_terms():
            return method(*args, **kwargs)

    return wrapped


class ProjectIndex:
    """The code cache of one project folder; every public call syncs it first."""

    def __init__(
        self,
        project_path: str | os.PathLike,
        projects_dir: str | os.PathLike | None = None,
        *,
        workspace: str | os.PathLike | None = None,
    ) -> None:
        self.root = resolve_project(project_path)
        base = Path(projects_dir).expanduser() if projects_dir else default_projects_dir(workspace)
        self.folder = base.absolute() / project_folder_name(self.root)
        self.manifest_path = self.folder / "manifest.json"
        self._lock = StoreLock(self.folder / "sync.lock")
        self._memory = None
        self._manifest: Manifest | None = None
        self._manifest_key: tuple | None = None

    # -- state -------------------------------------------------------------------------------
    def _store_ready(self) -> bool:
        return (self.folder / "ihmt_memory" / "root.json").is_file()

    def _current_manifest(self) -> tuple[Manifest, bool]:
        """The manifest, re-read only when the file changed (another process synced)."""
        try:
            st = os.stat(self.manifest_path)
            key: tuple | None = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            key = None
        if key is not None and key == self._manifest_key and self._manifest is not None:
            return self._manifest, self._store_ready()
        root = str(self.root)
        if key is None:
            manifest, trusted = Manifest(root=root, settings=SETTINGS_KEY), False
        else:
            manifest, trusted = load_manifest(self.manifest_path, root, SETTINGS_KEY)
        trusted = trusted and self._store_ready()
        self._manifest, self._manifest_key = manifest, key if trusted else None
        return manifest, trusted

    def _save_manifest(self, manifest: Manifest) -> None:
        save_manifest(self.manifest_path, manifest)
        st = os.stat(self.manifest_path)
        self._manifest, self._manifest_key = manifest, (st.st_mtime_ns, st.st_size, st.st_ino)

    @_code_terms
    def memory(self):
        """The project's private IHMT store (created on first use)."""
        if self._memory is not None:
            return self._memory
        from ..api import IHMT

        config = self.folder / "ihmt_memory" / "ihmt.config.json"
        memory = None
        if config.is_file():
            memory = IHMT.open(self.folder, extract_facts=False)
            cfg = memory.config
            if any(getattr(cfg, k) != v for k, v in STORE_SETTINGS.items()):
                memory.close()
                memory = None
        if memory is None:
            self.folder.mkdir(parents=True, exist_ok=True)
            atomic_write_text(
                self.folder / "project.json",
                json.dumps({"root": str(self.root), "manifest_version": MANIFEST_VERSION}, indent=2)
                + "\n",
            )
            # code carries no personal facts: the store is opened without the extractor
            memory = IHMT.initialize(self.folder, extract_facts=False, **STORE_SETTINGS)
        self._memory = memory
        return memory

    def close(self) -> None:
        if self._memory is not None:
            self._memory.close()
            self._memory = None

    # -- sync --------------------------------------------------------------------------------
    @_code_terms
    def sync(self, progress: Progress | None = None) -> ProjectSyncReport:
        """Bring the cache up to date with the project; a no-change sync only stats files."""
        started = time.perf_counter()
        seen, skipped = scan_project(self.root)
        report = ProjectSyncReport(files=len(seen), skipped=skipped)
        manifest, trusted = self._current_manifest()
        plan = plan_sync(manifest, seen)
        if trusted and plan.empty:
            report.unchanged = plan.unchanged
            report.skipped += [(rel, manifest.rejected[rel].reason) for rel in plan.rejected]
            report.seconds = time.perf_counter() - started
            return report
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._lock:
            manifest, trusted = self._current_manifest()  # another process may have synced
            plan = plan_sync(manifest, seen)
            report.unchanged = plan.unchanged
            report.skipped += [(rel, manifest.rejected[rel].reason) for rel in plan.rejected]
            if not (trusted and plan.empty):
                try:
                    apply_plan(
                        self.memory(),
                        manifest,
                        trusted,
                        plan,
                        seen,
                        report,
                        progress,
                        self._save_manifest,
                    )
                except BaseException:
                    # the in-memory manifest may be ahead of the store: re-read it next time
                    self._manifest, self._manifest_key = None, None
                    raise
        report.seconds = time.perf_counter() - started
        return report

    # -- queries -----------------------------------------------------------------------------
    def _subpath(self, subpath: str | None) -> str:
        raw = (subpath or "").strip()
        if raw and os.path.isabs(os.path.expanduser(raw)):
            try:
                raw = Path(raw).expanduser().resolve().relative_to(self.root).as_posix()
            except (ValueError, OSError):
                raise InputError(
                    f"subpath {_short(str(subpath))} is outside the project {self.root}"
                ) from None
        return normalize_subpath(raw)

    @_code_terms
    def find_code(
        self,
        query: str,
        scope: str = "main",
        subpath: str = "",
        clue: str | None = None,
        max_tokens: int = 1500,
        progress: Progress | None = None,
    ) -> CodeAnswer:
        """The symbols that answer ``query``, as path:first-last + code, within max_tokens."""
        if not isinstance(query, str) or not query.strip():
            raise InputError("find_code needs a query: the words to look for in the code")
        if clue is not None and not isinstance(clue, str):
            raise InputError("clue must be text")
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise InputError("max_tokens must be a positive whole number")
        scope = normalize_scope(scope)
        sub = self._subpath(subpath)
        clue = (clue or "").strip()[:MAX_QUERY_CHARS] or None
        query = query[:MAX_QUERY_CHARS]  # what the engine reads too; keeps absurd input cheap
        report = self.sync(progress)
        answer = CodeAnswer(
            status="NOT_FOUND",
            query=query,
            project=str(self.root),
            scope=scope,
            subpath=sub,
            clue=clue,
            max_tokens=max(max_tokens, MIN_MAX_TOKENS),
            sync=report,
        )
        manifest, _ = self._current_manifest()
        keep = scope_filter(scope, sub, shadowed_stubs(manifest.files))
        paths = [rel for rel in manifest.files if keep({"source": rel})]
        if not paths:
            where = f" under {sub}" if sub else ""
            answer.reason = f"no indexed file in scope {scope}{where}"
            return answer
        named = named_files(query, paths)
        memory = self.memory()
        query = respelled(query, memory.document_frequencies)
        wanted = query_words(query, memory.document_frequencies, memory.corpus_stats()[0])
        focus = named_symbols(manifest, paths, wanted)
        owners = self._continuations(manifest)
        aliases = {lid: sym["name"] for lid, (_, sym) in owners.items()}
        result = search_code(memory, query, clue, keep, named, focus, aliases, wanted)
        answer.confidence = result.confidence
        if result.not_found and result.hits and named_by_query(result.hits[0], wanted, aliases):
            # The engine judges coverage over every word asked, and a question in prose uses
            # words no code contains ("subscribers"); a symbol whose own name holds a word of
            # the question is still worth showing, flagged as a weak match.
            answer.weak = True
        elif result.not_found or not result.hits:
            answer.reason = code_reason(result) or "no symbol matches"
            return answer
        candidates = result.candidates[:8] if result.ambiguous else []
        tied = whole_symbols(memory, owners, candidates) if candidates else []
        if len(tied) >= 2:  # two leaves of one split symbol are no tie
            answer.status = "AMBIGUOUS"
            answer.reason = code_reason(result)
            pack_tied(answer, tied, answer.max_tokens)
            return answer
        answer.status = "FOUND"
        pack(answer, whole_symbols(memory, owners, result.hits), answer.max_tokens, wanted)
        return answer

    def _continuations(self, manifest: Manifest) -> dict[str, tuple[str, dict]]:
        """The split symbols' leaves (search.continuations), cached per manifest."""
        cached = getattr(self, "_owners", None)
        if cached is not None and cached[0] is manifest:
            return cached[1]
        owners = continuations(manifest)
        self._owners = (manifest, owners)
        return owners

    @_code_terms
    def project_map(
        self, detail: str = "files", subpath: str = "", progress: Progress | None = None
    ) -> ProjectMap:
        """Files with their size in tokens (and symbols with line ranges), from the manifest."""
        value = (detail or "files").strip().lower()
        if value not in DETAILS:
            raise InputError(f"detail must be files or symbols, not {str(detail)[:40]!r}")
        sub = self._subpath(subpath)
        report = self.sync(progress)
        manifest, _ = self._current_manifest()
        files = [
            MapFile(
                path=rel,
                tokens=entry.tokens,
                symbols=list(entry.symbols) if value == "symbols" else [],
                test=is_test_path(rel),
            )
            for rel, entry in sorted(manifest.files.items())
            if under(rel, sub)
        ]
        return ProjectMap(str(self.root), value, sub, files, report)


# -- one-call helpers (what the CLI and the MCP tools use) -----------------------------------


def find_code(
    query: str,
    path: str | os.PathLike,
    scope: str = "main",
    subpath: str = "",
    clue: str | None = None,
    max_tokens: int = 1500,
    *,
    projects_dir: str | os.PathLike | None = None,
    progress: Progress | None = None,
) -> CodeAnswer:
    index = ProjectIndex(path, projects_dir)
    try:
        return index.find_code(query, scope, subpath, clue, max_tokens, progress)
    finally:
        index.close()


def project_map(
    path: str | os.PathLike,
    detail: str = "files",
    subpath: str = "",
    *,
    projects_dir: str | os.PathLike | None = None,
    progress: Progress | None = None,
) -> ProjectMap:
    index = ProjectIndex(path, projects_dir)
    try:
        return index.project_map(detail, subpath, progress)
    finally:
        index.close()
