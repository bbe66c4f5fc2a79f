"""The GUI's JSON endpoints: each one makes a facade call and formats the answer for app.js.

No retrieval or timeline logic lives here; the facade decides, this module only shapes JSON.
Every endpoint is read-only over the memory: the only writes are creating a store and writing a
previewed ``.mcp.json`` (see setup.py), both after an explicit confirmation.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from .. import __version__, re_cache
from ..api import IHMT
from ..errors import ApiError, GuiInputError, IHMTError, OutsideRootError, StoreNotFoundError
from ..render import source_label
from .locks import StoreLocks
from .setup import (
    LIST_PAGE,
    LIST_PAGE_MAX,
    FolderFence,
    SetupService,
    mcp_server_path,
    snippets,
)

log = logging.getLogger("ihmt.gui")

NODE_ID = re_cache.compile(r"(L|N[0-9]{1,3})-[A-Za-z0-9_.-]{1,200}")
PAGE_DEFAULT = 100
PAGE_MAX = 500
DESCENT_SIBLINGS = 5  # siblings shown beside the path at each level of the Diagnose tree
LEAF_TEXT_MAX = 200_000
QUERY_MAX = 2_000
REF_FIELDS = (
    "id",
    "kind",
    "layer",
    "domain",
    "title",
    "excerpt",
    "keywords",
    "tags",
    "date",
    "date_from",
    "date_to",
    "leaves",
    "children",
    "source",
    "span",
)


Handler = Callable[[dict, dict], dict]


class GuiApp:
    """State of one GUI process: the active memory folder, the folder fence and the previews."""

    def __init__(self, workspace=None, browse_root=None) -> None:
        self.workspace = IHMT.locate(workspace)
        root = browse_root if browse_root is not None else Path.home()
        self.fence = FolderFence(root, also=(self.workspace,))
        self.setup = SetupService(self.fence)
        self._memory: IHMT | None = None
        self._opening = threading.Lock()  # one thread opens the memory; the others reuse it
        self.locks = StoreLocks()
        self._notes_cache: tuple[tuple[int, int], dict[str, list[dict]]] | None = None
        # each route with how it uses the active store: "read" runs beside other reads,
        # "write" (switching or creating the store) runs alone, "free" takes no store lock
        self.routes: dict[tuple[str, str], tuple[Handler, str]] = {
            ("GET", "/api/info"): (self.info, "free"),
            ("GET", "/api/overview"): (self.overview, "read"),
            ("GET", "/api/node"): (self.node, "read"),
            ("GET", "/api/leaf"): (self.leaf, "read"),
            ("POST", "/api/search"): (self.search, "read"),
            ("GET", "/api/timeline"): (self.timeline, "read"),
            ("GET", "/api/fs/list"): (self.fs_list, "free"),
            ("POST", "/api/memory/select"): (self.select_memory, "write"),
            ("GET", "/api/setup/snippets"): (self.setup_snippets, "free"),
            ("POST", "/api/setup/preview"): (self.setup_preview, "free"),
            ("POST", "/api/setup/confirm"): (self.setup_confirm, "write"),
            ("GET", "/api/setup/hooks"): (self.setup_hooks, "free"),
        }

    # -- dispatch ---------------------------------------------------------------------------------
    def dispatch(self, method: str, route: str, query: dict, body: dict) -> tuple[int, dict]:
        entry = self.routes.get((method, route))
        if entry is None:
            known = any(path == route for _m, path in self.routes)
            return (
                (405, {"error": "method not allowed", "code": "method"})
                if known
                else (404, {"error": "not found", "code": "no_route"})
            )
        handler, mode = entry
        try:
            if mode == "free":
                return 200, handler(query, body)
            with self._store_lock(mode):
                return 200, handler(query, body)
        except ApiError as exc:
            return exc.status, _error(exc, exc.code, exc.params)
        except OutsideRootError as exc:
            return 403, _error(exc, exc.code, exc.params)
        except GuiInputError as exc:
            return 400, _error(exc, exc.code, exc.params)
        except StoreNotFoundError as exc:
            return 404, _error(exc, "no_store", {})
        except IHMTError as exc:
            # the engine's own message has no translation: the page names the kind of error
            return 400, _error(exc, type(exc).__name__, {})
        except Exception:  # a bug must not kill the server or leak a traceback to the page
            log.exception("GUI endpoint %s failed", route)
            return 500, {
                "error": "internal error; see the terminal running the GUI",
                "code": "internal",
            }

    @contextmanager
    def _store_lock(self, mode: str) -> Iterator[None]:
        """The active store's read or write lock; retried if a switch moved the store meanwhile."""
        while True:
            workspace = self.workspace
            lock = self.locks.of(workspace)
            with lock.read() if mode == "read" else lock.write():
                if self.workspace == workspace:
                    yield
                    return

    def close(self) -> None:
        """Close the open memory (callers hold the store's write lock, or are shutting down)."""
        with self._opening:
            if self._memory is not None:
                self._memory.close()
                self._memory = None

    # -- the active memory -------------------------------------------------------------------------
    def memory(self) -> IHMT:
        with self._opening:
            if self._memory is None:
                if not IHMT.store_exists(self.workspace):
                    raise StoreNotFoundError(
                        f"no IHMT store at {IHMT.store_folder(self.workspace)} yet;"
                        " create it in Set up"
                    )
                self._memory = IHMT.open(self.workspace)
                # with semantic search, the store's resident model process, as the MCP server
                # starts it: the agents' prompt hooks get the model while only the GUI is open,
                # and the GUI's first search waits for it rather than load a second copy
                self._memory.share_model()
            return self._memory

    def _switch(self, workspace: Path) -> None:
        self.close()
        self.workspace = workspace

    # -- endpoints: information --------------------------------------------------------------------
    def info(self, query: dict, body: dict) -> dict:
        server = mcp_server_path()
        return {
            "version": __version__,
            "workspace": str(self.workspace),
            "store": str(IHMT.store_folder(self.workspace)),
            "exists": IHMT.store_exists(self.workspace),
            "browse_root": str(self.fence.root),
            "mcp_server": str(server),
            "mcp_server_exists": server.is_file(),
            "read_only": True,
        }

    def overview(self, query: dict, body: dict) -> dict:
        memory = self.memory()
        root = memory.trunk()
        per_domain: dict[str, int] = {}
        for ref in root.get("entries", []):
            per_domain[ref["domain"]] = per_domain.get(ref["domain"], 0) + 1
        domains = [
            {
                "name": name,
                "leaves": info.get("leaves", 0),
                "topics": info.get("topics", [])[:8],
                "date_from": info.get("date_from", ""),
                "date_to": info.get("date_to", ""),
                "entries": per_domain.get(name, 0),
            }
            for name, info in root.get("domains", {}).items()
        ]
        domains.sort(key=lambda d: (-d["leaves"], d["name"]))
        counters = root.get("counters", {})
        return {
            "workspace": str(self.workspace),
            "store": str(memory.path),
            "leaves": counters.get("leaves", 0),
            "branches": counters.get("branches", 0),
            "layers": counters.get("layers", 0),
            "branches_per_layer": counters.get("branches_per_layer", {}),
            "entries": len(root.get("entries", [])),
            "updated_at": root.get("updated_at", ""),
            "domains": domains,
        }

    # -- endpoints: Explore --------------------------------------------------------------------------
    def node(self, query: dict, body: dict) -> dict:
        memory = self.memory()
        node_id = query.get("id") or "root"
        offset, limit = _page(query)
        if node_id == "root":
            domain = query.get("domain") or ""
            refs = [
                r for r in memory.trunk().get("entries", []) if not domain or r["domain"] == domain
            ]
            this = {"id": "root", "kind": "root", "domain": domain}
        else:
            branch = self._branch(memory, node_id)
            refs = branch.get("children", [])
            this = self._ref(branch.get("self", {"id": node_id, "kind": "branch"}))
        page = refs[offset : offset + limit]
        ctx = memory.time_context()
        notes = self._notes(memory)
        return {
            "node": this,
            "total": len(refs),
            "offset": offset,
            "children": [self._ref(r, ctx, notes) for r in page],
        }

    def leaf(self, query: dict, body: dict) -> dict:
        memory = self.memory()
        leaf_id = _node_id(query.get("id"), leaf=True)
        leaf = memory.leaf(leaf_id)
        if leaf is None:
            raise ApiError(404, f"no memory with id {leaf_id}", "no_memory", id=leaf_id)
        outdated = memory.time_context()
        content = leaf.content
        return {
            "id": leaf.leaf_id,
            "content": content[:LEAF_TEXT_MAX],
            "truncated": len(content) > LEAF_TEXT_MAX,
            "chars": len(content),
            "timestamp": leaf.timestamp,
            "data_type": leaf.data_type,
            "domain": leaf.domain,
            "source": leaf.source,
            "source_label": source_label(leaf.source),
            "title": leaf.title,
            "tags": leaf.tags,
            "span": leaf.span,
            "position": leaf.position,
            "oversized": leaf.oversized,
            "path": memory.path_of(leaf.leaf_id),
            "outdated": leaf.leaf_id in outdated.outdated,
            "notices": outdated.outdated.get(leaf.leaf_id, []),
            "notice_codes": self._notes(memory).get(leaf.leaf_id, []),
            "replaced_by": outdated.replaced_by.get(leaf.leaf_id),
        }

    def _branch(self, memory: IHMT, node_id: object) -> dict:
        node_id = _node_id(node_id, leaf=False)
        branch = memory.node(node_id)
        if branch is None:
            raise ApiError(404, f"no branch with id {node_id}", "no_branch", id=node_id)
        return branch

    @staticmethod
    def _ref(ref: dict, ctx=None, notes: dict | None = None) -> dict:
        """A child reference without its scoring internals, plus its OUTDATED state."""
        out = {k: ref[k] for k in REF_FIELDS if k in ref}
        if ref.get("kind") == "leaf" and ctx is not None:
            out["source_label"] = source_label(ref.get("source", ""))
            notices = ctx.outdated.get(ref["id"], [])
            out["outdated"] = bool(notices)
            out["notices"] = notices
            out["notice_codes"] = (notes or {}).get(ref["id"], [])
            out["replaced_by"] = ctx.replaced_by.get(ref["id"])
        return out

    def _notes(self, memory: IHMT) -> dict[str, list[dict]]:
        """Leaf id -> its OUTDATED notices as codes plus parameters (the page words them)."""
        generation = memory.generation()
        cached = self._notes_cache
        if cached is not None and cached[0] == (id(memory), generation):
            return cached[1]
        notes: dict[str, list[dict]] = {}
        for leaf_id, changes in memory.superseded_changes().items():
            notes[leaf_id] = [
                {
                    "code": "fact_changed",
                    "params": {
                        "key": c.key,
                        "old": c.old_value,
                        "old_date": c.old_timestamp,
                        "new": c.new_value,
                        "new_date": c.new_timestamp,
                        "new_leaf": c.new_leaf,
                    },
                }
                for c in changes
            ]
        for fix in memory.corrections():
            notes.setdefault(fix.old_id, []).append(
                {
                    "code": "corrected_by",
                    "params": {
                        "id": fix.new_id,
                        "old_date": fix.old_date,
                        "new_date": fix.new_date,
                    },
                }
            )
        self._notes_cache = ((id(memory), generation), notes)
        return notes

    # -- endpoints: Diagnose -----------------------------------------------------------------------
    def search(self, query: dict, body: dict) -> dict:
        text = body.get("query")
        clue = body.get("clue") or None
        if not isinstance(text, str) or not text.strip():
            raise ApiError(400, "type something to search for", "empty_query")
        if len(text) > QUERY_MAX or (isinstance(clue, str) and len(clue) > QUERY_MAX):
            raise ApiError(
                400, f"the query is longer than {QUERY_MAX} characters", "query_long", n=QUERY_MAX
            )
        top_k = body.get("top_k", 5)
        if not isinstance(top_k, int) or isinstance(top_k, bool) or not 1 <= top_k <= 20:
            raise ApiError(400, "top_k must be a number from 1 to 20", "bad_top_k")
        memory = self.memory()
        started = time.perf_counter()
        result = memory.search(text, top_k=top_k, clue=clue)
        elapsed = time.perf_counter() - started
        counters = memory.trunk().get("counters", {})
        notes = self._notes(memory)
        total_leaves = result.total_leaves or counters.get("leaves", 0)
        total_nodes = result.total_nodes or counters.get("branches", 0)
        hits = [
            {
                "rank": i + 1,
                "id": h.leaf_id,
                "score": round(h.score, 4),
                "path": h.path,
                "timestamp": h.timestamp,
                "domain": h.domain,
                "source": h.source,
                "source_label": source_label(h.source),
                "title": h.title,
                "excerpt": h.excerpt,
                "content": h.content[:4000],
                "outdated": h.outdated,
                "notices": h.notices,
                "notice_codes": notes.get(h.leaf_id, []),
                "matched_terms": h.matched_terms,
                "coverage": round(h.coverage, 3),
            }
            for i, h in enumerate(result.hits)
        ]
        return {
            "query": result.query,
            "clue": result.clue,
            "confidence": round(result.confidence, 3),
            "ambiguous": result.ambiguous,
            "not_found": result.not_found,
            "reason": result.reason,
            "reason_code": result.reason_code,
            "reason_params": result.reason_params,
            "node_reads": result.node_reads,
            "leaf_reads": result.leaf_reads,
            "files_opened": result.node_reads + result.leaf_reads,
            "total_leaves": total_leaves,
            "total_nodes": total_nodes,
            "total_files": total_leaves + total_nodes,
            "depth": result.depth,
            "notices": result.notices,
            "elapsed_ms": round(elapsed * 1000, 1),
            "hits": hits,
            "candidates": [h["id"] for h in hits] if result.ambiguous else [],
            "descent": self._descent(memory, result.hits) if hits else None,
        }

    def _descent(self, memory: IHMT, hits) -> dict:
        """The tree around the hits' paths: each level's children, the path ones expanded."""
        best = hits[0].path
        rank = {h.leaf_id: i + 1 for i, h in enumerate(hits)}
        on_path = {node for h in hits for node in h.path}
        ctx = memory.time_context()
        notes = self._notes(memory)

        def level(node_id: str, depth: int) -> dict:
            if node_id == "root":
                refs = memory.trunk().get("entries", [])
            else:
                try:
                    branch = memory.node(node_id)
                except IHMTError:
                    branch = None
                if branch is None:
                    return {"items": [], "hidden": 0}
                refs = branch.get("children", [])
            items, others = [], 0
            for ref in refs:
                ident = ref["id"]
                if ident not in on_path:
                    others += 1
                    if others > DESCENT_SIBLINGS:
                        continue
                item = self._ref(ref, ctx, notes)
                item["on_path"] = ident in on_path
                item["best"] = ident in best
                item["hit_rank"] = rank.get(ident)
                if item["on_path"] and ref["kind"] == "branch" and depth < 64:
                    item["level"] = level(ident, depth + 1)
                items.append(item)
            return {"items": items, "hidden": max(0, others - DESCENT_SIBLINGS)}

        return {"best_path": best, "root": level("root", 0)}

    # -- endpoints: Timeline ---------------------------------------------------------------------------
    def timeline(self, query: dict, body: dict) -> dict:
        memory = self.memory()
        keys = []
        for key, active in memory.current_facts().items():
            subject, _, attribute = key.partition("::")
            periods = [
                {
                    "value": f.value,
                    "status": f.status,
                    "valid_from": f.valid_from or f.timestamp,
                    "valid_to": f.valid_to,
                    "source_leaf": f.source_leaf,
                    "origin": f.origin,
                    "confirmations": list(f.confirmations or []),
                }
                for f in memory.fact_timeline(key)
            ]
            keys.append(
                {
                    "key": key,
                    "subject": subject,
                    "attribute": attribute,
                    "active": active.value,
                    "since": active.valid_from or active.timestamp,
                    # where the current value comes from, so a wrong one can be traced
                    "source_leaf": active.source_leaf or "",
                    "source_date": active.timestamp or "",
                    "periods": periods,
                }
            )
        changes = [
            {
                "key": c.key,
                "old_value": c.old_value,
                "old_timestamp": c.old_timestamp,
                "new_value": c.new_value,
                "new_timestamp": c.new_timestamp,
                "old_leaf": c.old_leaf,
                "new_leaf": c.new_leaf,
                "notice": c.notice(),
            }
            for c in memory.contradictions()
        ]
        return {
            "now": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "subjects": sorted({k["subject"] for k in keys}),
            "keys": keys,
            "contradictions": changes,
            "facts": len(memory.facts()),
        }

    # -- endpoints: Set up -----------------------------------------------------------------------------
    def fs_list(self, query: dict, body: dict) -> dict:
        offset, limit = _page(query, default=LIST_PAGE, most=LIST_PAGE_MAX)
        hidden = query.get("hidden", "1") != "0"
        return self.fence.listing(query.get("path") or None, offset, limit, hidden)

    def select_memory(self, query: dict, body: dict) -> dict:
        folder = self.fence.check(_text(body, "folder"))
        workspace = IHMT.locate(folder)
        if not IHMT.store_exists(workspace):
            # a folder without a store becomes the active memory only once the user has
            # previewed and confirmed creating one (Set up does that: preview, then confirm)
            raise GuiInputError(
                f"no IHMT store in {workspace}; preview and confirm creating one first",
                "no_store_there",
                path=str(workspace),
            )
        self._switch(workspace)
        return self.info({}, {})

    def setup_snippets(self, query: dict, body: dict) -> dict:
        return snippets(self.workspace)

    def setup_preview(self, query: dict, body: dict) -> dict:
        kind = body.get("kind")
        if kind == "store":
            name = body.get("name") or None
            return self.setup.preview_store(_text(body, "folder"), name)
        if kind == "project":
            replace = body.get("replace", False) is True
            return self.setup.preview_project(_text(body, "folder"), self.workspace, replace)
        if kind == "hooks":
            folder = body.get("folder") or None
            if folder is not None and not isinstance(folder, str):
                raise ApiError(400, '"folder" must be a string', "missing_field", key="folder")
            return self.setup.preview_hooks(
                body.get("agent"), body.get("scope"), body.get("action"), folder, self.workspace
            )
        raise ApiError(400, 'kind must be "store", "project" or "hooks"', "bad_kind")

    def setup_hooks(self, query: dict, body: dict) -> dict:
        return self.setup.hooks_status(query.get("folder") or None)

    def setup_confirm(self, query: dict, body: dict) -> dict:
        preview = self.setup.take(body.get("id"))
        if preview.kind == "store":
            workspace = self.setup.check_store_target(preview)
            memory = IHMT.initialize(workspace)
            memory.close()
            self._switch(workspace)
            return {
                "kind": "store",
                "created": str(IHMT.store_folder(workspace)),
                **self.info({}, {}),
            }
        if preview.kind == "hooks":
            return {"kind": "hooks", **self.setup.apply_hooks(preview)}
        return {"kind": "project", **self.setup.write_project(preview)}


def _error(exc: Exception, code: str, params: dict) -> dict:
    """An error for the page: the English line, plus a code and parameters to word it."""
    return {"error": str(exc), "code": code, "params": params}


def _text(body: dict, key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value:
        raise ApiError(400, f'"{key}" must be a non-empty string', "missing_field", key=key)
    return value


def _node_id(value: object, *, leaf: bool) -> str:
    if not isinstance(value, str) or not NODE_ID.fullmatch(value) or ".." in value:
        raise ApiError(400, "malformed node id", "bad_id")
    if leaf != value.startswith("L-"):
        raise ApiError(400, "malformed node id", "bad_id")
    return value


def _page(query: dict, default: int = 0, most: int = 0) -> tuple[int, int]:
    default, most = default or PAGE_DEFAULT, most or PAGE_MAX
    try:
        offset = int(query.get("offset") or 0)
        limit = int(query.get("limit") or default)
    except ValueError:
        raise ApiError(400, "offset and limit must be numbers", "bad_page") from None
    if offset < 0 or not 1 <= limit <= most:
        raise ApiError(
            400, f"offset must be >= 0 and limit between 1 and {most}", "bad_page", max=most
        )
    return offset, limit
