"""Fault injection for benchmarks/reliability.py (issue 20): what a user is left with.

Each case builds a store of known memories, injects one fault and then, as the user would,
searches every memory (in a fresh process, as the user the fault applies to), reads the message
the failing command or ``ihmt check`` gives, applies the fix that message names and searches
again. Per case it counts:

- lost: memories not findable after the named fix (must be 0);
- silently unfindable: right after the fault, a memory that search does not find while the
  answer carries no notice that the index is incomplete or files cannot be read (must be 0);
- whether the message named the right fix (its text checked against the expected command).

Kills use the pause-at-step pattern of tests/helpers_catalog.py: the child wraps a library
function, prints ``PAUSED`` when the chosen step is reached and sleeps; only then is it
SIGKILLed, so every kill lands inside the operation (a child that prints ``DONE`` first is
reported as a kill that missed). The library itself has no crash points.

    python3 benchmarks/faults.py child OP WORKSPACE STEP COUNT [ARG]   # a paused operation
    python3 benchmarks/faults.py probe WORKSPACE WORDS_FILE            # search every word
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from common import ROOT

sys.path.insert(0, str(ROOT))

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}
TREE = {"branch_factor": 4, "target_tokens": 64}
# the fixes a message may name, and the words that name them
FIXES = {
    "rebuild": "`ihmt rebuild`",
    "repair": "`ihmt check --repair`",
    "next write": "completed by the next write",
    "sync": "`ihmt sync`",
    "free space": "free space and retry",
    "write permission": "`chmod -R u+w",
    "read permission": "chmod u+r",
}


def word(case: int, i: int) -> str:
    """A word no other memory holds (letters only, so the tokenizer keeps it whole)."""
    out = ""
    for n in (case, i):
        for _ in range(3):
            n, r = divmod(n, 26)
            out += chr(97 + r)
    return f"qf{out}x"


def text_of(w: str, i: int) -> str:
    return f"Runbook note {i}: the {w} switch of the billing cluster stays on during deploys."


# -- child processes ---------------------------------------------------------------------------


def child() -> None:
    """argv: child OP WORKSPACE STEP COUNT [ARG]. Pause (print PAUSED, sleep) when STEP has been
    reached COUNT times while OP runs; print DONE if OP finished first."""
    from ihmt import IHMT, faults
    from ihmt.coordinator import writer as writer_mod
    from ihmt.store import catalog as catalog_mod
    from ihmt.store import leaf_files
    from ihmt.tree import builder

    op, workspace, step, count = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    arg = sys.argv[6] if len(sys.argv) > 6 else ""
    seen = {"n": 0}

    def pause_here(name: str) -> None:
        if name == step:
            seen["n"] += 1
            if seen["n"] == count:
                print("PAUSED", name, count, flush=True)
                time.sleep(600)

    def wrap(owner, attr: str, name: str) -> None:
        original = getattr(owner, attr)

        def wrapped(*args, **kwargs):
            pause_here(name)
            return original(*args, **kwargs)

        setattr(owner, attr, wrapped)

    wrap(leaf_files.LeafFiles, "load_leaf", "leaf")  # rebuild: reading leaf k
    wrap(writer_mod.WriteCoordinator, "index_leaves", "index")  # ingest, reconcile: files written
    wrap(builder.Tree, "_write_branch", "branch")  # consolidate: branch k being written
    wrap(builder.Tree, "detach", "detach")  # forget: announced, tree being rewritten
    wrap(catalog_mod.Catalog, "_swap_in", "swap")  # rebuild: the new catalog complete
    faults.install(lambda point: pause_here(point.removeprefix("sync.")))  # sync's checkpoints
    if op == "sync":
        from ihmt.sync import sync

        print("READY", flush=True)
        sync(workspace)
    else:
        memory = IHMT.open(workspace)
        print("READY", flush=True)
        if op == "rebuild":
            memory.rebuild()
        elif op == "consolidate":
            memory.flush()
        elif op == "ingest":
            docs = json.loads(Path(arg).read_text(encoding="utf-8"))
            memory.ingest_batch(docs)
        elif op == "forget":
            memory.forget(leaf_id=arg)
        else:
            raise SystemExit(f"unknown op {op}")
    print("DONE", flush=True)


def probe() -> None:
    """argv: probe WORKSPACE WORDS_FILE. Prints JSON: for each word, [found, notice]."""
    from ihmt import IHMT

    memory = IHMT.open(sys.argv[2])
    words = json.loads(Path(sys.argv[3]).read_text(encoding="utf-8"))
    out = {}
    for w in words:
        result = memory.search(w, top_k=3)
        found = any(w in hit.content for hit in result.hits) and not result.not_found
        out[w] = [found, result.index_incomplete]
    print(json.dumps(out))


# -- the parent's side -------------------------------------------------------------------------


@dataclass
class Outcome:
    case: str
    memories: int = 0
    landed: str = "–"  # where the kill landed ("–" when no kill)
    lost: int = 0
    silent: int = 0
    flagged: int = 0  # not found right after the fault, with a notice saying why
    message: str = ""
    expected: str = ""
    named: bool | None = None  # None: nothing to fix (check clean, every memory found)
    healthy_after: bool = True
    skipped: str = ""
    extra_bad: int = 0  # other broken promises (a forgotten memory back)
    notes: list[str] = field(default_factory=list)


class Runner:
    """Runs probes and CLI commands as a given user (root's cases run as root)."""

    def __init__(self, base: Path, python: str = sys.executable, user: str = "") -> None:
        self.base, self.python, self.user = base, python, user
        self.script = str(Path(__file__).resolve())

    def _run(self, argv: list[str], timeout: float = 300) -> subprocess.CompletedProcess:
        env = {
            "HOME": str(self.base),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONIOENCODING": "utf-8",
            **GIT_IDENTITY,
        }
        return subprocess.run(
            argv,
            user=self.user or None,
            cwd=str(self.base),
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def probe(self, ws: Path, words: list[str]) -> dict[str, list]:
        listing = Path(tempfile.mkstemp(dir=self.base, suffix=".json")[1])
        listing.write_text(json.dumps(words), encoding="utf-8")
        listing.chmod(0o644)
        done = self._run([self.python, self.script, "probe", str(ws), str(listing)])
        listing.unlink()
        if done.returncode:
            raise RuntimeError(f"probe failed: {(done.stderr or done.stdout).strip()[-300:]}")
        return json.loads(done.stdout)

    def cli(self, ws: Path, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return self._run([self.python, str(ROOT / "main.py"), "--path", str(ws), *argv])


def tally(out: Outcome, *probes: dict[str, list], words: list[str]) -> None:
    """Right after the fault: each memory is found, unfound with a notice, or silently
    unfindable (in at least one of the probes)."""
    silent = {w for seen in probes for w in words if not seen[w][0] and not seen[w][1]}
    flagged = {w for seen in probes for w in words if not seen[w][0] and seen[w][1]} - silent
    out.silent, out.flagged = len(silent), len(flagged)


def lost_after(out: Outcome, seen: dict[str, list], words: list[str]) -> None:
    out.lost = sum(1 for w in words if not seen[w][0])


def problem_lines(check: subprocess.CompletedProcess) -> list[str]:
    text = check.stdout + check.stderr
    return [ln.strip()[2:] for ln in text.splitlines() if ln.strip().startswith("- ")]


def make_store(ws: Path, case: int, n: int, consolidate: bool = True) -> list[str]:
    from ihmt import IHMT

    memory = IHMT.initialize(ws, **TREE)
    words = [word(case, i) for i in range(n)]
    memory.ingest_batch(
        ({"text": text_of(w, i), "source": f"note-{i}"} for i, w in enumerate(words)),
        consolidate=consolidate,
    )
    memory.close()
    return words


def paused_kill(base: Path, op: str, ws: Path, step: str, count: int, arg: str = "") -> str:
    """Run OP in a child, SIGKILL it once it paused at STEP; returns where it landed, or why
    the kill missed ("finished first", "failed: ...")."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **GIT_IDENTITY)
    proc = subprocess.Popen(
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "child",
            op,
            str(ws),
            step,
            str(count),
            arg,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=str(base),
        env=env,
        start_new_session=True,
    )
    landed = ""
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("PAUSED"):
            landed = f"{step} #{count}"
            os.killpg(proc.pid, signal.SIGKILL)
            break
        if line.startswith("DONE"):
            break
    proc.wait(timeout=120)
    err = proc.stderr.read() if proc.stderr else ""
    with contextlib.suppress(Exception):
        proc.stdout.close()
        proc.stderr.close()
    if landed and proc.returncode == -signal.SIGKILL:
        return landed
    if proc.returncode == 0:
        return "MISSED (finished first)"
    return f"MISSED (exit {proc.returncode}: {err.strip()[-200:]})"


def apply_named_fix(runner: Runner, ws: Path, text: str, out: Outcome) -> None:
    """Do what the message said (the first fix it names)."""
    if FIXES["sync"] in text:
        done = runner.cli(ws, "sync")
    elif FIXES["rebuild"] in text:
        done = runner.cli(ws, "rebuild")
    elif FIXES["repair"] in text:
        done = runner.cli(ws, "check", "--repair")
    elif FIXES["next write"] in text:
        done = runner.cli(ws, "save", "After the interruption the next write went through.")
    else:
        return
    if done.returncode:
        out.notes.append(f"the named fix failed: {(done.stderr or done.stdout).strip()[:160]}")


# -- kill cases --------------------------------------------------------------------------------

KILLS = [  # (op, step, which occurrence of the step: a fraction of the memories or a number)
    ("rebuild", "leaf", 0.5),
    ("rebuild", "swap", 1),
    ("consolidate", "branch", 2),
    ("ingest", "index", 1),
    ("sync", "merged", 1),
    ("sync", "index", 1),
    ("forget", "detach", 1),
]
KILLS_FULL = [
    ("rebuild", "leaf", 0.1),
    ("rebuild", "leaf", 0.9),
    ("rebuild", "branch", 0.1),
    ("rebuild", "swap", 1),
    ("consolidate", "branch", 1),
    ("consolidate", "branch", 0.1),
    ("ingest", "index", 1),
    ("ingest", "branch", 1),
    ("sync", "merged", 1),
    ("sync", "applied", 1),
    ("sync", "index", 1),
    ("sync", "reconciled", 1),
    ("forget", "detach", 1),
]
EXPECTED = {
    "rebuild": "nothing, or `ihmt rebuild`",
    "consolidate": "the next write, or `ihmt check --repair`",
    "ingest": "the next write, or `ihmt check --repair`",
    "sync": "`ihmt sync` or `ihmt rebuild`",
    "forget": "the next write, or `ihmt check --repair`",
}
ALLOWED = {
    "rebuild": ("rebuild", "repair"),
    "consolidate": ("next write", "repair"),
    "ingest": ("next write", "repair"),
    "sync": ("sync", "rebuild"),
    "forget": ("next write", "repair"),
}


def kill_case(base: Path, index: int, op: str, step: str, when: float, n: int) -> Outcome:
    from ihmt import IHMT

    out = Outcome(case=f"kill -9 during {op} ({step})", expected=EXPECTED[op])
    folder = base / f"kill{index}"
    folder.mkdir()
    ws = folder / "ws"
    words = make_store(ws, index, n, consolidate=op != "consolidate")
    arg = ""
    arriving: list[str] = []  # memories whose files reach this store during the operation
    forgotten = ""
    if op == "ingest":
        extra = [word(index, n + i) for i in range(n // 2)]
        docs = [{"text": text_of(w, n + i), "source": f"late-{i}"} for i, w in enumerate(extra)]
        arg = str(folder / "docs.json")
        Path(arg).write_text(json.dumps(docs), encoding="utf-8")
        out.notes.append(f"{len(extra)} memories being ingested (never reported saved)")
    elif op == "forget":
        memory = IHMT.open(ws)
        target = memory.search(words[0], top_k=1).best
        memory.close()
        arg, forgotten = target.leaf_id, words[0]
        words = words[1:]
    elif op == "sync":
        arriving = sync_setup(folder, ws, index, n)
    count = max(1, int(n * when)) if isinstance(when, float) else int(when)
    out.landed = paused_kill(folder, op, ws, step, count, arg)
    out.memories = len(words) + len(arriving)
    runner = Runner(folder)
    seen = runner.probe(ws, words + arriving + ([forgotten] if forgotten else []))
    present = set(words) | {w for w in arriving if _on_disk(ws, w)}
    tally(out, seen, words=[w for w in words + arriving if w in present])
    check = runner.cli(ws, "check")
    problems = problem_lines(check)
    out.message = problems[0] if problems else (check.stdout.strip().splitlines() or [""])[0]
    said = check.stdout + check.stderr + " ".join(v[1] for v in seen.values())
    if check.returncode == 0 and not out.silent and not out.flagged:
        out.named = None
    else:
        out.named = any(FIXES[k] in said for k in ALLOWED[op])
    apply_named_fix(runner, ws, said, out)
    after = runner.probe(ws, words + arriving + ([forgotten] if forgotten else []))
    lost_after(out, after, words + arriving)
    if forgotten and after[forgotten][0]:
        out.notes.append("the forgotten memory is still findable after recovery")
        out.extra_bad += 1
    final = runner.cli(ws, "check")
    out.healthy_after = final.returncode == 0
    if not out.healthy_after:
        out.notes.append("after the fix, check: " + "; ".join(problem_lines(final))[:200])
    return out


def _on_disk(ws: Path, w: str) -> bool:
    layer0 = ws / "ihmt_memory" / "layer_0"
    return any(w.encode() in p.read_bytes() for p in layer0.rglob("*.txt"))


def sync_setup(folder: Path, ws: Path, index: int, n: int) -> list[str]:
    """A bare repository as the remote; this store pushes its memories, a peer clone adds
    n/2 of its own and pushes them: the killed sync is this store pulling them."""
    from ihmt import IHMT
    from ihmt.sync import sync

    old = {k: os.environ.get(k) for k in GIT_IDENTITY}
    os.environ.update(GIT_IDENTITY)
    try:
        remote = folder / "remote.git"
        subprocess.run(
            ["git", "-c", "init.defaultBranch=main", "init", "-q", "--bare", str(remote)],
            check=True,
            capture_output=True,
        )
        sync(ws, str(remote))
        peer = folder / "peer"
        IHMT.initialize(peer, **TREE).close()
        sync(peer, str(remote))
        extra = [word(index, 500 + i) for i in range(max(4, n // 2))]
        memory = IHMT.open(peer)
        memory.ingest_batch(
            {"text": text_of(w, 500 + i), "source": f"peer-{i}"} for i, w in enumerate(extra)
        )
        memory.close()
        sync(peer)
        return extra
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# -- full disk, read-only store, unreadable leaf -----------------------------------------------


def full_disk_case(base: Path, n: int) -> Outcome:
    out = Outcome(case="full disk (tmpfs)", expected="free space and retry")
    mount = base / "tmpfs"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode:
        out.skipped = f"cannot mount a tmpfs here ({(done.stderr or 'mount failed').strip()[:120]})"
        return out
    try:
        ws = mount / "ws"
        words = make_store(ws, 90, n)
        out.memories = len(words)
        filler = mount / "filler"
        with open(filler, "wb") as handle, contextlib.suppress(OSError):
            while True:
                handle.write(b"\0" * (1 << 20))
                handle.flush()
        with contextlib.suppress(OSError), open(mount / "filler2", "wb") as handle:
            while True:  # the last few KiB too
                handle.write(b"\0" * 4096)
                handle.flush()
        runner = Runner(base)
        saves = [
            runner.cli(ws, "save", f"On a full disk the {word(90, 900)} flag was set."),
            runner.cli(ws, "rebuild"),
        ]
        failed = [d for d in saves if d.returncode]
        out.message = (failed[0].stderr.strip() if failed else "the writes succeeded")[:300]
        out.named = bool(failed) and all(
            FIXES["free space"] in d.stderr and len(d.stderr.strip().splitlines()) == 1
            for d in failed
        )
        if len(failed) < len(saves):
            out.notes.append(f"{len(saves) - len(failed)} write(s) went through on a full disk")
        tally(out, runner.probe(ws, words), words=words)
        filler.unlink()
        (mount / "filler2").unlink(missing_ok=True)
        retry = runner.cli(ws, "save", f"After freeing space the {word(90, 901)} flag was set.")
        if retry.returncode:
            out.notes.append(f"the save after freeing space failed: {retry.stderr.strip()[:160]}")
        after = runner.probe(ws, [*words, word(90, 901)])
        lost_after(out, after, [*words, word(90, 901)])
        out.healthy_after = runner.cli(ws, "check").returncode == 0
        return out
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def as_unprivileged(ws: Path) -> tuple[str | None, str, str]:
    """(python, user, why not): the nobody user owns the store when we are root."""
    from tests.test_crash import _unprivileged

    python, user, reason = _unprivileged()
    if python is None:
        return None, "", reason
    if user:
        import pwd

        entry = pwd.getpwnam(user)
        for path in [ws, *ws.rglob("*")]:
            os.chown(path, entry.pw_uid, entry.pw_gid, follow_symlinks=False)
    return python, user, ""


def read_only_case(base: Path, n: int) -> Outcome:
    out = Outcome(case="read-only store", expected="chmod u+w (write permission)")
    folder = base / "ro"
    folder.mkdir(mode=0o755)
    ws = folder / "ws"
    words = make_store(ws, 91, n)
    out.memories = len(words)
    python, user, reason = as_unprivileged(ws)
    if python is None:
        out.skipped = reason
        return out
    subprocess.run(["chmod", "-R", "a-w", str(ws)], check=True)
    runner = Runner(folder, python, user)
    tries = [
        runner.cli(ws, "save", f"On a read-only store the {word(91, 900)} flag was set."),
        runner.cli(ws, "rebuild"),
    ]
    failed = [d for d in tries if d.returncode]
    out.message = (failed[0].stderr.strip() if failed else "the writes succeeded")[:300]
    out.named = bool(failed) and all(
        "read-only" in d.stderr
        and FIXES["write permission"] in d.stderr
        and len(d.stderr.strip().splitlines()) == 1
        for d in failed
    )
    if not out.named:
        out.notes += [f"refusal: {d.stderr.strip()[:240]}" for d in failed]
    tally(out, runner.probe(ws, words), words=words)
    subprocess.run(["chmod", "-R", "u+w", str(ws)], check=True)
    retry = runner.cli(ws, "save", f"Writable again, the {word(91, 901)} flag was set.")
    if retry.returncode:
        out.notes.append(f"the save after chmod u+w failed: {retry.stderr.strip()[:160]}")
    after = runner.probe(ws, [*words, word(91, 901)])
    lost_after(out, after, [*words, word(91, 901)])
    out.healthy_after = runner.cli(ws, "check").returncode == 0
    return out


def unreadable_case(base: Path, n: int) -> Outcome:
    out = Outcome(case="unreadable leaf (chmod 000)", expected="chmod u+r, then check --repair")
    folder = base / "unreadable"
    folder.mkdir(mode=0o755)
    ws = folder / "ws"
    words = make_store(ws, 92, n)
    out.memories = len(words)
    python, user, reason = as_unprivileged(ws)
    if python is None:
        out.skipped = reason
        return out
    layer0 = ws / "ihmt_memory" / "layer_0"
    locked = next(p for p in layer0.rglob("*.txt") if words[0].encode() in p.read_bytes())
    locked.chmod(0)
    runner = Runner(folder, python, user)
    before = runner.probe(ws, words)  # before any pass: the search is refused the read
    check = runner.cli(ws, "check")
    problems = problem_lines(check)
    out.message = next((p for p in problems if "cannot read" in p), check.stdout.strip()[:200])
    rebuilt = runner.cli(ws, "rebuild")  # worst case: the memory is not in the index at all
    if rebuilt.returncode:
        out.notes.append(f"rebuild failed: {rebuilt.stderr.strip()[:160]}")
    seen = runner.probe(ws, words)
    tally(out, before, seen, words=words)
    notices = [p[w][1] for p in (before, seen) for w in words if not p[w][0]]
    out.named = (
        FIXES["read permission"] in out.message
        and check.returncode == 1
        and all("`ihmt check`" in note for note in notices)
    )
    locked.chmod(0o644)
    runner.cli(ws, "check", "--repair")
    after = runner.probe(ws, words)
    lost_after(out, after, words)
    if any(v[1] for v in after.values()):
        out.notes.append("a notice remained after the fix")
    out.healthy_after = runner.cli(ws, "check").returncode == 0
    return out


def run_all(base: Path, n: int, kills: list | None = None) -> list[Outcome]:
    outcomes = []
    for index, (op, step, when) in enumerate(kills or KILLS):
        print(f"  kill -9 during {op} at {step}", flush=True)
        outcomes.append(kill_case(base, index, op, step, when, n))
    for name, case in (
        ("full disk", full_disk_case),
        ("read-only store", read_only_case),
        ("unreadable leaf", unreadable_case),
    ):
        print(f"  {name}", flush=True)
        outcomes.append(case(base, n))
    return outcomes


def broken(outcomes: list[Outcome]) -> int:
    """How many promises the fault cases broke (0 when every figure is as it must be)."""
    bad = 0
    for o in outcomes:
        if o.skipped:
            continue
        bad += o.lost + o.silent + (o.named is False) + (not o.healthy_after)
        bad += o.landed.startswith("MISSED") + o.extra_bad
    return bad


def render(outcomes: list[Outcome], n: int) -> str:
    def yes(flag: bool | None) -> str:
        return "n/a (nothing to fix)" if flag is None else ("yes" if flag else "**NO**")

    lines = [
        f"Each case: a store of {n} memories (branch_factor {TREE['branch_factor']}, "
        f"target_tokens {TREE['target_tokens']}), one fault, then every memory searched in a "
        "fresh process as the user the fault applies to. *Silently unfindable*: not found while "
        "the answer carries no notice that the index is incomplete or files cannot be read. "
        "*Lost*: not found after applying the fix the message names. Kills are SIGKILLs sent "
        "only once the child paused inside the named step (pause-at-step, as in "
        "tests/helpers_catalog.py).",
        "",
        "| fault | kill landed at | memories | lost | silently unfindable | unfound with a notice "
        "| message (first line) | expected fix | message names it | check clean after the fix |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        if o.skipped:
            lines.append(f"| {o.case} | skipped: {o.skipped} | | | | | | | | |")
            continue
        message = re.sub(r"/\S*?/ihmt_memory", "<store>", o.message)
        message = message.replace("|", "\\|").replace("\n", " ")[:240]
        lines.append(
            f"| {o.case} | {o.landed} | {o.memories} | {o.lost} | {o.silent} | {o.flagged} | "
            f"{message} | {o.expected} | {yes(o.named)} | {'yes' if o.healthy_after else '**NO**'} |"
        )
    notes = [f"- {o.case}: {note}" for o in outcomes for note in o.notes]
    if notes:
        lines += ["", "Notes:", "", *notes]
    return "\n".join(lines)


def isolated() -> Path:
    base = Path(tempfile.mkdtemp(prefix="ihmt-faults-"))
    os.chmod(base, 0o755)
    return base


def main_faults(n: int, kills: list | None = None) -> tuple[str, int]:
    base = isolated()
    try:
        outcomes = run_all(base, n, kills)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return render(outcomes, n), broken(outcomes)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "child":
        child()
    elif len(sys.argv) > 1 and sys.argv[1] == "probe":
        probe()
    else:
        body, bad = main_faults(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
        print(body)
        raise SystemExit(1 if bad else 0)
