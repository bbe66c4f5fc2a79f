"""ProjectIndex: a private, never-stale code cache per project, for find_code and project_map.

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
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import InputError
from ..ingest.reader import decode_bytes
from ..store.atomic import atomic_write_text
from ..store.layout import default_workspace
from ..store.lock import StoreLock
from ..text.tokenize import plain_terms
from ..text.tokens import estimate_tokens
from .excerpt import excerpt
from .manifest import (
    CODE_LANGUAGES,
    MANIFEST_VERSION,
    FileEntry,
    Manifest,
    Rejected,
    Seen,
    load_manifest,
    plan_sync,
    save_manifest,
    scan_project,
    source_kind,
    symbols_of,
    trailing_blank_lines,
)
from .naming import covered, name_parts, respelled
from .ranking import (
    Groups,
    code_boost,
    is_test_path,
    name_coverage,
    named_files,
    normalize_scope,
    normalize_subpath,
    query_words,
    scope_filter,
    shadowed_stubs,
    symbol_name,
    under,
)

PROJECTS_DIRNAME = "ihmt_projects"
BATCH_FILES = 200  # files prepared and written per batch: bounds memory on a first sync
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
SEARCH_TOP_K = 12  # the engine re-ranks twice this many exact BM25 candidates
FOCUS_SYMBOLS = 16  # symbols searched a second time because their names hold the query's words
SHOWN_TIED = 3  # tied symbols shown with their code in an AMBIGUOUS answer
KEEP_RATIO = 0.6  # a further symbol is shown in full when it scores this close to the best
MIN_MAX_TOKENS = 64
MAX_QUERY_CHARS = 4000
DETAILS = ("files", "symbols")

Progress = Callable[[int, int, str], None]


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


# -- results ---------------------------------------------------------------------------------


@dataclass
class SyncReport:
    files: int = 0
    added: int = 0
    changed: int = 0
    removed: int = 0
    touched: int = 0  # mtime moved, content identical: nothing re-ingested
    unchanged: int = 0
    read_files: int = 0  # source files opened by this sync
    leaves_written: int = 0
    leaves_removed: int = 0
    redactions: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def reingested(self) -> int:
        return self.added + self.changed

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class CodeSnippet:
    path: str
    start_line: int
    end_line: int
    title: str
    code: str
    score: float = 0.0
    truncated_at: int = 0  # last line shown when the code was cut to fit max_tokens
    hidden: list[tuple[int, int]] = field(default_factory=list)  # line ranges left out then

    @property
    def location(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"


@dataclass
class CodeAnswer:
    status: str  # "FOUND", "AMBIGUOUS" or "NOT_FOUND"
    query: str
    project: str
    scope: str
    subpath: str = ""
    clue: str | None = None
    snippets: list[CodeSnippet] = field(default_factory=list)
    others: list[CodeSnippet] = field(default_factory=list)  # locations only, no code
    reason: str = ""
    confidence: float = 0.0
    weak: bool = False  # FOUND although the engine judged coverage too low (see find_code)
    max_tokens: int = 0
    sync: SyncReport = field(default_factory=SyncReport)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class MapFile:
    path: str
    tokens: int
    symbols: list[dict] = field(default_factory=list)
    test: bool = False


@dataclass
class ProjectMap:
    project: str
    detail: str
    subpath: str
    files: list[MapFile] = field(default_factory=list)
    sync: SyncReport = field(default_factory=SyncReport)

    @property
    def total_tokens(self) -> int:
        return sum(f.tokens for f in self.files)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["total_tokens"] = self.total_tokens
        data["total_files"] = len(self.files)
        return data


# -- the index -------------------------------------------------------------------------------


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
    def sync(self, progress: Progress | None = None) -> SyncReport:
        """Bring the cache up to date with the project; a no-change sync only stats files."""
        started = time.perf_counter()
        seen, skipped = scan_project(self.root)
        report = SyncReport(files=len(seen), skipped=skipped)
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
                    self._apply(manifest, trusted, plan, seen, report, progress)
                except BaseException:
                    # the in-memory manifest may be ahead of the store: re-read it next time
                    self._manifest, self._manifest_key = None, None
                    raise
        report.seconds = time.perf_counter() - started
        return report

    def _apply(self, manifest, trusted, plan, seen: dict[str, Seen], report, progress) -> None:
        memory = self.memory()
        ranks = {rel: i for i, rel in enumerate(sorted(seen))}
        work = sorted(plan.added + plan.moved)
        with memory.store.writing():
            if not trusted:
                # the manifest was lost or belongs to other settings: drop what the store
                # holds for files that no longer exist; the rest is re-checked below
                stale = [
                    s
                    for s in memory.catalog.sources()
                    if s not in seen or source_kind(s.rpartition("/")[2]) != "code"
                ]
                plan.removed = sorted(set(plan.removed) | set(stale))
            for rel in plan.forgotten:
                manifest.rejected.pop(rel, None)
            for rel in plan.removed:
                ids = [row["id"] for row in memory.catalog.leaves_of_source(rel)]
                report.leaves_removed += memory.store.remove_leaves(ids)
                manifest.files.pop(rel, None)
                report.removed += 1
            done = 0

            def tick(rel: str) -> None:
                nonlocal done
                if progress:
                    progress(done, len(work), rel)
                done += 1

            for start in range(0, len(work), BATCH_FILES):
                batch = work[start : start + BATCH_FILES]
                self._ingest_batch(memory, manifest, batch, seen, ranks, report, tick)
                self._save_manifest(manifest)  # an interrupted first sync resumes from here
            if progress and work:
                progress(len(work), len(work), "")
            memory._finish_write(True)
        self._save_manifest(manifest)

    def _ingest_batch(self, memory, manifest, batch, seen, ranks, report, tick) -> None:
        from ..models import IngestReport

        docs: list[dict] = []
        fresh: dict[str, FileEntry] = {}
        for rel in batch:
            tick(rel)
            now = seen[rel]
            old = manifest.files.get(rel)
            try:
                data = _read_source(now.path)
            except OSError as exc:
                report.skipped.append((rel, f"unreadable ({exc.strerror or exc})"))
                continue
            report.read_files += 1
            digest = hashlib.sha256(data).hexdigest()
            if old is not None and old.sha256 == digest:
                old.size, old.mtime_ns = now.size, now.mtime_ns
                report.touched += 1
                continue
            outcome = decode_bytes(now.path, data)
            if outcome.skipped or not outcome.text:
                reason = outcome.skipped or "empty file"
                report.skipped.append((rel, reason))
                manifest.rejected[rel] = Rejected(now.size, now.mtime_ns, reason)
                if old is not None:
                    ids = [row["id"] for row in memory.catalog.leaves_of_source(rel)]
                    report.leaves_removed += memory.store.remove_leaves(ids)
                    manifest.files.pop(rel, None)
                    report.removed += 1
                continue
            manifest.rejected.pop(rel, None)
            text, redacted = _redact_keeping_lines(_clean_surrogates(outcome.text))
            report.redactions += redacted
            suffix = os.path.splitext(now.path.name)[1].lower()
            fresh[rel] = FileEntry(
                size=now.size,
                mtime_ns=now.mtime_ns,
                sha256=digest,
                tokens=estimate_tokens(text),
                rank=ranks[rel],
                language=CODE_LANGUAGES.get(suffix, suffix.lstrip(".")),
            )
            if old is None:
                report.added += 1
            else:
                report.changed += 1
            if source_kind(now.path.name) != "code":
                continue  # docs and config: sized for the map, not searched by find_code
            mtime = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now.mtime_ns / 1e9))
            docs.append(
                {
                    "text": text,
                    "source": rel,
                    "filename": now.path.name,
                    "domain": "code",
                    "data_type": "CODE",
                    "fallback_timestamp": mtime,
                    "extra": {"rank": ranks[rel]},
                }
            )
        if docs:
            ingest = IngestReport()
            leaves = memory._store_documents(docs, ingest, track_notices=False)
            report.leaves_written += ingest.new_leaves
            report.leaves_removed += ingest.removed_leaves
            by_source: dict[str, list] = {}
            for leaf in leaves:
                by_source.setdefault(leaf.source, []).append(leaf)
            for rel, file_leaves in by_source.items():
                fresh[rel].leaves = [leaf.leaf_id for leaf in file_leaves]
                fresh[rel].symbols = symbols_of(file_leaves)
        manifest.files.update(fresh)

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
        catalog = self.memory().catalog
        query = respelled(query, catalog.document_frequencies)
        wanted = query_words(query, catalog.document_frequencies, catalog.corpus_stats()[0])
        focus = _named_symbols(manifest, paths, wanted)
        aliases = {lid: sym["name"] for lid, (_, sym) in self._continuations(manifest).items()}
        result = self._search(query, clue, keep, named, focus, aliases, wanted)
        answer.confidence = result.confidence
        if result.not_found and result.hits and _named_by_query(result.hits[0], wanted, aliases):
            # The engine judges coverage over every word asked, and a question in prose uses
            # words no code contains ("subscribers"); a symbol whose own name holds a word of
            # the question is still worth showing, flagged as a weak match.
            answer.weak = True
        elif result.not_found or not result.hits:
            answer.reason = _in_code_words(result.reason) or "no symbol matches"
            return answer
        tied = self._whole_symbols(manifest, result.candidates[:8]) if result.ambiguous else []
        if len(tied) >= 2:  # two leaves of one split symbol are no tie
            answer.status = "AMBIGUOUS"
            answer.reason = _in_code_words(result.reason)
            _pack_tied(answer, tied, answer.max_tokens)
            return answer
        answer.status = "FOUND"
        _pack(answer, self._whole_symbols(manifest, result.hits), answer.max_tokens, wanted)
        return answer

    def _whole_symbols(self, manifest: Manifest, hits: list, code: bool = True) -> list:
        """One snippet per symbol: a hit on a piece of a symbol the chunker split (a header
        leaf and its untitled continuation, see manifest.symbols_of) becomes the whole
        symbol, built from its consecutive leaves, so it still equals the file's lines."""
        owners = self._continuations(manifest)
        out: list[CodeSnippet] = []
        seen: set[str] = set()
        for hit in hits:
            owner = owners.get(hit.leaf_id)
            key = owner[1]["id"] if owner else hit.leaf_id
            if key in seen:
                continue
            seen.add(key)
            snip = _snippet(hit, with_code=code)
            if owner is not None:
                rel, sym = owner
                snip.path, snip.title = rel, sym["name"]
                snip.start_line, snip.end_line = sym["start_line"], sym["end_line"]
                if code:
                    parts = []
                    for leaf_id in [sym["id"], *sym["more"]]:
                        leaf = (
                            None
                            if leaf_id == hit.leaf_id
                            else self.memory().store.read_leaf(leaf_id)
                        )
                        parts.append(hit.content if leaf is None else leaf.content)
                    whole = "".join(parts)
                    snip.code = _without_trailing_lines(whole, trailing_blank_lines(whole))
            out.append(snip)
        return out

    def _continuations(self, manifest: Manifest) -> dict[str, tuple[str, dict]]:
        cached = getattr(self, "_owners", None)
        if cached is not None and cached[0] is manifest:
            return cached[1]
        owners: dict[str, tuple[str, dict]] = {}
        for rel, entry in manifest.files.items():
            for sym in entry.symbols:
                if sym.get("more") and "id" in sym:
                    for leaf_id in [sym["id"], *sym["more"]]:
                        owners[leaf_id] = (rel, sym)
        self._owners = (manifest, owners)
        return owners

    def _search(
        self,
        query: str,
        clue: str | None,
        keep,
        named: set[str],
        focus: set[str],
        aliases: dict[str, str],
        groups: Groups,
    ):
        """Search with the code-aware boosts, and again among the symbols whose names hold
        the query's words (or inside the files it names), keeping the better of both.

        The boost only re-orders the exact BM25 candidates a descent finds, and in plain
        BM25 a symbol's name weighs no more than one word of its body: a long method named
        by the query, or a short one whose name abbreviates it (``get_environ_proxies``),
        can rank far below code that merely calls it."""
        memory = self.memory()
        boost = code_boost(query, named, aliases, memory.catalog.corpus_stats()[1], groups)
        result = memory.search(query, top_k=SEARCH_TOP_K, clue=clue, leaf_filter=keep, boost=boost)
        if not (named or focus):
            return result

        def focused(ref: dict) -> bool:
            return keep(ref) and (ref.get("source") in named or ref.get("id") in focus)

        second = memory.search(
            query, top_k=SEARCH_TOP_K, clue=clue, leaf_filter=focused, boost=boost
        )
        return _merged(result, second, self.memory().config.ambiguity_margin)

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


# -- helpers ---------------------------------------------------------------------------------


def _read_source(path: Path) -> bytes:
    """The one place a project file is read (tests count calls to prove a no-change sync
    opens nothing)."""
    with open(path, "rb") as handle:
        return handle.read()


def _clean_surrogates(text: str) -> str:
    return re.sub("[\ud800-\udfff]", "\ufffd", text)


def _redact_keeping_lines(text: str) -> tuple[str, int]:
    """Secrets become [REDACTED:kind] like everywhere in IHMT, but the line count is kept so
    every symbol's line range still points at the right lines of the file."""
    from ..privacy.secrets import find_secrets

    findings = find_secrets(text)
    if not findings:
        return text, 0
    parts, pos = [], 0
    for f in findings:
        parts.append(text[pos : f.start])
        parts.append(f"[REDACTED:{f.kind}]" + "\n" * text.count("\n", f.start, f.end))
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts), len(findings)


def _named_symbols(manifest: Manifest, paths: list[str], wanted: Groups) -> set[str]:
    """Leaf ids of the symbols whose names hold most of the query's words (the best
    FOCUS_SYMBOLS of them; at least two words when the query has three or more)."""
    need = 1 if len(wanted) <= 2 else 2
    ranked = []
    for order, rel in enumerate(paths):
        for sym in manifest.files[rel].symbols:
            if "id" not in sym:
                continue
            count = len(covered(wanted, sym["name"]))
            if count >= need:
                ranked.append((-count, len(name_parts(sym["name"])), order, sym))
    ranked.sort(key=lambda row: row[:3])
    focus: set[str] = set()
    for *_, sym in ranked[:FOCUS_SYMBOLS]:
        focus.add(sym["id"])
        focus.update(sym.get("more", ()))
    return focus


def _merged(first, second, margin: float):
    """One result from the open search and the focused one: every hit of both in score
    order, judged again on that list, since each search judged only its own candidates (a
    focused search can find a tie among symbols that the open search outranks, and the
    open search can call its lead a stray match where the focused one finds a real one).

    NOT FOUND only when both say so; AMBIGUOUS when the merged lead is tied (within
    ``margin``, on the same query words) by another symbol."""
    if not second.hits:
        return first
    if not first.hits:
        return second
    winner, other = (
        (first, second) if first.hits[0].score >= second.hits[0].score else (second, first)
    )
    seen = {hit.leaf_id for hit in winner.hits}
    winner.hits = sorted(
        winner.hits + [hit for hit in other.hits if hit.leaf_id not in seen],
        key=lambda hit: -hit.score,
    )
    if winner.not_found and not other.not_found:
        winner.not_found, winner.reason = False, ""
    winner.confidence = max(winner.confidence, other.confidence)
    lead = winner.hits[0]
    tied = [
        hit
        for hit in winner.hits
        if hit.score >= lead.score * (1.0 - margin) and hit.matched_terms == lead.matched_terms
    ]
    winner.ambiguous = len(tied) >= 2 and not winner.not_found
    winner.candidate_ids = [hit.leaf_id for hit in tied] if winner.ambiguous else []
    if winner.ambiguous and not winner.reason:
        winner.reason = (
            f"{len(tied)} symbols match this query equally well; give a clue "
            "(a file, a class or a word the code uses) to choose"
        )
    elif not winner.ambiguous and not winner.not_found:
        winner.reason = ""
    return winner


_CODE_WORDS = (
    ("(a place, a date, a project)", "(a file, a class or a word the code uses)"),
    ("memories", "symbols"),
    ("memory", "symbol"),
)


def _in_code_words(reason: str) -> str:
    """The search engine's reasons speak of memories; in a code index they are symbols."""
    for memory_words, code_words in _CODE_WORDS:
        reason = (reason or "").replace(memory_words, code_words)
    return reason


def _named_by_query(hit, wanted: Groups, aliases: dict[str, str]) -> bool:
    ref = {"id": hit.leaf_id, "title": hit.title, "tags": hit.tags}
    return name_coverage(wanted, symbol_name(ref, aliases)) > 0


def _snippet(hit, with_code: bool = True) -> CodeSnippet:
    span = hit.span or {}
    start, end = int(span.get("start_line", 0)), int(span.get("end_line", 0))
    blank = trailing_blank_lines(hit.content)
    return CodeSnippet(
        path=hit.source,
        start_line=start,
        end_line=max(start, end - blank),
        title=hit.title or "",
        code=_without_trailing_lines(hit.content, blank) if with_code else "",
        score=hit.score,
    )


def _without_trailing_lines(text: str, count: int) -> str:
    """``text`` less its last ``count`` lines (the blank ones after a symbol)."""
    if count <= 0:
        return text
    lines = text.splitlines(keepends=True)
    return "".join(lines[: len(lines) - count])


def _pack(
    answer: CodeAnswer, snippets: list[CodeSnippet], budget: int, wanted: Groups = ()
) -> None:
    """Best symbol always (cut to fit if it alone is too big); then the next ones that score
    close to it while they fit; the rest as locations only."""
    best_score = snippets[0].score or 1e-9
    used = 0
    for i, snip in enumerate(snippets):
        cost = _cost(snip)
        if i == 0:
            if cost > budget:
                _truncate(snip, budget - _cost(snip, with_code=False) - 30, wanted)
                cost = budget
            answer.snippets.append(snip)
            used = cost
        elif snip.score >= KEEP_RATIO * best_score and used + cost <= budget:
            answer.snippets.append(snip)
            used += cost
        else:
            snip.code = ""
            answer.others.append(snip)
    answer.others = answer.others[:5]


def _cost(snip: CodeSnippet, with_code: bool = True) -> int:
    """Tokens a snippet adds to an answer: its heading line, and its code."""
    head = estimate_tokens(snip.location + snip.title)
    return head + estimate_tokens(snip.code) + 2 if with_code else head


def _pack_tied(answer: CodeAnswer, tied: list[CodeSnippet], budget: int) -> None:
    """The symbols of a tie, shown whole while they fit (at most SHOWN_TIED: reading two
    short bodies costs an agent less than a second call with a clue), the rest as
    locations. None is cut: a tie is no place to guess which part matters."""
    used = 0
    for snip in tied:
        cost = _cost(snip)
        if len(answer.snippets) < SHOWN_TIED and used + cost <= budget:
            answer.snippets.append(snip)
            used += cost
        else:
            snip.code = ""
            answer.others.append(snip)


def _truncate(snip: CodeSnippet, tokens: int, wanted: Groups = ()) -> None:
    """Cut ``snip`` to about ``tokens``: its head and the stretch that best matches the
    question (see excerpt.py), the lines left out marked and listed in ``hidden``."""
    cut = excerpt(snip.code, snip.start_line, max(tokens, 16) * 4, wanted)
    snip.code, snip.hidden, snip.truncated_at = cut.code, cut.hidden, cut.last_shown


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
