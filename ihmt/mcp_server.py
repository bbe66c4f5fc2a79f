"""The stdio MCP server: IHMT's long-term memory and session tools for AI agents.

    python3 mcp_server.py            # from a clone; the store is $IHMT_HOME/ihmt_memory
    ihmt-mcp                         # the same, once the package is installed

A presenter, like the CLI, in four modules: this entry point (standard library only, so a
missing SDK, an optional extra, is reported in one line); ``mcp_session``, what one server
process owns; ``mcp_tools``, the tools as typed functions registered on the SDK's
``MCPServer``; ``mcp_wire``, which answers malformed protocol lines in front of it. Nothing
but the SDK writes to stdout.
"""

from __future__ import annotations

import logging
import os
import sys

from .text.clean import one_line

MISSING_SDK = "the MCP server needs the mcp package: pip install -r requirements-mcp.txt"


def main(argv: list[str] | None = None) -> None:
    """Run the stdio server until the client closes the connection."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help"):
        sys.stderr.write(
            "usage: mcp_server.py\n\nIHMT's stdio MCP server. An MCP client (Claude Code, Codex, "
            "opencode, ...) starts it; the store is $IHMT_HOME/ihmt_memory (default ~/.ihmt).\n"
        )
        raise SystemExit(0)
    level = getattr(logging, os.environ.get("IHMT_LOG_LEVEL", "").strip().upper(), None)
    logging.basicConfig(
        stream=sys.stderr,
        level=level if isinstance(level, int) else logging.WARNING,
        format="ihmt-mcp %(levelname)s %(name)s: %(message)s",
    )
    try:
        from .mcp_tools import serve
    except ImportError as exc:
        sys.stderr.write(_import_failure(exc) + "\n")
        raise SystemExit(1) from None
    from . import __version__

    if sys.stdin.isatty():
        sys.stderr.write("IHMT MCP server: waiting for an MCP client on stdin (Ctrl-C quits)\n")
    try:
        serve(__version__)
    except KeyboardInterrupt:
        pass


def _import_failure(exc: ImportError) -> str:
    """One line saying how to get a working SDK: missing, too old (1.x), or broken."""
    missing = exc.name or ""
    if missing == "mcp" or (missing.startswith("mcp.") and not _importable("mcp")):
        return MISSING_SDK
    if missing.startswith("mcp."):  # a 1.x SDK has no mcp.server.mcpserver
        return (
            "the installed mcp package is older than 2.3 (this server needs mcp>=2.3,<3): "
            "pip install --upgrade -r requirements-mcp.txt"
        )
    return (
        f"the installed mcp package failed to import ({one_line(str(exc))}); "
        "reinstall it: pip install --upgrade -r requirements-mcp.txt"
    )


def _importable(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


__all__ = ["MISSING_SDK", "main"]
