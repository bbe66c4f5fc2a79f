"""One exception hierarchy for the whole library.

    IHMTError                 base: a user-facing problem with a one-line message
    ├── StoreNotFoundError    no store at the given path
    ├── StoreCorruptError     a store file cannot be parsed; message says how to repair
    │   └── CatalogDamagedError   state/catalog.sqlite3 cannot be used; `ihmt rebuild` fixes it
    ├── StoreLockedError      the write lock could not be taken in time
    ├── StoreWriteError       the disk refused a write (full, failing, read-only)
    ├── InputError            bad input from the caller (empty text, binary file, bad query)
    ├── SecretDetectedError   content looks like it carries a credential
    └── SyncError             `ihmt sync` could not complete (git, the remote, a merge)

Presenters (CLI, MCP, GUI) catch IHMTError and show its message; anything else is a bug.
"""

from __future__ import annotations


class IHMTError(Exception):
    """Base class: the message is one line a user can act on."""


class StoreNotFoundError(IHMTError):
    pass


class StoreCorruptError(IHMTError):
    pass


class CatalogDamagedError(StoreCorruptError):
    """The derived catalog cannot be read; a rebuild moves it aside and recreates it."""


class StoreLockedError(IHMTError):
    pass


class StoreWriteError(IHMTError):
    pass


class InputError(IHMTError):
    pass


class SecretDetectedError(IHMTError):
    pass


class SyncError(IHMTError):
    """A sync could not complete; the message says what happened and how to continue."""
