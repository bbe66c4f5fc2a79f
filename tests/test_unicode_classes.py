"""The tokenizer's marks and format characters, kept per Unicode version instead of scanned."""

from __future__ import annotations

import re
import unicodedata

import pytest

from ihmt.text import tokenize, unicode_classes
from ihmt.text.unicode_data import CLASSES


@pytest.fixture
def fresh_tables():
    tokenize._tables.cache_clear()
    yield
    tokenize._tables.cache_clear()


def test_the_kept_classes_of_this_interpreter_are_what_a_scan_finds():
    assert unicodedata.unidata_version in CLASSES, "run unicode_classes.py --write"
    assert CLASSES[unicodedata.unidata_version] == unicode_classes.scan()


def test_the_scanner_is_built_without_scanning_every_code_point(monkeypatch, fresh_tables):
    def no_scan():
        raise AssertionError("scanned the code points although this version is kept")

    monkeypatch.setattr(unicode_classes, "scan", no_scan)
    assert tokenize.tokenize("Mudé la base a Sevilla — ¿vale?") == tokenize.tokenize(
        "Mude la base a Sevilla vale"
    )


def test_an_unknown_unicode_version_is_scanned(monkeypatch, fresh_tables):
    monkeypatch.setattr(unicodedata, "unidata_version", "99.0.0")
    calls = []
    real_scan = unicode_classes.scan
    monkeypatch.setattr(unicode_classes, "scan", lambda: calls.append(1) or real_scan())
    assert tokenize.tokenize("किताबें पढ़ना") == ["किताबें", "पढ़ना"]
    assert calls == [1]


def test_a_word_character_is_a_word_character_or_a_mark_and_never_an_ideograph(fresh_tables):
    """Every code point: the scanner's word class against its definition."""
    _, scanner = tokenize._tables()
    han = re.compile(f"[{tokenize._HAN}]")
    wrong = []
    for cp in range(0x110000):
        ch = chr(cp)
        expected = bool(re.fullmatch(r"\w", ch)) and not han.match(ch)
        expected = expected or unicodedata.category(ch)[0] == "M"
        found = scanner.fullmatch(ch)
        if bool(found and found.lastgroup == "word") != expected:
            wrong.append(hex(cp))
    assert wrong == []


def test_format_characters_and_tags_are_removed_and_nothing_else(fresh_tables):
    format_re, _ = tokenize._tables()
    wrong = []
    for cp in range(0x110000):
        ch = chr(cp)
        expected = (unicodedata.category(ch) == "Cf" and cp < 0x20000) or 0xE0001 <= cp < 0xE0080
        if bool(format_re.fullmatch(ch)) != expected:
            wrong.append(hex(cp))
    assert wrong == []
