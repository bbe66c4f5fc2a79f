"""Where source code may be cut: per-line nesting depth, and the blocks between safe cuts.

A code splitter may only cut at a line start that lies outside every comment and literal and
at the nesting depth it is splitting at. ``BraceScanner`` lexes just enough of each language to
know that (comments, strings, char literals, text blocks, raw strings, template literals with
nested ``${}``, preprocessor lines, PHP's inline HTML) in one forward, iterative pass; the
result is a ``LineMap``. ``group_units`` and ``brace_spans`` then turn the cut points into
``Span`` blocks (imports, declarations, statements) and, for class-like blocks, the members
one level down. ``Span`` is also the block type the Python splitter produces, so one chunk
assembler serves every language.

Lexing is regex-driven (``re.search`` jumps over ordinary characters), so a 1 MB file scans in
a fraction of a second, and no step recurses on brace depth.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from functools import cache
from itertools import accumulate
from operator import add

__all__ = [
    "BraceScanner",
    "LineMap",
    "Span",
    "brace_spans",
    "group_units",
    "line_starts",
]

MAX_MEMBER_LEVEL = 8  # class-in-class nesting we still split per member; deeper stays whole
_PP_STACK_LIMIT = 64  # #if/#else depth repair only for sane nesting (it copies the stack)

_NEWLINE = re.compile(r"\r\n|\r|\n")
_EOL = re.compile(r"[\r\n]")
_EOL_PHP = re.compile(r"[\r\n]|\?>")
_PP_BODY = re.compile(r"(?:[^\r\n\\]|\\(?:\r\n|[\s\S]))*")
_PP_NAME = re.compile(r"[ \t]*#[ \t]*([A-Za-z]+)")
_NESTED_COMMENT = re.compile(r"/\*|\*/")
_CHAR_LITERAL = re.compile(r"'(?:\\[^\r\n][^'\\\r\n]{0,9}|[^'\\\r\n])'")
_JS_REGEX = re.compile(
    r"/(?![*/])(?:[^/\\\[\r\n]|\\[^\r\n]|\[(?:[^\]\\\r\n]|\\[^\r\n])*\])+/[A-Za-z]*"
)
_JS_REGEX_KEYWORDS = frozenset(
    "return typeof case do else in of void throw new delete yield await instanceof".split()
)
_JS_REGEX_AFTER = frozenset("(,=:[!&|?{};+-*%~^")
_PHP_OPEN = re.compile(r"<\?(?:php\b|=)?")
_PHP_HEREDOC = re.compile(r"<<<[ \t]*([\"']?)([A-Za-z_\x80-\uffff][\w\x80-\uffff]*)\1")


def _body(quote: str, multiline: bool) -> re.Pattern[str]:
    """Rest of a quoted literal with backslash escapes (unrolled loop: linear, no backtracking).

    A single-line literal that meets a bare newline stops before it (error recovery), so a
    stray quote cannot swallow the rest of the file.
    """
    q = re.escape(quote)
    stop = f"{q}\\\\" if multiline else f"{q}\\\\\\r\\n"
    return re.compile(f"[^{stop}]*(?:\\\\(?:\\r\\n|[\\s\\S])[^{stop}]*)*{q}?")


_DQ_LINE = _body('"', False)
_DQ_MULTI = _body('"', True)
_SQ_LINE = _body("'", False)
_SQ_MULTI = _body("'", True)
_BACKTICK_LINE = re.compile(r"[^`\r\n]*`?")
_VERBATIM = re.compile(r'[^"]*(?:""[^"]*)*"?')  # C# @"..." : "" is the only escape


def _triple(quote: str) -> re.Pattern[str]:
    """Rest of a triple-quoted literal with backslash escapes, or everything if unterminated."""
    q = quote[0]
    return re.compile(f"[^{q}\\\\]*(?:(?:\\\\[\\s\\S]|{q}(?!{q}{q}))[^{q}\\\\]*)*(?:{q}{q}{q}|\\Z)")


_TRIPLE_DQ = _triple('"')
_TRIPLE_SQ = _triple("'")


@dataclass(frozen=True)
class _HoleKind:
    """A string literal that can embed code (``${...}``, ``\\(...)``, ``{...}``)."""

    events: re.Pattern[str]  # named groups: esc, end, hole, nl
    closer: str  # bracket that ends an embedded-code hole


_JS_TEMPLATE = _HoleKind(re.compile(r"(?P<esc>\\[\s\S])|(?P<end>`)|(?P<hole>\$\{)"), "}")
_KT_STRING = _HoleKind(
    re.compile(r"(?P<esc>\\(?:\r\n|[\s\S]))|(?P<end>\")|(?P<hole>\$\{)|(?P<nl>[\r\n])"), "}"
)
_KT_RAW = _HoleKind(re.compile(r"(?P<end>\"{3,})|(?P<hole>\$\{)"), "}")
_SWIFT_STRING = _HoleKind(
    re.compile(r"(?P<hole>\\\()|(?P<esc>\\(?:\r\n|[\s\S]))|(?P<end>\")|(?P<nl>[\r\n])"), ")"
)
_SWIFT_MULTI = _HoleKind(re.compile(r"(?P<hole>\\\()|(?P<esc>\\[\s\S])|(?P<end>\"\"\")"), ")")
_CS_INTERP = _HoleKind(
    re.compile(r"(?P<esc>\\(?:\r\n|[\s\S])|\{\{)|(?P<hole>\{)|(?P<end>\")|(?P<nl>[\r\n])"), "}"
)
_CS_INTERP_VERBATIM = _HoleKind(re.compile(r"(?P<esc>\"\"|\{\{)|(?P<hole>\{)|(?P<end>\")"), "}")

_C_FAMILY = ("c", "cpp", "csharp")
_CHAR_LANGS = frozenset(("java", "c", "cpp", "csharp", "go", "kotlin", "rust", "generic"))
_PP_LANGS = frozenset(("c", "cpp", "csharp", "swift"))
# TypeScript (prettier) breaks long generic parameter lists over lines: `method<\n  T,\n>(`.
# Without semicolons to say a statement goes on, a '<' that ends a line right after a name
# opens a bracket level there, so the parameter lines are no cut points. (Semicolon
# languages such as Rust already join an unterminated line to the next.)
_ANGLE_LANGS = frozenset(("typescript",))
_ANGLE_AT_EOL = re.compile(r"[ \t]*(?://[^\r\n]*)?(?:\r\n|\r|\n)")
_CPP_DELIM = re.compile(r'([^()\\\s"]{0,16})\(')


@cache
def _prefilter(language: str) -> re.Pattern[str]:
    """Characters that can change lexer state or depth in one language.

    A plain character class lets ``re`` skip ordinary text at C speed; prefixes such as
    ``r#"`` or ``@"`` are recognised by looking back from the quote.
    """
    chars = "{}()\\[\\]\"'"
    if language != "python":
        chars += "/"
    if language in ("go", "javascript", "typescript", "kotlin", "swift"):
        chars += "`"
    if language in ("c", "cpp", "csharp", "swift", "php", "python"):
        chars += "#"
    if language in _ANGLE_LANGS:
        chars += "<>"
    if language == "python":
        chars += "\\\\"
    alternatives = [f"[{chars}]"]
    if language == "php":
        alternatives += ["<<<", r"\?>"]
    return re.compile("|".join(alternatives))


_KNOWN = frozenset(
    "python java javascript typescript c cpp csharp go rust kotlin swift php".split()
)


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _word_before(text: str, j: int, allowed: str = "") -> bool:
    """True when a word character glues onto position ``j`` from the left (``bar"`` vs ``r"``).

    ``allowed`` names one prefix letter that may precede (Rust ``br"``) if it stands alone.
    """
    if j == 0 or not _is_word(text[j - 1]):
        return False
    if allowed and text[j - 1] == allowed:
        return j - 1 > 0 and _is_word(text[j - 2])
    return True


def _cpp_raw_prefix(text: str, j: int) -> bool:
    """``R`` at ``j`` starts a raw string (optionally after u8 / u / U / L)."""
    if j == 0 or not _is_word(text[j - 1]):
        return True
    for prefix in ("u8", "u", "U", "L"):
        k = j - len(prefix)
        if k >= 0 and text[k:j] == prefix and (k == 0 or not _is_word(text[k - 1])):
            return True
    return False


def line_starts(text: str) -> list[int]:
    """Offsets where physical lines begin (\\r\\n, \\r and \\n end a line, as in Python's parser)."""
    if not text:
        return []
    if "\r" in text:
        starts = [0]
        starts.extend(m.end() for m in _NEWLINE.finditer(text))
    else:  # the common case, at C speed: line i starts after i newlines
        lengths = accumulate(map(len, text.split("\n")))
        starts = [0, *map(add, lengths, range(1, text.count("\n") + 1))]
    if starts[-1] == len(text):
        starts.pop()  # a final newline does not begin another line
    return starts


@dataclass
class LineMap:
    """Lexer facts per physical line: where it starts, depth at its start, is the start a cut."""

    text: str
    starts: list[int]
    depth: list[int]
    safe: list[bool]
    open_pos: list[int] = field(default_factory=list)  # offset of every code-level '{'
    open_depth: list[int] = field(default_factory=list)  # depth just before that '{'
    open_line: list[int] = field(default_factory=list)  # line holding that '{'
    final_depth: int = 0
    final_safe: bool = True
    edges: list[int] = field(init=False)  # starts plus the text length: line i is [e[i], e[i+1])
    _cuts: dict[int, list[int]] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.edges = self.starts + [len(self.text)]

    @property
    def n(self) -> int:
        return len(self.starts)

    def offset(self, line: int) -> int:
        """Offset of line ``line`` (0-based); the text length for the line past the end."""
        return self.edges[line]

    def line(self, i: int) -> str:
        return self.text[self.edges[i] : self.edges[i + 1]]

    def is_cut(self, line: int, depth: int) -> bool:
        """True when a chunk may begin at ``line`` while splitting at ``depth``."""
        if line >= len(self.starts):
            return self.final_safe and self.final_depth == depth
        return self.safe[line] and self.depth[line] == depth

    def cuts(self, lo: int, hi: int, depth: int) -> list[int]:
        """Lines in [lo, hi) where a chunk may begin while splitting at ``depth``."""
        if self._cuts is None:
            index: dict[int, list[int]] = {}
            for i, (d, ok) in enumerate(zip(self.depth, self.safe, strict=True)):
                if ok:
                    bucket = index.get(d)
                    if bucket is None:
                        index[d] = bucket = []
                    bucket.append(i)
            self._cuts = index
        lines = self._cuts.get(depth, [])
        return lines[bisect_left(lines, lo) : bisect_left(lines, hi)]

    def first_open(self, lo: int, hi: int, depth: int) -> int:
        """Line of the first code '{' opened at ``depth`` within lines [lo, hi), or -1."""
        lines, dep = self.open_line, self.open_depth
        k = bisect_left(lines, lo)
        end = len(lines)
        while k < end and lines[k] < hi:
            if dep[k] == depth:
                return lines[k]
            k += 1
        return -1


class BraceScanner:
    """Character-level lexer that records brace depth and unsafe line starts for one file.

    Depth counts (), [] and {}; a '}' also closes any unclosed '(' or '[' above its '{', and
    closers without an opener are ignored, so unbalanced input degrades to fewer cut points,
    never to an error. Braces inside strings, comments and template holes do not count.
    In TypeScript a generic list opened by ``name<`` (or ``= <``) at the end of a line counts
    too, up to its matching '>' (``=>`` and ``->`` are no closers); a ')', ']' or '}' also
    ends any such list still open above its own opener.
    """

    def __init__(self, text: str, language: str) -> None:
        self.text = text
        self.language = language if language in _KNOWN else "generic"
        self.nested_comments = self.language in ("rust", "swift", "kotlin")
        self._no_regex_before = 0  # JS/TS: no regex literal can start before this offset

    def scan(self) -> LineMap:  # noqa: C901 - one state machine reads best in one place
        text, lang = self.text, self.language
        n = len(text)
        starts = line_starts(text)
        nlines = len(starts)
        depth_at = [0] * nlines
        safe_at = [True] * nlines
        open_pos: list[int] = []
        open_depth: list[int] = []
        open_line: list[int] = []
        search = _prefilter(lang).search
        token = self._token
        pp_lang = lang in _PP_LANGS
        angles = lang in _ANGLE_LANGS
        stack: list[str] = []  # code-level openers
        braces = 0  # how many '{' are on the stack
        frames: list[list] = []  # string / hole frames inside a literal that embeds code
        pp_stack: list[list] = []
        pp_unsafe = 0  # inside a non-first #else branch after an unbalanced first branch
        li = 0  # next line whose start is not yet recorded
        pos = 0
        html = lang == "php" and ("<?php" in text or "<?=" in text)

        def fill(limit: int, safe: bool) -> None:
            nonlocal li
            d = len(stack)
            while li < nlines and starts[li] < limit:
                depth_at[li] = d
                safe_at[li] = safe
                li += 1

        while pos < n:
            if html:  # PHP: text outside <?php ... ?> is inert markup
                m = _PHP_OPEN.search(text, pos)
                end = m.end() if m else n
                fill(end, True)
                pos, html = end, False
                continue
            if frames:
                pos = self._in_literal(frames, pos, search)
                if not frames:
                    fill(pos, False)
                continue
            m = search(text, pos)
            if m is None:
                break
            t = m.start()
            if li < nlines and starts[li] <= t:
                fill(t + 1, not pp_unsafe)
            c = text[t]
            if c == "{":
                open_pos.append(t)
                open_depth.append(len(stack))
                open_line.append(li - 1)  # every line start <= t is recorded by now
                braces += 1
                stack.append(c)
                pos = t + 1
            elif c == "}":
                while braces and stack:
                    if stack.pop() == "{":
                        braces -= 1
                        break
                pos = t + 1
            elif c == "(" or c == "[":
                stack.append(c)
                pos = t + 1
            elif c == ")" or c == "]":
                k = len(stack)
                while k and stack[k - 1] == "<":  # a generic list never outlives its bracket
                    k -= 1
                if k and stack[k - 1] == ("(" if c == ")" else "["):
                    del stack[k - 1 :]
                pos = t + 1
            elif c == "<" and angles:
                if (stack and stack[-1] == "<") or self._opens_generics(t):
                    stack.append(c)
                pos = t + 1
            elif c == ">" and angles:
                if stack and stack[-1] == "<" and text[t - 1] not in "=-":
                    stack.pop()
                pos = t + 1
            elif c == "#" and pp_lang and self._directive_at(t):
                end = _PP_BODY.match(text, t).end()
                braces, delta = self._preprocessor(text, t, stack, pp_stack, braces)
                pp_unsafe += delta
                fill(end, False)
                pos = end
            elif c == "?":
                html = True
                pos = t + 2
            elif c == "\\":
                nl = _NEWLINE.match(text, t + 1)
                pos = nl.end() if nl else t + 1
                if nl:
                    fill(pos + 1, False)  # a backslash-continued line is no cut point
            else:
                pos = token(t, c, m, frames)
                if not frames and li < nlines and starts[li] < pos:
                    fill(pos, False)
        fill(n + 1, not frames and not pp_unsafe)
        return LineMap(
            text=text,
            starts=starts,
            depth=depth_at,
            safe=safe_at,
            open_pos=open_pos,
            open_depth=open_depth,
            open_line=open_line,
            final_depth=len(stack),
            final_safe=not frames,
        )

    def _in_literal(self, frames: list[list], pos: int, search) -> int:
        """Advance inside a literal that embeds code; pops frames as they end."""
        text = self.text
        frame = frames[-1]
        if frame[0] == "str":
            m = frame[1].events.search(text, pos)
            if m is None:
                return len(text)
            g = m.lastgroup
            if g == "hole":
                frames.append(["hole", frame[1].closer, 0])
            elif g == "end":
                frames.pop()
            elif g == "nl":  # unterminated single-line string: stop before the newline
                frames.pop()
                return m.start()
            return m.end()
        m = search(text, pos)
        if m is None:
            return len(text)
        t = m.start()
        c = text[t]
        if c in "{([":
            frame[2] += 1
            return t + 1
        if c in "})]":
            if frame[2] == 0 and c == frame[1]:
                frames.pop()
            else:
                frame[2] = max(0, frame[2] - 1)
            return t + 1
        return self._token(t, c, m, frames)

    def _directive_at(self, t: int) -> bool:
        """'#' that starts a preprocessor / compiler directive line."""
        text = self.text
        j = t - 1
        while j >= 0 and text[j] in " \t":
            j -= 1
        if j >= 0 and text[j] not in "\r\n":
            return False
        return self.language != "swift" or text[t + 1 : t + 2].isalpha()

    def _token(self, t: int, c: str, m: re.Match[str], frames: list[list]) -> int:
        """Consume a comment or literal starting at ``t``; return the new position."""
        text, lang = self.text, self.language
        n = len(text)
        if c == "/":
            nxt = text[t + 1 : t + 2]
            if nxt == "/":
                e = (_EOL_PHP if lang == "php" else _EOL).search(text, t + 2)
                return e.start() if e else n
            if nxt == "*":
                return self._block_comment_end(t + 2)
            if lang in ("javascript", "typescript") and t >= self._no_regex_before:
                if self._regex_allowed(t):
                    r = _JS_REGEX.match(text, t)
                    if r:
                        return r.end()
                    # No literal closes on this line: skip further tries there (stays linear).
                    eol = _EOL.search(text, t)
                    self._no_regex_before = eol.start() if eol else n
            return t + 1
        if c == '"':
            return self._double_quote(t, frames)
        if c == "'":
            if lang in _CHAR_LANGS:
                ch = _CHAR_LITERAL.match(text, t)
                return ch.end() if ch else t + 1
            if lang == "php":
                return _SQ_MULTI.match(text, t + 1).end()
            if lang == "python" and text.startswith("'''", t):
                return _TRIPLE_SQ.match(text, t + 3).end()
            if lang in ("python", "javascript", "typescript"):
                return _SQ_LINE.match(text, t + 1).end()
            return t + 1
        if c == "`":
            if lang in ("javascript", "typescript"):
                frames.append(["str", _JS_TEMPLATE])
                return t + 1
            if lang == "go":
                e = text.find("`", t + 1)
                return n if e < 0 else e + 1
            return _BACKTICK_LINE.match(text, t + 1).end()
        if c == "#":
            if lang == "python" or (lang == "php" and not text.startswith("#[", t)):
                e = (_EOL_PHP if lang == "php" else _EOL).search(text, t + 1)
                return e.start() if e else n
            if lang == "swift":
                return self._swift_raw(t)
            return t + 1
        if c == "<" and lang == "php":
            return self._heredoc_end(t)
        return m.end()

    def _opens_generics(self, t: int) -> bool:
        """``name<`` (or ``= <`` of a generic arrow function) ending its line: a generic
        parameter list spread over lines, not a ``<`` comparison (formatters put spaces
        around those and never end a line with one)."""
        text = self.text
        if t == 0 or _ANGLE_AT_EOL.match(text, t + 1) is None:
            return False
        if _is_word(text[t - 1]) or text[t - 1] == "$":
            return True
        k = t - 1
        while k > 0 and text[k] in " \t":
            k -= 1
        return text[k] == "=" and k > 0 and text[k - 1] not in "=!<>"

    def _double_quote(self, t: int, frames: list[list]) -> int:
        text, lang = self.text, self.language
        n = len(text)
        if lang == "rust":
            j = t - 1
            while j >= 0 and text[j] == "#":
                j -= 1
            hashes = t - 1 - j
            if j >= 0 and text[j] == "r" and not _word_before(text, j, "b"):
                closing = '"' + "#" * hashes
                e = text.find(closing, t + 1)
                return n if e < 0 else e + len(closing)
            return _DQ_MULTI.match(text, t + 1).end()
        if lang == "php":
            return _DQ_MULTI.match(text, t + 1).end()
        triple = text.startswith('"""', t)
        if lang == "kotlin":
            frames.append(["str", _KT_RAW if triple else _KT_STRING])
            return t + (3 if triple else 1)
        if lang == "swift":
            frames.append(["str", _SWIFT_MULTI if triple else _SWIFT_STRING])
            return t + (3 if triple else 1)
        if triple and lang in ("java", "python"):
            return _TRIPLE_DQ.match(text, t + 3).end()
        if lang == "cpp" and t > 0 and text[t - 1] == "R" and _cpp_raw_prefix(text, t - 1):
            d = _CPP_DELIM.match(text, t + 1)
            if d is not None:
                closing = ")" + d.group(1) + '"'
                e = text.find(closing, d.end())
                return n if e < 0 else e + len(closing)
        if lang == "csharp":
            return self._csharp_string(t, frames)
        return _DQ_LINE.match(text, t + 1).end()

    def _csharp_string(self, t: int, frames: list[list]) -> int:
        text = self.text
        n = len(text)
        j = t - 1
        while j >= 0 and t - j <= 4 and text[j] in "$@":
            j -= 1
        prefix = text[j + 1 : t]
        k = t
        while k < n and text[k] == '"':
            k += 1
        quotes = k - t
        if "@" in prefix:
            if "$" in prefix:
                frames.append(["str", _CS_INTERP_VERBATIM])
                return t + 1
            return _VERBATIM.match(text, t + 1).end()
        if quotes >= 3:  # raw string literal: ends at the same run of quotes
            e = text.find('"' * quotes, k)
            return n if e < 0 else e + quotes
        if quotes == 2:
            return t + 2
        if "$" in prefix:
            frames.append(["str", _CS_INTERP])
            return t + 1
        return _DQ_LINE.match(text, t + 1).end()

    def _swift_raw(self, t: int) -> int:
        """Swift raw strings (``#"..."#``, also triple-quoted); any other '#' is plain text."""
        text = self.text
        k = t
        while k < len(text) and text[k] == "#":
            k += 1
        if not text.startswith('"', k):
            return t + 1
        quote = '"""' if text.startswith('"""', k) else '"'
        closing = quote + "#" * (k - t)
        e = text.find(closing, k + len(quote))
        return len(text) if e < 0 else e + len(closing)

    def _heredoc_end(self, t: int) -> int:
        """PHP heredoc / nowdoc: ends at a line holding only its identifier."""
        text = self.text
        h = _PHP_HEREDOC.match(text, t)
        if h is None:
            return t + 3
        end = re.compile(rf"^[ \t]*{re.escape(h.group(2))}\b", re.M).search(text, h.end())
        return end.end() if end else len(text)

    def _block_comment_end(self, p: int) -> int:
        text = self.text
        if not self.nested_comments:
            e = text.find("*/", p)
            return len(text) if e < 0 else e + 2
        level = 1
        while level:
            m = _NESTED_COMMENT.search(text, p)
            if m is None:
                return len(text)
            level += 1 if m.group() == "/*" else -1
            p = m.end()
        return p

    def _regex_allowed(self, t: int) -> bool:
        """JS/TS: a '/' starts a regex literal after an operator or keyword, not after a value."""
        text = self.text
        j = t - 1
        while j >= 0 and text[j] in " \t\r\n":
            j -= 1
        if j < 0:
            return True
        c = text[j]
        if c in _JS_REGEX_AFTER:
            return True
        if c.isalnum() or c in "_$":
            k = j
            while k >= 0 and j - k < 12 and (text[k].isalnum() or text[k] in "_$"):
                k -= 1
            return text[k + 1 : j + 1] in _JS_REGEX_KEYWORDS
        return False

    @staticmethod
    def _preprocessor(
        text: str, t: int, stack: list[str], pp_stack: list[list], braces: int
    ) -> tuple[int, int]:
        """Count braces of only the first branch of #if/#else, like a reader of the code would.

        Code such as ``#ifdef X / void f(int a) { / #else / void f() { / #endif`` opens two
        braces that one '}' closes; replaying only the first branch keeps the depth right.
        When that first branch was unbalanced, the lines of the other branches are no cut
        points. Returns the new '{' count and the change in "inside such a branch" nesting.
        """
        m = _PP_NAME.match(text, t)
        name = m.group(1) if m else ""
        if name in ("if", "ifdef", "ifndef"):
            snapshot = stack.copy() if len(stack) <= _PP_STACK_LIMIT else None
            pp_stack.append([snapshot, None, False])
        elif name in ("else", "elif", "elifdef", "elifndef") and pp_stack:
            entry = pp_stack[-1]
            if entry[0] is not None:
                delta = 0
                if entry[1] is None:
                    entry[1] = stack.copy()
                    if entry[1] != entry[0]:
                        entry[2], delta = True, 1
                stack[:] = entry[0]
                return stack.count("{"), delta
        elif name == "endif" and pp_stack:
            entry = pp_stack.pop()
            if entry[0] is not None and entry[1] is not None:
                stack[:] = entry[1]
                return stack.count("{"), -1 if entry[2] else 0
        return braces, 0


# --------------------------------------------------------------------------- blocks


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

_SEMICOLON_LANGS = frozenset(("java", "c", "cpp", "csharp", "php", "rust", "generic"))
_IMPORT_RE = {
    "java": r"(?:import|package)\b",
    "kotlin": r"(?:import|package)\b",
    "javascript": r"(?:import\b(?!\s*\()|export\s+(?:\*|\{[^}]*\})\s+from\b|(?:const|let|var)\s+[\w${},\s]+=\s*require\s*\(|['\"]use strict['\"])",
    "c": r"(?:#\s*(?:include|import)\b|#\s*pragma\s+once\b)",
    "cpp": r"(?:#\s*(?:include|import)\b|#\s*pragma\s+once\b|using\s+namespace\b|using\s+[\w:]+\s*;|import\s+[\w.:<>\"]+\s*;)",
    "csharp": r"(?:(?:global\s+)?using\s+(?:static\s+)?[\w.]+(?:\s*=\s*[\w.<>,\s]+)?\s*;|namespace\s+[\w.]+\s*;|extern\s+alias\b)",
    "go": r"(?:package|import)\b",
    "rust": r"(?:(?:pub(?:\([^)]*\))?\s+)?use\s|extern\s+crate\b|(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*;)",
    "swift": r"(?:@testable\s+)?import\b",
    "php": r"(?:<\?(?:php\b|=)|namespace\s+[\w\\]+\s*;|use\s+[\w\\]|(?:require|include)(?:_once)?\b|declare\s*\()",
}
_IMPORT_RE["typescript"] = _IMPORT_RE["javascript"]
_IMPORT_COMPILED = {k: re.compile(v) for k, v in _IMPORT_RE.items()}
_IMPORT_INITIALS = {  # first characters an import line of each language can start with
    "java": "ip",
    "kotlin": "ip",
    "javascript": "iecvl'\"",
    "typescript": "iecvl'\"",
    "c": "#",
    "cpp": "#ui",
    "csharp": "ugne",
    "go": "pi",
    "rust": "pue",
    "swift": "@i",
    "php": "<nurid",
}
_CONT_INITIALS = frozenset(".?:)]}&|+=-,ecfw")
# `| B` / `& C` go on a union or intersection type; `extends B {` / `implements C {` go on
# the class or interface header above them (prettier breaks long headers there).
_UNION_LANGS = frozenset(("javascript", "typescript"))
_TS_CONT_START = re.compile(r"(?:[|&]|(?:extends|implements)\b)")
_PP_GLUE = re.compile(r"#\s*(?:if|ifdef|ifndef|else|elif|region)\b|#\s*pragma\s+region\b")
_CONT_START = re.compile(
    r"(?:\.(?!\.\.)|\?\.|\?\?|\?|:(?!:)|\)|\]|\}|&&|\|\||\+|=>|->|,|"
    r"(?:else|catch|finally|where)\b)"
)
_TRAILING_COMMENT = re.compile(r"(?:(?<=[\s;{}()])//.*|/\*.*\*/\s*)$")
_CONT_END = tuple(", = ( [ + - * / % && || . ? : \\ | & =>".split())


def _classify(lm: LineMap, lang: str, s: int, e: int, depth: int) -> tuple[str, int]:
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
        if lang == "php" and not first.startswith("#["):
            return _COMMENT, -1
        if lang in _PP_LANGS:
            if _IMPORT_COMPILED.get(lang, _NEVER).match(first):
                return _IMPORT, -1
            return (_GLUE, -1) if _PP_GLUE.match(first) else (_STMT, -1)
    if c0 in _IMPORT_INITIALS.get(lang, ""):
        if _IMPORT_COMPILED[lang].match(first):
            return _IMPORT, -1
    open_line = lm.first_open(s, e, depth)
    last = first if e - s == 1 else text[edges[e - 1] : edges[e]].strip()
    last = last[-200:]  # only its end matters; bounds the regex below on minified lines
    if "/" in last:
        last = _TRAILING_COMMENT.sub("", last).rstrip()
    if open_line < 0 and c0 in "@#[" and _is_annotation(first, last, lang):
        return _GLUE, -1
    if (c0 in _CONT_INITIALS and _CONT_START.match(first)) or (
        lang in _UNION_LANGS and _TS_CONT_START.match(first)
    ):
        if open_line < 0 and lang not in _SEMICOLON_LANGS and not last.endswith(_CONT_END):
            return _CONT_LAST, -1  # `  | 'b'` after `type T =` also ends the statement
        return _CONT, open_line
    if open_line >= 0:
        return _DECL, open_line
    if not last or last[-1] in ";}":
        return _STMT, -1
    if last.endswith(_CONT_END) or lang in _SEMICOLON_LANGS:
        return _OPEN, -1
    return _STMT, -1


def _is_annotation(first: str, last: str, lang: str) -> bool:
    """Annotations / attributes / decorators attach to the declaration that follows."""
    if last.endswith((";", "{")):
        return False
    if first.startswith("@") and not first.startswith("@interface"):
        return True
    if first.startswith(("#[", "#![")) and lang in ("rust", "php"):
        return True
    return lang == "csharp" and first.startswith("[") and last.endswith("]")


_NEVER = re.compile(r"(?!)")
_TEMPLATE_PREFIX = re.compile(r"^template\s*<[^{]*?>\s*")
_CONTAINER = re.compile(
    r"^(?:(?:@[\w.]+(?:\([^)]*\))?|\[[^\]]*\]|#\[[^\]]*\])\s*)*"
    r"(?:[a-z_]+(?:\([^)]*\))?\s+)*?"
    r"(?P<kw>class|struct|interface|enum|record|object|trait|impl|namespace|module|mod|"
    r"extension|protocol|union|actor)(?=\s|<)(?P<rest>[^{]*)"
)
_CONTAINER_HINT = re.compile(
    r"\b(?:class|struct|interface|enum|record|object|trait|impl|namespace|module|mod|"
    r"extension|protocol|union|actor|extern)\b"
)
_GO_TYPE = re.compile(r"^type\s+(?P<name>\w+)(?:\[[^\]]*\])?\s+(?P<kw>struct|interface)\b")
_EXTERN_C = re.compile(r'^extern\s*"C(?:\+\+)?"\s*\{')
_NAME_AFTER_KW = re.compile(r"\s*(?:class\s+|struct\s+)?(?P<name>[A-Za-z_$][\w$]*)")
_NS_NAME = re.compile(r"\s*(?P<name>[\w.:\\]+)")
_IMPL_FOR = re.compile(r"\bfor\s+(?P<path>[\w:]+)")
_IMPL_PATH = re.compile(r"\s*(?P<path>[\w:]+)")


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


def container_of(header: str, language: str) -> tuple[str, str]:
    """(keyword, name) when a declaration header opens a class-like body, else ("", "")."""
    if not _CONTAINER_HINT.search(header):
        return "", ""
    if language == "go":
        m = _GO_TYPE.match(header)
        return (m.group("kw"), m.group("name")) if m else ("", "")
    if _EXTERN_C.match(header):
        return "extern", ""
    m = _CONTAINER.match(_TEMPLATE_PREFIX.sub("", header))
    if m is None:
        return "", ""
    kw, rest = m.group("kw"), m.group("rest")
    if "=" in _drop_generics(rest).replace("=>", "").replace("==", ""):
        return "", ""  # `static struct ops x = {` initialises a variable
    if language in ("c", "cpp") and kw in ("struct", "union", "enum", "class") and "(" in rest:
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


def brace_spans(lm: LineMap, language: str, target_chars: int) -> list[Span]:
    """Top-level blocks of a brace-language file, with members for class-like blocks."""
    if lm.n == 0:
        return []
    return _spans_at(lm, language, 0, lm.n, 0, target_chars, 0)


def _spans_at(
    lm: LineMap, lang: str, lo: int, hi: int, depth: int, target_chars: int, level: int
) -> list[Span]:
    bounds = [lo, *lm.cuts(lo + 1, hi, depth), hi]
    kinds: list[str] = []
    opens: list[int] = []
    for k in range(len(bounds) - 1):
        kind, op = _classify(lm, lang, bounds[k], bounds[k + 1], depth)
        kinds.append(kind)
        opens.append(op)
    spans: list[Span] = []
    for g in group_units(lm, bounds, kinds, opens, target_chars):
        span = Span(g.start, g.end, g.kind)
        code_start = g.code_start if g.code_start >= 0 else g.start
        if g.kind == _DECL and g.open_line >= 0:
            span.header = _header_text(lm, code_start, g.open_line)
            span.container, span.cname = container_of(span.header, lang)
            if span.container and level < MAX_MEMBER_LEVEL:
                _attach_members(lm, lang, span, g, depth, target_chars, level)
        elif g.kind != "comment":
            # TS/JS: `export const f = (` / `= <` leave the arrow on later lines; the header
            # takes the statement's first lines so the binding is still seen as a function.
            last = g.end - 1 if lang in _UNION_LANGS else code_start
            span.header = _header_text(lm, code_start, last)
            if g.kind == _STMT:  # `data class Item(val id: Int)`, `struct node;`
                span.container, span.cname = container_of(span.header, lang)
        spans.append(span)
    return spans


def _attach_members(
    lm: LineMap, lang: str, span: Span, g: _Group, depth: int, target_chars: int, level: int
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
    members = _spans_at(lm, lang, body_start, close, inner, target_chars, level + 1)
    if members:
        span.members = members
        span.body_start, span.body_end = body_start, close
