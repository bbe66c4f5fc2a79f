"""Make stored text safe to print on a terminal.

A memory is untrusted bytes: an ESC [2J in it would clear the user's screen, an OSC sequence
would retitle the terminal, a bidi override would reorder what the user reads. Text meant for
a terminal therefore shows every such character as a visible escape (ESC -> ``\\x1b``,
RIGHT-TO-LEFT OVERRIDE -> ``\\u202e``); newline and tab stay as they are. JSON output keeps the
exact text: ``json_safe`` only writes the same characters as JSON ``\\u`` escapes, which a
JSON reader turns back into the original string.
"""

from __future__ import annotations

import re

from .. import re_cache

# C0 controls except tab and newline, DEL, C1 controls, bidi embeddings/overrides/isolates,
# and lone surrogates (they cannot even be encoded for output).
_UNSAFE = re_cache.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# What json.dumps(ensure_ascii=False) leaves raw although a terminal may act on it.
_JSON_UNSAFE = re_cache.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every terminal control character (but newline and tab) made visible."""
    return _UNSAFE.sub(_visible, text)


def json_safe(encoded: str) -> str:
    """JSON text from ``json.dumps(..., ensure_ascii=False)`` with the controls that JSON
    leaves raw (DEL, C1, bidi controls, lone surrogates) written as ``\\u`` escapes; the decoded value is
    unchanged, because outside strings JSON text never holds these characters."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", encoded)


__all__ = ["json_safe", "terminal_safe"]
