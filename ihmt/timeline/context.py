"""What time knows about one store: its facts, their resolver and the search's time context.

The facade owns one ``StoreTimeline`` and delegates to it. Facts come from two places: the
catalog (extracted from leaves when they were written) and the durable ``fact`` records
(``record_fact``). Both the resolver and the time context are derived, so each is cached
under the catalog generation it was built from and rebuilt when the store changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..logs import get_logger
from ..models import TimeContext
from ..store.records import fact_records
from ..text.tokenize import terms

if TYPE_CHECKING:
    from ..config import IHMTConfig
    from ..models import MemoryLeaf
    from ..store.catalog import Catalog
    from .resolver import ConflictResolver

log = get_logger("ihmt")


class StoreTimeline:
    """Fact extraction, the fact resolver and the time context of one store."""

    def __init__(self, catalog: Catalog, records: Path, config: IHMTConfig) -> None:
        self.catalog = catalog
        self.records = records
        self.config = config
        self.extract = True  # False for stores that hold no personal facts (project code)
        self._extractor = None
        self._resolver_cache: tuple[int, ConflictResolver] | None = None
        self._time_cache: tuple[int, TimeContext] | None = None

    # -- extraction ----------------------------------------------------------------------------
    def extractor(self):
        """The fact extractor with the configured patterns, built on first use."""
        if self._extractor is None:
            from .patterns import FactExtractor, patterns_from_config

            self._extractor = FactExtractor()
            for pattern in patterns_from_config(self.config.fact_patterns or []):
                self._extractor.add_pattern(
                    pattern.subject, pattern.attribute, pattern.regex, pattern.name
                )
        return self._extractor

    def facts_of_leaf(self, leaf: MemoryLeaf) -> list[dict]:
        """The facts one leaf states (none for code, or when extraction is off)."""
        if not self.extract or leaf.data_type == "CODE":
            return []
        try:
            facts = self.extractor().extract(
                leaf.content, timestamp=leaf.timestamp, source_leaf=leaf.leaf_id
            )
        except Exception as exc:  # extraction must never cost a save
            log.warning("fact extraction failed for %s: %s", leaf.leaf_id, exc)
            return []
        return [f.to_dict() for f in facts]

    # -- the resolver --------------------------------------------------------------------------
    @property
    def resolver(self) -> ConflictResolver:
        generation = self.catalog.generation()
        if self._resolver_cache and self._resolver_cache[0] == generation:
            return self._resolver_cache[1]
        from .facts import Fact
        from .resolver import ConflictResolver

        resolver = ConflictResolver()
        facts = [Fact.from_dict(f) for f in self.catalog.all_facts()]
        facts += [Fact.from_dict(f) for f in fact_records(self.records)]
        resolver.add_many(facts)
        self._resolver_cache = (generation, resolver)
        return resolver

    def adopt(self, resolver: ConflictResolver) -> None:
        """Keep a resolver the writer updated in place as current for this generation (saves
        re-reading every fact from the catalog after each write)."""
        self._resolver_cache = (self.catalog.generation(), resolver)

    # -- what searches read --------------------------------------------------------------------
    def time_context(self) -> TimeContext:
        """What time says about the leaves: which are OUTDATED (with the notices saying why)
        and which replaced which; cached until the store changes."""
        generation = self.catalog.generation()
        if self._time_cache and self._time_cache[0] == generation:
            return self._time_cache[1]
        resolver = self.resolver
        ctx = TimeContext()
        for leaf_id, text in resolver.superseded_leaves().items():
            ctx.outdated.setdefault(leaf_id, []).extend(t for t in text.split("\n") if t)
        ctx.fact_answers = self.fact_answers
        ctx.stale_words = {
            leaf_id: frozenset(terms(" ".join(values)))
            for leaf_id, values in resolver.stale_values().items()
        }
        for old_id, new_id, _created in self.catalog.links():
            ctx.replaced_by[old_id] = new_id
            ctx.outdated.setdefault(old_id, []).append(self.link_notice(old_id, new_id))
        self._time_cache = (generation, ctx)
        return ctx

    def fact_answers(self, text: str) -> list[tuple[str, bool]]:
        """Leaves answering a question about a tracked fact: the value asked for first."""
        from .questions import fact_questions

        resolver = self.resolver
        active = resolver.active_state()
        out: list[tuple[str, bool]] = []
        seen: set[str] = set()
        for question in fact_questions(text, list(active)):
            if question.year is not None:
                wanted = resolver.state_at(f"{question.year}-12-31").get(question.key)
            else:
                wanted = active.get(question.key)
            if wanted is None:
                continue
            timeline = resolver.timeline(question.key)
            # the value's newest telling answers first ("Marta ya vive en Sevilla" after "Marta
            # se muda a Sevilla en junio"): a later memory saying the same thing is the fresher
            # account of it; every telling of the value asked for answers it
            tellings = list(reversed(resolver.period_of(wanted)))
            ordered = tellings + [f for f in reversed(timeline) if f is not wanted]
            for index, fact in enumerate(ordered):
                leaf_id = fact.source_leaf
                if leaf_id and leaf_id not in seen:
                    seen.add(leaf_id)
                    out.append((leaf_id, index < len(tellings)))
        return out

    def link_notice(self, old_id: str, new_id: str) -> str:
        """The OUTDATED notice of an explicit correction ``old_id`` -> ``new_id``."""
        old = self.catalog.leaf_row(old_id) or {}
        new = self.catalog.leaf_row(new_id) or {}
        return (
            f"OUTDATED: the memory of {old.get('timestamp', '')[:10]} ({old_id}) was corrected "
            f"on {new.get('timestamp', '')[:10]} by {new_id}"
        )
