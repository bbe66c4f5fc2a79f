"""What in a session a later session needs: the heuristic extractor.

Kept from the user: statements (not questions, not requests to do something now) that say
something durable — a fact about themselves, their setup or their project, a preference, a
decision, a correction. "fix this test" or "can you run the linter?" is work for this
session, not memory. A request is kept when it sets a rule ("always …", "never …", "from now
on …", "prefer …").

Kept from the agent: its explanation of a decision, when the user's next message accepts it
("ok", "sounds good", "yes, do that").

Each kept piece becomes one memory: the kept sentences of one message, dated by the message.
When the message answers a question someone else asked just before (the agent's "which cache
should we use?", or another speaker's in a conversation), the question is kept with it
(``reply.py``): "Redis, on cache-01" is found by what it answers.
A correction ("actually …", "no, it's …", "correction: …") is marked, so capture saves it
with ``replaces`` and the time machinery flags the old memory OUTDATED.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .patterns import ACK, CORRECTION, DECISION, RULE
from .reply import with_question
from .transcript import Turn

MIN_WORDS = 4
MAX_MEMORY_CHARS = 1200

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z¿¡0-9])|\n+")
_REQUEST = re.compile(
    r"^\s*(please\s+)?(can|could|would|will) you\b|^\s*(please\s+)?(fix|add|run|make|show|"
    r"write|update|refactor|change|remove|delete|create|implement|check|look|explain|try|"
    r"tell|give|find|list|rename|move|debug|test|build|install|open|read|use|help|let's|"
    r"lets|go|continue|do|commit|push|review|summarize|describe)\b",
    re.I,
)
_REJECT = re.compile(r"^\s*(no\b|nope|don't|do not|wait|stop|hmm|not)", re.I)
_EXPLAINS = re.compile(
    r"\b(because|so that|since|the reason|i chose|i picked|i went with|i'll use|i will use|"
    r"i decided|decided to|instead of|rather than|trade-?off)\b",
    re.I,
)
_FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'd|my|me|we|we're|we've|our|us|mine)\b", re.I)
_STATEMENT = re.compile(
    r"\b(is|are|was|were|has|have|had|runs|uses|lives|works|went|got|been|will|would|can|"
    r"could|should|must|do|does|did|looks|feels|means|stands|seems|loves?|likes?|hates?|"
    r"wants?|needs?|plans?|hopes?|started|finished|joined|visited|moved|bought|made|took|"
    r"\w+'(s|re|ve|ll|d))\b",
    re.I,
)
# a sentence about the listener and not the speaker ("you'd be a great counselor", "combining
# your two interests is cool") says nothing a later session needs about the speaker's world
_LISTENER = re.compile(r"\b(you|your|yours|you're|you've|you'd|you'll)\b", re.I)
# "Caroline: I went …": a message that names its speaker keeps the name on what is kept
_SPEAKER = re.compile(r"^\s*([A-Z][\w'.-]{1,30}(?: [A-Z][\w'.-]{1,30})?):[ \t]+(?=\S)")
_NOT_SPEAKERS = {
    "note",
    "correction",
    "update",
    "edit",
    "fyi",
    "ps",
    "todo",
    "error",
    "warning",
    "actually",
    "re",
    "q",
    "a",
    "question",
    "answer",
    "important",
    "summary",
    "context",
    "nb",
    "tip",
    "http",
    "https",
}


@dataclass
class Captured:
    text: str
    timestamp: str
    kind: str  # "statement", "rule", "decision", "correction", "explanation"
    correction: bool = False


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def _words(text: str) -> int:
    return len(re.findall(r"\w+", text))


def _looks_like_code(sentence: str) -> bool:
    symbols = sum(sentence.count(c) for c in "{}();=<>[]`$|\\")
    return symbols > max(6, len(sentence) // 12) or sentence.lstrip().startswith(("```", "$ "))


def durable_sentence(sentence: str) -> str:
    """The kind of a user sentence a later session needs, or "" for one it does not."""
    if _words(sentence) < MIN_WORDS or _looks_like_code(sentence):
        return ""
    if RULE.search(sentence):
        return "rule"
    if sentence.rstrip().endswith("?"):
        return ""
    if CORRECTION.search(sentence):
        return "correction"
    if _REQUEST.search(sentence):
        return ""
    if _LISTENER.search(sentence) and not _FIRST_PERSON.search(sentence):
        return ""  # about the listener, not the speaker
    if DECISION.search(sentence):
        return "decision"
    if _FIRST_PERSON.search(sentence) or _STATEMENT.search(sentence):
        return "statement"
    return ""


def speaker_of(text: str) -> tuple[str, str]:
    """("Caroline", rest) for a message that starts with a speaker label, else ("", text)."""
    match = _SPEAKER.match(text)
    if not match or match.group(1).lower() in _NOT_SPEAKERS:
        return "", text
    return match.group(1), text[match.end() :]


def question_answered(turns: list[Turn], i: int) -> str:
    """The question the message ``turns[i]`` answers: a question among the last two sentences
    of the nearest earlier turn that says something (a bare "Noted." or "OK" says nothing: one
    more turn back is looked at), when someone else said it. "" when there is none. A question
    earlier in a long reply ("why did the build fail? The cache was stale. …") was answered
    there, not by the next message."""
    speaker = speaker_of(turns[i].text)[0].lower()
    for j in range(i - 1, max(i - 3, -1), -1):
        earlier = turns[j]
        asker, body = speaker_of(earlier.text) if earlier.role == "user" else ("", earlier.text)
        said = sentences(body)
        questions = [s for s in said[-2:] if s.rstrip().endswith("?") and not _looks_like_code(s)]
        if not said or not questions and _words(body) < MIN_WORDS:
            continue
        if earlier.role == "user" and asker.lower() == speaker:
            return ""  # the same person's own earlier message
        return questions[-1] if questions else ""
    return ""


def _from_user(turn: Turn, question: str = "") -> Captured | None:
    speaker, body = speaker_of(turn.text)
    kept, kinds = [], []
    for sentence in sentences(body):
        kind = durable_sentence(sentence)
        if kind:
            kept.append(sentence)
            kinds.append(kind)
    if not kept:
        return None
    text = (f"{speaker}: " if speaker else "") + " ".join(kept)
    text = with_question(text[:MAX_MEMORY_CHARS], question)
    kind = next((k for k in ("correction", "rule", "decision") if k in kinds), "statement")
    return Captured(text, turn.timestamp, kind, correction=kind == "correction")


def _explanation(turn: Turn) -> str:
    kept = [
        s
        for s in sentences(turn.text)
        if _EXPLAINS.search(s) and not _looks_like_code(s) and _words(s) >= MIN_WORDS
    ]
    return " ".join(kept[:3])[:MAX_MEMORY_CHARS]


def extract(turns: list[Turn]) -> list[Captured]:
    """The memories in these turns, in order."""
    out: list[Captured] = []
    for i, turn in enumerate(turns):
        if turn.role == "user":
            item = _from_user(turn, question_answered(turns, i))
            if item is not None:
                out.append(item)
            continue
        reply = next((t for t in turns[i + 1 :] if t.role == "user"), None)
        if reply is None or not ACK.search(reply.text) or _REJECT.search(reply.text):
            continue
        text = _explanation(turn)
        if text:
            out.append(Captured(f"Agreed with the user: {text}", turn.timestamp, "explanation"))
    return out
