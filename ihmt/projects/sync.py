"""Bringing a project's code index in line with its files, through the facade's writes.

``ProjectIndex.sync`` decides whether anything moved (the manifest) and holds the sync lock;
``apply_plan`` then, under the store's write lock, drops what vanished and re-ingests what
changed, in batches, saving the manifest after each so an interrupted first sync resumes.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from pathlib import Path

from ..ingest.reader import decode_bytes
from ..models import IngestReport
from ..privacy.secrets import redact
from ..text.clean import clean_surrogates
from ..text.tokens import estimate_tokens
from .manifest import CODE_LANGUAGES, FileEntry, Manifest, Rejected, Seen, source_kind, symbols_of
from .results import ProjectSyncReport

BATCH_FILES = 200  # files prepared and written per batch: bounds memory on a first sync

Progress = Callable[[int, int, str], None]


def apply_plan(
    memory,
    manifest: Manifest,
    trusted: bool,
    plan,
    seen: dict[str, Seen],
    report: ProjectSyncReport,
    progress: Progress | None,
    save_manifest: Callable[[Manifest], None],
) -> None:
    """Carry out a sync plan on the project's store (``memory``, an IHMT facade)."""
    ranks = {rel: i for i, rel in enumerate(sorted(seen))}
    work = sorted(plan.added + plan.moved)
    with memory.writing():
        if not trusted:
            # the manifest was lost or belongs to other settings: drop what the store
            # holds for files that no longer exist; the rest is re-checked below
            stale = [
                s
                for s in memory.sources()
                if s not in seen or source_kind(s.rpartition("/")[2]) != "code"
            ]
            plan.removed = sorted(set(plan.removed) | set(stale))
        for rel in plan.forgotten:
            manifest.rejected.pop(rel, None)
        for rel in plan.removed:
            report.leaves_removed += memory.remove_source(rel)
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
            ingest_batch(memory, manifest, batch, seen, ranks, report, tick)
            save_manifest(manifest)  # an interrupted first sync resumes from here
        if progress and work:
            progress(len(work), len(work), "")
        memory.finish_write(True)
    save_manifest(manifest)


def ingest_batch(memory, manifest, batch, seen, ranks, report, tick) -> None:
    """Read, check and re-ingest one batch of added or modified files."""
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
                report.leaves_removed += memory.remove_source(rel)
                manifest.files.pop(rel, None)
                report.removed += 1
            continue
        manifest.rejected.pop(rel, None)
        # secrets become [REDACTED:kind] like everywhere in IHMT, but the line count is kept
        # so every symbol's line range still points at the right lines of the file
        text, findings = redact(clean_surrogates(outcome.text), keep_lines=True)
        report.redactions += len(findings)
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
        leaves = memory.replace_sources(docs, ingest)
        report.leaves_written += ingest.new_leaves
        report.leaves_removed += ingest.removed_leaves
        by_source: dict[str, list] = {}
        for leaf in leaves:
            by_source.setdefault(leaf.source, []).append(leaf)
        for rel, file_leaves in by_source.items():
            fresh[rel].leaves = [leaf.leaf_id for leaf in file_leaves]
            fresh[rel].symbols = symbols_of(file_leaves)
    manifest.files.update(fresh)


def _read_source(path: Path) -> bytes:
    """The one place a project file is read (tests count calls to prove a no-change sync
    opens nothing)."""
    with open(path, "rb") as handle:
        return handle.read()
