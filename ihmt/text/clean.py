"""Small text clean-ups every layer needs: one-line renderings and storable strings."""

from __future__ import annotations

from .. import re_cache

_CONTROL = re_cache.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SURROGATE = re_cache.compile("[\ud800-\udfff]")


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` on one line: control characters and whitespace runs become one space; cut at
    ``limit`` characters with "…" so a label or excerpt never breaks a line-based answer."""
    flat = " ".join(_CONTROL.sub(" ", str(text or "")).split())
    if limit is None or len(flat) <= limit:
        return flat
    return flat[: max(limit - 1, 0)].rstrip() + "…"


def clean_surrogates(text: str) -> str:
    """Lone surrogates cannot be stored as UTF-8; replace them with U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)
