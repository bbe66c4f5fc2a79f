"""Python structure as Spans, from the stdlib ``ast`` (exact) or a lexer fallback (safe).

``ast`` gives every top-level statement its exact line range, so blocks are never guessed:
decorators and the comments / blank lines before a statement belong to it, consecutive imports
(with the module docstring) coalesce, and each class knows its members for a per-member split.
Source that does not parse (syntax errors, null bytes, Python 2), and files too large for a
quick parse, are structured by indentation instead: cuts only at statement starts outside any
bracket, string or backslash continuation, as found by ``BraceScanner``.
"""

from __future__ import annotations

import ast
import re
import warnings
from bisect import bisect_left

from ihmt.ingest.chunkers.brace_scanner import (
    MAX_MEMBER_LEVEL,
    BraceScanner,
    LineMap,
    Span,
    group_units,
)

__all__ = ["AST_SIZE_LIMIT", "python_spans"]

AST_SIZE_LIMIT = 200_000  # characters; ast.parse takes about a second per megabyte

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_IMPORTS = (ast.Import, ast.ImportFrom)
_TRAILING_COMMENT = re.compile(r"\s+#.*$")
_CONTINUATION = re.compile(r"(?:else|elif|except|finally)\b|[)\]}]")
_DEF_NAME = re.compile(r"(?:async\s+)?def\s+([A-Za-z_]\w*)")
_CLASS_NAME = re.compile(r"class\s+([A-Za-z_]\w*)")
_STRING_START = re.compile(r"[rRbBuUfF]{0,2}(?:\"|')")


class _Lines:
    """Line access by 0-based physical line index."""

    def __init__(self, text: str, starts: list[int]) -> None:
        self.text, self.starts = text, starts

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i: int) -> str:
        end = self.starts[i + 1] if i + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[i] : end]


def python_spans(text: str, starts: list[int], target_chars: int) -> list[Span]:
    """Top-level Spans of a Python file; never raises on bad source."""
    if not starts:
        return []
    if len(text) > AST_SIZE_LIMIT:
        return _lexer_spans(text, target_chars)
    source = text[1:] if text.startswith("\ufeff") else text
    try:
        with warnings.catch_warnings():  # e.g. invalid escapes in the user's strings
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return _lexer_spans(text, target_chars)
    if not tree.body:
        return [Span(0, len(starts), "comment")]
    if max(node.end_lineno or 0 for node in tree.body) > len(starts):
        return _lexer_spans(text, target_chars)  # line model disagrees: stay safe
    return _block_spans(tree.body, 0, len(starts), _Lines(text, starts), True, 0)


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _node_start(node: ast.stmt) -> int:
    """0-based first line, decorators included."""
    first = node.lineno
    for deco in getattr(node, "decorator_list", ()):
        first = min(first, deco.lineno)
    return first - 1


def _block_spans(
    nodes: list[ast.stmt], lo: int, hi: int, lines: _Lines, module: bool, level: int
) -> list[Span]:
    """Spans tiling [lo, hi): each statement takes the lines from the previous one's end."""
    items: list[list] = []  # [start, end, kind, def-node or None]
    for idx, node in enumerate(nodes):
        start = _node_start(node)
        end = _absorb_comments(lines, node.end_lineno or node.lineno, node.col_offset, hi)
        if isinstance(node, _IMPORTS):
            kind = "imports"
        elif isinstance(node, _DEFS):
            kind = "decl"
        elif module and idx == 0 and _is_docstring(node):
            kind = "doc"
        else:
            kind = "stmt"
        if items and start < items[-1][1]:  # `a = 1; b = 2` share a line: one block
            prev = items[-1]
            prev[1] = max(prev[1], end)
            if kind == "decl":
                prev[2], prev[3] = "decl", node
            elif prev[2] != "decl" and not (prev[2] == kind == "imports"):
                prev[2] = "stmt"
            continue
        if kind == "imports" and items and items[-1][2] in ("imports", "doc"):
            items[-1][1], items[-1][2] = end, "imports"
            continue
        items.append([start, end, kind, node if kind == "decl" else None])
    spans: list[Span] = []
    for k, (_start, end, kind, node) in enumerate(items):
        s = lo if k == 0 else spans[-1].end
        e = hi if k == len(items) - 1 else end
        span = Span(s, e, "stmt" if kind == "doc" else kind)
        if node is not None:
            _describe(span, node, lines, level)
        spans.append(span)
    return spans


def _absorb_comments(lines: _Lines, end: int, column: int, limit: int) -> int:
    """Extend a statement over the comments indented inside it (they close its body)."""
    last, j = end, end
    while j < limit:
        line = lines[j]
        text = line.strip()
        if text and not (text.startswith("#") and len(line) - len(line.lstrip()) > column):
            break
        j += 1
        if text:
            last = j
    return last


def _describe(span: Span, node: ast.stmt, lines: _Lines, level: int) -> None:
    """Name, header and (for classes) members of a def / class span."""
    if not isinstance(node, ast.ClassDef):
        span.func = node.name
        span.header = " ".join(lines[node.lineno - 1].lstrip("\ufeff").split())
        return
    span.container, span.cname = "class", node.name
    span.header = _class_header(node, lines)
    if level >= MAX_MEMBER_LEVEL:
        return
    body = list(node.body)
    floor = node.lineno  # members begin after the `class` line ...
    if body and _is_docstring(body[0]):
        floor = max(floor, body[0].end_lineno or floor)  # ... and after the docstring
        body = body[1:]
    if not body or _node_start(body[0]) < floor:
        return
    first = _node_start(body[0])
    while first > floor and _blank_or_comment(lines[first - 1]):
        first -= 1  # comments just above the first member belong to that member
    members = _block_spans(body, first, span.end, lines, False, level + 1)
    if members:
        span.members, span.body_start, span.body_end = members, first, span.end


def _blank_or_comment(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _class_header(node: ast.ClassDef, lines: _Lines) -> str:
    """``class Name(Base):`` as written, joined onto one line when the bases wrap."""
    parts: list[str] = []
    for i in range(node.lineno - 1, min(len(lines), node.lineno + 5)):
        code = _TRAILING_COMMENT.sub("", lines[i].lstrip("\ufeff").strip())
        parts.append(" ".join(code.split()))
        if code.endswith(":"):
            break
    return " ".join(p for p in parts if p)[:240]


def _lexer_spans(text: str, target_chars: int) -> list[Span]:
    """Blocks from indentation, cutting only at statement starts outside brackets and literals.

    Used for source ``ast`` rejects and for very large files (``ast.parse`` costs about a
    second per megabyte). Classes still split per member, found at their body's indentation.
    """
    lm = BraceScanner(text, "python").scan()
    return _Indent(lm, target_chars).spans(0, lm.n, 0, 0)


class _Indent:
    """Indentation structure of a lexed Python file.

    Per indentation width it indexes the lines that may start a block: statement starts
    (outside brackets and literals, not ``else:``-like continuations) and comment lines, so
    each nesting level costs time in proportion to its own statements, not to all lines.
    """

    def __init__(self, lm: LineMap, target_chars: int) -> None:
        self.lm, self.target_chars = lm, target_chars
        text, edges, n = lm.text, lm.edges, lm.n
        lines = [text[edges[i] : edges[i + 1]] for i in range(n)]
        if lines:
            lines[0] = lines[0].lstrip("\ufeff")  # a byte-order mark is no code
        self.stripped = stripped = [line.strip() for line in lines]
        self.indent = indent = [
            len(a) - len(b) for a, b in zip(lines, map(str.lstrip, lines), strict=True)
        ]
        self.starts = [False] * n  # a logical statement begins on this line
        self.next_code = [n] * (n + 1)  # first non-blank, non-comment line at or after i
        self.stmt_at: dict[int, list[int]] = {}
        self.comment_at: dict[int, list[int]] = {}
        safe, depth = lm.safe, lm.depth
        nxt = n
        for i in range(n - 1, -1, -1):
            line = stripped[i]
            if line and line[0] != "#":
                nxt = i
                if safe[i] and depth[i] == 0:
                    self.starts[i] = True
            self.next_code[i] = nxt
        for i in range(n):
            line = stripped[i]
            if not line or not safe[i]:
                continue
            if line[0] == "#":
                self.comment_at.setdefault(indent[i], []).append(i)
            elif self.starts[i] and not _CONTINUATION.match(line):
                self.stmt_at.setdefault(indent[i], []).append(i)

    def _cuts(self, lo: int, hi: int, ind: int) -> list[int]:
        """Lines in (lo, hi) that begin a block at indentation ``ind``."""
        stmts = self.stmt_at.get(ind, [])
        found = stmts[bisect_left(stmts, lo + 1) : bisect_left(stmts, hi)]
        comments = self.comment_at.get(ind, [])
        comments = comments[bisect_left(comments, lo + 1) : bisect_left(comments, hi)]
        if comments:  # a comment starts a block only when a statement of this level follows
            heads = set(found)
            found = sorted(found + [c for c in comments if self.next_code[c] in heads])
        return found

    def spans(self, lo: int, hi: int, ind: int, level: int) -> list[Span]:
        stripped = self.stripped
        bounds = [lo, *self._cuts(lo, hi, ind), hi]
        kinds = [self._kind(bounds[k], bounds[k + 1]) for k in range(len(bounds) - 1)]
        spans: list[Span] = []
        for g in group_units(self.lm, bounds, kinds, [-1] * len(kinds), self.target_chars):
            span = Span(g.start, g.end, g.kind)
            code = g.code_start if g.code_start >= 0 else g.start
            span.header = " ".join(stripped[code].split())[:240] if code < hi else ""
            if g.kind == "decl":
                m = _CLASS_NAME.match(span.header)
                if m:
                    span.container, span.cname = "class", m.group(1)
                    if level < MAX_MEMBER_LEVEL:
                        self._members(span, code, ind, level)
                else:
                    d = _DEF_NAME.match(span.header)
                    span.func = d.group(1) if d else None
            spans.append(span)
        return spans

    def _kind(self, s: int, e: int) -> str:
        first = self.stripped[s]
        if not first:
            first = next((self.stripped[i] for i in range(s, e) if self.stripped[i]), "")
        if not first:
            return "blank"
        if first.startswith("#"):
            return "comment"
        if first.startswith("@"):
            return "glue"
        if first.startswith(("import ", "from ")):
            return "import"
        if _DEF_NAME.match(first) or _CLASS_NAME.match(first):
            return "decl"
        return "stmt"

    def _members(self, span: Span, class_line: int, ind: int, level: int) -> None:
        """Members of a class: statements at the indentation of its first body statement."""
        stripped, starts = self.stripped, self.starts
        first_body = next((i for i in range(class_line + 1, span.end) if starts[i]), -1)
        if first_body < 0 or self.indent[first_body] <= ind:
            return  # `class A: pass` keeps its body on the header line
        inner = self.indent[first_body]
        floor = class_line + 1
        first = first_body
        if _STRING_START.match(stripped[first_body]):  # the docstring stays with the header
            later = self._cuts(first_body, span.end, inner)
            if not later:
                return
            floor = first_body + 1
            first = later[0]
        safe = self.lm.safe
        while (
            first > floor
            and safe[first - 1]
            and (not stripped[first - 1] or stripped[first - 1].startswith("#"))
        ):
            first -= 1  # comments just above the first member belong to that member
        found = self.spans(first, span.end, inner, level + 1)
        if found:
            span.members, span.body_start, span.body_end = found, first, span.end
