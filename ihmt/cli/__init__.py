"""The `ihmt` command line (also `python3 main.py` and `python -m ihmt`).

One module per command group, each holding its commands' arguments and handlers together:
build (init, ingest, consolidate), search (search, ask), save (save, mark-outdated), overview
(tree, stats, facts, conflicts), maintenance (rebuild, check, quarantine, forget), share
(sync), codemap (map, find-code), gui, semantic, hooks and demo. They share output (say,
emit, the progress bar), context (the workspace, the memory opened through the facade) and
views (a search answer and the outline as text). app assembles the parser and runs a command.
Imports run one way: app -> command modules -> shared modules -> the library.
"""

from __future__ import annotations

from .app import EXIT_ERROR, EXIT_OK, EXIT_USAGE, build_parser, main

__all__ = ["EXIT_ERROR", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]
