"""Find credentials in text before it is stored, so a secret never lands in the memory silently.

Precision matters as much as recall: a memory full of false alarms teaches people to click
through them. So fixed vendor shapes (``AKIA…``, ``ghp_…``, PEM blocks, JWTs) are always
flagged, while loose shapes must pass extra checks: ``key = value`` needs a secret-ish key name
and a value that is neither a placeholder nor code, and a random-looking string counts only next
to a word such as "token" or "password" on the same line.

Speed and safety on hostile input (a 1 MB line, 1 MB of one letter): every regex that sweeps the
whole text starts with a literal (or a few literals) so the engine can jump between candidates;
word boundaries are checked in Python after a match instead of with a leading look-behind, which
would force a slow attempt at every position; repetitions are bounded, so backtracking is too.
The loose patterns only run where a cheap keyword search points them. Keyword searches run once
over an ASCII-folded copy of the text whose offsets equal the original's. Nothing here raises on
any ``str``: decoding failures are simply "not a secret".
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from ihmt.errors import InputError

__all__ = ["SecretFinding", "describe", "find_secrets", "redact"]


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


_WORD_PART = re.compile(r"[A-Z]?[a-z]{2,}")


def _looks_random(s: str) -> bool:
    """True for machine-generated strings, False for words, dummies and CamelCase names."""
    if len(set(s)) < min(8, max(3, len(s) // 3)):
        return False
    if sum(_classes(s)) < 2:
        return False
    # Word-like parts cover ~1.0 of a CamelCase name but rarely 0.9 of a random string.
    return sum(len(p) for p in _WORD_PART.findall(s)) < 0.9 * len(s)


def _token_body_ok(body: str) -> bool:
    """Reject dummies such as ``ghp_XXXXXXXX…`` while keeping any real-looking body."""
    return len(set(body)) >= min(8, max(3, len(body) // 3)) and sum(_classes(body)) >= 2


_SEGMENT = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SEPARATORS = re.compile(r"[/_+-]")


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
_PATH_LIKE = re.compile(r"(?:/|~/|\./|\.\./|[A-Za-z]:\\)")


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
    _Rule("AWS access key", re.compile(r"AKIA[A-Z0-9]{16}(?![A-Za-z0-9])"), _ALNUM, 4),
    _Rule("AWS access key", re.compile(r"ASIA[A-Z0-9]{16}(?![A-Za-z0-9])"), _ALNUM, 4),
    _Rule("GitHub token", re.compile(r"gh[pousr]_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_])"), _B, 4),
    _Rule("GitHub token", re.compile(r"github_pat_[A-Za-z0-9_]{22,244}"), _B, 11),
    _Rule("GitLab token", re.compile(r"glpat-[A-Za-z0-9_-]{20,80}"), _B, 6),
    _Rule("Slack token", re.compile(r"xox[abprs]-[A-Za-z0-9-]{10,250}"), _B, 5),
    _Rule(
        "Slack webhook URL",
        re.compile(
            r"https://hooks\.slack\.com/services/T[A-Z0-9]{6,20}/B[A-Z0-9]{6,20}/[A-Za-z0-9]{16,40}"
        ),
        "",
        29,
    ),
    _Rule("Stripe key", re.compile(r"sk_(?:live|test)_[A-Za-z0-9]{16,247}"), _B, 8),
    _Rule("Stripe key", re.compile(r"rk_(?:live|test)_[A-Za-z0-9]{16,247}"), _B, 8),
    _Rule("Anthropic API key", re.compile(r"sk-ant-[A-Za-z0-9_-]{20,300}"), _B, 7, _looks_random),
    _Rule("OpenAI API key", re.compile(r"sk-(?!ant-)[A-Za-z0-9_-]{20,300}"), _B, 3, _looks_random),
    _Rule("Google API key", re.compile(r"AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])"), _B, 4),
    _Rule("Twilio API key", re.compile(r"SK[0-9a-f]{32}(?![A-Za-z0-9])"), _ALNUM, 2),
    _Rule(
        "SendGrid API key",
        re.compile(r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"),
        _B + ".",
        3,
    ),
    _Rule("npm token", re.compile(r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"), _B, 4),
    _Rule("PyPI token", re.compile(r"pypi-AgEI[A-Za-z0-9_-]{50,2000}"), _B, 9),
    _Rule(
        "Hugging Face token",
        re.compile(r"hf_[A-Za-z0-9]{30,60}(?![A-Za-z0-9_])"),
        _B,
        3,
        _looks_random,
    ),
)


def _scan_vendor(text: str) -> Iterator[_Hit]:
    for rule in _VENDOR_RULES:
        for m in rule.regex.finditer(text):
            if not _preceded_by(text, m.start(), rule.not_after) and rule.check(
                m.group()[rule.body_from :]
            ):
                yield _Hit(m.start(), m.end(), rule.kind, _P_VENDOR)


# ---------------------------------------------------------------------------------------------
# Private key blocks: the whole block, BEGIN line through END line

_KEY_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_KEY_END = re.compile(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


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

_JWT = re.compile(r"eyJ[A-Za-z0-9_-]{5,2000}\.[A-Za-z0-9_-]{2,20000}\.[A-Za-z0-9_-]{0,2000}")


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
        if not _preceded_by(text, m.start(), _B + ".") and _jwt_header_ok(m.group()):
            yield _Hit(m.start(), m.end(), "JWT", _P_JWT)


# ---------------------------------------------------------------------------------------------
# scheme://user:PASSWORD@host

_URL_AFTER_SCHEME = re.compile(r"://[^\s:/@?#]{0,200}:([^\s@/?#]{1,200})@[^\s/@]")


def _scan_url_passwords(text: str) -> Iterator[_Hit]:
    pos = text.find("://")
    while pos >= 0:
        m = _URL_AFTER_SCHEME.match(text, pos) if pos and text[pos - 1].isalnum() else None
        if m:
            password = m.group(1)
            if len(password) >= 4 and not _is_placeholder(password):
                yield _Hit(m.start(1), m.end(1), "password in connection string", _P_URL_PASSWORD)
        pos = text.find("://", pos + 3)


# ---------------------------------------------------------------------------------------------
# Authorization headers

_BEARER = re.compile(r"earer[ \t]+([A-Za-z0-9._~+/-]{16,2000}=*)")
_BASIC = re.compile(r"asic[ \t]+([A-Za-z0-9+/]{8,2000}={0,2})(?![A-Za-z0-9+/=])")


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

_ASSIGN = re.compile(  # only ever used with .match() at a known key start
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
_KEY_HINT = re.compile(rb"pass|pw|secret|token|key|contrase|clave|credential|senha")
_KEY_RUN = re.compile(r"[\w.-]*")
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
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEGMENT_SPLIT = re.compile(r"[_.\-]+")
_WORDY = re.compile(r"[A-Za-z_]+(?:-[A-Za-z_]+)*")
_SNAKE = re.compile(r"[a-z]+(?:[_-][a-z]+)+")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
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
        if quoted_key:
            return None  # `{"token": next_token}` in code; JSON strings are always quoted
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
# Passwords stated in prose: "the wifi password is <value>", "la contraseña es <valor>"

_PROSE_PASSWORD = re.compile(
    rb"(?:password|passwd|passcode|pwd|contrase.a|clave)s?[ \t]+(?:is|was|es|era|now|to)[ \t]+"
)
_PROSE_VALUE = re.compile(r"[^\s]{6,128}")


def _scan_prose_passwords(text: str, folded: bytes) -> Iterator[_Hit]:
    for m in _PROSE_PASSWORD.finditer(folded):
        v = _PROSE_VALUE.match(text, m.end())
        if v is None:
            continue
        value = v.group().rstrip(".,;:?)\"'")
        upper, lower, digit = _classes(value)
        symbol = any(not c.isalnum() and c not in "-_.'" for c in value)
        if len(value) >= 6 and (upper or lower) and (digit or symbol) and "://" not in value:
            if not _is_placeholder(value) and not _PATH_LIKE.match(value):
                yield _Hit(v.start(), v.start() + len(value), "password in text", _P_PASSWORD)


# ---------------------------------------------------------------------------------------------
# High-entropy strings next to a secret word on the same line

_CANDIDATE = re.compile(r"[A-Za-z0-9+/_-]{20,}={0,2}")
_CONTEXT_WORD = re.compile(
    rb"secrets?|tokeniz|tokens?|passwords?|passwd|pwd|contrase.as?|claves?|credentials?|key"
    rb"|bearer|authorization"
)
_KEY_QUALIFIER = re.compile(rb"(?:api|access|private|secret)[ _-]?$")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-fA-F]+")
_DIGEST_PREFIX = re.compile(r"(?i)(?:sha\d*|md5|blake\w*|base64|digest|hash)[:=,-]$")
_DIGEST_WORD = re.compile(r"(?i)(?:sha\d*|md5|blake\w*)[-:=]")
_HASH_CONTEXT = re.compile(r"(?i)\b(?:commit\w*|sha\d*|hash\w*|checksum\w*|digest\w*|md5)\b")
_LEAF_ID = re.compile(r"L-[\w.-]*-\d{4}-[0-9a-f]{6,}")
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
    if _LEAF_ID.search(word) or _DIGEST_WORD.match(word):
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

_DATA_URI = re.compile(r"data:[\w/+.-]{1,100};base64,[A-Za-z0-9+/=]+")


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
        *_scan_high_entropy(text, folded),
    ]
    if "base64," in text:  # nothing inside an inline image is a credential
        images = [m.span() for m in _DATA_URI.finditer(text)]
        hits = [h for h in hits if not any(a <= h.start and h.end <= b for a, b in images)]
    return [
        SecretFinding(h.kind, h.start, h.end, _preview(text[h.start : h.end]))
        for h in _merge(h for h in hits if h.end > h.start)
    ]


def redact(text: str) -> tuple[str, list[SecretFinding]]:
    """``text`` with every secret value replaced by ``[REDACTED:<kind>]``; offsets are original."""
    findings = find_secrets(text)
    parts: list[str] = []
    pos = 0
    for f in findings:
        parts.append(text[pos : f.start])
        parts.append(f"[REDACTED:{f.kind}]")
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts), findings


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
