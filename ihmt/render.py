"""Plain-text renderings shared by the presenters (CLI, MCP, GUI).

Kept in the library so the CLI and the MCP server word things the same way; each presenter
decides only which rendering to show.
"""

from __future__ import annotations

from pathlib import PurePath

from .models import Hit, SearchResult
from .search.passage import best_passage
from .text.clean import one_line
from .text.tokens import estimate_tokens

COMPACT_CAP_TOKENS = 1200  # hard ceiling of a compact search answer, whatever the store holds
BEST_BODY_CHARS = 2400
LINE_CHARS = 160


def source_label(source: str) -> str:
    if not source or source == "memory":
        return "saved memory"
    return PurePath(source.replace("\\", "/")).name or source


def hit_label(hit: Hit) -> str:
    return f"[{hit.domain}] {source_label(hit.source)} · {hit.timestamp[:10]}"


def render_path(path: list[str]) -> str:
    return " → ".join(path)


def ambiguous_block(result: SearchResult, *, ids: bool = True) -> str:
    lines = [
        f'AMBIGUOUS: "{result.query}" matches {len(result.candidates)} memories equally well '
        f"(confidence {result.confidence:.2f}). Do not guess: ask the user or call again with a clue "
        "(a place, a date, a project).",
    ]
    for i, hit in enumerate(result.candidates[:8], 1):
        ident = f" id={hit.leaf_id}" if ids else ""
        lines.append(f"  {i}. {hit_label(hit)} — {one_line(hit.content, 120)}{ident}")
    return "\n".join(lines)


def not_found_block(result: SearchResult) -> str:
    if result.index_incomplete:  # not an answer to trust: the memory may exist unindexed
        return (
            f'NOT FOUND IN THE INDEX: no indexed memory answers "{one_line(result.query, 120)}" '
            f"({result.reason}), but {result.index_incomplete}."
        )
    return (
        f'NOT FOUND: nothing in memory answers "{one_line(result.query, 120)}" ({result.reason}).'
    )


def compact_answer(result: SearchResult, *, full: bool = False) -> str:
    """The answer an agent reads: best memory first, one line per other match, bounded."""
    if result.not_found:
        return not_found_block(result)
    if result.ambiguous:
        tail = f"\nNOTICE: {result.index_incomplete}" if result.index_incomplete else ""
        return _cap(ambiguous_block(result) + tail)
    best = result.hits[0]
    lines = [
        f"BEST ({best.timestamp[:10]}, {source_label(best.source)}, confidence {result.confidence:.2f}):"
    ]
    if best.outdated:
        lines.append(
            "OUTDATED — " + " | ".join(best.notices or ["this memory was corrected later"])
        )
    lines.append(best_body(best, result.query))
    if full:
        lines.append(f"  id {best.leaf_id} · path {render_path(best.path)}")
    others = result.hits[1:]
    if others:
        lines.append("OTHER MATCHES:")
    for hit in others:
        flag = " [OUTDATED]" if hit.outdated else ""
        lines.append(
            f"- {hit.timestamp[:10]} {source_label(hit.source)}{flag}: {one_line(hit.content, 140)}"
        )
        if full:
            lines.append(f"    id {hit.leaf_id} · path {render_path(hit.path)}")
            lines.append(f"    excerpt: {one_line(hit.excerpt, LINE_CHARS)}")
    if result.missing_words:
        words = ", ".join(f'"{w}"' for w in result.missing_words)
        lines.append(f"NOTE: no memory contains {words}: check that BEST answers what was asked.")
    seen = set(best.notices)
    for notice in result.notices:
        if notice not in seen:
            lines.append(f"NOTICE: {notice}")
            seen.add(notice)
    return _cap("\n".join(lines))


def best_body(best: Hit, question: str) -> str:
    """The BEST memory's text: whole when short, else the stretch that answers the question
    (its first line kept as a title) and where the rest is."""
    passage = best_passage(best.content, question)
    body = passage.text
    if len(body) > BEST_BODY_CHARS:
        body = body[:BEST_BODY_CHARS].rstrip()
    elif passage.whole:
        return body
    return body + (
        f"\n… (lines {passage.first_line}–{passage.last_line} of {passage.total_lines}, "
        f"{len(best.content):,} chars; the full text is memory {best.leaf_id})"
    )


def _cap(text: str) -> str:
    limit = COMPACT_CAP_TOKENS * 4
    if estimate_tokens(text) <= COMPACT_CAP_TOKENS:
        return text
    return text[: limit - 40].rstrip() + "\n… (answer truncated at the size cap)"
