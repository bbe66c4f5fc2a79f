"""Store settings, read from and written to ``ihmt_memory/ihmt.config.json``, and the two
names every entry point shares: the default workspace ($IHMT_HOME) and the MCP server's name.

Unknown keys in the file are kept (``extra``) so a newer version's settings survive an older
reader; a file that is not valid JSON is reported with the way to fix it rather than ignored.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from .errors import InputError, StoreCorruptError

CONFIG_VERSION = 1
MCP_SERVER_NAME = "ihmt-memory"  # how agents' MCP settings (and the GUI's set-up) name us


def default_workspace() -> Path:
    """``$IHMT_HOME`` (surrounding spaces ignored, ``~`` expanded), else ``~/.ihmt``: the
    workspace whose ``ihmt_memory/`` is the store when no path is given."""
    home = os.environ.get("IHMT_HOME", "").strip()
    return Path(home).expanduser() if home else Path.home() / ".ihmt"


@dataclass
class IHMTConfig:
    branch_factor: int = 8
    target_tokens: int = 2000
    max_tokens: int = 3000
    beam_width: int = 3
    confidence_threshold: float = 0.45
    ambiguity_margin: float = 0.18
    max_clue_rounds: int = 3
    summarizer_backend: str = "heuristic"
    summarizer_model: str = "claude-sonnet-5"
    summarizer_base_url: str | None = None
    code_chunk_mode: str = "pack"
    max_file_bytes: int = 20 * 1024 * 1024
    fact_patterns: list = field(default_factory=list)
    semantic: bool = False
    semantic_model: str = ""  # "" = the default model; a folder or a locally cached model name
    format_version: int = CONFIG_VERSION
    extra: dict = field(default_factory=dict)

    def validate(self) -> IHMTConfig:
        """Reject settings that would build a broken tree, with a message naming the key."""
        if not isinstance(self.branch_factor, int) or self.branch_factor < 2:
            raise InputError("branch_factor must be an integer >= 2")
        if not isinstance(self.target_tokens, int) or self.target_tokens < 16:
            raise InputError("target_tokens must be an integer >= 16")
        if not isinstance(self.max_tokens, int) or self.max_tokens < self.target_tokens:
            raise InputError("max_tokens must be an integer >= target_tokens")
        if not isinstance(self.beam_width, int) or self.beam_width < 1:
            raise InputError("beam_width must be an integer >= 1")
        if self.code_chunk_mode not in ("pack", "symbol"):
            raise InputError("code_chunk_mode must be 'pack' or 'symbol'")
        if not isinstance(self.max_clue_rounds, int) or self.max_clue_rounds < 0:
            raise InputError("max_clue_rounds must be an integer >= 0")
        if not isinstance(self.semantic_model, str):
            raise InputError("semantic_model must be a text: a model folder or name")
        return self

    def to_dict(self) -> dict:
        data = asdict(self)
        extra = data.pop("extra")
        data.update(extra)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> IHMTConfig:
        known = {f.name for f in fields(cls)} - {"extra"}
        kwargs = {k: v for k, v in data.items() if k in known}
        extra = {k: v for k, v in data.items() if k not in known}
        return cls(**kwargs, extra=extra)

    def with_overrides(self, **overrides) -> IHMTConfig:
        data = self.to_dict()
        for key, value in overrides.items():
            if value is None:
                continue
            if key not in data and key not in {f.name for f in fields(self)}:
                raise InputError(f"unknown setting {key!r}")
            data[key] = value
        return IHMTConfig.from_dict(data).validate()


def load_config(path: Path) -> IHMTConfig:
    if not path.exists():
        return IHMTConfig()
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raw = None
    try:
        if raw is None:
            raise ValueError("not UTF-8 text")
        data = json.loads(raw)
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        raise StoreCorruptError(
            f"{path} is not valid JSON ({exc.__class__.__name__}); fix it by hand or delete it "
            "to return to the defaults"
        ) from None
    if not isinstance(data, dict):
        raise StoreCorruptError(f"{path} must hold a JSON object; delete it to return to defaults")
    try:
        return IHMTConfig.from_dict(data).validate()
    except TypeError as exc:
        raise StoreCorruptError(f"{path}: {exc}") from None
