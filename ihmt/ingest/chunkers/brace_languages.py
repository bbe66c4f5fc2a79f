"""What the brace lexer and the block classifier need to know about each language, as data.

One frozen ``LanguageRules`` table per language says which characters start comments and
literals, which literal forms exist (raw, verbatim, interpolated, triple-quoted, heredoc,
template), whether there is a preprocessor, how imports, annotations and continuation lines
look, and how a class-like header reads. ``brace_lexer`` and ``brace_blocks`` read these
fields and never test a language's name; where a language needs a routine of its own (C#
strings, Swift raw strings, ...), its table names the routine. ``rules_for`` maps a name
the tables do not know to ``generic``, a C-like language with semicolons.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ... import re_cache

__all__ = ["LANGUAGE_RULES", "HoleKind", "LanguageRules", "rules_for"]


@dataclass(frozen=True)
class HoleKind:
    """A string literal that can embed code (``${...}``, ``\\(...)``, ``{...}``)."""

    events: re.Pattern[str]  # named groups: esc, end, hole, nl
    closer: str  # bracket that ends an embedded-code hole


JS_TEMPLATE = HoleKind(re_cache.compile(r"(?P<esc>\\[\s\S])|(?P<end>`)|(?P<hole>\$\{)"), "}")
_KT_STRING = HoleKind(
    re_cache.compile(r"(?P<esc>\\(?:\r\n|[\s\S]))|(?P<end>\")|(?P<hole>\$\{)|(?P<nl>[\r\n])"), "}"
)
_KT_RAW = HoleKind(re_cache.compile(r"(?P<end>\"{3,})|(?P<hole>\$\{)"), "}")
_SWIFT_STRING = HoleKind(
    re_cache.compile(r"(?P<hole>\\\()|(?P<esc>\\(?:\r\n|[\s\S]))|(?P<end>\")|(?P<nl>[\r\n])"), ")"
)
_SWIFT_MULTI = HoleKind(re_cache.compile(r"(?P<hole>\\\()|(?P<esc>\\[\s\S])|(?P<end>\"\"\")"), ")")
CS_INTERP = HoleKind(
    re_cache.compile(r"(?P<esc>\\(?:\r\n|[\s\S])|\{\{)|(?P<hole>\{)|(?P<end>\")|(?P<nl>[\r\n])"),
    "}",
)
CS_INTERP_VERBATIM = HoleKind(re_cache.compile(r"(?P<esc>\"\"|\{\{)|(?P<hole>\{)|(?P<end>\")"), "}")

# Values of the routine-naming fields, so the lexer and the tables cannot drift apart.
QUOTE_ROUTINES = ("", "rust_raw", "cpp_raw", "csharp_strings")
BACKTICK_FORMS = ("", "template", "raw", "identifier")


@dataclass(frozen=True)
class LanguageRules:
    """Lexing and block-classification rules of one language (all fields read by the code)."""

    name: str
    # -- comments
    slash_comments: bool = True  # // line and /* */ block comments
    nested_block_comments: bool = False  # /* /* */ */ nests (Rust, Swift, Kotlin)
    hash_comments: bool = False  # '#' starts a line comment (Python, PHP)
    # -- string and char literals
    char_literals: bool = False  # 'x' is a char literal, a lone ' is plain text (Rust lifetimes)
    single_quote_strings: bool = False  # '...' is a string with backslash escapes
    multiline_strings: bool = False  # "..." / '...' may span lines (no stop at a bare newline)
    triple_quotes: str = ""  # quote characters whose triple form opens a text block
    string_holes: tuple[HoleKind, HoleKind] | None = None  # "..." / triple "..." embed code
    quote_routine: str = ""  # special '"' forms: raw (Rust r#"", C++ R"d("), C# @ $ and raw
    hash_raw_strings: bool = False  # #"..."# raw strings (Swift)
    backtick: str = ""  # `...`: template with ${} holes, raw multi-line string, or identifier
    heredoc: bool = False  # <<<ID ... ID heredoc / nowdoc (PHP)
    regex_literals: bool = False  # /re/ after an operator or keyword (JavaScript, TypeScript)
    # -- other lexer state
    preprocessor: bool = False  # '#' at a line start begins a directive line
    directive_needs_letter: bool = False  # ... only when a letter follows the '#' (Swift)
    inline_html: bool = False  # text outside <?php ... ?> is markup; ?> ends a line comment
    backslash_continuation: bool = False  # a '\' before a newline joins lines (Python)
    multiline_generics: bool = False  # `name<` ending a line opens a bracket level (TS)
    # -- block classification
    semicolons: bool = False  # statements end with ';', so an unterminated line goes on
    imports: re.Pattern[str] | None = None  # an import / include / package line
    import_initials: str = ""  # first characters such a line can start with (a fast check)
    hash_attributes: bool = False  # #[...] / #![...] attach to what follows (Rust, PHP)
    bracket_attributes: bool = False  # [Attr] on its own line attaches (C#)
    type_continuations: bool = False  # `| B`, `& C`, `extends B {` go on the line above
    header_to_statement_end: bool = False  # a statement's header runs to its last line
    type_declarations: re.Pattern[str] | None = None  # the only class-like form (Go types)
    struct_return_types: bool = False  # `struct p make(int x) {` is a function (C, C++)

    def __post_init__(self) -> None:
        if self.quote_routine not in QUOTE_ROUTINES or self.backtick not in BACKTICK_FORMS:
            raise ValueError(f"{self.name}: unknown quote routine or backtick form")

    @property
    def prefilter_chars(self) -> str:
        """Characters that can start a token of this language (a regex character class body)."""
        chars = "{}()\\[\\]\"'"
        if self.slash_comments:
            chars += "/"
        if self.backtick:
            chars += "`"
        if self.preprocessor or self.hash_comments or self.hash_raw_strings:
            chars += "#"
        if self.multiline_generics:
            chars += "<>"
        if self.backslash_continuation:
            chars += "\\\\"
        return chars


_JS_IMPORTS = re_cache.compile(
    r"(?:import\b(?!\s*\()|export\s+(?:\*|\{[^}]*\})\s+from\b"
    r"|(?:const|let|var)\s+[\w${},\s]+=\s*require\s*\(|['\"]use strict['\"])"
)
_PACKAGE_IMPORTS = re_cache.compile(r"(?:import|package)\b")
_C_INCLUDES = r"#\s*(?:include|import)\b|#\s*pragma\s+once\b"

_TABLES = (
    LanguageRules(
        "python",
        slash_comments=False,
        hash_comments=True,
        single_quote_strings=True,
        triple_quotes="\"'",
        backslash_continuation=True,
    ),
    LanguageRules(
        "java",
        char_literals=True,
        triple_quotes='"',
        semicolons=True,
        imports=_PACKAGE_IMPORTS,
        import_initials="ip",
    ),
    LanguageRules(
        "javascript",
        single_quote_strings=True,
        backtick="template",
        regex_literals=True,
        imports=_JS_IMPORTS,
        import_initials="iecvl'\"",
        type_continuations=True,
        header_to_statement_end=True,
    ),
    LanguageRules(
        "typescript",
        single_quote_strings=True,
        backtick="template",
        regex_literals=True,
        multiline_generics=True,
        imports=_JS_IMPORTS,
        import_initials="iecvl'\"",
        type_continuations=True,
        header_to_statement_end=True,
    ),
    LanguageRules(
        "c",
        char_literals=True,
        preprocessor=True,
        semicolons=True,
        imports=re_cache.compile(f"(?:{_C_INCLUDES})"),
        import_initials="#",
        struct_return_types=True,
    ),
    LanguageRules(
        "cpp",
        char_literals=True,
        quote_routine="cpp_raw",
        preprocessor=True,
        semicolons=True,
        imports=re_cache.compile(
            f"(?:{_C_INCLUDES}|using\\s+namespace\\b|using\\s+[\\w:]+\\s*;"
            r'|import\s+[\w.:<>"]+\s*;)'
        ),
        import_initials="#ui",
        struct_return_types=True,
    ),
    LanguageRules(
        "csharp",
        char_literals=True,
        quote_routine="csharp_strings",
        preprocessor=True,
        semicolons=True,
        imports=re_cache.compile(
            r"(?:(?:global\s+)?using\s+(?:static\s+)?[\w.]+(?:\s*=\s*[\w.<>,\s]+)?\s*;"
            r"|namespace\s+[\w.]+\s*;|extern\s+alias\b)"
        ),
        import_initials="ugne",
        bracket_attributes=True,
    ),
    LanguageRules(
        "go",
        char_literals=True,
        backtick="raw",
        imports=re_cache.compile(r"(?:package|import)\b"),
        import_initials="pi",
        type_declarations=re_cache.compile(
            r"^type\s+(?P<name>\w+)(?:\[[^\]]*\])?\s+(?P<kw>struct|interface)\b"
        ),
    ),
    LanguageRules(
        "rust",
        nested_block_comments=True,
        char_literals=True,
        multiline_strings=True,
        quote_routine="rust_raw",
        semicolons=True,
        imports=re_cache.compile(
            r"(?:(?:pub(?:\([^)]*\))?\s+)?use\s|extern\s+crate\b"
            r"|(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*;)"
        ),
        import_initials="pue",
        hash_attributes=True,
    ),
    LanguageRules(
        "kotlin",
        nested_block_comments=True,
        char_literals=True,
        string_holes=(_KT_STRING, _KT_RAW),
        backtick="identifier",
        imports=_PACKAGE_IMPORTS,
        import_initials="ip",
    ),
    LanguageRules(
        "swift",
        nested_block_comments=True,
        string_holes=(_SWIFT_STRING, _SWIFT_MULTI),
        hash_raw_strings=True,
        backtick="identifier",
        preprocessor=True,
        directive_needs_letter=True,
        imports=re_cache.compile(r"(?:@testable\s+)?import\b"),
        import_initials="@i",
    ),
    LanguageRules(
        "php",
        hash_comments=True,
        single_quote_strings=True,
        multiline_strings=True,
        heredoc=True,
        inline_html=True,
        semicolons=True,
        imports=re_cache.compile(
            r"(?:<\?(?:php\b|=)|namespace\s+[\w\\]+\s*;|use\s+[\w\\]"
            r"|(?:require|include)(?:_once)?\b|declare\s*\()"
        ),
        import_initials="<nurid",
        hash_attributes=True,
    ),
    LanguageRules("generic", char_literals=True, semicolons=True),
)

LANGUAGE_RULES: dict[str, LanguageRules] = {rules.name: rules for rules in _TABLES}


def rules_for(language: str | LanguageRules) -> LanguageRules:
    """The table of ``language``; a language without one is lexed as ``generic``.

    A ``LanguageRules`` passes through, so a caller (or a test) can lex with its own table.
    """
    if isinstance(language, LanguageRules):
        return language
    return LANGUAGE_RULES.get(language, LANGUAGE_RULES["generic"])
