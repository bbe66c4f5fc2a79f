"""Plain-text renderings shared by the presenters (CLI, MCP, GUI).

Kept in the library so the CLI and the MCP server word things the same way; each presenter
decides only which rendering to show.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING

from .models import Hit, SearchResult
from .reasons import SHAPE_WORDS
from .search.passage import best_passage, best_snippet
from .session.scratch import RecallResult, matching_lines
from .text.clean import one_line

if TYPE_CHECKING:
    from .api import SaveReport
    from .session.file_cache import ReadResult
from .text.tokens import estimate_tokens

COMPACT_CAP_TOKENS = 1200  # hard ceiling of a compact search answer, whatever the store holds
BEST_BODY_CHARS = 2400
LINE_CHARS = 160
# each other match is one line; the two next best get a longer one, where an answer the BEST
# missed most often is (answer visible on eleven corpora: 720 -> 738 of 871 at +18 tokens; at
# 260 rather than 200 characters, fifty-nine corpora: +18 of 4,700 at +12 tokens median)
OTHER_FIRST, OTHER_CHARS_FIRST, OTHER_CHARS = 2, 260, 140


def source_label(source: str) -> str:
    if not source or source == "memory":
        return "saved memory"
    return PurePath(source.replace("\\", "/")).name or source


def hit_label(hit: Hit) -> str:
    return f"[{hit.domain}] {source_label(hit.source)} · {hit.timestamp[:10]}"


def render_path(path: list[str]) -> str:
    return " → ".join(path)


def ambiguous_block(result: SearchResult, *, ids: bool = True) -> str:
    if result.reason_code == "namesakes":  # two people of one first name
        people = ", ".join(result.reason_params.get("people") or ())
        name = result.reason_params.get("name", "")
        head = (
            f'AMBIGUOUS: "{result.query}" names {name}, and memory knows '
            f"{len(result.candidates)} people of that name: {people} (confidence "
            f"{result.confidence:.2f}). Do not guess: ask the user which one, or call again "
            "with a clue (the surname, a role, a project)."
        )
    elif result.reason_code == "values":  # two dev servers, two nightly jobs
        shape = SHAPE_WORDS.get(result.reason_params.get("shape", ""), "a value")
        head = (
            f'AMBIGUOUS: for "{result.query}" {len(result.candidates)} memories each give '
            f"{shape} of their own (confidence {result.confidence:.2f}). Do not guess: ask "
            "the user which one is meant, or call again with a clue (what it is for, a "
            "project, a place)."
        )
    elif result.reason_code == "rivals":  # two jobs with a timeout each
        head = (
            f'AMBIGUOUS: "{result.query}" has {len(result.candidates)} answers in memory that '
            f"seem to be about different things (confidence {result.confidence:.2f}). Do not "
            "guess: ask the user which one is meant, or call again with a clue (what it is "
            "for, a project, a place)."
        )
    else:
        head = (
            f'AMBIGUOUS: "{result.query}" matches {len(result.candidates)} memories equally '
            f"well (confidence {result.confidence:.2f}). Do not guess: ask the user or call "
            "again with a clue (a place, a date, a project)."
        )
    lines = [head]
    for i, hit in enumerate(result.candidates[:8], 1):
        ident = f" id={hit.leaf_id}" if ids else ""
        snippet = one_line(best_snippet(hit.content, result.query, 120), 120)
        lines.append(f"  {i}. {hit_label(hit)} — {snippet}{ident}")
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
    for rank, hit in enumerate(others):
        flag = " [OUTDATED]" if hit.outdated else ""
        chars = OTHER_CHARS_FIRST if rank < OTHER_FIRST else OTHER_CHARS
        lines.append(
            f"- {hit.timestamp[:10]} {source_label(hit.source)}{flag}: "
            f"{one_line(best_snippet(hit.content, result.query, chars), chars)}"
        )
        if full:
            lines.append(f"    id {hit.leaf_id} · path {render_path(hit.path)}")
            lines.append(f"    excerpt: {one_line(hit.excerpt, LINE_CHARS)}")
    if result.missing_words:
        words = ", ".join(f'"{w}"' for w in result.missing_words)
        lines.append(f"NOTE: no memory contains {words}: check that BEST answers what was asked.")
    # a BEST not OUTDATED may still carry a notice: another value it states changed since
    seen = set(best.notices) if best.outdated else set()
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
    also = f" and {passage.also_line}" if passage.also_line else ""
    return body + (
        f"\n… (lines {passage.first_line}–{passage.last_line}{also} of {passage.total_lines}, "
        f"{len(best.content):,} chars; the full text is memory {best.leaf_id})"
    )


def _cap(text: str) -> str:
    limit = COMPACT_CAP_TOKENS * 4
    if estimate_tokens(text) <= COMPACT_CAP_TOKENS:
        return text
    return text[: limit - 40].rstrip() + "\n… (answer truncated at the size cap)"


# -- the MCP session tools' answers ----------------------------------------------------------

RECALL_BODY_CHARS = 6000
RECALL_LINE_CHARS = 300


def save_report(report: SaveReport, replaces: str) -> str:
    """How a save was filed, what it taught, and what the agent must tell the user."""
    ids = ", ".join(report.leaf_ids) or "(none)"
    leaves = len(report.leaf_ids)
    verb = "SAVED" if report.new else "ALREADY KNOWN (the same text was saved before)"
    pieces = f" in {leaves} pieces" if leaves > 1 else ""
    lines = [f"{verb}{pieces}: id {ids} · domain {report.domain} · type {report.data_type}"]
    if report.facts:
        lines.append("FACTS: " + "; ".join(report.facts))
    for notice in report.notices:
        lines.append(f"NOTICE (tell the user): {notice}")
    new_id = report.leaf_ids[0] if report.leaf_ids else "<new id>"
    status = report.replaces_status
    if status == "linked" and report.replaced_id:
        lines.append(
            f"REPLACES: linked — the earlier memory {report.replaced_id} is now OUTDATED; searches "
            "answer with this one first."
        )
    elif status == "linked":
        lines.append(
            "REPLACES: the memory described is this same text; nothing was marked OUTDATED."
        )
    elif status == "candidates":
        lines.append(
            f'REPLACES: several earlier memories could match "{one_line(replaces)}"; none was '
            f"marked. Pick the one this corrects (ask the user if unsure) and call "
            f'mark_outdated(old_id="<its id>", new_id="{new_id}"):'
        )
        for cand in report.candidates:
            excerpt = one_line(cand.get("excerpt", ""))[:140]
            lines.append(f"  - {cand.get('id')} ({cand.get('date', '')}): {excerpt}")
    elif status == "not_found":
        lines.append(
            f'REPLACES: no earlier memory matched "{one_line(replaces)}"; saved as new, nothing '
            "marked OUTDATED."
        )
    return "\n".join(lines)


def recall_answer(result: RecallResult, query: str, clue: str | None) -> str:
    """A scratch-pad recall: BEST with the note (or the asked lines of a long output), OTHER
    MATCHES, AMBIGUOUS or NOT FOUND."""
    asked = query if not clue else f"{query} + {clue}"
    if result.not_found or not result.hits:
        return f'NOT FOUND: no note in this session matches "{one_line(asked)[:120]}".'
    lines: list[str] = []
    if result.ambiguous:
        lines.append(
            f'AMBIGUOUS: several notes match "{one_line(asked)[:120]}" equally well; call recall '
            "again with a clue, or use the one you meant:"
        )
        for note, _score in result.hits:
            lines.append(f"  #{note.note_id} [{note.label}] {one_line(note.text)[:140]}")
        return "\n".join(lines)
    best = result.hits[0][0]
    lines.append(f"BEST (note #{best.note_id}, {best.label}, {best.created}):")
    lines.append(note_body(best.text, query, clue))
    if len(result.hits) > 1:
        lines.append("OTHER MATCHES:")
        for note, _score in result.hits[1:]:
            lines.append(f"- #{note.note_id} [{note.label}] {one_line(note.text)[:140]}")
    return "\n".join(lines)


def note_body(text: str, query: str, clue: str | None, limit: int = RECALL_BODY_CHARS) -> str:
    """The note itself, or for a long stored output the lines that mention the asked words."""
    if len(text) <= limit:
        return text
    found = matching_lines(text, query, clue, budget=limit, line_chars=RECALL_LINE_CHARS)
    if found.lines:
        out: list[str] = []
        previous = -1
        for number, line in found.lines:
            if out and number - previous > 1:
                out.append("…")
            if len(line) > RECALL_LINE_CHARS:
                line = line[:RECALL_LINE_CHARS] + "…"
            out.append(f"{number}: {line}")
            previous = number
        shown = f"lines that mention {', '.join(found.wanted)} ({found.total_lines} lines in all)"
        return f"{found.header}\n[{shown}]\n" + "\n".join(out)
    head = text[:limit].rstrip()
    return (
        f"{head}\n… ({len(text) - len(head):,} more characters; recall again with words from the "
        "part you need, e.g. an error name, to get just those lines)"
    )


def file_read(result: ReadResult, start: int | None, end: int | None) -> str:
    """A cached file read: FULL, UNCHANGED, DIFF or LINES, with the path and its length."""
    if result.status == "UNCHANGED":
        return f"{result.text}: {result.path} (force=true gives the full text again)"
    if result.status == "DIFF":
        return f"DIFF since your last read of {result.path} ({result.total_lines} lines now):\n{result.text}"
    if result.status == "RANGE":
        first = start or 1
        last = min(end or result.total_lines, result.total_lines)
        return f"LINES {first}-{last} of {result.path} ({result.total_lines} lines):\n{result.text}"
    return f"FULL {result.path} ({result.total_lines} lines):\n{result.text}"
