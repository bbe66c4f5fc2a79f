"""One handler per CLI subcommand: parse nothing, call the facade once, format the result."""

from __future__ import annotations

import sys

from .api import IHMT
from .cli import emit, say, workspace
from .config import default_workspace
from .errors import InputError
from .render import (
    ambiguous_block,
    compact_answer,
    hit_label,
    not_found_block,
    render_path,
    source_label,
)
from .store.quarantine import QuarantinedFile


def _open(args) -> IHMT:
    return IHMT.open(workspace(args))


def cmd_init(args) -> int:
    overrides = {
        "branch_factor": args.branch_factor,
        "target_tokens": args.target_tokens,
        "max_tokens": args.max_tokens,
        "summarizer_backend": args.backend,
    }
    if args.target_tokens and not args.max_tokens:
        overrides["max_tokens"] = max(args.target_tokens * 3 // 2, args.target_tokens)
    memory = IHMT.initialize(workspace(args), force=args.force, **overrides)
    stats = memory.stats()
    emit(
        args,
        {"path": stats["path"], "leaves": stats["leaves"], "config": stats["config"]},
        f"store ready at {stats['path']} ({stats['leaves']} leaves; branch_factor "
        f"{memory.config.branch_factor}, target_tokens {memory.config.target_tokens})",
    )
    return 0


class Progress:
    """A plain-text progress bar on stderr, only for long runs on a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()

    def __call__(self, done: int, total: int, name: str) -> None:
        if not self.enabled or total < 20:
            return
        width = 30
        filled = width * done // max(total, 1)
        bar = "#" * filled + "-" * (width - filled)
        sys.stderr.write(f"\r[{bar}] {done}/{total} files")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def cmd_ingest(args) -> int:
    memory = _open(args)
    kwargs = dict(
        domain=args.domain,
        data_type=args.data_type,
        tags=args.tag or None,
        consolidate=not args.no_consolidate,
        redact_secrets=not args.allow_secrets,
    )
    paths = [p for p in args.paths if p != "-"]
    report = None
    if "-" in args.paths:
        report = memory.ingest_stdin_bytes(sys.stdin.buffer.read(), **kwargs)
    if paths:
        file_report = memory.ingest_paths(paths, progress=Progress(), **kwargs)
        if report is None:
            report = file_report
        else:
            report.merge(file_report)
    lines = [
        f"ingested {report.files} file(s): {report.leaves} leaves "
        f"({report.new_leaves} new, {report.unchanged_leaves} unchanged, {report.removed_leaves} replaced), "
        f"{report.oversized} oversized, {len(report.skipped)} skipped"
    ]
    if report.domains:
        lines.append(
            "domains: " + ", ".join(f"{d} ({n})" for d, n in sorted(report.domains.items()))
        )
    for path, reason in report.skipped:
        lines.append(f"skipped {path}: {reason}")
    for warning in report.warnings:
        lines.append(f"warning: {warning}")
    for redaction in report.redactions:
        lines.append(f"redacted: {redaction}")
    for notice in report.notices:
        lines.append(f"NOTICE: {notice}")
    emit(args, report.to_dict(), "\n".join(lines))
    return 0


def cmd_consolidate(args) -> int:
    memory = _open(args)
    events = memory.consolidate(force=args.force)
    stats = memory.stats()
    emit(
        args,
        {"events": events, "layers": stats["layers"], "branches": stats["branches"]},
        f"{events} summarization event(s); {stats['branches']} branches in {stats['layers']} layer(s)",
    )
    return 0


def _search_text(result, full: bool) -> str:
    header = (
        f'query: "{result.query}{" + " + result.clue if result.clue else ""}" · confidence '
        f"{result.confidence:.2f} · {result.node_reads} node reads, {result.leaf_reads} leaf reads, "
        f"depth {result.depth}"
    )
    if result.not_found:
        return header + "\n" + not_found_block(result)
    if result.index_incomplete:
        header += f"\nNOTICE: {result.index_incomplete}"
    if result.ambiguous:
        return header + "\n" + ambiguous_block(result, ids=full)
    lines = [header]
    for i, hit in enumerate(result.hits, 1):
        flag = "  [OUTDATED]" if hit.outdated else ""
        lines.append(f"  {i}. {hit_label(hit)}  score {hit.score:.2f}{flag}")
        lines.append(f"     path  {render_path(hit.path)}")
        for notice in hit.notices:
            lines.append(f"     NOTICE {notice}")
        body = hit.content.strip() if i == 1 else " ".join(hit.content.split())[:160]
        if i == 1 and not full and len(body) > 1200:
            body = body[:1200] + " …"
        for line in body.splitlines()[: (40 if i == 1 else 1)]:
            lines.append(f"     {line}")
        if full:
            lines.append(f"     id {hit.leaf_id}")
    return "\n".join(lines)


def cmd_search(args) -> int:
    memory = _open(args)
    result = memory.search(
        args.query,
        top_k=args.top_k,
        clue=args.clue,
        project=_project(args),
        project_only=args.project_only,
    )
    emit(args, result.to_dict(), _search_text(result, args.full))
    return 0


def cmd_ask(args) -> int:
    memory = _open(args)

    def prompt(result) -> str | None:
        if getattr(args, "json", False) or not sys.stdin.isatty():
            return None
        say(
            f'"{result.query}" is ambiguous ({len(result.candidates)} memories match this query '
            f"equally well, confidence {result.confidence:.2f})."
        )
        say("It could belong to any of these:")
        for i, hit in enumerate(result.candidates[:8], 1):
            say(f"  {i}. {hit_label(hit)} — {' '.join(hit.content.split())[:90]}…")
        say("Give me a clue to narrow it down (e.g. a place, a date, a project); empty to stop:")
        try:
            return input("> ").strip() or None
        except EOFError:
            return None

    result = memory.ask(
        args.query, clue_provider=prompt, top_k=args.top_k, clue=args.clue, project=_project(args)
    )
    emit(args, result.to_dict(), _search_text(result, full=False))
    return 0


def cmd_save(args) -> int:
    memory = _open(args)
    report = memory.save(
        args.text,
        domain=args.domain,
        content_type=args.content_type,
        replaces=args.replaces,
        allow_secrets=args.allow_secrets,
        project=_project(args) or "",
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


def _project(args) -> str | None:
    """--project as given: a folder (``.`` = here), a git remote URL or a stored name."""
    from .loop.project import project_arg

    return project_arg(getattr(args, "project", None))


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
    memory = _open(args)
    notice = memory.mark_outdated(args.old_id, args.new_id)
    emit(args, {"notice": notice}, notice)
    return 0


def outline(memory: IHMT, depth: int) -> list[str]:
    root = memory.tree.read_root()
    lines = [
        f"root · {root['counters'].get('leaves', 0)} leaves · {len(root['entries'])} top entries"
    ]

    def walk(ref: dict, level: int) -> None:
        indent = "  " * level
        if ref["kind"] == "leaf":
            lines.append(
                f"{indent}· {ref['id']}  {ref.get('date', '')[:10]}  {ref.get('title', '')[:70]}"
            )
            return
        dates = f"{ref.get('date_from', '')[:10]}…{ref.get('date_to', '')[:10]}"
        lines.append(
            f"{indent}▸ {ref['id']}  [{ref['leaves']} leaves, {dates}]  {ref.get('title', '')[:70]}"
        )
        if level >= depth:
            return
        for child in memory.tree.read_branch(ref["id"])["children"]:
            walk(child, level + 1)

    for domain in sorted(root["domains"]):
        info = root["domains"][domain]
        lines.append(
            f"{domain}  ({info['leaves']} leaves; topics: {', '.join(info['topics'][:6])})"
        )
        for ref in root["entries"]:
            if ref["domain"] == domain:
                walk(ref, 1)
    return lines


def cmd_tree(args) -> int:
    memory = _open(args)
    lines = outline(memory, max(0, args.depth))
    emit(args, memory.tree.read_root()["domains"], "\n".join(lines))
    return 0


def cmd_stats(args) -> int:
    memory = _open(args)
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
    memory = _open(args)
    facts = memory.resolver.facts(args.subject)
    lines = [
        f"{f.key:28} {f.value!r:30} {f.timestamp[:10]}  {f.status}"
        + (f" → {f.superseded_by!r}" if f.superseded_by else "")
        for f in facts
    ] or ["no facts recorded"]
    emit(args, [f.to_dict() for f in facts], "\n".join(lines))
    return 0


def cmd_conflicts(args) -> int:
    memory = _open(args)
    changes = memory.resolver.contradictions(args.subject)
    emit(
        args,
        [c.to_dict() for c in changes],
        "\n".join(c.notice() for c in changes)
        or "no contradictions: nothing has changed over time",
    )
    return 0


def cmd_rebuild(args) -> int:
    memory = _open(args)
    notes = memory.rebuild()
    stats = memory.stats()
    emit(
        args,
        {"notes": notes, "leaves": stats["leaves"], "branches": stats["branches"]},
        "\n".join(notes + [f"rebuilt: {stats['leaves']} leaves, {stats['branches']} branches"]),
    )
    return 0


def cmd_check(args) -> int:
    memory = _open(args)
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
        text += "\n".join(
            f"  - {_quarantine_line(QuarantinedFile(**q))}" for q in report.quarantined[:50]
        )
        text += "\nfix one and put it back with `ihmt quarantine restore NAME`"
    emit(args, report.to_dict(), text)
    return 0 if report.ok else 1


def cmd_quarantine(args) -> int:
    memory = _open(args)
    if args.action == "restore":
        if not args.name:
            raise InputError("give the name to restore: `ihmt quarantine restore NAME`")
        done = memory.restore_quarantined(args.name)
        emit(args, {"restored": args.name, "message": done}, done)
        return 0
    items = memory.quarantine()
    lines = [_quarantine_line(item) for item in items] or ["quarantine/ is empty"]
    emit(args, [item.to_dict() for item in items], "\n".join(lines))
    return 0


def _quarantine_line(item) -> str:
    origin = item.original or "origin unknown"
    return f"{item.name}  (from {origin}, {item.moved_at[:10] or '?'}): {item.reason}"


def cmd_forget(args) -> int:
    memory = _open(args)
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


def cmd_sync(args) -> int:
    from .sync import sync, sync_status

    if args.status:
        st = sync_status(workspace(args))
        if not st.repository:
            lines = [f"{st.path} is not synced yet; run `ihmt sync --remote URL`"]
        else:
            lines = [
                f"store: {st.path} (branch {st.branch})",
                f"remote: {st.remote} (origin/{st.remote_branch})"
                if st.remote
                else "remote: none (add one with `ihmt sync --remote URL`)",
                f"last sync: {st.last_sync or 'never'}",
            ]
            if st.uncommitted.any():
                lines.append(f"changed since the last sync: {st.uncommitted.words()}")
            lines.append(
                f"local only: {st.local_commits} commit(s), {st.local_leaves} new memory/memories"
                " not pushed"
            )
            if st.remote:
                lines.append(
                    f"remote only: {st.remote_commits} commit(s), {st.remote_leaves} new "
                    "memory/memories not pulled"
                    + (" (fetched just now)" if st.fetched else f" ({st.fetch_error})")
                )
        emit(args, st.to_dict(), "\n".join(lines))
        return 0
    report = sync(workspace(args), args.remote, init_only=args.init)
    lines = list(report.notes)
    done = report.committed
    lines.append(f"committed: {done.words()}" if done and done.any() else "nothing new to commit")
    if args.init:
        lines.append(f"ready to sync: run `ihmt sync` ({report.leaves} memories)")
    elif not report.remote:
        lines.append("no remote yet: share it with `ihmt sync --remote URL`")
    else:
        lines.append(
            f"pulled: {report.received.words()}" if report.received else "nothing new to pull"
        )
        lines.append(
            f"pushed to {report.remote} ({report.branch})" if report.pushed else "nothing to push"
        )
        lines.append(f"in sync: {report.leaves} memories")
    emit(args, report.to_dict(), "\n".join(lines))
    return 0


def cmd_gui(args) -> int:
    from .gui import run_gui

    return run_gui(
        workspace(args), args.port, open_browser=not args.no_browser, browse_root=args.browse_root
    )


def cmd_semantic(args) -> int:
    from .semantic import admin

    if args.action == "enable":
        data = admin.enable(workspace(args), progress=admin.stderr_bar)
    elif args.action == "disable":
        data = admin.disable(workspace(args), drop=args.drop)
    else:
        data = admin.status(workspace(args))
    emit(args, data, admin.describe(data))
    return 0


def cmd_demo(args) -> int:
    from .demo import run_demo

    return run_demo(args.workspace)


def cmd_map(args) -> int:
    from .projects.index import ProjectIndex
    from .projects.render import render_map

    index = ProjectIndex(args.project, workspace=workspace(args))
    try:
        pmap = index.project_map(
            "symbols" if args.symbols else "files", args.subpath, progress=Progress()
        )
    finally:
        index.close()
    emit(args, pmap.to_dict(), render_map(pmap))
    return 0


def cmd_find_code(args) -> int:
    from .projects.index import ProjectIndex
    from .projects.render import render_code_answer

    index = ProjectIndex(args.project, workspace=workspace(args))
    try:
        answer = index.find_code(
            args.query,
            scope=args.scope,
            subpath=args.subpath,
            clue=args.clue,
            max_tokens=args.max_tokens,
            progress=Progress(),
        )
    finally:
        index.close()
    emit(args, answer.to_dict(), render_code_answer(answer))
    return 0


def require(condition: bool, message: str) -> None:
    if not condition:
        raise InputError(message)


__all__ = ["compact_answer", "source_label"]


def cmd_hooks(args) -> int:
    from .loop import settings

    if args.action == "run":  # reached only through the full parser (e.g. --path first)
        from .hooks.run import run

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
        ws = workspace(args) or default_workspace()
        change = settings.install(args.agent, args.scope, workspace=ws)
    else:
        change = settings.uninstall(args.agent, args.scope)
    text = f"{change.agent} {change.scope} hooks {change.action}: {change.path}"
    if change.events:
        text += f" ({', '.join(change.events)})"
    if change.backup:
        text += f"\nbackup of the original: {change.backup}"
    emit(args, change.to_dict(), text)
    return 0
