"""The `ihmt` command line (also `python3 main.py`): argparse over the IHMT facade.

Exit codes: 0 success, 1 a user-facing error (one line on stderr, never a traceback),
2 bad usage (argparse). ``--path`` and ``--json`` work before or after the subcommand.
Each command module registers its commands' arguments together with their handlers; this
module only assembles them (in the order ``--help`` lists them) and turns errors into one line.
"""

from __future__ import annotations

import argparse
import os
import sys

from .. import __version__
from ..errors import IHMTError
from . import (
    build,
    codemap,
    demo,
    gui,
    hooks,
    maintenance,
    overview,
    save,
    search,
    semantic,
    share,
)
from .context import Handler
from .output import say

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2

# the command groups, in the order `ihmt --help` lists their commands
COMMAND_MODULES = (
    build,  # init, ingest, consolidate
    search,  # search, ask
    save,  # save, mark-outdated
    overview,  # tree, stats, facts, conflicts
    maintenance,  # rebuild, check, quarantine, forget
    share,  # sync
    codemap,  # map, find-code
    gui,
    semantic,
    hooks,
    demo,
)


def _common(parser: argparse.ArgumentParser, suppress: bool) -> None:
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument(
        "--path",
        default=default,
        help="workspace folder (holds ihmt_memory/); default $IHMT_HOME or ~/.ihmt",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help="machine-readable JSON output",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ihmt", description="IHMT — Infinite Hierarchical Memory Tree"
    )
    parser.add_argument("--version", action="version", version=f"ihmt {__version__}")
    _common(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_text: str, handler: Handler) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        _common(p, suppress=True)
        p.set_defaults(handler=handler)
        return p

    for module in COMMAND_MODULES:
        module.register(add)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:2] == ["hooks", "run"]:  # the agent's per-event command: fast path, always exit 0
        return hooks.fast_run(argv[2:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return args.handler(args) or EXIT_OK
    except IHMTError as exc:
        say(f"ihmt: error: {exc}", err=True)
        return EXIT_ERROR
    except KeyboardInterrupt:
        say("ihmt: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:
        say(
            f"ihmt: error: {exc.strerror or exc}: {getattr(exc, 'filename', '') or ''}".rstrip(
                ": "
            ),
            err=True,
        )
        return EXIT_ERROR
    except Exception as exc:  # a bug: still one line for the user, details on request
        if os.environ.get("IHMT_DEBUG"):
            raise
        say(
            f"ihmt: internal error: {exc.__class__.__name__}: {exc} (set IHMT_DEBUG=1 for details)",
            err=True,
        )
        return EXIT_ERROR
