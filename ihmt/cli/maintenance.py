"""Keeping the store sound and removing from it: ``rebuild``, ``check``, ``quarantine``
(files set aside by check/rebuild) and ``forget``."""

from __future__ import annotations

import sys

from ..errors import InputError
from ..render import source_label
from .context import AddCommand, open_memory
from .output import emit, say


def register(add: AddCommand) -> None:
    add("rebuild", "rebuild catalog, timeline and trunk from the leaf files", cmd_rebuild)
    p = add("check", "verify the store", cmd_check)
    p.add_argument("--repair", action="store_true", help="fix what can be fixed from the leaves")
    p = add(
        "quarantine", "files check/rebuild moved aside: list them, or restore one", cmd_quarantine
    )
    p.add_argument("action", choices=["list", "restore"])
    p.add_argument("name", nargs="?", help="with restore: the file's name in quarantine/")
    p = add("forget", "remove memories for good (preview, then confirm)", cmd_forget)
    p.add_argument("leaf_id", nargs="?", help="the id of one memory")
    p.add_argument("--source", help="every memory that came from this file or name")
    p.add_argument("--match", help="memories whose text contains this")
    p.add_argument("--session", help="every memory the agent hooks captured in this session")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")


def cmd_rebuild(args) -> int:
    memory = open_memory(args)
    notes = memory.rebuild()
    stats = memory.stats()
    emit(
        args,
        {"notes": notes, "leaves": stats["leaves"], "branches": stats["branches"]},
        "\n".join(notes + [f"rebuilt: {stats['leaves']} leaves, {stats['branches']} branches"]),
    )
    return 0


def cmd_check(args) -> int:
    memory = open_memory(args)
    report = memory.check(repair=args.repair)
    if report.ok:
        text = (
            f"store is healthy: {report.leaves} leaves, {report.branches} branches, all reachable"
        )
    else:
        text = "\n".join(
            [f"{len(report.problems)} problem(s):"] + [f"  - {p}" for p in report.problems[:200]]
        )
        if not args.repair:
            text += "\nrun `ihmt check --repair` to fix what can be rebuilt from the leaves"
    if report.repaired:
        text = "\n".join(["repaired:"] + [f"  - {r}" for r in report.repaired]) + "\n" + text
    if report.quarantined:
        text += f"\nquarantine/ holds {len(report.quarantined)} file(s) set aside:\n"
        text += "\n".join(f"  - {_quarantine_line(q)}" for q in report.quarantined[:50])
        text += "\nfix one and put it back with `ihmt quarantine restore NAME`"
    emit(args, report.to_dict(), text)
    return 0 if report.ok else 1


def cmd_quarantine(args) -> int:
    memory = open_memory(args)
    if args.action == "restore":
        if not args.name:
            raise InputError("give the name to restore: `ihmt quarantine restore NAME`")
        done = memory.restore_quarantined(args.name)
        emit(args, {"restored": args.name, "message": done}, done)
        return 0
    items = [item.to_dict() for item in memory.quarantine()]
    lines = [_quarantine_line(item) for item in items] or ["quarantine/ is empty"]
    emit(args, items, "\n".join(lines))
    return 0


def _quarantine_line(item: dict) -> str:
    """One quarantined file as the facade describes it (name, original, moved_at, reason)."""
    origin = item.get("original") or "origin unknown"
    moved = str(item.get("moved_at") or "")[:10] or "?"
    return f"{item.get('name', '')}  (from {origin}, {moved}): {item.get('reason', '')}"


def cmd_forget(args) -> int:
    memory = open_memory(args)
    targets = memory.forget_targets(args.leaf_id, args.source, args.match, args.session)
    history = memory.history_copies([leaf.leaf_id for leaf in targets])
    preview = [
        f"{leaf.leaf_id} · {leaf.timestamp[:10]} · {source_label(leaf.source)} — "
        f"{' '.join(leaf.content.split())[:80]}"
        for leaf in targets
    ]
    if not args.yes:
        if getattr(args, "json", False) or not sys.stdin.isatty():
            raise InputError(
                f"forget would remove {len(targets)} memory/memories; run again with --yes to confirm"
                + (
                    "; copies stay in the sync history (the report says how to purge them)"
                    if history.any()
                    else ""
                )
            )
        say(f"This removes {len(targets)} memory/memories for good:")
        for line in preview:
            say(f"  {line}")
        for line in history.warning():
            say(line)
        try:
            answer = input("Type 'yes' to forget them: ").strip().lower()
        except EOFError:
            answer = ""
        if answer not in ("y", "yes"):
            say("nothing forgotten")
            return 0
    ids = memory.forget(args.leaf_id, args.source, args.match, args.session)
    lines = [f"forgot {len(ids)} memory/memories: {', '.join(ids)}", *history.warning()]
    emit(args, {"forgotten": ids, "history": history.to_dict()}, "\n".join(lines))
    return 0
