"""Neighbours: the memories stored just before and after a leaf that share its context.

Two leaves are neighbours when they are consecutive in storage order (the catalog's ``seq``),
belong to the same domain, and either carry the same date or are consecutive pieces of the
same document. In a conversation ingested turn by turn that links the turns of one session;
in a chunked file it links adjacent chunks. Dense search lends a leaf a share of its
neighbours' similarity (fusion.py), because an answer often completes the turn before it.

Kept in memory and refreshed incrementally: new leaves only append to the order; a removal
(the count no longer adds up) rebuilds the map from the catalog in one query.
"""

from __future__ import annotations

import threading


def _linked(a: tuple, b: tuple) -> bool:
    _, _, domain_a, source_a, pos_a, stamp_a = a
    _, _, domain_b, source_b, pos_b, stamp_b = b
    if domain_a != domain_b:
        return False
    same_day = bool(stamp_a) and stamp_a[:10] == stamp_b[:10]
    same_doc = source_a == source_b and abs(int(pos_a) - int(pos_b)) == 1
    return same_day or same_doc


class Neighbours:
    def __init__(self) -> None:
        self.prev: dict[str, str] = {}
        self.next: dict[str, str] = {}
        self._tail: tuple | None = None
        self._count = 0
        self._seen_seq = ""
        self._lock = threading.Lock()

    def refresh(self, catalog) -> None:
        with self._lock:
            n = catalog.corpus_stats()[0]
            seen_seq = catalog.meta("seq", "0")
            if n == self._count and seen_seq == self._seen_seq:
                return
            last_seq = self._tail[1] if self._tail else 0
            rows = catalog.leaves_in_order(after_seq=last_seq)
            if self._count + len(rows) != n:  # something was removed: start over
                self.prev, self.next, self._tail, self._count = {}, {}, None, 0
                rows = catalog.leaves_in_order()
            for row in rows:
                if self._tail is not None and _linked(self._tail, row):
                    self.prev[row[0]] = self._tail[0]
                    self.next[self._tail[0]] = row[0]
                self._tail = row
            self._count += len(rows)
            self._seen_seq = seen_seq

    def of(self, leaf_id: str) -> list[str]:
        return [x for x in (self.prev.get(leaf_id), self.next.get(leaf_id)) if x is not None]
