"""Session scratch memory: short-lived notes an agent keeps while it works.

Notes live only in this process (never on disk, never in long-term memory), so an agent
can park intermediate findings or a full command log and get them back by keywords
later in the same session without polluting the permanent store.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass
from datetime import datetime, timezone

from ihmt.errors import InputError
from ihmt.text.bm25 import idf, tf_weight
from ihmt.text.clean import one_line

MAX_OUTPUT_CHARS = 2_000_000
CLUE_BOTH = 1.6
CLUE_ONE = 0.7
AMBIGUOUS_WITHIN = 0.05


@dataclass
class Note:
    """One scratch note; ``note_id`` grows with time, so a larger id is more recent."""

    note_id: int
    text: str
    label: str
    created: str


@dataclass
class RecallResult:
    """Ranked hits plus flags telling the agent whether to narrow the query."""

    hits: list[tuple[Note, float]]
    ambiguous: bool
    not_found: bool


@dataclass
class OutputLines:
    """The lines of a long stored output that mention the asked words, each with one line of
    context either side, in order; ``lines`` holds (line number, full text)."""

    header: str  # the stored output's "[label] ..." first line, or ""
    wanted: list[str]  # the asked terms looked for (sorted), the header's own words left out
    lines: list[tuple[int, str]]
    total_lines: int


def matching_lines(
    text: str, query: str, clue: str | None, *, budget: int, line_chars: int
) -> OutputLines:
    """Which lines of a stored output answer a recall: those sharing a term with the query or
    clue (the label's words excepted), until about ``budget`` characters of lines clipped at
    ``line_chars`` are chosen. Empty ``lines`` means nothing matched."""
    from ihmt.text.tokenize import terms

    wanted = set(terms(query)) | set(terms(clue or ""))
    lines = text.splitlines()
    header = lines[0] if lines and lines[0].startswith("[") else ""
    wanted -= set(terms(header))
    hits = [i for i, line in enumerate(lines) if i and wanted & set(terms(line))] if wanted else []
    chosen: list[tuple[int, str]] = []
    used = 0
    previous = -1
    for i in hits:
        for j in (i - 1, i, i + 1):
            if j <= previous or j < 1 or j >= len(lines):
                continue
            chosen.append((j, lines[j]))
            shown = len(lines[j]) if len(lines[j]) <= line_chars else line_chars + 1
            used += shown + 8
            previous = j
        if used >= budget:
            break
    return OutputLines(header, sorted(wanted), chosen, len(lines))


class ScratchPad:
    """Bounded in-memory notes with BM25 recall; the oldest notes are evicted first."""

    def __init__(
        self, max_notes: int = 2000, max_chars: int = 200_000, max_total_chars: int = 50_000_000
    ) -> None:
        self.max_notes = max(1, max_notes)
        self.max_chars = max_chars
        self.max_total_chars = max_total_chars
        self._notes: OrderedDict[int, Note] = OrderedDict()
        self._terms: dict[int, tuple[Counter[str], int]] = {}
        self._total_chars = 0
        self._next_id = 1
        self._lock = threading.Lock()

    def note(self, text: str, label: str = "note") -> Note:
        """Keep ``text`` for this session; rejects empty text and text over ``max_chars``."""
        if not isinstance(text, str) or not text.strip():
            raise InputError("note text is empty")
        if len(text) > self.max_chars:
            raise InputError(
                f"note text is {len(text)} characters, over the {self.max_chars}-character cap"
            )
        return self._add(text, label)

    def store_output(self, text: str, label: str) -> Note:
        """Keep a full command output (up to ~2 MB) so a digest's omitted lines stay recallable.

        Never rejects: empty output is stored as a marker, and oversized output keeps its
        beginning and end (where logs carry their context and their verdict).
        """
        if not isinstance(text, str) or not text.strip():
            text = "(empty output)"
        elif len(text) > MAX_OUTPUT_CHARS:
            half = MAX_OUTPUT_CHARS // 2
            cut = len(text) - 2 * half
            text = f"{text[:half]}\n… [{cut} characters omitted] …\n{text[-half:]}"
        return self._add(text, label)

    def recall(self, query: str, clue: str | None = None, top_k: int = 5) -> RecallResult:
        """Rank notes by BM25 against ``query``; a ``clue`` boosts notes that also match it."""
        from ihmt.text.tokenize import terms

        if not isinstance(query, str) or not query.strip():
            raise InputError("recall query is empty")
        if top_k < 1:
            raise InputError(f"top_k must be at least 1 (got {top_k})")
        query_terms = set(terms(query))
        clue_terms = set(terms(clue)) if clue and clue.strip() else set()

        with self._lock:
            notes = list(self._notes.values())
            stats = [self._terms[n.note_id] for n in notes]
        scored = _bm25(notes, stats, query_terms)
        if clue_terms:
            scored = [
                (note, score * (CLUE_BOTH if clue_terms & stats_keys else CLUE_ONE))
                for (note, score), stats_keys in scored
            ]
        else:
            scored = [pair for pair, _ in scored]
        # Highest score first; among equal scores the most recent note wins.
        scored.sort(key=lambda pair: (-round(pair[1], 9), -pair[0].note_id))
        if not scored:
            return RecallResult([], ambiguous=False, not_found=True)
        ambiguous = (
            len(scored) >= 2
            and scored[1][1] >= scored[0][1] * (1 - AMBIGUOUS_WITHIN)
            and scored[0][0].text != scored[1][0].text
        )
        return RecallResult(scored[:top_k], ambiguous=ambiguous, not_found=False)

    def all(self) -> list[Note]:
        """Every note still held, oldest first."""
        with self._lock:
            return list(self._notes.values())

    def __len__(self) -> int:
        return len(self._notes)

    def _add(self, text: str, label: str) -> Note:
        from ihmt.text.tokenize import terms

        label = one_line(str(label or ""), 200) or "note"
        counts = Counter(terms(text))
        created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        with self._lock:
            note = Note(self._next_id, text, label, created)
            self._next_id += 1
            self._notes[note.note_id] = note
            self._terms[note.note_id] = (counts, sum(counts.values()))
            self._total_chars += len(text)
            while len(self._notes) > 1 and (
                len(self._notes) > self.max_notes or self._total_chars > self.max_total_chars
            ):
                _, old = self._notes.popitem(last=False)
                del self._terms[old.note_id]
                self._total_chars -= len(old.text)
        return note


def _bm25(
    notes: list[Note], stats: list[tuple[Counter[str], int]], query_terms: set[str]
) -> list[tuple[tuple[Note, float], set[str]]]:
    """BM25 score of each note sharing a query term, with idf computed over the notes.

    Returns ((note, score), that note's term set) so callers can apply the clue boost.
    """
    if not notes or not query_terms:
        return []
    n_docs = len(notes)
    avg_len = sum(length for _, length in stats) / n_docs or 1.0
    doc_freq = {t: sum(1 for counts, _ in stats if t in counts) for t in query_terms}
    weight = {t: idf(df, n_docs) for t, df in doc_freq.items()}
    out = []
    for note, (counts, length) in zip(notes, stats, strict=True):
        shared = query_terms.intersection(counts)
        if not shared:
            continue
        score = sum(weight[t] * tf_weight(counts[t], length, avg_len) for t in shared)
        out.append(((note, score), set(counts)))
    return out
