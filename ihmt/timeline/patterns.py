"""Pattern rules that pull dated facts out of free text (English and Spanish).

Extraction is deliberately conservative: a missed fact can always be added with
record_fact(), but a wrong one ("I work at home" -> employer 'home') would raise false
contradictions. So every built-in rule is a fixed trigger phrase followed by a value that
is cut at the end of its clause and then shaped by kind (a place, an organisation, a list,
an environment's platform). Every built-in regex uses bounded repetition and captures its
value inside a lookahead, so scanning is linear in the text and matches never swallow the
next sentence.

Mostly data (about 730 lines): the built-in fact patterns in English and Spanish, each beside
the words and checks that keep it linear; one table is easier to audit than several.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ihmt.errors import InputError
from ihmt.timeline.facts import Fact, FactOrigin, canonical_timestamp, fold

from .. import re_cache

__all__ = [
    "DEFAULT_PATTERNS",
    "SHAPES",
    "FactExtractor",
    "FactPattern",
    "patterns_from_config",
]

_FLAGS = re.IGNORECASE | re.UNICODE

# How a captured value is cut and cleaned:
#   plain  clause up to sentence end or a linking word, at most ~60 chars (custom rules)
#   list   keeps commas and "and"/"y" (stacks, medication lists), at most ~120 chars
#   place  a proper name ("El Saler", "New York") or a short lowercase name ("valencia")
#   org    a proper name only: lowercase objects ("home", "equipo", "a call") are no employer
#   env    a platform; the attribute becomes "database" when the value names a database
SHAPES = ("plain", "list", "place", "org", "env")

_W = r"\s{1,4}"  # bounded gap between words (wrapped lines included)
_ADV_EN = rf"(?:(?:now|currently|still|actually|also|just|recently|finally|already){_W})?"
_VALUE = r"(?=(?P<value>[^\n\r]{1,200}))"  # zero-width: the scan resumes after the trigger
# a move told in any tense: done ("has moved", "se ha mudado"), happening ("is moving", "se
# muda") or planned ("will move", "se va a mudar"); a planned move is the new home from the
# memory's date on, as a done one is
_MOVES_EN = (
    rf"(?:(?:has{_W})?{_ADV_EN}(?:moved|relocated)|{_ADV_EN}(?:moves|relocates)"
    rf"|(?:is|will{_W}be){_W}{_ADV_EN}(?:moving|relocating)|will{_W}{_ADV_EN}(?:move|relocate))"
)
_MOVES_ES = (
    rf"(?:(?:ha|va{_W}a){_W})?"
    r"(?:mud(?:[oó]|ado|a|ar[aá]|ar)|traslad(?:[oó]|ado|a|ar[aá]|ar))"
)
_HEADER_END = r"\s{0,4}:[ \t]{0,8}(?:\r?\n[ \t]{0,8})?"


@dataclass
class FactPattern:
    """One extraction rule: a regex with a named value group, and where the fact goes.

    A named group "subject" in the regex, when it matches, overrides ``subject`` (folded);
    this is how "staging is on PostgreSQL 17" lands on subject 'staging'.
    """

    subject: str
    attribute: str
    regex: str
    value_group: str = "value"
    name: str = ""
    shape: str = "plain"
    verb_first: bool = False  # a bare Spanish verb ("vivo", "trabajo") that can be a noun
    hints: tuple[str, ...] = ()  # lowercase words one of which the text must contain
    _compiled: re.Pattern[str] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.name:
            self.name = f"{self.subject}.{self.attribute}"

    def compiled(self) -> re.Pattern[str]:
        """The compiled regex (compiled once, on first use)."""
        if self._compiled is None:
            self._compiled = re.compile(self.regex, _FLAGS)  # noqa: TID251 - may be the user's
        return self._compiled

    def validate(self) -> FactPattern:
        """Raise InputError with one line if the rule cannot work; return self."""
        for label, text in (("subject", self.subject), ("attribute", self.attribute)):
            if not isinstance(text, str) or not text.strip() or "::" in text:
                raise InputError(f"pattern {self.name!r}: {label} must be a non-empty name")
        if not isinstance(self.regex, str) or not self.regex:
            raise InputError(f"pattern {self.name!r}: regex must be a non-empty string")
        if self.shape not in SHAPES:
            raise InputError(f"pattern {self.name!r}: shape must be one of {', '.join(SHAPES)}")
        try:
            compiled = self.compiled()
        except (re.error, OverflowError, RecursionError, ValueError) as exc:
            self._compiled = None
            detail = getattr(exc, "msg", None) or (str(exc).splitlines() or ["error"])[0]
            position = getattr(exc, "pos", None)
            if position is not None:
                detail += f" at position {position}"
            raise InputError(f"pattern {self.name!r}: invalid regex: {detail}") from None
        if self.value_group not in compiled.groupindex:
            self._compiled = None
            raise InputError(
                f"pattern {self.name!r}: regex needs a named group (?P<{self.value_group}>...)"
            )
        return self


def _rule(
    name: str,
    subject: str,
    attribute: str,
    trigger: str,
    shape: str,
    hints: tuple[str, ...],
    verb_first: bool = False,
) -> FactPattern:
    return FactPattern(
        subject, attribute, trigger + _VALUE, "value", name, shape, verb_first, hints
    )


_I_HAVE = r"\bI(?:['’]ve|\s{1,4}have)?"
_I_AM = r"\b(?:I['’]?m|I\s{1,4}am)"
_ENVS = (
    r"staging|production|prod|development|dev|pre-?prod|"
    r"producci[oó]n|preproducci[oó]n|desarrollo"
)
_ENV_VERBS = (
    rf"(?:(?:now|ahora){_W})?"
    rf"(?:is{_W}(?:(?:now|still){_W})?(?:on|running(?:{_W}on)?|using)|runs{_W}on|uses"
    rf"|est[aá]{_W}(?:(?:ahora|ya){_W})?(?:en|usando|corriendo{_W}en)|usa|corre{_W}(?:en|sobre))"
)

# a person named with a capital (one or two words; case-sensitive inside the case-blind rule):
# not a pronoun or an article, not the tail of a longer word ("FitZona")
_PERSON = (
    r"(?<![\w.'’-])(?P<subject>(?-i:(?!(?:The|This|That|It|He|She|They|We|You|Who|There|Here"
    r"|El|La|Ella|Él|Ellos|Nadie)\b)[A-ZÁÉÍÓÚÑ][a-záéíóúñü'’-]{1,30}"
    r"(?:[ ][A-ZÁÉÍÓÚÑ][a-záéíóúñü'’-]{1,30})?))"
)
# ... and the place is named with a capital too ("moved to port 8088" is no home)
_PLACE_NAME = r"(?-i:(?=[A-ZÁÉÍÓÚÑ]))"
# a place some names carry an article in ("se mudó a la Ciudad de México", "vive en El Alto"
# keeps its capital and needs none)
_ARTICLE_ES = r"(?:(?-i:la|el|los|las)[ ])?"
# the place left, in "moved from Vigo to Pontevedra": one or two words
_OLD_PLACE = r"[^\s,;.()]{1,40}(?:[ ][^\s,;.()]{1,40})?"

# "muro's staging database is a separate Postgres" is one service's staging, not staging's
# database: an environment owned by something else is not the environment itself
_NOT_OWNED = r"(?<!['’]s )(?<!['’]s\t)(?<!s['’] )"

DEFAULT_PATTERNS: list[FactPattern] = [
    # user::location
    _rule(
        "location.en.live",
        "user",
        "location",
        rf"\b(?:I|we){_W}{_ADV_EN}live{_W}in{_W}",
        "place",
        ("live",),
    ),
    _rule(
        "location.en.living",
        "user",
        "location",
        rf"(?:{_I_AM}|\bwe(?:['’]re|{_W}are)){_W}{_ADV_EN}living{_W}in{_W}",
        "place",
        ("living",),
    ),
    _rule(
        "location.en.moved",
        "user",
        "location",
        rf"(?:{_I_HAVE}|\bwe(?:['’]ve|{_W}have)?){_W}{_ADV_EN}(?:moved|relocated)"
        rf"{_W}(?:back{_W})?to{_W}",
        "place",
        ("moved", "relocated"),
    ),
    _rule(
        "location.es.vivo",
        "user",
        "location",
        rf"(?<!\w)(?:vivo|vivimos){_W}(?:(?:ahora|actualmente|ya){_W})?en{_W}",
        "place",
        ("vivo", "vivimos"),
        verb_first=True,
    ),
    _rule(
        "location.es.mudanza",
        "user",
        "location",
        rf"\b(?:me|nos){_W}(?:(?:he|hemos|voy{_W}a|vamos{_W}a){_W})?"
        rf"(?:mud(?:[eéo]|amos|ado|ar[eé]?|aremos)|traslad(?:[eéo]|amos|ado|ar[eé]?|aremos))"
        rf"{_W}(?:(?:ya|finalmente){_W})?a{_W}",
        "place",
        ("mud", "traslad"),
    ),
    _rule(
        "location.es.fui_a_vivir",
        "user",
        "location",
        rf"\b(?:me|nos){_W}(?:fui|fuimos){_W}a{_W}vivir{_W}a{_W}",
        "place",
        ("vivir",),
    ),
    # the same facts in the agent's words ("The user lives in Sevilla now")
    _rule(
        "location.en.user_lives",
        "user",
        "location",
        rf"\bthe{_W}user{_W}{_ADV_EN}(?:lives|is{_W}{_ADV_EN}living){_W}in{_W}",
        "place",
        ("lives", "living"),
    ),
    _rule(
        "location.en.user_moved",
        "user",
        "location",
        rf"\bthe{_W}user{_W}{_MOVES_EN}{_W}(?:back{_W})?to{_W}",
        "place",
        ("mov", "reloc"),
    ),
    _rule(
        "location.es.usuario",
        "user",
        "location",
        rf"\bel{_W}usuario{_W}(?:(?:ahora|ya){_W})?(?:vive{_W}en|se{_W}{_MOVES_ES}{_W}a){_W}",
        "place",
        ("vive", "mud", "traslad"),
    ),
    # a named person's home in the agent's words ("Marisol moved to Atlántida", "Lucía se ha
    # mudado a Valencia"): the subject is the name as written, so two people of one first
    # name ("Luis Ortega", "Luis Pardo") keep two timelines
    _rule(
        "location.en.person_lives",
        "person",
        "location",
        rf"{_PERSON}{_W}{_ADV_EN}(?:(?:lives|resides|is{_W}{_ADV_EN}(?:living|based)){_W}in"
        rf"|(?:works|is{_W}{_ADV_EN}working){_W}from){_W}" + _PLACE_NAME,
        "place",
        ("lives", "resides", "living", "based", "works from", "working from"),
    ),
    _rule(
        "location.en.person_moved",
        "person",
        "location",
        rf"{_PERSON}{_W}{_MOVES_EN}{_W}(?:back{_W})?"
        rf"(?:from{_W}{_OLD_PLACE}{_W})?to{_W}" + _PLACE_NAME,
        "place",
        ("mov", "reloc"),
    ),
    _rule(
        "location.es.person_vive",
        "person",
        "location",
        rf"{_PERSON}{_W}(?:(?:ahora|ya|actualmente){_W})?(?:vive{_W}(?:(?:ahora|ya){_W})?en"
        rf"|trabaja{_W}(?:(?:ahora|ya){_W})?desde){_W}{_ARTICLE_ES}" + _PLACE_NAME,
        "place",
        ("vive", "trabaja"),
    ),
    _rule(
        "location.es.person_mudanza",
        "person",
        "location",
        rf"{_PERSON}{_W}se{_W}{_MOVES_ES}{_W}"
        rf"(?:de{_W}{_OLD_PLACE}{_W})?a{_W}{_ARTICLE_ES}" + _PLACE_NAME,
        "place",
        ("mud", "traslad"),
    ),
    _rule(
        "employer.en.user_works",
        "user",
        "employer",
        rf"\bthe{_W}user{_W}{_ADV_EN}(?:works|is{_W}{_ADV_EN}working){_W}(?:at|for){_W}",
        "org",
        ("works", "working"),
    ),
    # user::employer
    _rule(
        "employer.en.work",
        "user",
        "employer",
        rf"(?:\bI{_W}{_ADV_EN}work|{_I_AM}{_W}{_ADV_EN}working){_W}(?:at|for){_W}",
        "org",
        ("work",),
    ),
    _rule(
        "employer.en.joined",
        "user",
        "employer",
        rf"{_I_HAVE}{_W}{_ADV_EN}joined{_W}",
        "org",
        ("joined",),
    ),
    _rule(
        "employer.en.started",
        "user",
        "employer",
        rf"{_I_HAVE}{_W}{_ADV_EN}started{_W}(?:(?:working|a{_W}new{_W}job){_W})?at{_W}",
        "org",
        ("started",),
    ),
    _rule(
        "employer.en.signed",
        "user",
        "employer",
        rf"{_I_HAVE}{_W}{_ADV_EN}signed{_W}(?:on{_W})?(?:(?:a|the|my){_W}"
        rf"(?:(?:new|job|work|employment){_W})?(?:contract|offer){_W})?with{_W}",
        "org",
        ("signed",),
    ),
    # joining a new employer in Spanish: 'he firmado el contrato con X', 'he fichado por X';
    # leaving ('dejo X', 'I left X') names no new value, so it is not a fact (see GUIDE)
    _rule(
        "employer.es.firme",
        "user",
        "employer",
        rf"\b(?:he{_W}firmado|firm[eé]){_W}(?:(?:el|un|mi){_W}(?:nuevo{_W})?contrato{_W})?"
        rf"con{_W}",
        "org",
        ("firm",),
    ),
    _rule(
        "employer.es.firmado",
        "user",
        "employer",
        rf"(?<!\w)firmad[oa]{_W}(?:el|un|mi){_W}(?:nuevo{_W})?contrato{_W}con{_W}",
        "org",
        ("firmad",),
        verb_first=True,
    ),
    _rule(
        "employer.es.fichado",
        "user",
        "employer",
        rf"\b(?:he{_W}fichado|fich[eé]|acabo{_W}de{_W}fichar){_W}por{_W}",
        "org",
        ("fich",),
    ),
    _rule(
        "employer.es.trabajo",
        "user",
        "employer",
        rf"(?<!\w)trabajo{_W}(?:(?:ahora|actualmente){_W})?(?:en|para){_W}",
        "org",
        ("trabajo",),
        verb_first=True,
    ),
    _rule(
        "employer.es.empece",
        "user",
        "employer",
        rf"\b(?:empec[eé]|comenc[eé]|entr[eé]|he{_W}(?:empezado|comenzado|entrado))"
        rf"{_W}a{_W}trabajar{_W}(?:en|para){_W}",
        "org",
        ("trabajar",),
    ),
    # user::stack
    _rule(
        "stack.en",
        "user",
        "stack",
        rf"\b(?:my|our){_W}(?:(?:current|tech|technology|main|new|default|usual){_W}){{0,2}}"
        rf"stack\s{{0,4}}(?:is|:|['’]s)\s{{0,4}}(?:(?:now|currently){_W})?",
        "list",
        ("stack",),
    ),
    _rule(
        "stack.es",
        "user",
        "stack",
        rf"\b(?:mi|nuestro){_W}stack(?:{_W}(?:tecnol[oó]gico|t[eé]cnico|actual))?"
        rf"\s{{0,4}}(?:(?:ahora|actualmente){_W})?(?:es|:)\s{{0,4}}(?:(?:ahora|actualmente){_W})?",
        "list",
        ("stack",),
    ),
    # <env>::database | <env>::platform
    _rule(
        "environment.platform",
        "environment",
        "database",
        rf"(?<![\w-]){_NOT_OWNED}(?P<subject>{_ENVS}){_W}{_ENV_VERBS}{_W}",
        "env",
        ("staging", "prod", "dev", "desarrollo"),
    ),
    _rule(
        "environment.database",
        "environment",
        "database",
        rf"(?<![\w-]){_NOT_OWNED}(?P<subject>{_ENVS}){_W}(?:db|database){_W}is{_W}(?:now{_W})?",
        "env",
        ("staging", "prod", "dev", "desarrollo"),
    ),
    # clinical headers
    _rule(
        "clinical.diagnosis",
        "patient",
        "diagnosis",
        rf"(?<!\w)(?:diagn[oó]stico(?:{_W}(?:principal|actual|definitivo))?|diagnos[ie]s)"
        + _HEADER_END,
        "list",
        ("diagn",),
    ),
    _rule(
        "clinical.treatment",
        "patient",
        "treatment",
        rf"(?<!\w)(?:tratamiento(?:{_W}(?:actual|pautado))?|(?:current{_W})?treatment(?:{_W}plan)?)"
        + _HEADER_END,
        "list",
        ("tratamiento", "treatment"),
    ),
    _rule(
        "clinical.medication",
        "patient",
        "medication",
        rf"(?<!\w)(?:medicaci[oó]n(?:{_W}actual)?|(?:current{_W})?medications?)" + _HEADER_END,
        "list",
        ("medica",),
    ),
]

# ------------------------------------------------------------------ value shaping

_RAW_LIMIT = 200
_SENTENCE_END = re_cache.compile(r"[\n\r;!?¡¿|]|\.(?=\s|$)|\s[-–—]\s|\s?\(\s?$")
_CLAUSE_STOP = re_cache.compile(
    r",|\s(?:y|e|and|because|porque|desde|since|for|con|with|but|pero|as|como|when|cuando"
    r"|while|mientras|until|hasta|after|despu[eé]s|before|antes|which|que|where|donde"
    r"|though|aunque|so|or|o|u)(?=\s|$)",
    re.IGNORECASE,
)
_LIST_STOP = re_cache.compile(
    r"\s(?:because|porque|since|desde|but|pero|although|aunque|which|when|cuando)(?=\s|$)",
    re.IGNORECASE,
)
_HEADER_LIKE = re_cache.compile(r"[^\s:]{1,30}(?:\s[^\s:]{1,30}){0,2}\s{0,2}:")
_TIME_LIKE = re_cache.compile(r"\d{1,2}(?:[:.h]\d{0,2})?(?:am|pm|h|hs)?", re.IGNORECASE)
_LEAD_JUNK = " \t\"'«“‘`([{*_:-–—•"
_TAIL_JUNK = " \t.,;:!?\"'»”’`*_"
_CAPS = {"plain": 60, "list": 120, "place": 60, "org": 60, "env": 60}

_FILLERS = {
    "now", "ahora", "today", "hoy", "again", "too", "also", "también", "tambien", "already",
    "ya", "anymore", "actually", "then", "entonces", "finally", "instead", "currently",
    "actualmente", "recently", "recientemente", "mismo", "yet", "aún", "aun", "todavía",
    "todavia", "nowadays", "still",
}  # fmt: skip
_DETERMINERS = {
    "a", "an", "the", "this", "that", "these", "those", "my", "our", "your", "his", "her",
    "their", "its", "some", "another", "one", "un", "una", "unos", "unas", "el", "la", "los",
    "las", "este", "esta", "ese", "esa", "aquel", "aquella", "mi", "mis", "tu", "tus", "su",
    "sus", "nuestro", "nuestra", "otro", "otra", "lo", "al", "del",
}  # fmt: skip
_ARTICLES = {"the", "el", "la", "los", "las"}
_CONNECTORS = {
    "de", "del", "la", "las", "los", "el", "of", "the", "upon", "da", "do", "dos",
    "das", "di", "du", "von", "van", "der", "den", "&",
}  # fmt: skip
_PLACE_STOP = {
    "in", "en", "at", "a", "on", "to", "from", "near", "cerca", "junto", "with", "by", "de",
    "del", "for", "para", "por", "last", "this", "next", "el", "la",
} | _FILLERS  # fmt: skip
_NOT_PLACES = {
    "home", "casa", "fear", "hope", "peace", "denial", "sin", "paz", "harmony", "reality",
    "realidad", "here", "there", "aquí", "aqui", "allí", "alli", "ahí", "ahi", "it", "ello",
    "eso", "esto", "them", "him", "you", "me", "us", "comfort", "luxury", "poverty",
    "pobreza", "misery", "silence", "silencio", "bliss", "vivo", "directo",
}  # fmt: skip
_DATABASES = re_cache.compile(
    r"\b(?:postgres(?:ql)?|psql|pg\d*|mysql|mariadb|sqlite\d?|mongo(?:db)?|redis|valkey|oracle"
    r"|sql\s?server|mssql|cassandra|scylla(?:db)?|dynamo(?:db)?|cockroach(?:db)?|clickhouse"
    r"|couch(?:db|base)|neo4j|db2|firebird|duckdb|influx(?:db)?|timescale(?:db)?|aurora"
    r"|supabase|elasticsearch|opensearch|memcached|snowflake|bigquery|firestore|cosmos\s?db"
    r"|planetscale|tidb|yugabyte(?:db)?|surrealdb|arangodb|rethinkdb|keydb|h2|database)\b"
)
_NEGATION = re_cache.compile(
    r"(?:^|[^\w])(?:no|not|never|nunca|jam[aá]s|tampoco|ni|if|si|unless|whether|no\s+longer)"
    r"\s+$|n['’]t\s+$",
    re.IGNORECASE,
)
_VERB_OK_BEFORE = {
    "yo", "ahora", "actualmente", "hoy", "día", "dia", "ya", "también", "tambien", "todavía",
    "todavia", "aún", "aun", "y", "e", "pero", "que", "pues", "bueno", "mismo", "nosotros",
    "and", "now",
}  # fmt: skip
_PREV_WORD = re_cache.compile(r"(\w+)\s{1,4}$")


def _cap_length(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return cut[:space] if space > limit // 2 else cut


def _tidy(text: str) -> str:
    text = " ".join(text.split()).lstrip(_LEAD_JUNK)
    while text and text[-1] in _TAIL_JUNK + ")]}" and not (text[-1] == ")" and "(" in text):
        text = text[:-1]
    return text.strip()


def _drop_trailing_fillers(words: list[str]) -> list[str]:
    while words and words[-1].lower() in _FILLERS:
        words = words[:-1]
    return words


def _clause(raw: str, shape: str) -> str:
    """The value's own clause: up to sentence end, and (unless a list) a linking word."""
    text = raw[:_RAW_LIMIT]
    end = _SENTENCE_END.search(text)
    if end:
        text = text[: end.start()]
    stop = (_LIST_STOP if shape == "list" else _CLAUSE_STOP).search(text)
    if stop:
        text = text[: stop.start()]
    return _tidy(text)


def _is_capitalised(word: str) -> bool:
    """A word that can belong to a proper name: 'Valencia', 'NYC', 'eBay', '3M'."""
    if not word or word == "I":
        return False
    first = word[0]
    if first.isupper():
        return True
    if first.isdigit():
        return any(ch.isalpha() for ch in word) and not _TIME_LIKE.fullmatch(word)
    return first.isalpha() and any(ch.isupper() for ch in word[1:])


def _proper_name(words: list[str]) -> str | None:
    """The leading proper name: capitalised words joined by 'de', 'la', 'of'... connectors."""
    start = 0
    if len(words) > 1 and words[0] in _ARTICLES and _is_capitalised(words[1]):
        start = 1  # 'el Banco de España' and 'Banco de España' are the same employer
    if not _is_capitalised(words[start]):
        return None
    taken = [words[start]]
    index = start + 1
    while index < len(words):
        word = words[index]
        if _is_capitalised(word):
            taken.append(word)
            index += 1
            continue
        probe = index
        while probe < len(words) and probe - index < 3 and words[probe].lower() in _CONNECTORS:
            probe += 1
        if probe == index or probe >= len(words) or not _is_capitalised(words[probe]):
            break
        taken.extend(words[index : probe + 1])
        index = probe + 1
    return " ".join(taken)


def _shape_place(clause: str) -> str | None:
    words = clause.split()
    if not words:
        return None
    name = _proper_name(words)
    if name:
        return name
    if words[0].lower() in _DETERMINERS or not words[0][0].isalpha():
        return None
    kept: list[str] = []
    for word in words[:3]:
        if word.lower() in _PLACE_STOP:
            break
        kept.append(word)
    if not kept or kept[0].lower() in _NOT_PLACES:
        return None
    return " ".join(kept)


def _shape_env(clause: str) -> str | None:
    words = clause.split()
    while words and words[0].lower() in _DETERMINERS:
        words = words[1:]
    cut = len(words)
    for index, word in enumerate(words):
        if index and word.lower() in {"in", "on", "at", "en", "sobre"}:
            cut = index
            break
    words = _drop_trailing_fillers(words[:cut])
    if not words or words[0] == "I":
        return None
    value = " ".join(words)
    first = value[0]
    if first.isupper() or first.isdigit() or _DATABASES.search(fold(value)):
        return value
    return None


def shape_value(raw: str, shape: str) -> str | None:
    """Cut and clean a captured value; None when it does not look like a value of that kind."""
    clause = _clause(raw, shape)
    if not clause:
        return None
    if shape == "place":
        value = _shape_place(clause)
    elif shape == "org":
        words = clause.split()
        value = _proper_name(words) if words else None
    elif shape == "env":
        value = _shape_env(clause)
    else:
        if shape == "list" and _HEADER_LIKE.match(clause):
            return None  # an empty header followed by the next one ("Diagnóstico:\nTratamiento:")
        value = " ".join(_drop_trailing_fillers(clause.split()))
    if not value:
        return None
    value = _tidy(_cap_length(value, _CAPS.get(shape, 60)))
    return value or None


def _negated(text: str, start: int) -> bool:
    """True when the trigger is preceded by a negation or a conditional ('ya no vivo en')."""
    return _NEGATION.search(text[max(0, start - 24) : start]) is not None


def _verb_context_ok(text: str, start: int) -> bool:
    """A bare Spanish verb must start its clause, so 'busco trabajo en X' is no employer."""
    previous = _PREV_WORD.search(text[max(0, start - 30) : start])
    if previous is None:
        return True
    word = previous.group(1).lower()
    return word in _VERB_OK_BEFORE or word.isdigit()


# ------------------------------------------------------------------ dated lines

_LINE_PREFIX = re_cache.compile(r"[\s#>*\-\[(|•·_]*(?:[^\W\d_]{1,20}[.:,]?\s{1,3}){0,3}")
_PREFIX_LIMIT = 60


def _line_dates(text: str) -> tuple[list[int], list[str]]:
    """Positions and days of dates that head a line ('2024-03-11: ...', 'Consulta 15/03/2024')."""
    from ihmt.text.dates import find_dates

    line_starts = [0] + [match.end() for match in re.finditer(r"\n", text)]
    positions: list[int] = []
    days: list[str] = []
    for start, _end, day in find_dates(text):
        line_start = line_starts[bisect.bisect_right(line_starts, start) - 1]
        if start - line_start > _PREFIX_LIMIT:
            continue
        if _LINE_PREFIX.fullmatch(text, line_start, start):
            positions.append(start)
            days.append(day)
    return positions, days


# ------------------------------------------------------------------ extractor


class FactExtractor:
    """Runs fact patterns over text; safe on any input and linear for the built-in rules."""

    def __init__(self, patterns: Iterable[FactPattern] | None = None) -> None:
        source = DEFAULT_PATTERNS if patterns is None else patterns
        self.patterns: list[FactPattern] = [pattern.validate() for pattern in source]

    def add_pattern(
        self,
        subject: str,
        attribute: str,
        regex: str,
        name: str | None = None,
        *,
        shape: str = "plain",
    ) -> FactPattern:
        """Add a rule at run time; a rule with the same name replaces the older one."""
        pattern = FactPattern(
            subject=subject.strip().lower() if isinstance(subject, str) else subject,
            attribute=attribute.strip().lower() if isinstance(attribute, str) else attribute,
            regex=regex,
            name=name or "",
            shape=shape,
        )
        if not name:
            pattern.name = f"custom.{pattern.subject}.{pattern.attribute}"
        pattern.validate()
        self.patterns = [old for old in self.patterns if old.name != pattern.name] + [pattern]
        return pattern

    def extract(self, text: str, *, timestamp: str, source_leaf: str | None = None) -> list[Fact]:
        """Facts stated in ``text``, in text order.

        A fact under a dated line ("2024-03-11 — vivo en Madrid") takes that line's date;
        otherwise it takes ``timestamp``. The same (key, value) on the same date is kept once
        (not once per text: a journal saying Madrid, then Valencia, then Madrid again must keep
        the third statement or the timeline would end on the wrong value).
        """
        default = canonical_timestamp(timestamp)
        if not isinstance(text, str) or not text.strip():
            return []
        lowered = text.lower()
        candidates: list[tuple[int, int, Fact]] = []
        for order, pattern in enumerate(self.patterns):
            if pattern.hints and not any(hint in lowered for hint in pattern.hints):
                continue  # cheap substring test spares a regex scan of the whole text
            try:
                for match in pattern.compiled().finditer(text):
                    fact = self._fact_from(pattern, match, text, default)
                    if fact is not None:
                        candidates.append((match.start(), order, fact))
            except Exception:  # a custom rule misbehaving must not cost the other facts
                continue
        if not candidates:
            return []
        candidates.sort(key=lambda item: (item[0], item[1]))
        self._date_facts(text, default, candidates)
        found: list[Fact] = []
        seen: set[tuple[str, str, str]] = set()
        for _start, _order, fact in candidates:
            mark = (fact.key, fold(fact.value), fact.timestamp)
            if mark not in seen:
                seen.add(mark)
                fact.source_leaf = source_leaf
                found.append(fact)
        return found

    @staticmethod
    def _date_facts(text: str, default: str, candidates: list[tuple[int, int, Fact]]) -> None:
        """Give each fact the date of the nearest dated line above it (found only when needed)."""
        try:
            positions, days = _line_dates(text)
        except Exception:  # dates are a refinement; never lose the facts over them
            return
        for start, _order, fact in candidates:
            index = bisect.bisect_right(positions, start) - 1
            if index >= 0 and days[index] != default[:10]:
                fact.timestamp = f"{days[index]}T00:00:00Z"

    @staticmethod
    def _fact_from(
        pattern: FactPattern, match: re.Match[str], text: str, default: str
    ) -> Fact | None:
        try:
            raw = match.group(pattern.value_group)
        except IndexError:
            return None
        if not raw:
            return None
        start = match.start()
        if _negated(text, start):
            return None
        if pattern.verb_first and not _verb_context_ok(text, start):
            return None
        value = shape_value(raw, pattern.shape)
        if not value:
            return None
        subject, attribute = pattern.subject, pattern.attribute
        if "subject" in match.re.groupindex and match.group("subject"):
            subject = fold(match.group("subject"))
        if pattern.shape == "env":
            attribute = "database" if _DATABASES.search(fold(value)) else "platform"
        return Fact(
            subject=subject.strip().lower(),
            attribute=attribute.strip().lower(),
            value=value,
            timestamp=default,
            origin=FactOrigin.EXTRACTED,
        )


def patterns_from_config(items: Any) -> list[FactPattern]:
    """Rules from config entries {"subject", "attribute", "regex", "name"?, "shape"?}."""
    if not isinstance(items, list):
        raise InputError("fact patterns config must be a list of objects")
    patterns: list[FactPattern] = []
    for index, item in enumerate(items):
        label = f"fact pattern #{index}"
        if isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"]:
            label += f" ({item['name']})"
        if not isinstance(item, dict):
            raise InputError(f"{label}: must be an object with subject, attribute and regex")
        missing = [k for k in ("subject", "attribute", "regex") if not isinstance(item.get(k), str)]
        if missing:
            raise InputError(f"{label}: missing or non-string {', '.join(missing)}")
        try:
            pattern = FactPattern(
                subject=item["subject"].strip().lower(),
                attribute=item["attribute"].strip().lower(),
                regex=item["regex"],
                name=str(item.get("name") or ""),
                shape=str(item.get("shape") or "plain"),
            ).validate()
        except InputError as exc:
            raise InputError(f"{label}: {exc}") from None
        patterns.append(pattern)
    return patterns
