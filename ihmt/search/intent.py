"""What time a question is about: now (the default) or an earlier state.

Memories are mostly facts that hold until a later memory says otherwise, and an agent mostly
asks about now; "before the migration", "back in March", "what did we use to run" ask about
an earlier state. Only cue words are read (English and Spanish), never the stored text.
"""

from __future__ import annotations

import re

from .. import re_cache
from ..text.dates import month_number
from ..text.tokenize import fold, terms

_HISTORY_PHRASES = (
    "before",
    "previous",
    "previously",
    "used to",
    "originally",
    "original",
    "at first",
    "initially",
    "back in",
    "back then",
    "earlier",
    "formerly",
    "prior to",
    "the old ",
    "old one",
    "at the time",
    "at the start",
    "at the very start",
    "at the very beginning",
    "in the beginning",
    "until the",
    "antes",
    "anterior",
    "previamente",
    "solia",
    "solian",
    "al principio",
    "originalmente",
    "en aquel momento",
)
# "which Postgres version did we run on Heroku?", "what engine version were we on at Alpha?",
# "which QuestDB version did we first install?": a state told in the past, on a platform, or
# first set up
_PAST_STATE = (
    r"(?<![a-z])did\s+(?:[a-z0-9'’.-]+\s+){1,4}(?:(?:run|have|host|hold|keep)\s+(?:on|at|in)"
    r"|use\s+(?:on|at))(?![a-z])"
    r"|(?<![a-z])(?:was|were)\s+(?:[a-z0-9'’.-]+\s+){1,4}on(?=\s*(?:[?.!]|$)|\s+(?:at|in)(?![a-z]))"
    # "did we first install", "did Lucía first propose" (not "did the first full month cost")
    r"|(?<![a-z])did\s+(?!(?:the|a|an|our|this|that|its|their)\s)(?:[a-z0-9'’.-]+\s+){1,2}"
    r"first\s+[a-z]+"
)
_DURING_PHASE = (
    r"during\s+(?:the\s+)?(?:early\s+|first\s+|initial\s+)?(?:beta|alpha|trial|pilot"
    r"|launch\s+week|soft\s+launch)"
)
# "first booked", "first planning", "first built": a verb of something done, regular or not
_FIRST_DONE = (
    r"(?:[a-z]+(?:ed|ing)|built|made|set|bought|put|written|chosen|given|taken|brought|sent"
    r"|run|ran|got|began|begun|went|gone|sold|paid|held|kept|found|done)"
)
_HISTORY_RE = re_cache.compile(
    r"(?<![a-z])(?:" + "|".join(re.escape(p.strip()) for p in _HISTORY_PHRASES) + r")(?![a-z])"
    # "last autumn", "el verano pasado", "last year": a time gone by
    r"|(?<![a-z])last\s+(?:spring|summer|autumn|fall|winter|year|season)(?![a-z])"
    # "when we only had CloudWatch": what there was then
    r"|(?<![a-z])when\s+(?:[a-z'’]+\s+){1,2}only\s+had(?![a-z])"
    # "during the early beta", "during launch week": a phase gone by (see _IN_PAST)
    r"|(?<![a-z])" + _DURING_PHASE + r"(?![a-z])"
    r"|(?<![a-z])(?:el|la)\s+(?:primavera|verano|otono|invierno|ano)\s+pasad[oa](?![a-z])"
    # "back when it ran on EC2"; "when she still lived in Montevideo"
    r"|(?<![a-z])back\s+when(?![a-z])"
    r"|(?<![a-z])(?:when|while)\s+(?:[a-z'’]+\s+){0,3}(?:(?:was|were)\s+still|still\s+[a-z]+ed)"
    r"(?![a-z])"
    # "what was the staging URL when it was on Render?", "while we were on Heroku": a state
    # someone or something was in ("when was it moved?" asks a date)
    r"|(?<![a-z])(?:when|while)\s+(?:[a-z'’]+\s+){1,3}(?:was|were)\s+(?:on|in|at|using|with)"
    r"(?![a-z])"
    # "cuando usábamos Heroku", "cuando estaba en Render" (not "¿cuándo era…?", which asks
    # when)
    r"|(?<=[a-z,] )cuando\s+(?:[a-z]+\s+){0,2}(?:[a-z]{2,}(?:aba|aban|abamos)|era|eran|estaba"
    r"|estaban|tenia|teniamos|habia)(?![a-z])"
    r"|"
    + _PAST_STATE
    # "the pre-migration host", "pre-cutover": the state before an event
    + r"|(?<![a-z])pre-(?:migration|cutover|upgrade|move|launch|rename|switch|merger|rewrite"
    r"|refactor|migracion|mudanza)(?![a-z])"
    # "when he joined the team", "when the contract started?", "when I first started on"
    r"|(?<![a-z])when\s+(?:[a-z'’]+\s+){0,3}(?:joined|started|launched|went\s+live)"
    r"(?=\s*(?:[?.!,]|$)|\s+(?:on|at|in|the|here|there|working)(?![a-z]))"
    # "which Flutter version did Espiga launch with?", "what time did the nightly build use to
    # run?": only after "did" (see _AFTER_DID), and "use to" only before a verb of how things
    # went ("did we use to stop the crackling" uses something in order to)
    r"|(?<![a-z])(?:start|launch|begin)\s+(?:on|with)(?![a-z])"
    r"|(?<![a-z])use\s+to\s+(?:be|run|start|happen|live|work|take|cost|go|come|ship|end|finish"
    r"|last|meet|open|close)(?![a-z])"
    r"|(?<![a-z])(?:started|launched|began)\s+(?:on|with)(?![a-z])"
    # "when was the TÜV audit first booked?", "what storage were we first planning": with a
    # verb in the past (see _FIRST_PAST_RE)
    r"|(?<![a-z])first\s+" + _FIRST_DONE + r"(?![a-z])"
    # "what was the Sidekiq concurrency back on Heroku?", "which Django version did we start
    # the project on?": only in a question in the past
    r"|(?<![a-z])back\s+on(?![a-z])"
    r"|(?<![a-z])start\s+the\s+(?:project|repo|app|site)\s+(?:on|with)(?![a-z])"
    # "last October"
    r"|(?<![a-z])last\s+(?:january|february|march|april|may|june|july|august|september"
    r"|october|november|december)(?![a-z])"
)
_PAST_STATE_RE = re_cache.compile(_PAST_STATE)
# cues that ask about before only in a question already in the past
_AFTER_DID = re_cache.compile(
    r"(?:start|launch|begin)\s+(?:on|with)|use\s+to\s+[a-z]+"
    r"|start\s+the\s+(?:project|repo|app|site)\s+(?:on|with)"
)
_DID_RE = re_cache.compile(r"(?<![a-z])did(?![a-z])")
# ... and cues that do only with a verb in the past somewhere in it
_IN_PAST = re_cache.compile(
    r"first\s+" + _FIRST_DONE + r"|(?:started|launched|began)\s+(?:on|with)|back\s+on"
    r"|" + _DURING_PHASE
)
_FIRST_PAST_RE = re_cache.compile(r"(?<![a-z])(?:was|were|did)(?![a-z])")

# "in March", "back in June", "during July", "en marzo": a month the question is set in
_IN_MONTH_RE = re_cache.compile(
    r"(?<![a-z])(?:(?:in|during|en|durante)\s+(?:(?:early|late|mid)[\s-]+)?"
    r"|a\s+(?:principios|finales|mediados)\s+de\s+)([a-z]{3,10})(?![a-z])"
)
_PAST_VERBS = "was|were|did|had|era|eran|estaba|fue|tenia"
_PAST_VERB_RE = re_cache.compile(r"(?<![a-z])(?:" + _PAST_VERBS + r")(?![a-z])")


# "before renaming", "antes de desplegar": a step that comes first, not an earlier state, when
# nothing else in the question is in the past ("where did Camila live before moving?" is)
_BEFORE_ACTION_RE = re_cache.compile(
    r"\s+(?:\w+ing|de\s+\w+(?:ar|er|ir)(?:lo|la|los|las|le|les|se)?)(?![a-z])"
)
_PAST_RE = re_cache.compile(
    r"(?<![a-z])(?:" + _PAST_VERBS + r"|used to"
    # Spanish past tenses no noun shares: "¿cuánto tardaba el job antes de agregar el cache?",
    # "¿qué usaban antes de migrar?" (not the -ía forms: "Debian", "compañía" end alike)
    r"|[a-z]{2,}(?:aba|abas|aban|abamos|aron|ieron|iamos)|habia|habian|podia|iba|iban|ibamos"
    r")(?![a-z])"
)
# "before they get purged", "before I push", "before it's wiped": a step in how something
# works, told in the present; "before we moved", "before it got renamed" tell of the past
_IRREGULAR_PAST = "went|got|took|came|began|became|made|ran|left|put|cut|set|had|was|were|did|gave"
_BEFORE_PRESENT_RE = re_cache.compile(
    r"\s+(?:i|we|you|they|it|he|she|someone|anyone)"
    r"(?:['’](?:s|re|m|ll)\s+\w+"
    r"|\s+(?:can|could|will|should|must|may|might|need|needs|have to|has to)\s+\w+"
    r"|\s+(?![a-z]+ed(?![a-z]))(?!(?:" + _IRREGULAR_PAST + r")(?![a-z]))[a-z]+)(?![a-z])"
)


# "how long can a notebook sit idle before JupyterHub kills it?", "how many days before the due
# date does the reminder go out?": in a question told in the present, "before" and a clause
# in the present place one step of how things work ahead of another, not a time gone by
# ("what do we drop the TTL to before the cutover?" names an event, and stays a cue)
_PRESENT_TENSE_RE = re_cache.compile(
    r"(?<![a-z])(?:do|does|is|are|am|can|must|should|need|needs|will|may|have\s+to|has\s+to"
    r"|gets?|don['’]t|doesn['’]t|isn['’]t|aren['’]t|can['’]t)(?![a-z])"
    r"|(?<![a-z])(?:what|where|who|how|it|that|there|here|which|they|we|you)['’](?:s|re)(?![a-z])"
)
_BEFORE_CLAUSE_RE = re_cache.compile(
    r"\s+(?:[\w'’./-]+\s+){1,4}?(?:is|are|gets?|does|do|has"
    r"|(?!(?:days|weeks|months|years|hours|minutes)(?![a-z]))[a-z]*[^\Wsu]s)(?![\w'’])"
)


def _history_cues(folded: str) -> list[re.Match[str]]:
    past = bool(_PAST_RE.search(folded))
    told_in_present = not past and bool(_PRESENT_TENSE_RE.search(folded))
    return [
        match
        for match in _HISTORY_RE.finditer(folded)
        if _in_context(folded, match)
        and (
            past
            or match.group(0) not in ("before", "antes")
            or not (
                (
                    told_in_present
                    and match.group(0) == "before"
                    and _BEFORE_CLAUSE_RE.match(folded, match.end())
                )
                or _BEFORE_ACTION_RE.match(folded, match.end())
                or (match.group(0) == "before" and _BEFORE_PRESENT_RE.match(folded, match.end()))
            )
        )
    ]


def _in_context(folded: str, match: re.Match[str]) -> bool:
    """ "use to", "start on" ask about before only after "did" ("what do we use to deploy?"
    asks about now); "first booked", "started on" only in a question in the past ("who helps
    newcomers get started on the CLI?" asks about now)."""
    cue = match.group(0)
    if _AFTER_DID.fullmatch(cue):
        return bool(_DID_RE.search(folded, 0, match.start()))
    if _IN_PAST.fullmatch(cue):
        return bool(_FIRST_PAST_RE.search(folded))
    return True


def asks_history(text: str) -> bool:
    """True when the question asks about an earlier state rather than the present one."""
    folded = fold(text or "")[:2000]
    if _history_cues(folded):
        return True
    return bool(months_asked(text) and _PAST_VERB_RE.search(folded))


# "now", "these days", "ahora": the question expects the value may have changed
_NOW_RE = re_cache.compile(
    r"(?<![a-z])(?:now|currently|current|these days|at the moment|right now|nowadays|latest|"
    r"still|ahora|actualmente|actual|hoy en dia|hoy|todavia|ya|today|at present|presently"
    r"|as of now|anymore|any more)(?![a-z])"
)


def asks_now(text: str) -> bool:
    """True when the question says it wants the present value of something that changes."""
    return bool(_NOW_RE.search(fold(text or "")[:2000]))


# "which bucket do ...", "what's the staging DB host?", "qué versión ...": the thing asked
_WH_HEAD = re_cache.compile(
    r"(?<![a-z])(?:what|which|que|cual|cuales|quel|quelle|quels|quelles)"
    r"(?:'s|’s| is| are| was| were| es| son| era| est| sont| etait)?"
    r"(?: (?:the|our|a|an|el|la|los|las|de|del|le|les|l'|du|des|notre|nos))?"
    r"((?: [a-z0-9][\w.+#/-]*){1,4}?)"
    r"(?= (?:do|does|did|is|are|was|were|has|have|had|will|would|can|could|should|runs?|"
    r"for|of|on|in|at|to|from|with|we|i|you|they|it|usa|usan|tiene|tienen|corre|esta|estan|"
    r"hay|se|de|del|en|para|con|est|sont|utilise|utilisent|pour|sur|dans|avec|du|des|au|qu|"
    r"qui|on|nous|je|tu|vous|il|elle)\b|\s*[?¿.!]|$)"
)
# verbs that end such a head ("what's the prod cluster called?"): not the thing asked
_HEAD_VERBS = frozenset(
    "called named used using running set configured deployed hosted located stored kept happened "
    "happens happen changed broke failed".split()
)


def asked_attribute(text: str) -> frozenset[str]:
    """The terms of the thing a what/which question asks for: "which bucket do the Postgres
    backups go to?" -> {"bucket"}; "what's the prod k8s cluster called?" -> {"cluster"}.
    Empty when the question opens otherwise ("where", "how long") or names no such thing."""
    match = _WH_HEAD.search(fold(text or "")[:300])
    if not match:
        return frozenset()
    words = [w for w in match.group(1).split() if w not in _HEAD_VERBS]
    return frozenset(terms(words[-1])) if words else frozenset()


def history_cue_at(text: str) -> int:
    """Where the history cue starts in ``text`` ("... before the move" -> the index of
    "before"), or -1. Folding keeps every character's position, so the index fits ``text``."""
    folded = fold(text or "")[:2000]
    cues = _history_cues(folded)
    # "what did we use to run plans before X": "use to" is a cue only when nothing else is,
    # and the subject ("plans") follows it
    cues = [c for c in cues if not _AFTER_DID.fullmatch(c.group(0))] or cues
    # ... and a state told in the past ("did site search run on") only when nothing else is:
    # "what did site search run on before Typesense?" names its subject ahead of "before"
    cues = [c for c in cues if not _PAST_STATE_RE.fullmatch(c.group(0))] or cues
    return cues[0].start() if cues and len(folded) == len(text or "") else -1


# a season stands for its months (northern hemisphere: the corpora and users are in Europe)
_SEASONS = {
    "spring": {3, 4, 5},
    "primavera": {3, 4, 5},
    "summer": {6, 7, 8},
    "verano": {6, 7, 8},
    "autumn": {9, 10, 11},
    "fall": {9, 10, 11},
    "otono": {9, 10, 11},
    "winter": {12, 1, 2},
    "invierno": {12, 1, 2},
}
_IN_SEASON_RE = re_cache.compile(
    r"(?<![a-z])(?:(?:in|during|en|durante)\s+(?:the\s+|el\s+|la\s+)?(?:last\s+|pasad[oa]\s+)?"
    r"|last\s+|(?:el|la)\s+)"
    r"(" + "|".join(_SEASONS) + r")(?![a-z])"
)


def months_asked(text: str) -> set[int]:
    """Months the question is set in ("in March" -> {3}, "in the spring" -> {3, 4, 5});
    empty when it names none."""
    folded = fold(text or "")[:2000]
    found = {month_number(m.group(1)) for m in _IN_MONTH_RE.finditer(folded)}
    for match in _IN_SEASON_RE.finditer(folded):
        found |= _SEASONS[match.group(1)]
    return found - {0}
