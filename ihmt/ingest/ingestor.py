"""Detect, split, enrich: a document becomes a list of self-describing leaves.

Leaf ids derive from (domain, source, position, content), so re-ingesting an unchanged
document yields the same ids and rewrites nothing. Whitespace-only slices are folded into a
neighbour so that every leaf says something and the leaves of a document still concatenate to
the document byte for byte.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from ..config import IHMTConfig
from ..models import MemoryLeaf
from ..store.leaf_format import leaf_checksum
from ..text.dates import normalize_timestamp, parse_date
from ..text.tokens import estimate_tokens
from .chunk import Chunk
from .detector import Detection, detect

DATA_TYPES = ("CODE", "NARRATIVE", "CLINICAL", "PERSONAL", "PROCESS", "GENERIC")


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def split_text(
    text: str, detection: Detection, config: IHMTConfig, mode: str | None = None
) -> list[Chunk]:
    """Choose the splitter by document type."""
    target, maximum = config.target_tokens, config.max_tokens
    kind = detection.data_type
    if kind == "CODE":
        from .chunkers.code import split_code

        return split_code(
            text,
            language=detection.language or "c",
            target_tokens=target,
            max_tokens=maximum,
            mode=mode or config.code_chunk_mode,
        )
    if kind == "NARRATIVE":
        from .chunkers.narrative import split_narrative

        return split_narrative(text, target_tokens=target, max_tokens=maximum)
    if kind in ("PERSONAL", "CLINICAL"):
        from .chunkers.temporal import split_temporal

        return split_temporal(text, target_tokens=target, max_tokens=maximum)
    if kind == "PROCESS":
        from .chunkers.process import split_process

        return split_process(text, target_tokens=target, max_tokens=maximum)
    from .chunkers.generic import split_generic

    return split_generic(text, target_tokens=target, max_tokens=maximum)


def fold_blank_chunks(chunks: list[Chunk]) -> list[Chunk]:
    """Merge whitespace-only slices into the previous chunk (or the next, at the start)."""
    out: list[Chunk] = []
    carry: Chunk | None = None
    for chunk in chunks:
        if not chunk.text.strip():
            if out:
                prev = out[-1]
                prev.text += chunk.text
                prev.end_line = max(prev.end_line, chunk.end_line)
            elif carry is None:
                carry = chunk
            else:
                carry.text += chunk.text
                carry.end_line = chunk.end_line
            continue
        if carry is not None:
            chunk.text = carry.text + chunk.text
            chunk.start_line = carry.start_line
            carry = None
        out.append(chunk)
    if carry is not None and not out:
        return []
    return out


@dataclass
class PreparedDocument:
    detection: Detection
    leaves: list[MemoryLeaf]


def leaf_id_for(domain: str, source: str, position: int, content: str, project: str = "") -> str:
    """A content address; a project's memory differs from the same words saved globally or in
    another project (global ids are what they always were)."""
    scope = f"{project}\x1f" if project else ""
    digest = hashlib.sha256(
        f"{scope}{domain}\x1f{source}\x1f{position}\x1f".encode("utf-8", "surrogatepass")
        + content.encode("utf-8", "surrogatepass")
    ).hexdigest()[:10]
    return f"L-{domain}-{position:04d}-{digest}"


def prepare_document(
    text: str,
    *,
    source: str,
    config: IHMTConfig,
    filename: str | None = None,
    domain: str | None = None,
    data_type: str | None = None,
    tags: list[str] | None = None,
    timestamp: str | None = None,
    fallback_timestamp: str | None = None,
    mode: str | None = None,
    extra: dict | None = None,
    project: str = "",
    session: str = "",
) -> PreparedDocument:
    """Split ``text`` into leaves; ``timestamp`` forces a date, otherwise the text's own dates
    win, then ``fallback_timestamp`` (a file's mtime), then now."""
    detection = detect(text, filename, domain=domain, data_type=data_type)
    chunks = fold_blank_chunks(split_text(text, detection, config, mode))
    forced = normalize_timestamp(timestamp) if timestamp else None
    fallback = normalize_timestamp(fallback_timestamp) if fallback_timestamp else None
    ingested = now_iso()
    leaves = []
    for position, chunk in enumerate(chunks):
        when = forced or chunk.timestamp
        if not when and detection.data_type != "CODE":
            day = parse_date(chunk.text[:2000])
            when = normalize_timestamp(day) if day else None
        when = when or fallback or ingested
        leaf_tags = list(
            dict.fromkeys([*chunk.tags, *(tags or []), f"type:{detection.data_type.lower()}"])
        )
        leaf_extra = dict(chunk.extra)
        if extra:
            leaf_extra.update(extra)
        content = chunk.text
        leaves.append(
            MemoryLeaf(
                leaf_id=leaf_id_for(detection.domain, source, position, content, project),
                content=content,
                timestamp=when,
                data_type=detection.data_type,
                domain=detection.domain,
                source=source,
                position=position,
                tags=leaf_tags,
                span={"start_line": chunk.start_line, "end_line": chunk.end_line},
                checksum=leaf_checksum(content),
                oversized=bool(chunk.oversized or estimate_tokens(content) > config.max_tokens),
                title=chunk.title or "",
                ingested_at=ingested,
                extra=leaf_extra,
                project=project,
                session=session,
            )
        )
    return PreparedDocument(detection, leaves)
