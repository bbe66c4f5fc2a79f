"""Shared helpers for the reliability tests and benchmarks: real child processes on one store.

A child is ``python -c BOOT <role> <args...>``: it puts the repository root on ``sys.path`` and
runs ``child_main``, which dispatches on the role. Children report on stdout, one line per event,
flushed at once, so a parent that kills one with SIGKILL still knows exactly what it reported:

    READY                       the store is open
    START <k>                   operation k begins
    DONE <k> <word> <word> ...  operation k returned; these unique words are saved
    MISS <word>                 a search did not find a word this child had saved

Unique words are lowercase letters only ("qz" + base-26 digits + "x"), so the tokenizer keeps
each one as a single term and no other text contains it.

Also here: the tree walk that checks reachability and duplicates from the files themselves
(root.json -> branch files -> leaf ids), and a small asynchronous MCP client over stdio.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOT = (
    f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
    "from tests.helpers_procs import child_main; child_main()"
)
SMALL_TREE = {"branch_factor": 4, "target_tokens": 64, "max_tokens": 96}


# -- words and texts -------------------------------------------------------------------------


def letters(n: int, width: int = 3) -> str:
    """``n`` in base 26 with the letters a-z, left-padded to ``width``."""
    out = ""
    while n or len(out) < width:
        n, r = divmod(n, 26)
        out = chr(97 + r) + out
    return out


def unique_word(*parts: int) -> str:
    """A word no other text contains: qz + one base-26 group per part + x."""
    return "qz" + "".join(letters(p, 2) for p in parts) + "x"


def memory_text(word: str, who: int, index: int) -> str:
    return (
        f"Agent {who} noted in session {index} that the {word} setting of the staging "
        f"cluster must stay enabled during deploys."
    )


# -- processes ---------------------------------------------------------------------------------


def child_env(extra: dict | None = None) -> dict:
    env = dict(os.environ)
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("IHMT_DEBUG", None)
    if extra:
        env.update(extra)
    return env


def spawn(role: str, *args: object, env: dict | None = None, **popen) -> subprocess.Popen:
    """Start a child process running ``role`` (see ``child_main``)."""
    popen.setdefault("stdout", subprocess.PIPE)
    popen.setdefault("stderr", subprocess.PIPE)
    popen.setdefault("text", True)
    popen.setdefault("cwd", str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-c", BOOT, role, *map(str, args)], env=child_env(env), **popen
    )


def run_role(
    role: str, *args: object, timeout: float = 180, **popen
) -> subprocess.CompletedProcess:
    proc = spawn(role, *args, **popen)
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def reported(stdout: str) -> tuple[list[str], list[int], list[str]]:
    """(saved words, finished op indexes, missed words) from a child's stdout.

    A last line cut by a kill (no newline) is ignored: it was never fully reported."""
    saved: list[str] = []
    done_ops: list[int] = []
    missed: list[str] = []
    lines = stdout.split("\n")
    for line in lines[:-1]:
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "DONE":
            done_ops.append(int(parts[1]))
            saved += parts[2:]
        elif parts[0] == "MISS":
            missed += parts[1:]
    return saved, done_ops, missed


def last_started(stdout: str) -> int:
    starts = [int(line.split()[1]) for line in stdout.split("\n")[:-1] if line.startswith("START ")]
    return max(starts, default=-1)


# -- checks on the files themselves ------------------------------------------------------------


def tree_problems(memory) -> list[str]:
    """Walk root.json -> branch files and compare with the catalog and layer_0, in plain words.

    Independent of the library's own check: reads the JSON files directly."""
    layout = memory.layout
    problems: list[str] = []
    root = json.loads(layout.root_json.read_text(encoding="utf-8"))
    stack = list(root["entries"])
    reached: list[str] = []
    branches_seen: Counter = Counter()
    while stack:
        ref = stack.pop()
        if ref["kind"] == "leaf":
            reached.append(ref["id"])
            continue
        branches_seen[ref["id"]] += 1
        layer = int(ref["id"][1 : ref["id"].index("-")])
        path = layout.layers / str(layer) / f"{ref['id']}.json"
        try:
            branch = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            problems.append(f"branch {ref['id']} unreadable: {exc}")
            continue
        stack.extend(branch["children"])
    for node, count in (Counter(reached) + branches_seen).items():
        if count > 1:
            problems.append(f"{node} is reached {count} times from the root")
    catalog = {r["id"] for r in memory.catalog.all_leaves()}
    for leaf_id in sorted(catalog - set(reached)):
        problems.append(f"leaf {leaf_id} is not reachable from the root")
    for leaf_id in sorted(set(reached) - catalog):
        problems.append(f"the tree names {leaf_id}, which the catalog does not know")
    on_disk = {p.stem for p in layout.layer0.rglob("*.txt")}
    for leaf_id in sorted(on_disk - catalog):
        problems.append(f"leaf file {leaf_id} is not in the catalog")
    contents = Counter(leaf.content for leaf in memory.leaves())
    for text, count in contents.items():
        if count > 1:
            problems.append(f"{count} leaves hold the same text {text[:60]!r}")
    return problems


def findable(memory, word: str) -> bool:
    result = memory.search(word, top_k=3)
    return result.best is not None and word in result.best.content


def store_bytes(store_root: Path) -> dict[Path, bytes]:
    """Every file under the store folder, bytes and all (for the forget grep)."""
    return {p: p.read_bytes() for p in store_root.rglob("*") if p.is_file()}


# -- the crash writer's operations ---------------------------------------------------------------

REVISED_SOURCE = "revised-notes"
STABLE_REVISION_PARAGRAPH = (
    "Release checklist for the billing service. Run the migrations first, then warm the caches "
    "and only then switch the traffic over to the new pods."
)


def crash_op(trial: int, seed: int, k: int) -> dict:
    """Operation ``k`` of crash trial ``trial``: deterministic, so a parent can replay it."""
    rng = random.Random(f"{seed}/{trial}/{k}")
    kind = rng.choices(
        ["save", "ingest", "batch", "revise", "consolidate", "flush"], [50, 14, 8, 10, 12, 6]
    )[0]
    op: dict = {"kind": kind, "k": k, "docs": []}
    if kind == "save":
        w = unique_word(trial, k, 0)
        op["docs"] = [{"words": [w], "text": memory_text(w, trial, k)}]
    elif kind == "ingest":
        ws = [unique_word(trial, k, j) for j in range(3)]
        text = "\n\n".join(
            f"Paragraph {j} of the design log: the {w} component talks to the queue through "
            f"a retrying client with jitter and a circuit breaker for the payment path."
            for j, w in enumerate(ws)
        )
        op["docs"] = [{"words": ws, "text": text, "source": f"doc-{trial}-{k}"}]
    elif kind == "batch":
        for j in range(10):
            w = unique_word(trial, k, j)
            op["docs"].append(
                {
                    "words": [w],
                    "text": f"Batch entry {j}: the {w} job rotates the nightly logs at two.",
                    "source": f"batch-{trial}-{k}-{j}",
                }
            )
    elif kind == "revise":
        w = unique_word(trial, k, 0)
        text = (
            STABLE_REVISION_PARAGRAPH
            + "\n\n"
            + f"Current revision marker {w}: the rollout waits for two green health checks "
            "before it moves on to the next availability zone."
        )
        op["docs"] = [{"words": [w], "text": text, "source": REVISED_SOURCE}]
    return op


def apply_op(memory, op: dict, docs: list[dict] | None = None) -> None:
    """Run one crash-writer operation through the library (``docs`` narrows a batch)."""
    docs = op["docs"] if docs is None else docs
    kind = op["kind"]
    if kind == "save":
        memory.save(docs[0]["text"])
    elif kind in ("ingest", "revise"):
        memory.ingest_text(docs[0]["text"], source=docs[0]["source"])
    elif kind == "batch":
        memory.ingest_batch({"text": d["text"], "source": d["source"]} for d in docs)
    elif kind == "consolidate":
        memory.consolidate()
    elif kind == "flush":
        memory.flush()


# -- child roles -----------------------------------------------------------------------------------


def _say(*parts: object) -> None:
    sys.stdout.write(" ".join(map(str, parts)) + "\n")
    sys.stdout.flush()


def _role_writer(workspace: str, who: str, count: str, flush_every: str, search_every: str) -> None:
    """Save ``count`` memories; every ``flush_every`` saves flush or consolidate; every
    ``search_every`` saves look up an earlier word of this writer (MISS if not found)."""
    from ihmt import IHMT

    memory = IHMT.open(workspace)
    n, fe, se = int(count), int(flush_every), int(search_every)
    rng = random.Random(int(who))
    saved: list[str] = []
    _say("READY")
    for i in range(n):
        w = unique_word(int(who), i)
        _say("START", i)
        memory.save(memory_text(w, int(who), i))
        saved.append(w)
        _say("DONE", i, w)
        if fe and i % fe == fe - 1:
            if (i // fe) % 2:
                memory.flush()
            else:
                memory.consolidate()
        if se and i % se == se - 1:
            probe = rng.choice(saved)
            if not findable(memory, probe):
                _say("MISS", probe)


def _role_crash(workspace: str, trial: str, seed: str) -> None:
    """Run crash_op 0, 1, 2, ... until killed."""
    from ihmt import IHMT

    memory = IHMT.open(workspace)
    _say("READY")
    k = 0
    while True:
        op = crash_op(int(trial), int(seed), k)
        _say("START", k)
        apply_op(memory, op)
        words = [w for d in op["docs"] for w in d["words"]]
        _say("DONE", k, *words)
        k += 1


def _role_faulty_cli(mode: str, amount: str, *cli_args: str) -> None:
    """The CLI on a failing disk.

    ``enospc``: the first ``amount`` disk operations (file writes through ``os.fdopen`` and
    ``os.fsync`` calls, which is how the store writes its files) succeed, every later one fails
    with ENOSPC, as on a disk that just filled up. ``count``: nothing fails; the number of those
    operations is printed to stderr as ``DISKOPS n``.
    ``fsize``: the kernel refuses to grow any file beyond ``amount`` bytes (RLIMIT_FSIZE, with
    SIGXFSZ ignored so the write fails with EFBIG instead of killing the process); this hits
    every writer, SQLite included."""
    import errno

    if mode in ("enospc", "count"):
        import atexit

        spent = {"n": 0}
        limit = int(amount) if mode == "enospc" else 1 << 62
        real_fsync, real_fdopen = os.fsync, os.fdopen

        def spend() -> None:
            spent["n"] += 1
            if spent["n"] > limit:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        class FillingFile:
            def __init__(self, handle) -> None:
                self._handle = handle

            def write(self, data):
                spend()
                return self._handle.write(data)

            def __getattr__(self, name):
                return getattr(self._handle, name)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return self._handle.__exit__(*exc)

        def fdopen(fd, mode="r", *args, **kwargs):
            handle = real_fdopen(fd, mode, *args, **kwargs)
            return FillingFile(handle) if "w" in mode else handle

        def fsync(fd) -> None:
            spend()
            real_fsync(fd)

        os.fdopen, os.fsync = fdopen, fsync
        if mode == "count":
            atexit.register(lambda: sys.stderr.write(f"DISKOPS {spent['n']}\n"))
    elif mode == "fsize":
        import resource
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (int(amount), int(amount)))
    from ihmt.cli import main

    raise SystemExit(main(list(cli_args)))


def _role_holder(workspace: str) -> None:
    """A long-lived reader: keeps one IHMT open and answers ``search <word>`` lines from stdin
    with ``FOUND <word>`` or ``NOTFOUND <word>``, until ``quit``."""
    from ihmt import IHMT

    memory = IHMT.open(workspace)
    _say("READY")
    for line in sys.stdin:
        parts = line.split()
        if not parts or parts[0] == "quit":
            break
        if parts[0] == "search":
            _say("FOUND" if findable(memory, parts[1]) else "NOTFOUND", parts[1])


ROLES = {
    "writer": _role_writer,
    "crash": _role_crash,
    "faulty-cli": _role_faulty_cli,
    "holder": _role_holder,
}


def child_main() -> None:
    role, *args = sys.argv[1:]
    ROLES[role](*args)


# -- a small MCP client over stdio -----------------------------------------------------------------


@contextlib.asynccontextmanager
async def mcp_session(home: Path, cwd: Path, errlog, startup: float = 120.0):
    """A ClientSession on a fresh ``python mcp_server.py`` with IHMT_HOME=home."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    cwd.mkdir(parents=True, exist_ok=True)
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(ROOT / "mcp_server.py")],
        env={
            "IHMT_HOME": str(home),
            "HOME": str(home.parent),
            "PYTHONIOENCODING": "utf-8",
            "PATH": os.environ.get("PATH", ""),
        },
        cwd=str(cwd),
    )
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            with anyio.fail_after(startup):
                await session.initialize()
            yield session


async def mcp_call(session, name: str, args: dict, limit: float = 90.0) -> tuple[str, bool]:
    """(text, is_error) of one tool call."""
    import anyio

    with anyio.fail_after(limit):
        result = await session.call_tool(name, args)
    data = result.model_dump(by_alias=True)
    text = "\n".join(block.get("text", "") for block in data["content"])
    return text, bool(data.get("isError"))


# -- crash campaigns: kill a writer at random instants, then verify the store ---------------------


def crash_trial(workspace: Path, trial: int, seed: int, delay: float, errfile: Path) -> str:
    """Run the crash writer until ``delay`` seconds after READY, SIGKILL it, return its stdout."""
    import time

    with open(errfile, "w", encoding="utf-8") as err:
        proc = spawn("crash", workspace, trial, seed, stderr=err)
        try:
            first = proc.stdout.readline()
            if first.strip() == "READY":
                time.sleep(delay)
            proc.kill()
            rest = proc.stdout.read()
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()
    if proc.returncode != -9:
        text = errfile.read_text(encoding="utf-8")
        raise AssertionError(f"crash writer {trial} ended by itself ({proc.returncode}): {text}")
    return first + rest


class CrashCampaign:
    """Kill crash writers again and again on one store; after every kill check that the store
    opens, that readers find every reported save before and after recovery, that one write
    (plus ``check(repair=True)`` only where check asks for it) leaves a valid tree, and that
    nothing a finished revision replaced comes back.

    ``problems`` collects every broken promise in words (a test asserts it stays empty);
    the counters feed the benchmark table."""

    def __init__(self, workspace: Path, seed: int, scratch: Path) -> None:
        from ihmt import IHMT

        self.workspace = workspace.resolve()
        self.seed = seed
        self.scratch = scratch.resolve()
        self.rng = random.Random(seed)
        IHMT.initialize(self.workspace, **SMALL_TREE)
        self.trials: list[tuple[int, int]] = []  # (trial, last started op)
        self.saved: list[str] = []  # every reported word still expected
        self.dropped: set[str] = set()  # revision words a reported revise replaced
        self.superseded: set[str] = set()  # revision words a later started revise may replace
        self.revisions: list[str] = []  # revision words in the order their ops started
        self.problems: list[str] = []
        self.stats = Counter()
        self.check_messages: Counter = Counter()

    def run(self, trials: int, max_delay: float = 1.0, sample: int = 20) -> None:
        for _ in range(trials):
            self.one(self.rng.uniform(0.0, max_delay), sample)

    def one(self, delay: float, sample: int = 20) -> None:
        from ihmt import IHMT

        trial = len(self.trials)
        out = crash_trial(self.workspace, trial, self.seed, delay, self.scratch / "crash.err")
        words, done_ops, _ = reported(out)
        started = last_started(out)
        self.trials.append((trial, started))
        self.stats["trials"] += 1
        self.stats["ops_reported"] += len(done_ops)
        self.stats["killed_mid_op"] += int(started >= 0 and started not in done_ops)
        for k in range(started + 1):
            op = crash_op(trial, self.seed, k)
            if op["kind"] != "revise":
                continue
            # A revision replaces the earlier ones: once it has started they may be gone (a
            # killed revision that got far enough is completed by recovery); once it is
            # reported they must be gone.
            self.superseded.update(self.revisions)
            if k in done_ops:
                self.dropped.update(self.revisions)
            self.revisions.append(op["docs"][0]["words"][0])
        self.saved = [w for w in self.saved if w not in self.superseded]
        new = [w for w in words if w not in self.superseded]
        self.saved += new
        self.stats["words_reported"] += len(words)
        others = [w for w in self.saved if w not in set(new)]
        probe = new + self.rng.sample(others, min(sample, len(others)))

        try:
            memory = IHMT.open(self.workspace)
        except Exception as exc:  # the promise: it opens
            self.problems.append(f"trial {trial}: the store does not open: {exc!r}")
            return
        lost_before = self._unfound(memory, probe, trial)
        if lost_before:
            self.problems.append(
                f"trial {trial}: reported saves not found before recovery: {lost_before[:5]}"
            )
        first = memory.check()
        if not first.ok:
            self.stats["check_not_ok_after_kill"] += 1
            for problem in first.problems:
                self.check_messages[_problem_kind(problem)] += 1
        memory.consolidate()  # the next write finishes whatever the kill interrupted
        second = memory.check()
        if not second.ok:
            self.stats["needed_check_repair"] += 1
            for problem in second.problems:
                self.check_messages["after a write: " + _problem_kind(problem)] += 1
            repaired = memory.check(repair=True)
            if not repaired.ok:
                self.problems.append(f"trial {trial}: check --repair left {repaired.problems[:5]}")
        shape = tree_problems(memory)
        if shape:
            self.problems.append(f"trial {trial}: tree problems {shape[:5]}")
        lost = self._unfound(memory, probe, trial)
        if lost:
            self.stats["losses"] += len(lost)
            self.problems.append(f"trial {trial}: reported saves lost: {lost[:5]}")
        back = [w for w in self.dropped if w not in self._unfound(memory, [w], trial)]
        if back:
            self.problems.append(f"trial {trial}: replaced revisions came back: {back[:5]}")
        memory.close()

    def _unfound(self, memory, words: list[str], trial: int) -> list[str]:
        """The words a search does not find; a search that raises counts, and is noted."""
        out = []
        for w in words:
            try:
                if not findable(memory, w):
                    out.append(w)
            except Exception as exc:
                out.append(w)
                self.problems.append(f"trial {trial}: search {w} raised {exc!r}")
        return out

    def finish(self, clean_workspace: Path) -> dict:
        """Retry the interrupted work a user would retry, flush, verify every reported save and
        compare the leaf set with a clean, crash-free run of the operations that made it in."""
        from ihmt import IHMT

        memory = IHMT.open(self.workspace)
        present = _words_in_store(memory)
        ops = [crash_op(t, self.seed, k) for t, last in self.trials for k in range(last + 1)]
        for op in ops:  # a document half stored by a killed writer: retry it
            for doc in op["docs"]:
                if op["kind"] != "revise" and 0 < sum(w in present for w in doc["words"]) < len(
                    doc["words"]
                ):
                    apply_op(memory, op, [doc])
                    self.stats["retried_partial_docs"] += 1
        last_revise = [op for op in ops if op["kind"] == "revise"][-1:]
        for op in last_revise:  # the latest revision: retry it (it may have been cut short)
            apply_op(memory, op)
        memory.flush()
        report = memory.check()
        if not report.ok:
            self.problems.append(f"final check: {report.problems[:5]}")
        shape = tree_problems(memory)
        if shape:
            self.problems.append(f"final tree problems: {shape[:5]}")
        lost = self._unfound(memory, self.saved, -1)
        self.stats["final_losses"] = len(lost)
        if lost:
            self.problems.append(f"final: {len(lost)} reported saves lost: {lost[:5]}")
        present = _words_in_store(memory)
        clean = IHMT.initialize(clean_workspace, **SMALL_TREE)
        for op in ops:
            docs = [d for d in op["docs"] if any(w in present for w in d["words"])]
            if docs:
                apply_op(clean, op, docs)
        clean.flush()
        crashed_ids = {r["id"] for r in memory.catalog.all_leaves()}
        clean_ids = {r["id"] for r in clean.catalog.all_leaves()}
        if crashed_ids != clean_ids:
            self.problems.append(
                f"final leaf set differs from a clean run: {len(crashed_ids - clean_ids)} extra, "
                f"{len(clean_ids - crashed_ids)} missing, e.g. {sorted(crashed_ids ^ clean_ids)[:3]}"
            )
        if not clean.check().ok:
            self.problems.append("the clean replay itself fails check")
        self.stats["final_leaves"] = len(crashed_ids)
        self.stats["final_words_checked"] = len(self.saved)
        return dict(self.stats)


def _words_in_store(memory) -> set[str]:
    import re

    found: set[str] = set()
    for leaf in memory.leaves():
        found.update(re.findall(r"\bqz[a-z]+x\b", leaf.content))
    return found


def _problem_kind(problem: str) -> str:
    """A check message with ids and paths blanked, to count kinds of problems."""
    import re

    return re.sub(r"[LN]\d*-[\w.-]+|layer_0/\S+|layers/\S+|\S+\.txt", "<id>", problem)


# -- many writers at once --------------------------------------------------------------------------

# (flush_every, search_every) per writer: some consolidate, some search, some both, some neither
WRITER_PLANS = [(5, 0), (7, 0), (0, 3), (0, 4), (6, 4), (4, 5), (0, 0), (3, 0)]


def many_writers(workspace: Path, scratch: Path, memory, processes: int, saves: int) -> dict:
    """Run ``processes`` writer children at once; while they run, the long-lived ``memory``
    (opened before they started) looks up words they have just reported.

    Returns saved / missed (writers' own lookups) / live_checked / live_misses / errors /
    seconds."""
    import time

    start = time.monotonic()
    scratch.mkdir(parents=True, exist_ok=True)
    procs, outs, errs = [], [], []
    for who in range(processes):
        flush_every, search_every = WRITER_PLANS[who % len(WRITER_PLANS)]
        out = open(scratch / f"writer{who}.out", "w+", encoding="utf-8")  # noqa: SIM115
        err = open(scratch / f"writer{who}.err", "w+", encoding="utf-8")  # noqa: SIM115
        outs.append(out)
        errs.append(err)
        procs.append(
            spawn(
                "writer", workspace, who, saves, flush_every, search_every, stdout=out, stderr=err
            )
        )
    live_checked: set[str] = set()
    live_misses: list[str] = []
    errors: list[str] = []
    try:
        while any(p.poll() is None for p in procs):
            if time.monotonic() - start > 3600:
                errors.append("writers did not finish in an hour")
                break
            for out in outs:
                words = reported(Path(out.name).read_text(encoding="utf-8"))[0]
                for w in words[-2:]:
                    if w not in live_checked:
                        live_checked.add(w)
                        try:
                            if not findable(memory, w):
                                live_misses.append(w)
                        except Exception as exc:
                            live_misses.append(w)
                            errors.append(f"long-lived search {w}: {exc!r}")
            time.sleep(0.2)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
        for handle in outs + errs:
            handle.close()
    saved: list[str] = []
    missed: list[str] = []
    for who, proc in enumerate(procs):
        text = (scratch / f"writer{who}.err").read_text(encoding="utf-8")
        if proc.returncode != 0 or "Traceback" in text:
            errors.append(f"writer {who} exited {proc.returncode}: {text[-1500:]}")
        words, _ops, misses = reported((scratch / f"writer{who}.out").read_text(encoding="utf-8"))
        saved += words
        missed += misses
    return {
        "saved": saved,
        "missed": missed,
        "live_checked": live_checked,
        "live_misses": live_misses,
        "errors": errors,
        "seconds": time.monotonic() - start,
    }


def verify_store(workspace: Path, words: list[str], via=None) -> dict:
    """What a fresh handle (or ``via``, a long-lived one) finds, and the health of the tree."""
    from ihmt import IHMT

    fresh = IHMT.open(workspace)
    looker = via or fresh
    rows = fresh.catalog.all_leaves()
    report = fresh.check()
    missing, errors = [], []
    for w in words:
        try:
            if not findable(looker, w):
                missing.append(w)
        except Exception as exc:  # a search that raises is a broken promise too
            missing.append(w)
            errors.append(f"search {w}: {exc!r}")
    result = {
        "missing": missing,
        "search_errors": errors,
        "check_problems": report.problems,
        "tree_problems": tree_problems(fresh),
        "leaves": len(rows),
        "unique_ids": len({r["id"] for r in rows}),
    }
    fresh.close()
    return result


def saved_id(text: str) -> str:
    """The leaf id in a save_memory answer ("SAVED: id L-… · domain …")."""
    return text.split("id ", 1)[1].split(" ", 1)[0].rstrip(",")


def mcp_many_savers(home: Path, scratch: Path, servers: int, saves: int) -> dict:
    """Server 0 starts first, saves and searches (its caches are warm); then all ``servers``
    save ``saves`` memories each at once, each server its own process; then server 0, never
    restarted, looks up every save by its word and leaf id.

    Returns saved {word: leaf id} / warm word / errors / misses / seconds."""
    import time

    import anyio

    start = time.monotonic()
    scratch.mkdir(parents=True, exist_ok=True)
    out: dict = {"saved": {}, "errors": [], "misses": [], "warm": unique_word(69, 0)}

    async def save_all(session, index: int) -> None:
        for i in range(saves):
            word = unique_word(70 + index, i)
            content = f"Server {index} learned that {word} needs a restart at step {i}."
            text, failed = await mcp_call(session, "save_memory", {"content": content})
            if failed or not text.startswith("SAVED"):
                out["errors"].append(f"server {index} save {i}: {text}")
            else:
                out["saved"][word] = saved_id(text)

    async def other(index: int) -> None:
        with open(scratch / f"server{index}.log", "w", encoding="utf-8") as errlog:
            async with mcp_session(home, scratch / f"cwd{index}", errlog) as session:
                await save_all(session, index)

    async def main() -> None:
        with open(scratch / "server0.log", "w", encoding="utf-8") as errlog:
            async with mcp_session(home, scratch / "cwd0", errlog) as first:
                warm = out["warm"]
                content = f"The {warm} runbook lives in the docs folder."
                text, failed = await mcp_call(first, "save_memory", {"content": content})
                if failed:
                    out["errors"].append(f"warm-up save: {text}")
                text, failed = await mcp_call(first, "search_memory", {"query": warm})
                if failed or warm not in text:
                    out["errors"].append(f"warm-up search: {text}")
                async with anyio.create_task_group() as group:
                    group.start_soon(save_all, first, 0)
                    for index in range(1, servers):
                        group.start_soon(other, index)
                for word, leaf_id in out["saved"].items():
                    args = {"query": word, "detail": "full"}
                    text, failed = await mcp_call(first, "search_memory", args)
                    if failed or word not in text or leaf_id not in text:
                        out["misses"].append(word)

    anyio.run(main)
    out["seconds"] = time.monotonic() - start
    return out
