"""Find credentials in text before it is stored, so a secret never lands in the memory silently.

Precision matters as much as recall: a memory full of false alarms teaches people to click
through them. So fixed vendor shapes (``AKIA…``, ``ghp_…``, PEM blocks, JWTs) are always
flagged, while loose shapes must pass extra checks: ``key = value`` needs a secret-ish key name
and a value that is neither a placeholder nor code, a password in a sentence needs a verb or a
colon before it ("the wifi password for the office is …") or a strong value, a command-line flag
counts only for the programs where it means a password (``mysql -pX`` but not ``psql -p 5432``),
and a random-looking string counts only next to a word such as "token" or "password" on the same
line. Documentation examples (AWS's ``…EXAMPLE`` keys, jwt.io's sample, Stripe's docs key) are
not secrets.

Speed and safety on hostile input (a 1 MB line, 1 MB of one letter): every regex that sweeps the
whole text starts with a literal (or a few literals) so the engine can jump between candidates;
word boundaries are checked in Python after a match instead of with a leading look-behind, which
would force a slow attempt at every position; repetitions are bounded, so backtracking is too,
and no repetition holds another one unless each round starts with a separator the round cannot
otherwise match (tests/test_secrets_corpus.py checks the shape of every pattern here).
The loose patterns only run where a cheap keyword search points them. Keyword searches run once
over an ASCII-folded copy of the text whose offsets equal the original's. Nothing here raises on
any ``str``: decoding failures are simply "not a secret".

One job, one module (about 1,200 lines): each scanner's acceptance rules lean on the shared
value tests (entropy, placeholders, identifier shapes), and the corpus test reads them as one
detector; split, every change would touch several files that must agree.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from ihmt.errors import InputError

from .. import re_cache

__all__ = ["SecretFinding", "describe", "find_secrets", "redact", "redact_reporting"]


@dataclass(frozen=True)
class SecretFinding:
    """One likely secret: ``start``/``end`` cover the secret value only, ``preview`` is masked."""

    kind: str
    start: int
    end: int
    preview: str


class _Hit(NamedTuple):
    start: int
    end: int
    kind: str
    priority: int  # higher = more specific; wins when hits overlap


# Fixed vendor shapes beat structural shapes, which beat key-name heuristics.
_P_VENDOR = 100
_P_JWT = 90
_P_URL_PASSWORD = 80
_P_AWS_SECRET = 70
_P_COMMAND_LINE = 61
_P_PASSWORD = 60
_P_HEADER = 55
_P_GENERIC = 50
_P_ENTROPY = 10


def _fold(text: str) -> bytes:
    """ASCII-lowercased copy with one byte per character, so offsets match ``text``."""
    return text.encode("ascii", "replace").lower()


def _preceded_by(text: str, pos: int, chars: str) -> bool:
    return pos > 0 and text[pos - 1] in chars


_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


# ---------------------------------------------------------------------------------------------
# What a secret value looks like


def _entropy(s: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values()) if n else 0.0


def _classes(s: str) -> tuple[bool, bool, bool]:
    return (
        any("A" <= c <= "Z" for c in s),
        any("a" <= c <= "z" for c in s),
        any("0" <= c <= "9" for c in s),
    )


_WORD_PART = re_cache.compile(r"[A-Z]?[a-z]{2,}")


def _looks_random(s: str) -> bool:
    """True for machine-generated strings, False for words, dummies and CamelCase names."""
    if len(set(s)) < min(8, max(3, len(s) // 3)):
        return False
    if sum(_classes(s)) < 2:
        return False
    # Word-like parts cover ~1.0 of a CamelCase name but rarely 0.9 of a random string.
    return sum(len(p) for p in _WORD_PART.findall(s)) < 0.9 * len(s)


def _ascending_run(s: str, length: int = 8) -> bool:
    """True when ``s`` holds ``length`` consecutive ascending characters (``abcdefgh``, ``12345678``):
    typed dummies, not generated keys (a random 36-character body has one with odds near 1e-12)."""
    run = 1
    for a, b in zip(s, s[1:], strict=False):
        run = run + 1 if ord(b) == ord(a) + 1 else 1
        if run >= length:
            return True
    return False


def _token_body_ok(body: str) -> bool:
    """Reject dummies such as ``ghp_XXXXXXXX…`` or ``ghp_1234567890abcdef…`` while keeping any
    real-looking body."""
    return (
        len(set(body)) >= min(8, max(3, len(body) // 3))
        and sum(_classes(body)) >= 2
        and not _ascending_run(body)
    )


# Values published in vendors' documentation as examples. They unlock nothing, are pasted into
# notes all the time, and refusing them teaches people to override the check. Stored as the first
# 32 hex digits of their SHA-256 so this file does not itself hold a token a scanner would flag.
_DOCUMENTED_EXAMPLE_DIGESTS = frozenset(
    {
        "2cafc0970149a84f3b9e62eaf169f36f",  # Stripe's documented test key sk_test_4eC39…
        "051d093c4bdedbf23f905ad01d9c6111",  # signature of jwt.io's sample token (any payload)
    }
)


def _documented_example(value: str) -> bool:
    """True for documentation examples: AWS's ``AKIAIOSFODNN7EXAMPLE`` and its secret
    ``wJalr…EXAMPLEKEY`` (anything spelling EXAMPLE), and the few published keys listed above."""
    if "example" in value.lower():
        return True
    digest = hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()[:32]
    return digest in _DOCUMENTED_EXAMPLE_DIGESTS


_SEGMENT = re_cache.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SEPARATORS = re_cache.compile(r"[/_+-]")


def _identifier_like(s: str) -> bool:
    """CamelCase or snake_case names and paths split into few long segments; random keys don't.

    Random mixed-case strings average under 2 characters per segment (99.9th percentile about
    3.3 for 36 characters); names such as ``HTTPPasswordMgrWithDefaultRealm`` average over 4.
    """
    segments = _SEGMENT.findall(s)
    if not segments:
        return False
    average = sum(map(len, segments)) / len(segments)
    upper, lower, _ = _classes(s)
    if upper and lower:
        return average >= 3.3
    return len([p for p in _SEPARATORS.split(s) if p]) > 1 and average >= 3.0


_PLACEHOLDER_WORDS = frozenset(
    """
    none null nil undefined true false yes no empty default required optional hidden masked
    unset disabled enabled invalid incorrect missing changed updated protected encrypted
    string str text bytes int password passwd pass pwd secret secrets token apikey api_key
    changeit changeme letmein todo tbd fixme test testing value sample dummy redacted
    """.split()
)
_PLACEHOLDER_MARKS = (
    "example",
    "changeme",
    "change_me",
    "change-me",
    "placeholder",
    "replace_me",
    "replace-me",
    "replaceme",
    "your_",
    "your-",
    "yourapi",
    "yourpass",
    "yoursecret",
    "yourtoken",
    "yourkey",
    "_here",
    "-here",
    "redacted",
    "xxxx",
    "****",
    "\u2026",
    "\u2022\u2022",
    "os.environ",
    "environ[",
    "environ.get",
    "getenv",
    "process.env",
    "env[",
    "env.fetch",
    "${",
    "{{",
    "%(",
)
_PATH_LIKE = re_cache.compile(r"(?:/|~/|\./|\.\./|[A-Za-z]:\\)")


def _is_placeholder(value: str) -> bool:
    """True for values that stand in for a secret instead of being one."""
    low = value.strip().lower()
    if not low or low in _PLACEHOLDER_WORDS or len(set(low)) <= 2:
        return True
    if low.startswith(("$", "!", "&", "*")):
        return True  # shell/env reference, YAML tag or alias, masked value
    if (low.startswith("<") and low.endswith(">")) or ("{" in low and "}" in low):
        return True  # <password>, templates and format strings
    return any(mark in low for mark in _PLACEHOLDER_MARKS)


# ---------------------------------------------------------------------------------------------
# Vendor tokens with a fixed shape


@dataclass(frozen=True)
class _Rule:
    kind: str
    regex: re.Pattern[str]  # starts with a literal; the left boundary is checked in Python
    not_after: str  # a match preceded by one of these is inside a longer word
    body_from: int  # where the random part starts, for the validator
    check: Callable[[str], bool] = _token_body_ok


_B = _ALNUM + "_-"
_VENDOR_RULES: tuple[_Rule, ...] = (
    _Rule("AWS access key", re_cache.compile(r"AKIA[A-Z0-9]{16}(?![A-Za-z0-9])"), _ALNUM, 4),
    _Rule("AWS access key", re_cache.compile(r"ASIA[A-Z0-9]{16}(?![A-Za-z0-9])"), _ALNUM, 4),
    _Rule(
        "GitHub token", re_cache.compile(r"gh[pousr]_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_])"), _B, 4
    ),
    _Rule("GitHub token", re_cache.compile(r"github_pat_[A-Za-z0-9_]{22,244}"), _B, 11),
    _Rule("GitLab token", re_cache.compile(r"glpat-[A-Za-z0-9_-]{20,80}"), _B, 6),
    _Rule("Slack token", re_cache.compile(r"xox[abprs]-[A-Za-z0-9-]{10,250}"), _B, 5),
    _Rule(
        "Slack webhook URL",
        re_cache.compile(
            r"https://hooks\.slack\.com/services/T[A-Z0-9]{6,20}/B[A-Z0-9]{6,20}/[A-Za-z0-9]{16,40}"
        ),
        "",
        29,
    ),
    _Rule("Stripe key", re_cache.compile(r"sk_(?:live|test)_[A-Za-z0-9]{16,247}"), _B, 8),
    _Rule("Stripe key", re_cache.compile(r"rk_(?:live|test)_[A-Za-z0-9]{16,247}"), _B, 8),
    _Rule(
        "Anthropic API key", re_cache.compile(r"sk-ant-[A-Za-z0-9_-]{20,300}"), _B, 7, _looks_random
    ),
    _Rule(
        "OpenAI API key",
        re_cache.compile(r"sk-(?!ant-)[A-Za-z0-9_-]{20,300}"),
        _B,
        3,
        _looks_random,
    ),
    _Rule("Google API key", re_cache.compile(r"AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])"), _B, 4),
    _Rule("Twilio API key", re_cache.compile(r"SK[0-9a-f]{32}(?![A-Za-z0-9])"), _ALNUM, 2),
    _Rule(
        "SendGrid API key",
        re_cache.compile(r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"),
        _B + ".",
        3,
    ),
    _Rule("npm token", re_cache.compile(r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"), _B, 4),
    _Rule("PyPI token", re_cache.compile(r"pypi-AgEI[A-Za-z0-9_-]{50,2000}"), _B, 9),
    _Rule(
        "Hugging Face token",
        re_cache.compile(r"hf_[A-Za-z0-9]{30,60}(?![A-Za-z0-9_])"),
        _B,
        3,
        _looks_random,
    ),
)


def _scan_vendor(text: str) -> Iterator[_Hit]:
    for rule in _VENDOR_RULES:
        for m in rule.regex.finditer(text):
            token = m.group()
            if (
                not _preceded_by(text, m.start(), rule.not_after)
                and rule.check(token[rule.body_from :])
                and not _documented_example(token)
            ):
                yield _Hit(m.start(), m.end(), rule.kind, _P_VENDOR)


# ---------------------------------------------------------------------------------------------
# Private key blocks: the whole block, BEGIN line through END line

_KEY_BEGIN = re_cache.compile(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_KEY_END = re_cache.compile(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_BLANK_LINE = re_cache.compile(r"\n[ \t]*\n")


def _scan_private_keys(text: str) -> Iterator[_Hit]:
    if "PRIVATE KEY" not in text:
        return
    ends = [m.span() for m in _KEY_END.finditer(text)]
    end_starts = [a for a, _ in ends]
    blanks: list[int] | None = None
    stop = 0
    for m in _KEY_BEGIN.finditer(text):
        if m.start() < stop:
            continue  # a BEGIN line inside the block just reported
        i = bisect_left(end_starts, m.end())
        if i < len(ends):
            stop = ends[i][1]
        else:  # truncated paste: up to the next blank line or the end of the text
            if blanks is None:
                blanks = [b.start() for b in _BLANK_LINE.finditer(text)]
            j = bisect_left(blanks, m.end())
            stop = blanks[j] if j < len(blanks) else len(text)
        yield _Hit(m.start(), stop, "private key block", _P_VENDOR)


# ---------------------------------------------------------------------------------------------
# JWTs: three base64url segments whose first decodes to a JSON header with "alg"

_JWT = re_cache.compile(r"eyJ[A-Za-z0-9_-]{5,2000}\.[A-Za-z0-9_-]{2,20000}\.[A-Za-z0-9_-]{0,2000}")


def _jwt_header_ok(token: str) -> bool:
    segment = token[: token.index(".")]
    try:
        raw = base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
        header = json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError, UnicodeDecodeError, RecursionError):
        return False
    return isinstance(header, dict) and "alg" in header


def _scan_jwts(text: str) -> Iterator[_Hit]:
    for m in _JWT.finditer(text):
        token = m.group()
        signature = token[token.rfind(".") + 1 :]
        if (
            not _preceded_by(text, m.start(), _B + ".")
            and _jwt_header_ok(token)
            and not _documented_example(signature)
        ):
            yield _Hit(m.start(), m.end(), "JWT", _P_JWT)


# ---------------------------------------------------------------------------------------------
# scheme://user:PASSWORD@host

# The password runs to the last `@` before the host: people paste passwords holding `@`, `#`,
# `?`, `!` or `:` unencoded, and percent-encoded ones hold `%`. A `/` still ends it, so
# `http://host:8080/a@b` is a path, not credentials.
_URL_AFTER_SCHEME = re_cache.compile(r"://[^\s:/@?#]{0,200}:([^\s/]{1,200})@[^\s/@]")
_PORT_THEN_QUERY = re_cache.compile(r"\d{1,5}[?#]")


def _secret_literal(value: str) -> bool:
    """Not a placeholder; a leading ``!``, ``&`` or ``*`` is part of the password here, not a YAML
    tag or a mask, but ``***`` stays a mask."""
    core = value.strip("!&*")
    return bool(core) and not _is_placeholder(core)


def _scan_url_passwords(text: str) -> Iterator[_Hit]:
    pos = text.find("://")
    while pos >= 0:
        m = _URL_AFTER_SCHEME.match(text, pos) if pos and text[pos - 1].isalnum() else None
        if m:
            password = m.group(1)
            if (
                len(password) >= 4
                and _secret_literal(password)
                and not _PORT_THEN_QUERY.match(password)  # `host:8080?next=a@b`
            ):
                yield _Hit(m.start(1), m.end(1), "password in connection string", _P_URL_PASSWORD)
        pos = text.find("://", pos + 3)


# ---------------------------------------------------------------------------------------------
# Authorization headers

_BEARER = re_cache.compile(r"earer[ \t]+([A-Za-z0-9._~+/-]{16,2000}=*)")
_BASIC = re_cache.compile(r"asic[ \t]+([A-Za-z0-9+/]{8,2000}={0,2})(?![A-Za-z0-9+/=])")


def _after_word(text: str, start: int) -> bool:
    """True when ``start`` (just after a leading B/b) begins a header word, not a word's tail."""
    return _preceded_by(text, start, "Bb") and not (start > 1 and text[start - 2].isalpha())


def _basic_ok(value: str) -> bool:
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    _, sep, password = decoded.partition(":")
    return (
        bool(sep) and decoded.isprintable() and len(password) >= 4 and not _is_placeholder(password)
    )


def _scan_auth_headers(text: str) -> Iterator[_Hit]:
    for m in _BEARER.finditer(text):
        v = m.group(1)
        if _after_word(text, m.start()) and not _is_placeholder(v):
            if "." in v or _looks_random(v):
                yield _Hit(m.start(1), m.end(1), "bearer token", _P_HEADER)
    for m in _BASIC.finditer(text):
        if _after_word(text, m.start()) and _basic_ok(m.group(1)):
            yield _Hit(m.start(1), m.end(1), "basic auth credentials", _P_HEADER)


# ---------------------------------------------------------------------------------------------
# key = value assignments in code, config, env files, YAML, JSON and notes

_ASSIGN = re_cache.compile(  # only ever used with .match() at a known key start
    r"(?<![\w.])(?P<key>[^\W\d][\w.-]{0,79})"
    r"(?P<kq>\\?[\"'])?\]?"  # `"api_key":`, `config['SECRET_KEY'] =`
    # optional type annotation: `password: str = "..."`, `val password: String = "..."`
    r"(?:[ \t]*:[ \t]*[A-Za-z_][\w.]{0,40}(?:\[[^\]\r\n]{0,40}\])?(?=[ \t]*=(?![=>])))?"
    r"[ \t]*(?P<op>:=|=>|===|==|=|:|,)[ \t]*"
    r"(?:\\?\"(?P<dq>[^\"\r\n]{1,512}?)\\?\""
    r"|'(?P<sq>[^'\r\n]{1,512})'"
    r"|`(?P<bq>[^`\r\n]{1,512})`"
    r"|(?P<uv>[^\s\"'`,;&]{1,256}))"
)
_KEY_HINT = re_cache.compile(rb"pass|pw|secret|token|key|contrase|clave|credential|senha")
_KEY_RUN = re_cache.compile(r"[\w.-]*")
_OPERATOR_START = frozenset("=:,\"'\\")

_PASSWORD_WORDS = ("password", "passwd", "passphrase", "contraseña", "contrasena", "passwort")
_PASSWORD_SEGMENTS = frozenset({"pwd", "pass", "pw", "clave", "senha"})
_SECRET_WORDS = (
    "secret",
    "token",
    "apikey",
    "accesskey",
    "privatekey",
    "authkey",
    "accountkey",
    "signingkey",
    "encryptionkey",
    "masterkey",
    "credential",
)
# A key ending with one of these names something *about* a secret, not the secret itself.
_NOT_SECRET_SUFFIXES = frozenset(
    """
    count counts len length limit limits max min type types name names file files path paths
    dir url uri urls endpoint field fields label prompt hint hints id ids expiry expires
    expiration exp ttl timeout size header headers env var policy regex pattern format prefix
    suffix budget usage used total num index idx kind mode required enabled disabled hash
    algorithm algo arn ref reset email mail user username login provider location store rotation
    manager version validator validation strength method methods scheme schemes placeholder
    """.split()
)
_CAMEL = re_cache.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEGMENT_SPLIT = re_cache.compile(r"[_.\-]+")
_WORDY = re_cache.compile(r"[A-Za-z_]+(?:-[A-Za-z_]+)*")
_SNAKE = re_cache.compile(r"[a-z]+(?:[_-][a-z]+)+")
_ENV_NAME = re_cache.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_DOTTED = re_cache.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_LINE_OPENERS = frozenset({"", "-", "export", "set", "setenv", "ENV"})


def _key_kind(key: str) -> tuple[str, int] | None:
    """Classify a key name: which kind of secret its value would be, or None."""
    segments = [s for s in _SEGMENT_SPLIT.split(_CAMEL.sub("_", key).lower()) if s]
    if not segments or segments[-1] in _NOT_SECRET_SUFFIXES:
        return None
    flat = "".join(segments)
    if "aws" in flat and "secret" in flat:
        return "AWS secret access key", _P_AWS_SECRET
    if any(w in flat for w in _PASSWORD_WORDS) or _PASSWORD_SEGMENTS.intersection(segments):
        return "password assignment", _P_PASSWORD
    cleaned = flat.replace("tokenizer", "").replace("tokens", "").replace("secretary", "")
    if any(w in cleaned for w in _SECRET_WORDS):
        return "generic secret assignment", _P_GENERIC
    return None


def _line_context(text: str, start: int, end: int) -> tuple[str, str]:
    """What precedes ``start`` and follows ``end`` on the same line (at most 256 chars each)."""
    lo = text.rfind("\n", max(0, start - 256), start) + 1 or max(0, start - 256)
    hi = text.find("\n", end, end + 256)
    hi = min(len(text), end + 256) if hi < 0 else hi
    return text[lo:start].strip(), text[end:hi].strip()


def _wordy_literal_ok(m: re.Match[str], text: str, value: str) -> bool:
    """A bare word is a literal only in env files (``DB_PASSWORD=word``) and YAML
    (``password: word``), where the key opens the line and nothing follows the value."""
    before, after = _line_context(text, m.start("key"), m.end("uv"))
    if before not in _LINE_OPENERS or (after and not after.startswith("#")):
        return False  # `credentials: object | None,`, a sentence after `token:`, code
    op, key = m.group("op"), m.group("key")
    if op == "=":
        return m.start("uv") == m.end("key") + 1 and not any(c.islower() for c in key)
    return op == ":" and not _CAMEL.search(value)  # `{token: accessToken}` is code


def _opens_call(text: str, key_start: int) -> bool:
    """True when a quoted key is the first argument of a call: `define('DB_PASSWORD', ...)`."""
    return text[max(0, key_start - 40) : key_start].rstrip("\"'\\").rstrip().endswith("(")


def _assigned_value(m: re.Match[str], text: str, is_password: bool) -> tuple[int, int] | None:
    """Span of the assigned value when it looks like a real credential, else None."""
    op, quoted_key = m.group("op"), bool(m.group("kq"))
    group = next(g for g in ("dq", "sq", "bq", "uv") if m.group(g) is not None)
    start, end = m.span(group)
    value = m.group(group)
    if op == "," and (
        group == "uv"
        or not quoted_key
        or any(c.islower() for c in m.group("key"))
        or not _opens_call(text, m.start("key"))
    ):
        return None  # only `define('DB_PASSWORD', '...')`-style pairs, never lists or calls
    if group == "uv":
        if quoted_key or op in ("==", "==="):
            # `{"token": next_token}` in code (JSON strings are always quoted); `password ==
            # password2` compares two names
            return None
        stripped = value.rstrip(")]}.:")
        end -= len(value) - len(stripped)
        value = stripped
        if any(c in value for c in "([{<") or _DOTTED.fullmatch(value):
            return None  # call, subscript, markup or attribute access: code, not a literal
        if _WORDY.fullmatch(value) and not _wordy_literal_ok(m, text, value):
            return None
    elif any(c.isspace() for c in value) or _ENV_NAME.fullmatch(value) or _SNAKE.fullmatch(value):
        return None  # UI strings, `"ANTHROPIC_API_KEY"`, `"client_secret_post"`: names
    if op in ("==", "===") and value.isalpha():
        return None  # `if token == "integer":` compares against a keyword
    if len(value) < 6 or _is_placeholder(value) or _PATH_LIKE.match(value):
        return None
    if value.isdigit() and not is_password:
        return None  # a PIN is a password; `token: 123456` is more likely a count
    return start, end


def _key_starts(text: str, run_start: int, keyword: int) -> Iterator[int]:
    """Where a key containing ``keyword`` may start: the run start or just after a hyphen."""
    yield run_start
    dash = text.find("-", run_start, keyword)
    while dash >= 0:
        yield dash + 1
        dash = text.find("-", dash + 1, keyword)


def _scan_assignments(text: str, folded: bytes) -> Iterator[_Hit]:
    done = 0  # keyword hits before this offset belong to an identifier already examined
    for hint in _KEY_HINT.finditer(folded):
        p = hint.start()
        if p < done:
            continue
        run = _KEY_RUN.match(text, p)
        done = run.end() if run else p + 1
        if text[done : done + 8].lstrip(" \t")[:1] not in _OPERATOR_START:
            continue  # cheap exit: no `=`, `:`, `,` or closing quote after the identifier
        run_start = p
        while run_start > 0 and p - run_start < 80:
            c = text[run_start - 1]
            if not (c.isalnum() or c in "_.-"):
                break
            run_start -= 1
        for start in _key_starts(text, run_start, p):
            m = _ASSIGN.match(text, start)
            if m is None or m.end("key") <= p:
                continue
            classified = _key_kind(m.group("key"))
            span = classified and _assigned_value(m, text, classified[1] == _P_PASSWORD)
            if classified and span:
                yield _Hit(span[0], span[1], classified[0], classified[1])
                done = max(done, m.end())
            break


# ---------------------------------------------------------------------------------------------
# Passwords stated in prose: "the wifi password for the office is <value>", "el password de la
# base de datos es <valor>", "la contraseña del router es <valor>", "passphrase <value>".
#
# A keyword starts a short walk over at most six words on the same line ("for the office", "de
# la base de datos") to a copula ("is", "es", ":", "->"), then reads one value. Each step is one
# anchored match of a bounded pattern, so the work per keyword is bounded and the scan is linear.

_PROSE_KEYWORD = re_cache.compile(rb"pass(?:word|wd|phrase|code)|pwd|contrase.a|clave")
_PROSE_MARK = re_cache.compile(r"[ \t]{0,4}(?::|->|\u2192)")  # `=` is code; assignments cover it
_PROSE_WORD = re_cache.compile(r"[ \t]{1,4}([^\s\"'`,;:=()\[\]{}<>]{1,40})")
_PROSE_QUOTED = re_cache.compile(
    r"[ \t]{0,4}(?:\"([^\"\r\n]{1,128})\"|'([^'\r\n]{1,128})'|`([^`\r\n]{1,128})`)"
)
_PROSE_BARE = re_cache.compile(r"[ \t]{0,4}(\S{1,128})")
_PROSE_COPULAS = frozenset({"is", "was", "es", "era", "now", "to", "ahora", "sera", "será"})
_PROSE_FILLERS = frozenset(
    """
    still changed set updated reset also just simply actually currently temporarily sigue siendo
    cambiada cambiado cambió cambio puesta puesto definida nueva nuevo actual
    """.split()
)
# A noun right after the keyword makes the sentence about something else: "the password hash is
# 5f4dcc…", "password policy: 12 characters".
_PROSE_ABOUT = _NOT_SECRET_SUFFIXES | frozenset(
    """
    hash hashes hashing salt salted digest requirement requirements rule rules strength
    complexity change changes history age attempts protection manager managers generator
    fingerprint checksum encoding encryption reuse lockout expires reminder recovery entropy
    primaria foránea foranea ajena única unica compuesta pública publica
    """.split()
) - frozenset({"user", "username", "login", "email", "mail", "store"})
_HASH_NEARBY = re_cache.compile(
    r"(?i)\b(?:hash\w*|digest|salt\w*|checksum|md5|sha\d*|bcrypt|argon2\w*)\b"
)
_DIRECT_KEYWORDS = frozenset({"password", "passwd", "passphrase", "contrase?a"})
_EMAIL = re_cache.compile(r"[\w.+-]{1,64}@[\w-]{1,63}\.[\w.-]{1,100}")
_PROSE_STRIP = ".,;:?)\"'"


def _keyword_bounds_ok(text: str, start: int, end: int) -> int | None:
    """End of the keyword (after a plural ``s``) when it stands as a word, else None."""
    if start and text[start - 1].isalnum():
        return None  # `mypassword`, `newpwd`
    if end < len(text) and text[end] in "sS":
        end += 1
    if end < len(text) and (text[end].isalnum() or text[end] in "_-"):
        return None  # `password_hash`, `passwords-are-hard`
    return end


def _hash_like(value: str) -> bool:
    return _HEX.fullmatch(value) is not None and len(value) in (32, 40, 56, 64, 96, 128)


def _prose_value_ok(value: str, quoted: bool) -> bool:
    if len(value) < 4 or any(c.isspace() for c in value) or not _secret_literal(value):
        return False
    if _PATH_LIKE.match(value) or "://" in value or _EMAIL.fullmatch(value) or _hash_like(value):
        return False
    if not quoted and (any(c in value for c in "([{<") or _DOTTED.fullmatch(value)):
        return False  # `password: hashPassword(pw, 10)`, `pwd: self.pwd`: code, not a literal
    upper, lower, digit = _classes(value)
    symbol = any(not c.isalnum() and c not in "-_.'" for c in value)
    if quoted:  # `the password is "gatonegro"`: quotes mark a literal
        return len(value) >= 6 or digit or symbol
    return len(value) >= 6 and (upper or lower) and (digit or symbol)


def _strong_bare_value(value: str) -> bool:
    """A value with no copula before it ("wifi password Tr0ub4dor&3x") must look generated or
    chosen: lower case, a digit, and upper case or a symbol, eight characters or more."""
    if len(value) < 8:
        return False
    upper, lower, digit = _classes(value)
    return lower and digit and (upper or not value.isalnum())


def _prose_value(text: str, pos: int) -> tuple[int, int, bool] | None:
    """Span of the value starting at ``pos`` (after optional blanks) and whether it was quoted."""
    q = _PROSE_QUOTED.match(text, pos)
    if q:
        group = next(g for g in (1, 2, 3) if q.group(g) is not None)
        return q.start(group), q.end(group), True
    b = _PROSE_BARE.match(text, pos)
    if b is None:
        return None
    value = b.group(1).rstrip(_PROSE_STRIP)
    return b.start(1), b.start(1) + len(value), False


def _prose_password_at(text: str, keyword: str, end: int) -> tuple[int, int] | None:
    """Span of the password a keyword ending at ``end`` introduces, or None."""
    pos, copula, links = end, False, 0
    for _step in range(12):
        mark = _PROSE_MARK.match(text, pos)
        if mark:
            pos, copula = mark.end(), True
            continue
        w = _PROSE_WORD.match(text, pos)
        if w is None:
            break
        word = w.group(1).lower()
        if word in _PROSE_COPULAS or (copula and word in _PROSE_FILLERS):
            pos, copula = w.end(), True
            continue
        if copula:
            break  # the value
        if links == 0 and word in _PROSE_ABOUT:
            return None  # "password policy", "password hash"
        if links == 0 and keyword in _DIRECT_KEYWORDS:
            span = _prose_value(text, pos)  # "wifi password Tr0ub4dor&3x": no copula
            value = text[span[0] : span[1]] if span else ""
            if span and _strong_bare_value(value):
                if keyword == "passphrase" or not _identifier_like(value):  # passphrases are words
                    return span[:2] if _prose_value_ok(value, span[2]) else None
        links += 1
        if links > 6:
            return None
        pos = w.end()
    if not copula:
        return None
    span = _prose_value(text, pos)
    if span is None or not _prose_value_ok(text[span[0] : span[1]], span[2]):
        return None
    return span[:2]


def _scan_prose_passwords(text: str, folded: bytes) -> Iterator[_Hit]:
    for m in _PROSE_KEYWORD.finditer(folded):
        end = _keyword_bounds_ok(text, m.start(), m.end())
        if end is None:
            continue
        keyword = m.group().decode("ascii", "replace")
        if keyword == "clave" and text[max(0, m.start() - 9) : m.start()].lower().endswith(
            ("palabra ", "palabras ")
        ):
            continue  # "la palabra clave es …" names a keyword
        span = _prose_password_at(text, keyword, end)
        if span is None:
            continue
        line_start = text.rfind("\n", max(0, m.start() - 120), m.start()) + 1
        if _HASH_NEARBY.search(text, max(line_start, m.start() - 40), m.start()):
            continue  # "the bcrypt hash of the password is $2b$…", "el hash de la contraseña es …"
        yield _Hit(span[0], span[1], "password in text", _P_PASSWORD)


# ---------------------------------------------------------------------------------------------
# Passwords given on a command line: `mysql -uroot -pS3cret`, `sshpass -p '…'`, `curl -u u:pw`,
# `htpasswd -b file user pw`, `docker login -p …`, `redis-cli -a …`, `gpg --passphrase …`
#
# A known program name starts a segment that ends at the next program name, a newline (not one
# escaped by `\`), `;`, `|` or `&`, or after 1,024 characters; segments never overlap, so each
# character is split into words once. Short flags mean different things to different programs
# (`-p` is a port for ssh and psql, a prompt for `mysql -p`), so each program's flags are listed.

_PROGRAM = re_cache.compile(
    rb"mysql|mariadb|sshpass|curl|htpasswd|docker|podman|nerdctl|buildah|skopeo|helm|oras"
    rb"|redis-cli|mongo|sqlcmd|bcp|ldap|smbclient|rpcclient|openssl|keytool|jarsigner|zip|7z"
    rb"|sqlplus|expdp|impdp|sqlldr|ssh-keygen|az"
)
_PROGRAM_NAME = re_cache.compile(r"[A-Za-z0-9_.-]{1,40}")
_SHELL_PIECE = re_cache.compile(r"'[^'\n]{0,512}'|\"[^\"\n]{0,512}\"|[^\s'\"]{1,1024}")
_SEGMENT_END = re_cache.compile(r"[\n;|&]")
_SEGMENT_MAX = 1024
_PROGRAM_BEFORE = " \t\n;|&(`'\"$/"
_LONG_FLAG_TAIL_NOT_SECRET = frozenset({"stdin", "fd", "cmd", "command", "helper", "from"})


class _Word(NamedTuple):
    start: int
    end: int
    raw: str


def _program(name: str) -> str | None:
    """The family a program name belongs to, or None for a name we know nothing about."""
    name = name.lower().removesuffix(".exe")
    if name.startswith(("mysql", "mariadb")):
        return "mysql"
    if name.startswith("mongo"):
        return "mongo"
    if name.startswith("ldap"):
        return "ldap"
    families = {
        "sshpass": "sshpass",
        "curl": "curl",
        "htpasswd": "htpasswd",
        "redis-cli": "redis",
        "sqlcmd": "sqlcmd",
        "bcp": "sqlcmd",
        "smbclient": "smb",
        "rpcclient": "smb",
        "openssl": "openssl",
        "keytool": "keytool",
        "jarsigner": "keytool",
        "zip": "zip",
        "unzip": "zip",
        "7z": "7z",
        "7za": "7z",
        "sqlplus": "oracle",
        "expdp": "oracle",
        "impdp": "oracle",
        "sqlldr": "oracle",
        "ssh-keygen": "ssh-keygen",
        "az": "login",
    }
    if name in ("docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras"):
        return "login"
    return families.get(name)


def _segment_end(text: str, start: int) -> int:
    limit = min(len(text), start + _SEGMENT_MAX)
    pos = start
    while True:
        m = _SEGMENT_END.search(text, pos, limit)
        if m is None:
            return limit
        if m.group() == "\n" and text[m.start() - 1] == "\\":
            pos = m.end()  # a continued line
            continue
        if m.group() == "&" and text[m.start() + 1 : m.start() + 2] == ">":
            pos = m.end()  # `&>` redirects, it does not end the command
            continue
        return m.start()


def _shell_words(text: str, start: int, end: int) -> list[_Word]:
    """Words of a command line: adjacent quoted and bare pieces join, `\\` continuations drop."""
    words: list[_Word] = []
    for m in _SHELL_PIECE.finditer(text, start, end):
        if words and words[-1].end == m.start():
            last = words[-1]
            words[-1] = _Word(last.start, m.end(), last.raw + m.group())
        else:
            words.append(_Word(m.start(), m.end(), m.group()))
    return [w for w in words if w.raw != "\\"]


def _word_at(text: str, pos: int) -> _Word | None:
    """The shell word starting exactly at ``pos`` (at most eight joined pieces), or None."""
    word: _Word | None = None
    for _ in range(8):
        m = _SHELL_PIECE.match(text, pos)
        if m is None:
            break
        word = _Word(word.start if word else pos, m.end(), (word.raw if word else "") + m.group())
        pos = m.end()
    return word


def _unquoted(word: _Word, skip: int = 0) -> tuple[int, int]:
    """Span of ``word``'s value after ``skip`` prefix characters, without surrounding quotes."""
    start, end = word.start + skip, word.end
    if end - start >= 2 and word.raw[skip] in "'\"" and word.raw[-1] == word.raw[skip]:
        return start + 1, end - 1
    return start, end


def _cli_value_ok(value: str) -> bool:
    if len(value) < 4 or value.startswith("-") or not _secret_literal(value):
        return False
    if value.startswith("%") and value.endswith("%"):
        return False  # a Windows variable, `%MYSQL_PWD%`
    return not value.startswith(("`", "/", "~/", "./")) and "$(" not in value


def _after_separator(text: str, span: tuple[int, int], sep: str) -> tuple[int, int] | None:
    """The part of ``span`` after the first ``sep`` (`user:password`, `user%password`)."""
    cut = text.find(sep, span[0], span[1])
    return (cut + 1, span[1]) if cut >= 0 else None


def _flag_values(words: list[_Word], short: dict[str, str]) -> Iterator[tuple[int, int]]:
    """Value spans of the flags in ``short``, which maps a flag to "next" (value in the next
    word), "attached" (`-pVALUE` only) or "both"."""
    for i, w in enumerate(words):
        raw = w.raw
        for flag, how in short.items():
            if raw == flag and how in ("next", "both") and i + 1 < len(words):
                yield _unquoted(words[i + 1])
            elif raw.startswith(flag) and len(raw) > len(flag) and how in ("attached", "both"):
                yield _unquoted(w, len(flag))


def _htpasswd_value(words: list[_Word]) -> tuple[int, int] | None:
    """`htpasswd -b[c] file user password`, `htpasswd -nb user password`."""
    flags = "".join(
        w.raw[1:] for w in words if w.raw.startswith("-") and not w.raw.startswith("--")
    )
    if "b" not in flags:
        return None
    positional, skip = [], False
    for w in words:
        if skip:
            skip = False
        elif w.raw.startswith("-"):
            skip = w.raw.endswith("C")  # `-C 10` takes the bcrypt cost
        else:
            positional.append(w)
    index = 1 if "n" in flags else 2
    return _unquoted(positional[index]) if len(positional) > index else None


_SHORT_FLAGS: dict[str, dict[str, str]] = {
    "mysql": {"-p": "attached"},  # `-p` alone prompts; `-p dbname` names a database
    "sshpass": {"-p": "both"},
    "redis": {"-a": "next"},
    "mongo": {"-p": "next"},
    "sqlcmd": {"-P": "both"},
    "ldap": {"-w": "next"},
    "zip": {"-P": "next"},
    "7z": {"-p": "attached"},
    "ssh-keygen": {"-N": "next", "-P": "next"},
    "keytool": {
        "-storepass": "next",
        "-keypass": "next",
        "-srcstorepass": "next",
        "-deststorepass": "next",
        "-srckeypass": "next",
        "-destkeypass": "next",
    },
}


def _command_values(text: str, family: str, words: list[_Word]) -> Iterator[tuple[int, int]]:
    """Value spans of passwords given to a program of ``family`` in ``words``."""
    short = _SHORT_FLAGS.get(family, {})
    if family == "login":  # `docker login -p`, `az login -p`; `docker run -p 80:80` is a port
        short = {"-p": "next"} if any(w.raw == "login" for w in words[:4]) else {}
    pairs: list[tuple[int, int]] = []  # `user:password` or `user%password` values
    if family == "curl":
        pairs = list(_flag_values(words, {"-u": "both", "--user": "next", "-U": "both"}))
        pairs += [
            _unquoted(w, w.raw.index("=") + 1)
            for w in words
            if w.raw.startswith(("--user=", "--proxy-user="))
        ]
    elif family == "smb":
        pairs = list(_flag_values(words, {"-U": "both"}))
    spans = list(_flag_values(words, short))
    for span in pairs:
        cut = text.find("%" if family == "smb" else ":", span[0], span[1])
        if cut >= 0:
            spans.append((cut + 1, span[1]))
    if family == "htpasswd":
        spans += [span for span in [_htpasswd_value(words)] if span]
    elif family == "openssl":
        for w in words:
            start, end = _unquoted(w)
            if text.startswith("pass:", start):
                spans.append((start + 5, end))
    elif family == "oracle":  # `sqlplus scott/Tiger123@orcl`; `sqlplus / as sysdba` has none
        first = next((w for w in words if not w.raw.startswith("-")), None)
        if first and "/" in first.raw[1:] and "://" not in first.raw:
            start, end = _unquoted(first)
            cut = text.find("/", start, end)
            at = text.find("@", cut, end)
            if cut > start:
                spans.append((cut + 1, at if at >= 0 else end))
    return (span for span in spans if _cli_value_ok(text[span[0] : span[1]]))


def _program_starts(text: str, folded: bytes) -> Iterator[tuple[int, int, str]]:
    """(start, end of name, family) of each known program name used as a command word."""
    for m in _PROGRAM.finditer(folded):
        start = m.start()
        if start and text[start - 1] not in _PROGRAM_BEFORE:
            continue
        name = _PROGRAM_NAME.match(text, start)
        if name is None or name.end() >= len(text) or text[name.end()] not in " \t":
            continue
        if start and text[start - 1] == "/":  # `/usr/bin/mysql`, not `https://host/mysql`
            lo = max(0, start - 256)
            word_start = max(text.rfind(c, lo, start) for c in " \t\n") + 1 or lo
            if ":" in text[word_start:start]:
                continue
        family = _program(name.group())
        if family:
            yield start, name.end(), family


_LONG_FLAG = re_cache.compile(r"--([A-Za-z][A-Za-z0-9-]{1,40})[ \t]{1,8}")


def _scan_long_flags(text: str) -> Iterator[_Hit]:
    """`--password VALUE`, `--passphrase VALUE`, `--client-secret VALUE` after any program
    (`--password=VALUE` is an assignment, found with those)."""
    if "--" not in text:
        return
    for m in _LONG_FLAG.finditer(text):
        name = m.group(1)
        kind = _key_kind(name)
        tail = name.lower().rsplit("-", 1)[-1]
        if not kind or tail in _LONG_FLAG_TAIL_NOT_SECRET or name.lower().startswith("no-"):
            continue
        word = _word_at(text, m.end())
        if word is None:
            continue
        start, end = _unquoted(word)
        quoted = end < word.end
        if not quoted:
            end = start + len(text[start:end].rstrip(_PROSE_STRIP))
        value = text[start:end]
        if kind[1] == _P_PASSWORD:
            ok = quoted or not value.isalpha()  # `--password carefully` is prose
        else:
            ok = len(value) >= 12 and _looks_random(value)  # `--token` values look generated
        if ok and _cli_value_ok(value):
            label = "password" if kind[1] == _P_PASSWORD else "secret"
            yield _Hit(start, end, f"{label} on a command line", _P_COMMAND_LINE)


def _scan_command_lines(text: str, folded: bytes) -> Iterator[_Hit]:
    starts = list(_program_starts(text, folded))
    for i, (_start, name_end, family) in enumerate(starts):
        end = _segment_end(text, name_end)
        if i + 1 < len(starts):
            end = min(end, starts[i + 1][0])
        for a, b in _command_values(text, family, _shell_words(text, name_end, end)):
            yield _Hit(a, b, "password on a command line", _P_COMMAND_LINE)


# ---------------------------------------------------------------------------------------------
# High-entropy strings next to a secret word on the same line

_CANDIDATE = re_cache.compile(r"[A-Za-z0-9+/_-]{20,}={0,2}")
_CONTEXT_WORD = re_cache.compile(
    rb"secrets?|tokeniz|tokens?|passwords?|passwd|pwd|contrase.as?|claves?|credentials?|key"
    rb"|bearer|authorization"
)
_KEY_QUALIFIER = re_cache.compile(rb"(?:api|access|private|secret)[ _-]?$")
_UUID = re_cache.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
_HEX = re_cache.compile(r"[0-9a-fA-F]+")
_DIGEST_PREFIX = re_cache.compile(r"(?i)(?:sha\d*|md5|blake\w*|base64|digest|hash)[:=,-]$")
_DIGEST_WORD = re_cache.compile(r"(?i)(?:sha\d*|md5|blake\w*)[-:=]")
_HASH_CONTEXT = re_cache.compile(r"(?i)\b(?:commit\w*|sha\d*|hash\w*|checksum\w*|digest\w*|md5)\b")
_LEAF_ID = re_cache.compile(r"L-[\w.-]*-\d{4}-[0-9a-f]{6,}")
_MAX_CANDIDATE = 512


def _context_word_ok(text: str, folded: bytes, m: re.Match[bytes]) -> bool:
    """A secret word standing on its own or as part of a name (``GITHUB_TOKEN``, ``apiKey``),
    not a fragment of another word (``monkey``, ``secretary``) or of a base64 blob."""
    start, end = m.span()
    if m.group() in (b"tokeniz", b"tokens"):
        return False  # "max tokens", "tokenizer": language-model talk, not credentials
    before_ok = (
        start == 0
        or not text[start - 1].isalnum()
        or (text[start].isupper() and not text[start - 1].isupper())
        or (m.group() == b"key" and _KEY_QUALIFIER.search(folded, max(0, start - 8), start))
    )
    after_ok = (
        end == len(text)
        or not text[end].isalnum()
        or (text[end].isupper() and text[end - 1].islower())
    )
    return bool(before_ok and after_ok)


def _word_around(text: str, start: int, end: int, lo: int, hi: int) -> str:
    """The whitespace-delimited word containing text[start:end], within one line."""
    left = start
    while left > lo and not text[left - 1].isspace() and start - left < 2048:
        left -= 1
    right = end
    while right < hi and not text[right].isspace() and right - end < 2048:
        right += 1
    return text[left:right].strip("\"'`()[]{}<>,;")


def _encoded_prose(value: str) -> bool:
    """True when ``value`` is base64 of a sentence ("VGhpcyBpcyBqdXN0…" = "This is just…"): an
    encoding shown in prose, not a key. Random keys never decode to words and spaces."""
    if len(value) % 4 == 1:
        return False
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return False
    letters = sum(c.isalpha() or c == " " for c in decoded)
    return " " in decoded.strip() and decoded.isprintable() and letters >= 0.8 * len(decoded)


def _entropy_candidate_ok(text: str, m: re.Match[str], lo: int, hi: int) -> bool:
    value = m.group().rstrip("=")
    if len(value) < 20 or len(value) > _MAX_CANDIDATE or _preceded_by(text, m.start(), _B + "+/"):
        return False
    is_hex = _HEX.fullmatch(value) is not None
    # Hex carries at most 4 bits per character, so random hex keys sit near 3.6: use a lower bar.
    if _entropy(value) < (3.0 if is_hex else 3.5) or not _looks_random(value):
        return False
    if _identifier_like(value) or _is_placeholder(value):
        return False
    if _DIGEST_PREFIX.search(text, max(lo, m.start() - 10), m.start()):
        return False
    word = _word_around(text, m.start(), m.end(), lo, hi)
    if "://" in word or word.startswith(("data:", "www.")) or _UUID.search(word):
        return False  # URLs carry secrets only in forms the other detectors know
    if _LEAF_ID.search(word) or _DIGEST_WORD.match(word) or _encoded_prose(value):
        return False
    return not (is_hex and len(value) in (32, 40, 64, 128) and _HASH_CONTEXT.search(text, lo, hi))


def _scan_high_entropy(text: str, folded: bytes) -> Iterator[_Hit]:
    line_end = -1
    for first in _CONTEXT_WORD.finditer(folded):
        if first.start() <= line_end:
            continue
        lo = text.rfind("\n", 0, first.start()) + 1
        hi = text.find("\n", first.end())
        line_end = hi = len(text) if hi < 0 else hi
        words = [
            w.span()
            for w in _CONTEXT_WORD.finditer(folded, first.start(), hi)
            if _context_word_ok(text, folded, w)
        ]
        if not words:
            continue
        for m in _CANDIDATE.finditer(text, lo, hi):
            # The secret word must sit beside the candidate, not inside it (base64 contains "key").
            beside = any(e <= m.start() or s >= m.end() for s, e in words)
            if beside and _entropy_candidate_ok(text, m, lo, hi):
                yield _Hit(m.start(), m.end(), "high-entropy string", _P_ENTROPY)


# ---------------------------------------------------------------------------------------------
# Public API

_DATA_URI = re_cache.compile(r"data:[\w/+.-]{1,100};base64,[A-Za-z0-9+/=]+")


def _merge(hits: Iterable[_Hit]) -> list[_Hit]:
    """Union overlapping hits into one span labelled with the most specific kind."""
    merged: list[_Hit] = []
    for hit in sorted(hits, key=lambda h: (h.start, -h.end)):
        if merged and hit.start < merged[-1].end:
            last = merged[-1]
            best = last if last.priority >= hit.priority else hit
            merged[-1] = _Hit(last.start, max(last.end, hit.end), best.kind, best.priority)
        else:
            merged.append(hit)
    return merged


def _preview(value: str) -> str:
    return value[: min(4, len(value) // 2)] + "\u2026"


def find_secrets(text: str) -> list[SecretFinding]:
    """Likely secrets in ``text``, sorted by start and never overlapping."""
    if not isinstance(text, str):
        raise InputError(f"find_secrets expects text (str), got {type(text).__name__}")
    if not text:
        return []
    folded = _fold(text)
    hits = [
        *_scan_vendor(text),
        *_scan_private_keys(text),
        *_scan_jwts(text),
        *_scan_url_passwords(text),
        *_scan_auth_headers(text),
        *_scan_assignments(text, folded),
        *_scan_prose_passwords(text, folded),
        *_scan_command_lines(text, folded),
        *_scan_long_flags(text),
        *_scan_high_entropy(text, folded),
    ]
    if "base64," in text:  # nothing inside an inline image is a credential
        images = [m.span() for m in _DATA_URI.finditer(text)]
        hits = [h for h in hits if not any(a <= h.start and h.end <= b for a, b in images)]
    return [
        SecretFinding(h.kind, h.start, h.end, _preview(text[h.start : h.end]))
        for h in _merge(h for h in hits if h.end > h.start)
    ]


def redact(text: str, *, keep_lines: bool = False) -> tuple[str, list[SecretFinding]]:
    """``text`` with every secret value replaced by ``[REDACTED:<kind>]``; offsets are original.

    ``keep_lines`` keeps the newlines a secret spanned after its marker, so the text keeps its
    line count and line numbers into it (a code index's symbol ranges) stay right."""
    findings = find_secrets(text)
    if not findings:
        return text, findings
    parts: list[str] = []
    pos = 0
    for f in findings:
        parts.append(text[pos : f.start])
        parts.append(f"[REDACTED:{f.kind}]")
        if keep_lines:
            parts.append("\n" * text.count("\n", f.start, f.end))
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts), findings


def redact_reporting(text: str, where: str, notes: list[str]) -> str:
    """``redact`` for ingestion: one note per secret taken out ("<where>: redacted <kind>
    (<preview>)") is appended to ``notes``, the user's record of what was not stored."""
    clean, findings = redact(text)
    notes += [f"{where}: redacted {f.kind} ({f.preview})" for f in findings]
    return clean


def describe(findings: Iterable[SecretFinding]) -> str:
    """One line for a user or a model: how many secrets and of which kinds."""
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.kind] = counts.get(f.kind, 0) + 1
    total = sum(counts.values())
    if not total:
        return "no likely secrets found"
    kinds = ", ".join(k if n == 1 else f"{k} (x{n})" for k, n in counts.items())
    return f"found {total} likely secret{'' if total == 1 else 's'}: {kinds}"
