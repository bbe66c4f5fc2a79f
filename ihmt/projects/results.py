"""What the project index returns: small dataclasses the CLI and the MCP server format."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class ProjectSyncReport:
    """What one sync of a project's code index did (not ``ihmt sync``'s ``SyncReport``)."""

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
    sync: ProjectSyncReport = field(default_factory=ProjectSyncReport)

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
    sync: ProjectSyncReport = field(default_factory=ProjectSyncReport)

    @property
    def total_tokens(self) -> int:
        return sum(f.tokens for f in self.files)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["total_tokens"] = self.total_tokens
        data["total_files"] = len(self.files)
        return data
