"""ConflictResolver: one dated timeline per (subject, attribute), with supersession.

Every timeline is recomputed from its facts sorted by (timestamp, insertion order), so the
result does not depend on the order in which facts arrive: an old journal entry ingested
after a newer one lands in its right place. Consecutive equal values (compared folded) form
one value period; its first fact is the period's representative and lists the later repeats
as confirmations. Each change between periods is a Contradiction. Nothing is deleted except
through remove_leaf, which exists so a forgotten or replaced leaf takes its facts with it.

The resolver is pure and in-memory; persistence (state/facts.json) is the caller's job via
to_list() / from_list().
"""

from __future__ import annotations

import bisect
import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ihmt.errors import InputError
from ihmt.timeline.facts import (
    TIMESTAMP_RE,
    Contradiction,
    Fact,
    FactOrigin,
    FactStatus,
    canonical_timestamp,
    fold,
    make_key,
)

from .. import re_cache

_PLAIN_DATE = re_cache.compile(r"\d{4}-\d{2}-\d{2}")
_SPACES = re_cache.compile(r"\s+")


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _date_cutoff(date: Any) -> str:
    """The last instant a state_at(date) query covers: end of the day for a plain date."""
    if isinstance(date, dt.date) and not isinstance(date, dt.datetime):
        return f"{date.isoformat()}T23:59:59Z"
    if isinstance(date, str) and _PLAIN_DATE.fullmatch(date.strip()):
        return f"{date.strip()}T23:59:59Z"
    if isinstance(date, str) and not TIMESTAMP_RE.fullmatch(date.strip()):
        from ihmt.text.dates import parse_date

        try:
            day = parse_date(date)
        except Exception:
            day = None
        if day and not re.search(r"\d{1,2}:\d{2}", date):
            return f"{day}T23:59:59Z"
    return canonical_timestamp(date)


def _clean_name(text: Any, what: str) -> str:
    """Subjects and attributes are folded, so 'Producción' and 'produccion' share a key."""
    folded = fold(text) if isinstance(text, str) else ""
    if not folded:
        raise InputError(f"fact {what} must be a non-empty string")
    if "::" in folded:
        raise InputError(f"fact {what} must not contain '::': {text.strip()[:60]!r}")
    return folded


def _clean_value(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError("fact value must be a non-empty string")
    return _SPACES.sub(" ", value).strip()


def _normalize_key(key: str) -> str:
    subject, _, attribute = str(key).partition("::")
    return make_key(fold(subject), fold(attribute))


@dataclass
class _Entry:
    seq: int
    fact: Fact
    folded: str  # fold(fact.value), computed once: folding dominates recompute time


_Signature = tuple[str, str, str, str, str]  # key, old folded, old ts, new folded, new ts


def _mark(fact: Fact) -> tuple[str, str, str, str | None]:
    """Identity of a fact for de-duplication: key, folded value, timestamp, leaf."""
    return (fact.key, fold(fact.value), fact.timestamp, fact.source_leaf)


def _chronological(change: Contradiction) -> tuple[str, str, str]:
    return (change.new_timestamp, change.old_timestamp, change.key)


def _same_or_refined(old: str, new: str) -> bool:
    """One value, perhaps said more or less precisely: "PostgreSQL" and "PostgreSQL 15.4" do
    not contradict each other, so neither supersedes the other (a runbook naming the product
    must not turn the exact version into history)."""
    return old == new or new.startswith(old + " ") or old.startswith(new + " ")


class ConflictResolver:
    """All known facts, grouped into per-key timelines with ACTIVE/HISTORICAL status."""

    def __init__(self) -> None:
        self._entries: dict[str, list[_Entry]] = {}  # per key, sorted by (timestamp, seq)
        self._periods: dict[str, list[list[_Entry]]] = {}  # runs of equal (folded) values
        self._changes: dict[str, list[Contradiction]] = {}
        self._signatures: dict[str, list[_Signature]] = {}  # parallel to _changes
        self._marks: set[tuple[str, str, str, str | None]] = set()
        self._seq = 0

    # ----------------------------------------------------------------- adding facts

    def add(self, fact: Fact) -> list[Contradiction]:
        """Add one fact; return the contradictions it introduces (often none).

        Subject/attribute are folded (lower case, no accents), the timestamp made canonical.
        Adding a fact identical to a stored one (same key, value, timestamp and leaf) is a
        no-op, so re-ingesting or rebuilding does not invent confirmations.
        """
        return self.add_many([fact])

    def add_many(self, facts: Iterable[Fact]) -> list[Contradiction]:
        """Add several facts at once; return the contradictions they introduced, chronological.

        All facts are validated before any is stored. A fact newer than everything in its
        timeline (the usual case) is appended in O(1); an older one marks the timeline for
        a single full recompute at the end of the batch.
        """
        batch = [self._prepare(fact) for fact in facts]
        touched: dict[str, int] = {}  # key -> number of changes it had before this batch
        stale: set[str] = set()
        for fact in batch:
            mark = _mark(fact)
            if mark in self._marks:
                continue
            self._marks.add(mark)
            self._seq += 1
            key = fact.key
            entry = _Entry(self._seq, fact, mark[1])
            entries = self._entries.setdefault(key, [])
            touched.setdefault(key, len(self._changes.get(key, ())))
            if key in stale or (entries and fact.timestamp < entries[-1].fact.timestamp):
                entries.append(entry)
                stale.add(key)
            else:
                entries.append(entry)
                self._append(key, entry)
        introduced: list[Contradiction] = []
        for key, before in touched.items():
            if key in stale:
                known = set(self._signatures.get(key, [])[:before])
                self._recompute(key)
                pairs = zip(self._changes[key], self._signatures[key], strict=True)
                introduced.extend(change for change, sig in pairs if sig not in known)
            else:
                introduced.extend(self._changes[key][before:])
        introduced.sort(key=_chronological)
        return introduced

    @staticmethod
    def _prepare(fact: Any) -> Fact:
        if not isinstance(fact, Fact):
            raise InputError(f"expected a Fact, got {type(fact).__name__}")
        fact.subject = _clean_name(fact.subject, "subject")
        fact.attribute = _clean_name(fact.attribute, "attribute")
        fact.value = _clean_value(fact.value)
        fact.timestamp = canonical_timestamp(fact.timestamp)
        if fact.origin not in FactOrigin.ALL:
            raise InputError(f"fact origin must be one of {', '.join(FactOrigin.ALL)}")
        if fact.source_leaf is not None and not isinstance(fact.source_leaf, str):
            raise InputError("fact source_leaf must be a string or None")
        return fact

    def record_fact(
        self,
        subject: str,
        attribute: str,
        value: str,
        timestamp: str | None = None,
        source_leaf: str | None = None,
    ) -> list[Contradiction]:
        """Record a fact stated explicitly (not pattern-extracted); timestamp defaults to now."""
        fact = Fact(
            subject=_clean_name(subject, "subject"),
            attribute=_clean_name(attribute, "attribute"),
            value=_clean_value(value),
            timestamp=_now() if timestamp is None else canonical_timestamp(timestamp),
            source_leaf=source_leaf,
            origin=FactOrigin.RECORDED,
        )
        return self.add(fact)

    def remove_leaf(self, leaf_id: str) -> int:
        """Drop the facts extracted from a forgotten/replaced leaf; return how many went."""
        removed = 0
        for key in list(self._entries):
            entries = self._entries[key]
            kept = [entry for entry in entries if entry.fact.source_leaf != leaf_id]
            if len(kept) == len(entries):
                continue
            removed += len(entries) - len(kept)
            for entry in entries:
                if entry.fact.source_leaf == leaf_id:
                    self._marks.discard((key, entry.folded, entry.fact.timestamp, leaf_id))
            if kept:
                self._entries[key] = kept
                self._recompute(key)
            else:
                for table in (self._entries, self._periods, self._changes, self._signatures):
                    table.pop(key, None)
        return removed

    # ------------------------------------------------------------------ derivation

    @staticmethod
    def _open_period(entry: _Entry) -> None:
        fact = entry.fact
        fact.status = FactStatus.ACTIVE
        fact.superseded_by = None
        fact.valid_from = fact.timestamp
        fact.valid_to = None
        fact.confirmations = []

    @staticmethod
    def _close_period(period: list[_Entry], successor: Fact) -> None:
        for entry in period:
            entry.fact.status = FactStatus.HISTORICAL
            entry.fact.superseded_by = successor.value
            entry.fact.valid_to = successor.timestamp

    def _record_change(self, key: str, old: _Entry, new: _Entry) -> None:
        self._changes.setdefault(key, []).append(
            Contradiction(
                key=key,
                old_value=old.fact.value,
                old_timestamp=old.fact.timestamp,
                new_value=new.fact.value,
                new_timestamp=new.fact.timestamp,
                old_leaf=old.fact.source_leaf,
                new_leaf=new.fact.source_leaf,
            )
        )
        self._signatures.setdefault(key, []).append(
            (key, old.folded, old.fact.timestamp, new.folded, new.fact.timestamp)
        )

    def _append(self, key: str, entry: _Entry) -> None:
        """Extend a timeline with a fact newer than all its others (no re-sorting needed)."""
        periods = self._periods.setdefault(key, [])
        self._changes.setdefault(key, [])
        self._signatures.setdefault(key, [])
        self._open_period(entry)
        if periods and all(_same_or_refined(e.folded, entry.folded) for e in periods[-1]):
            periods[-1][0].fact.confirmations.append(entry.fact.timestamp)
            periods[-1].append(entry)
            return
        if periods:
            self._close_period(periods[-1], entry.fact)
            # the old value as precisely as it was said ("PostgreSQL 15.4", not "PostgreSQL")
            said = max(periods[-1], key=lambda e: len(e.folded))
            self._record_change(key, said, entry)
        periods.append([entry])

    def _recompute(self, key: str) -> None:
        """Rebuild one timeline from scratch: status, validity, confirmations, changes."""
        entries = sorted(self._entries[key], key=lambda entry: (entry.fact.timestamp, entry.seq))
        self._entries[key] = entries
        self._periods[key] = []
        self._changes[key] = []
        self._signatures[key] = []
        for entry in entries:
            self._append(key, entry)

    def _keys(self, subject: str | None) -> list[str]:
        if subject is None:
            return sorted(self._periods)
        wanted = fold(str(subject))
        return sorted(key for key in self._periods if key.partition("::")[0] == wanted)

    # -------------------------------------------------------------------- queries

    def timeline(self, key: str) -> list[Fact]:
        """One fact per value period of a key, oldest first (repeats are in .confirmations)."""
        return [period[0].fact for period in self._periods.get(_normalize_key(key), [])]

    def period_of(self, fact: Fact) -> list[Fact]:
        """The facts of ``fact``'s value period (the first and its repeats), oldest first."""
        for period in self._periods.get(_normalize_key(fact.key), []):
            if any(entry.fact is fact for entry in period):
                return [entry.fact for entry in period]
        return [fact]

    def active_state(self) -> dict[str, Fact]:
        """key -> the ACTIVE fact (the newest value period's first fact)."""
        return {key: self._periods[key][-1][0].fact for key in sorted(self._periods)}

    def state_at(self, date: str) -> dict[str, Fact]:
        """key -> the fact valid at the end of that date; keys not yet known are absent."""
        cutoff = _date_cutoff(date)
        state: dict[str, Fact] = {}
        for key in sorted(self._periods):
            periods = self._periods[key]
            starts = [period[0].fact.timestamp for period in periods]
            index = bisect.bisect_right(starts, cutoff) - 1
            if index >= 0:
                state[key] = periods[index][0].fact
        return state

    def contradictions(self, subject: str | None = None) -> list[Contradiction]:
        """Every genuine change in every timeline (or one subject's), chronological."""
        found = [change for key in self._keys(subject) for change in self._changes[key]]
        found.sort(key=_chronological)
        return found

    def notices(self, subject: str | None = None) -> list[str]:
        """The user-facing sentence for each contradiction, chronological."""
        return [change.notice() for change in self.contradictions(subject)]

    def facts(self, subject: str | None = None) -> list[Fact]:
        """Every stored fact (repeats included), grouped by key, oldest first."""
        return [entry.fact for key in self._keys(subject) for entry in self._entries[key]]

    def _replaced(self):
        """(change, entry) for every fact a later value from another leaf replaced (a leaf
        that itself states the newer value is not counted as replaced)."""
        for key in sorted(self._periods):
            periods = self._periods[key]
            for index, change in enumerate(self._changes[key]):
                newer_leaves = {entry.fact.source_leaf for entry in periods[index + 1]}
                for entry in periods[index]:
                    leaf = entry.fact.source_leaf
                    if leaf is not None and leaf not in newer_leaves:
                        yield change, entry

    def superseded_leaves(self) -> dict[str, str]:
        """Leaf id -> notice(s) for leaves whose fact a different value from another leaf replaced.

        Search attaches these to outdated hits so old material arrives with its correction.
        Several notices for one leaf are joined with newlines.
        """
        notes: dict[str, dict[str, None]] = {}
        for change, entry in self._replaced():
            notes.setdefault(entry.fact.source_leaf, {})[change.notice()] = None
        return {leaf: "\n".join(texts) for leaf, texts in sorted(notes.items())}

    def superseded_changes(self) -> dict[str, list[Contradiction]]:
        """Leaf id -> the changes that replaced a fact it stated: superseded_leaves() before
        wording, for presenters that word the notice in another language."""
        out: dict[str, list[Contradiction]] = {}
        for change, entry in self._replaced():
            found = out.setdefault(entry.fact.source_leaf, [])
            if change not in found:
                found.append(change)
        return out

    def stale_values(self) -> dict[str, set[str]]:
        """Leaf id -> the replaced values it states, for the leaves that also state a value
        that is still current ("I moved to Valencia and work at Acme" once the move to
        Lisbon is known): such a leaf is out of date only about those values, so search
        flags it OUTDATED only for questions that touch them."""
        current = {e.fact.source_leaf for periods in self._periods.values() for e in periods[-1]}
        out: dict[str, set[str]] = {}
        for _change, entry in self._replaced():
            if entry.fact.source_leaf in current:
                out.setdefault(entry.fact.source_leaf, set()).add(entry.fact.value)
        return out

    def __len__(self) -> int:
        return sum(len(entries) for entries in self._entries.values())

    # ---------------------------------------------------------------- persistence

    def to_list(self) -> list[dict[str, Any]]:
        """Every fact as a JSON-safe dict, in insertion order (which breaks timestamp ties)."""
        entries = [entry for group in self._entries.values() for entry in group]
        entries.sort(key=lambda entry: entry.seq)
        return [entry.fact.to_dict() for entry in entries]

    @classmethod
    def from_list(cls, items: Iterable[Any]) -> ConflictResolver:
        """Rebuild a resolver from to_list() output; a malformed item raises InputError."""
        if isinstance(items, (str, bytes, dict)) or not isinstance(items, Iterable):
            raise InputError("facts must be a list of fact objects")
        facts: list[Fact] = []
        for index, item in enumerate(items):
            try:
                facts.append(cls._prepare(Fact.from_dict(item)))
            except InputError as exc:
                raise InputError(f"fact #{index}: {exc}") from None
        resolver = cls()
        resolver.add_many(facts)
        return resolver
