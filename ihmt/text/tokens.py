"""Token budget estimate shared by every chunker and presenter.

Budgets only need to be consistent, not exact, so we use ~4 characters per token.
"""

from __future__ import annotations

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Estimated token count of ``text`` (ceil(len/4); 0 for empty text)."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN
