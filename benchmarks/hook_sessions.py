"""Memory in the loop on coding-agent sessions written blind (benchmarks/hook_sessions/).

LoCoMo (benchmarks/hooks.py) is two friends chatting; this set is what the hooks are for: a
developer and a coding agent over a few months, where the agent asks ("Which Python version
should I target?") and the user's short reply is the fact ("3.12, we upgraded in January"),
facts are stated, rules set, options chosen, facts corrected. Each set was written by a
helper who saw only hook_sessions/FORMAT.md (neither the code nor any other set) and was
committed unchanged before its first run.

Each session becomes a Claude Code JSONL transcript and goes through the capture hook at its
end (in-process, through the hook's own handler); then every prompt is sent as a
UserPromptSubmit payload. Reported per set and overall:

- recall prompts whose injected block shows the answer (and: counting only the memories' own
  words, not the questions captured answers keep);
- the answer among the captured memories at all (what capture kept), and in the search's top
  5 over them (what recall could pass);
- unrelated coding prompts and never-said questions that inject anything;
- recall answers the session-start brief shows (the brief a new session gets), its size;
- memories captured per session, tokens per injected block.

Baseline in the same run: every turn (user and agent) stored raw, the flat-BM25 top 3 for
every prompt.

    python3 benchmarks/hook_sessions.py [--set NAME ...] [--semantic [--through-hook]] [--no-write] [--show-misses] [--jobs N]

``--jobs 2`` runs two sets at once, each in its own process (same figures, about half the time
on two cores).

``--through-hook`` (with ``--semantic``): the figures above run the hook's handler in this
process, where the model is loaded. An agent runs each hook as a new process, which gets its
side of meaning from the resident process (ihmt/semantic/resident.py) a session start
starts. This sends every prompt again through the installed hook command, as a subprocess,
and reports how many blocks equal the in-process ones, the hook's latency, and how long
after the session-start hook the first prompt was answered through the resident process.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from common import FlatBM25, fixed_project, in_processes, machine, percentile, write_section
from hooks import claude_line, compile_bytecode, context_of, run_hook

HERE = Path(__file__).resolve().parent / "hook_sessions"


def _flat(text: str) -> str:
    return " ".join(text.lower().split())


def shows(text: str, answer: str) -> bool:
    """The answer as written (case and spacing aside) in the text, not inside a longer word:
    "/parcels" and "3.12" must appear as such (not merely "parcels", or "3" and "12"), and
    "develop" is not found in "development"."""
    want = _flat(answer)
    if not want:
        return False
    head = r"(?<!\w)" if want[0].isalnum() else ""
    tail = r"(?!\w)" if want[-1].isalnum() else ""
    return re.search(head + re.escape(want) + tail, _flat(text)) is not None


def transcript(session_id: str, start: str, turns: list[dict], cwd: str) -> str:
    """Claude Code's JSONL: one line per message, a minute apart from the session's date."""
    when = datetime.strptime(start, "%Y-%m-%dT%H:%M:%SZ")
    lines, parent = [], None
    for i, turn in enumerate(turns):
        uid = f"{session_id}-{i}"
        stamp = (when + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        lines.append(claude_line(session_id, uid, parent, turn["role"], turn["text"], stamp, cwd))
        parent = uid
    return "\n".join(lines) + "\n"


def captured_store(data: dict, name: str, work: Path, semantic: bool = False):
    """(the opened store, the project folder) once every session of a set went through the
    capture hook at its end (in-process, through the hook's own handler) into ``work/name``;
    with ``semantic``, vectors for everything captured, as `ihmt semantic sync` would."""
    from ihmt import IHMT
    from ihmt.hooks.run import handle

    ws, cwd = work / name, fixed_project(work / f"{name}-project", name)
    (IHMT.initialize(ws, semantic=True) if semantic else IHMT.initialize(ws)).close()
    for n, session in enumerate(data["sessions"], 1):
        sid = f"{name}-s{n}"
        file = work / f"{sid}.jsonl"
        file.write_text(transcript(sid, session["date"], session["turns"], str(cwd)), "utf-8")
        payload = {"session_id": sid, "transcript_path": str(file), "cwd": str(cwd)}
        handle({**payload, "hook_event_name": "SessionEnd", "reason": "exit"}, str(ws), "claude")
    memory = IHMT.open(ws)
    if semantic:
        memory.semantic.sync()
    return memory, cwd


def run_set(path: Path, work: Path, semantic: bool = False) -> dict:
    from ihmt.hooks.run import handle

    try:
        from ihmt.text.reply import without_question
    except ImportError:  # the code before captured answers kept their questions

        def without_question(content: str) -> str:
            return content

    from ihmt.models import MemoryLeaf
    from ihmt.search.query import parse_query
    from ihmt.text.tokens import estimate_tokens
    from ihmt.tree.refs import leaf_terms

    data = json.loads(path.read_text(encoding="utf-8"))
    name = path.parent.name
    memory, cwd = captured_store(data, name, work, semantic)
    ws = work / name
    flat = FlatBM25()
    raw: dict[str, str] = {}
    for n, session in enumerate(data["sessions"], 1):
        for i, turn in enumerate(session["turns"]):
            key = f"{name}-s{n}-{i}"
            raw[key] = turn["text"]
            flat.add(key, leaf_terms(MemoryLeaf(key, turn["text"], "", "GENERIC", "", "", 0)))
    captured = [leaf.content for leaf in memory.leaves("memory")]
    start = {"session_id": f"{name}-later", "transcript_path": None, "cwd": str(cwd)}
    brief = context_of(
        handle({**start, "hook_event_name": "SessionStart", "source": "startup"}, str(ws), "claude")
    )
    rows = []
    for item in data["prompts"]:
        prompt, kind = item["prompt"], item["kind"]
        payload = {"session_id": f"{name}-later", "transcript_path": None, "cwd": str(cwd)}
        payload.update({"hook_event_name": "UserPromptSubmit", "prompt": prompt})
        block = context_of(handle(payload, str(ws), "claude"))
        row = {"prompt": prompt, "kind": kind, "block": block}
        row["tokens"] = estimate_tokens(block) if block else 0
        if kind == "recall":
            answer = item["answer"]
            own = "\n".join(without_question(line) for line in block.splitlines())
            top = memory.search(prompt, top_k=5)
            top3 = flat.search(parse_query(prompt).terms, 3)
            row.update(
                answer=answer,
                shown=shows(block, answer),
                own=shows(own, answer),
                kept=any(shows(without_question(text), answer) for text in captured),
                top5=any(shows(without_question(hit.content), answer) for hit in top.hits[:5]),
                base=any(shows(raw[key], answer) for key in top3),
                brief=shows(brief, answer),
            )
        rows.append(row)
    memory.close()
    out = {"set": name, "rows": rows, "sessions": len(data["sessions"]), "captured": captured}
    return {**out, "brief_tokens": estimate_tokens(brief) if brief else 0}


def _run_one(job: tuple[Path, Path, bool]) -> dict:
    return run_set(*job)


def through_hook(result: dict, work: Path) -> dict:
    """Every prompt of one set again, through the installed hook command with the resident
    process (see the module doc); the set's in-process blocks are the reference."""
    from ihmt.semantic import resident

    name = result["set"]
    ws, cwd = work / name, work / f"{name}-project"
    state = ws / "ihmt_memory" / "state"
    payload = {"session_id": f"{name}-hook", "transcript_path": None, "cwd": str(cwd)}
    started = time.perf_counter()
    run_hook(ws, {**payload, "hook_event_name": "SessionStart", "source": "startup"})
    while not os.path.exists(resident.address(state)) and time.perf_counter() - started < 120:
        time.sleep(0.1)
    ready = time.perf_counter() - started
    same, latency = 0, []
    for row in result["rows"]:
        out, ms = run_hook(
            ws, {**payload, "hook_event_name": "UserPromptSubmit", "prompt": row["prompt"]}
        )
        latency.append(ms)
        same += context_of(out) == row["block"]
    answered = resident.stop(state)
    return {
        "same": same,
        "prompts": len(result["rows"]),
        "latency": latency,
        "ready": ready,
        "answered": answered,
    }


def hook_table(checks: list[dict], names: list[str]) -> list[str]:
    latency = [ms for c in checks for ms in c["latency"]]
    lines = [
        "",
        "Through the installed hook command (a new process per prompt, the side of meaning from "
        "the resident process a session start starts):",
        "",
        "| measure | " + " | ".join(names) + " | all |",
        "|---|" + "---|" * (len(names) + 1),
    ]
    cells = [f"{c['same']}/{c['prompts']}" for c in checks]
    total = f"{sum(c['same'] for c in checks)}/{sum(c['prompts'] for c in checks)}"
    lines.append("| blocks equal to the in-process ones | " + " | ".join(cells) + f" | {total} |")
    cells = [
        f"{statistics.median(c['latency']):.0f} / {percentile(c['latency'], 0.95):.0f}"
        for c in checks
    ]
    lines.append(
        "| UserPromptSubmit median / p95, ms | "
        + " | ".join(cells)
        + f" | {statistics.median(latency):.0f} / {percentile(latency, 0.95):.0f} |"
    )
    cells = [f"{c['ready']:.1f}" for c in checks]
    lines.append(
        "| session start until the resident process listens, s | " + " | ".join(cells) + " | |"
    )
    return lines


def share(values) -> str:
    values = list(values)
    if not values:
        return "–"
    return f"{100 * sum(values) / len(values):.0f} % ({sum(values)}/{len(values)})"


def table(results: list[dict]) -> list[str]:
    columns = [*results, {"set": "all", "rows": [r for res in results for r in res["rows"]]}]
    columns[-1]["sessions"] = sum(res["sessions"] for res in results)
    columns[-1]["captured"] = [c for res in results for c in res["captured"]]
    columns[-1]["brief_tokens"] = max(res["brief_tokens"] for res in results)
    lines = [
        "| measure | " + " | ".join(c["set"] for c in columns) + " |",
        "|---|" + "---|" * len(columns),
    ]

    def row(label: str, cell) -> None:
        lines.append(f"| {label} | " + " | ".join(cell(c) for c in columns) + " |")

    def of(c, kind):
        return [r for r in c["rows"] if r["kind"] == kind]

    row(
        "recall prompts: the injected block shows the answer",
        lambda c: share(r["shown"] for r in of(c, "recall")),
    )
    row(
        "... in the memories' own words (not the questions they answer)",
        lambda c: share(r["own"] for r in of(c, "recall")),
    )
    row(
        "baseline: every turn raw, flat BM25 top 3 shows it",
        lambda c: share(r["base"] for r in of(c, "recall")),
    )
    row("the answer kept by capture at all", lambda c: share(r["kept"] for r in of(c, "recall")))
    row(
        "the answer in the search's top 5 over the captured memories",
        lambda c: share(r["top5"] for r in of(c, "recall")),
    )
    row(
        "unrelated coding prompts that inject anything",
        lambda c: share(bool(r["block"]) for r in of(c, "unrelated")),
    )
    row(
        "never-said questions that inject anything",
        lambda c: share(bool(r["block"]) for r in of(c, "never_said")),
    )
    row(
        "the session-start brief shows the answer",
        lambda c: share(r["brief"] for r in of(c, "recall")),
    )
    row(
        "... in the brief or the prompt's block (what a session that starts with the question has in front of it)",
        lambda c: share(r["brief"] or r["shown"] for r in of(c, "recall")),
    )
    row("session-start brief, tokens (all: the largest)", lambda c: str(c["brief_tokens"]))
    row("memories captured per session", lambda c: f"{len(c['captured']) / c['sessions']:.1f}")
    row(
        "tokens per injected block (median)",
        lambda c: str(
            int(statistics.median([r["tokens"] for r in c["rows"] if r["tokens"]] or [0]))
        ),
    )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", action="append", default=[], help="a folder of hook_sessions/")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument("--semantic", action="store_true", help="stores with the semantic extra")
    parser.add_argument(
        "--through-hook", action="store_true", help="with --semantic: also through the hook command"
    )
    parser.add_argument("--jobs", type=int, default=1, help="sets run at once, one process each")
    args = parser.parse_args()
    if args.through_hook and not args.semantic:
        parser.error("--through-hook measures the resident semantic model: add --semantic")
    names = args.set or sorted(p.parent.name for p in HERE.glob("*/sessions.json"))
    paths = [HERE / n / "sessions.json" for n in names]
    missing = [str(p) for p in paths if not p.exists()]
    if missing or not paths:
        parser.error(f"no such set: {', '.join(missing) or HERE}")
    work = Path(tempfile.mkdtemp(prefix="ihmt-hook-sessions-"))
    results = list(in_processes(_run_one, [(p, work, args.semantic) for p in paths], args.jobs))
    lines = [
        f"Machine: {machine()}. Sets: {', '.join(r['set'] for r in results)} "
        f"({sum(len(r['rows']) for r in results)} prompts, "
        f"{sum(r['sessions'] for r in results)} sessions), written blind. Mode: "
        f"{'semantic' if args.semantic else 'lexical'}.",
        "",
        *table(results),
    ]
    if args.through_hook:
        compile_bytecode()
        lines += hook_table([through_hook(r, work) for r in results], [r["set"] for r in results])
    body = "\n".join(lines)
    print(body)
    if args.show_misses:
        for res in results:
            for r in res["rows"]:
                miss = r["kind"] == "recall" and not r["shown"]
                if miss or (r["kind"] != "recall" and r["block"]):
                    print(f"\n[{res['set']}] {r['kind']}: {r['prompt']} -> {r.get('answer', '')}")
                    print("  kept" if r.get("kept") else "  not kept", r["block"][:700])
    if not args.no_write:
        title = "Agent hooks on coding-agent sessions (benchmarks/hook_sessions.py)"
        write_section(title + (" — semantic" if args.semantic else ""), body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
