"""A later memory that changes what the leading one says, though it uses other words.

"Diego's VPS: Hetzner Cloud CX22 (2 vCPU, 4 GB RAM)" answers "what size is the VPS now?" by
its words; "vps-navarro-01 resized from CX22 to CX32", saved months later without
``replaces``, answers it by its meaning, and shares few of the question's words. What the two
share is the *statement*: the sentence of the leading memory that the question is about
("Hetzner Cloud CX22 (2 vCPU, 4 GB RAM)") and the later memory name the same rare things
(CX22, vCPU, RAM), and the later one says that something changed ("resized", "moved to",
"now", "ya no") and names the old value as what it changed from ("from CX22 to CX32") or, for
a saved memory, as what it leaves behind ("the old CX22", "ya no en el Excel de Iñaki",
"cx22-01 is being decommissioned").

The engine finds such a memory with one more descent, for the rare words of that sentence
found in two memories at least (the old value is in the statement and in its change), among
memories dated after the leading one. Nothing is stored: a memory that states a change is
recognised when a question reaches the statement it changes.
"""

from __future__ import annotations

import math
import re

from .. import re_cache
from ..text.tokenize import fold, terms
from .restatement import tells_change
from .unknown_names import CALENDAR_WORDS

SENTENCE_BREAK = re_cache.compile(r"(?<=[.;!?])\s+|\n+")
SENTENCE_CHARS = 400  # a statement longer than this is cut: its words stay specific


def asked_statement(content: str, asked: dict[str, float]) -> str:
    """The sentence of ``content`` holding the most of the question's weight (``asked``:
    question term -> idf); "" when no sentence holds any."""
    best, best_mass = "", 0.0
    for sentence in SENTENCE_BREAK.split(content[:20000]):
        sentence = sentence.strip()
        if not sentence:
            continue
        found = set(terms(sentence[:SENTENCE_CHARS]))
        mass = math.fsum(weight for term, weight in asked.items() if term in found)
        if mass > best_mass:
            best, best_mass = sentence[:SENTENCE_CHARS], mass
    return best


# "from CX22 to CX32", "de Valencia a Alicante", "CX22 -> CX32": the old value named outright
_FROM_TO = re_cache.compile(
    r"(?i)(?<![\w-])(?:from|de|desde)\s+(?:the\s+|el\s+|la\s+|los\s+|las\s+)?"
    r"(?P<old>[^\s,;:()]{1,40}(?:\s[^\s,;:()]{1,40})?)\s+(?:to|a|al|hasta)\s"
    r"|(?P<arrow>[^\s,;:()]{1,40})\s?(?:->|→)\s?\S"
)


# units name what kind of value changed, not which one: "from ~190 ms to ~60 ms" is no new
# value of "p95 latency under 300 ms"
_UNITS = frozenset(
    terms(
        "ms millisecond s sec second min minute h hr hour day week month year "
        "kb mb gb tb kib mib gib tib % percent x eur usd rps qps"
    )
)


def _runs_on(old: str) -> bool:
    """True when a two-word "old value" is a word and the sentence running on ("de Málaga
    gracias al distribuidor" is no "from Málaga to ..."): a value's second word is a name, a
    number or a unit ("Google Meet", "PostgreSQL 15", "7 days"), not a lower-case word."""
    words = old.split()
    if len(words) != 2:
        return False
    first, second = words
    return (
        second.isalpha()
        and second.islower()
        and not any(ch.isdigit() for ch in first)
        and not set(terms(second)) & _UNITS
    )


# "de martes a jueves", "from 9am to 5pm": a day, a month or a time after "from" opens a range,
# unless a word of change comes right before it ("moved from Monday to Tuesday")
_TIME_OF_DAY = re_cache.compile(r"(?i)\d{1,2}(?:[h.]\d{2})?\s?[ap]m|\d{1,2}[h.]\d{2}")
_CHANGED_JUST_BEFORE = re_cache.compile(
    r"(?i)(?<!\w)(?:moved?|moving|changed?|changing|switched|shifted|rescheduled|pushed|brought|went"
    r"|goes|go|pasa|pas[oó]|cambia|cambi[oó]|movid[oa]|movi[oó]|se mueve|se movi[oó])"
    r"(?:\s+\S+){0,3}\s*$"
)


def _opens_a_range(text: str, match: re.Match[str], old: str) -> bool:
    """True when "from X to" names a day or a time with no word of change just before it: a
    range ("sync windows solo de martes a jueves"), not a change of value."""
    first = old.split()[0]
    folded = fold(first.lower())
    calendar = folded in CALENDAR_WORDS or folded.removesuffix("s") in CALENDAR_WORDS
    if match.group("old") is None or not (calendar or _TIME_OF_DAY.fullmatch(first)):
        return False
    return not _CHANGED_JUST_BEFORE.search(text[max(0, match.start() - 40) : match.start()])


def names_old_value(later_text: str, statement_terms: set[str], rare: set[str]) -> bool:
    """True when ``later_text`` changes a value the statement holds: "from X to Y" (or "de X
    a Y", "X -> Y") where X is one of the statement's own rare words, not a bare small number
    ("from 7 to 30" changes some count, not necessarily this one), a unit alone, nor a day or
    a time opening a range ("de martes a jueves")."""
    text = later_text[:4000]
    for match in _FROM_TO.finditer(text):
        old = (match.group("old") or match.group("arrow") or "").strip(".'\"`")
        if not old or (old.isdigit() and len(old) <= 2) or _runs_on(old):
            continue
        if _opens_a_range(text, match, old):
            continue
        old_terms = set(terms(old)) - _UNITS
        if old_terms & rare and old_terms & statement_terms:
            return True
    return False


# the old value named as what no longer holds: "no longer on X", "the old X", "ya no en X",
# "X is being decommissioned": a few words after the cue (or before the retiring verb)
_LEFT_BEHIND = re_cache.compile(
    r"(?i)(?<![\w-])(?:no longer\s(?:on|in|at|uses?|using|runs?\son|runs?\sin|with|goes?\sto)"
    r"|the old|the former|the previous|ya no\s(?:en|usa|usamos|corre en|está en|va a|con)"
    r"|el antiguo|la antigua|el viejo|la vieja)\s+(?:the\s|el\s|la\s|los\s|las\s|al\s|a\s)?"
    r"(?P<old>[^\s,;:()]{1,40}(?:\s[^\s,;:()]{1,40}){0,2})"
)
_RETIRED = re_cache.compile(
    r"(?i)(?P<old>[^\s,;:()]{1,40}(?:\s[^\s,;:()]{1,40})?)\s(?:is|are|was|were|gets|get)\s"
    r"(?:being\s|now\s)?(?:decommissioned|retired|shut down|deprecated|archived|switched off"
    r"|turned off)"
)
# the retiring words alone: a text without any cannot match _RETIRED, whose open start
# otherwise tries every position of a long memory (a tenth of a prompt hook's search)
_RETIRING = re_cache.compile(
    r"(?i)decommissioned|retired|shut down|deprecated|archived|switched off|turned off"
)
# a value is written as one: a name, a number, a host or a path ("Excel", "M1",
# "orders-db-replica-01", "git.ot.local"), not a plain or hyphenated word ("starves",
# "self-hosted", "read-only")
_VALUE_WORD = re_cache.compile(r"[A-Z\d]|\w[._/]\w")
_IDENTIFIER = re_cache.compile(r"\d|\w[._/]\w")


def leaves_behind(later_text: str, statement_terms: set[str], rare: set[str]) -> bool:
    """True when ``later_text`` names as left behind ("no longer on X", "the old X", "ya no
    en el Excel de Iñaki", "X is being decommissioned") a value the statement holds: an
    identifier or a number of the statement's rare words, or two names of them ("Excel",
    "Iñaki"); one plain name may be in any statement."""
    text = later_text[:4000]
    for pattern in (_LEFT_BEHIND, _RETIRED):
        if pattern is _RETIRED and not _RETIRING.search(text):
            continue
        for match in pattern.finditer(text):
            named = [
                word
                for word in match.group("old").strip(".'\"`").split()
                if _VALUE_WORD.search(word) and set(terms(word)) & statement_terms
            ]
            held = [word for word in named if set(terms(word)) & rare]
            if any(_IDENTIFIER.search(word) for word in held) or (held and len(named) >= 2):
                return True
    return False


def changes_statement(
    statement_terms: set[str], later_text: str, rare: set[str], left_behind: bool = True
) -> bool:
    """True when ``later_text`` tells of a change to the statement: it says something changed
    and names, as the value it changed from, one of the statement's rare words.
    ``left_behind`` False: only "from X to Y" names it (a statement of a long document holds
    many values, and a later memory retiring one of them says little about the rest)."""
    if not tells_change(later_text):
        return False
    return names_old_value(later_text, statement_terms, rare) or (
        left_behind and leaves_behind(later_text, statement_terms, rare)
    )
