"""Where everything lives inside a store, and how a user-given path maps to it.

W/ihmt_memory/
  root.json                 trunk: domains, topics, top-level entries, counters
  layer_0/<domain>/*.txt    leaves (the truth)
  layers/N/*.json           branches (derived)
  records/*.json            durable decisions that are not in any leaf: recorded facts,
                            OUTDATED links, forget tombstones (immutable, one file each)
  state/catalog.sqlite3     derived index: id -> path, domain, parent, timestamp; term df
  state/facts.json          readable export of the fact timeline (derived)
  state/write.lock          the store-wide write lock
  ihmt.config.json          settings
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

from .. import re_cache
from ..config import default_workspace

STORE_DIRNAME = "ihmt_memory"


def resolve_workspace(path: str | os.PathLike | None) -> Path:
    """Accept the workspace W or the store folder W/ihmt_memory itself."""
    base = Path(path).expanduser() if path is not None else default_workspace()
    base = base.absolute()
    if (
        base.name == STORE_DIRNAME
        or (base / "root.json").is_file()
        and not (base / STORE_DIRNAME).exists()
    ):
        return base.parent
    return base


def holds_store(folder: str | os.PathLike) -> bool:
    """``StoreLayout(resolve_workspace(folder)).exists()`` with plain string paths: the GUI asks
    it of every folder on a page of a listing, where building Path objects was most of the
    cost (and of the time other requests waited for the interpreter)."""
    path = os.path.abspath(os.path.expanduser(os.fspath(folder)))
    workspace = path
    if os.path.basename(path) == STORE_DIRNAME or (
        os.path.isfile(os.path.join(path, "root.json"))
        and not os.path.exists(os.path.join(path, STORE_DIRNAME))
    ):
        workspace = os.path.dirname(path)
    store = os.path.join(workspace, STORE_DIRNAME)
    return os.path.isfile(os.path.join(store, "root.json")) or os.path.isfile(
        os.path.join(store, "ihmt.config.json")
    )


_UNSAFE = re_cache.compile(r"[^A-Za-z0-9._-]+")


@functools.lru_cache(maxsize=256)
def domain_dirname(domain: str) -> str:
    """A folder name for a domain that is safe on every file system."""
    name = _UNSAFE.sub("_", domain).strip("._") or "general"
    return name[:80]


@dataclass(frozen=True)
class StoreLayout:
    workspace: Path

    @property
    def root(self) -> Path:
        return self.workspace / STORE_DIRNAME

    @property
    def root_json(self) -> Path:
        return self.root / "root.json"

    @property
    def config(self) -> Path:
        return self.root / "ihmt.config.json"

    @property
    def layer0(self) -> Path:
        return self.root / "layer_0"

    @property
    def layers(self) -> Path:
        return self.root / "layers"

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def records(self) -> Path:
        return self.root / "records"

    @property
    def catalog(self) -> Path:
        return self.state / "catalog.sqlite3"

    @property
    def facts_json(self) -> Path:
        return self.state / "facts.json"

    @property
    def lock(self) -> Path:
        return self.state / "write.lock"

    def leaf_path(self, domain: str, leaf_id: str) -> Path:
        return Path(os.path.join(self.layer0, domain_dirname(domain), leaf_id + ".txt"))

    def branch_path(self, layer: int, branch_id: str) -> Path:
        return self.layers / str(layer) / f"{branch_id}.json"

    def relative(self, path: Path) -> str:
        text = os.fspath(path)
        root = os.fspath(self.root) + os.sep
        if text.startswith(root):
            return text[len(root) :].replace(os.sep, "/")
        return Path(path).relative_to(self.root).as_posix()

    def exists(self) -> bool:
        return self.root_json.is_file() or self.config.is_file()
