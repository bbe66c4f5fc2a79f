"""Fault injection: named instants where a test may interrupt an operation.

Production code calls ``checkpoint(name)`` where a crash test needs to land exactly (a sync
between its merge and its reconcile, for instance). A checkpoint does nothing unless a handler
was installed with ``install``, which only tests do (``tests/kill_at.py`` installs one that
SIGKILLs the process at a chosen point). No environment variable is read here: a user's
environment cannot make the library kill itself.

Points: ``sync.fetched``, ``sync.committed``, ``sync.merged``, ``sync.applied``,
``sync.reconciled``, ``sync.pushing``, ``sync.pushed`` (see ihmt/sync/git_sync.py);
``atomic.opened`` and ``atomic.written`` (a temporary file created, then written and flushed,
before it replaces the target: ihmt/store/atomic.py); ``tree.branches_written`` (new branch
files on disk, not yet in the catalog: ihmt/tree/builder.py).
"""

from __future__ import annotations

from collections.abc import Callable

Handler = Callable[[str], None]

_handler: Handler | None = None


def install(handler: Handler | None) -> Handler | None:
    """Make ``handler(name)`` run at every checkpoint (None removes it); returns the handler
    it replaces, so a test can put it back."""
    global _handler
    previous, _handler = _handler, handler
    return previous


def checkpoint(name: str) -> None:
    """A named instant of an operation: calls the installed handler, if any."""
    handler = _handler
    if handler is not None:
        handler(name)
