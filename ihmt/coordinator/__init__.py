"""The write coordinator: the one owner of the write lock, leaf writes and tree maintenance.

It sits above ``ihmt.tree`` and ``ihmt.store`` (imports run coordinator -> tree -> store, and
coordinator -> store); the facade (``ihmt.api``) builds one per open memory.
"""

from .writer import FactExtractor, IndexedListener, RemovedListener, WriteCoordinator

__all__ = ["FactExtractor", "IndexedListener", "RemovedListener", "WriteCoordinator"]
