"""A captured answer keeps the question it answers.

"Redis, on cache-01" alone says nothing a later session can find by asking "which cache do we
use?"; the question the user was answering says what the answer is about. Capture appends it
to the memory: ``(in reply to: "…")`` when the agent asked, ``(in reply to Melanie: "…")``
when another person did (a conversation replayed to the agent, speakers labelled). The agent's
question is part of what the answer is about ("Which TestFlight group?" — "Harbourside
staff"); another person's question is that person's words, about them, so recall reads a
memory without it when it decides whom the memory is about.

The search reads it too: the values of an answer are about what its question asked ("3.12"
answers "Which Python version?"). Its own module, with no patterns to compile, because the
per-prompt hook reads it every time.
"""

from __future__ import annotations

MARK = " (in reply to"
END = '")'
MAX_QUESTION_CHARS = 200
MAX_ASKER_CHARS = 60


def with_question(text: str, question: str, asker: str = "") -> str:
    """``text`` followed by the question it answers (and who asked it, when a person other
    than the agent did), on one line and cut to a short length."""
    question = " ".join(question.split())
    if not question:
        return text
    if len(question) > MAX_QUESTION_CHARS:
        question = question[: MAX_QUESTION_CHARS - 1].rstrip() + "…"
    who = " ".join(asker.replace('"', "").split())[:MAX_ASKER_CHARS]
    return f'{text}{MARK}{" " + who if who else ""}: "{question}{END}'


def own_words(content: str) -> str:
    """A memory's text without a question another person asked (module doc); an agent's
    question stays."""
    if not content.endswith(END):
        return content
    cut = content.rfind(MARK)
    if cut <= 0 or content.startswith(': "', cut + len(MARK)):
        return content
    return content[:cut]


def split_reply(content: str) -> tuple[str, str]:
    """(the answer, the question it answers) of a captured reply; (content, "") otherwise."""
    if not content.endswith(END):
        return content, ""
    cut = content.rfind(MARK)
    if cut <= 0:
        return content, ""
    opening = content.find(': "', cut)
    if opening < 0:
        return content, ""
    return content[:cut], content[opening + 3 : -len(END)]


def without_question(content: str) -> str:
    """A memory's text without the question it answers, whoever asked it."""
    return split_reply(content)[0]
