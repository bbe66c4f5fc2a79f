"""Ingesting documents into the memory: text, batches, files and folders, stdin.

Part of the IHMT facade (a mixin of :class:`ihmt.api.IHMT`): reads, redacts and chunks what it is
given and writes the pieces through the write coordinator.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path

from ..errors import (
    InputError,
)
from ..models import IngestReport, MemoryLeaf
from ..store.records import (
    lift_tombstones,
)
from ..text.clean import clean_surrogates
from .checks import check_type

BATCH_DOCS = 500  # documents stored per batch (bounded memory)


class Ingesting:
    """The ``ingest_*`` operations of the facade."""

    def ingest_text(
        self,
        text: str,
        source: str | None = None,
        timestamp: str | None = None,
        domain: str | None = None,
        data_type: str | None = None,
        tags: list[str] | None = None,
        consolidate: bool = True,
        redact_secrets: bool = True,
        filename: str | None = None,
    ) -> IngestReport:
        if not isinstance(text, str):
            raise InputError("text must be a string")
        if not text.strip():
            raise InputError("nothing to ingest: the text is empty")
        text = clean_surrogates(text)
        report = IngestReport(files=1)
        if redact_secrets:
            text = _redact(text, source or "text", report)
        if source is None:
            source = "text-" + _short_hash(text)
        with self.store.writing():
            self._store_document(
                text,
                source=source,
                report=report,
                timestamp=timestamp,
                domain=domain,
                data_type=check_type(data_type),
                tags=tags,
                filename=filename or source,
            )
            self._finish_write(consolidate)
        return report

    def ingest_batch(
        self, documents: Iterable[dict], consolidate: bool = True, redact_secrets: bool = True
    ) -> IngestReport:
        """Many texts under one lock and one trunk write: each dict holds ``text`` and any of
        ``source``, ``timestamp``, ``domain``, ``data_type``, ``tags``."""
        report = IngestReport()
        batch: list[dict] = []
        with self.store.writing():
            for doc in documents:
                text = doc.get("text")
                if not isinstance(text, str) or not text.strip():
                    report.skipped.append((str(doc.get("source", "?")), "empty text"))
                    continue
                text = clean_surrogates(text)
                source = doc.get("source") or "text-" + _short_hash(text)
                if redact_secrets:
                    text = _redact(text, source, report)
                report.files += 1
                batch.append(
                    {
                        "text": text,
                        "source": source,
                        "timestamp": doc.get("timestamp"),
                        "domain": doc.get("domain"),
                        "data_type": check_type(doc.get("data_type")),
                        "tags": doc.get("tags"),
                        "filename": doc.get("filename") or source,
                    }
                )
                if len(batch) >= BATCH_DOCS:
                    self._store_documents(batch, report, track_notices=False)
                    batch = []
            if batch:
                self._store_documents(batch, report, track_notices=False)
            self._finish_write(consolidate)
        return report

    def ingest_file(
        self,
        path,
        domain=None,
        data_type=None,
        tags=None,
        consolidate=True,
        redact_secrets: bool = True,
    ) -> IngestReport:
        return self.ingest_paths(
            [path],
            domain=domain,
            data_type=data_type,
            tags=tags,
            consolidate=consolidate,
            redact_secrets=redact_secrets,
        )

    def ingest_paths(
        self,
        paths: Iterable,
        domain: str | None = None,
        data_type: str | None = None,
        tags: list[str] | None = None,
        consolidate: bool = True,
        redact_secrets: bool = True,
        progress: Callable[[int, int, str], None] | None = None,
    ) -> IngestReport:
        """Ingest files and folders; bad files are skipped with a reason, never raised."""
        data_type = check_type(data_type)
        report = IngestReport()
        files: list[Path] = []
        for raw in paths:
            path = Path(raw).expanduser()
            if not path.exists():
                report.skipped.append((str(path), "no such file or folder"))
            elif path.is_dir():
                for file, reason in _reader().walk_files(path):
                    if reason:
                        report.skipped.append((str(file), reason))
                    else:
                        files.append(file)
            else:
                files.append(path)
        batch: list[dict] = []
        batch_chars = 0
        with self.store.writing():
            for index, file in enumerate(files):
                if progress:
                    progress(index, len(files), str(file))
                outcome = _reader().read_text_file(file, self.config.max_file_bytes)
                if outcome.skipped:
                    report.skipped.append((str(file), outcome.skipped))
                    continue
                if outcome.warning:
                    report.warnings.append(f"{file}: {outcome.warning}")
                text = clean_surrogates(outcome.text or "")
                if redact_secrets:
                    text = _redact(text, str(file), report)
                report.files += 1
                try:
                    mtime = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(file.stat().st_mtime))
                except OSError:
                    mtime = None
                batch.append(
                    {
                        "text": text,
                        "source": str(file.resolve()),
                        "domain": domain,
                        "data_type": data_type,
                        "tags": tags,
                        "filename": file.name,
                        "fallback_timestamp": mtime,
                    }
                )
                batch_chars += len(text)
                # bounded memory: flush the batch every few hundred files or ~32 MB of text
                if len(batch) >= BATCH_DOCS or batch_chars > 32_000_000:
                    self._store_documents(batch, report)
                    batch, batch_chars = [], 0
            if batch:
                self._store_documents(batch, report)
            if progress:
                progress(len(files), len(files), "")
            self._finish_write(consolidate)
        return report

    def ingest_stdin_bytes(self, data: bytes, **kwargs) -> IngestReport:
        outcome = _reader().decode_bytes(Path("<stdin>"), data)
        if outcome.skipped:
            raise InputError(f"standard input: {outcome.skipped}")
        return self.ingest_text(
            outcome.text or "", source=kwargs.pop("source", "<stdin>"), **kwargs
        )

    def _store_document(self, text: str, *, source: str, report: IngestReport, **kwargs) -> list:
        return self._store_documents([dict(kwargs, text=text, source=source)], report)

    def _store_documents(
        self,
        docs: list[dict],
        report: IngestReport,
        replace: bool = True,
        track_notices: bool = True,
    ) -> list[MemoryLeaf]:
        """Prepare every document, then write all new leaves in one batch and drop stale ones.

        ``replace`` makes a source behave like a document: leaves of an earlier version that
        are not in the new one are removed. Saved memories pass replace=False.
        """
        all_leaves: list[MemoryLeaf] = []
        stale: list[str] = []
        for doc in docs:
            doc = dict(doc)
            text, source = doc.pop("text"), doc.pop("source")
            prepared = _ingestor().prepare_document(text, source=source, config=self.config, **doc)
            leaves = prepared.leaves
            if replace:
                new_ids = {leaf.leaf_id for leaf in leaves}
                stale += [
                    r["id"] for r in self.catalog.leaves_of_source(source) if r["id"] not in new_ids
                ]
            all_leaves += leaves
            domain = prepared.detection.domain
            report.domains[domain] = report.domains.get(domain, 0) + len(leaves)
        resolver = self.resolver if track_notices else None
        before = set(resolver.notices()) if resolver is not None else set()
        lift_tombstones(self.layout.records, {leaf.leaf_id for leaf in all_leaves})
        fresh = self.store.write_leaves(all_leaves)
        new_facts = list(self.store.last_facts) if fresh else []
        if stale:
            report.removed_leaves += self.store.remove_leaves(stale)
        if resolver is not None:
            # keep the timeline current without re-reading every fact from the catalog
            from ..timeline.facts import Fact

            resolver.add_many(Fact.from_dict(f) for f in new_facts)
            for leaf_id in stale:
                resolver.remove_leaf(leaf_id)
            self.timeline.adopt(resolver)
        report.leaves += len(all_leaves)
        report.new_leaves += len(fresh)
        report.unchanged_leaves += len(all_leaves) - len(fresh)
        report.oversized += sum(1 for leaf in all_leaves if leaf.oversized)
        report.leaf_ids += [leaf.leaf_id for leaf in all_leaves]
        if resolver is not None and fresh:
            report.notices += [n for n in resolver.notices() if n not in before]
        return all_leaves


def _reader():
    """The file reader, imported when a file is ingested: searches and the agent hooks, which
    start a process per call, do not pay for the ingest stack (~0.1 s of imports)."""
    from ..ingest import reader

    return reader


def _ingestor():
    """The ingest pipeline (detector, chunkers), imported on the first write; see _reader."""
    from ..ingest import ingestor

    return ingestor


def _short_hash(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def _redact(text: str, where: str, report: IngestReport) -> str:
    from ..privacy.secrets import redact_reporting

    return redact_reporting(text, where, report.redactions)
