"""Cost bounds at 500 memories, counted rather than timed: a regression to O(n) fails here."""

from __future__ import annotations

import os

from ihmt import IHMT

from .test_tree import word


def _snapshot(root) -> dict[str, tuple[int, int]]:
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            st = os.stat(path)
            out[path] = (st.st_mtime_ns, st.st_size)
    return out


def test_search_and_save_costs_do_not_grow_with_the_store(tmp_path):
    memory = IHMT.initialize(tmp_path / "w")
    n = 500
    memory.ingest_batch(
        {
            "text": f"Decision {i}: the {word(i)} job runs nightly on the {word(i + 900)} cluster.",
            "source": f"m{i}",
        }
        for i in range(n)
    )
    memory.flush()
    depth = memory.stats()["depth"]
    bound = memory.config.beam_width * depth + 5
    for i in range(0, n, 25):
        result = memory.search(word(i), top_k=5)
        assert result.best is not None and word(i) in result.best.content
        assert result.node_reads + result.leaf_reads <= bound
    for j in range(20):
        before = _snapshot(memory.path)
        memory.save(f"Follow-up {j}: the {word(2000 + j)} migration is done.")
        after = _snapshot(memory.path)
        changed = [p for p, v in after.items() if before.get(p) != v]
        layer_files = [p for p in changed if f"{os.sep}layers{os.sep}" in p]
        leaf_files = [p for p in changed if f"{os.sep}layer_0{os.sep}" in p]
        # one new leaf, at most one summarization event per layer, the trunk, the catalog
        assert len(leaf_files) == 1
        assert len(layer_files) <= depth + 1
        assert len(changed) <= len(layer_files) + 1 + 6
