"""Code splitter: cut a source file into chunks that never break a class or a function.

Structure comes from ``python_splitter`` (stdlib ``ast``) or ``brace_scanner`` (a lexer for
brace languages); this module turns those blocks into ``Chunk`` objects: it splits an oversized
class per member (or every class, in ``symbol`` mode, so a code index can return one method),
packs small neighbours up to the token target, and labels each chunk with tags and a title.

Invariant: ``"".join(c.text for c in split_code(text, ...)) == text`` for every input. Context
such as the enclosing class header travels in ``extra["context"]``, never inside ``text``.

About 600 lines, one job: the language table and the split entry point every language goes
through (the brace languages' lexing and grouping live in brace_lexer/brace_blocks).
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from itertools import accumulate

from ihmt.errors import InputError
from ihmt.ingest.chunk import Chunk
from ihmt.ingest.chunkers.brace_scanner import BraceScanner, Span, brace_spans, line_starts
from ihmt.ingest.chunkers.python_splitter import python_spans
from ihmt.text.tokens import CHARS_PER_TOKEN, estimate_tokens

from ... import re_cache

__all__ = ["LANGUAGE_BY_EXTENSION", "LANGUAGES", "normalize_language", "split_code"]

_log = logging.getLogger(__name__)

LANGUAGES = (
    "python",
    "java",
    "javascript",
    "typescript",
    "c",
    "cpp",
    "csharp",
    "go",
    "rust",
    "kotlin",
    "swift",
    "php",
)

LANGUAGE_BY_EXTENSION: dict[str, str] = {
    ".py": "python",
    ".java": "java",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".cs": "csharp",
    ".go": "go",
    ".rs": "rust",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".php": "php",
}

_ALIASES = {
    "py": "python",
    "js": "javascript",
    "jsx": "javascript",
    "node": "javascript",
    "ts": "typescript",
    "tsx": "typescript",
    "c++": "cpp",
    "cxx": "cpp",
    "cc": "cpp",
    "c#": "csharp",
    "cs": "csharp",
    "golang": "go",
    "rs": "rust",
    "kt": "kotlin",
}

_MODES = ("pack", "symbol")
_CLASS_KINDS = frozenset(
    "class struct interface enum record object trait impl extension protocol union actor".split()
)


def normalize_language(language: str) -> str:
    """Canonical language name (``"TS"`` -> ``"typescript"``); unknown names pass through."""
    name = (language or "").strip().lower().lstrip(".")
    return _ALIASES.get(name, name)


def split_code(
    text: str,
    *,
    language: str,
    target_tokens: int = 2000,
    max_tokens: int = 3000,
    mode: str = "pack",
) -> list[Chunk]:
    """Split source code into chunks whose concatenation is exactly ``text``.

    ``mode="pack"`` packs consecutive small blocks up to ``target_tokens`` and splits a class
    per member only when it exceeds ``max_tokens`` (then each method is its own chunk, fields
    and comments pack); ``mode="symbol"`` gives one chunk per function and splits every class
    per member. A block that cannot be split further is kept whole and flagged ``oversized``.
    Unknown languages are treated as generic brace languages. Odd input (syntax errors,
    unbalanced braces, binary noise) never raises; bad ``mode`` or budgets raise InputError.
    """
    if mode not in _MODES:
        raise InputError(f"unknown code chunk mode {mode!r}: use 'pack' or 'symbol'")
    if target_tokens < 1 or max_tokens < 1:
        raise InputError("token budgets must be positive")
    if not text:
        return []
    lang = normalize_language(language) or "generic"
    target = min(target_tokens, max_tokens)
    try:
        return _Assembler(text, lang, target, max_tokens, mode).run()
    except Exception:  # the contract is "never raises"; keep the file, lose only structure
        _log.warning("code splitter fell back to line windows (%s)", lang, exc_info=True)
        return _line_windows(text, lang, target, max_tokens)


# --------------------------------------------------------------------------- naming

_ANNOTATIONS = re_cache.compile(
    r"^(?:(?:@[\w.]+(?:\([^()]*(?:\([^()]*\)[^()]*)*\))?|\[[^\]]*\])\s*)+"
)
_NOT_NAMES = frozenset(
    "if for while switch catch return sizeof new throw else do try using lock fixed foreach "
    "synchronized when typeof function super this assert await yield defer go match loop "
    "with delete case in of void static_assert decltype alignof typeid".split()
)
_C_SIGNATURE = re_cache.compile(
    r"^(?P<pre>[^=;(){}\"'`]*?)(?<![\w$~])"
    r"(?P<name>~?[A-Za-z_$][\w$]*(?:\s*::\s*~?[A-Za-z_$][\w$]*)*)\s*(?:<[^(){};=]*>)?\s*\("
)
_JS_FUNCTION = re_cache.compile(
    r"(?:^|[\s(=:,!])function\s*\*?\s*(?P<name>[A-Za-z_$][\w$]*)\s*[(<]"
)
_JS_BINDING = re_cache.compile(  # `const f = async <T>(a: (x: T) => void): R =>` (one paren level)
    r"^(?:export\s+)?(?:declare\s+)?(?:const|let|var)\s+(?P<name>[A-Za-z_$][\w$]*)\s*"
    r"(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|(?:<[^()]*?>\s*)?"
    r"(?:\((?:[^()]|\([^()]*\))*\)|[A-Za-z_$][\w$]*)\s*(?::[^=]*?)?=>)"
)
_JS_FIELD_ARROW = re_cache.compile(
    r"^(?:(?:public|private|protected|static|readonly|override|declare)\s+)*"
    r"(?P<name>#?[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?"
    r"(?:function\b|(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*(?::[^=]*?)?=>)"
)
# A class field set by a call that spans lines, `private getIndexes = memo(() => [...], ...)`,
# or by an arrow function whose parameters do (`private scroll = (` ... `) => {`).
# Such a field holds behaviour (a memoized function, a debounced handler), so it is a member
# of its own; a one-line field (`count = useCount()`) packs with the other fields.
_JS_FIELD_CALL = re_cache.compile(
    r"^(?:(?:public|private|protected|static|readonly|override|declare)\s+)*"
    r"(?P<name>#?[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*"
    r"(?:(?!new\b)[A-Za-z_$][\w$.]*\s*(?:<[^()]*>)?\s*)?\("
)
_JS_METHOD = re_cache.compile(
    r"^(?:(?:public|private|protected|static|async|readonly|override|abstract|get|set|declare)"
    r"\s+)*\*?\s*(?P<name>#?[A-Za-z_$][\w$]*)\s*\??\s*[<(]"  # `<`: generics, maybe nested
)
_FUNC_BY_LANG: dict[str, tuple[re.Pattern[str], ...]] = {
    "go": (
        re_cache.compile(
            r"^func\s+(?:\(\s*(?:\w+\s+)?\*?\s*(?P<owner>[A-Za-z_]\w*)[^)]*\)\s*)?"
            r"(?P<name>[A-Za-z_]\w*)\s*[\[(]"
        ),
    ),
    "rust": (re_cache.compile(r"(?:^|\s)fn\s+(?P<name>[A-Za-z_]\w*)"),),
    "kotlin": (
        re_cache.compile(
            r"(?:^|\s)fun\s+(?:<[^>]*>\s*)?(?:[\w.<>?]+\.)?(?P<name>[A-Za-z_]\w*|`[^`]+`)\s*\("
        ),
    ),
    "swift": (
        re_cache.compile(r"(?:^|\s)func\s+(?P<name>[A-Za-z_]\w*|[^\s(<]+)"),
        re_cache.compile(
            r"^(?:(?:public|private|internal|fileprivate|open|override|required|convenience)"
            r"\s+)*(?P<name>init|deinit)\b"
        ),
    ),
    "php": (re_cache.compile(r"(?:^|\s)function\s+&?\s*(?P<name>[A-Za-z_]\w*)\s*\("),),
}


def _function_name(span: Span, lang: str, in_class: bool) -> tuple[str | None, str | None]:
    """(function name, owner type) of a block from its header; owner for Go receivers, C++ A::b."""
    if span.func is not None or lang == "python":
        return span.func, None
    if span.container or span.kind not in ("decl", "stmt") or not span.header:
        return None, None
    header = span.header
    if header[0] in "@[":
        header = _ANNOTATIONS.sub("", header)
    patterns = _FUNC_BY_LANG.get(lang)
    if patterns is not None:
        for pattern in patterns:
            m = pattern.search(header)
            if m:
                owner = m.groupdict().get("owner")
                return m.group("name"), owner
        return None, None
    if lang in ("javascript", "typescript"):
        for pattern in (_JS_FUNCTION, _JS_BINDING) + (
            (_JS_FIELD_ARROW, _JS_METHOD) if in_class else ()
        ):
            m = pattern.search(header)
            if m and m.group("name") not in _NOT_NAMES:
                return m.group("name"), None
        if in_class and span.end - span.start > 1:
            m = _JS_FIELD_CALL.search(header)
            if m and m.group("name") not in _NOT_NAMES:
                return m.group("name"), None
        return None, None
    m = _C_SIGNATURE.match(header)
    if m is None:
        return None, None
    pre, name = m.group("pre"), m.group("name")
    if " " in name or "\t" in name:
        name = "".join(name.split())
    owner = None
    if "::" in name:
        owner, _, name = name.rpartition("::")
        owner = owner.rpartition("::")[2] or None
    if name in _NOT_NAMES or pre.rstrip().endswith(("new", "return", "throw", "else", "case")):
        return None, None
    if not pre.strip() and owner is None and not in_class:
        return None, None  # `FOO(x);` at file level is a call, not a definition
    return name, owner


# Declarations that are no function and no class body: Go ``type X int``, ``var (...)``,
# ``const X = 1``; TypeScript ``type X<T> = ...``, ``export const X = ...``. Types are tagged
# ``class:`` (so a Go method's owner is a symbol of the map); values ``const:`` / ``var:``.
_GO_DECL = re_cache.compile(r"^(?P<kw>type|var|const)\s*(?:(?P<group>\()|(?P<name>[A-Za-z_]\w*))")
_TS_TYPE_ALIAS = re_cache.compile(
    r"^(?:export\s+)?(?:declare\s+)?type\s+(?P<name>[A-Za-z_$][\w$]*)\s*(?:[<=]|$)"
)
_JS_VALUE = re_cache.compile(
    r"^(?:export\s+)?(?:declare\s+)?(?P<kw>const|let|var)\s+(?P<name>[A-Za-z_$][\w$]*)"
    r"\s*(?:[:=;!]|$)"
)
_GROUP_ENTRY = re_cache.compile(r"[ \t]*(?P<name>[A-Za-z_]\w*)")
_GO_GROUP_OPEN = re_cache.compile(r"^[ \t]*(?:type|var|const)[ \t]*\(", re.MULTILINE)
_DECL_TAG = {"type": "class", "const": "const", "var": "var", "let": "var"}


def _declaration(span: Span, lang: str, text: str, lo: int, hi: int) -> tuple[str, str] | None:
    """(tag kind, name) of a top-level type or value declaration, None for anything else.

    ``text[lo:hi]`` is the span; a Go ``var (`` / ``const (`` / ``type (`` group is named
    after its first declared name (blank ``_`` entries skipped).
    """
    header = span.header
    if span.container or span.kind not in ("decl", "stmt") or not header:
        return None
    if lang == "go":
        m = _GO_DECL.match(header)
        if m is None:
            return None
        kind = _DECL_TAG[m.group("kw")]
        name = _first_group_name(text, lo, hi) if m.group("group") else m.group("name")
        return (kind, name) if name and name != "_" else None
    if lang not in ("typescript", "javascript"):
        return None
    m = _TS_TYPE_ALIAS.match(header) if lang == "typescript" else None
    if m is not None:
        return "class", m.group("name")
    m = _JS_VALUE.match(header)
    return (_DECL_TAG[m.group("kw")], m.group("name")) if m else None


def _first_group_name(text: str, lo: int, hi: int) -> str | None:
    """First name declared in a Go ``var (`` group: the first code line inside the parentheses
    that starts with a name other than ``_``, at the indentation of the first entry."""
    opener = _GO_GROUP_OPEN.search(text, lo, hi)
    if opener is None:
        return None
    body = text[opener.end() : hi]
    indent = None
    in_comment = False
    for line in body.splitlines():
        stripped = line.strip()
        if in_comment:
            in_comment = "*/" not in stripped
            continue
        if not stripped or stripped.startswith("//"):
            continue
        if stripped.startswith("/*"):
            in_comment = "*/" not in stripped
            continue
        m = _GROUP_ENTRY.match(line)
        if m is None:
            if stripped.startswith(")"):
                return None
            continue
        width = len(line) - len(line.lstrip())
        if indent is None:
            indent = width
        if width == indent and m.group("name") != "_":
            return m.group("name")
    return None


def _merge_overloads(spans: list[Span], lang: str, in_class: bool) -> list[Span]:
    """TypeScript overloads: bodiless signatures join the implementation that follows them.

    ``function f(a: string): string`` / ``function f(a: any) { ... }`` is one symbol, so it
    becomes one span starting at the first signature (its doc comment included), named and
    headed by the implementation. Signatures that no same-named body follows (interfaces,
    ``declare``, abstract methods) stay as they are.
    """
    if lang != "typescript" or len(spans) < 2:
        return spans
    out: list[Span] = []
    run: list[Span] = []  # consecutive signatures of one name, waiting for their body
    run_name = None
    for span in spans:
        name = _function_name(span, lang, in_class)[0] if not span.container else None
        if name and span.kind == "stmt" and not span.members:
            if run and name != run_name:
                out.extend(run)
                run = []
            run.append(span)
            run_name = name
            continue
        if run and name == run_name and span.kind == "decl":
            out.append(replace(span, start=run[0].start))
        else:
            out.extend(run)
            out.append(span)
        run = []
    out.extend(run)
    return out


# --------------------------------------------------------------------------- assembly


@dataclass
class _Piece:
    """Lines [start, end) that go into exactly one chunk."""

    start: int
    end: int
    tags: list[str]
    title: str | None
    context: str | None
    symbol: bool  # stands alone in symbol mode (function, method, class header, imports)
    group: int  # pieces are packed together only within one group
    attach: bool = False  # a closing-brace line: always joins the chunk before it
    tokens: int = 0


@dataclass
class _Assembler:
    text: str
    lang: str
    target: int
    max_tokens: int
    mode: str
    edges: list[int] = field(default_factory=list)  # line i is text[edges[i] : edges[i + 1]]
    groups: int = 0

    def run(self) -> list[Chunk]:
        pieces: list[_Piece] = []
        for span in _merge_overloads(self._spans(), self.lang, in_class=False):
            self._emit(span, pieces, owner=None, context=None, group=0)
        self._blank_lines_stay_behind(pieces)
        return self._pack(pieces)

    def _blank_lines_stay_behind(self, pieces: list[_Piece]) -> None:
        """Blank lines that open a piece go to the piece before it, so a member's range begins
        at its first line of code or comment, not at the blank line after ``class A {`` (the
        file still tiles: only the boundary moves)."""
        text, edges = self.text, self.edges
        for prev, piece in zip(pieces, pieces[1:], strict=False):
            if prev.end != piece.start:
                continue
            k = piece.start
            while k < piece.end and not text[edges[k] : edges[k + 1]].strip():
                k += 1
            if piece.start < k < piece.end:
                prev.end = piece.start = k
                prev.tokens = piece.tokens = 0

    def _spans(self) -> list[Span]:
        target_chars = self.target * CHARS_PER_TOKEN
        if self.lang == "python":
            starts = line_starts(self.text)
            spans = python_spans(self.text, starts, target_chars)
        else:
            scan_lang = self.lang if self.lang in LANGUAGES else "generic"
            lm = BraceScanner(self.text, scan_lang).scan()
            starts = lm.starts
            spans = brace_spans(lm, scan_lang, target_chars)
        self.edges = [*starts, len(self.text)]
        return spans

    def _tokens(self, lo: int, hi: int) -> int:
        return estimate_tokens(self.text[self.edges[lo] : self.edges[hi]])

    # Pieces ---------------------------------------------------------------------------

    def _emit(
        self, span: Span, out: list[_Piece], owner: str | None, context: str | None, group: int
    ) -> None:
        if span.start >= span.end:
            return
        tokens = self._tokens(span.start, span.end)
        split = span.members is not None and (self.mode == "symbol" or tokens > self.max_tokens)
        if not split:
            out.append(self._whole(span, owner, context, group, tokens))
            return
        self.groups += 1
        gid = self.groups
        is_class = span.container in _CLASS_KINDS
        inner_owner = (span.cname or owner) if is_class else owner
        ctx = span.header or context
        class_tags = [f"class:{span.cname}"] if is_class and span.cname else []
        if owner and (not is_class or owner != span.cname):
            class_tags.append(f"class:{owner}")
        title = _join_title(owner, span.cname) if span.cname else None
        out.append(_Piece(span.start, span.body_start, list(class_tags), title, ctx, True, gid))
        for member in _merge_overloads(span.members or [], self.lang, inner_owner is not None):
            self._emit(member, out, inner_owner, ctx, gid)
        if span.body_end < span.end:
            out.append(
                _Piece(span.body_end, span.end, list(class_tags), None, ctx, False, gid, True)
            )

    def _whole(
        self, span: Span, owner: str | None, context: str | None, group: int, tokens: int
    ) -> _Piece:
        name, fowner = _function_name(span, self.lang, owner is not None)
        decl = None
        if not name and owner is None:
            lo, hi = self.edges[span.start], self.edges[span.end]
            decl = _declaration(span, self.lang, self.text, lo, hi)
        tags = self._tags_of(span, owner, name, fowner)
        if decl:  # a type alias, a non-struct type, a const or var: no behaviour of its own
            tags += [f"{decl[0]}:{decl[1]}", "declaration"]
        if span.members:
            self._member_tags(span, owner, tags)
        if owner:
            tags.append(f"class:{owner}")
        if span.kind == "imports":
            title: str | None = "imports"
        elif span.cname and span.container in _CLASS_KINDS:
            title = _join_title(owner, span.cname)
        elif name:
            title = _join_title(fowner or owner, name)
        elif decl:
            title = decl[1]
        else:
            title = None
        symbol = span.kind in ("decl", "imports") or bool(name or span.cname or decl)
        return _Piece(span.start, span.end, tags, title, context, symbol, group, tokens=tokens)

    @staticmethod
    def _tags_of(span: Span, owner: str | None, name: str | None, fowner: str | None) -> list[str]:
        """method: / function: / class: / imports tags of one span (not its members)."""
        tags = []
        if span.cname and span.container in _CLASS_KINDS:
            tags.append(f"class:{span.cname}")
        if name:
            if owner is not None or fowner:
                tags.append(f"method:{name}")
                if fowner:
                    tags.append(f"class:{fowner}")
            else:
                tags.append(f"function:{name}")
        if span.kind == "imports":
            tags.append("imports")
        return tags

    def _member_tags(self, span: Span, owner: str | None, tags: list[str]) -> None:
        """Tags of everything inside a container kept whole (iterative, nesting is bounded)."""
        todo = [(span, owner)]
        while todo:
            sp, own = todo.pop(0)
            inner = (sp.cname or own or "") if sp.container in _CLASS_KINDS else own
            for member in sp.members or ():
                name, fowner = _function_name(member, self.lang, inner is not None)
                tags.extend(self._tags_of(member, inner, name, fowner))
                if member.members:
                    todo.append((member, inner))

    # Packing --------------------------------------------------------------------------

    def _pack(self, pieces: list[_Piece]) -> list[Chunk]:
        batches: list[list[_Piece]] = []
        size = 0
        closed = True  # the current batch takes no more pieces (oversized or a lone symbol)
        for piece in pieces:
            tokens = piece.tokens or self._tokens(piece.start, piece.end)
            if piece.attach and batches:
                batches[-1].append(piece)
                size += tokens
                continue
            over = tokens > self.max_tokens
            fits = (
                batches
                and not closed
                and not over
                and piece.group == batches[-1][-1].group
                and size + tokens <= self.target
            )
            # Inside a split class every method stands alone (one member, one chunk); only
            # fields and comments pack. At file level that is the rule of symbol mode.
            alone = piece.symbol and (self.mode == "symbol" or piece.group != 0)
            if fits and alone:
                fits = False
            if fits:
                batches[-1].append(piece)
                size += tokens
            else:
                batches.append([piece])
                size = tokens
                closed = over or alone
        return self._chunks(batches)

    def _chunks(self, batches: list[list[_Piece]]) -> list[Chunk]:
        sl_starts = _splitlines_starts(self.text)
        chunks = []
        for batch in batches:
            a, b = self.edges[batch[0].start], self.edges[batch[-1].end]
            if a >= b:
                continue
            body = self.text[a:b]
            tags: list[str] = []
            titles: list[str] = []
            context = None
            for piece in batch:
                tags.extend(piece.tags)
                if piece.title and piece.title not in titles:
                    titles.append(piece.title)
                context = context or piece.context
            title = ", ".join(titles[:3]) + (", ..." if len(titles) > 3 else "") if titles else None
            chunks.append(
                Chunk(
                    text=body,
                    start_line=bisect_right(sl_starts, a),
                    end_line=bisect_right(sl_starts, b - 1),
                    tags=_ordered_tags(tags, self.lang),
                    extra={"context": context} if context else {},
                    oversized=estimate_tokens(body) > self.max_tokens,
                    title=title,
                )
            )
        return chunks


def _join_title(owner: str | None, name: str) -> str:
    return f"{owner}.{name}" if owner else name


_SYMBOL_TAGS = ("method:", "function:", "class:", "const:", "var:")


def _ordered_tags(tags: list[str], lang: str) -> list[str]:
    """Unique tags, symbols first, then ``lang:`` and ``type:code`` (as stored in leaves)."""
    unique = list(dict.fromkeys(tags))
    ordered = [t for t in unique if t.startswith("method:")]
    ordered += [t for t in unique if t.startswith("function:")]
    ordered += [t for t in unique if t.startswith("class:")]
    ordered += [t for t in unique if t.startswith(("const:", "var:"))]
    ordered += [t for t in unique if not t.startswith(_SYMBOL_TAGS)]
    return [*ordered, f"lang:{lang}", "type:code"]


def _splitlines_starts(text: str) -> list[int]:
    """Offsets of the lines ``str.splitlines`` sees, so spans match ``splitlines()`` indexing."""
    return [0, *accumulate(map(len, text.splitlines(True)))][:-1] if text else []


def _line_windows(text: str, lang: str, target: int, max_tokens: int) -> list[Chunk]:
    """Last resort: consecutive whole lines up to the target, no structure."""
    sl_starts = _splitlines_starts(text)
    limit = max(1, target * CHARS_PER_TOKEN)
    chunks: list[Chunk] = []
    a = 0
    for k, start in enumerate(sl_starts[1:] + [len(text)], start=1):
        if start - a >= limit or start == len(text):
            body = text[a:start]
            chunks.append(
                Chunk(
                    text=body,
                    start_line=bisect_right(sl_starts, a),
                    end_line=k,
                    tags=[f"lang:{lang}", "type:code"],
                    oversized=estimate_tokens(body) > max_tokens,
                )
            )
            a = start
    return chunks
