"""Creating and filling the store: ``init``, ``ingest``, ``consolidate``."""

from __future__ import annotations

import sys

from ..api import IHMT
from .context import AddCommand, open_memory, workspace
from .output import Progress, emit


def register(add: AddCommand) -> None:
    p = add("init", "create the store", cmd_init)
    p.add_argument("--branch-factor", type=int)
    p.add_argument("--target-tokens", type=int)
    p.add_argument("--max-tokens", type=int)
    p.add_argument("--backend", help="summarizer backend: heuristic, anthropic, openai, ollama")
    p.add_argument(
        "--force", action="store_true", help="discard derived state (never a leaf) and rebuild"
    )

    p = add("ingest", "ingest files, folders, or - for standard input", cmd_ingest)
    p.add_argument("paths", nargs="+")
    p.add_argument("--domain")
    p.add_argument("--type", dest="data_type")
    p.add_argument("--tag", action="append", default=[])
    p.add_argument("--no-consolidate", action="store_true")
    p.add_argument(
        "--allow-secrets", action="store_true", help="store credentials instead of redacting them"
    )

    p = add("consolidate", "run pending summarization events", cmd_consolidate)
    p.add_argument("--force", action="store_true", help="also close every domain to a single top")


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


def cmd_ingest(args) -> int:
    memory = open_memory(args)
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
    memory = open_memory(args)
    events = memory.consolidate(force=args.force)
    stats = memory.stats()
    emit(
        args,
        {"events": events, "layers": stats["layers"], "branches": stats["branches"]},
        f"{events} summarization event(s); {stats['branches']} branches in {stats['layers']} layer(s)",
    )
    return 0
