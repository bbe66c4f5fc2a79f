"""What every command module needs from its parsed arguments: the workspace, the memory
opened through the facade, the ``--project`` value, and the signature of ``register``."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from ..api import IHMT

Handler = Callable[[argparse.Namespace], "int | None"]
# add(name, help, handler) -> the command's parser, with --path/--json already on it
AddCommand = Callable[[str, str, Handler], argparse.ArgumentParser]


def workspace(args) -> Path | None:
    """--path as given, or None for the default ($IHMT_HOME, else ~/.ihmt)."""
    return Path(args.path) if getattr(args, "path", None) else None


def open_memory(args) -> IHMT:
    return IHMT.open(workspace(args))


def project(args) -> str | None:
    """--project as given: a folder (``.`` = here), a git remote URL or a stored name."""
    from ..vcs.project import project_arg

    return project_arg(getattr(args, "project", None))


def add_project_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    parser.add_argument("--project", metavar="PROJECT", help=help_text)


RANK_PROJECT_HELP = (
    "rank this project's memories and global ones first (a folder, . for here, "
    "a git remote URL, or a project name)"
)
