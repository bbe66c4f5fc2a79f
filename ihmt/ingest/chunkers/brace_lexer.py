"""The brace lexer: per-line nesting depth and safe cut points of a brace-language file.

A code splitter may only cut at a line start that lies outside every comment and literal and
at the nesting depth it is splitting at. ``BraceScanner`` lexes just enough of each language to
know that (comments, strings, char literals, text blocks, raw strings, template literals with
nested ``${}``, preprocessor lines, PHP's inline HTML) in one forward, iterative pass; the
result is a ``LineMap``. What differs between languages is data in ``brace_languages``; this
module reads those tables and never tests a language's name.

Lexing is regex-driven (``re.search`` jumps over ordinary characters), so a 1 MB file scans in
a fraction of a second, and no step recurses on brace depth.

About 600 lines, one job: the lexer state machine; the per-language rules are data in
brace_languages and the grouping into spans is brace_blocks.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from functools import cache
from itertools import accumulate
from operator import add

from ihmt.ingest.chunkers.brace_languages import (
    CS_INTERP,
    CS_INTERP_VERBATIM,
    JS_TEMPLATE,
    LanguageRules,
    rules_for,
)

from ... import re_cache

__all__ = ["BraceScanner", "LineMap", "line_starts"]

_PP_STACK_LIMIT = 64  # #if/#else depth repair only for sane nesting (it copies the stack)

_NEWLINE = re_cache.compile(r"\r\n|\r|\n")
_EOL = re_cache.compile(r"[\r\n]")
_EOL_PHP = re_cache.compile(r"[\r\n]|\?>")
_PP_BODY = re_cache.compile(r"(?:[^\r\n\\]|\\(?:\r\n|[\s\S]))*")
_PP_NAME = re_cache.compile(r"[ \t]*#[ \t]*([A-Za-z]+)")
_NESTED_COMMENT = re_cache.compile(r"/\*|\*/")
_CHAR_LITERAL = re_cache.compile(r"'(?:\\[^\r\n][^'\\\r\n]{0,9}|[^'\\\r\n])'")
_JS_REGEX = re_cache.compile(
    r"/(?![*/])(?:[^/\\\[\r\n]|\\[^\r\n]|\[(?:[^\]\\\r\n]|\\[^\r\n])*\])+/[A-Za-z]*"
)
_JS_REGEX_KEYWORDS = frozenset(
    "return typeof case do else in of void throw new delete yield await instanceof".split()
)
_JS_REGEX_AFTER = frozenset("(,=:[!&|?{};+-*%~^")
_PHP_OPEN = re_cache.compile(r"<\?(?:php\b|=)?")
_PHP_HEREDOC = re_cache.compile(r"<<<[ \t]*([\"']?)([A-Za-z_\x80-\uffff][\w\x80-\uffff]*)\1")


def _body(quote: str, multiline: bool) -> re.Pattern[str]:
    """Rest of a quoted literal with backslash escapes (unrolled loop: linear, no backtracking).

    A single-line literal that meets a bare newline stops before it (error recovery), so a
    stray quote cannot swallow the rest of the file.
    """
    q = re.escape(quote)
    stop = f"{q}\\\\" if multiline else f"{q}\\\\\\r\\n"
    return re_cache.compile(f"[^{stop}]*(?:\\\\(?:\\r\\n|[\\s\\S])[^{stop}]*)*{q}?")


_DQ_LINE = _body('"', False)
_DQ_MULTI = _body('"', True)
_SQ_LINE = _body("'", False)
_SQ_MULTI = _body("'", True)
_BACKTICK_LINE = re_cache.compile(r"[^`\r\n]*`?")
_VERBATIM = re_cache.compile(r'[^"]*(?:""[^"]*)*"?')  # C# @"..." : "" is the only escape


def _triple(quote: str) -> re.Pattern[str]:
    """Rest of a triple-quoted literal with backslash escapes, or everything if unterminated."""
    q = quote[0]
    # an unterminated literal may end in a lone backslash (nothing left for it to escape)
    return re_cache.compile(
        f"[^{q}\\\\]*(?:(?:\\\\[\\s\\S]|{q}(?!{q}{q}))[^{q}\\\\]*)*(?:{q}{q}{q}|\\\\?\\Z)"
    )


_TRIPLE_DQ = _triple('"')
_TRIPLE_SQ = _triple("'")


# TypeScript (prettier) breaks long generic parameter lists over lines: `method<\n  T,\n>(`.
# Without semicolons to say a statement goes on, a '<' that ends a line right after a name
# opens a bracket level there, so the parameter lines are no cut points. (Semicolon
# languages such as Rust already join an unterminated line to the next.)
_ANGLE_AT_EOL = re_cache.compile(r"[ \t]*(?://[^\r\n]*)?(?:\r\n|\r|\n)")
_CPP_DELIM = re_cache.compile(r'([^()\\\s"]{0,16})\(')


@cache
def _prefilter(rules: LanguageRules) -> re.Pattern[str]:
    """Characters that can change lexer state or depth in one language.

    A plain character class lets ``re`` skip ordinary text at C speed; prefixes such as
    ``r#"`` or ``@"`` are recognised by looking back from the quote.
    """
    alternatives = [f"[{rules.prefilter_chars}]"]
    if rules.heredoc:
        alternatives.append("<<<")
    if rules.inline_html:
        alternatives.append(r"\?>")
    return re_cache.compile("|".join(alternatives))


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
    Where the table says ``multiline_generics`` (TypeScript), a generic list opened by
    ``name<`` (or ``= <``) at the end of a line counts too, up to its matching '>' (``=>``
    and ``->`` are no closers); a ')', ']' or '}' also ends any such list still open above
    its own opener.
    """

    def __init__(self, text: str, language: str | LanguageRules) -> None:
        self.text = text
        self.rules = rules_for(language)
        self.language = self.rules.name  # a language without a table is lexed as "generic"
        self._no_regex_before = 0  # regex literals: none can start before this offset

    def scan(self) -> LineMap:  # noqa: C901 - one state machine reads best in one place
        text, rules = self.text, self.rules
        n = len(text)
        starts = line_starts(text)
        nlines = len(starts)
        depth_at = [0] * nlines
        safe_at = [True] * nlines
        open_pos: list[int] = []
        open_depth: list[int] = []
        open_line: list[int] = []
        search = _prefilter(rules).search
        token = self._token
        pp_lang = rules.preprocessor
        angles = rules.multiline_generics
        stack: list[str] = []  # code-level openers
        braces = 0  # how many '{' are on the stack
        frames: list[list] = []  # string / hole frames inside a literal that embeds code
        pp_stack: list[list] = []
        pp_unsafe = 0  # inside a non-first #else branch after an unbalanced first branch
        li = 0  # next line whose start is not yet recorded
        pos = 0
        html = rules.inline_html and ("<?php" in text or "<?=" in text)

        def fill(limit: int, safe: bool) -> None:
            nonlocal li
            d = len(stack)
            while li < nlines and starts[li] < limit:
                depth_at[li] = d
                safe_at[li] = safe
                li += 1

        while pos < n:
            if html:  # text outside <?php ... ?> is inert markup
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
        return not self.rules.directive_needs_letter or text[t + 1 : t + 2].isalpha()

    def _token(self, t: int, c: str, m: re.Match[str], frames: list[list]) -> int:
        """Consume a comment or literal starting at ``t``; return the new position."""
        text, rules = self.text, self.rules
        n = len(text)
        if c == "/":
            nxt = text[t + 1 : t + 2]
            if nxt == "/":
                e = (_EOL_PHP if rules.inline_html else _EOL).search(text, t + 2)
                return e.start() if e else n
            if nxt == "*":
                return self._block_comment_end(t + 2)
            if rules.regex_literals and t >= self._no_regex_before:
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
            if rules.char_literals:
                ch = _CHAR_LITERAL.match(text, t)
                return ch.end() if ch else t + 1
            if "'" in rules.triple_quotes and text.startswith("'''", t):
                return _TRIPLE_SQ.match(text, t + 3).end()
            if rules.single_quote_strings:
                return (_SQ_MULTI if rules.multiline_strings else _SQ_LINE).match(text, t + 1).end()
            return t + 1
        if c == "`":
            if rules.backtick == "template":
                frames.append(["str", JS_TEMPLATE])
                return t + 1
            if rules.backtick == "raw":
                e = text.find("`", t + 1)
                return n if e < 0 else e + 1
            return _BACKTICK_LINE.match(text, t + 1).end()
        if c == "#":
            if rules.hash_comments and not (rules.hash_attributes and text.startswith("#[", t)):
                e = (_EOL_PHP if rules.inline_html else _EOL).search(text, t + 1)
                return e.start() if e else n
            if rules.hash_raw_strings:
                return self._swift_raw(t)
            return t + 1
        if c == "<" and rules.heredoc:
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
        text, rules = self.text, self.rules
        if rules.quote_routine:  # prefixed forms: raw, verbatim, interpolated
            end = getattr(self, _QUOTE_ROUTINES[rules.quote_routine])(t, frames)
            if end >= 0:
                return end
        triple = text.startswith('"""', t)
        if rules.string_holes is not None:
            frames.append(["str", rules.string_holes[1] if triple else rules.string_holes[0]])
            return t + (3 if triple else 1)
        if triple and '"' in rules.triple_quotes:
            return _TRIPLE_DQ.match(text, t + 3).end()
        return (_DQ_MULTI if rules.multiline_strings else _DQ_LINE).match(text, t + 1).end()

    def _rust_raw(self, t: int, frames: list[list]) -> int:
        """Rust ``r"..."`` / ``r#"..."#`` (also ``br``): ends at the quote and as many '#'."""
        text = self.text
        j = t - 1
        while j >= 0 and text[j] == "#":
            j -= 1
        hashes = t - 1 - j
        if j >= 0 and text[j] == "r" and not _word_before(text, j, "b"):
            closing = '"' + "#" * hashes
            e = text.find(closing, t + 1)
            return len(text) if e < 0 else e + len(closing)
        return -1

    def _cpp_raw(self, t: int, frames: list[list]) -> int:
        """C++ ``R"delim(...)delim"`` (also after u8 / u / U / L); -1 for any other quote."""
        text = self.text
        if t > 0 and text[t - 1] == "R" and _cpp_raw_prefix(text, t - 1):
            d = _CPP_DELIM.match(text, t + 1)
            if d is not None:
                closing = ")" + d.group(1) + '"'
                e = text.find(closing, d.end())
                return len(text) if e < 0 else e + len(closing)
        return -1

    def _csharp_string(self, t: int, frames: list[list]) -> int:
        """C# strings: verbatim ``@"..."``, interpolated ``$"..{x}.."``, raw (3+ quotes)."""
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
                frames.append(["str", CS_INTERP_VERBATIM])
                return t + 1
            return _VERBATIM.match(text, t + 1).end()
        if quotes >= 3:  # raw string literal: ends at the same run of quotes
            e = text.find('"' * quotes, k)
            return n if e < 0 else e + quotes
        if quotes == 2:
            return t + 2
        if "$" in prefix:
            frames.append(["str", CS_INTERP])
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
        # the terminator is the file's own text: compiled here, never kept in ihmt.re_cache
        terminator = re.compile(rf"^[ \t]*{re.escape(h.group(2))}\b", re.M)  # noqa: TID251
        end = terminator.search(text, h.end())
        return end.end() if end else len(text)

    def _block_comment_end(self, p: int) -> int:
        text = self.text
        if not self.rules.nested_block_comments:
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
        """A '/' starts a regex literal after an operator or keyword, not after a value."""
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


# The routines a table's ``quote_routine`` names (brace_languages.QUOTE_ROUTINES).
_QUOTE_ROUTINES = {
    "rust_raw": "_rust_raw",
    "cpp_raw": "_cpp_raw",
    "csharp_strings": "_csharp_string",
}
