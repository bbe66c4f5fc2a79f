"""The optional semantic layer: ``semantic enable|disable|status``."""

from __future__ import annotations

from .context import AddCommand, workspace
from .output import emit


def register(add: AddCommand) -> None:
    p = add(
        "semantic",
        "optional semantic search (finds paraphrases): enable, disable, status",
        cmd_semantic,
    )
    p.add_argument("action", choices=["enable", "disable", "status"])
    p.add_argument("--drop", action="store_true", help="with disable: delete the vector sidecar")


def cmd_semantic(args) -> int:
    from ..semantic import admin

    if args.action == "enable":
        data = admin.enable(workspace(args), progress=admin.stderr_bar)
    elif args.action == "disable":
        data = admin.disable(workspace(args), drop=args.drop)
    else:
        data = admin.status(workspace(args))
    emit(args, data, admin.describe(data))
    return 0
