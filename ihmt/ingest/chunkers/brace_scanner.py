"""Where source code may be cut: the public door to the brace lexer and its block grouping.

A code splitter may only cut at a line start that lies outside every comment and literal and
at the nesting depth it is splitting at. The work is split by job:

- ``brace_languages``: one table of rules per language (comments, literal forms,
  preprocessor, imports, annotations), the only place that knows a language by name;
- ``brace_lexer``: ``BraceScanner`` lexes a file in one forward pass into a ``LineMap``
  (depth and safety of every line start);
- ``brace_blocks``: ``group_units`` and ``brace_spans`` turn the cut points into ``Span``
  blocks and, for class-like blocks, their members.

The chunk assembler and the Python splitter import from here.
"""

from __future__ import annotations

from ihmt.ingest.chunkers.brace_blocks import MAX_MEMBER_LEVEL, Span, brace_spans, group_units
from ihmt.ingest.chunkers.brace_lexer import BraceScanner, LineMap, line_starts

__all__ = [
    "MAX_MEMBER_LEVEL",
    "BraceScanner",
    "LineMap",
    "Span",
    "brace_spans",
    "group_units",
    "line_starts",
]
