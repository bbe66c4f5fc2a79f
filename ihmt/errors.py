"""One exception hierarchy for the whole library.

    IHMTError                 base: a user-facing problem with a one-line message
    ├── StoreNotFoundError    no store at the given path
    ├── StoreCorruptError     a store file cannot be parsed; message says how to repair
    │   └── CatalogDamagedError   state/catalog.sqlite3 cannot be used; `ihmt rebuild` fixes it
    ├── StoreLockedError      the write lock could not be taken in time
    ├── StoreWriteError       the disk refused a write (full, failing, read-only)
    ├── InputError            bad input from the caller (empty text, binary file, bad query)
    │   └── GuiInputError     bad input to the GUI, with a code and parameters the page words
    │       └── OutsideRootError  a path outside the folder tree the GUI may browse
    ├── SecretDetectedError   content looks like it carries a credential
    ├── SemanticUnavailable   the semantic extra is missing or its model cannot load
    ├── WireError             an MCP stdio line that cannot go to the SDK (carries its JSON-RPC reply)
    ├── SyncError             `ihmt sync` could not complete (git, the remote, a merge)
    └── ApiError              a GUI request refused with an HTTP status, a code and parameters

Presenters (CLI, MCP, GUI) catch IHMTError and show its message; anything else is a bug.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path


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


class GuiInputError(InputError):
    """Bad input with a code and parameters, so the page can word it in the user's language."""

    def __init__(self, message: str, code: str, **params: object) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


class OutsideRootError(GuiInputError):
    """A path that resolves outside the folder tree the GUI may browse."""

    def __init__(self, root: Path) -> None:
        super().__init__(f"only folders inside {root} can be used", "outside_root", root=str(root))


class ApiError(IHMTError):
    """A GUI request refused: the HTTP status, a one-line message, a code and its parameters
    (the page words the code; the message is the English fallback)."""

    def __init__(self, status: int, message: str, code: str = "", **params: object) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.params = params


class SyncError(IHMTError):
    """A sync could not complete; the message says what happened and how to continue."""


class SemanticUnavailable(IHMTError):
    """The semantic extra is missing or its model cannot be loaded."""


class WireError(IHMTError):
    """A line that cannot go to the SDK; ``reply`` is the JSON-RPC error answer for it."""

    def __init__(self, code: int, message: str, request_id: Any = None) -> None:
        super().__init__(message)
        self.reply = {
            "jsonrpc": "2.0",
            "id": request_id,
            "error": {"code": code, "message": message},
        }
