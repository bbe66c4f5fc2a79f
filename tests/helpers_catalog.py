"""Child process for tests/test_catalog_recovery.py: a rebuild that pauses at a chosen step.

Kept apart from the test module so the child imports only ``ihmt`` (no pytest) and starts fast.
"""

from __future__ import annotations

import sys
import time

from ihmt import IHMT


def rebuild_child() -> None:
    """Child process: rebuild the store in argv[1], pausing (``PAUSED`` on stdout, then sleep
    until killed) when step argv[2] has been reached argv[3] times. The pause is wrapped
    around library functions here, in the test; the library has no crash points."""
    from ihmt.store import catalog as catalog_mod
    from ihmt.store import leaf_files
    from ihmt.tree import builder

    workspace, step, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seen = {"n": 0}

    def pause_here(name: str) -> None:
        if name != step:
            return
        seen["n"] += 1
        if seen["n"] == count:
            print("PAUSED", name, count, flush=True)
            time.sleep(600)

    def wrap(owner, attr: str, name: str, after: bool = False) -> None:
        original = getattr(owner, attr)

        def wrapped(*args, **kwargs):
            if not after:
                pause_here(name)
            out = original(*args, **kwargs)
            if after:
                pause_here(name)
            return out

        setattr(owner, attr, wrapped)

    wrap(leaf_files.LeafFiles, "load_leaf", "leaf")  # reading leaf k of the store
    wrap(builder.Tree, "build_branch", "branch")  # summarizing branch k
    wrap(catalog_mod.Catalog, "_swap_in", "swap")  # just before the swap
    wrap(catalog_mod.Catalog, "_swap_in", "swapped", after=True)  # just after it
    wrap(builder.Tree, "save_root", "trunk", after=True)  # the trunk written, strays not gone
    memory = IHMT.open(workspace)
    print("READY", flush=True)
    memory.rebuild()
    print("DONE", flush=True)
