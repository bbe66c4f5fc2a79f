"""Looking at the whole memory: ``tree`` (the outline), ``stats``, ``facts`` (the fact
timeline) and ``conflicts`` (what changed over time)."""

from __future__ import annotations

from .context import AddCommand, open_memory
from .output import emit
from .views import outline_lines


def register(add: AddCommand) -> None:
    p = add("tree", "outline of the hierarchy", cmd_tree)
    p.add_argument("--depth", type=int, default=3)

    add("stats", "counts, layers, disk use", cmd_stats)
    p = add("facts", "the fact timeline", cmd_facts)
    p.add_argument("--subject")
    p = add("conflicts", "what changed over time", cmd_conflicts)
    p.add_argument("--subject")


def cmd_tree(args) -> int:
    memory = open_memory(args)
    outline = memory.outline(max(0, args.depth))
    emit(args, outline["domains"], "\n".join(outline_lines(outline)))
    return 0


def cmd_stats(args) -> int:
    memory = open_memory(args)
    stats = memory.stats()
    lines = [
        f"store        {stats['path']}",
        f"leaves       {stats['leaves']}",
        f"branches     {stats['branches']} in {stats['layers']} layer(s) "
        + " ".join(f"L{k}:{v}" for k, v in stats["branches_per_layer"].items()),
        f"trunk        {stats['trunk_entries']} top-level entries",
        f"facts        {stats['facts']}",
        f"disk         {stats['files']} files, {stats['disk_bytes']:,} bytes",
        "domains      " + ", ".join(f"{d} ({n})" for d, n in stats["leaves_per_domain"].items()),
    ]
    if stats.get("unreadable_leaves"):
        lines.append(
            f"unreadable   {stats['unreadable_leaves']} leaf file(s) this user may not read: "
            "search cannot see them (`ihmt check` names them)"
        )
    if stats.get("quarantined"):
        lines.append(f"quarantine   {stats['quarantined']} file(s) (`ihmt quarantine list`)")
    emit(args, stats, "\n".join(lines))
    return 0


def cmd_facts(args) -> int:
    memory = open_memory(args)
    facts = memory.facts(args.subject)
    lines = [
        f"{f.key:28} {f.value!r:30} {f.timestamp[:10]}  {f.status}"
        + (f" → {f.superseded_by!r}" if f.superseded_by else "")
        for f in facts
    ] or ["no facts recorded"]
    emit(args, [f.to_dict() for f in facts], "\n".join(lines))
    return 0


def cmd_conflicts(args) -> int:
    memory = open_memory(args)
    changes = memory.contradictions(args.subject)
    emit(
        args,
        [c.to_dict() for c in changes],
        "\n".join(c.notice() for c in changes)
        or "no contradictions: nothing has changed over time",
    )
    return 0
