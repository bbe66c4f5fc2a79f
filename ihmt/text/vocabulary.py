"""One spelling per idea: the vocabulary layer between tokens and indexed terms.

An agent asks "which Postgres version is prod on?" of a memory that says "production runs
PostgreSQL 16"; a Spanish question meets an English note. Memories, branch summaries and
queries all pass through :func:`normalize`, so the descent stays lossless: whatever a flat
scan would match, every summary above it matches too.

Five steps, each small and predictable rather than clever:
1. software abbreviations and aliases -> one canonical word ("k8s" -> "kubernetes");
2. Spanish and French -> English: a short hand-picked glossary ("contraseña" -> "password"),
   then the generated lexicon of lexicon_table.py (tools/build_lexicon.py: inflected forms
   of hand-written lemma lists, "desactivó" -> "disable", "déployée" -> "deploy"), so an
   English question finds a Spanish or French note;
3. a light stemmer for English and Spanish inflections: plurals, -ed, -ing and the Spanish
   -ción / English -tion pair. It only has to map related forms to one key, not to a word:
   "deployed", "deploying" and "deploys" all become "deploy"; "use", "used" and "uses"
   become "us";
4. near-synonyms (lexicon_table.py again): "vacation" and "leave" are indexed as "holiday";
5. multi-word terms add their abbreviation (tokenize.terms): "continuous integration" is
   also "ci", "React Native" also "rn";
6. a product's name adds the words for what kind of thing it is (tokenize.terms): "Fedora"
   is also "linux", "distro", "os", so "which distro does Camila run?" meets "Camila's
   laptop runs Fedora 40".
Tokens holding digits, identifiers with parts and very short words are left alone.
"""

from __future__ import annotations

from functools import lru_cache

# bump when the mapping changes: stores index with the version they were built with
VOCABULARY_VERSION = 20

_ALIASES = {
    # databases and infrastructure
    "postgres": "postgresql",
    "pg": "postgresql",
    "pgsql": "postgresql",
    "mongo": "mongodb",
    "k8s": "kubernetes",
    "kube": "kubernetes",
    "db": "database",
    "dbs": "database",
    "bd": "database",
    "bbdd": "database",
    "prod": "production",
    "prd": "production",
    "stg": "staging",
    "dev": "development",
    "env": "environment",
    "envs": "environment",
    "repo": "repository",
    "repos": "repository",
    "config": "configuration",
    "configs": "configuration",
    "cfg": "configuration",
    "conf": "configuration",
    "auth": "authentication",
    "authn": "authentication",
    "docs": "documentation",
    "deps": "dependency",
    "dep": "dependency",
    "infra": "infrastructure",
    "perf": "performance",
    "app": "application",
    "apps": "application",
    "msg": "message",
    "info": "information",
    "org": "organization",
    "admin": "administrator",
    "gh": "github",
    "fe": "frontend",
    "hw": "hardware",
    "sw": "software",
    "mgr": "manager",
    "mem": "memory",
    "creds": "credentials",
    "cred": "credentials",
    "addr": "address",
    # numeronyms: the first letter, how many letters are left out, the last
    "a11y": "accessibility",
    "i18n": "internationalization",
    "l10n": "localization",
    "o11y": "observability",
    # short forms from a list written from general knowledge by a writer who saw no corpus,
    # question or code (tenth session); the ones that are also code words ("str", "len")
    # or ordinary words elsewhere were left out
    "g11n": "globalization",
    "preprod": "preproduction",
    "impl": "implementation",
    "lib": "library",
    "pkg": "package",
    "subdir": "subdirectory",
    "reqs": "requirements",
    "avg": "average",
    "async": "asynchronous",
    "btn": "button",
    "img": "image",
    "nav": "navigation",
    "attr": "attribute",
    "cnt": "count",
    "qty": "quantity",
    "amt": "amount",
    "ctx": "context",
    "conn": "connection",
    "buf": "buffer",
    "alloc": "allocation",
    "pkt": "packet",
    "txn": "transaction",
    "util": "utility",
    "param": "parameter",
    "arg": "argument",
    "fmt": "format",
    "dbg": "debug",
    "tmpl": "template",
    "prev": "previous",
    "orig": "original",
    "repro": "reproduction",
    "sev": "severity",
    "prio": "priority",
    "cert": "certificate",
    "authz": "authorization",
    "vuln": "vulnerability",
    "passwd": "password",
    "mgmt": "management",
    "dept": "department",
    "acct": "account",
    "approx": "approximately",
    "pls": "please",
    "plz": "please",
    "thx": "thanks",
    "ppl": "people",
    "fwd": "forward",
    "ack": "acknowledgement",
    "mtg": "meeting",
    "appt": "appointment",
    "sched": "schedule",
    "misc": "miscellaneous",
    "stats": "statistics",
    "dedup": "deduplication",
    "agg": "aggregation",
    "tbl": "table",
    "pct": "percent",
    "wk": "week",
    "qtr": "quarter",
    "tz": "timezone",
    "hq": "headquarters",
    "jr": "junior",
    "biz": "business",
    "govt": "government",
    "intl": "international",
    "bw": "bandwidth",
    "gw": "gateway",
    "colo": "colocation",
    "kbd": "keyboard",
    "pwr": "power",
    "batt": "battery",
    "xtal": "crystal",
    "gnd": "ground",
    "mux": "multiplexer",
    "demux": "demultiplexer",
    "otel": "opentelemetry",
    "wasm": "webassembly",
    "cjs": "commonjs",
    "bq": "bigquery",
    "ddb": "dynamodb",
    "cfn": "cloudformation",
    "msft": "microsoft",
    "svc": "service",
    "tmb": "also",
    "msj": "message",
    "ej": "example",
    "aprox": "approximately",
    "dpto": "department",
    "depto": "department",
    "cel": "phone",
    # languages
    "js": "javascript",
    "ts": "typescript",
    "py": "python",
    "golang": "go",
    # units and time
    "min": "minute",
    "mins": "minute",
    "sec": "second",
    "secs": "second",
    "hr": "hour",
    "hrs": "hour",
    "yr": "year",
    "yrs": "year",
}

# Spanish working words -> the English word a memory or question may use instead. Only
# words whose meaning does not depend on context; the stemmer handles the inflections.
_GLOSSARY = {
    "contrasena": "password",
    "clave": "key",
    "claves": "key",
    "servidor": "server",
    "servidores": "server",
    "datos": "data",
    "equipo": "team",
    "equipos": "team",
    "usuario": "user",
    "usuarios": "user",
    "despliegue": "deploy",
    "despliegues": "deploy",
    "desplegar": "deploy",
    "desplegamos": "deploy",
    "prueba": "test",
    "pruebas": "test",
    "puerto": "port",
    "puertos": "port",
    "version": "version",
    "versiones": "version",
    "fecha": "date",
    "fechas": "date",
    "proyecto": "project",
    "proyectos": "project",
    "tarea": "task",
    "tareas": "task",
    "reunion": "meeting",
    "reuniones": "meeting",
    "correo": "email",
    "telefono": "phone",
    "ciudad": "city",
    "empresa": "company",
    "precio": "price",
    "tarifa": "rate",
    "tarifas": "rate",
    "factura": "invoice",
    "facturas": "invoice",
    "plazo": "deadline",
    "registros": "log",
    "panel": "dashboard",
    "paneles": "dashboard",
    "tablero": "dashboard",
    "tableros": "dashboard",
    "alojado": "hosted",
    "alojados": "hosted",
    "alojamiento": "hosting",
    "nube": "cloud",
    "rama": "branch",
    "ramas": "branch",
    "portatil": "laptop",
    "ordenador": "computer",
    "maquina": "machine",
    "maquinas": "machine",
    "semana": "week",
    "semanas": "week",
    "mes": "month",
    "meses": "month",
    "ano": "year",
    "anos": "year",
    "dia": "day",
    "dias": "day",
    "hora": "hour",
    "horas": "hour",
    "minutos": "minute",
    "cambio": "change",
    "cambios": "change",
    "copia": "backup",
    "copias": "backup",
    "respaldo": "backup",
    "cola": "queue",
    "colas": "queue",
    "almacenamiento": "storage",
    "seguridad": "security",
    "permisos": "permission",
    "permiso": "permission",
    "guardia": "call",
    "incidente": "incident",
    "incidentes": "incident",
    "fallo": "failure",
    "fallos": "failure",
    "caida": "outage",
    "nodo": "node",
    "nodos": "node",
    "cuenta": "account",
    "cuentas": "account",
    "mensual": "monthly",
    "semanal": "weekly",
    "diario": "daily",
    "cliente": "client",
    "vive": "live",
    "vivo": "live",
    "viven": "live",
    "vivia": "live",
    "trabaja": "work",
    "trabajo": "work",
    "trabajan": "work",
    "clientes": "client",
    "nombre": "name",
    "dominio": "domain",
    "dominios": "domain",
    "editor": "editor",
    "entrega": "delivery",
    "lanzamiento": "release",
    "publicacion": "release",
}

_VOWELS = frozenset("aeiouy")
_KEEP_DOUBLE = frozenset("lsz")


@lru_cache(maxsize=65536)
def normalize(token: str) -> str:
    """The indexed form of one folded token."""
    token = (
        _ALIASES.get(token)
        or _plural_alias(token)
        or _GLOSSARY.get(token)
        or _spanish(token)
        or _french(token)
        or token
    )
    if len(token) < 3 or not token.isalpha() or not token.isascii():
        return token
    key = stem(token)
    return _synonyms().get(key, key)


# plurals that are no plural of the short form they end like: "devs" are developers, not
# the development environment
_NOT_PLURAL_ALIASES = frozenset(("devs",))


def _plural_alias(token: str) -> str | None:
    """The canonical word of a short form written in the plural ("msgs", "certs", "params",
    "orgs"), which the stemmer would otherwise take as a word of its own ("msg" beside
    "message"); None when the token is no such plural."""
    if len(token) < 4 or not token.endswith("s") or token in _NOT_PLURAL_ALIASES:
        return None
    return _ALIASES.get(token[:-1])


def english_word(token: str) -> str | None:
    """The English word a folded Spanish or French form reads as (glossary or lexicon), or
    None: the word itself, unstemmed, for text a person or a model reads (text/gloss.py)."""
    return _GLOSSARY.get(token) or _spanish(token) or _french(token)


def _spanish(token: str) -> str | None:
    """The English word a Spanish form is indexed as (lexicon_table.py), or None."""
    if len(token) < 3:
        return None
    return _block("SPANISH", token[:3]).get(token)


def _french(token: str) -> str | None:
    """The English word a French form is indexed as (lexicon_table.py), or None. Read after
    the Spanish table: a form both languages spell is read as Spanish."""
    if len(token) < 3:
        return None
    return _block("FRENCH", token[:3]).get(token)


@lru_cache(maxsize=8192)
def _block(table: str, prefix: str) -> dict[str, str]:
    """One block of a generated table, parsed on first use: a question reads a few blocks,
    not the ~50,000 forms (which would cost a hook ~20 ms)."""
    blocks = getattr(_generated(), table, None)
    out: dict[str, str] = {}
    for item in blocks.get(prefix, "").split() if isinstance(blocks, dict) else ():
        english, _, forms = item.partition(":")
        out.update(dict.fromkeys(forms.split(","), english))
    return out


@lru_cache(maxsize=1)
def _synonyms() -> dict[str, str]:
    """Stem -> the stem of its near-synonym group's first word."""
    lines = getattr(_generated(), "SYNONYMS", "")
    out: dict[str, str] = {}
    for line in lines.splitlines() if isinstance(lines, str) else ():
        head, *keys = line.split() or [""]
        out.update(dict.fromkeys(keys, head))
    return out


def has_fixed_meaning(token: str) -> bool:
    """True when the alias table or the glossary gives ``token`` a word ("prd" is
    production): tools/build_lexicon.py keeps such abbreviations off phrases."""
    return token in _ALIASES or token in _GLOSSARY


@lru_cache(maxsize=1)
def phrase_abbreviations() -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """First word of a multi-word term -> (its words, its abbreviation): "continuous
    integration" -> "ci" (lexicon_table.py). The tokenizer adds the abbreviation's term where
    the words occur, for memories and questions alike."""
    lines = getattr(_generated(), "PHRASES", "")
    out: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for line in lines.splitlines() if isinstance(lines, str) else ():
        abbreviation, *words = line.split() or [""]
        if len(words) >= 2:
            out.setdefault(words[0], []).append((tuple(words), abbreviation))
    return out


@lru_cache(maxsize=1)
def product_kinds() -> dict[str, tuple[str, ...]]:
    """A product's folded name -> the words for the kind of thing it is ("fedora" -> linux,
    distro, os; lexicon_table.py). The tokenizer adds their terms wherever the name occurs,
    for memories and questions alike."""
    lines = getattr(_generated(), "KINDS", "")
    out: dict[str, tuple[str, ...]] = {}
    for line in lines.splitlines() if isinstance(lines, str) else ():
        name, *words = line.split() or [""]
        if words:
            out[name] = tuple(words)
    return out


@lru_cache(maxsize=1)
def _generated():
    """The generated module, or None while tools/build_lexicon.py makes the first one."""
    try:
        from . import lexicon_table
    except ImportError:
        return None
    return lexicon_table


def stem(word: str) -> str:
    """Map the inflections of one English or Spanish word to a shared key."""
    if word.endswith("ies") and len(word) > 5:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2 and not word.endswith("eed"):
            root = word[: -len(suffix)]
            if any(ch in _VOWELS for ch in root):
                word = _undouble(root)
            break
    if word.endswith("e") and len(word) >= 3:
        word = word[:-1]
    if word.endswith("cion") and len(word) > 6:
        word = word[:-4] + "tion"  # migración ~ migration, configuración ~ configuration
    return word


def _undouble(stem: str) -> str:
    if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS | _KEEP_DOUBLE:
        return stem[:-1]
    return stem
