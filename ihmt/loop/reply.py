"""A captured answer keeps the question it answers.

"Redis, on cache-01" alone says nothing a later session can find by asking "which cache do we
use?"; the question the user was answering says what the answer is about. Capture appends it
to the memory as ``(in reply to: "…")``; recall reads a memory's own words without it when it
decides whom a memory is about, because the question is someone else's words.

Its own module, with no patterns to compile, because the per-prompt hook reads it every time.
"""

from __future__ import annotations

MARK = ' (in reply to: "'
END = '")'
MAX_QUESTION_CHARS = 200


def with_question(text: str, question: str) -> str:
    """``text`` followed by the question it answers, on one line and cut to a short length."""
    question = " ".join(question.split())
    if not question:
        return text
    if len(question) > MAX_QUESTION_CHARS:
        question = question[: MAX_QUESTION_CHARS - 1].rstrip() + "…"
    return f"{text}{MARK}{question}{END}"


def own_words(content: str) -> str:
    """A memory's text without the question capture appended to it (module doc)."""
    if not content.endswith(END):
        return content
    cut = content.rfind(MARK)
    return content[:cut] if cut > 0 else content
