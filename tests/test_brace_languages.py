"""The brace lexer's per-language rules are data: one complete table per language.

The lexer (brace_lexer) and the block grouping (brace_blocks) read ``LanguageRules`` tables
and never test a language's name; these tests hold that in place: every language the code
chunker routes to the scanner has a table, every field of a table is read somewhere, the
routine a table names exists, and a new language is nothing but a table.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt.ingest.chunkers import brace_blocks, brace_lexer
from ihmt.ingest.chunkers.brace_languages import (
    BACKTICK_FORMS,
    LANGUAGE_RULES,
    QUOTE_ROUTINES,
    LanguageRules,
    rules_for,
)
from ihmt.ingest.chunkers.brace_scanner import BraceScanner, brace_spans
from ihmt.ingest.chunkers.code import LANGUAGE_BY_EXTENSION, LANGUAGES

CHUNKERS = Path(brace_lexer.__file__).parent
FIELDS = [f.name for f in dataclasses.fields(LanguageRules) if f.name != "name"]


def scan(text: str, language: str | LanguageRules) -> tuple:
    lm = BraceScanner(text, language).scan()
    return lm.depth, lm.safe, lm.open_line, lm.final_depth, lm.final_safe


def unsafe_lines(text: str, language: str | LanguageRules) -> list[int]:
    lm = BraceScanner(text, language).scan()
    return [i for i in range(lm.n) if not lm.safe[i]]


def test_every_language_the_code_chunker_knows_has_its_own_table():
    routed = set(LANGUAGES) | set(LANGUAGE_BY_EXTENSION.values()) | {"generic"}
    assert routed <= set(LANGUAGE_RULES)
    for name in routed:
        assert rules_for(name).name == name


def test_tables_are_keyed_by_their_own_name_and_frozen():
    for name, rules in LANGUAGE_RULES.items():
        assert rules.name == name
        with pytest.raises(dataclasses.FrozenInstanceError):
            rules.semicolons = not rules.semicolons  # type: ignore[misc]


def test_a_language_without_a_table_is_lexed_and_grouped_as_generic():
    text = "#[a]\nimport x;\nclass A {\n  int f() { return 'x'; }\n}\nfoo(\n  1);\n"
    assert rules_for("cobol") is LANGUAGE_RULES["generic"]
    assert scan(text, "cobol") == scan(text, "generic")
    lm = BraceScanner(text, "cobol").scan()
    assert brace_spans(lm, "cobol", 60) == brace_spans(lm, "generic", 60)


def test_import_rules_come_in_pairs():
    """A fast first-character check without a pattern (or the reverse) would drop imports."""
    for rules in LANGUAGE_RULES.values():
        assert bool(rules.import_initials) == (rules.imports is not None), rules.name


def test_every_field_of_the_tables_is_read_by_the_code():
    sources = "".join(
        (CHUNKERS / f"{m}.py").read_text(encoding="utf-8")
        for m in ("brace_lexer", "brace_blocks", "brace_languages")
    )
    unread = [f for f in FIELDS if not re.search(rf"(?:rules|self)\.{f}\b", sources)]
    assert unread == []


def test_every_field_is_set_by_some_table():
    """A field no language sets is dead weight (or a table lost a line)."""
    defaults = LanguageRules("default")
    unused = [
        f
        for f in FIELDS
        if all(getattr(r, f) == getattr(defaults, f) for r in LANGUAGE_RULES.values())
    ]
    assert unused == []


@pytest.mark.parametrize("module", ["brace_lexer", "brace_blocks"])
def test_the_lexer_and_the_grouping_never_test_a_language_name(module):
    source = (CHUNKERS / f"{module}.py").read_text(encoding="utf-8")
    code = "\n".join(line.split("#", 1)[0] for line in source.splitlines())
    quoted = {f'"{name}"' for name in LANGUAGE_RULES} | {f"'{name}'" for name in LANGUAGE_RULES}
    assert [q for q in quoted if q in code] == []


def test_routine_names_are_checked_when_a_table_is_built():
    with pytest.raises(ValueError, match="toy"):
        LanguageRules("toy", quote_routine="fortran_holler")
    with pytest.raises(ValueError, match="toy"):
        LanguageRules("toy", backtick="shell")


QUOTE_CASES = {  # '{' inside the routine's string form; generic '"' rules see it as code
    "rust_raw": 'let s = r#"a"b{"#;\nfn f() {}\n',
    "cpp_raw": 'auto s = R"x(a"{)x";\nint f() {}\n',
    "csharp_strings": 'var s = @"C:\\"; var t = "{";\nvoid F() {}\n',
}
BACKTICK_CASES = {  # text, lines that start inside a literal
    "template": ("x = `}\n${ {a: 1} }\n`;\nf() {}\n", [1, 2]),
    "raw": ("x = `}\n`\nf() {}\n", [1]),
    "identifier": ("fun `{`() {}\nval x = `{\nf() {}\n", []),
}


@pytest.mark.parametrize("routine", [r for r in QUOTE_ROUTINES if r])
def test_each_quote_routine_a_table_can_name_is_applied(routine):
    text = QUOTE_CASES[routine]  # a new routine needs a case here
    generic = LANGUAGE_RULES["generic"]
    toy = dataclasses.replace(generic, name="toy", quote_routine=routine)
    lm = BraceScanner(text, toy).scan()
    assert lm.final_depth == 0 and lm.depth[-1] == 0
    assert BraceScanner(text, generic).scan().final_depth != 0  # the routine made the difference


@pytest.mark.parametrize("form", [f for f in BACKTICK_FORMS if f])
def test_each_backtick_form_is_applied(form):
    text, unsafe = BACKTICK_CASES[form]
    toy = dataclasses.replace(LANGUAGE_RULES["generic"], name="toy", backtick=form)
    lm = BraceScanner(text, toy).scan()
    assert lm.final_depth == 0 and lm.final_safe
    assert unsafe_lines(text, toy) == unsafe
    assert scan(text, toy) != scan(text, "generic")  # the form made the difference


def test_a_new_language_is_only_a_table():
    """Nested comments, '#' comments and a preprocessor switched on by data alone."""
    text = "/* /* } */ { */\n# { not a directive here\nint f() {}\n"
    toy = dataclasses.replace(
        LANGUAGE_RULES["generic"], name="toy", nested_block_comments=True, hash_comments=True
    )
    assert scan(text, toy)[3] == 0
    assert scan(text, "generic")[3] != 0
    assert BraceScanner(text, toy).language == "toy"


@settings(max_examples=150, deadline=None, database=None, derandomize=True)
@given(
    text=st.text(st.sampled_from(list("{}()[]\"'`/*#\\\n $@rR<?>;:ab")), max_size=200),
    name=st.sampled_from(sorted(LANGUAGE_RULES)),
)
def test_a_copy_of_a_table_lexes_exactly_like_the_language_name(text, name):
    """The name carries nothing the table does not: the lexer reads only the table."""
    copy = dataclasses.replace(LANGUAGE_RULES[name], name="copy")
    expected = scan(text, name)
    assert scan(text, copy) == expected
    if name != "python":  # Python is grouped by its own splitter
        lm = BraceScanner(text, name).scan()
        assert brace_spans(lm, copy, 40) == brace_spans(lm, name, 40)
    assert brace_blocks.container_of("class A {", copy) == brace_blocks.container_of(
        "class A {", name
    )


@pytest.mark.parametrize("name", ["java", "kotlin", "python"])
@pytest.mark.parametrize("quote", ['"""', "'''"])
def test_an_unterminated_text_block_ending_in_a_backslash_lexes(name, quote):
    """It used to raise AttributeError (the chunker then fell back to line windows)."""
    text = "void f() {\n  x = " + quote + "a\\"
    if quote[0] not in LANGUAGE_RULES[name].triple_quotes:
        pytest.skip("no such literal in this language")
    lm = BraceScanner(text, name).scan()
    assert lm.n == 2
