"""Reliability at full size: many writer processes at once, and hundreds of kills.

1. Many writers: N library processes save M memories each at the same time (some flushing or
   consolidating every few saves, some searching), while a long-lived handle opened before
   them looks up what they report; then the same through real MCP server processes.
2. Crashes: a writer doing saves, ingests, batch ingests, re-ingests of a changed document,
   consolidations and flushes is SIGKILLed at random instants, again and again; after every
   kill the store must open, readers must find every reported save, and one write (or check
   --repair where check asks for it) must leave a valid tree; at the end the leaf set must equal
   a crash-free run of the same operations.
3. Faults (benchmarks/faults.py, issue 20): kill -9 landing inside rebuild, consolidate,
   ingest, sync pull (a local bare git repository as the remote) and forget; a full disk (a
   small tmpfs, skipped with the reason where it cannot be mounted); a read-only store; an
   unreadable leaf. Each reports memories lost, memories silently unfindable (unfound while the
   answer carries no notice), and whether the message named the right fix.

The child processes, checks and counters are the ones tests/test_concurrency.py and
tests/test_crash.py use (tests/helpers_procs.py), here at full size. Writes a section to
benchmarks/RESULTS.md; exits 1 if any promise was broken.

    python3 benchmarks/reliability.py                 # 8 x 250 saves, MCP 4 x 50, 200 kills
    python3 benchmarks/reliability.py --quick         # a small smoke run, nothing written
    python3 benchmarks/reliability.py --faults-only   # part 3 alone (its section only)
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, machine, write_section
from faults import KILLS, KILLS_FULL, main_faults

sys.path.insert(0, str(ROOT))

from ihmt import IHMT  # noqa: E402
from tests.helpers_procs import (  # noqa: E402
    SMALL_TREE,
    CrashCampaign,
    findable,
    many_writers,
    mcp_many_savers,
    unique_word,
    verify_store,
)

SECTION = "Reliability: many writers and crashes (benchmarks/reliability.py)"
FAULTS_SECTION = "Reliability: fault injection (benchmarks/reliability.py)"


def part_writers(base: Path, processes: int, saves: int) -> dict:
    workspace = base / "writers" / "ws"
    scratch = base / "writers"
    memory = IHMT.initialize(workspace, **SMALL_TREE)
    warm = unique_word(99, 0)
    memory.save(f"Before the writers start, the {warm} flag was set on the build machine.")
    findable(memory, warm)
    run = many_writers(workspace, scratch, memory, processes, saves)
    found = verify_store(workspace, run["saved"] + [warm], via=memory)
    fresh = verify_store(workspace, run["saved"])
    memory.close()
    return {
        "processes": processes,
        "saves_each": saves,
        "reported": len(run["saved"]),
        "lost_long_lived": len(found["missing"]),
        "lost_fresh": len(fresh["missing"]),
        "live_checked": len(run["live_checked"]),
        "live_misses": len(run["live_misses"]),
        "own_misses": len(run["missed"]),
        "errors": run["errors"] + found["search_errors"] + fresh["search_errors"],
        "check_problems": found["check_problems"],
        "tree_problems": found["tree_problems"],
        "leaves": found["leaves"],
        "duplicates": found["leaves"] - found["unique_ids"],
        "seconds": run["seconds"],
    }


def part_mcp(base: Path, servers: int, saves: int) -> dict | None:
    try:
        import mcp  # noqa: F401
    except ImportError:
        return None
    home = base / "mcp" / "ihmt"
    run = mcp_many_savers(home, base / "mcp", servers, saves)
    found = verify_store(home, [*run["saved"], run["warm"]])
    return {
        "servers": servers,
        "saves_each": saves,
        "reported": len(run["saved"]),
        "errors": run["errors"] + found["search_errors"],
        "lost_long_lived": len(run["misses"]),
        "lost_fresh": len(found["missing"]),
        "check_problems": found["check_problems"],
        "tree_problems": found["tree_problems"],
        "leaves": found["leaves"],
        "duplicates": found["leaves"] - found["unique_ids"],
        "seconds": run["seconds"],
    }


def part_crashes(base: Path, trials: int, campaigns: int, seed: int, max_delay: float) -> dict:
    totals: dict = {"problems": [], "check_messages": {}}
    start = time.monotonic()
    per = [trials // campaigns + (1 if i < trials % campaigns else 0) for i in range(campaigns)]
    for index, count in enumerate(per):
        folder = base / f"crash{index}"
        folder.mkdir(parents=True)
        campaign = CrashCampaign(folder / "ws", seed=seed + index, scratch=folder)
        campaign.run(count, max_delay=max_delay)
        stats = campaign.finish(folder / "clean")
        for key, value in stats.items():
            totals[key] = totals.get(key, 0) + value
        totals["problems"] += campaign.problems
        for kind, n in campaign.check_messages.items():
            totals["check_messages"][kind] = totals["check_messages"].get(kind, 0) + n
        print(f"  campaign {index}: {count} kills, {len(campaign.problems)} problem(s)", flush=True)
    totals["seconds"] = time.monotonic() - start
    totals["campaigns"] = campaigns
    return totals


def _verdict(ok: bool) -> str:
    return "yes" if ok else "**NO**"


def render(writers: dict, mcp: dict | None, crashes: dict, total_s: float) -> str:
    lines = [
        f"Machine: {machine()}. Total run time {total_s:.0f} s. Store settings: branch_factor "
        f"{SMALL_TREE['branch_factor']}, target_tokens {SMALL_TREE['target_tokens']} (small, so "
        "the tree is deep and consolidations frequent).",
        "",
        "**Many writers at once.** Every writer is its own process; a long-lived handle opened "
        "before they start searches each word they report while they run, then every word.",
        "",
        "| run | processes x saves | reported | lost (long-lived handle) | lost (fresh handle) "
        "| missed mid-run | check | tree (reachable, no duplicate) | leaves | time |",
        "|---|---|---|---|---|---|---|---|---|---|",
        f"| library | {writers['processes']} x {writers['saves_each']} | {writers['reported']} "
        f"| {writers['lost_long_lived']} | {writers['lost_fresh']} | {writers['live_misses']} of "
        f"{writers['live_checked']} | {len(writers['check_problems'])} problem(s) | "
        f"{len(writers['tree_problems'])} problem(s) | {writers['leaves']} "
        f"| {writers['seconds']:.0f} s ({writers['reported'] / max(writers['seconds'], 1e-9):.1f} "
        "saves/s) |",
    ]
    if mcp is not None:
        lines.append(
            f"| MCP servers | {mcp['servers']} x {mcp['saves_each']} | {mcp['reported']} | "
            f"{mcp['lost_long_lived']} | {mcp['lost_fresh']} | – | "
            f"{len(mcp['check_problems'])} problem(s) | {len(mcp['tree_problems'])} problem(s) | "
            f"{mcp['leaves']} | {mcp['seconds']:.0f} s |"
        )
    for name, run in (("library", writers), ("MCP", mcp)):
        if run and (run["check_problems"] or run["tree_problems"] or run["errors"]):
            sample = (run["errors"] + run["check_problems"] + run["tree_problems"])[:3]
            lines.append(f"\n{name} run, first problems: " + "; ".join(s[:160] for s in sample))
    c = crashes
    lines += [
        "",
        f"**Crashes.** {c['trials']} SIGKILLs at random instants (uniform 0-1 s after the writer "
        f"opened the store) in {c['campaigns']} campaign(s) of accumulating stores; "
        f"{c['killed_mid_op']} kills landed inside an operation. {c['ops_reported']} operations "
        f"and {c['words_reported']} unique words were reported saved.",
        "",
        "| promise | result |",
        "|---|---|",
        f"| the store opens after every kill | {_verdict(not any('open' in p for p in c['problems']))} |",
        f"| reported saves lost (after each kill, and at the end) | {c.get('losses', 0)} / "
        f"{c['final_losses']} of {c['final_words_checked']} |",
        f"| check clean after one write | {c['trials'] - c.get('needed_check_repair', 0)} of "
        f"{c['trials']} kills ({c.get('needed_check_repair', 0)} needed check --repair, as "
        "check said) |",
        f"| check right after the kill, before any write | {c['trials'] - c.get('check_not_ok_after_kill', 0)} "
        f"clean, {c.get('check_not_ok_after_kill', 0)} with an interrupted write to finish |",
        f"| final tree equals a crash-free run of the same operations | "
        f"{_verdict(not any('clean run' in p for p in c['problems']))} ({c['final_leaves']} leaves) |",
        f"| broken promises | {len(c['problems'])} |",
        f"| time | {c['seconds']:.0f} s |",
    ]
    if c["check_messages"]:
        lines += ["", "What check reported after the kills (before recovery), by kind:", ""]
        for kind, n in sorted(c["check_messages"].items(), key=lambda kv: -kv[1]):
            lines.append(f"- {n} x {kind}")
    if c["problems"]:
        lines += ["", "Broken promises: " + "; ".join(p[:200] for p in c["problems"][:5])]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--saves", type=int, default=250)
    parser.add_argument("--mcp-servers", type=int, default=4)
    parser.add_argument("--mcp-saves", type=int, default=50)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--campaigns", type=int, default=4)
    parser.add_argument("--max-delay", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=20251129)
    parser.add_argument("--fault-memories", type=int, default=300)
    parser.add_argument("--faults-only", action="store_true", help="only the fault cases")
    parser.add_argument("--quick", action="store_true", help="small sizes; RESULTS.md untouched")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    if args.quick:
        args.processes, args.saves, args.mcp_servers, args.mcp_saves = 2, 5, 1, 3
        args.trials, args.campaigns, args.no_write = 3, 1, True
        args.fault_memories = 12
    start = time.monotonic()
    print(f"faults: stores of {args.fault_memories} memories", flush=True)
    faults, faults_broken = main_faults(args.fault_memories, KILLS if args.quick else KILLS_FULL)
    faults = f"Machine: {machine()}. Run time {time.monotonic() - start:.0f} s.\n\n" + faults
    print(faults)
    if not args.no_write:
        write_section(FAULTS_SECTION, faults)
    if args.faults_only:
        return 1 if faults_broken else 0
    base = Path(tempfile.mkdtemp(prefix="ihmt-reliability-"))
    start = time.monotonic()
    try:
        print(f"many writers: {args.processes} processes x {args.saves} saves", flush=True)
        writers = part_writers(base, args.processes, args.saves)
        print(f"MCP: {args.mcp_servers} servers x {args.mcp_saves} saves", flush=True)
        mcp = part_mcp(base, args.mcp_servers, args.mcp_saves)
        print(f"crashes: {args.trials} kills", flush=True)
        crashes = part_crashes(base, args.trials, args.campaigns, args.seed, args.max_delay)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    body = render(writers, mcp, crashes, time.monotonic() - start)
    print(body)
    if not args.no_write:
        write_section(SECTION, body)
    broken = (
        faults_broken
        + writers["lost_long_lived"]
        + writers["lost_fresh"]
        + len(writers["check_problems"])
        + len(writers["tree_problems"])
        + len(writers["errors"])
        + len(crashes["problems"])
        + (
            mcp["lost_long_lived"]
            + mcp["lost_fresh"]
            + len(mcp["check_problems"])
            + len(mcp["errors"])
            if mcp
            else 0
        )
    )
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
