"""``ihmt check``: every way the store's files, catalog and tree can disagree, in words.

Read-only: it takes no lock and changes nothing (``IHMT.check(repair=True)`` rebuilds).
"""

from __future__ import annotations

import os

from ..errors import StoreCorruptError
from ..models import CheckReport
from ..store.catalog import Catalog
from ..store.ids import header_problem
from ..store.layout import StoreLayout
from ..store.leaf_files import LeafFiles, unreadable_note
from ..store.leaf_format import leaf_checksum, parse_leaf
from ..store.quarantine import entries as quarantine_entries
from ..store.salvage import salvage
from ..tree.builder import Tree


def check_store(layout: StoreLayout, catalog: Catalog, tree: Tree, files: LeafFiles) -> CheckReport:
    """The problems of a store, with what ``check --repair`` can fix."""
    report = CheckReport()
    try:
        root = tree.read_root()
    except StoreCorruptError as exc:
        report.problems.append(f"root.json: {exc}")
        root = None
    rows = {r["id"]: r for r in catalog.all_leaves()}
    report.leaves = len(rows)
    for leaf_id, row in rows.items():
        path = layout.root / row["path"]
        if not path.exists():
            report.problems.append(f"leaf {leaf_id}: its file {row['path']} is missing")
            continue
        try:
            data = path.read_bytes()
        except PermissionError:
            report.unreadable.append(row["path"])
            report.problems.append(unreadable_note(row["path"]))
            continue
        except OSError as exc:
            report.problems.append(f"cannot read {row['path']}: {exc.strerror or exc}")
            continue
        try:
            header, body = parse_leaf(data, name=row["path"])
        except StoreCorruptError as exc:
            fixable = salvage(path, data) is not None
            report.problems.append(
                f"leaf {leaf_id}: {exc}"
                + (
                    "; the text is intact: `ihmt check --repair` rewrites the header"
                    if fixable
                    else ""
                )
            )
            continue
        problem = header_problem(header)
        if problem:
            report.problems.append(f"leaf {leaf_id}: {problem}")
            continue
        if header.get("leaf_id") != leaf_id:
            report.problems.append(
                f"leaf {leaf_id}: header names a different id {header.get('leaf_id')!r}"
            )
        if header.get("checksum") != leaf_checksum(body):
            report.problems.append(
                f"leaf {leaf_id}: text does not match its checksum (edited by hand?)"
            )
    indexed_paths = {r["path"] for r in rows.values()}
    for path in files.leaf_files():
        rel = layout.relative(path)
        if rel in indexed_paths:
            continue
        if not os.access(path, os.R_OK):
            report.unreadable.append(rel)
            report.problems.append(unreadable_note(rel))
        else:
            report.problems.append(f"file {rel} is in layer_0 but not in the catalog")
    for link in files.symlinks_in_layer0():
        report.problems.append(
            f"{layout.relative(link)} is a symbolic link in layer_0 (leaves are plain files)"
        )
    report.quarantined = [e.to_dict() for e in quarantine_entries(layout.root)]
    branches = {b["id"]: b for b in catalog.all_branches()}
    report.branches = len(branches)
    reachable: set[str] = set()
    if root is not None:
        if root.get("generation") != catalog.generation():
            report.problems.append("root.json is older than the catalog (an interrupted write)")
        stack = [(e["id"], e["kind"]) for e in root.get("entries", [])]
        seen_parent: dict[str, str] = {node_id: "root" for node_id, _ in stack}
        while stack:
            node_id, kind = stack.pop()
            if kind == "leaf":
                reachable.add(node_id)
                continue
            try:
                branch = tree.read_branch(node_id)
            except StoreCorruptError as exc:
                report.problems.append(str(exc))
                continue
            for child in branch.get("children", []):
                if child["id"] in seen_parent:
                    report.problems.append(f"{child['id']} has two parents")
                seen_parent[child["id"]] = node_id
                stack.append((child["id"], child["kind"]))
    for leaf_id in rows:
        if leaf_id not in reachable and root is not None:
            report.problems.append(f"leaf {leaf_id} is not reachable from the root")
    on_disk = set()
    if layout.layers.is_dir():
        for path in layout.layers.rglob("*.json"):
            on_disk.add(path.stem)
            if path.stem not in branches:
                report.problems.append(
                    f"stray branch file {layout.relative(path)} (not in the catalog)"
                )
    for branch_id in branches:
        if branch_id not in on_disk:
            report.problems.append(f"branch {branch_id}: its file is missing")
    if catalog.pending():
        report.problems.append(
            "an interrupted write is pending (it is completed by the next write)"
        )
    return report
