"""Checks on what a caller gives the facade: a data type, a project or session label."""

from __future__ import annotations

from ..errors import InputError

MEMORY_SOURCE = "memory"  # the source name of memories saved with ``save``


def check_type(data_type: str | None) -> str | None:
    if data_type is None:
        return None
    value = str(data_type).upper()
    valid = ("CODE", "NARRATIVE", "CLINICAL", "PERSONAL", "PROCESS", "GENERIC")
    if value not in valid:
        raise InputError(f"unknown type {data_type!r}; use one of {', '.join(valid)}")
    return value


def label(name: str, value) -> str:
    """A project or session name as stored in a leaf header (one line, bounded)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputError(f"{name} must be text")
    text = " ".join(value.split())
    if len(text) > 300:
        raise InputError(f"{name} is longer than 300 characters")
    return text
