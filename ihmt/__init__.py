"""IHMT — Infinite Hierarchical Memory Tree: local long-term memory for AI coding agents."""

from .api import IHMT, SaveReport
from .config import IHMTConfig
from .errors import (
    IHMTError,
    InputError,
    SecretDetectedError,
    StoreCorruptError,
    StoreLockedError,
    StoreNotFoundError,
    StoreWriteError,
)
from .models import CheckReport, Hit, IngestReport, MemoryLeaf, SearchResult

__version__ = "0.1.0"

__all__ = [
    "IHMT",
    "CheckReport",
    "Hit",
    "IHMTConfig",
    "IHMTError",
    "IngestReport",
    "InputError",
    "MemoryLeaf",
    "SaveReport",
    "SearchResult",
    "SecretDetectedError",
    "StoreCorruptError",
    "StoreLockedError",
    "StoreNotFoundError",
    "StoreWriteError",
    "__version__",
]
