"""The `ihmt` command line (also `python3 main.py`): argparse over the IHMT facade.

Exit codes: 0 success, 1 a user-facing error (one line on stderr, never a traceback),
2 bad usage (argparse). ``--path`` and ``--json`` work before or after the subcommand.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import __version__
from .errors import IHMTError
from .text.terminal import json_safe, terminal_safe

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


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

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        _common(p, suppress=True)
        return p

    p = add("init", "create the store")
    p.add_argument("--branch-factor", type=int)
    p.add_argument("--target-tokens", type=int)
    p.add_argument("--max-tokens", type=int)
    p.add_argument("--backend", help="summarizer backend: heuristic, anthropic, openai, ollama")
    p.add_argument(
        "--force", action="store_true", help="discard derived state (never a leaf) and rebuild"
    )

    p = add("ingest", "ingest files, folders, or - for standard input")
    p.add_argument("paths", nargs="+")
    p.add_argument("--domain")
    p.add_argument("--type", dest="data_type")
    p.add_argument("--tag", action="append", default=[])
    p.add_argument("--no-consolidate", action="store_true")
    p.add_argument(
        "--allow-secrets", action="store_true", help="store credentials instead of redacting them"
    )

    p = add("consolidate", "run pending summarization events")
    p.add_argument("--force", action="store_true", help="also close every domain to a single top")

    p = add("search", "walk the tree")
    p.add_argument("query")
    p.add_argument("--top-k", type=int, default=5)
    p.add_argument("--full", action="store_true", help="ids, tree paths and excerpts")
    p.add_argument("--clue")
    p.add_argument(
        "--project",
        metavar="PROJECT",
        help="rank this project's memories and global ones first (a folder, . for here, "
        "a git remote URL, or a project name)",
    )
    p.add_argument(
        "--project-only",
        action="store_true",
        help="with --project: leave out other projects' memories",
    )

    p = add("ask", "search with the interactive clue loop")
    p.add_argument("query")
    p.add_argument("--clue")
    p.add_argument("--top-k", type=int, default=5)
    p.add_argument(
        "--project",
        metavar="PROJECT",
        help="rank this project's memories and global ones first (a folder, . for here, "
        "a git remote URL, or a project name)",
    )

    p = add("save", "save one memory (what the MCP tool save_memory does)")
    p.add_argument("text")
    p.add_argument("--replaces", default="")
    p.add_argument("--domain", default="general")
    p.add_argument("--type", dest="content_type", default="auto")
    p.add_argument("--allow-secrets", action="store_true")
    p.add_argument(
        "--project",
        metavar="PROJECT",
        help="file the memory under this project (a folder, . for here, a git remote URL or "
        "a name); default: global",
    )

    p = add("mark-outdated", "flag memory OLD as corrected by NEW")
    p.add_argument("old_id")
    p.add_argument("new_id")

    p = add("tree", "outline of the hierarchy")
    p.add_argument("--depth", type=int, default=3)

    add("stats", "counts, layers, disk use")
    p = add("facts", "the fact timeline")
    p.add_argument("--subject")
    p = add("conflicts", "what changed over time")
    p.add_argument("--subject")
    add("rebuild", "rebuild catalog, timeline and trunk from the leaf files")
    p = add("check", "verify the store")
    p.add_argument("--repair", action="store_true", help="fix what can be fixed from the leaves")
    p = add("quarantine", "files check/rebuild moved aside: list them, or restore one")
    p.add_argument("action", choices=["list", "restore"])
    p.add_argument("name", nargs="?", help="with restore: the file's name in quarantine/")
    p = add("forget", "remove memories for good (preview, then confirm)")
    p.add_argument("leaf_id", nargs="?", help="the id of one memory")
    p.add_argument("--source", help="every memory that came from this file or name")
    p.add_argument("--match", help="memories whose text contains this")
    p.add_argument("--session", help="every memory the agent hooks captured in this session")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")

    p = add("sync", "share the memory through git: commit, pull, merge, rebuild, push")
    p.add_argument("--remote", help="git remote URL or folder (stored as origin the first time)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--init", action="store_true", help="set up the repository, no network")
    mode.add_argument("--status", action="store_true", help="what is not pushed or not pulled")

    p = add("map", "compact map of a code project: files and their size in tokens")
    p.add_argument("project", metavar="PATH", help="the project's root folder")
    p.add_argument(
        "--symbols", action="store_true", help="also list classes and functions with line ranges"
    )
    p.add_argument("--subpath", default="", help="only this folder (or file) of the project")

    p = add("find-code", "the symbols of a code project that answer QUERY, as file:lines + code")
    p.add_argument("query")
    p.add_argument("--project", required=True, metavar="PATH", help="the project's root folder")
    p.add_argument(
        "--scope", choices=("main", "test", "all"), default="main", help="main skips tests"
    )
    p.add_argument("--subpath", default="", help="only this folder (or file) of the project")
    p.add_argument("--clue", help="extra words that pick between AMBIGUOUS candidates")
    p.add_argument("--max-tokens", type=int, default=1500, help="size cap of the answer")

    p = add("gui", "local web interface: set up, explore, diagnose, timeline")
    p.add_argument("--port", type=int, help="port on 127.0.0.1 (0 = any free port)")
    p.add_argument("--no-browser", action="store_true", help="print the URL, do not open it")
    p.add_argument(
        "--browse-root", help="the folder browser stays under this folder (default: home)"
    )

    p = add("semantic", "optional semantic search (finds paraphrases): enable, disable, status")
    p.add_argument("action", choices=["enable", "disable", "status"])
    p.add_argument("--drop", action="store_true", help="with disable: delete the vector sidecar")

    p = add(
        "hooks",
        "agent lifecycle hooks (optional): recall at session start and per prompt, capture "
        "before compaction and at session end",
    )
    p.add_argument("action", choices=["install", "uninstall", "status", "run"])
    p.add_argument("--agent", choices=["claude", "codex"], help="the agent whose hooks to edit")
    p.add_argument(
        "--scope",
        choices=["user", "project"],
        default="user",
        help="user settings (every project) or this project's settings",
    )

    p = add("demo", "end-to-end walkthrough in ./demo_workspace")
    p.add_argument("--workspace", default="demo_workspace")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:2] == ["hooks", "run"]:  # the agent's per-event command: fast path, always exit 0
        return _hook_run(argv[2:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    from . import commands

    handler = getattr(commands, "cmd_" + args.command.replace("-", "_"))
    try:
        return handler(args) or EXIT_OK
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


def _hook_run(argv: list[str]) -> int:
    """``hooks run --agent NAME [--path W]`` without building the whole parser; bad options
    are a one-line note, never a non-zero exit (the agent must not be disturbed)."""
    from .hooks.run import run

    agent, path = "claude", None
    items = iter(argv)
    for item in items:
        if item == "--agent":
            agent = next(items, agent)
        elif item == "--path":
            path = next(items, None)
    return run(agent, path)


def say(text: str = "", *, err: bool = False) -> None:
    """The one place the CLI writes text for a person: control characters from stored or
    received text are shown as visible escapes, never acted on by the terminal."""
    print(terminal_safe(text), file=sys.stderr if err else sys.stdout)


def emit(args, data, text: str) -> None:
    """Print a command's result: exact JSON with --json, else terminal-safe text."""
    if getattr(args, "json", False):
        print(json_safe(json.dumps(data, ensure_ascii=False, indent=2, default=str)))
    else:
        say(text)


def workspace(args) -> Path | None:
    return Path(args.path) if getattr(args, "path", None) else None
