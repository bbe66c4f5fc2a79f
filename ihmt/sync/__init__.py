"""Sharing one memory between machines and people through git (``ihmt sync``).

The store folder becomes a git repository holding the truth (leaves, records, settings);
derived files are ignored and rebuilt after every merge. Modules: ``git_sync`` (the sync),
``status`` (``--status``), ``merge`` (merging, re-deriving what changed), ``resolve``
(conflicts), ``changes`` (counting changes, checking files), ``repo`` (setup, recovery),
``remote`` (fetch, push). Running git and reading the store's git history (what a forget
cannot reach) are in :mod:`ihmt.vcs`, below the facade, which reads that history too.
"""

from ..errors import SyncError
from .changes import ChangeCounts
from .git_sync import SyncReport, sync
from .status import SyncStatus, sync_status

__all__ = ["ChangeCounts", "SyncError", "SyncReport", "SyncStatus", "sync", "sync_status"]
