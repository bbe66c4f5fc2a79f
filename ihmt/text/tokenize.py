"""Tokenizer shared by search (BM25), tree summaries and facts.

Queries and documents go through the same function, so the only goal is that a
user's words land on the same tokens as the stored text: case and accents are
folded away, code identifiers are indexed both whole and by their parts, and
version numbers keep their dotted form. Everything is a single linear pass of
compiled regexes (plus short per-token loops) so huge inputs cannot stall it.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache

from ihmt.text.stopwords import is_stopword
from ihmt.text.unicode_classes import classes
from ihmt.text.vocabulary import normalize, phrase_abbreviations, product_kinds

from .. import re_cache

MAX_TOKEN_CHARS = 64

# C0/C1 controls (except the whitespace ones) and lone surrogates become spaces,
# so they separate words instead of gluing or breaking them.
_CTRL_RE = re_cache.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_ASCII_CTRL_RE = re_cache.compile(r"[\x00-\x08\x0e-\x1f\x7f]")

# Diacritics removed after NFKD: the generic combining blocks plus the optional
# Hebrew and Arabic vowel points. Marks that are part of a script's spelling
# (Devanagari vowel signs, kana voicing) are kept and recomposed by NFC.
_DIACRITICS_RE = re_cache.compile(
    "[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
    "\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u064b-\u065f\u0670]+"
)

# Letters NFKD leaves alone but people type without the special letter.
_LETTER_MAP = str.maketrans(
    {"æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i", "ħ": "h"}
)

# CJK ideographs have no spaces between words; each one is a token of its own.
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f\U00030000-\U000323af"

# Split points inside a compound: underscores, hyphens and dots, except a dot
# between two digits (that belongs to a number such as 3.11 or v2.3).
_SEGMENT_SPLIT_RE = re_cache.compile(r"[_-]+|(?<!\d)\.|\.(?!\d)")
_NUMBER_RE = re_cache.compile(r"\d+(?:\.\d+)*")
# a release number: "3.11", "16.2.1", "v20" (not a plain count, a date or an address)
_VERSION_RE = re_cache.compile(r"v?\d{1,3}\.\d{1,3}(?:\.\d{1,4})?|v\d{1,3}")

# Language names that end in symbols: letter -> suffixes that may follow it.
_LANG_SUFFIXES = {"C": ("++", "#"), "c": ("++", "#"), "G": ("++",), "g": ("++",)}
_LANG_SUFFIXES |= {letter: ("#",) for letter in "FJQfjq"}
_LANG_SUFFIX_RE = re_cache.compile(r"(?:\+\+|#)(?![\w+#])")


# The word scanner of _tables() restricted to ASCII, where word characters are exactly
# letters, digits and the underscore (no marks, no ideographs): the same tokens, no tables.
_ASCII_SCANNER = re_cache.compile(r"(?P<word>[A-Za-z0-9_]+(?:[-.][A-Za-z0-9_]+)*)")


@lru_cache(maxsize=1)
def _tables() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Build (format-char remover, word scanner) once, on first use.

    Python's ``\\w`` omits combining marks, which would cut Hindi or Thai words
    apart, so a word character is ``\\w`` or a mark, minus CJK ideographs
    (tokenized one by one). The marks and format characters come from
    ``unicode_classes`` (kept per Unicode version: scanning every code point
    would cost a hook 70 ms or more on its first non-ASCII text).
    """
    marks, formats = classes()
    format_re = re_cache.compile(f"[{formats}]+")
    word_char = f"(?:[^\\W{_HAN}]|[{marks}])"
    scanner = re_cache.compile(f"(?P<word>{word_char}+(?:[-.]{word_char}+)*)|(?P<han>[{_HAN}]+)")
    return format_re, scanner


def _prenormalize(text: str) -> str:
    """Case-preserving cleanup: controls to spaces, NFKD, accents dropped, NFC."""
    if text.isascii():
        return _ASCII_CTRL_RE.sub(" ", text)
    format_re, _ = _tables()
    text = format_re.sub("", _CTRL_RE.sub(" ", text))
    text = _DIACRITICS_RE.sub("", unicodedata.normalize("NFKD", text))
    return unicodedata.normalize("NFC", text)


def fold(text: str) -> str:
    """Lower-case and strip accents so "Mudé", "MUDE" and "mude" compare equal.

    Never raises: control characters and lone surrogates become spaces and
    invisible format characters (soft hyphen, zero-width space) are removed.
    """
    if text.isascii():
        return _ASCII_CTRL_RE.sub(" ", text).lower()
    format_re, _ = _tables()
    text = format_re.sub("", _CTRL_RE.sub(" ", text))
    # casefold may emit new combining marks (and NFKD may emit capitals), so
    # both run twice around it; the result is a fixed point of fold().
    text = unicodedata.normalize("NFKD", text).casefold()
    text = unicodedata.normalize("NFKD", text).casefold().translate(_LETTER_MAP)
    text = _DIACRITICS_RE.sub("", text)
    return unicodedata.normalize("NFC", text)


def _fold_token(piece: str) -> str:
    token = piece.lower() if piece.isascii() else fold(piece)
    return token[:MAX_TOKEN_CHARS]


def _kind(ch: str) -> str:
    """Character class for identifier splitting: digit, upper, lower, other letter."""
    if ch.isdecimal() or ch == ".":
        return "d"
    if ch.isupper():
        return "u"
    if ch.islower():
        return "l"
    if ch.isalpha():
        return "u" if ch.istitle() else "o"
    return ""  # combining mark and the like: stays with the previous character


def _atoms(segment: str) -> list[str]:
    """Split one connector-free segment on CamelCase and letter/digit changes.

    "HTTPServerError" -> HTTP, Server, Error; "PG17" -> PG, 17; "v2.3" -> v, 2.3.
    """
    if len(segment) == 1 or (
        segment.isalpha()
        and (segment[1:].islower() or segment.isupper() or segment.lower() == segment.upper())
    ):
        return [segment]
    if _NUMBER_RE.fullmatch(segment):
        return [segment]
    atoms: list[str] = []
    start = 0
    prev = _kind(segment[0]) or "o"
    for i in range(1, len(segment)):
        kind = _kind(segment[i])
        if not kind:
            continue
        if kind != prev:
            if prev == "u" and kind == "l":
                # "HTTPServer": the last capital starts the next word.
                if i - 1 > start:
                    atoms.append(segment[start : i - 1])
                    start = i - 1
            else:
                atoms.append(segment[start:i])
                start = i
        prev = kind
    atoms.append(segment[start:])
    return atoms


def _version_extras(atoms: list[str]) -> list[str]:
    """Extra forms of dotted numbers so "v2" and "3.11" find "v2.3" and "3.11.7"."""
    extras: list[str] = []
    for idx, atom in enumerate(atoms):
        if "." not in atom or not atom[0].isdecimal():
            continue
        comps = atom.split(".")
        if len(comps) >= 3:
            extras.append(f"{comps[0]}.{comps[1]}")
        if idx > 0 and not atoms[idx - 1][-1].isdecimal():
            extras.append(atoms[idx - 1] + comps[0])
    return extras


def _compound_parts(raw: str) -> list[str]:
    """Parts of a compound word, empty when the word does not split."""
    if raw.isalnum():
        segments = [raw]
    else:
        segments = [s for s in _SEGMENT_SPLIT_RE.split(raw) if s]
    parts: list[str] = []
    if len(segments) > 1:
        for seg in segments:
            parts.append(seg)
            atoms = _atoms(seg)
            if len(atoms) > 1:
                parts.extend(atoms)
            if "." in seg:
                parts.extend(_version_extras(atoms))
    elif segments:
        atoms = _atoms(segments[0])
        if len(atoms) > 1:
            parts.extend(atoms)
        if "." in segments[0]:
            parts.extend(_version_extras(atoms))
    return parts


# "PRs", "VMs", "JWTs": the plural of an acronym is the acronym, not a CamelCase split into
# "PR" + "s" or "V" + "Ms" ("ms", milliseconds). "K8s" and "macOS" do not match.
_ACRONYM_PLURAL_RE = re_cache.compile(r"[A-Z][A-Z0-9]*[A-Z]s")


def _word_group(raw: str) -> tuple[str, tuple[str, ...]] | None:
    """(folded word, folded parts) for one scanned word; None when nothing is left."""
    raw = raw.strip("_")
    if _ACRONYM_PLURAL_RE.fullmatch(raw):
        raw = raw[:-1]
    head = _fold_token(raw)
    if not head:
        return None
    parts = _compound_parts(raw)
    return head, tuple(t for t in map(_fold_token, parts) if t)


# Real text repeats its words; caching short ones makes large inputs cheap.
_word_group_cached = lru_cache(maxsize=8192)(_word_group)
_CACHE_MAX_CHARS = 128


def token_groups(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """Tokens grouped as (whole word, its parts), in text order, all folded.

    Keyword ranking uses the grouping to prefer "reservestock" over "reserve";
    ``tokenize`` simply flattens it.
    """
    groups: list[tuple[str, tuple[str, ...]]] = []
    pre = _prenormalize(text)
    # ASCII text (most queries, code, English) needs no Unicode tables: building them costs
    # ~0.2 s once per process, which a hook or CLI call would pay on every prompt
    scanner = _ASCII_SCANNER if pre.isascii() else _tables()[1]
    for match in scanner.finditer(pre):
        kind = match.lastgroup
        raw = match.group()
        if kind == "word":
            if len(raw) == 1 and raw in _LANG_SUFFIXES:
                # "C++" and "C#" would otherwise shrink to the single letter "c".
                suffix = _LANG_SUFFIX_RE.match(pre, match.end())
                if suffix and suffix.group() in _LANG_SUFFIXES[raw]:
                    groups.append((raw.lower() + suffix.group(), ()))
                    continue
            group = _word_group_cached(raw) if len(raw) <= _CACHE_MAX_CHARS else _word_group(raw)
            if group is not None:
                groups.append(group)
        elif kind == "han":
            # One token per ideograph plus each adjacent pair, so two-character
            # words still match as a unit (single characters are not terms).
            run = fold(raw)
            for i, ch in enumerate(run):
                groups.append((ch, ()))
                if i + 1 < len(run):
                    groups.append((run[i : i + 2], ()))
    return groups


def tokenize(text: str) -> list[str]:
    """All tokens of ``text`` in order, folded; compounds are followed by their parts."""
    out: list[str] = []
    for head, parts in token_groups(text):
        out.append(head)
        out.extend(parts)
    return out


def is_term(token: str) -> bool:
    """True when a token is worth indexing: not a stop word, not a lone letter."""
    if len(token) == 1 and not token.isdecimal():
        return False
    return not is_stopword(token)


_PLAIN_TERMS: ContextVar[bool] = ContextVar("ihmt_plain_terms", default=False)


@contextmanager
def plain_terms() -> Iterator[None]:
    """Index and query with the tokens as they are, without the vocabulary layer: code
    search matches identifiers and has its own inflection rules (projects/naming.py), and
    stemming there measured worse (find_code hit rate 70 % -> 66 % on 375 questions)."""
    token = _PLAIN_TERMS.set(True)
    try:
        yield
    finally:
        _PLAIN_TERMS.reset(token)


def terms(text: str, kinds: bool = False) -> list[str]:
    """Tokens that BM25 indexes: stop words and single letters removed, each in its
    vocabulary form (aliases, glossary, light stemming: see ``vocabulary``). With ``kinds``
    (a memory being indexed, never a question) a product's name also adds the words for what
    it is: a question asking "which distro" meets "Fedora", while "which Redis version"
    does not meet every memory about a cache."""
    if _PLAIN_TERMS.get():
        return [t for t in tokenize(text) if is_term(t)]
    if len(text) > MEMO_CHARS:
        return _vocabulary_terms(text, kinds)
    return list(_remembered_terms(text, kinds))


# One search reads the same texts several times (the question in every feature, a found
# memory in its proximity, its change sentences and its coverage); the vocabulary is fixed,
# so a text's terms are kept for the next reader. Bounded: at most MEMO_TEXTS texts of at most
# MEMO_CHARS characters each.
MEMO_CHARS = 8000
MEMO_TEXTS = 512


@lru_cache(maxsize=MEMO_TEXTS)
def _remembered_terms(text: str, kinds: bool = False) -> tuple[str, ...]:
    return tuple(_vocabulary_terms(text, kinds))


def _vocabulary_terms(text: str, with_kinds: bool = False) -> list[str]:
    out = []
    groups = token_groups(text)
    phrases = phrase_abbreviations()
    kinds = product_kinds() if with_kinds else {}
    # "continuous integration" is also "ci", so either spelling finds the other; a phrase is
    # read on the words as written apart ("single sign-on" is "single", "sign", "on")
    words = [word for head, parts in groups for word in (parts or (head,))]
    found: dict[int, list[str]] = {}  # word index where a phrase starts -> abbreviations
    for i, word in enumerate(words):
        for first in _singulars(word):
            for phrase, abbreviation in phrases.get(first, ()):
                written = words[i : i + len(phrase)]
                if len(written) == len(phrase) and all(map(_same_word, written, phrase)):
                    found.setdefault(i, []).append(normalize(abbreviation))
    start = 0
    for head, parts in groups:
        for token in (head, *parts):
            if is_term(token):
                out.append(normalize(token))
                if _VERSION_RE.fullmatch(token):
                    out.append("version")  # "PostgreSQL 16.2" answers "which version"
        # "Fedora" is also a Linux distro, "MacBooks" laptops: asked by what it is, the
        # name's note answers
        for name in _singulars(head) if kinds else ():
            if name in kinds:
                out += (normalize(word) for word in kinds[name] if is_term(word))
                break
        width = len(parts) or 1
        for i in range(start, start + width):
            out += found.get(i, ())
        start += width
    return out


def _singulars(word: str) -> tuple[str, ...]:
    """``word`` and the singulars it may be the plural of ("requests", "máquinas",
    "policies"): a term is listed in the singular, and notes write it either way."""
    out = [word]
    if len(word) > 3 and word.endswith("s"):
        out.append(word[:-1])
        if word.endswith("es"):
            out.append(word[:-2])
        if word.endswith("ies"):
            out.append(word[:-3] + "y")
    return tuple(out)


def _same_word(written: str, listed: str) -> bool:
    """A phrase's word as written matches the listed one, or its plural ("release
    candidates" is a release candidate, "bases de datos" a "base de datos")."""
    return written == listed or listed in _singulars(written)


def term_counts(text: str, kinds: bool = False) -> dict[str, int]:
    """How often each term occurs in ``text`` (``kinds``: as :func:`terms`)."""
    return dict(Counter(terms(text, kinds)))
