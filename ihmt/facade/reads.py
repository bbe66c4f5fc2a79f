"""Read models: what presenters and services read instead of the facade's collaborators.

Presenters (CLI, MCP, GUI, hooks) and services (sync, projects) read the memory through these,
never through ``tree``, ``catalog``, ``store``, ``resolver`` or ``layout``: those are the
facade's own collaborators and may change shape. A mixin of :class:`ihmt.api.IHMT`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..models import MemoryLeaf

if TYPE_CHECKING:
    from ..timeline.facts import Fact


@dataclass(frozen=True)
class Correction:
    """One explicit correction: ``old_id`` was replaced by ``new_id`` (dates of both)."""

    old_id: str
    new_id: str
    created: str
    old_date: str
    new_date: str


class ReadModels:
    """Trunk, nodes, leaves, corrections, facts and their timeline."""

    # -- Read models for presenters and services ----------------------------------------------
    # Presenters (CLI, MCP, GUI, hooks) and services (sync, projects) read the memory through
    # these, never through ``tree``, ``catalog``, ``store``, ``resolver`` or ``layout``: those
    # are this class's own collaborators and may change shape.
    def exists(self) -> bool:
        """Whether the store's folder is still on disk (a server may outlive a deleted store)."""
        return self.layout.exists()

    def generation(self) -> int:
        """A number that changes whenever anything in the store changes (for presenter caches)."""
        return self.catalog.generation()

    def trunk(self) -> dict:
        """The trunk record: ``entries`` (top references), ``domains``, ``counters``,
        ``updated_at``."""
        return self.tree.read_root()

    def node(self, node_id: str) -> dict | None:
        """One branch (``self`` and ``children`` references), or None when no such branch."""
        if self.catalog.branch_row(node_id) is None:
            return None
        return self.tree.read_branch(node_id)

    def outline(self, depth: int) -> dict:
        """The trunk with each branch reference's child references under ``expanded``, down to
        ``depth`` levels (1 = the top entries only)."""
        root = self.tree.read_root()

        def expand(ref: dict, level: int) -> dict:
            if ref.get("kind") != "branch" or level >= depth:
                return ref
            children = self.tree.read_branch(ref["id"]).get("children", [])
            return {**ref, "expanded": [expand(c, level + 1) for c in children]}

        return {**root, "entries": [expand(r, 1) for r in root.get("entries", [])]}

    def leaf(self, leaf_id: str) -> MemoryLeaf | None:
        """One memory by id, or None when it does not exist (or cannot be read)."""
        return self.store.read_leaf(leaf_id)

    def recent_memories(self, limit: int) -> list[MemoryLeaf]:
        """The newest memories saved with ``save`` (not ingested documents), newest first."""
        rows = sorted(
            self.catalog.leaves_of_source("memory"),
            key=lambda r: r.get("timestamp") or "",
            reverse=True,
        )[: max(0, limit)]
        return [leaf for leaf in (self.store.read_leaf(r["id"]) for r in rows) if leaf]

    def corrections(self) -> list[Correction]:
        """Every explicit correction (``replaces`` / ``mark_outdated``), oldest first."""
        out = []
        for old_id, new_id, created in sorted(self.catalog.links(), key=lambda x: x[2]):
            old = self.catalog.leaf_row(old_id) or {}
            new = self.catalog.leaf_row(new_id) or {}
            out.append(
                Correction(
                    old_id,
                    new_id,
                    created,
                    old.get("timestamp", "") or "",
                    new.get("timestamp", "") or "",
                )
            )
        return out

    def facts(self, subject: str | None = None) -> list[Fact]:
        """Every tracked fact (of one subject, or all), with its status."""
        return self.resolver.facts(subject)

    def current_facts(self) -> dict[str, Fact]:
        """The value in force for each fact key (``subject::attribute``)."""
        return self.resolver.active_state()

    def facts_as_of(self, date: str) -> dict[str, Fact]:
        """The value each fact key had on ``date`` (YYYY-MM-DD)."""
        return self.resolver.state_at(date)

    def fact_timeline(self, key: str) -> list[Fact]:
        """Every value one fact key has had, oldest first."""
        return self.resolver.timeline(key)

    def contradictions(self, subject: str | None = None) -> list:
        """Each change of a fact's value over time (old, new, dates, source memories)."""
        return self.resolver.contradictions(subject)

    def superseded_changes(self) -> dict[str, list]:
        """Leaf id -> the fact changes that make it OUTDATED."""
        return self.resolver.superseded_changes()
