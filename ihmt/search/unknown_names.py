"""Names a question uses that no memory has ever mentioned.

"How much are we paying for Datadog per month?" asked of a memory where no note names Datadog
has no answer, however well a note about another bill matches "paying" and "month". A proper
name (a product, a person, a place) or an identifier ("max_connections", "node-03") is what a
question is about; when memory holds none of its words, NOT FOUND is the honest answer.

Only names the question spells as names count, and only those a memory could not be holding
under another spelling:
- a capitalised word not opening the question ("Datadog", "Node.js", "Istio");
- an identifier with a digit, an underscore or a dot ("max_connections", "zgz-srv-03"), or a
  letter and a digit ("P3"; not "Q3", "H1" or "v2", a time or a version);
- not a short acronym ("PM", "EHR", "GSC", "IaC", "PaaS"): memories often spell those out;
- not a month, weekday, season or holiday ("in April", "over Easter"): those set a time;
- not a number in the plural ("HTTP 500s") nor a file every project has ("Dockerfile");
- not a nationality, language or region adjective ("our Portuguese partner"), nor a country
  or continent ("away in Spain"): memories name the country or the city instead;
- not a hyphenated word unless every part is capitalised ("Wi-Fi", not "DB-backed");
- several capitalised words in a row, with "for", "of" or "de" between them, are one name
  ("Managed Streaming for Kafka"), known when any of its words is.
When the question offers alternatives ("Redis or Memcached"), one known name is enough.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .. import re_cache
from ..text.stopwords import is_stopword
from ..text.tokenize import fold, terms
from ..text.vocabulary import english_word

_WORD = re_cache.compile(r"[\w][\w.+#/'’-]*")
_CONNECTORS = frozenset(("for", "of", "de", "del", "la", "el"))
_ACRONYM = re_cache.compile(r"[A-Z]{1,3}s?")
# ... nor one written with a small letter inside ("IaC", "PaaS", "PoC", "QoS")
_MIXED_ACRONYM = re_cache.compile(r"[A-Z][a-z]{1,2}[A-Z]s?")
_LETTER_DIGIT = re_cache.compile(r"[A-GI-PR-UW-Z][0-9]")
_ALTERNATIVES = re_cache.compile(r"(?i)(?<!\w)(?:or|o|u|vs\.?|versus)(?!\w)")
CALENDAR_WORDS = frozenset(
    (
        "january february march april may june july august september october november december"
        " monday tuesday wednesday thursday friday saturday sunday spring summer autumn fall"
        " winter easter christmas xmas enero febrero marzo abril mayo junio julio agosto"
        " septiembre setiembre octubre noviembre diciembre lunes martes miercoles jueves viernes"
        " sabado domingo primavera verano otono invierno navidad navidades pascua semana santa"
    ).split()
)

# nationality, language and region adjectives describe ("our Portuguese partner", "European
# debit disputes"); memories name the country or city instead, so they are no unknown name
_DEMONYMS = frozenset(
    (
        "american european asian african australian oceanian latin latino hispanic nordic"
        " scandinavian baltic balkan iberian mediterranean caribbean andean western eastern"
        " northern southern central spanish english british french german italian portuguese"
        " dutch belgian swiss austrian irish scottish welsh swedish norwegian danish finnish"
        " icelandic polish czech slovak hungarian romanian bulgarian greek turkish russian"
        " ukrainian serbian croatian slovenian estonian latvian lithuanian catalan basque"
        " galician valencian andalusian canarian mexican colombian chilean argentine"
        " argentinian peruvian uruguayan paraguayan bolivian ecuadorian venezuelan cuban"
        " dominican guatemalan honduran salvadoran nicaraguan panamanian brazilian canadian"
        " chinese japanese korean indian pakistani bangladeshi indonesian thai vietnamese"
        " filipino malaysian singaporean taiwanese israeli arab arabic persian iranian iraqi"
        " egyptian moroccan algerian tunisian nigerian kenyan ghanaian ethiopian"
        " south-african mandarin cantonese hindi castilian"
    ).split()
)

# ... and so do countries and continents ("while its PI is away in Spain", "since we moved the
# infra to Brazil"): a memory says where in them, "in Madrid", "São Paulo region", "EU"
_COUNTRIES = frozenset(
    (
        "africa america americas asia europe oceania antarctica latam emea apac"
        " spain espana france germany alemania italy italia portugal netherlands holland"
        " belgium belgica switzerland suiza austria ireland irlanda britain uk england"
        " inglaterra scotland escocia wales sweden suecia norway noruega denmark dinamarca"
        " finland finlandia iceland islandia poland polonia czechia hungary hungria romania"
        " rumania bulgaria greece grecia turkey turquia russia rusia ukraine ucrania serbia"
        " croatia croacia slovenia eslovenia estonia latvia lithuania lituania mexico"
        " colombia chile argentina peru uruguay paraguay bolivia ecuador venezuela cuba"
        " guatemala honduras nicaragua panama brazil brasil canada usa china japan"
        " japon korea corea india pakistan bangladesh indonesia thailand tailandia vietnam"
        " philippines filipinas malaysia singapore singapur taiwan iran iraq egypt"
        " egipto morocco marruecos algeria tunisia nigeria kenya ghana ethiopia australia"
        " zealand"
    ).split()
)

# companies a memory often names only by their products ("Amazon's CDN" for CloudFront,
# "an Apple computer" for macOS, "Valve" for Steam, "Visa" for card payments): a question
# naming one says little about whether memory holds the answer
_VENDORS = frozenset(
    (
        "amazon apple microsoft google alphabet meta facebook valve visa mastercard amex"
        " paypal epic amd nvidia intel qualcomm arm samsung sony nintendo oracle ibm adobe"
        " atlassian salesforce hashicorp elastic broadcom vmware cisco dell lenovo huawei"
    ).split()
)

# files every project of a kind has, capitalised by convention: "the worker's Dockerfile" names
# no thing of the user's own, and a memory about the image rarely says the file's name
_CONVENTIONAL_FILES = frozenset(
    (
        "dockerfile containerfile makefile justfile gemfile podfile procfile rakefile pipfile"
        " brewfile vagrantfile jenkinsfile readme changelog license"
    ).split()
)
# notations a value is written in: "what CIDR did we pick for the VPC?" is answered by
# "10.40.0.0/16", which never says the word
_NOTATIONS = frozenset("cidr cidrs uuid uuids guid guids".split())
# a number in the plural counts things or sets a time ("HTTP 500s", "the 1990s"): no name
_PLURAL_NUMBER = re_cache.compile(r"\d+[’']?s")
# ... and so does a number with its unit: a time of day, a span, a size ("10pm", "24-hour",
# "30-day", "512MB")
_MEASURE = re_cache.compile(
    r"(?i)\d+(?:[.,:]\d+)?-?(?:am|pm|h|hr|hrs|hours?|min|mins|minutes?|sec|secs|seconds?|ms"
    r"|d|days?|weeks?|months?|years?|k|gb|mb|kb|tb|gib|mib|tib|x)"
)


def _spelled_as_name(word: str, opening: bool) -> bool:
    core = word.rstrip(".'’").removesuffix("'s").removesuffix("’s")
    if len(core) < 2 or _ACRONYM.fullmatch(core) or _MIXED_ACRONYM.fullmatch(core):
        return False
    if _PLURAL_NUMBER.fullmatch(core) or _MEASURE.fullmatch(core):
        return False
    if core.lower() in _CONVENTIONAL_FILES:
        return False
    if core.lower() in _NOTATIONS:
        return False
    folded = fold(core.lower())
    if folded.rstrip("s") in CALENDAR_WORDS or folded in CALENDAR_WORDS:
        return False
    if folded in _DEMONYMS or folded in _COUNTRIES or folded in _VENDORS:
        return False
    if "-" in core and not any(ch.isdigit() for ch in core):
        # "Wi-Fi", "U-Net" are names; "DB-backed", "early-March", "end-to-end" are not
        parts = [part for part in core.split("-") if part]
        if not all(part[0].isupper() for part in parts):
            return False
    identifier = any(ch.isdigit() or ch in "_." for ch in core.strip("."))
    if identifier:
        # "i.e", "v2", "Q3", "H1": too short to name anything, or a version or a time; a
        # letter and a digit otherwise name a level or a model ("P3 tickets", "a G5 unit")
        return len(core) >= 4 or bool(_LETTER_DIGIT.fullmatch(core))
    if len(core) < 3:
        return False
    capital = core[0].isupper() or any(ch.isupper() for ch in core[1:])
    inner_capital = any(ch.isupper() for ch in core[1:])
    if opening and not inner_capital:
        return False  # "Deploy steps for X?": the opening word is capitalised anyway
    return capital


Name = tuple[str, list[str]]  # as the question spells it, and its terms


def named_terms(question: str) -> list[Name]:
    """Each name the question spells as one (see the module docstring), with its terms."""
    text = (question or "")[:2000]
    found: list[Name] = []
    joined = False  # the previous word was a name, or a connector right after one
    text = text.lstrip("¿¡\"'([ ")
    for index, match in enumerate(_WORD.finditer(text)):
        word = match.group().strip("-/")
        if joined and word.lower() in _CONNECTORS:
            continue
        if index and _opens_sentence(text, match.start()) and _everyday_word(word):
            # "¿Qué versión de Postgres tiene staging? Quiero usar ...": a later sentence
            # opens with a capital too, and "Quiero" is a word, not a name
            joined = False
            continue
        if not word or not _spelled_as_name(word, index == 0):
            joined = False
            continue
        named = [t for t in terms(word) if not t.isdigit()]
        if any(mark in word for mark in "-_/") and named:
            named = named[:1]  # "max_connections" is one name, not "max" and "connection"
        if not named:
            joined = False
            continue
        surface = word.rstrip(".?!,;:'’").removesuffix("'s").removesuffix("’s")
        if joined and found:
            found[-1] = (f"{found[-1][0]} {surface}", found[-1][1] + named)
        else:
            found.append((surface, named))
        joined = not re.search(r"[?!,;:]$|'s$|’s$", word)
    return found


# an identifier in camel case starting in lower case: a setting, a function, a hook
_CAMEL_IDENTIFIER = re_cache.compile(r"[a-z]+(?:[A-Z][a-z0-9]+)+")
_SENTENCE_BREAK = re_cache.compile(r"[.?!]\s+[¿¡\"'(]*$")


def _opens_sentence(text: str, start: int) -> bool:
    return _SENTENCE_BREAK.search(text[max(0, start - 8) : start]) is not None


def _everyday_word(word: str) -> bool:
    """A word of the language rather than a name: a function word, or one the Spanish or
    French tables read as an English word."""
    folded = fold(word.strip(".,;:?!'’").lower())
    return is_stopword(folded) or english_word(folded) is not None


def identity_terms(name: Name) -> list[str]:
    """The terms that say a memory knows ``name``: all of them, but only the whole word of an
    identifier in camel case ("minSdkVersion" is one setting: a memory saying "SDK" or
    "version" does not know it)."""
    surface, named = name
    return named[:1] if _CAMEL_IDENTIFIER.fullmatch(surface) else named


def terms_to_count(names: list[Name]) -> set[str]:
    """The terms whose memory counts decide whether ``names`` are known (each term, and
    without a plural "s": "A100s" is known when "a100" is)."""
    wanted = {t for _, named in names for t in named}
    initials = {initials_of(surface) for surface, _ in names} - {""}
    return wanted | initials | {t[:-1] for t in wanted if t.endswith("s") and len(t) > 3}


def initials_of(surface: str) -> str:
    """The acronym a name of three words or more is written as ("Largest Contentful Paint"
    -> "lcp"): a memory saying "LCP" knows the name. "" for shorter names, whose two letters
    would match too much."""
    words = [w for w in re.split(r"[\s-]+", surface) if w[:1].isalpha()]
    return "".join(w[0] for w in words).lower() if len(words) >= 3 else ""


def unknown_names(question: str, names: list[Name], dfs: Mapping[str, int]) -> list[Name]:
    """The ``names`` of ``question`` (from ``named_terms``) that no memory holds (``dfs``: term
    -> how many memories hold it, for ``terms_to_count(names)``); [] when every name is known,
    or when the question offers alternatives and one of them is known."""

    def known(term: str) -> bool:
        return bool(dfs.get(term, 0) or (term.endswith("s") and dfs.get(term[:-1], 0)))

    unknown = [
        name
        for name in names
        if not any(known(t) for t in identity_terms(name)) and not known(initials_of(name[0]))
    ]
    if not unknown:
        return []
    if len(unknown) < len(names) and _ALTERNATIVES.search(question or ""):
        return []
    return unknown


def near_known(named: list[str], held: set[str]) -> bool:
    """True when a term of the name begins a held word ("prom" -> "prometheus") or is one
    letter away from one ("andew" -> "andrew"): the question spells a known name its way."""
    for term in named:
        if len(term) < 3:
            continue
        # a digit apart is another thing ("RT-26.5" is not "RT-26.4"), not a typing slip
        may_be_misspelt = len(term) >= 4 and not any(ch.isdigit() for ch in term)
        for word in held:
            if word.startswith(term) or (may_be_misspelt and _one_edit_apart(term, word)):
                return True
    return False


def _one_edit_apart(a: str, b: str) -> bool:
    """One letter inserted, deleted or replaced (no more: names are short and distinct)."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1 :] == b[i + 1 :]
    return a[i:] == b[i + 1 :]


# the environment a question sets ("the staging DB", "prod's cluster"): a memory about another
# environment's value is about another thing, as a memory about another named thing is
_ENVIRONMENTS = frozenset(("stag", "production", "development", "preprod", "sandbox", "uat"))


def qualifier_terms(question_terms: list[str]) -> list[Name]:
    """The environments a question names, each as a one-term name ("stg" -> "stag")."""
    return [(t, [t]) for t in dict.fromkeys(question_terms) if t in _ENVIRONMENTS]


def environments_in(terms) -> set[str]:
    """The environments among a text's terms ("stag", "production"...)."""
    return {t for t in terms if t in _ENVIRONMENTS}


def whole_word_terms(written: str) -> set[str]:
    """The term each word of a name is indexed under as a whole ("OTel" -> "opentelemetry"),
    without the pieces it is also split into ("tel"): a memory writing "OpenTelemetry" names
    OTel though it holds no "tel"."""
    return {found[0] for word in written.split() if (found := terms(word))}
