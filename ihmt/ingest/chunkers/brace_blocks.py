"""Blocks of a brace-language file: the units between cut points grouped into ``Span``s.

``group_units`` and ``brace_spans`` turn the cut points of a ``LineMap`` (from the lexer in
``brace_lexer``) into ``Span`` blocks (imports, declarations, statements) and, for class-like
blocks, the members one level down. ``Span`` is also the block type the Python splitter
produces, so one chunk assembler serves every language. How imports, annotations and
continuation lines look in each language is data in ``brace_languages``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ihmt.ingest.chunkers.brace_languages import LanguageRules, rules_for

from ... import re_cache

if TYPE_CHECKING:
    from ihmt.ingest.chunkers.brace_lexer import LineMap

__all__ = ["MAX_MEMBER_LEVEL", "Span", "brace_spans", "container_of", "group_units"]

MAX_MEMBER_LEVEL = 8  # class-in-class nesting we still split per member; deeper stays whole


@dataclass
class Span:
    """One block of lines [start, end) (0-based physical lines) that a chunk never cuts.

    ``members`` is set for class-like blocks that can be split one level down: the header
    piece is [start, body_start), the members tile [body_start, body_end), and the closing
    piece is [body_end, end).
    """

    start: int
    end: int
    kind: str  # "imports" | "decl" | "stmt" | "comment"
    header: str = ""  # declaration header, whitespace-collapsed (for names and context)
    container: str = ""  # class-like keyword ("class", "struct", "impl", "namespace", ...)
    cname: str = ""  # name of the class-like container, if any
    func: str | None = None  # function name when the producer knows it (Python: from ast)
    members: list[Span] | None = None
    body_start: int = 0
    body_end: int = 0


@dataclass
class _Group:
    start: int
    end: int
    kind: str
    code_start: int  # first code line (after leading comments / annotations)
    main_end: int = -1  # end of the unit that closed the group
    open_line: int = -1  # line holding the block's opening '{' (decls)


_BLANK, _COMMENT, _GLUE, _IMPORT, _DECL, _STMT, _OPEN, _CONT, _CONT_LAST = (
    "blank comment glue import decl stmt open cont contlast".split()
)


def group_units(
    lm: LineMap,
    bounds: list[int],
    kinds: list[str],
    opens: list[int],
    target_chars: int,
) -> list[_Group]:
    """Group consecutive units into blocks.

    ``bounds`` holds the first line of each unit plus the end line; ``kinds`` classifies each
    unit. Blank lines after a block stay with it; comments, annotations and unterminated code
    attach to what follows; import units coalesce; a ``cont`` unit (``.then(``, ``else``) joins
    the previous block, and a ``contlast`` unit (one that also ends its statement, such as
    ``| 'b'`` after ``type T =``) joins and closes it. A run of comments is flushed once it
    reaches ``target_chars`` so that it does not grow without bound.
    """
    groups: list[_Group] = []
    pend: _Group | None = None
    pend_code = False
    edges = lm.edges
    for idx, kind in enumerate(kinds):
        s, e = bounds[idx], bounds[idx + 1]
        if kind == _BLANK:
            if pend is None:
                if groups:
                    groups[-1].end = e
                else:
                    pend, pend_code = _Group(s, e, "comment", -1), False
            elif pend_code:  # a blank line ends an unterminated statement
                pend.end, pend.kind, pend.main_end = e, _STMT, e
                groups.append(pend)
                pend = None
            else:
                pend.end = e
            continue
        if (
            pend is not None
            and not pend_code
            and kind in (_COMMENT, _GLUE, _OPEN)
            and edges[s] - edges[pend.start] >= target_chars
        ):  # a runaway run of comments (a long licence) stands alone; code is never split
            pend.kind = "comment"
            pend.end = pend.main_end = s
            groups.append(pend)
            pend = None
        if kind in (_COMMENT, _GLUE):
            if pend is None:
                pend, pend_code = _Group(s, e, "comment", -1), False
            pend.end = e
            continue
        if kind == _CONT_LAST:
            kind = _CONT if pend is None else _STMT
        if kind == _CONT and pend is None and groups:
            last = groups[-1]
            last.end = e
            if opens[idx] >= 0 and last.kind != _DECL:
                last.kind, last.open_line = _DECL, opens[idx]
            continue
        if (
            kind == _DECL
            and pend is None
            and groups
            and groups[-1].end == s
            and groups[-1].kind == _STMT
            and lm.line(s).lstrip().startswith("{")
        ):  # Allman brace after an unterminated header: `function f()` / `{`
            last = groups[-1]
            last.end, last.kind, last.open_line, last.main_end = e, _DECL, opens[idx], e
            continue
        if kind == _CONT:
            kind = _DECL if opens[idx] >= 0 else _OPEN
        if kind == _OPEN:
            if pend is None:
                pend = _Group(s, e, "comment", s)
            if not pend_code:
                pend.code_start = s
            pend.end, pend_code = e, True
            continue
        if kind == _IMPORT:
            if groups and groups[-1].kind == "imports" and not pend_code:
                groups[-1].end = groups[-1].main_end = e
            else:
                start = pend.start if pend is not None else s
                groups.append(_Group(start, e, "imports", s, e))
            pend, pend_code = None, False
            continue
        start = pend.start if pend is not None else s
        code_start = pend.code_start if pend is not None and pend_code else s
        groups.append(_Group(start, e, kind, code_start, e, opens[idx]))
        pend, pend_code = None, False
    if pend is not None:
        if groups and not pend_code:
            groups[-1].end = pend.end
        else:
            pend.kind = _STMT if pend_code else "comment"
            pend.main_end = pend.end
            groups.append(pend)
    return groups


# Classification of brace-language units --------------------------------------------------

_CONT_INITIALS = frozenset(".?:)]}&|+=-,ecfw")
# `| B` / `& C` go on a union or intersection type; `extends B {` / `implements C {` go on
# the class or interface header above them (prettier breaks long headers there).
_TS_CONT_START = re_cache.compile(r"(?:[|&]|(?:extends|implements)\b)")
_PP_GLUE = re_cache.compile(r"#\s*(?:if|ifdef|ifndef|else|elif|region)\b|#\s*pragma\s+region\b")
_CONT_START = re_cache.compile(
    r"(?:\.(?!\.\.)|\?\.|\?\?|\?|:(?!:)|\)|\]|\}|&&|\|\||\+|=>|->|,|"
    r"(?:else|catch|finally|where)\b)"
)
_TRAILING_COMMENT = re_cache.compile(r"(?:(?<=[\s;{}()])//.*|/\*.*\*/\s*)$")
_CONT_END = tuple(", = ( [ + - * / % && || . ? : \\ | & =>".split())


def _classify(lm: LineMap, rules: LanguageRules, s: int, e: int, depth: int) -> tuple[str, int]:
    """Kind of one unit (lines [s, e) that no cut point splits) and its '{' line if any."""
    text, edges = lm.text, lm.edges
    first = text[edges[s] : edges[s + 1]].strip()
    if s == 0:
        first = first.lstrip("\ufeff").strip()  # a byte-order mark is no code
    if not first:
        return _BLANK, -1
    c0 = first[0]
    if c0 == "/" or c0 == "*":
        if first.startswith(("//", "/*", "* ", "*/")) or first == "*":
            return _COMMENT, -1
    elif c0 == "#":
        if rules.hash_comments and not first.startswith("#["):
            return _COMMENT, -1
        if rules.preprocessor:
            if (rules.imports or _NEVER).match(first):
                return _IMPORT, -1
            return (_GLUE, -1) if _PP_GLUE.match(first) else (_STMT, -1)
    if c0 in rules.import_initials and rules.imports is not None:
        if rules.imports.match(first):
            return _IMPORT, -1
    open_line = lm.first_open(s, e, depth)
    last = first if e - s == 1 else text[edges[e - 1] : edges[e]].strip()
    last = last[-200:]  # only its end matters; bounds the regex below on minified lines
    if "/" in last:
        last = _TRAILING_COMMENT.sub("", last).rstrip()
    if open_line < 0 and c0 in "@#[" and _is_annotation(first, last, rules):
        return _GLUE, -1
    if (c0 in _CONT_INITIALS and _CONT_START.match(first)) or (
        rules.type_continuations and _TS_CONT_START.match(first)
    ):
        if open_line < 0 and not rules.semicolons and not last.endswith(_CONT_END):
            return _CONT_LAST, -1  # `  | 'b'` after `type T =` also ends the statement
        return _CONT, open_line
    if open_line >= 0:
        return _DECL, open_line
    if not last or last[-1] in ";}":
        return _STMT, -1
    if last.endswith(_CONT_END) or rules.semicolons:
        return _OPEN, -1
    return _STMT, -1


def _is_annotation(first: str, last: str, rules: LanguageRules) -> bool:
    """Annotations / attributes / decorators attach to the declaration that follows."""
    if last.endswith((";", "{")):
        return False
    if first.startswith("@") and not first.startswith("@interface"):
        return True
    if first.startswith(("#[", "#![")) and rules.hash_attributes:
        return True
    return rules.bracket_attributes and first.startswith("[") and last.endswith("]")


_NEVER = re_cache.compile(r"(?!)")
_TEMPLATE_PREFIX = re_cache.compile(r"^template\s*<[^{]*?>\s*")
_CONTAINER = re_cache.compile(
    r"^(?:(?:@[\w.]+(?:\([^)]*\))?|\[[^\]]*\]|#\[[^\]]*\])\s*)*"
    r"(?:[a-z_]+(?:\([^)]*\))?\s+)*?"
    r"(?P<kw>class|struct|interface|enum|record|object|trait|impl|namespace|module|mod|"
    r"extension|protocol|union|actor)(?=\s|<)(?P<rest>[^{]*)"
)
_CONTAINER_HINT = re_cache.compile(
    r"\b(?:class|struct|interface|enum|record|object|trait|impl|namespace|module|mod|"
    r"extension|protocol|union|actor|extern)\b"
)
_EXTERN_C = re_cache.compile(r'^extern\s*"C(?:\+\+)?"\s*\{')
_NAME_AFTER_KW = re_cache.compile(r"\s*(?:class\s+|struct\s+)?(?P<name>[A-Za-z_$][\w$]*)")
_NS_NAME = re_cache.compile(r"\s*(?P<name>[\w.:\\]+)")
_IMPL_FOR = re_cache.compile(r"\bfor\s+(?P<path>[\w:]+)")
_IMPL_PATH = re_cache.compile(r"\s*(?P<path>[\w:]+)")


def _skip_generics(s: str) -> str:
    """Drop a leading balanced ``<...>`` (Rust ``impl<T: Into<U>>``)."""
    s = s.lstrip()
    if not s.startswith("<"):
        return s
    level = 0
    for i, ch in enumerate(s):
        if ch == "<":
            level += 1
        elif ch == ">":
            level -= 1
            if level == 0:
                return s[i + 1 :]
    return s


def _drop_generics(s: str) -> str:
    """``s`` without its ``<...>`` lists, so defaults such as ``class Q<T = unknown>`` do not
    read as an initialiser; a list left open (a header cut short) drops the rest."""
    if "<" not in s:
        return s
    out: list[str] = []
    level = 0
    for i, ch in enumerate(s):
        if ch == "<":
            level += 1
        elif ch == ">" and level and s[i - 1] not in "=-":
            level -= 1
        elif not level:
            out.append(ch)
    return "".join(out)


def container_of(header: str, language: str | LanguageRules) -> tuple[str, str]:
    """(keyword, name) when a declaration header opens a class-like body, else ("", "")."""
    rules = rules_for(language)
    if not _CONTAINER_HINT.search(header):
        return "", ""
    if rules.type_declarations is not None:
        m = rules.type_declarations.match(header)
        return (m.group("kw"), m.group("name")) if m else ("", "")
    if _EXTERN_C.match(header):
        return "extern", ""
    m = _CONTAINER.match(_TEMPLATE_PREFIX.sub("", header))
    if m is None:
        return "", ""
    kw, rest = m.group("kw"), m.group("rest")
    if "=" in _drop_generics(rest).replace("=>", "").replace("==", ""):
        return "", ""  # `static struct ops x = {` initialises a variable
    if rules.struct_return_types and kw in ("struct", "union", "enum", "class") and "(" in rest:
        return "", ""  # `struct point make(int x) {` is a function returning a struct
    if kw == "impl":
        rest = _skip_generics(rest)
        p = _IMPL_FOR.search(rest) or _IMPL_PATH.match(rest)
        path = p.group("path") if p else ""
        return kw, path.split("::")[-1]
    if kw in ("namespace", "module", "mod"):
        n = _NS_NAME.match(rest)
        return kw, n.group("name").strip("\"'") if n else ""
    n = _NAME_AFTER_KW.match(rest)
    name = n.group("name") if n else ""
    if name in ("extends", "implements", "where", "of"):
        name = ""
    return kw, name


def _header_text(lm: LineMap, lo: int, hi: int, limit: int = 240) -> str:
    """Declaration header: lines [lo, hi] stripped and joined by single spaces."""
    text, edges = lm.text, lm.edges
    end = edges[min(max(hi, lo), lo + 8) + 1]
    return " ".join(text[edges[lo] : end].lstrip("\ufeff").split())[:limit]


def brace_spans(lm: LineMap, language: str | LanguageRules, target_chars: int) -> list[Span]:
    """Top-level blocks of a brace-language file, with members for class-like blocks."""
    if lm.n == 0:
        return []
    return _spans_at(lm, rules_for(language), 0, lm.n, 0, target_chars, 0)


def _spans_at(
    lm: LineMap, rules: LanguageRules, lo: int, hi: int, depth: int, target_chars: int, level: int
) -> list[Span]:
    bounds = [lo, *lm.cuts(lo + 1, hi, depth), hi]
    kinds: list[str] = []
    opens: list[int] = []
    for k in range(len(bounds) - 1):
        kind, op = _classify(lm, rules, bounds[k], bounds[k + 1], depth)
        kinds.append(kind)
        opens.append(op)
    spans: list[Span] = []
    for g in group_units(lm, bounds, kinds, opens, target_chars):
        span = Span(g.start, g.end, g.kind)
        code_start = g.code_start if g.code_start >= 0 else g.start
        if g.kind == _DECL and g.open_line >= 0:
            span.header = _header_text(lm, code_start, g.open_line)
            span.container, span.cname = container_of(span.header, rules)
            if span.container and level < MAX_MEMBER_LEVEL:
                _attach_members(lm, rules, span, g, depth, target_chars, level)
        elif g.kind != "comment":
            # TS/JS: `export const f = (` / `= <` leave the arrow on later lines; the header
            # takes the statement's first lines so the binding is still seen as a function.
            last = g.end - 1 if rules.header_to_statement_end else code_start
            span.header = _header_text(lm, code_start, last)
            if g.kind == _STMT:  # `data class Item(val id: Int)`, `struct node;`
                span.container, span.cname = container_of(span.header, rules)
        spans.append(span)
    return spans


def _attach_members(
    lm: LineMap,
    rules: LanguageRules,
    span: Span,
    g: _Group,
    depth: int,
    target_chars: int,
    level: int,
) -> None:
    """Split a class-like block one level down, only where every cut is a safe member start."""
    inner = depth + 1
    close = g.main_end - 1  # the line whose '}' returns to ``depth``
    if not (close > g.open_line and lm.is_cut(g.main_end, depth) and lm.is_cut(close, inner)):
        close = g.main_end  # unterminated or crowded closing line: it stays with the last member
    later = lm.cuts(g.open_line + 1, close, inner)
    if not later:
        return
    body_start = later[0]
    members = _spans_at(lm, rules, body_start, close, inner, target_chars, level + 1)
    if members:
        span.members = members
        span.body_start, span.body_end = body_start, close
