"""Dated facts and the contradictions between them.

A fact is one (subject, attribute) = value claim made at a moment in time. Facts are never
edited away: when a value changes, the older fact stays as HISTORICAL so questions about the
past keep their answer. These are plain dataclasses so presenters can serialise them as-is.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from ihmt.errors import InputError

from .. import re_cache

_SPACES = re_cache.compile(r"\s+")
# The one timestamp form stored; it sorts chronologically as a plain string.
TIMESTAMP_RE = re_cache.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
_TRAILING_PUNCT = ".,;:!?¡¿\"'`()[]{}«»“”‘’"


class FactStatus:
    """The two states of a fact in its timeline (plain strings, so JSON stays trivial)."""

    ACTIVE = "ACTIVE"
    HISTORICAL = "HISTORICAL"
    ALL = (ACTIVE, HISTORICAL)


class FactOrigin:
    """Where a fact came from: a pattern over ingested text, or an explicit record_fact call."""

    EXTRACTED = "extracted"
    RECORDED = "recorded"
    ALL = (EXTRACTED, RECORDED)


@lru_cache(maxsize=4096)
def fold(text: str) -> str:
    """Comparison form of a value: case-, accent- and spacing-insensitive.

    'Valencia', ' valéncia ' and 'VALENCIA.' all fold to 'valencia', so retyping a value
    with different capitalisation is a confirmation rather than a contradiction.
    """
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    collapsed = _SPACES.sub(" ", text.casefold()).strip()
    return collapsed.strip(_TRAILING_PUNCT).strip()


def canonical_timestamp(value: Any) -> str:
    """ISO 'YYYY-MM-DDTHH:MM:SSZ' for any timestamp the dates module understands.

    Canonical strings sort chronologically, which is what the timelines rely on.
    """
    if isinstance(value, str) and TIMESTAMP_RE.fullmatch(value.strip()):
        try:
            datetime.fromisoformat(value.strip()[:19])  # C-fast validity check
            return value.strip()
        except ValueError:
            raise InputError(f"invalid timestamp {value[:40]!r}; not a real date/time") from None
    from ihmt.text.dates import normalize_timestamp  # lazy: keep import time small

    try:
        result = normalize_timestamp(value)
    except Exception:  # a parser bug must not turn bad input into a traceback
        result = None
    if not result:
        raise InputError(f"invalid timestamp {str(value)[:40]!r}; use ISO form such as 2024-03-11")
    return result


def make_key(subject: str, attribute: str) -> str:
    """The timeline key shared by every fact about one (subject, attribute)."""
    return f"{subject}::{attribute}"


def key_label(key: str) -> str:
    """Human form of a key: 'user::location' -> 'user location'."""
    subject, sep, attribute = key.partition("::")
    return f"{subject} {attribute}" if sep else key


def _day(timestamp: str) -> str:
    """The YYYY-MM-DD part of an ISO timestamp (notices speak in days, not seconds)."""
    return timestamp[:10]


@dataclass
class Fact:
    """One dated claim; status and validity fields are derived by the resolver."""

    subject: str
    attribute: str
    value: str
    timestamp: str
    source_leaf: str | None = None
    origin: str = FactOrigin.EXTRACTED
    status: str = FactStatus.ACTIVE
    superseded_by: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    confirmations: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return make_key(self.subject, self.attribute)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict; from_dict(to_dict()) gives an equal fact."""
        return {
            "subject": self.subject,
            "attribute": self.attribute,
            "value": self.value,
            "timestamp": self.timestamp,
            "source_leaf": self.source_leaf,
            "origin": self.origin,
            "status": self.status,
            "superseded_by": self.superseded_by,
            "valid_from": self.valid_from,
            "valid_to": self.valid_to,
            "confirmations": list(self.confirmations),
        }

    @classmethod
    def from_dict(cls, data: Any) -> Fact:
        """Rebuild a fact from to_dict() output; a malformed dict raises InputError."""
        if not isinstance(data, dict):
            raise InputError(f"fact must be a JSON object, got {type(data).__name__}")
        for name in ("subject", "attribute", "value", "timestamp"):
            if not isinstance(data.get(name), str) or not data[name].strip():
                raise InputError(f"fact field {name!r} must be a non-empty string")
        for name in ("source_leaf", "superseded_by", "valid_from", "valid_to"):
            if data.get(name) is not None and not isinstance(data[name], str):
                raise InputError(f"fact field {name!r} must be a string or null")
        origin = data.get("origin", FactOrigin.EXTRACTED)
        if origin not in FactOrigin.ALL:
            raise InputError(f"fact origin must be one of {FactOrigin.ALL}, got {origin!r}")
        status = data.get("status", FactStatus.ACTIVE)
        if status not in FactStatus.ALL:
            raise InputError(f"fact status must be one of {FactStatus.ALL}, got {status!r}")
        confirmations = data.get("confirmations") or []
        if not isinstance(confirmations, list) or not all(
            isinstance(item, str) for item in confirmations
        ):
            raise InputError("fact field 'confirmations' must be a list of strings")
        return cls(
            subject=data["subject"],
            attribute=data["attribute"],
            value=data["value"],
            timestamp=data["timestamp"],
            source_leaf=data.get("source_leaf"),
            origin=origin,
            status=status,
            superseded_by=data.get("superseded_by"),
            valid_from=data.get("valid_from"),
            valid_to=data.get("valid_to"),
            confirmations=list(confirmations),
        )


@dataclass
class Contradiction:
    """A genuine change of value in one timeline: what was said, and what replaced it."""

    key: str
    old_value: str
    old_timestamp: str
    new_value: str
    new_timestamp: str
    old_leaf: str | None = None
    new_leaf: str | None = None

    def notice(self) -> str:
        """The sentence relayed to the user, e.g.

        "On 2024-03-11 you said user location = 'Madrid', but on 2026-02-03 you updated to
        'Valencia'."
        """
        return (
            f"On {_day(self.old_timestamp)} you said {key_label(self.key)} = "
            f"'{self.old_value}', but on {_day(self.new_timestamp)} you updated to "
            f"'{self.new_value}'."
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "old_value": self.old_value,
            "old_timestamp": self.old_timestamp,
            "new_value": self.new_value,
            "new_timestamp": self.new_timestamp,
            "old_leaf": self.old_leaf,
            "new_leaf": self.new_leaf,
            "notice": self.notice(),
        }
