"""The options an agent offered, and the one the user's reply picks.

Agents lay out choices ("A) Offset/limit … B) Keyset pagination …") and users answer with a
letter ("B.", "B, MinT") or a word of the option ("keyset. the dashboard only does next/prev").
"B." says nothing a later session can find; capture saves the reply with the option it picks
(extract.py), so "did we use offset or cursor pagination?" finds "keyset".
"""

from __future__ import annotations

import re

from .. import re_cache

MAX_OPTION_CHARS = 160
# a label that starts an option: "A)", "B:", "Option C.", "(b)", "(2)", "2)", "3." at a line
# start
_LABEL = re_cache.compile(
    r"(?:^|(?<=\s))(?:\*\*|__)?(?:\(([a-dA-D1-4])\)|(?:[Oo]ption\s+)?([A-D])[):.]|([1-4])\)"
    r"|(?:(?<=\n)|(?<=\s\s)|(?<=[:.!?]\s)|^)([1-4])\.)\s+"
)
# a reply that picks by label: "B", "B.", "b, the datastore", "option 2", "let's go with A"
# ("A lot happened" is no pick: "a" needs a mark after it)
_PICK = re_cache.compile(
    r"^\W*(?:(?:let'?s\s+)?go\s+with\s+|option\s+|we'?ll\s+take\s+|"
    r"vamos\s+con\s+(?:la\s+)?(?:opci[oó]n\s+)?|opci[oó]n\s+|"
    # "La B, default cuatrimestres", "me quedo con la A", "prefiero la 2", "l'option C"
    r"(?:me\s+quedo\s+con\s+|prefiero\s+|hagamos\s+)?la\s+(?:opci[oó]n\s+)?|l'option\s+)?\(?"
    r"(?:([a-dA-D]|[1-4])\)?(?=[,.!:;)]|$)|([b-dB-D]|[1-4])(?=\s))",
    re.I,
)
# a pick said later in the reply, after an answer to something else ("14 tanks plus 2 vats.
# Let's go with B."): only in words that say it is a pick, since "3 tests failed" is none
_PICK_LATER = re_cache.compile(
    r"^\W*(?:(?:let'?s\s+)?go\s+with|we'?ll\s+take|vamos\s+con|me\s+quedo\s+con|"
    r"on\s+part\s+sur)\s+(?:la\s+|l'|option\s+|opci[oó]n\s+)*\(?([a-dA-D]|[1-4])\b",
    re.I,
)
_WORD = re_cache.compile(r"[^\W\d_][\w-]{3,}")


def offered(text: str) -> dict[str, str]:
    """Label -> option text ("b" -> "Keyset pagination: …") for the options a turn lays out;
    {} unless it offers at least two."""
    marks = list(_LABEL.finditer(text))
    options: dict[str, str] = {}
    for n, mark in enumerate(marks):
        label = next(g for g in mark.groups() if g).lower()
        end = marks[n + 1].start() if n + 1 < len(marks) else len(text)
        body = " ".join(text[mark.end() : end].replace("**", "").split())
        body = re.split(r"(?<=[.!?])\s", body, maxsplit=1)[0]
        if body and label not in options:
            options[label] = body[:MAX_OPTION_CHARS].rstrip(" ,;")
    return options if len(options) >= 2 else {}


def picked(reply: str, options: dict[str, str]) -> tuple[str, str]:
    """(label, option text) the reply picks: by its label, or by a word only that option
    holds — in the reply's first sentence when that names one ("elementary. no budget for
    monte carlo": the rest says why the others lost), else in the whole reply; ("", "") when
    it picks none or several."""
    if not options:
        return "", ""
    match = _PICK.match(reply)
    label = next((g for g in match.groups() if g), "").lower() if match else ""
    if label in options:
        return label, options[label]
    later = (_PICK_LATER.match(s) for s in re.split(r"(?<=[.!?])\s+", reply.strip())[1:])
    label = next((m.group(1).lower() for m in later if m), "")
    if label in options:
        return label, options[label]
    first = re.split(r"(?<=[.!?])\s", reply.strip(), maxsplit=1)[0]
    for text in (first, reply):
        hits = _named_by(text, options)
        if len(hits) == 1:
            return hits[0], options[hits[0]]
    return "", ""


def _words_of(text: str) -> set[str]:
    """The words of ``text``, a hyphenated or slashed name also by its parts:
    "barryvdh/laravel-dompdf" holds "dompdf"."""
    words = set()
    for word in _WORD.findall(text):
        words.add(word.lower())
        words.update(part.lower() for part in word.split("-") if len(part) >= 4)
    return words


def _named_by(reply: str, options: dict[str, str]) -> list[str]:
    """The labels of the options holding a word of ``reply`` that no other option holds."""
    words = _words_of(reply)
    hits = []
    for label, text in options.items():
        others = set().union(*(_words_of(t) for key, t in options.items() if key != label))
        if words & (_words_of(text) - others):
            hits.append(label)
    return hits


# the agent's own pick among its options: "I recommend B", "I'd go with option 2"
# (a capital letter or a digit: "I'd go with a queue" names no option)
_RECOMMENDS = re_cache.compile(
    r"\b(?i:i(?:'d| would)?\s+(?:recommend|suggest|go with|pick|choose|lean towards?)|"
    r"my (?:pick|vote|recommendation) (?:is|would be))\s+(?i:option\s+)?\(?([A-D]|[1-4])(?![\w'])"
)


def recommended(text: str, options: dict[str, str]) -> tuple[str, str]:
    """(label, option text) of the option the agent recommends in ``text``, ("", "") for none:
    a reply that only approves ("ok, sounds good, do it") picks it."""
    match = _RECOMMENDS.search(text)
    label = match.group(1).lower() if match else ""
    return (label, options[label]) if label in options else ("", "")
