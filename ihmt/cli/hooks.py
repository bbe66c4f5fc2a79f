"""The agents' lifecycle hooks: ``hooks install|uninstall|status`` edit an agent's settings;
``hooks run`` is the command those settings call (see ``fast_run``)."""

from __future__ import annotations

from ..config import default_workspace
from ..errors import InputError
from .context import AddCommand, workspace
from .output import emit


def register(add: AddCommand) -> None:
    p = add(
        "hooks",
        "agent lifecycle hooks (optional): recall at session start and per prompt, capture "
        "before compaction and at session end",
        cmd_hooks,
    )
    p.add_argument("action", choices=["install", "uninstall", "status", "run"])
    p.add_argument("--agent", choices=["claude", "codex"], help="the agent whose hooks to edit")
    p.add_argument(
        "--scope",
        choices=["user", "project"],
        default="user",
        help="user settings (every project) or this project's settings",
    )


def fast_run(argv: list[str]) -> int:
    """``hooks run --agent NAME [--path W]`` without building the whole parser: the hook
    entry's own reading of its words (bad options are a one-line note, never a non-zero exit;
    the agent must not be disturbed)."""
    from ..hooks.run import main

    return main(argv)


def cmd_hooks(args) -> int:
    from ..loop import settings

    if args.action == "run":  # reached only through the full parser (e.g. --path first)
        from ..hooks.run import run

        return run(args.agent or "claude", str(workspace(args)) if workspace(args) else None)
    if args.action == "status":
        changes = settings.status()
        lines = []
        for c in changes:
            where = f" ({c.path})" if c.path else ""
            events = f": {', '.join(c.events)}" if c.events else ""
            lines.append(f"{c.agent} {c.scope}{where} — {c.action}{events}")
        emit(args, [c.to_dict() for c in changes], "\n".join(lines))
        return 0
    if not args.agent:
        raise InputError(f"hooks {args.action} needs --agent claude or --agent codex")
    if args.action == "install":
        change = settings.install(
            args.agent, args.scope, workspace=workspace(args) or default_workspace()
        )
    else:
        change = settings.uninstall(args.agent, args.scope)
    text = f"{change.agent} {change.scope} hooks {change.action}: {change.path}"
    if change.events:
        text += f" ({', '.join(change.events)})"
    if change.backup:
        text += f"\nbackup of the original: {change.backup}"
    emit(args, change.to_dict(), text)
    return 0
