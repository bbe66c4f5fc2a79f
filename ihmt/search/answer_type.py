"""What shape of answer a question asks for, and whether a memory holds one.

"What's Luis's phone number?" is answered only by a memory that holds a phone number; "what
time is the standup?" only by one that holds a time of day. A memory about Luis that gives
his role, or a memory about the standup that gives its channel, is about the subject but does
not answer. Reading the question's wh-phrase (English and Spanish) gives the shape; a pattern
over the memory's text says whether the shape is there.

Two uses, both in the engine:
- ranking: among the leading candidates, one that holds the shape asked for goes first;
- NOT FOUND: for shapes that no answer can lack (a phone number, an e-mail address, an IP
  address, a port, a price, a time of day), no leading candidate holding one means memory
  does not have the answer, however well the memories match the subject's words.

Only the question's cue words and the candidates' own text are read; the patterns are
bounded (no nested repetition), so a 2,000-character question or a 3,000-word runbook costs
one linear scan each.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .. import re_cache
from ..text.given_names import GIVEN_NAMES
from ..text.reply import split_reply
from ..text.tokenize import fold, terms
from .unknown_names import CALENDAR_WORDS

_MONTHS = (
    "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june"
    "|july|august|september|october|november|december|ene|abr|ago|dic|enero|febrero|marzo"
    "|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre"
    "|janvier|f[ée]vrier|mars|avril|mai|juin|juillet|ao[ûu]t|d[ée]cembre"
)
# the last part of a site's name: common top-level domains and the private ones teams use
# (not "md", "py", "rs", "sh", "ts", "js": file extensions first)
_DOMAIN_ENDINGS = (
    "com|net|org|io|dev|app|cloud|ai|co|uk|de|es|fr|it|nl|pt|uy|ar|cl|pe|mx|br|ca|us|eu|ch"
    "|at|be|dk|se|no|fi|pl|cz|ee|ie|nz|au|za|ke|ng|in|jp|kr|tw|sg|vn|gr|tr|cat|eus|gal|edu"
    "|gov|info|biz|tech|site|online|systems|internal|local|lan|corp|home|intra|example|test"
)
_WEEKDAYS = (
    "monday|tuesday|wednesday|thursday|friday|saturday|sunday|mondays|tuesdays|wednesdays"
    "|thursdays|fridays|saturdays|sundays|lunes|martes|miercoles|jueves|viernes|sabado|domingo"
    "|sabados|domingos|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche"
)
_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty"
    "|hundred|thousand|million|dozen|half|once|twice|uno|una|dos|tres|cuatro|cinco|seis|siete"
    "|ocho|nueve|diez|once|doce|veinte|treinta|cien|mil|media|mitad"
    "|deux|trois|quatre|cinq|sept|huit|neuf|dix|douze|quinze|vingt|trente|cent|moiti[ée]"
)

# "within 15 minutes", "Monday 9": a number followed by a unit or day is not a version
_UNITS = (
    r"(?:%|ms\b|s\b|sec|min|h\b|hour|day|week|month|year|gb|mb|tb|kb|vcpu|cpu|core|node|pod"
    r"|replica|worker|row|user|request|req|x\b|times|€|eur|usd)"
)


# currency codes written before or after an amount ("CAD 95", "14,800 NOK"); the commonest
# (EUR, USD, GBP...) have their own forms in the price pattern
_CURRENCY_CODES = (
    "ars|cop|pen|brl|chf|uyu|cad|aud|nzd|nok|sek|dkk|pln|czk|huf|jpy|cny|inr|zar|kes|ngn"
)


# an amount follows its currency: "CLP 3.600.000", "$ 1.250.000" are no phone numbers
_NOT_AFTER_CURRENCY = "(?<![$€£])(?<![$€£] )" + "".join(
    f"(?<!{code} )(?<!{code.upper()} )"
    for code in ("clp", "cop", "usd", "eur", "mxn", "ars", "pen", "brl", "uyu", "gbp")
)


@dataclass(frozen=True)
class AnswerShape:
    name: str  # its reason code parameter ("phone"); ihmt/reasons.py words it
    asks: re.Pattern[str]  # on the folded question
    holds: _Lazy  # on the memory's text, as written (compiled on first use)
    # no answer can lack it: its absence from every leading candidate means NOT FOUND (unless
    # absence_rules is off), and its values compare whole
    strict: bool
    # held only next to the subject asked about: version numbers are everywhere in technical
    # notes, and "Ubuntu 24.04" says nothing about which version of Redis runs
    near_subject: bool = False
    # a person's own value (phone, e-mail): a short memory naming the person is about them, but
    # in a long text the value must sit close to the name ("Contact: Sofía Novoa, +34 …"), or
    # it is someone else's
    personal: bool = False
    # a person's given name ("who owns billing?" -> "Irene owns it"): a capitalised word
    # counts only when it is one (ihmt/text/given_names.py) and not someone the question names
    people: bool = False
    # a place ("where does Diego live?" -> "lives in Ñuñoa"): a capitalised word after "in",
    # "to", "from", "en"... counts only when it is no month or weekday and not what the
    # question names itself
    places: bool = False
    # a strict shape whose absence from the leading memories is still no sign that memory
    # lacks the answer: a time of day is asked in other words than the memory's ("at what
    # hour do we generate the spreadsheet for the bookkeeper?" of "the invoicing export runs
    # at 03:15"), so the memory holding it is often not among the leaders. Over the 145
    # agent-question corpora that absence said NOT FOUND 9 times, 8 of them to questions
    # memory answers. The shape still ranks and its values still compare whole.
    absence_rules: bool = True


class _Lazy:
    """A value pattern compiled on its first use: most questions ask for no shape, and the
    per-prompt hook pays every pattern compiled at import on every prompt (about 10 ms for
    these)."""

    __slots__ = ("_pattern", "_compiled")

    def __init__(self, pattern: str) -> None:
        self._pattern = pattern
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re_cache.compile(self._pattern)
        return self._compiled

    def search(self, text: str) -> re.Match[str] | None:
        return self.compiled.search(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text)


def _cue(pattern: str) -> re.Pattern[str]:
    # an identifier is no question word: "total_price" or "app-version" asks for nothing
    return re_cache.compile(r"(?<![\w.-])(?:" + pattern + r")(?![\w-])")


# a phone number has seven digits or more. Not a date ("2026-05-26", "2026-03). 31 issues"),
# an IP address, a ticket or a release ("INC0099407", "v2025.11.3"), an amount ("CLP
# 3.600.000") or a range of values ("0.1-1.8 V"), which digits and dashes alone would match
_FULL_NUMBER = (
    r"(?<![\w.:/=-])(?!\d{4}-\d\d-\d\d(?!\d))(?!(?:19|20)\d\d-[01]\d(?!\d))"
    r"(?!\d{1,3}(?:\.\d{1,3}){3}(?!\d))"
    + _NOT_AFTER_CURRENCY
    + r"(?=(?:[ ().-]{0,2}\d){7})\+?\d[\d ().-]{5,18}\d"
)

# a place is written after a preposition, capitalised: "lives in Ñuñoa", "moved to El Paso",
# "se mudó a Valencia", "works from the Lisbon office" (fixed-width look-behinds, one each) ...
_PLACE_BEFORE = (
    "in ",
    "in the ",
    "to ",
    "to the ",
    "from ",
    "from the ",
    "at ",
    "at the ",
    "near ",
    "on the ",
    "out of ",
    "en ",
    "en el ",
    "en la ",
    "a ",
    "al ",
    "desde ",
    "de ",
    "cerca de ",
)
_PLACE = (
    "(?:"
    + "|".join(f"(?<=(?<![\\w-]){before})" for before in _PLACE_BEFORE)
    + ")[A-ZÁÉÍÓÚÑ][\\wáéíóúñü'’-]*"
)
# ... shortly after a word of living, working or moving: "in BigQuery", "to Lena", "in English"
# are no places, and a note about someone names tools and people far more often than towns
_PLACE_VERB = re_cache.compile(
    r"(?<![\w-])(?i:lives?|lived|living|based|moved?|moving|relocat\w*|join\w*|works?|worked"
    r"|working|office|home|remote(?:ly)?|went|goes|going|settled|vive|viv[ií]\w*|mud\w+"
    r"|cambi\w+|resid\w+|trabaj\w+|instal\w+|sede|casa|oficina|remoto|va|van|fue|habite"
    r"|travaill?\w*|bureau|d[ée]m[ée]nag\w*)(?![\w-])"
)
PLACE_REACH = 70  # characters after such a word where its place is written

# "what's the repo URL?", "the URL of the truck-health repo", "link to the rumbo GH repo": a
# code repository's address is its host and path ("github.com/cbfc/frostwatch",
# "gitlab.hsrq.local/farmacia/botiquin", "git@host:team/app.git"), never a site's name alone
# ("the mosquitto.org apt repo") nor any web page; asked, it stands in for the plain URL shape
_REPOSITORY_URL = AnswerShape(
    "url",
    _cue(
        r"(?:urls?|links?|web address|enlaces?|direccion)(?: [\w'’-]+){0,5} (?:repo|repos"
        r"|repository|repositories|repositorio|repositorios)"
        r"|(?:repo|repository|repositorio|git|gitlab|github|gh)(?: [\w-]+)? (?:urls?|links?"
        r"|address|remote)"
    ),
    _Lazy(
        r"(?i:\b(?:https?|ssh|git)://)[^\s/]+/[^\s/)>\]]+/[^\s)>\]]+"
        r"|\b(?:[\w-]+\.)+[A-Za-z]{2,}(?::\d{2,5})?/[\w.-]+/[\w.-]*\w"
        r"|\bgit@[\w.-]+:[\w.-]+/[\w.-]*\w"
    ),
    False,
)

SHAPES: tuple[AnswerShape, ...] = (
    AnswerShape(
        "phone",
        # a bare "phone" is mostly the device ("how does the phone know to fetch it?", "a basic
        # phone", "reach her phone"): a number is asked for by "phone number", by someone's
        # phone ("Ana's phone", "the phone of the NOC") or by what the phone is ("what's the
        # on-call phone?")
        _cue(
            r"(?:tele)?phone (?:numbers?|extension)|(?<=\w['’]s )(?:tele)?phone|(?<=s' )(?:tele)?phone"
            r"|numero de telephone|(?:tele)?phone (?:of|for|du|de|des) (?!(?:the )?(?:app|apps|tests?|testing|builds?)\b)"
            r"|(?:(?<=what's )|(?<=what is ))(?:(?:the|his|her|their|your|my) )?(?:[a-z-]+ )?"
            r"(?:tele)?phone(?! (?:app|apps|application|screen|model|models|os|version|users?"
            r"|builds?|tests?)\b)"
            # "¿qué teléfono usa para probar?": which device
            r"|(?<!que )(?<!cual )telefono"
            # a person's extension ("Ander's extension", "his desk extension"), not a
            # software one ("which Postgres extension")
            r"|(?<=\w['’]s )(?:desk )?extension|(?<=s' )(?:desk )?extension|desk extension"
            r"|(?:his|her|their|my|your) extension|extension number|(?:numero de )?extension de"
        ),
        _Lazy(
            _FULL_NUMBER
            + r"|(?i:\bext(?:ensi[oó]n)?\.?(?:\s(?:is|es|number|no\.?|n[º°]))?(?:\s(?:now|ahora))?:?\s*\d{2,6})"
        ),
        True,
        personal=True,
    ),
    AnswerShape(
        "phone",
        # a mobile number is a whole number: an office extension ("extension 4412") is no
        # answer to "what's Luis Ortega's mobile number?"
        _cue(
            r"(?:mobile|cell|cellphone|whatsapp) (?:phone )?number|(?<!app )movil(?! (?:app|apps)\b)"
            # "Kasper's mobile", "Jordi's Signal number": someone's number by its app or device
            r"|(?<=\w['’]s )(?:mobile|cell|cellphone)(?! (?:app|apps|team|build|builds|client"
            r"|release|releases|version|lead|dev|devs|developers?|code|repo|work|screens?)\b)"
            r"|(?<=\w['’]s )(?:signal|telegram) number"
            r"|celular(?! (?:app|apps)\b)"
            # someone's WhatsApp ("Thandi's WhatsApp", "el WhatsApp de Thandi", "her WhatsApp"),
            # not the app or a group on it ("the WhatsApp group", "el grupo de WhatsApp")
            r"|(?:(?<=\w['’]s )|(?<=s' )|(?<=\bhis )|(?<=\bher )|(?<=\btheir )|(?<=\byour )"
            r"|(?<=\bel )|(?<=\bsu )|(?<=\btu )|(?<=\bnumero de ))whatsapp"
            r"(?! (?:group|groups|chat|chats|channel|channels|grupo|grupos|business|api|app|bot"
            r"|bots|templates?|messages?|web|desktop|integration)\b)"
        ),
        _Lazy(_FULL_NUMBER),
        True,
        personal=True,
    ),
    AnswerShape(
        "email",
        _cue(
            r"e-?mail address|(?<=['’]s )e-?mail|(?<=s' )e-?mail|(?:his|her|their|of|de|del|su) e-?mail"
            r"|correo(?: electronico)?|courriel|adresse (?:e-?mail|courriel|mail)"
        ),
        _Lazy(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b"),
        True,
        personal=True,
    ),
    AnswerShape(
        "ip",
        # "the rate limit per IP" counts by address, it does not ask for one
        # ... and "the IP allowlists" is a rule about addresses, not one of them; "the IP
        # range" asks for a network, which a memory writes with its prefix ("10.42.0.0/24")
        _cue(
            r"(?<!per )(?<!by )(?<!each )(?<!por )(?:ip|ip address|ipv4|ipv6)"
            r"(?! (?:allow ?lists?|white ?lists?|block ?lists?|black ?lists?|restrictions?"
            r"|filtering|bans?|ranges?|blocks?|subnets?|prefix(?:es)?|networks?|cidrs?)\b)"
            r"|direccion ip|adresse ip"
        ),
        _Lazy(
            # "... at 10.20.0.31." ends a sentence: a dot after it is no fifth part
            # ... a network written with its prefix ("10.0.1.0/24") is a range, no address
            r"(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?!\d|\.\d|/\d)|(?=[0-9a-fA-F:]{3,}::|::)[0-9a-fA-F:]{2,39}"
        ),
        True,
    ),
    AnswerShape(
        "network",
        # "what CIDR does the prod VPC use?", "the address range of the SCADA VLAN", "which
        # subnet do the runners sit in?": a network, which a memory writes with its prefix
        # ("10.42.0.0/24"); not "the subnet manager" nor "a subnet group"
        _cue(
            r"cidrs?(?! notation)|(?:ip|address|network|addressing) ranges?"
            r"|(?:what|which)(?:'s| is| are)? (?:the |our )?(?:[\w-]+ ){0,3}subnets?"
            r"(?! (?:manager|group|ids?|names?|tags?)\b)"
            r"|rangos? de (?:ip|direcciones)|(?:que|cual|en que) (?:[\w-]+ ){0,3}subred(?:es)?"
        ),
        _Lazy(r"(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}/\d{1,2}(?!\d)"),
        True,
    ),
    AnswerShape(
        "port",
        _cue(r"port|ports|puerto|puertos"),
        # "node:22-bookworm-slim" is an image tag, "~11:40" a time of day, "2025-10-01" a date:
        # not ports
        _Lazy(
            r"(?<!(?<![\w.-])\d)(?<!(?<![\w.-])\d\d):\d{2,5}(?![\d-])"
            # a bare number ends a sentence ("listens on 8443."), never starts a date
            # (a bare year, "since 2021.", is no port)
            r"|(?i:port|puerto)s?\s*:?\s*\d{2,5}"
            r"|(?<![\w.-])(?!(?:199\d|20[0-3]\d)(?!\d))\d{4,5}(?!\w|\.\d|-\d)"
        ),
        True,
    ),
    AnswerShape(
        "price",
        _cue(
            # "the cost review", "cost savings": a topic, not the value asked; "cut it for
            # cost", "to reduce cost": a reason
            r"(?<!for )(?<!cut )(?<!reduce )(?<!save )cost(?! (?:review|reviews|report|reports|savings?|cuts?|center|centre|centers"
            r"|allocation|explorer|dashboard|optimi[sz]ation)\b)"
            # "a charge" is also a card payment ("re-send a charge to the processor"): only
            # a charge with a kind of price, or "how much ... charge", asks for an amount
            # "the price lookup", "price changes": a thing about prices, not an amount
            r"|costs|price(?! (?:lookups?|services?|api|engine|feeds?|lists?|changes?|updates?"
            r"|cache|calculation|logic|pages?|tables?|rules?)\b)|prices|priced|(?:service|delivery|shipping|late|extra|monthly|annual"
            r"|setup|cancellation) charges?|fee|fees|salary|hourly rate|day rate"
            r"|monthly rate|how much (?:do|does|did|will|would) (?:\w+ ){0,3}(?:pay|paid|charge)"
            # "the monthly rent for the store": an amount; "rent a car" is the verb
            r"|(?:the|monthly|annual|yearly|office) rent(?! (?:a|an|the)\b)|rent (?:for|of|on)\b"
            r"|alquiler|renta mensual|loyer"
            r"|what (?:do|does|did|will|would) (?:\w+ ){0,3}charge"
            r"|cuesta|cuestan|costo|coste|precio|cobra|cobran|tarifa|cuota"
            r"|coute|coutent|prix|tarif|frais|combien (?:paie|paye|payons|facture|factures)"
        ),
        _Lazy(
            # a currency sign next to an amount ("$24", "7 €"), not "$(date +%F)" in a command
            r"[€$£¥]\s?\d|\d\s?[€$£¥]"
            # the Peruvian sol and the Uruguayan peso by their signs: "S/ 52", "$U 50"
            r"|(?<![\w/])S/\s?\d|\$U\s?\d"
            r"|(?i:\d\s?(?:k|m)?\s?(?:eur|euros?|usd|dollars?|gbp|pounds?|dolares|mxn|clp"
            r"|pesos?)\b)"
            # the currency code first, as invoices and budgets write it: "USD 4,500"
            r"|(?i:\b(?:eur|usd|gbp|mxn|clp|uf|" + _CURRENCY_CODES + r")\s?\d)"
            # ... or after the amount: "19.900 COP", "1.200 ARS", "14,800 NOK"
            r"|(?i:\d\s?(?:" + _CURRENCY_CODES + r")\b)"
            # in the smaller unit: "12 cents", "40 céntimos"; pence written short only with
            # what it is paid for ("24.1p per kWh", "8p/min"), as "1080p" is a resolution
            r"|(?i:\d\s?(?:pence|cents?|c[ée]ntimos?|centavos?)\b)|\d(?:[.,]\d+)?p(?: per\b|/)"
        ),
        True,
    ),
    AnswerShape(
        "time",
        _cue(
            # "what time zone" asks for a zone, not a time of day
            r"what time(?! ?zones?\b)|which time(?! ?zones?\b)|at what hour|what hour|how early"
            r"|how late"
            r"|(?:a|hasta|desde|para) (?:que|cual) hora|que hora|a quelle heure|quelle heure"
        ),
        _Lazy(
            # "10:30", "10h30"; "10.30" only after a word that sets a time ("at 10.30", "a las
            # 10.30"), since "PostgreSQL 12.17" and "Ubuntu 18.04" are no times of day
            r"(?<![\d.:])\d{1,2}[:h]\d{2}(?!\d|[.:]\d)"
            # ... and the hour alone as French writes it: "à 10h", "vers 14 h"
            r"|(?<![\w.:])(?:[01]?\d|2[0-3])\s?h(?![\w'’])"
            r"|(?i:(?<![\w.])(?:at|by|from|until|till|to|a las|desde las|hasta las|de|-)\s?)"
            r"\d{1,2}\.\d{2}(?!\d|[.:]\d)"
            r"|(?<!\d)\d{1,2}\s?(?i:am|pm|a\.m\.|p\.m\.)"
            r"|(?i:\bnoon\b|\bmidnight\b|mediod[ií]a|medianoche|\ba las \d)"
        ),
        True,
        absence_rules=False,
    ),
    AnswerShape(
        "birthday",
        _cue(
            r"birthday|birthdays|date of birth|cumpleanos|fecha de nacimiento|anniversaire"
            r"|date de naissance"
        ),
        _Lazy(r"(?i)birthday|cumplea[ñn]os|\bborn\b|naci[óo]\b|nacimiento|date of birth"),
        True,
    ),
    AnswerShape(
        "username",
        # "Ana's handle", "the Slack handle"; "how many users did lobbyd handle" asks for none
        _cue(
            r"username|usernames|user name|nombre de usuario|usuario de github"
            r"|nom d'utilisateur|identifiant"
            r"|(?<='s )handle|(?<=’s )handle|(?<=s' )handle"
            r"|(?:his|her|their|my|your|our|slack|github|gitlab|twitter|telegram|discord|matrix"
            r"|mastodon|the) handle"
        ),
        _Lazy(
            r"(?i)user ?name|\bhandle\b|\busuario\b|\buser\s*[:=]|(?<![\w.])@[a-z0-9][\w-]{1,38}\b"
            r"|github\.com/[\w-]+|gitlab\.com/[\w-]+"
        ),
        True,
        near_subject=True,  # Ana's handle is no answer about Nerea's
    ),
    AnswerShape(
        "date",
        _cue(
            r"what date|which date|what day|which day|birthday|deadline|due date|since when"
            r"|until when|que dia|que fecha|cumpleanos|fecha limite|plazo|desde cuando|hasta cuando"
            r"|quelle date|quel jour|date limite|echeance|depuis quand|jusqu'a quand"
        ),
        _Lazy(
            r"(?i:\b(?:" + _MONTHS + r"|" + _WEEKDAYS + r")\b)|\d{4}-\d{2}-\d{2}"
            r"|(?<!\d)\d{1,2}/\d{1,2}(?!\d)|\b(?:Q[1-4]|H[12])\b|\b20\d\d\b"
            r"|(?i:\b(?:today|tomorrow|tonight|weekly|daily|monthly|yearly|every|hoy|manana|cada"
            r"|demain|chaque)\b)"
            r"|(?<![\d.:])\d{1,2}[:h]\d{2}(?!\d|[.:]\d)"
        ),
        False,
    ),
    AnswerShape(
        "version",
        # "which Redis version", "version of the chart", "qué versión de": asked for; "the
        # paper's full version" is a document, not a release
        _cue(
            r"(?:which|what|que|cual|cuales|quel|quelle|quels|quelles)\s+(?:[\w.+#-]+\s+){0,3}versions?"
            r"|(?:which|what|que|cual|cuales)\s+(?:[\w.+#-]+\s+){0,3}version(?:es)?"
            r"|versions? of|version(?:es)? de|version(?:es)? del"
        ),
        _Lazy(
            # an IP address ("pve01 is 192.168.50.10") is no release number
            r"(?<![\w.])(?<!^)(?<!# )(?<!\n)(?!\d{1,3}(?:\.\d{1,3}){3}(?!\d|\.\d))"
            # ... nor a share or a measure ("6.1%", "7.2 GB", "0.05 m")
            # ... with a pre-release or an editor build after it ("3.13.0rc2", "2022.3.50f1")
            r"v?\d+\.(?:\d+|x)(?:\.\d+)*(?:(?:[abfp]|rc)\d+)?(?![\w.]*[A-Za-z])(?<!\.\d{3})"
            r"(?!\s?(?i:%|°|[kmgt]i?b\b|m\b|cm\b|mm\b|km\b|kg\b|ms\b|s\b|h\b|€|\$))"
            r"|(?i:\blts\b)"
            # ("Postgres 16." ends a sentence; "Postgres 16.4" is read whole above)
            # (a name ending a sentence and a numbered line after it are no version: "...,
            # Paperless.\n3. Reinstall")
            r"|\b[A-Z][\w.+#]*(?<!\.)[ \t](?:v|version\s)?\d{1,3}(?![\w.]*[A-Za-z])(?!\d|\.\d)(?!\s?"
            + _UNITS
            + r")"
            r"|\b[a-z][\w.+-]*[@:]v?\d{1,3}(?![\w.]*[A-Za-z])(?!\d)"
            # a bare release tag ("bumped from v68 to v71"), an API's calendar version
            # ("Admin API 2026-04", "API version 2024-06-20")
            r"|(?<![\w.-])v\d{1,4}(?![\w.-])"
            # ... and told as a value ("Stripe API version is now 2024-06-20")
            r"|(?i:\bapi\s(?:version\s(?:(?:is|was|now|set|pinned|bumped|to|at|:)\s?){0,3})?)"
            r"\d{4}-\d\d(?:-\d\d)?(?!\d)"
            # a tool named in lower case with a hyphen, then its major version: "clang-format
            # 17", "gz-sim 8"
            r"|\b[a-z][\w+#]*-[\w.+#-]*[a-z]\s(?:v|version\s)?\d{1,3}(?![\w.]*[A-Za-z])(?![\d.])"
            r"(?!\s?" + _UNITS + r")"
        ),
        True,
        near_subject=True,
    ),
    _REPOSITORY_URL,
    AnswerShape(
        "url",
        # "the URL of the wiki", "link to the repo": an address on the web (a link as a verb,
        # "link the ticket", asks for none)
        _cue(
            r"urls?|(?:the|a) links? (?:to|for|of)|links? to|web address|enlaces?|direccion web"
            r"|liens?|adresse web|adresse du site"
        ),
        _Lazy(
            # a network address of any protocol: "opc.tcp://gw-01:4840", "s3://bucket/key",
            # "ssh://git@host" (not a path inside a program: "res://audio", "user://saves")
            r"(?i:\b(?:https?|s?ftp|ssh|git|s3|gs|wss?|mqtts?|amqps?|rediss?|postgres(?:ql)?|mysql"
            r"|mongodb(?:\+srv)?|ldaps?|smb|nfs|rtsps?|tcp|udp|grpcs?|opc\.tcp|jdbc:[a-z]+)://)"
            r"[^\s)>\]]+"
            r"|\b(?:[\w-]+\.)+[A-Za-z]{2,}(?::\d{2,5})?/[\w.#?=&%-]+"
            # ... or the site's name alone, which people give for its address ("Grafana lives
            # at grafana.trueque.internal"): a name ending in a domain, not a file ("setup.py")
            r"|(?<![\w.@/-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:" + _DOMAIN_ENDINGS + r")"
            r"(?::\d{2,5})?(?![\w-]|\.\w)"
        ),
        False,
    ),
    AnswerShape(
        "host",
        # "which server is Grafana on", "the hostname of the CI box"
        _cue(
            r"hostnames?|host names?|(?:which|what) (?:host|server|machine|box|vm)"
            r"|(?:que|cual|en que) (?:host|servidor|maquina)"
            r"|(?:quel|quelle|sur quel|sur quelle) (?:hote|serveur|machine|vm|box)|nom d'hote"
        ),
        _Lazy(
            # a name in a domain ("mon03.andes.internal"), a machine numbered in its name
            # ("ci-runner-03", "pve01"), or an address
            r"\b[a-z0-9][\w-]*(?:\.[\w-]+)*\.(?:internal|local|lan|home|arpa|corp|intra|com|net"
            r"|org|io|dev|cloud|app|edu|es|cl|ar|uy|co|mx|pe|ec|de|uk)\b"
            r"|\b[a-z][a-z0-9]*-[a-z0-9-]*\d{1,3}\b|\b[a-z]{3,}\d{2}\b"
            r"|(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?![\d.])"
        ),
        False,
    ),
    AnswerShape(
        "size",
        # "how much RAM does pve01 have?", "how much heap does Solr get?": an amount of memory
        # or disk, which a memory states with its unit ("64 GB", "512MiB", "2 TB")
        _cue(
            r"how much (?:ram|memory|disk|disk space|storage|storage capacity|heap|swap|vram)"
            r"|(?:ram|memory|disk|heap) size|cuanta (?:ram|memoria|memoria ram|capacidad)"
            r"|cuanto (?:disco|espacio)|combien de (?:ram|memoire|disque|stockage|espace)"
        ),
        _Lazy(
            r"(?<![\w.])\d+(?:[.,]\d+)?\s?(?:[KMGTP]i?B|[KMGTP](?![\w'’]))(?![\w'’])"
            r"|(?i:\b(?:kilo|mega|giga|tera)bytes?\b|\bgigs?\b)"
        ),
        True,
        # a short memory about the host holds its size anywhere; in a runbook the size must
        # sit near the host's name, or it is another machine's
        personal=True,
    ),
    AnswerShape(
        "duration",
        # "how long does the CI job take?", "how long do we keep the logs?": a span of time (or,
        # "how long are the join codes?", a length), which a memory states with its unit; a
        # bare digit ("runs on ci-03") is none
        _cue(
            r"how long|cuanto tiempo|cuanto tarda|cuanto dura|cuantos dias|durante cuanto"
            r"|combien de (?:temps|jours|semaines|mois|heures|minutes)|pendant combien|duree"
        ),
        _Lazy(
            # a number in digits takes any unit ("90s", "3 h", "14d"); a number in words only a
            # unit written out, after a space ("and" is no "an" of "d", "ones" no "one" of "s")
            r"(?i:(?<![\w.])(?:\d+(?:[.,]\d+)?[\s-]?(?:ms|s|h|d)\b|(?:\d+(?:[.,]\d+)?[\s-]?"
            r"|(?:an?|one|two|three|four|five|six|seven|eight|nine|ten"
            r"|twelve|fifteen|twenty|thirty|forty|fifty|sixty|ninety|half an?|a few|several|un|una"
            r"|dos|tres|cuatro|cinco|seis|siete|ocho|diez|doce|quince|veinte|treinta|media"
            r"|une|deux|trois|quatre|cinq|sept|huit|dix|douze|quinze|vingt|trente)[\s-])"
            r"(?:secs?|seconds?|mins?|minutes?|hrs?|hours?|days?|nights?|weeks?|wks?"
            r"|months?|years?|yrs?|segundos?|minutos?|horas?|dias?|días?|noches?|semanas?|mes|meses"
            r"|años?|anos?|characters?|chars?|digits?|lines?|words?|pages?|caracteres|digitos"
            r"|dígitos|lineas|líneas|palabras|paginas|páginas"
            r"|secondes?|heures?|jours?|nuits?|semaines?|mois|ans|ann[ée]es?)\b))"
            r"|(?i:\b(?:overnight|forever|indefinitely|a fortnight|media hora|ttl)\b)"
            r"|(?<![\w.])\d+[smhdwy](?![\w.])"
        ),
        False,
    ),
    AnswerShape(
        "frequency",
        # "how often does the backup run?": a rate ("every 6 hours", "nightly", "twice a week",
        # "cada 15 minutos", "mensuales"), which a bare digit in a host name is not
        _cue(
            r"how often|how frequently|cada cuanto|con que frecuencia|cuantas veces"
            r"|a quelle frequence|tous les combien|combien de fois"
        ),
        _Lazy(
            r"(?i:\b(?:every|each|per|once|twice|thrice|cada|por)\b"
            r"|\b(?:hourly|daily|nightly|weekly|biweekly|fortnightly|monthly|quarterly|yearly"
            r"|annually|weekdays?|weekends?|diari[oa]s?|semanal(?:es|mente)?|quincenal(?:es)?"
            r"|mensual(?:es|mente)?|trimestral(?:es)?|anual(?:es|mente)?|nocturn[oa]s?"
            r"|a diario|(?:a|an|one|two|three) times?"
            r"|chaque|tous les|toutes les|quotidien(?:ne)?s?|hebdomadaires?|mensuel(?:le)?s?"
            r"|annuel(?:le)?s?|la nuit|aux \d+)\b"
            r"|\b\d+\s?(?:x|times|veces)\b|\b(?:a|an|al|a la)\s(?:day|week|month|year|hour|dia"
            r"|semana|mes|ano|año|hora)\b|/(?:day|week|month|h|hr|d)\b"
            r"|\bcron\b|(?<![\w.])[\d*/,-]+(?:\s[\d*/,-]+){4}(?![\w.]))"
        ),
        False,
    ),
    AnswerShape(
        "person",
        # "who owns the recommendations service?", "¿quién lleva la contabilidad?": someone,
        # named; "the person who approved" inside a longer question asks it too
        # French "qui" is also a relative pronoun ("le service qui tourne"): only as a question
        _cue(r"who|whom|who's|quien|quienes|^qui|c'est qui|qui est-ce|qui (?=s'occupe|gere)"),
        _Lazy(r"(?<![\w.@/-])[A-ZÁÉÍÓÚÑ][a-záéíóúñü]{1,20}(?![\w@-])"),
        False,
        people=True,
    ),
    AnswerShape(
        "place",
        # "which city is Tomás based in?", "¿en qué ciudad vive?"; "where does Tomás live?"
        # is read apart (_WHERE_SOMEONE_LIVES): "where do the presets live?" asks for a path
        _cue(
            r"(?:which|what|in which|in what)\s+(?:city|country|town|village|neighbou?rhood)"
            r"|(?:que|cual|en que)\s+(?:ciudad|pais|pueblo|barrio)"
        ),
        _Lazy(_PLACE),
        True,
        places=True,
    ),
    AnswerShape(
        "number",
        _cue(
            r"how many|how much|how big|how large|how old|how fast|what size"
            r"|which size|what percentage|what share|cuantos|cuantas|cuanto|cuanta|que tamano"
            r"|combien|quelle taille|quel pourcentage"
        ),
        _Lazy(r"\d|(?i:\b(?:" + _NUMBER_WORDS + r")\b)"),
        False,
    ),
)


# "when" asks for a date where it opens the question; mid-sentence it is a conjunction ("where
# do I put secrets when running locally?"). Spanish marks the question word: "cuándo".
_OPENING_WHEN = re_cache.compile(
    r"^\W*(?:(?:and|so|but|y|pero|e|et|mais)\s+)?(?:when|cuando|quand)(?![a-z])"
)
_DATE = "date"


# A question opening with "who", "where" or "why" asks for a person, a place or a reason,
# whatever else it mentions ("who signs off when the parts cost goes up?")
_OPENING_WHO = re_cache.compile(r"^\W*(?:who|whom|quien|quienes|qui|c'est qui)(?![a-z])")
# "where does Tomás live?", "where is Kenji based?", "¿dónde vive Diego?": a person's place. Only
# for someone (a given name, a pronoun, the user): "where do the SFX files live?" asks for a path
# and "where did Redis live before the move?" for a host
_WHERE_SOMEONE_LIVES = re_cache.compile(
    r"^\W*where\s+(?:does|did|do|is|was|will)\s+(?P<who>[a-z][\w'-]*)(?:\s+(?P<second>[a-z][\w'-]*))?"
    r"(?:\s+(?:currently|now|still|actually|usually))?"
    r"\s+(?:live|lives|living|based|reside|resides|residing)(?![a-z])"
    r"|^\W*donde\s+(?:vive|viven|vivia|reside|residen|esta\s+basad[oa])\s+(?P<quien>[a-z][\w'-]*)"
)
_SOMEONE = frozenset(("he", "she", "they", "you", "i", "el", "ella", "usted"))
_SOMEONE_AFTER_THE = frozenset(("user", "client", "owner", "founder", "customer", "usuario"))


def _asks_where_someone_lives(folded: str) -> bool:
    match = _WHERE_SOMEONE_LIVES.search(folded)
    if match is None:
        return False
    who = match.group("who") or match.group("quien") or ""
    if who in ("the", "el", "la"):
        return (match.group("second") or "") in _SOMEONE_AFTER_THE
    return who in GIVEN_NAMES or who in _SOMEONE


_OPENING_OTHER = re_cache.compile(
    r"^\W*(?:who|whom|whose|where|why|quien|quienes|donde|por que|qui|c'est qui|ou|pourquoi)"
    r"(?![a-z])"
)


# a question put as yes or no ("... or not?", "... ou pas ?", "... o no?") asks for a decision
_YES_OR_NO = re_cache.compile(r"(?<![a-z])(?:or not|ou pas|ou non|o no|or no)\W*$")


# "how many core-hours did the reruns cost?", "how much of our allocation does a day cost?",
# "¿cada cuánto ... las revisiones de coste?": a count, a share or how often, not an amount of
# money (which no answer in core-hours holds)
_COUNT_NOT_MONEY = re_cache.compile(
    r"(?<![a-z])(?:how many (?!(?:euros?|dollars?|pounds?|pesos?|bucks|francs?)(?![a-z]))[a-z]"
    r"|how much of(?![a-z])|cada cuanto"
    r"|combien de (?!(?:euros?|dollars?|francs?)(?![a-z]))[a-z])"
)


# "the Switch port", "el port de Switch", "the console port": a program made to run on another
# platform, not a network port (unless the question also asks "which port" or a port number)
_PLATFORMS = (
    r"(?:nintendo\s+)?switch|consoles?|consolas?|playstation|ps[345]|xbox|steam\s?deck|macos|mac"
    r"|ios|android|linux|windows|web|mobile|movil"
)
_SOFTWARE_PORT = re_cache.compile(
    r"(?<![\w-])(?:(?:" + _PLATFORMS + r")\s+ports?"
    r"|ports?\s+(?:to|of|for|de|a|al|para)\s+(?:the\s+|la\s+|el\s+|las\s+)?(?:" + _PLATFORMS + r"))"
    r"(?![\w-])"
)
_NETWORK_PORT = re_cache.compile(
    r"(?<![\w-])(?:which|what|que|cual|en que|on|quel|sur quel)\s+(?:tcp\s+)?(?:port|puerto)s?\b"
    r"|port number"
)

_COUNTED = frozenset(
    ("price", "phone", "email", "ip", "network", "port", "username", "version", "url")
)


# "the BQ view that has no phone numbers", "a build without the IP allowlist": a value the
# question rules out is not the one it asks for
_RULED_OUT = re_cache.compile(
    r"(?<![a-z])(?:no|without|sin|sans|ni)\s+(?:(?:a|an|any|the|un|una|unos|unas|de|los|las|el|la)\s+)?$"
)


def _asks(shape: AnswerShape, folded: str) -> bool:
    """Whether a cue of ``shape`` in the question asks for it (one not ruled out)."""
    return any(
        not _RULED_OUT.search(folded[max(0, m.start() - 24) : m.start()])
        for m in shape.asks.finditer(folded)
    )


def shapes_asked(question: str) -> tuple[AnswerShape, ...]:
    """The answer shapes the question's wording asks for (usually none or one)."""
    text = (question or "")[:2000]
    folded = fold(text)
    if _OPENING_OTHER.search(folded):
        # "who owns billing?" asks for someone; "where does Diego live?" for a place; other
        # "where" and "why" questions for no value of a shape
        if _OPENING_WHO.search(folded):
            return tuple(shape for shape in SHAPES if shape.people)
        if _asks_where_someone_lives(folded):
            return tuple(shape for shape in SHAPES if shape.places)
        return ()
    if _YES_OR_NO.search(folded):
        # "on garde les frais Stripe à la charge des spectateurs ou pas ?": a decision to
        # recall, not an amount
        return ()
    found = [shape for shape in SHAPES if _asks(shape, folded)]
    if _SOFTWARE_PORT.search(folded) and not _NETWORK_PORT.search(folded):
        found = [shape for shape in found if shape.name != "port"]
    if _COUNT_NOT_MONEY.search(folded):
        # ... and the things it counts are not the answer either: "how many bytes of the IP
        # does Matomo anonymize?" is answered by a number, not by an address
        found = [shape for shape in found if shape.name not in _COUNTED]
    if any(shape.name in ("duration", "frequency") for shape in found):
        # "¿cuánto tarda?": the span of time is the number asked, any digit is not; "how long
        # does B2 keep prior versions of files?" asks for a span, not for a version either
        found = [shape for shape in found if shape.name != "number" and shape.name not in _COUNTED]
    if _REPOSITORY_URL in found:
        found = [shape for shape in found if shape.name != "url" or shape is _REPOSITORY_URL]
    if _OPENING_WHEN.search(folded) or "cuándo" in text.lower():
        found += [shape for shape in SHAPES if shape.name == _DATE and shape not in found]
    return tuple(shape for shape in SHAPES if shape in found)


NEAR_BEFORE = 40  # characters before a version (or a handle) where its subject is named
NEAR_AFTER = 25  # ... or after it ("version 7.2 of Redis")
PERSONAL_TEXT = 400  # a memory this short is about the person it names: a number in it is theirs
PERSONAL_BEFORE, PERSONAL_AFTER = 120, 60  # ... in a longer text, the name sits this close


def _table_names(text: str, pos: int) -> str:
    """For a value in a Markdown table row, what names it however far: the table's first row
    (its column names: "| | tsdb-01 (old) | tsdb-02 (new) |") and the row's first cell
    ("| Memory | 64 GB | 128 GB RAM |"); "" outside a table."""
    start = text.rfind("\n", 0, pos) + 1
    if not text.startswith("|", start):
        return ""
    end = text.find("\n", pos)
    row = text[start : end if end >= 0 else len(text)]
    top = start
    while top > 0:
        above = text.rfind("\n", 0, top - 1) + 1
        if not text.startswith("|", above):
            break
        top = above
    first_end = text.find("\n", top)
    first_row = text[top : first_end if first_end >= 0 else len(text)]
    cells = row.split("|")
    return first_row + " " + (cells[1] if len(cells) > 2 else "")


_API_VERSION_ASKED = re_cache.compile(
    r"(?i)\bapi\b.{0,30}\bversions?\b|\bversions?\b.{0,12}\bapi\b"
)
_CALENDAR_VERSION = re_cache.compile(r"\d{4}-\d\d(?:-\d\d)?(?![\d-])")
# "20" in reply to "Which Node version should I pin?", "la 16" to "¿Qué versión instalamos?":
# a bare major number answering a question about a version is that version
_VERSION_ASKED = re_cache.compile(r"(?i)\bversi(?:on|ón)(?:s|es)?\b")
_BARE_MAJOR = re_cache.compile(
    r"(?i)^\W*(?:(?:la|el|the|version|versión)\s+)?v?\d{1,3}(?![\w]|[.,]\d)(?!\s?(?:"
    + _UNITS
    + r"))"
)


def holds_shape(
    text: str,
    shapes: tuple[AnswerShape, ...],
    subject: frozenset[str] | set[str] = frozenset(),
) -> bool:
    """True when ``text`` holds an answer of any of ``shapes`` (or no shape is asked). A
    near-subject shape counts only where one of ``subject`` (question terms) is named close by;
    with no subject given it counts anywhere."""
    text = text or ""
    answer, asked = split_reply(text)
    if asked and subject and subject.intersection(terms(asked)):
        # a captured reply: "3.12, we upgraded in January" answers "Which Python version
        # should I target?", so its values are about what the question names (and a reply
        # may start with its value, which a line of notes would not)
        if any(_found(shape, f" {answer}", subject) for shape in shapes):
            return True
        if (
            any(shape.name == "version" for shape in shapes)
            and _VERSION_ASKED.search(asked)
            and _BARE_MAJOR.match(answer)
        ):
            return True
        # "2024-06-20" in reply to "Is the Stripe account pinned to a specific API version?"
        # is that API's calendar version, written without the word "API" before it
        if (
            any(shape.name == "version" for shape in shapes)
            and _API_VERSION_ASKED.search(asked)
            and _CALENDAR_VERSION.match(answer.strip())
        ):
            return True
    if (
        subject
        and any(shape.name == "version" for shape in shapes)
        and _subject_major(text, subject)
    ):
        return True
    for shape in shapes:
        personal = shape.personal and len(text) > PERSONAL_TEXT
        if not (shape.near_subject or personal) or not subject:
            if _found(shape, text, subject):
                return True
            continue
        before, after = (PERSONAL_BEFORE, PERSONAL_AFTER) if personal else (NEAR_BEFORE, NEAR_AFTER)
        for match in shape.holds.finditer(text):
            if not personal and _owned_by_another(text, _value_start(match), subject):
                continue
            if personal:
                around = text[max(0, match.start() - before) : match.end() + after]
                if subject.intersection(terms(around)):
                    return True
            elif subject.intersection(_names_around(text, match, subject)):
                return True
            if subject.intersection(terms(_table_names(text, match.start()))):
                return True
            if shape.name == "version" and (
                _sentence_names(text, _value_start(match), subject)
                or _owner_is_subject(text, _value_start(match), subject)
            ):
                return True
    return not shapes


# a product written in lower case, as people type it, then its major version: "we bumped to
# node 24", "java 21 everywhere" (only for the product the question asks about: "to 24",
# "room 3" are no versions)
_LOWER_MAJOR = re_cache.compile(
    r"\b([a-z][\w+#-]*)\s+v?(\d{1,3})(?![\w]|[.,]\d)(?!\s?(?i:" + _UNITS + r"))"
)


def _subject_major(text: str, subject: frozenset[str] | set[str]) -> bool:
    """Whether ``text`` gives the major version of the product the question asks about
    the way people type it: "node 24" for "which node version does the repo want?"."""
    return any(subject.intersection(terms(m.group(1))) for m in _LOWER_MAJOR.finditer(text))


def _values(
    shape: AnswerShape, text: str, subject: frozenset[str] | set[str] = frozenset()
) -> Iterator[re.Match[str]]:
    """The values of ``shape`` in ``text``; for people, only given names the question does
    not name itself ("who does Marta report to?" is not answered by Marta)."""
    for match in shape.holds.finditer(text):
        if shape.people:
            word = match.group()
            if fold(word) not in GIVEN_NAMES or subject.intersection(terms(word)):
                continue
        if shape.places and not _a_place(text, match, subject):
            continue
        yield match


def _a_place(text: str, match: re.Match[str], subject: frozenset[str] | set[str]) -> bool:
    """Whether a capitalised word after a preposition is a place someone lives or works in:
    no month or weekday, not what the question names, a word of living, working or moving
    shortly before it ("se mudó de Rosario a Córdoba": both)."""
    word = match.group()
    if fold(word.lower()) in CALENDAR_WORDS or subject.intersection(terms(word)):
        return False
    before = text[max(0, match.start() - PLACE_REACH) : match.start()]
    return _PLACE_VERB.search(before) is not None


def _found(shape: AnswerShape, text: str, subject: frozenset[str] | set[str]) -> bool:
    return next(_values(shape, text, subject), None) is not None


# the product a version number belongs to is written right before it: "Solr 8.11.2",
# "PostgreSQL v16", "Node.js version 22"; a capitalised name or an identifier, not a verb
# or a preposition ("upgraded to 2.11.1" names no owner)
_OWNER = re_cache.compile(r"([A-Za-z][\w.+#-]*)\s+(?:v|version\s+|versi[oó]n\s+)?v?$")


def _near_subject(
    text: str, match: re.Match[str], subject: frozenset[str] | set[str], sentence: bool = False
) -> bool:
    """Whether the value ``match`` found sits next to the thing the question names and is not
    another product's ("NetBox 4 gotcha: pynetbox had to be bumped to 7.4.1": not NetBox's)."""
    if not subject or _owned_by_another(text, _value_start(match), subject):
        return False
    return bool(subject.intersection(_names_around(text, match, subject))) or (
        sentence and _sentence_names(text, _value_start(match), subject)
    )


# a product whose version a clause sets ("Addressables bumped to 1.22.3 alongside the Unity
# upgrade"): the value is that product's, whatever name follows it
_CHANGED_TO = re_cache.compile(
    r"([A-Z][\w.+#-]*)\s+(?:(?:was|is|were|are|got|has been|have been)\s+)?"
    r"(?:bumped|upgraded|updated|downgraded|pinned|moved|raised|went|goes)\s+(?:up\s+)?to\s+v?$"
)
# capitalised words that start such a clause without naming a product
_NO_PRODUCT = frozenset("we i it they this that everything all both each".split())


def _names_around(text: str, match: re.Match[str], subject: frozenset[str] | set[str]) -> set[str]:
    """The names written next to the value ``match`` found: before it, and after it unless
    the clause before it gives the value to a product the question does not name."""
    start = _value_start(match)
    before = text[max(0, match.start() - NEAR_BEFORE) : match.start()]
    after = text[match.start() : match.end() + NEAR_AFTER]
    # ... within its sentence: "Revert PR merged; Argo CD syncs. - 14:58: All pods ready on
    # v6" gives no version of Argo CD
    ends = list(_STOP.finditer(before))
    if ends:
        before = before[ends[-1].end() :]
    stop = _STOP.search(after, len(match.group()))
    if stop:
        after = after[: stop.start()]
    changed = _CHANGED_TO.search(text[max(0, start - 60) : start])
    if changed is not None and changed.group(1).casefold() not in _NO_PRODUCT:
        if not subject.intersection(_names_in(changed.group(1))):
            return _names_in(before)
    return _names_in(before + after)


# where a sentence stops, for the names next to a value: a full stop, "!" or "?" before a
# space, or a line break (not a colon: "Redis: 7.2" is Redis's)
_STOP = re_cache.compile(r"[.!?](?=\s|$)|\n")
_JOINED = re_cache.compile(r"[\w.+#]+(?:[-_][\w.+#]+)+")


# product names that are everyday words when written in lower case: "had to go to v2.7.2"
# names no Go, "go 1.22" does
_VERB_NOT_NAME = re_cache.compile(r"(?<![\w-])(?:go|swift)(?!\s*v?\d)(?![\w-])")


def _names_in(text: str) -> set[str]:
    """The terms of ``text``, an identifier counting whole and by its first part: "redis-py
    5.2" names redis-py and Redis, not Python (its part "py" reads as Python), so it is no
    Python version; "rust-toolchain.toml ... 1.93.0" still names Rust."""
    found: set[str] = set()
    text = _VERB_NOT_NAME.sub(" ", text)

    def whole(match: re.Match[str]) -> str:
        found.update(terms(match.group())[:1])
        found.update(terms(re.split(r"[-_]", match.group(), maxsplit=1)[0]))
        return " "

    found.update(terms(_JOINED.sub(whole, text)))
    return found


_SENTENCE_END = re_cache.compile(r"[.;:!?](?:\s|$)|\n")
SENTENCE_REACH = 200  # how far back a sentence is read for the thing its value belongs to


def _sentence_names(text: str, start: int, subject: frozenset[str] | set[str]) -> bool:
    """Whether the value at ``start``, written with no product's name before it, is the
    version of the subject its sentence names: "Matomo moved into the cluster and was upgraded
    to 5.2.1", "Matomo is self-hosted at stats-01, version 4.16.1"."""
    if _owner_before(text, start) is not None:
        return False  # another name's
    opening = start - 1 if start > 0 and text[start - 1] in "vV" else start
    if opening > 0 and not (text[opening - 1].isspace() or text[opening - 1] in "(\"'`"):
        return False  # part of an identifier ("PV1-3.1")
    sentence = text[max(0, start - SENTENCE_REACH) : start]
    ends = list(_SENTENCE_END.finditer(sentence))
    if ends:
        sentence = sentence[ends[-1].end() :]
    return bool(subject.intersection(_names_in(sentence)))


def _value_start(match: re.Match[str]) -> int:
    """Where the number of a value found starts: "Java 17" is found with its product's name,
    which is then the name its number follows (Java's version, not Mirth's)."""
    digit = next((i for i, ch in enumerate(match.group()) if ch.isdigit()), 0)
    return match.start() + digit


def _owner_before(text: str, start: int) -> re.Match[str] | None:
    """The name written right before the value at ``start`` ("Solr" of "Solr 8.11.2", its
    group 1), or None when a verb, a preposition or nothing precedes it ("upgraded to 2.11.1").
    The match is on the 40 characters before ``start``."""
    match = _OWNER.search(text[max(0, start - 40) : start])
    if not match:
        return None
    owner = match.group(1).strip(".-")
    named = owner[:1].isupper() or any(ch.isdigit() or ch in "-_." for ch in owner)
    return match if named else None


def _owner_is_subject(text: str, start: int, subject: frozenset[str] | set[str]) -> bool | None:
    """Whether the product named right before the value at ``start`` is what the question
    asks about: None when no name precedes it ("upgraded to 2.11.1"), False for another
    product's ("Solr 8.11.2 runs on ckan-prod-01" gives Solr's version, not CKAN's)."""
    before = text[max(0, start - 40) : start]
    match = _owner_before(text, start)
    if match is None:
        return None
    owner = match.group(1).strip(".-")
    owner_terms = set(terms(owner))
    if not owner_terms:
        return None
    if owner_terms & subject:
        return True
    # a product's name runs over several capitalised words ("Unreal Engine 5.4", "Shopify
    # Admin API 2026-04"): the version is the subject's when it names any of them
    # ... or a name with its part in brackets ("Gazebo Harmonic (gz-sim 8)")
    # ... read as one name, whose abbreviation may be what the question uses ("React Native
    # 0.76" answers "which RN version"), or its initials ("Django REST Framework 3.16"
    # answers "which DRF version")
    preceding = [w.strip("()[],") for w in before[: match.start(1)].split()]
    run = [owner]
    for word in reversed([w for w in preceding if w][-2:]):
        if not word[:1].isupper():
            break
        run.insert(0, word)
        if set(terms(word)) & subject or set(terms(" ".join(run))) & subject:
            return True
        if "".join(w[0] for w in run).casefold() in subject:
            return True
    return False


def _owned_by_another(text: str, start: int, subject: frozenset[str] | set[str]) -> bool:
    """True when the value at ``start`` follows the name of a product the question does not
    ask about (see _owner_is_subject)."""
    return _owner_is_subject(text, start, subject) is False


# the nouns that name a shape in a question ("the staging API URL", "which port"): a memory
# holding a value of that shape holds what the noun asks for, whether or not it says the noun
_SHAPE_NOUNS = frozenset(
    terms(
        "version versions url urls link links address ip cidr cidrs subnet subnets port ports "
        "puerto phone telephone "
        "number email mail correo hostname host server machine box vm price cost fee time"
    )
)


def shape_terms(question: str, shapes: tuple[AnswerShape, ...]) -> frozenset[str]:
    """The question's terms that name the shapes it asks for ("what's the staging API URL?"
    -> {"url"}): a later memory giving a URL and telling of a change holds that word's
    meaning though not the word ("Staging API is now https://...")."""
    folded = fold((question or "")[:2000])
    found: set[str] = set()
    for shape in shapes:
        for match in shape.asks.finditer(folded):
            found.update(terms(match.group()))
    return frozenset(found & _SHAPE_NOUNS)


def holds_new_value(
    text: str,
    earlier: str,
    shapes: tuple[AnswerShape, ...],
    subject: frozenset[str] | set[str] = frozenset(),
) -> bool:
    """True when ``text`` holds a value of one of ``shapes`` that ``earlier`` does not contain
    (case aside): a new URL, host or version rather than the one already stated."""
    seen = earlier[:20000].casefold()
    for shape in shapes:
        for match in _values(shape, text[:4000], subject):
            value = match.group().strip(".,;:'\"`")
            if not value or value.casefold() in seen:
                continue
            if not shape.near_subject or _near_subject(
                text, match, subject, sentence=shape.name == "version"
            ):
                return True
    return False


_VALUE_NUMBER = re_cache.compile(r"\d[\w.:/@-]*")  # a value's number: "port 8080" -> "8080"


# a value the memory says is not the one ("not 9102", "instead of 30 days", "en vez de 8080")
_NEGATED = re_cache.compile(
    r"(?i)(?<![\w])(?:not|no longer|instead of|rather than|en vez de|en lugar de|ya no|pas)"
    r"\s+(?:on\s+|at\s+|port\s+|el\s+|la\s+|the\s+)?$"
)


def values_told(
    text: str, shapes: tuple[AnswerShape, ...], subject: frozenset[str] | set[str] = frozenset()
) -> frozenset[str]:
    """The values of ``shapes`` that ``text`` gives for the question's subject (case aside):
    with a subject, only those written next to it ("Marta se muda a Sevilla. Seguirá en remoto
    y vendrá a Madrid": Sevilla is where Marta lives, Madrid only a visit)."""
    found = set()
    for shape in shapes:
        for match in _values(shape, text[:4000], subject):
            value = match.group().strip(".,;:'\"`").casefold()
            if _NEGATED.search(text, max(0, match.start() - 24), match.start()):
                continue  # "on port 9464, not 9102 like workorders": 9102 is another's
            if value and (not subject or _near_subject(text, match, subject)):
                # "port 8080" and "8080", "Python 3.11" and "3.11" are one value
                numbers = _VALUE_NUMBER.findall(value)
                found.add(max(numbers, key=len) if numbers else value)
    return frozenset(found)


def names_subject(subject: frozenset[str], matched: set[str] | frozenset[str]) -> bool:
    """Whether a candidate that matched ``matched`` of the question's terms names something of
    ``subject``. A hyphenated word of the question counts when the memory holds its parts
    apart: "the morning-after summary" is about "## The morning after ... the morning
    summary"."""
    if subject & matched:
        return True
    for term in subject:
        if "-" in term:
            parts = terms(term.replace("-", " "))
            if parts and set(parts) <= matched:
                return True
    return False


def strict_shapes(shapes: tuple[AnswerShape, ...]) -> tuple[AnswerShape, ...]:
    return tuple(shape for shape in shapes if shape.strict)


def shapes_ruling_not_found(shapes: tuple[AnswerShape, ...]) -> tuple[AnswerShape, ...]:
    """The strict shapes asked whose absence from every leading memory means NOT FOUND."""
    return tuple(s for s in strict_shapes(shapes) if s.absence_rules)


_NAMED = re_cache.compile(r"[A-Z][\w.+#]*|[\w.+#]*[\d._/-][\w.+#/-]*")
# words that name the shape asked, not what it is asked of ("the build machine's IP"); ASCII
# only: folding accented words at import would build the Unicode tables on every hook start
_CUE_WORDS = frozenset(
    terms("version versions versiones ip ipv4 ipv6 url email e-mail phone ram vram heap swap")
)
# words around "version" that do not name what is versioned ("the latest Redis version",
# "versión de PostgreSQL que corre"): articles, wh-words, qualifiers of the version itself
_NOT_OWNER = frozenset(
    "the our your their his her its my a an this that which what whats que cual cuales el la "
    "los las de del of latest current exact minimum min maximum max new newer old older "
    "required recommended supported stable pinned same default last first actual minima "
    "maxima nueva ultima exacta is are was were do does did and or for on in at to with".split()
)
_BEFORE_VERSION = re_cache.compile(r"((?:[\w.+#'’-]+\s+){1,3})versi[oó]n(?:s|es)?\b", re.I)
_AFTER_VERSION = re_cache.compile(
    r"versi[oó]n(?:s|es)?\s+(?:of|de|del)\s+((?:[\w.+#'’-]+\s*){1,4})", re.I
)
_VERSION_WORDS = frozenset(terms("version versions versiones"))


def versioned_terms(question: str) -> frozenset[str]:
    """The terms of what a version question asks the version of: the words right before
    "version" ("which Redis engine version" -> redis, engine) or the name after "version of"
    ("version of the Datadog Helm chart" -> datadog, helm); empty when it names none."""
    text = (question or "")[:2000]
    named: list[str] = []
    for match in _BEFORE_VERSION.finditer(text):
        kept: list[str] = []
        for word in reversed(match.group(1).split()):
            folded = fold(word).strip("'’")
            if folded in _NOT_OWNER or folded.endswith(("'s", "’s")):
                break
            kept.insert(0, word)
        named += kept
    for match in _AFTER_VERSION.finditer(text):
        kept = []
        for word in match.group(1).split():
            word = word.strip("?.,;:!'’")
            if not kept and fold(word) in _NOT_OWNER:
                continue
            # the name goes on while capitalised or an identifier: "PostgreSQL que corre"
            # ends at the verb
            if kept and not (word[:1].isupper() or any(ch in word for ch in "-_.0123456789")):
                break
            if fold(word) in _NOT_OWNER:
                break
            kept.append(word)
            if len(kept) == 3:
                break
        named += kept
    found = {t for word in named for t in terms(word) if not t.isdigit()}
    return frozenset(found - _VERSION_WORDS)


def subject_terms(question: str, names_only: bool = False) -> frozenset[str]:
    """The terms of what the question names: its capitalised words and identifiers ("Redis",
    "redis-prod-02", "Node.js"), not its common words. An identifier counts whole
    ("dispatcher-web", not "web"); a name with its aliases and stem ("Node.js", "nod"). A
    version question's subject is what it asks the version of: "which Redis version does
    brava-wholesale use?" is answered by Redis's version, never by brava-wholesale's.
    ``names_only``: capitalised words alone ("where is our quality-assurance contractor
    based?" names nobody; the memory says "QA contractor")."""
    versioned = versioned_terms(question)
    if versioned:
        return versioned
    found: set[str] = set()
    text = (question or "")[:2000]
    for match in _NAMED.finditer(text):
        token = match.group().strip("._/-")
        if names_only and not token[:1].isupper():
            continue
        named = terms(token)
        if not named or token.isdigit():
            continue
        if any(fold(part.lower()) in CALENDAR_WORDS for part in re.split(r"[-_/]", token)):
            continue  # "in March", "the late-May fair": when, not what the question is about
        if any(mark in token for mark in "-_/"):
            named = named[:1]
        found.update(t for t in named if not t.isdigit())
    return frozenset(found - _CUE_WORDS)


_ABBREVIATION = re_cache.compile(r"(?<![\w.-])[A-Z][A-Za-z]{0,3}[A-Z](?![\w.-])")


def spelled_out(question: str) -> frozenset[str]:
    """The terms of the question's short abbreviations that the vocabulary spells out as
    another word ("JS" -> javascript, "FE" -> frontend): a memory naming the thing by its
    tool ("Vite's dev server runs on 5173") need not write the category's name."""
    found: set[str] = set()
    for match in _ABBREVIATION.finditer((question or "")[:2000]):
        token = match.group()
        for term in terms(token):
            if term != token.lower():
                found.add(term)
    return frozenset(found)
