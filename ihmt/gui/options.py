"""The GUI's start-up options, defined once for both entry points: ``gui.py`` / ``ihmt-gui``
(ihmt.gui.server's parser) and ``ihmt gui`` (the CLI). Standard library only and cheap to
import, so the CLI can build its parser without loading the HTTP server."""

from __future__ import annotations

import argparse

DEFAULT_PORT = 8765
MAX_PORT = 65535


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free port) to 65535; anything else is a usage
    error naming the option, never an OverflowError from bind()."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if not 0 <= value <= MAX_PORT:
        raise argparse.ArgumentTypeError(f"must be between 0 and {MAX_PORT}, not {value}")
    return value


def add_gui_options(parser: argparse.ArgumentParser) -> None:
    """--port, --no-browser and --browse-root (the workspace option, --path, is each entry
    point's own: the CLI shares it with every command)."""
    parser.add_argument(
        "--port",
        type=port_number,
        default=None,
        help=f"port on 127.0.0.1 (default {DEFAULT_PORT}, or any free one if taken; 0 = any free)",
    )
    parser.add_argument(
        "--no-browser", action="store_true", help="only print the URL, do not open a browser"
    )
    parser.add_argument(
        "--browse-root",
        help="the folder browser in Set up stays inside this folder (default: your home)",
    )
