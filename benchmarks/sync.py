"""Sync through git: how long `ihmt sync` takes with 5,000 memories.

Two stores share a bare repository on local disk (no network, so the figures are git and
IHMT work, not transfer time). Store A saves 5,000 memories and makes the first push; B is a
fresh machine whose first sync clones them and builds its derived state (one rebuild); then
100 new memories go each way; finally a sync with nothing to do and `sync --status`.

    python3 benchmarks/sync.py [--memories 5000] [--delta 100] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from common import machine, write_section

from ihmt import IHMT
from ihmt.sync import sync, sync_status

TOPICS = ["billing", "search", "deploy", "auth", "mobile", "payments", "analytics", "docs"]
VERBS = ["moved", "pinned", "retired", "documented", "rewrote", "split", "merged", "tuned"]


def memories(tag: str, start: int, count: int) -> list[dict]:
    out = []
    for i in range(start, start + count):
        topic, verb = TOPICS[i % len(TOPICS)], VERBS[(i // 8) % len(VERBS)]
        out.append(
            {
                "text": f"Note {tag}{i}: the {topic} team {verb} component {i % 97} "
                f"after incident {i} on host {tag}-{i % 13}.",
                "source": f"note-{tag}{i}",
                "timestamp": f"20{20 + i % 6}-{1 + i % 12:02d}-{1 + i % 28:02d}",
            }
        )
    return out


def add(ws: Path, docs: list[dict]) -> float:
    start = time.perf_counter()
    memory = IHMT.open(ws)
    memory.ingest_batch(docs)
    memory.close()
    return time.perf_counter() - start


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--delta", type=int, default=100)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    os.environ.setdefault("GIT_AUTHOR_NAME", "bench")
    os.environ.setdefault("GIT_AUTHOR_EMAIL", "bench@example.invalid")
    os.environ.setdefault("GIT_COMMITTER_NAME", "bench")
    os.environ.setdefault("GIT_COMMITTER_EMAIL", "bench@example.invalid")
    tmp = Path(tempfile.mkdtemp(prefix="ihmt-sync-bench-"))
    try:
        remote = tmp / "shared.git"
        subprocess.run(
            ["git", "-c", "init.defaultBranch=main", "init", "-q", "--bare", str(remote)],
            check=True,
        )
        a, b = tmp / "laptop", tmp / "desktop"
        IHMT.initialize(a).close()
        t_ingest = add(a, memories("a", 0, args.memories))
        rows = []
        t, rep = timed(sync, a, str(remote))
        rows.append((f"A first sync: commit + push {args.memories:,} memories", t, rep))
        t, rep = timed(sync, b, str(remote))
        rows.append(
            (f"B first sync (fresh machine): clone + index {args.memories:,} memories", t, rep)
        )
        add(a, memories("a", args.memories, args.delta))
        t, rep = timed(sync, a)
        rows.append((f"A: commit + push {args.delta} new", t, rep))
        t, rep = timed(sync, b)
        rows.append((f"B: pull + merge + reconcile {args.delta} new", t, rep))
        add(b, memories("b", 0, args.delta))
        t, rep = timed(sync, b)
        rows.append((f"B: commit + push {args.delta} new", t, rep))
        t, rep = timed(sync, a)
        rows.append((f"A: pull + merge + reconcile {args.delta} new", t, rep))
        add(a, memories("a", args.memories + args.delta, args.delta))
        add(b, memories("b", args.delta, args.delta))
        t, rep = timed(sync, a)
        rows.append((f"A: {args.delta} new each side, A syncs first", t, rep))
        t, rep = timed(sync, b)
        rows.append((f"B: {args.delta} new each side, B merges both", t, rep))
        t, rep = timed(sync, a)
        rows.append((f"A: pulls B's merge ({args.delta} new)", t, rep))
        t, rep = timed(sync, a)
        rows.append(("A: nothing new (fetch only)", t, rep))
        c = tmp / "third"
        IHMT.initialize(c).close()
        add(c, memories("c", 0, 10))
        t, rep = timed(sync, c, str(remote))
        rows.append(("C (a store with 10 memories of its own) joins: merge + reconcile", t, rep))
        t_status, _ = timed(sync_status, a)
        ma, mb = IHMT.open(a), IHMT.open(b)
        same = sorted(x["id"] for x in ma.catalog.all_leaves()) == sorted(
            x["id"] for x in mb.catalog.all_leaves()
        )
        leaves, ok = ma.catalog.counts()["leaves"], ma.check().ok and mb.check().ok
        ma.close()
        mb.close()
        git_bytes = sum(
            p.stat().st_size for p in (a / "ihmt_memory" / ".git").rglob("*") if p.is_file()
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    lines = [
        f"Machine: {machine()}. Git {git_version()}. Remote: a bare repository on the same "
        "local disk, so the times are git and IHMT work, not network transfer.",
        "",
        f"Ingesting the {args.memories:,} memories on A (not part of the sync) took "
        f"{t_ingest:.1f} s. After the run both stores hold {leaves:,} leaves, the same ids on "
        f"both sides: {'yes' if same else 'NO'}; `check` passes on both: "
        f"{'yes' if ok else 'NO'}. A's `.git` folder: {git_bytes / 1e6:.1f} MB.",
        "",
        "| step | seconds | committed | pulled |",
        "|---|---|---|---|",
    ]
    for label, seconds, rep in rows:
        sent = rep.committed.added if rep.committed else 0
        got = rep.received.added if rep.received else 0
        lines.append(f"| {label} | {seconds:.2f} | {sent} | {got} |")
    lines += [
        "",
        f"`sync --status` (with its fetch): {t_status:.2f} s.",
        "",
        "Where the time goes: the first push is mostly `git add` writing one object file per "
        "memory; a fresh machine clones, then builds its index with one rebuild; a later sync "
        "costs a few git commands plus reconciling what arrived. A store that already has "
        "memories of its own and joins a big shared memory pays the core's incremental "
        "`reconcile()` on every new leaf, about twice the cost of a rebuild at this size. "
        "Figures vary with disk load (this 2-core machine was shared with other jobs).",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("Sync through git (benchmarks/sync.py)", body)


def git_version() -> str:
    out = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout
    return out.strip().removeprefix("git version ")


if __name__ == "__main__":
    main()
