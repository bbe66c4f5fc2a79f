"""Writing one memory by hand: ``save`` (what the MCP tool save_memory does) and
``mark-outdated`` (an explicit correction link)."""

from __future__ import annotations

from .context import AddCommand, add_project_option, open_memory, project
from .output import emit


def register(add: AddCommand) -> None:
    p = add("save", "save one memory (what the MCP tool save_memory does)", cmd_save)
    p.add_argument("text")
    p.add_argument("--replaces", default="")
    p.add_argument("--domain", default="general")
    p.add_argument("--type", dest="content_type", default="auto")
    p.add_argument("--allow-secrets", action="store_true")
    add_project_option(
        p,
        "file the memory under this project (a folder, . for here, a git remote URL or "
        "a name); default: global",
    )

    p = add("mark-outdated", "flag memory OLD as corrected by NEW", cmd_mark_outdated)
    p.add_argument("old_id")
    p.add_argument("new_id")


def cmd_save(args) -> int:
    memory = open_memory(args)
    report = memory.save(
        args.text,
        domain=args.domain,
        content_type=args.content_type,
        replaces=args.replaces,
        allow_secrets=args.allow_secrets,
        project=project(args) or "",
    )
    lines = [
        f"saved as {', '.join(report.leaf_ids)} ({report.domain}, {report.data_type})"
        + ("" if report.new else " — already remembered, nothing new written")
    ]
    lines += _replaces_lines(report)
    lines += [f"fact: {f}" for f in report.facts]
    lines += [f"NOTICE: {n}" for n in report.notices]
    emit(args, report.to_dict(), "\n".join(lines))
    return 0


def _replaces_lines(report) -> list[str]:
    if report.replaces_status == "linked":
        return [f"replaces: linked — {report.replaced_id} is now OUTDATED"]
    if report.replaces_status == "candidates":
        out = ["replaces: several candidates; link one with `ihmt mark-outdated OLD NEW`:"]
        out += [f"  {c['id']} · {c['date']} — {c['excerpt']}" for c in report.candidates]
        return out
    if report.replaces_status == "not_found":
        return ["replaces: nothing matched; no memory was flagged OUTDATED"]
    return []


def cmd_mark_outdated(args) -> int:
    memory = open_memory(args)
    notice = memory.mark_outdated(args.old_id, args.new_id)
    emit(args, {"notice": notice}, notice)
    return 0
