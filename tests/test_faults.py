"""The fault-injection hook and the core's import direction.

ihmt/faults.py is how crash tests reach an exact instant (tests/kill_at.py); in production no
handler is installed and a checkpoint does nothing. The core's layering (coordinator above
tree above store) is checked on the source: store/ imports neither tree/ nor the coordinator.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ihmt import faults

PACKAGE = Path(__file__).resolve().parent.parent / "ihmt"


def test_a_checkpoint_without_a_handler_does_nothing():
    assert faults.install(None) is None  # no test left one behind
    faults.checkpoint("sync.merged")  # returns, raises nothing


def test_an_installed_handler_sees_every_checkpoint_and_can_be_put_back():
    seen = []
    previous = faults.install(seen.append)
    try:
        faults.checkpoint("sync.fetched")
        faults.checkpoint("sync.merged")
    finally:
        assert faults.install(previous) == seen.append
    faults.checkpoint("sync.pushed")  # removed: not seen
    assert seen == ["sync.fetched", "sync.merged"]


def test_a_handler_that_raises_interrupts_the_operation_at_that_point():
    def stop(name: str) -> None:
        if name == "sync.merged":
            raise KeyboardInterrupt(name)

    previous = faults.install(stop)
    try:
        faults.checkpoint("sync.fetched")
        with pytest.raises(KeyboardInterrupt):
            faults.checkpoint("sync.merged")
    finally:
        faults.install(previous)


def _imported_modules(folder: Path) -> set[str]:
    found = set()
    for path in folder.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:  # relative: resolve against the module's package
                    base = path.relative_to(PACKAGE.parent).with_suffix("").parts[: -node.level]
                    found.add(".".join([*base, node.module or ""]).rstrip("."))
                else:
                    found.add(node.module or "")
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("store", ("ihmt.tree", "ihmt.coordinator", "ihmt.api", "ihmt.search")),
        ("tree", ("ihmt.coordinator", "ihmt.api", "ihmt.search")),
    ],
)
def test_the_core_imports_only_downwards(package, forbidden):
    imported = _imported_modules(PACKAGE / package)
    assert imported, "the scan found no import at all"
    wrong = sorted(m for m in imported if m.startswith(forbidden))
    assert not wrong, f"ihmt/{package} imports {wrong}"


def test_no_production_module_reads_a_crash_variable():
    hits = [
        str(path)
        for path in PACKAGE.rglob("*.py")
        if "CRASH_AT" in path.read_text(encoding="utf-8") or "os.kill(" in path.read_text("utf-8")
    ]
    assert not hits, hits
