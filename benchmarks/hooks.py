"""Memory in the loop, measured: LoCoMo replayed as Claude Code sessions through the hooks.

Each session of a LoCoMo conversation becomes a transcript in Claude Code's JSONL format (every
dialog turn a user message "Speaker: text", each followed by a short assistant reply: LoCoMo
has no agent, so both speakers talk to it) and goes through the capture hook at its end — the
real command, as a subprocess, with a SessionEnd payload. Then every question with evidence is
sent as a UserPromptSubmit payload. Reported:

- evidence in context: share of questions whose injected block holds an evidence turn (one of
  its sentences) or the answer;
- tokens injected per prompt (all prompts, and the prompts that got something);
- unrelated prompts that inject anything: category-5 (adversarial) questions and ordinary
  coding prompts;
- memories captured per session; the same session captured over 10 compactions (nothing
  twice);
- hook latency, median and p95, including interpreter start (subprocess runs on a sample of
  the command `hooks install` writes, with the package's bytecode written first as an install
  does), and what a bare interpreter and importing the facade cost on their own.

Baseline in the same run: every turn stored raw, the flat-BM25 top 3 injected for every prompt.
Questions run in-process through the hook's own handler (the subprocess adds only start-up,
which the latency figures measure separately).

    python3 benchmarks/hooks.py [--conversations conv-26,conv-30] [--latency-sample 40] [--no-write]
    python3 benchmarks/hooks.py --held-out conv-41,conv-42,conv-43
    python3 benchmarks/hooks.py --semantic [--held-out ...]

``--semantic``: stores with the semantic extra (vectors made after each conversation is
captured, as ``ihmt semantic sync`` would), so the per-prompt search fuses meaning as it does
when the session-start hook's resident model runs. The questions run in-process as always;
the subprocess latency sample is skipped (a hook process without the resident model would
time its own model load): hook_sessions.py --semantic --through-hook times that path.

Tuning (thresholds in ihmt/loop/recall.py, the extractor's rules) uses conv-26 and conv-30 only,
the default. ``--held-out`` runs other conversations once, as a check of that tuning, and
writes its own section so the two are never mixed up. The machine's load average is reported
next to the latency: other jobs on a 2-core machine move it a lot.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, FlatBM25, fixed_project, machine, percentile, write_section
from locomo import DATA, evidence_ids, parse_session_date

TUNING = ("conv-26", "conv-30")  # the only conversations thresholds and rules are tuned on
CODING_PROMPTS = [
    "fix this test",
    "run the linter and fix what it reports",
    "why does this function return None?",
    "add type hints to utils.py",
    "refactor the parser into smaller functions",
    "the build is failing on CI, can you look?",
    "write a unit test for the cart total",
    "rename the variable tmp to buffer everywhere",
    "explain this stack trace",
    "commit the changes with a good message",
    "make the API return 404 when the item is missing",
    "update the README with the new flags",
    "bump the version to 1.4.0",
    "profile the slow endpoint",
    "convert this callback code to async/await",
    "remove the unused imports",
    "add logging to the retry loop",
    "split this file into two modules",
    "why is the docker image so large?",
    "set up pre-commit with ruff",
    "implement pagination for the list endpoint",
    "check the migrations for mistakes",
    "format the code",
    "what does this regex match?",
    "continue",
    "yes do it",
    "thanks!",
    "undo the last change",
    "add a --dry-run option to the CLI",
    "show me the diff",
]


def sessions_of(sample: dict) -> list[tuple[str, list[dict]]]:
    conv = sample["conversation"]
    out, n = [], 1
    while f"session_{n}_date_time" in conv or f"session_{n}" in conv:
        turns = conv.get(f"session_{n}")
        if isinstance(turns, list) and turns:
            out.append((parse_session_date(conv[f"session_{n}_date_time"]), turns))
        n += 1
    return out


def turn_text(turn: dict) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shared an image: {turn['blip_caption']}]"
    return text


def claude_line(session_id: str, uid: str, parent, role: str, text: str, when: str, cwd: str):
    """One line of a Claude Code session transcript (JSONL), as the agent writes it."""
    line = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd}
    line.update({"sessionId": session_id, "version": "2.1.197", "timestamp": when})
    line.update({"type": role, "uuid": uid})
    if role == "user":
        line["message"] = {"role": "user", "content": text}
    else:
        line["message"] = {
            "id": f"msg_{uid}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
        }
    return json.dumps(line)


def transcript_lines(session_id: str, when: str, turns: list[dict], cwd: str) -> list[str]:
    lines, parent = [], None
    for i, turn in enumerate(turns):
        uid, aid = f"{session_id}-u{i}", f"{session_id}-a{i}"
        lines.append(claude_line(session_id, uid, parent, "user", turn_text(turn), when, cwd))
        lines.append(claude_line(session_id, aid, uid, "assistant", "Noted.", when, cwd))
        parent = aid
    return lines


def hook_cmd(ws: Path) -> str:
    """The command `hooks install` writes into the agent's settings (run through a shell)."""
    from ihmt.loop.settings import hook_command

    return hook_command("claude", ws, python=sys.executable)


def run_hook(ws: Path, payload: dict) -> tuple[str, float]:
    t0 = time.perf_counter()
    done = subprocess.run(
        ["sh", "-c", hook_cmd(ws)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=120,
    )
    return done.stdout.decode("utf-8", "replace"), (time.perf_counter() - t0) * 1000


def compile_bytecode() -> None:
    """Write the package's bytecode, as pip does at install: without it (PYTHONDONTWRITEBYTECODE
    is set in some sandboxes) every hook start compiles every module from source, which the
    agent on a real install never pays."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "ihmt")],
        capture_output=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
        timeout=600,
    )


def floor_ms(code: str, runs: int = 15, flags: tuple[str, ...] = ()) -> float:
    """Median wall time of a bare interpreter running ``code``: what any hook pays. ``-S``
    (as the installed hook runs) needs the package's folder on the path itself."""
    times = []
    if "-S" in flags:
        code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); {code}"
    for _ in range(runs):
        t0 = time.perf_counter()
        command = [sys.executable, *flags, "-c", code]
        subprocess.run(command, capture_output=True, timeout=120, cwd=ROOT)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def context_of(stdout: str) -> str:
    if not stdout.strip():
        return ""
    return json.loads(stdout)["hookSpecificOutput"]["additionalContext"]


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def holds_evidence(context: str, gold_texts: list[str], answer: str) -> bool:
    flat = _norm(context)
    if not flat:
        return False
    if answer and len(_norm(answer)) >= 3 and _norm(answer) in flat:
        return True
    for text in gold_texts:
        for sentence in re.split(r"(?<=[.!?])\s+", text):
            words = _norm(sentence)
            if len(words.split()) >= 4 and words in flat:
                return True
    return False


def without_questions(context: str) -> str:
    """The block with the questions captured answers keep (`(in reply to: "…")`) taken out:
    evidence counted on the memories' own words only."""
    from ihmt.text.reply import without_question

    return "\n".join(without_question(line) for line in context.splitlines())


def run_conversation(
    sample: dict, workdir: Path, sample_latency: int, semantic: bool = False
) -> dict:
    from ihmt import IHMT
    from ihmt.hooks.run import handle
    from ihmt.search.query import parse_query
    from ihmt.text.tokens import estimate_tokens
    from ihmt.tree.refs import leaf_terms

    sid = sample["sample_id"]
    ws = workdir / sid
    cwd = fixed_project(workdir / f"{sid}-project", sid)
    (IHMT.initialize(ws, semantic=True) if semantic else IHMT.initialize(ws)).close()
    sessions = sessions_of(sample)
    by_dia = {t["dia_id"]: turn_text(t) for _, turns in sessions for t in turns}
    capture_ms = []
    for n, (when, turns) in enumerate(sessions, 1):
        path = workdir / f"{sid}-s{n}.jsonl"
        path.write_text("\n".join(transcript_lines(f"{sid}-s{n}", when, turns, str(cwd))) + "\n")
        payload = {"session_id": f"{sid}-s{n}", "transcript_path": str(path), "cwd": str(cwd)}
        payload.update({"hook_event_name": "SessionEnd", "reason": "exit"})
        _out, ms = run_hook(ws, payload)
        capture_ms.append(ms)
    memory = IHMT.open(ws)
    if semantic:
        memory.semantic.sync()
    captured = len(memory.leaves("memory"))
    # the baseline: every turn raw, flat BM25 top 3 for every prompt
    flat = FlatBM25()
    for dia, text in by_dia.items():
        from ihmt.models import MemoryLeaf

        leaf = MemoryLeaf(dia, text, "", "GENERIC", "general", "", 0)
        flat.add(dia, leaf_terms(leaf))
    rows, unrelated = [], []
    prompts_for_latency = []
    for qa in sample["qa"]:
        question = qa["question"]
        payload = {"session_id": f"{sid}-q", "transcript_path": None, "cwd": str(cwd)}
        payload.update({"hook_event_name": "UserPromptSubmit", "prompt": question})
        context = context_of(handle(payload, str(ws), "claude"))
        if qa.get("category") == 5:
            unrelated.append(("cat5", bool(context)))
            continue
        gold = evidence_ids(qa.get("evidence", []))
        if not gold:
            continue
        answer = str(qa.get("answer", ""))
        gold_texts = [by_dia[g] for g in gold if g in by_dia]
        top3 = flat.search(parse_query(question).terms, 3)
        base_ctx = "\n".join(by_dia[d] for d in top3)
        rows.append(
            {
                "hook": holds_evidence(context, gold_texts, answer),
                "own": holds_evidence(without_questions(context), gold_texts, answer),
                "base": bool(set(top3) & gold) or holds_evidence(base_ctx, [], answer),
                "tokens": estimate_tokens(context) if context else 0,
                "base_tokens": estimate_tokens(base_ctx) if base_ctx else 0,
            }
        )
        prompts_for_latency.append(question)
    for prompt in CODING_PROMPTS:
        payload = {"session_id": f"{sid}-c", "transcript_path": None, "cwd": str(cwd)}
        payload.update({"hook_event_name": "UserPromptSubmit", "prompt": prompt})
        unrelated.append(("coding", bool(context_of(handle(payload, str(ws), "claude")))))
    memory.close()
    latency = []
    step = max(1, len(prompts_for_latency) // max(sample_latency, 1))
    sampled = prompts_for_latency[::step] + CODING_PROMPTS[:10]
    for prompt in sampled[: sample_latency + 10] if sample_latency > 0 else []:
        payload = {"session_id": f"{sid}-l", "transcript_path": None, "cwd": str(cwd)}
        payload.update({"hook_event_name": "UserPromptSubmit", "prompt": prompt})
        latency.append(run_hook(ws, payload)[1])
    return {
        "conv": sid,
        "rows": rows,
        "unrelated": unrelated,
        "sessions": len(sessions),
        "captured": captured,
        "latency": latency,
        "capture_ms": capture_ms,
    }


def compaction_check(sample: dict, workdir: Path) -> tuple[int, int]:
    """One session captured at 10 compactions (the transcript growing) vs once at the end."""
    from ihmt import IHMT

    when, turns = max(sessions_of(sample), key=lambda s: len(s[1]))
    counts = []
    for mode in ("once", "ten"):
        ws = workdir / f"compact-{mode}"
        IHMT.initialize(ws).close()
        lines = transcript_lines("cmp", when, turns, str(workdir))
        path = workdir / f"compact-{mode}.jsonl"
        payload = {"session_id": "cmp", "transcript_path": str(path), "cwd": str(workdir)}
        if mode == "once":
            path.write_text("\n".join(lines) + "\n")
            run_hook(ws, {**payload, "hook_event_name": "SessionEnd", "reason": "exit"})
        else:
            path.write_text("")
            for i in range(1, 11):
                with open(path, "a", encoding="utf-8") as f:
                    part = lines[(i - 1) * len(lines) // 10 : i * len(lines) // 10]
                    f.write("".join(line + "\n" for line in part))
                run_hook(ws, {**payload, "hook_event_name": "PreCompact", "trigger": "auto"})
            run_hook(ws, {**payload, "hook_event_name": "SessionEnd", "reason": "exit"})
        memory = IHMT.open(ws)
        texts = [leaf.content for leaf in memory.leaves("memory")]
        memory.close()
        counts.append((len(texts), len(texts) - len(set(texts))))
    return counts[0][0], counts[1][0] if counts[1][1] == 0 else -counts[1][1]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--conversations", default=",".join(TUNING))
    parser.add_argument(
        "--held-out", default="", help="conversations never tuned on (e.g. conv-41)"
    )
    parser.add_argument("--latency-sample", type=int, default=30)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--semantic", action="store_true", help="stores with the semantic extra")
    args = parser.parse_args()
    if args.semantic:
        args.latency_sample = 0
    # ../shared/datasets from the checkout; a git worktree one level deeper looks further up
    data = next(
        (p for p in (DATA, ROOT.parents[1] / DATA.relative_to(ROOT.parent)) if p.exists()), DATA
    )
    samples = json.loads(data.read_text(encoding="utf-8"))
    chosen = args.held_out or args.conversations
    wanted = [c.strip() for c in chosen.split(",") if c.strip()]
    if args.held_out and set(wanted) & set(TUNING):
        parser.error(f"--held-out must not include the tuning conversations {TUNING}")
    samples = [s for s in samples if s["sample_id"] in wanted]
    if not samples:
        parser.error(f"no LoCoMo conversation named {chosen!r}")
    workdir = Path(tempfile.mkdtemp(prefix="ihmt-hooks-"))
    compile_bytecode()
    results = [run_conversation(s, workdir, args.latency_sample, args.semantic) for s in samples]
    once, ten = compaction_check(samples[0], workdir)
    start_ms, facade_ms = (
        floor_ms("pass", flags=("-S",)),
        floor_ms("import ihmt.api", flags=("-S",)),
    )
    site_ms = floor_ms("pass")
    rows = [r for res in results for r in res["rows"]]
    unrelated = [u for res in results for u in res["unrelated"]]
    latency = [ms for res in results for ms in res["latency"]]
    capture = [ms for res in results for ms in res["capture_ms"]]
    sessions = sum(res["sessions"] for res in results)
    captured = sum(res["captured"] for res in results)
    turns = sum(len(t) for s in samples for _, t in sessions_of(s))

    def share(values) -> str:
        values = list(values)
        return f"{100 * sum(values) / max(len(values), 1):.1f} %"

    injected = [r["tokens"] for r in rows if r["tokens"]]
    cat5 = [hit for kind, hit in unrelated if kind == "cat5"]
    coding = [hit for kind, hit in unrelated if kind == "coding"]
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [
        f"Machine: {machine()}; load average (1/5/15 min) at the end: {load}. "
        f"{'HELD-OUT (not tuned on)' if args.held_out else 'Tuning set'}"
        f"{', semantic extra' if args.semantic else ''}: conversations: {', '.join(r['conv'] for r in results)} "
        f"({len(rows)} questions with evidence, {sessions} sessions).",
        "",
        "| measure | hooks (capture + recall) | baseline: raw turns, flat BM25 top 3 |",
        "|---|---|---|",
        f"| questions whose injected context holds evidence or the answer | "
        f"{share(r['hook'] for r in rows)} | {share(r['base'] for r in rows)} |",
        f"| ... counting only the memories' own words (not the questions they answer) | "
        f"{share(r['own'] for r in rows)} | – |",
        f"| tokens injected per prompt (all prompts) | "
        f"{statistics.mean(r['tokens'] for r in rows):.0f} | "
        f"{statistics.mean(r['base_tokens'] for r in rows):.0f} |",
        f"| tokens injected per prompt that got something | "
        f"{statistics.mean(injected) if injected else 0:.0f} | "
        f"{statistics.mean(r['base_tokens'] for r in rows):.0f} |",
        f"| prompts that inject anything (questions with evidence) | "
        f"{share(bool(r['tokens']) for r in rows)} | 100 % |",
        f"| unrelated prompts that inject anything, overall ({len(cat5) + len(coding)}) | "
        f"{share(cat5 + coding)} | 100 % |",
        f"| unrelated prompts that inject anything: category 5 ({len(cat5)}) | {share(cat5)} | "
        "100 % |",
        f"| unrelated prompts that inject anything: coding prompts ({len(coding)}) | "
        f"{share(coding)} | 100 % |",
        f"| memories captured per session | {captured / max(sessions, 1):.1f} | "
        f"{turns / max(sessions, 1):.1f} (every turn) |",
        f"| UserPromptSubmit latency incl. interpreter start, median / p95 ({len(latency)} runs) "
        + (
            f"| {statistics.median(latency):.0f} / {percentile(latency, 0.95):.0f} ms | – |"
            if latency
            else (
                "| not sampled with --semantic (hook_sessions.py --through-hook times it) | – |"
                if args.semantic
                else "| not sampled (--latency-sample 0) | – |"
            )
        ),
        f"| of which: interpreter start with `-S` as the hook runs (with site: {site_ms:.0f}) "
        f"/ start plus importing the facade (`ihmt.api`), median | {start_ms:.0f} / "
        f"{facade_ms:.0f} ms | – |",
        f"| capture at session end, median / p95 ({len(capture)} sessions) | "
        f"{statistics.median(capture):.0f} / {percentile(capture, 0.95):.0f} ms | – |",
        f"| one session captured once vs over 10 compactions (memories; negative = "
        f"duplicates) | {once} vs {ten} | – |",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        title = "Agent hooks on LoCoMo (benchmarks/hooks.py)"
        title += ", held-out conversations" if args.held_out else ""
        write_section(title + (" — semantic" if args.semantic else ""), body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
