"""The small dataclasses the library returns; presenters only format them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field


@dataclass
class MemoryLeaf:
    """One stored piece of text and the header that makes it meaningful on its own."""

    leaf_id: str
    content: str
    timestamp: str
    data_type: str
    domain: str
    source: str
    position: int
    tags: list[str] = field(default_factory=list)
    span: dict = field(default_factory=dict)
    checksum: str = ""
    oversized: bool = False
    title: str = ""
    ingested_at: str = ""
    extra: dict = field(default_factory=dict)
    project: str = ""  # the project it was saved from ("" = global; see vcs/project.py)
    session: str = ""  # the agent session that captured it (``forget --session``)

    def header(self) -> dict:
        """Everything but the text, in a stable order (the leaf file's JSON header). project
        and session appear only when set, so a global leaf's file is what it always was."""
        header = {
            "leaf_id": self.leaf_id,
            "timestamp": self.timestamp,
            "data_type": self.data_type,
            "domain": self.domain,
            "source": self.source,
            "position": self.position,
            "tags": list(self.tags),
            "span": dict(self.span),
            "checksum": self.checksum,
            "oversized": self.oversized,
            "title": self.title,
            "ingested_at": self.ingested_at,
            "extra": dict(self.extra),
        }
        if self.project:
            header["project"] = self.project
        if self.session:
            header["session"] = self.session
        return header


@dataclass
class Hit:
    leaf_id: str
    score: float
    content: str
    path: list[str]
    timestamp: str
    source: str
    domain: str
    title: str = ""
    excerpt: str = ""
    tags: list[str] = field(default_factory=list)
    span: dict = field(default_factory=dict)
    outdated: bool = False
    notices: list[str] = field(default_factory=list)
    matched_terms: list[str] = field(default_factory=list)
    coverage: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class SearchResult:
    query: str
    clue: str | None
    hits: list[Hit] = field(default_factory=list)
    confidence: float = 0.0
    ambiguous: bool = False
    not_found: bool = False
    node_reads: int = 0
    leaf_reads: int = 0
    depth: int = 0
    notices: list[str] = field(default_factory=list)
    reason: str = ""
    # the same reason as a code plus parameters, for presenters that word it in another language
    reason_code: str = ""
    reason_params: dict = field(default_factory=dict)
    total_leaves: int = 0
    total_nodes: int = 0
    candidate_ids: list[str] = field(default_factory=list)
    # words of the question that no memory contains (in any inflection): the best memory
    # may be about the subject without answering what was asked
    missing_words: list[str] = field(default_factory=list)
    # why this answer may lack memories (a killed indexing, memory files this user may not
    # read); "" when the index is whole. Shown as a NOTICE; a NOT FOUND then has confidence 0
    index_incomplete: str = ""
    unreadable_leaves: int = 0  # memory files search cannot see for lack of permission
    # with the semantic extra: the hits the model vouches for by meaning (a cosine above its
    # high mark, or clear of every other memory's), whatever words they share with the query;
    # and of those, the ones whose cosine reaches the high mark on its own
    meaning_answers: list[str] = field(default_factory=list)
    meaning_alone: list[str] = field(default_factory=list)
    meaning: bool = False  # whether the search fused meaning (the semantic extra was on)

    def set_reason(self, code: str, **params) -> None:
        """Record why (a code plus parameters) and its English wording in ``reason``."""
        from .reasons import reason_text

        self.reason_code, self.reason_params = code, params
        self.reason = reason_text(code, params)

    @property
    def best(self) -> Hit | None:
        return self.hits[0] if self.hits and not self.not_found else None

    @property
    def candidates(self) -> list[Hit]:
        """The hits a caller must choose between when the result is ambiguous."""
        if not self.ambiguous:
            return []
        wanted = set(self.candidate_ids)
        return [h for h in self.hits if h.leaf_id in wanted] or self.hits

    def to_dict(self) -> dict:
        data = asdict(self)
        data["best"] = self.best.to_dict() if self.best else None
        return data


@dataclass
class IngestReport:
    files: int = 0
    leaves: int = 0
    new_leaves: int = 0
    unchanged_leaves: int = 0
    removed_leaves: int = 0
    oversized: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    leaf_ids: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    redactions: list[str] = field(default_factory=list)
    domains: dict = field(default_factory=dict)

    def merge(self, other: IngestReport) -> None:
        self.files += other.files
        self.leaves += other.leaves
        self.new_leaves += other.new_leaves
        self.unchanged_leaves += other.unchanged_leaves
        self.removed_leaves += other.removed_leaves
        self.oversized += other.oversized
        self.skipped += other.skipped
        self.warnings += other.warnings
        self.leaf_ids += other.leaf_ids
        self.notices += other.notices
        self.redactions += other.redactions
        for key, value in other.domains.items():
            self.domains[key] = self.domains.get(key, 0) + value

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class CheckReport:
    problems: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    leaves: int = 0
    branches: int = 0
    unreadable: list[str] = field(default_factory=list)  # leaf files this process may not read
    quarantined: list[dict] = field(default_factory=list)  # what quarantine/ holds (not a problem)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict:
        data = asdict(self)
        data["ok"] = self.ok
        return data


@dataclass
class TimeContext:
    """What the time layer knows when a search runs."""

    outdated: dict[str, list[str]] = field(default_factory=dict)  # leaf id -> notices
    replaced_by: dict[str, str] = field(default_factory=dict)  # old leaf id -> new leaf id
    # question text -> [(leaf id, answers the question)] for questions about a tracked fact
    # ("where do I live?"): the leaf holding the value asked for first, older values after
    fact_answers: Callable[[str], list[tuple[str, bool]]] = field(default=lambda text: [])
    # leaf id -> the words of the replaced values it states, for leaves that also state a
    # current value: OUTDATED only for a question that uses one of those words
    stale_words: dict[str, frozenset[str]] = field(default_factory=dict)

    def current_for(self, terms: set[str], asked_old: set[str]) -> set[str]:
        """Leaves that are not out of date for a question with these terms: those whose
        replaced values it does not mention (``asked_old``: leaves stating an old value of
        a fact the question asks about stay out of date)."""
        return {
            leaf_id
            for leaf_id, words in self.stale_words.items()
            if words.isdisjoint(terms) and leaf_id not in asked_old
        }
