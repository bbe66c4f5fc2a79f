"""Summarization events: turning parentless nodes into branches, and keeping paths current.

Write order makes every step crash-safe:
  1. the branch file is written (atomically) first;
  2. one catalog transaction registers the branch and stamps all its children with it;
  3. root.json is rewritten with the new generation.
A kill before (2) leaves an unreferenced branch file that the next event overwrites (branch ids
are derived from the child ids, so the same group yields the same file) and that `check
--repair` removes; a kill before (3) leaves a trunk whose generation is stale, which the next
writer rebuilds from the catalog. A child is stamped in the same transaction that creates its
parent, so no leaf can ever end up with two parents.

Leaves are never rewritten by consolidation: the parent link lives in the catalog and in the
branch that lists the child. Leaves stay immutable, content-addressed files (cheap to sync,
nothing rewritten per event), and the tree is always rebuildable from them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .. import re_cache
from ..config import IHMTConfig
from ..errors import StoreCorruptError
from ..faults import checkpoint
from ..logs import get_logger
from ..store.atomic import atomic_write_text
from ..store.catalog import Catalog
from ..store.layout import StoreLayout
from ..store.leaf_files import read_leaf_file
from .refs import (
    date_range,
    exact_terms,
    leaf_count,
    leaf_ref,
    merge_bounds,
    public_ref,
    ref_sketch,
)
from .sketch import Sketch
from .summary import ChildDigest, SummarizerBackend
from .trunk import load_root, render_root, write_root

log = get_logger("ihmt.tree")
BRANCH_FORMAT = 1
EVENT_BATCH = 512  # events written and registered per catalog transaction


_NODE_ID = re_cache.compile(r"(L|N[0-9]{1,3})-[A-Za-z0-9._-]{1,200}")


def branch_layer(node_id: str) -> int:
    """Layer encoded in a node id: L-… is 0, N3-… is 3. Ids come from files and callers
    (GUI, MCP), so anything that is not a well-formed id is refused before it becomes a path."""
    if not isinstance(node_id, str) or not _NODE_ID.fullmatch(node_id) or ".." in node_id:
        raise StoreCorruptError(f"malformed node id {str(node_id)[:80]!r}")
    if node_id.startswith("L-"):
        return 0
    try:
        return int(node_id[1 : node_id.index("-")])
    except ValueError:
        raise StoreCorruptError(f"malformed node id {node_id!r}") from None


def _in_rank_order(refs: list[dict]) -> list[dict]:
    """Nodes stamped with a rank (a project's files in path order) group with their
    neighbours; unranked nodes keep their arrival order."""
    if refs and all("rank" in r for r in refs):
        return sorted(refs, key=lambda r: r["rank"])
    return list(refs)


class NodeCache:
    """Parsed branch files, validated by (mtime, size) so another process's writes show up."""

    def __init__(self, max_items: int = 4096) -> None:
        self.max_items = max_items
        self._items: dict[Path, tuple[tuple[int, int], dict]] = {}

    def get(self, path: Path) -> dict:
        st = os.stat(path)
        key = (st.st_mtime_ns, st.st_size)
        hit = self._items.get(path)
        if hit and hit[0] == key:
            return hit[1]
        data = json.loads(path.read_bytes())
        if len(self._items) >= self.max_items:
            self._items.pop(next(iter(self._items)))
        self._items[path] = (key, data)
        return data

    def forget(self, path: Path) -> None:
        self._items.pop(path, None)


class Tree:
    def __init__(
        self, layout: StoreLayout, catalog: Catalog, config: IHMTConfig, backend: SummarizerBackend
    ) -> None:
        self.layout = layout
        self.catalog = catalog
        self.config = config
        self.backend = backend
        self.cache = NodeCache()
        self._entries: list[dict] | None = None
        self._entries_generation = -1
        self._root_cache: tuple[tuple[int, int, int], dict] | None = None

    # -- reading ----------------------------------------------------------------------------
    def read_root(self) -> dict:
        path = self.layout.root_json
        try:
            st = os.stat(path)
        except FileNotFoundError:
            raise StoreCorruptError(f"{path} is missing; run `ihmt check --repair`") from None
        key = (st.st_mtime_ns, st.st_size, st.st_ino)
        if self._root_cache and self._root_cache[0] == key:
            return self._root_cache[1]
        data = load_root(path)
        self._root_cache = (key, data)
        return data

    def branch_path(self, branch_id: str) -> Path:
        return self.layout.branch_path(branch_layer(branch_id), branch_id)

    def read_branch(self, branch_id: str) -> dict:
        path = self.branch_path(branch_id)
        try:
            return self.cache.get(path)
        except FileNotFoundError:
            raise StoreCorruptError(
                f"branch {branch_id} is missing; run `ihmt check --repair`"
            ) from None
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise StoreCorruptError(
                f"branch {branch_id} is damaged; run `ihmt check --repair`"
            ) from None

    # -- cached state (owned here; others invalidate it through these methods) -------------
    def adopt_generation(self, generation: int) -> None:
        """The catalog moved to ``generation`` through a change this writer made and already
        applied to its trunk in memory (or one that does not touch the trunk: links, facts),
        so the trunk is not re-read from root.json or rebuilt from the catalog."""
        self._entries_generation = generation

    def forget_cached(self) -> None:
        """Drop every cached branch, the trunk and the root (before a rebuild: the files stay
        and keep serving readers until the new catalog is swapped in)."""
        self.cache = NodeCache()
        self._entries = None
        self._root_cache = None

    # -- trunk entries (writers only, under the store lock) ---------------------------------
    def entries(self) -> list[dict]:
        generation = self.catalog.generation()
        if self._entries is not None and self._entries_generation == generation:
            return self._entries
        entries = None
        try:
            root = load_root(self.layout.root_json)
            if root.get("generation") == generation:
                entries = root["entries"]
        except StoreCorruptError:
            entries = None
        if entries is None:
            entries = self.rebuild_entries()
        self._entries = entries
        self._entries_generation = generation
        return entries

    def rebuild_entries(self) -> list[dict]:
        """The trunk from the catalog: every parentless node's reference."""
        entries = []
        for node_id, _domain, _layer in self.catalog.parentless():
            if node_id.startswith("L-"):
                row = self.catalog.leaf_row(node_id)
                if row is None:
                    continue
                try:
                    leaf = read_leaf_file(self.layout.root / row["path"])
                except (OSError, StoreCorruptError):
                    log.warning("leaf %s is unreadable; skipped from the trunk", node_id)
                    continue
                entries.append(leaf_ref(leaf))
            else:
                try:
                    entries.append(self.read_branch(node_id)["self"])
                except (StoreCorruptError, KeyError):
                    log.warning("branch %s is unreadable; skipped from the trunk", node_id)
        return entries

    def add_entries(self, refs: list[dict]) -> None:
        entries = self.entries()
        known = {r["id"] for r in entries}
        entries.extend(r for r in refs if r["id"] not in known)

    def save_root(self) -> None:
        """Write root.json for the current generation (call at the end of every write)."""
        entries = self.entries()
        generation = self.catalog.generation()
        counts = self.catalog.counts()
        totals = {
            "leaves": counts["leaves"],
            "branches": sum(counts["branches_per_layer"].values()),
            "layers": max([0, *counts["branches_per_layer"].keys()]),
            "branches_per_layer": {
                str(k): v for k, v in sorted(counts["branches_per_layer"].items())
            },
        }
        write_root(self.layout.root_json, render_root(entries, generation, totals))
        self._entries_generation = generation

    # -- summarization events ----------------------------------------------------------------
    def consolidate(self, force: bool = False) -> int:
        """Run every pending event; with force, also close each domain to a single top."""
        events = 0
        bf = self.config.branch_factor
        while True:
            groups = self._full_groups(bf)
            if not groups and force:
                group = self._next_partial_group(bf)
                groups = [group] if group else []
            if not groups:
                break
            for start in range(0, len(groups), EVENT_BATCH):
                self._events(groups[start : start + EVENT_BATCH])
            events += len(groups)
        return events

    def _full_groups(self, bf: int) -> list[list[dict]]:
        """Every full group at the lowest layer that has one (one pass over the trunk)."""
        buckets: dict[tuple[str, int], list[dict]] = {}
        for ref in self.entries():
            buckets.setdefault((ref["domain"], ref["layer"]), []).append(ref)
        ready = [key for key, refs in buckets.items() if len(refs) >= bf]
        if not ready:
            return []
        lowest = min(layer for _, layer in ready)
        groups = []
        for key in sorted(k for k in ready if k[1] == lowest):
            ordered = _in_rank_order(buckets[key])
            groups += [ordered[i : i + bf] for i in range(0, len(ordered) - bf + 1, bf)]
        return groups

    def _next_partial_group(self, bf: int) -> list[dict] | None:
        by_domain: dict[str, list[dict]] = {}
        for ref in self.entries():
            by_domain.setdefault(ref["domain"], []).append(ref)
        for domain in sorted(by_domain):
            refs = by_domain[domain]
            if len(refs) < 2:
                continue
            refs = _in_rank_order(refs)
            refs.sort(key=lambda r: r["layer"])
            lowest = refs[0]["layer"]
            group = [r for r in refs if r["layer"] == lowest][:bf]
            if len(group) < 2:
                nxt = [r for r in refs if r["layer"] != lowest]
                group = group + nxt[: bf - 1]
            return group
        return None

    def build_branch(self, children: list[dict], branch_id: str | None = None) -> dict:
        domain = children[0]["domain"]
        layer = max(c["layer"] for c in children) + 1
        if branch_id is None:
            import hashlib  # here: only consolidation names branches

            digest = hashlib.sha256(",".join(c["id"] for c in children).encode()).hexdigest()[:10]
            branch_id = f"N{layer}-{domain}-{digest}"
        digests = [
            ChildDigest(
                title=c.get("title", ""),
                excerpt=c.get("excerpt", ""),
                keywords=list(c.get("keywords", [])),
                text=f"{c.get('title', '')}. {c.get('excerpt', '')}",
            )
            for c in children
        ]
        try:
            summary = self.backend.summarize(digests, domain=domain, layer=layer)
        except Exception as exc:  # a plug-in backend must never cost a consolidation
            log.warning("summarizer %s failed (%s); using the heuristic", self.backend.name, exc)
            from .heuristic import HeuristicSummarizer

            summary = HeuristicSummarizer().summarize(digests, domain=domain, layer=layer)
        hi, rest, min_dl = merge_bounds(children)
        date_from, date_to = date_range(children)
        tags = sorted({t for c in children for t in c.get("tags", [])})[:24]
        exact = exact_terms(children)
        sketch = None if exact is not None else Sketch.union(ref_sketch(c) for c in children)
        self_ref = {
            "id": branch_id,
            "kind": "branch",
            "layer": layer,
            "domain": domain,
            "title": summary.title,
            "excerpt": summary.summary,
            "keywords": summary.keywords,
            "tags": tags,
            "date_from": date_from,
            "date_to": date_to,
            "leaves": sum(leaf_count(c) for c in children),
            "children": len(children),
            **(
                {"rank": min(c["rank"] for c in children)}
                if all("rank" in c for c in children)
                else {}
            ),
            "hi": hi,
            "rest_tf": rest,
            "min_dl": min_dl,
        }
        if exact is not None:
            self_ref["terms"] = exact
        else:
            self_ref["vocab"] = sketch.to_json()
        return {
            "format_version": BRANCH_FORMAT,
            "branch_id": branch_id,
            "layer": layer,
            "domain": domain,
            "title": summary.title,
            "summary": summary.summary,
            "keywords": summary.keywords,
            "date_from": date_from,
            "date_to": date_to,
            "leaves": self_ref["leaves"],
            "backend": getattr(self.backend, "name", "custom"),
            "children": [public_ref(c) for c in children],
            "self": self_ref,
        }

    def _write_branch(self, branch: dict, durable: bool = True) -> Path:
        path = self.layout.branch_path(branch["layer"], branch["branch_id"])
        atomic_write_text(
            path, json.dumps(branch, ensure_ascii=False, separators=(",", ":")), durable=durable
        )
        self.cache.forget(path)
        return path

    def _events(self, groups: list[list[dict]]) -> None:
        """Write the branches of several events, make them durable, then register them all
        in one transaction: a kill before the commit leaves only unreferenced files."""
        branches = [self.build_branch(children) for children in groups]
        bulk = len(branches) > 8 and hasattr(os, "sync")
        paths = [self._write_branch(branch, durable=not bulk) for branch in branches]
        if bulk:
            os.sync()
        checkpoint("tree.branches_written")  # files on disk, not yet in the catalog
        with self.catalog.transaction() as conn:
            for branch, children, path in zip(branches, groups, paths, strict=True):
                self.catalog.add_branch(
                    conn,
                    branch["branch_id"],
                    branch["layer"],
                    branch["domain"],
                    self.layout.relative(path),
                )
                self.catalog.set_parent(conn, [c["id"] for c in children], branch["branch_id"])
            generation = self.catalog.bump_generation(conn)
        child_ids = {c["id"] for children in groups for c in children}
        entries = self.entries_unchecked()
        entries[:] = [r for r in entries if r["id"] not in child_ids]
        entries.extend(branch["self"] for branch in branches)
        self._entries_generation = generation

    def entries_unchecked(self) -> list[dict]:
        if self._entries is None:
            return self.entries()
        return self._entries

    # -- removal and path updates ------------------------------------------------------------
    def detach(self, node_ids: list[str]) -> None:
        """Take nodes out of the tree and refresh every summary on their paths to the root."""
        by_parent: dict[str | None, set[str]] = {}
        for node_id in node_ids:
            by_parent.setdefault(self.catalog.parent_of(node_id), set()).add(node_id)
        for parent, ids in by_parent.items():
            if parent is None:
                entries = self.entries_unchecked()
                entries[:] = [r for r in entries if r["id"] not in ids]
            else:
                self._rewrite_without(parent, ids)

    def _rewrite_without(self, branch_id: str, removed: set[str]) -> None:
        branch = self.read_branch(branch_id)
        children = [c for c in branch["children"] if c["id"] not in removed]
        grand = self.catalog.parent_of(branch_id)
        if not children:
            path = self.branch_path(branch_id)
            with self.catalog.transaction() as conn:
                self.catalog.remove_branch(conn, branch_id)
                self._entries_generation = self.catalog.bump_generation(conn)
            self.cache.forget(path)
            path.unlink(missing_ok=True)
            if grand is None:
                entries = self.entries_unchecked()
                entries[:] = [r for r in entries if r["id"] != branch_id]
            else:
                self._rewrite_without(grand, {branch_id})
            return
        self.replace_child_refs(branch_id, children)

    def replace_child_refs(self, branch_id: str, children: list[dict]) -> None:
        """Rewrite a branch with new children and propagate its new summary upward."""
        new_branch = self.build_branch(children, branch_id=branch_id)
        new_branch["layer"] = branch_layer(branch_id)
        new_branch["self"]["layer"] = new_branch["layer"]
        self._write_branch(new_branch)
        with self.catalog.transaction() as conn:
            self._entries_generation = self.catalog.bump_generation(conn)
        new_ref = new_branch["self"]
        grand = self.catalog.parent_of(branch_id)
        if grand is None:
            entries = self.entries_unchecked()
            entries[:] = [new_ref if r["id"] == branch_id else r for r in entries]
            return
        parent = self.read_branch(grand)
        siblings = [new_ref if c["id"] == branch_id else c for c in parent["children"]]
        self.replace_child_refs(grand, siblings)
