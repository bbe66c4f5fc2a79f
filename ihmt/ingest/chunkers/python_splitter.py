"""Python structure as Spans, from the stdlib ``ast`` (exact) or a lexer fallback (safe).

``ast`` gives every top-level statement its exact line range, so blocks are never guessed:
decorators and the comments / blank lines before a statement belong to it, consecutive imports
(with the module docstring) coalesce, and each class knows its members for a per-member split.

A code index shows one symbol per block, so the blocks follow what a reader calls a symbol:

* a def or class begins at its decorator, its ``def`` / ``class`` line or the comments directly
  above it; a comment that a blank line separates from it (a section banner, a note about the
  code before) is a block of its own;
* class-level statements before the first method (``__slots__``, attributes) are part of the
  class header block, up to the size budget; later runs of them are member blocks named after
  the first attribute they bind (``Class.__hash__``), so no class code is outside its class;
* defs inside a module- or class-level ``if`` / ``try`` / ``with`` (version switches, import
  fallbacks) are blocks of their own, cut out of the statement around them.

Source that does not parse (syntax errors, null bytes, Python 2), and files too large for a
quick parse, are structured by indentation instead: cuts only at statement starts outside any
bracket, string or backslash continuation, as found by ``BraceScanner``; the same rules apply
there as far as indentation shows them.

One job (about 700 lines): cutting Python at definition boundaries, with the fallback for
source that does not parse; both paths must produce the same byte-exact tiling.
"""

from __future__ import annotations

import ast
import warnings
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from keyword import iskeyword

from ihmt.ingest.chunkers.brace_scanner import (
    MAX_MEMBER_LEVEL,
    BraceScanner,
    LineMap,
    Span,
    group_units,
)

from ... import re_cache

__all__ = ["AST_SIZE_LIMIT", "python_spans"]

AST_SIZE_LIMIT = 200_000  # characters; ast.parse takes about a second per megabyte

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_IMPORTS = (ast.Import, ast.ImportFrom)
# statements whose bodies may hold module-level defs (``try*`` exists from Python 3.11)
_COMPOUNDS: tuple[type, ...] = (ast.If, ast.Try, ast.With, ast.AsyncWith) + (
    (ast.TryStar,) if hasattr(ast, "TryStar") else ()
)
_TYPE_ALIAS: type | None = getattr(ast, "TypeAlias", None)  # `type X = ...` (3.12)
_TRAILING_COMMENT = re_cache.compile(r"\s+#.*$")
_CONTINUATION = re_cache.compile(r"(?:else|elif|except|finally)\b|[)\]}]")
_DEF_NAME = re_cache.compile(r"(?:async\s+)?def\s+([A-Za-z_]\w*)")
_CLASS_NAME = re_cache.compile(r"class\s+([A-Za-z_]\w*)")
_STRING_START = re_cache.compile(r"[rRbBuUfF]{0,2}(?:\"|')")
_BRANCH = re_cache.compile(r"(?:else|elif|except|finally)\b")
_COMPOUND_HEAD = re_cache.compile(r"(?:if|try|with|async\s+with)\b")
_DEF_OR_DECO = re_cache.compile(r"@|(?:async\s+)?def\s|class\s")
_ATTRIBUTE = re_cache.compile(r"([A-Za-z_]\w*)\s*(?:[:,]|=(?!=))")  # `x = 1`, `x: int`, `a, b =`
_MAX_NEST = 8  # if / try blocks inside each other that the lexer path still looks into


class _Lines:
    """Line access by 0-based physical line index."""

    def __init__(self, text: str, starts: list[int]) -> None:
        self.text, self.starts = text, starts

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i: int) -> str:
        end = self.starts[i + 1] if i + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[i] : end]

    def offset(self, i: int) -> int:
        """Character offset where line ``i`` begins (the text's length past the last line)."""
        return self.starts[i] if i < len(self.starts) else len(self.text)


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
    lines = _Lines(text, starts)
    items = _items(tree.body, 0, len(starts), lines, True)
    return _tile(items, 0, len(starts), lines, 0, max(1, target_chars), False)


@dataclass
class _Item:
    """Lines up to ``end`` (0-based, exclusive) that become one Span; starts tile from the end
    of the item before. ``kind``: imports, decl, doc, stmt or comment."""

    start: int
    end: int
    kind: str
    node: ast.stmt | None = None  # the def / class of a decl
    names: list[str] = field(default_factory=list)  # names a stmt binds (class attributes)


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


def _bound_names(node: ast.stmt) -> list[str]:
    """Names a class-level statement defines (``x = ...``, ``x: int``, ``a, b = ...``), also
    inside its ``if`` / ``try`` / ``with`` blocks (not inside defs)."""
    names: list[str] = []
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, _COMPOUNDS):
            stack.extend(reversed(_children(cur)))
            continue
        if isinstance(cur, ast.Assign):
            targets = cur.targets
        elif isinstance(cur, ast.AnnAssign):
            targets = [cur.target]
        elif _TYPE_ALIAS is not None and isinstance(cur, _TYPE_ALIAS):
            targets = [cur.name]  # type: ignore[attr-defined]
        else:
            continue
        for target in targets:
            elts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            names += [e.id for e in elts if isinstance(e, ast.Name)]
    return names


def _children(node: ast.stmt) -> list[ast.stmt]:
    """The statements of an ``if`` / ``try`` / ``with`` in source order."""
    if isinstance(node, ast.If):
        return node.body + node.orelse
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return list(node.body)
    out = list(node.body)  # try / try*
    for handler in node.handlers:  # type: ignore[attr-defined]
        out += handler.body
    return out + node.orelse + node.finalbody  # type: ignore[attr-defined]


def _items(nodes: list[ast.stmt], lo: int, hi: int, lines: _Lines, module: bool) -> list[_Item]:
    """Blocks of one statement list in order: a def stands alone (also one nested in a
    module- or class-level ``if`` / ``try`` / ``with``), imports coalesce, the rest is stmt."""
    items: list[_Item] = []
    for idx, node in enumerate(nodes):
        units = _expand(node, lines, hi)
        if units is not None:
            items += units
            continue
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
        if items and start < items[-1].end:  # `a = 1; b = 2` share a line: one block
            prev = items[-1]
            prev.end = max(prev.end, end)
            if kind == "decl":
                prev.kind, prev.node = "decl", node
            elif prev.kind != "decl" and not (prev.kind == kind == "imports"):
                prev.kind = "stmt"
            prev.names += _bound_names(node)
            continue
        if kind == "imports" and items and items[-1].kind in ("imports", "doc"):
            items[-1].end, items[-1].kind = end, "imports"
            continue
        item = _Item(start, end, kind, node if kind == "decl" else None)
        item.names = _bound_names(node)
        items.append(item)
    return _detach_comments(items, lo, lines)


def _detach_comments(items: list[_Item], lo: int, lines: _Lines) -> list[_Item]:
    """A def begins at its decorator, its ``def`` / ``class`` line or the comment lines
    directly above; comments that a blank line separates from it become their own block, so
    a symbol's range never opens with a section banner or a note about the code before."""
    out: list[_Item] = []
    prev_end = lo
    for item in items:
        if item.end <= prev_end:  # defensive: keep the tiling strictly increasing
            if out:
                out[-1].end = max(out[-1].end, item.end)
            continue
        if item.kind == "decl":
            top = max(item.start, prev_end)
            while top > prev_end and _is_comment(lines[top - 1]):
                top -= 1
            if not all(_blank(lines[i]) for i in range(prev_end, top)):
                out.append(_Item(prev_end, top, "comment"))
        out.append(item)
        prev_end = item.end
    return out


def _expand(node: ast.stmt, lines: _Lines, hi: int) -> list[_Item] | None:
    """A compound statement that holds defs, cut into its defs and the code between them.

    ``if sys.version_info >= ...: def f(): ... else: def f(): ...`` and ``try: from x import
    y / except ImportError: def y(): ...`` define symbols at module (or class) level, so each
    def there is its own block; the ``if`` / ``else:`` / ``except`` lines and the other
    statements form the stmt blocks around them. None when there is no def inside.
    """
    if not isinstance(node, _COMPOUNDS):
        return None
    defs, ends, named = _inner_defs(node)
    if not defs:
        return None
    ends.sort()
    node_end = _absorb_comments(lines, node.end_lineno or node.lineno, node.col_offset, hi)
    units: list[_Item] = []
    cursor = _node_start(node)
    for d in defs:
        ds = _node_start(d)
        known = ends[bisect_right(ends, ds) - 1] if ends and ends[0] <= ds else 0
        k = ds
        while k > max(cursor, known) and _blank_or_comment(lines[k - 1]):
            k -= 1  # the `else:` / `except ...:` line or the last statement before the def
        if k > cursor:
            units.append(_Item(cursor, k, "stmt", names=_names_in(named, cursor, k)))
        d_end = _absorb_comments(lines, d.end_lineno or d.lineno, d.col_offset, node_end)
        d_end = max(min(d_end, node_end), ds + 1)
        units.append(_Item(ds, d_end, "decl", d))
        cursor = d_end
    if node_end > cursor:
        code_after = bool(ends) and ends[-1] > cursor
        kind = "stmt" if code_after else "comment"
        units.append(_Item(cursor, node_end, kind, names=_names_in(named, cursor, node_end)))
    return units


def _names_in(named: list[tuple[int, list[str]]], lo: int, hi: int) -> list[str]:
    """Names bound by the statements that begin in lines [lo, hi) (``named`` is in order)."""
    a = bisect_left(named, (lo,))
    b = bisect_left(named, (hi,))
    return [name for _line, names in named[a:b] for name in names]


def _inner_defs(
    node: ast.stmt,
) -> tuple[list[ast.stmt], list[int], list[tuple[int, list[str]]]]:
    """(defs inside a compound statement in source order, 1-based end lines of all other code,
    (0-based first line, bound names) of its assignments).

    Iterative, so deep ``if`` nesting cannot exhaust the stack; defs are not entered.
    """
    defs: list[ast.stmt] = []
    ends: list[int] = []
    named: list[tuple[int, list[str]]] = []
    stack: list[ast.stmt] = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, _DEFS):
            defs.append(cur)
        elif isinstance(cur, _COMPOUNDS):
            if isinstance(cur, ast.If):
                ends.append(cur.test.end_lineno or cur.lineno)
            elif isinstance(cur, (ast.With, ast.AsyncWith)):
                ends.append(max(_end(i.optional_vars or i.context_expr) for i in cur.items))
            else:  # try / try*: the `try:` line and each `except ...:` header
                ends.append(cur.lineno)
                ends += [_end(h.type) if h.type else h.lineno for h in cur.handlers]
            stack.extend(reversed(_children(cur)))
        else:
            ends.append(cur.end_lineno or cur.lineno)
            names = _bound_names(cur)
            if names:
                named.append((cur.lineno - 1, names))
    return defs, ends, named


def _end(node: ast.expr) -> int:
    return node.end_lineno or node.lineno


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


def _tile(
    items: list[_Item], lo: int, hi: int, lines: _Lines, level: int, budget: int, in_class: bool
) -> list[Span]:
    """Spans tiling [lo, hi): each item takes the lines from the previous one's end."""
    spans: list[Span] = []
    for k, item in enumerate(items):
        s = lo if k == 0 else spans[-1].end
        e = hi if k == len(items) - 1 else item.end
        span = Span(s, e, "stmt" if item.kind == "doc" else item.kind)
        if item.node is not None:
            _describe(span, item.node, lines, level, budget)
        elif in_class and item.kind == "stmt" and item.names:
            span.func = item.names[0]  # class attributes: titled ``Class.name`` by the caller
            span.header = _first_code_line(lines, s, e)
        spans.append(span)
    return spans


def _first_code_line(lines: _Lines, s: int, e: int) -> str:
    for i in range(s, e):
        if not _blank_or_comment(lines[i]):
            return " ".join(lines[i].split())[:240]
    return ""


def _describe(span: Span, node: ast.stmt, lines: _Lines, level: int, budget: int) -> None:
    """Name, header and (for classes) members of a def / class span.

    The class-level statements before the first def (``__slots__``, attributes, constants)
    stay in the header block up to ``budget`` characters; the rest of the body becomes
    members: each def alone, and each run of other statements one block (cut at the budget)
    named after the first attribute it binds, so the map lists it under the class.
    """
    if not isinstance(node, ast.ClassDef):
        span.func = node.name
        span.header = " ".join(lines[node.lineno - 1].lstrip("\ufeff").split())
        return
    span.container, span.cname = "class", node.name
    span.header = _class_header(node, lines)
    if level >= MAX_MEMBER_LEVEL:
        return
    body = list(node.body)
    floor = max([node.lineno] + [_end(x) for x in (*node.bases, *node.keywords)])
    if body and _is_docstring(body[0]):
        floor = max(floor, body[0].end_lineno or floor)  # members begin after the docstring
        body = body[1:]
    if not body or _node_start(body[0]) < floor:
        return  # `class A: pass` keeps its body on the header line
    first = _node_start(body[0])
    while first > floor and _blank_or_comment(lines[first - 1]):
        first -= 1  # comments just above the first statement belong to the body
    items = _items(body, first, span.end, lines, False)
    origin = lines.offset(_node_start(node))
    h = 0
    while h < len(items) and items[h].kind != "decl":
        if lines.offset(items[h].end) - origin > budget:
            break
        h += 1
    if h == len(items):
        return  # no def and within the budget: the class is one block
    body_start = items[h - 1].end if h else first
    members = _tile(
        _runs(items[h:], body_start, lines, budget),
        body_start,
        span.end,
        lines,
        level + 1,
        budget,
        True,
    )
    if members:
        span.members, span.body_start, span.body_end = members, body_start, span.end


def _runs(items: list[_Item], lo: int, lines: _Lines, budget: int) -> list[_Item]:
    """Consecutive class-level statements as one block each, cut where it would pass the
    budget (a single statement is never cut)."""
    out: list[_Item] = []
    block_lo = lo  # where the last block of ``out`` begins
    prev_end = lo
    for item in items:
        if (
            item.kind == "stmt"
            and out
            and out[-1].kind == "stmt"
            and lines.offset(item.end) - lines.offset(block_lo) <= budget
        ):
            out[-1].end = item.end
            out[-1].names += item.names
        else:
            out.append(_Item(item.start, item.end, item.kind, item.node, list(item.names)))
            block_lo = prev_end
        prev_end = item.end
    return out


def _blank_or_comment(line: str) -> bool:
    stripped = line.lstrip("\ufeff").strip()
    return not stripped or stripped.startswith("#")


def _blank(line: str) -> bool:
    return not line.lstrip("\ufeff").strip()


def _is_comment(line: str) -> bool:
    return line.lstrip("\ufeff").strip().startswith("#")


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
    second per megabyte). Classes still split per member, found at their body's indentation,
    and defs inside a module-level ``if`` / ``try`` / ``with`` are found one block level down.
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
        self.lm, self.target_chars = lm, max(1, target_chars)
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
        self.branch_at: dict[int, list[int]] = {}  # `else:` / `elif` / `except` / `finally:`
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
            elif not self.starts[i]:
                continue
            elif not _CONTINUATION.match(line):
                self.stmt_at.setdefault(indent[i], []).append(i)
            elif _BRANCH.match(line):
                self.branch_at.setdefault(indent[i], []).append(i)

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

    def spans(
        self, lo: int, hi: int, ind: int, level: int, extra: list[int] | None = None, nest: int = 0
    ) -> list[Span]:
        """Blocks of [lo, hi) cut at indentation ``ind`` (plus the ``extra`` cut lines)."""
        stripped = self.stripped
        cuts = self._cuts(lo, hi, ind)
        if extra:
            cuts = sorted(set(cuts).union(extra))
        bounds, kinds = self._units(lo, hi, cuts)
        if nest:  # imports inside an `if` / `try` are code of that block, as in the ast path
            kinds = ["stmt" if k == "import" else k for k in kinds]
        spans: list[Span] = []
        for g in group_units(self.lm, bounds, kinds, [-1] * len(kinds), self.target_chars):
            code = g.code_start if g.code_start >= 0 else g.start
            if g.kind == "stmt" and code < hi and nest < _MAX_NEST:
                inner = self._compound(g.start, g.end, code, ind, level, nest + 1)
                if inner:
                    spans += inner
                    continue
            if g.kind == "decl":
                code = self._def_line(code, g.end)
            start = self._detach(g.start, code, spans) if g.kind == "decl" else g.start
            span = Span(start, g.end, g.kind)
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

    def _units(self, lo: int, hi: int, cuts: list[int]) -> tuple[list[int], list[str]]:
        """Unit bounds and kinds; decorators are one unit with what they decorate, so a long
        ``@parametrize(...)`` list is never flushed apart from its def as a comment run."""
        bounds = [lo]
        kinds: list[str] = []
        for end in [*cuts, hi]:
            kind = self._kind(bounds[-1], end)
            if kinds and kinds[-1] == "glue" and kind != "blank":  # [start, end) joins it
                bounds[-1], kinds[-1] = end, "glue" if kind == "comment" else kind
            else:
                bounds.append(end)
                kinds.append(kind)
        return bounds, kinds

    def _def_line(self, code: int, end: int) -> int:
        """The ``def`` / ``class`` line of a block that may open with decorators."""
        for i in range(code, end):
            if self.starts[i] and _DEF_NAME.match(self.stripped[i]):
                return i
            if self.starts[i] and _CLASS_NAME.match(self.stripped[i]):
                return i
        return code

    def _detach(self, start: int, code: int, out: list[Span]) -> int:
        """Where a def's block begins: its decorators and the comments directly above; lines
        that a blank line separates from it go into a comment block of their own."""
        stripped, safe, depth = self.stripped, self.lm.safe, self.lm.depth
        top = code
        while top > start and (stripped[top - 1] or not safe[top - 1] or depth[top - 1]):
            top -= 1
        if top > start and any(stripped[i] for i in range(start, top)):
            out.append(Span(start, top, "comment"))
            return top
        return start

    def _compound(
        self, start: int, end: int, code: int, ind: int, level: int, nest: int
    ) -> list[Span] | None:
        """An ``if`` / ``try`` / ``with`` block that holds defs, cut at its body's statements
        and its ``else:`` / ``except`` lines; None when no def starts at the body's level."""
        inner = self._body_indent(code, end, ind)
        if inner < 0 or not self._holds_def(code, end, inner, nest):
            return None
        branches = self.branch_at.get(ind, [])
        extra = branches[bisect_left(branches, code + 1) : bisect_left(branches, end)]
        if code > start:  # comments above the `if` line stay above it, not with the first def
            extra.insert(0, code)
        return self.spans(start, end, inner, level, extra, nest)

    def _body_indent(self, code: int, end: int, ind: int) -> int:
        """Indentation of an ``if`` / ``try`` / ``with`` body; -1 when ``code`` is none of
        them or keeps its body on the header line (``if x: y``)."""
        if not _COMPOUND_HEAD.match(self.stripped[code]):
            return -1
        starts = self.starts
        first_body = next((i for i in range(code + 1, end) if starts[i]), -1)
        if first_body < 0 or self.indent[first_body] <= ind:
            return -1
        return self.indent[first_body]

    def _holds_def(self, code: int, end: int, inner: int, nest: int) -> bool:
        """A def starts in the body at ``inner``, or in a nested ``if`` / ``try`` / ``with``."""
        cuts = [c for c in self._cuts(code, end, inner) if self.stripped[c][0] != "#"]
        for k, c in enumerate(cuts):
            if _DEF_OR_DECO.match(self.stripped[c]):
                return True
            if nest < _MAX_NEST:
                stop = cuts[k + 1] if k + 1 < len(cuts) else end
                deeper = self._body_indent(c, stop, inner)
                if deeper >= 0 and self._holds_def(c, stop, deeper, nest + 1):
                    return True
        return False

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
        """Members of a class: statements at the indentation of its first body statement.

        As in the ``ast`` path, the statements before the first def stay in the header block
        (up to the budget) and each later run of statements is one block named after the
        first attribute it assigns.
        """
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
        edges, budget = self.lm.edges, self.target_chars
        h = 0
        while h < len(found) and found[h].kind != "decl" and found[h].func is None:
            if edges[found[h].end] - edges[span.start] > budget:
                break
            h += 1
        if h == len(found):
            return  # no def and within the budget: the class is one block
        body_start = found[h - 1].end if h else first
        members = self._runs(found[h:], body_start)
        if members:
            span.members, span.body_start, span.body_end = members, body_start, span.end

    def _runs(self, found: list[Span], lo: int) -> list[Span]:
        """Consecutive class-level statements as one block each (cut at the budget), named
        after the first attribute they assign."""
        edges, budget = self.lm.edges, self.target_chars
        out: list[Span] = []
        runs: list[Span] = []
        block_lo = lo
        for span in found:
            plain = span.kind == "stmt" and span.func is None and not span.members
            if (
                plain
                and runs
                and out[-1] is runs[-1]
                and edges[span.end] - edges[block_lo] <= budget
            ):
                runs[-1].end = span.end
                continue
            if plain:
                runs.append(span)
                block_lo = span.start
            out.append(span)
        for span in runs:
            span.func = self._attribute(span)
        return out

    def _attribute(self, span: Span) -> str | None:
        """First name a statement of the block assigns (as ``_bound_names`` in the ast path)."""
        for i in range(span.start, span.end):
            if self.starts[i]:
                m = _ATTRIBUTE.match(self.stripped[i])
                if m and not iskeyword(m.group(1)):
                    return m.group(1)
        return None
