"""`ihmt sync` with real git and real bare repositories on local disk (no network).

Several stores save different and conflicting memories, sync in every order and must end
with the same leaves, the same search answers and the same fact timeline; forgetting and
OUTDATED links travel; a sync killed at chosen instants (and at timed instants during a big
pull) loses nothing; git missing, a refusing remote and a store that is not one each give a
single clear line.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ihmt import IHMT, faults
from ihmt.sync import SyncError, sync, sync_status
from tests.conftest import ROOT, run_cli

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

IDENTITY = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}
TOPICS = ["billing", "search", "deploy", "auth", "mobile", "payments", "analytics", "docs"]
ACTIONS = [
    "move the nightly job to 02:00 UTC",
    "pin the PostgreSQL client to version 15",
    "retire the legacy REST endpoint in March",
    "use feature flags for every risky rollout",
    "keep error budgets at 99.5 percent",
    "write runbooks next to the service code",
]
QUERIES = [
    "where do I live",
    "deploy team decided",
    "PostgreSQL client version",
    "Valencia",
    "feature flags rollout",
    "favourite editor",
    "nightly job billing",
    "xylophone quantum",
]


@pytest.fixture(autouse=True)
def git_identity(monkeypatch):
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)


def make_remote(tmp_path: Path, name: str = "remote.git", default: str = "main") -> str:
    path = tmp_path / name
    git("-c", f"init.defaultBranch={default}", "init", "-q", "--bare", str(path))
    return str(path)


def git(*args: str, cwd: Path | None = None, check: bool = True) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and proc.returncode:
        raise AssertionError(f"git {args} failed: {proc.stderr}")
    return proc.stdout.strip()


def new_store(tmp_path: Path, name: str) -> Path:
    ws = tmp_path / name
    IHMT.initialize(ws, branch_factor=4, target_tokens=400, max_tokens=600).close()
    return ws


def save_notes(ws: Path, tag: str, count: int, offset: int = 0) -> list[str]:
    """``count`` short dated meeting notes in one batch; returns their leaf ids."""
    docs = []
    for i in range(offset, offset + count):
        topic, action = TOPICS[i % len(TOPICS)], ACTIONS[(i * 5 + len(tag)) % len(ACTIONS)]
        docs.append(
            {
                "text": f"Meeting {tag}{i}: the {topic} team decided to {action}.",
                "source": f"meeting-{tag}{i}",
                "timestamp": f"2025-{1 + i % 12:02d}-{1 + i % 27:02d}",
            }
        )
    memory = IHMT.open(ws)
    try:
        return memory.ingest_batch(docs).leaf_ids
    finally:
        memory.close()


def save(ws: Path, text: str, **kwargs) -> str:
    memory = IHMT.open(ws)
    try:
        return memory.save(text, **kwargs).leaf_ids[0]
    finally:
        memory.close()


def fingerprint(ws: Path) -> dict:
    """Everything two synced stores must agree on."""
    memory = IHMT.open(ws)
    try:
        searches = {}
        for query in QUERIES:
            result = memory.search(query, top_k=5)
            searches[query] = (comparable(result.hits, 5), result.ambiguous, result.not_found)
        resolver = memory.resolver
        return {
            "leaves": sorted(leaf.leaf_id for leaf in memory.leaves()),
            "headers": sorted((x.leaf_id, x.timestamp) for x in memory.leaves()),
            "indexed": sorted((r["id"], r["timestamp"]) for r in memory.catalog.all_leaves()),
            "searches": searches,
            "active": {k: (f.value, f.timestamp) for k, f in resolver.active_state().items()},
            "changes": sorted(
                (c.key, c.old_value, c.old_timestamp, c.new_value, c.new_timestamp)
                for c in resolver.contradictions()
            ),
            "links": sorted((old, new) for old, new, _ in memory.catalog.links()),
        }
    finally:
        memory.close()


def comparable(hits, top_k: int) -> list[tuple]:
    """Hits as (id, score, outdated). When the list is full, leaves tied with the last score
    may be cut at different places on two machines (the descent keeps the first tied leaf it
    meets, and tree shapes differ with arrival order), so those ids are masked; their scores
    and count still have to match."""
    rows = [(h.leaf_id, round(h.score, 6), h.outdated) for h in hits]
    if len(rows) == top_k:
        last = rows[-1][1]
        rows = [("<tie at cut-off>", s, o) if s == last else (i, s, o) for i, s, o in rows]
    return rows


def healthy(ws: Path) -> bool:
    memory = IHMT.open(ws)
    try:
        report = memory.check()
        assert report.ok, report.problems
        return True
    finally:
        memory.close()


def tracked(ws: Path) -> list[str]:
    return git("ls-files", cwd=ws / "ihmt_memory").splitlines()


# -- two and three stores ---------------------------------------------------------------------
@pytest.mark.parametrize("first", ["a", "b"])
def test_two_stores_converge_in_either_order(tmp_path, first):
    remote = make_remote(tmp_path)
    a, b = new_store(tmp_path, "a"), new_store(tmp_path, "b")
    madrid = save(a, "I live in Madrid", timestamp="2024-03-11")
    save_notes(a, "a", 10)
    valencia = save(b, "I moved to Valencia", timestamp="2026-02-03")
    save(b, "My favourite editor is neovim", timestamp="2025-05-05")
    save_notes(b, "b", 10)
    stores = {"a": a, "b": b}
    order = [first, "b" if first == "a" else "a"]
    for name in order + order[:1]:
        sync(stores[name], remote)
    fa, fb = fingerprint(a), fingerprint(b)
    assert fa == fb
    assert madrid in fa["leaves"] and valencia in fa["leaves"] and len(fa["leaves"]) == 23
    assert fa["active"]["user::location"][0] == "Valencia"
    assert [c[1:4:2] for c in fa["changes"] if c[0] == "user::location"] == [("Madrid", "Valencia")]
    assert healthy(a) and healthy(b)
    assert git("rev-parse", "HEAD", cwd=a / "ihmt_memory") == git(
        "rev-parse", "HEAD", cwd=b / "ihmt_memory"
    )


def test_three_stores_converge_whatever_the_order(tmp_path):
    """Three machines, conflicting facts and one memory stored twice; each round syncs them
    in another order with new memories in between, then everyone syncs once more."""
    remote = make_remote(tmp_path)
    stores = {name: new_store(tmp_path, name) for name in "abc"}
    save(stores["a"], "I live in Madrid", timestamp="2024-03-11")
    save(stores["c"], "I moved to Valencia", timestamp="2026-02-03")
    save(stores["b"], "I live in Madrid", timestamp="2024-03-11")  # the same memory twice
    for round_no, order in enumerate(["abc", "cab", "bca"]):
        for name in order:
            save_notes(stores[name], name, 2, offset=round_no * 2)
            sync(stores[name], remote)
    for name in "abc":
        sync(stores[name], remote)
    prints = [fingerprint(stores[name]) for name in "abc"]
    assert prints[0] == prints[1] == prints[2]
    assert len(prints[0]["leaves"]) == 20
    assert prints[0]["active"]["user::location"][0] == "Valencia"
    for ws in stores.values():
        assert healthy(ws)


@pytest.mark.parametrize("merger_wins", [True, False])
def test_same_memory_saved_on_both_sides_merges_to_one_version(tmp_path, merger_wins):
    """The same text saved on two machines with other dates: every machine keeps the
    earliest save, whether the machine doing the merge holds it or has to rewrite its own."""
    remote = make_remote(tmp_path)
    a, b = new_store(tmp_path, "a"), new_store(tmp_path, "b")
    text = "The release train leaves every second Tuesday"
    # the earlier save also carries the earlier date, so it wins even within one second
    first, second = (b, a) if merger_wins else (a, b)
    leaf_a = save(first, text, timestamp="2025-01-01")
    assert save(second, text, timestamp="2025-06-01") == leaf_a
    sync(a, remote)
    report = sync(b, remote)
    assert any("kept the earliest save" in n for n in report.notes)
    sync(a, remote)
    path = next((a / "ihmt_memory" / "layer_0").rglob(f"{leaf_a}.txt"))
    other = b / "ihmt_memory" / path.relative_to(a / "ihmt_memory")
    assert path.read_bytes() == other.read_bytes()
    assert fingerprint(a) == fingerprint(b)
    assert dict(fingerprint(a)["headers"])[leaf_a].startswith("2025-01-01")
    assert dict(fingerprint(b)["indexed"])[leaf_a].startswith("2025-01-01")
    assert healthy(a) and healthy(b)


def test_settings_changed_on_both_sides_keep_local(tmp_path):
    remote = make_remote(tmp_path)
    a, b = new_store(tmp_path, "a"), new_store(tmp_path, "b")
    sync(a, remote)
    sync(b, remote)
    for ws, factor in ((a, 6), (b, 5)):
        cfg_path = ws / "ihmt_memory" / "ihmt.config.json"
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
        cfg["branch_factor"] = factor
        cfg_path.write_text(json.dumps(cfg, indent=2) + "\n", encoding="utf-8")
    save_notes(a, "a", 2)
    save_notes(b, "b", 2)
    first = sync(a, remote)
    assert first.committed.settings
    report = sync(b, remote)
    assert any("kept this machine's settings" in n for n in report.notes)
    repo = b / "ihmt_memory"
    assert not (repo / ".git" / "MERGE_HEAD").exists()
    assert git("status", "--porcelain", cwd=repo) == ""
    assert json.loads((repo / "ihmt.config.json").read_text())["branch_factor"] == 5
    assert healthy(b)


# -- forgetting and OUTDATED links -------------------------------------------------------------
@pytest.mark.parametrize("forgetter_first", [True, False])
def test_forget_propagates_and_never_comes_back(tmp_path, forgetter_first):
    remote = make_remote(tmp_path)
    a, b = new_store(tmp_path, "a"), new_store(tmp_path, "b")
    secret = save(a, "The wifi guest code at the office is tulip-42", timestamp="2025-02-02")
    save_notes(a, "a", 4)
    sync(a, remote)
    sync(b, remote)
    assert secret in fingerprint(b)["leaves"]
    memory = IHMT.open(a)
    memory.forget(secret)
    memory.close()
    save_notes(b, "b", 2)
    for ws in [a, b, a] if forgetter_first else [b, a, b, a]:
        sync(ws, remote)
    for ws in (a, b):
        assert secret not in fingerprint(ws)["leaves"]
        assert not list((ws / "ihmt_memory" / "layer_0").rglob(f"{secret}.txt"))
        assert not [p for p in tracked(ws) if secret in p]
        assert healthy(ws)
    assert fingerprint(a) == fingerprint(b)


def test_forgotten_memory_saved_again_by_a_peer_is_removed_on_both(tmp_path):
    """A forgets X; B, which never had it, stores the same memory (same id) and syncs first:
    A's merge re-adds X, reconcile deletes it and the same sync commits the deletion."""
    remote = make_remote(tmp_path)
    a, b = new_store(tmp_path, "a"), new_store(tmp_path, "b")
    text = "Old office door code is 4711"
    leaf = save(a, text, timestamp="2025-03-03")
    memory = IHMT.open(a)
    memory.forget(leaf)
    memory.close()
    assert save(b, text, timestamp="2025-03-03") == leaf
    sync(b, remote)
    report = sync(a, remote)
    assert any("forgotten" in n for n in report.notes)
    sync(b, remote)
    sync(a, remote)
    for ws in (a, b):
        assert leaf not in fingerprint(ws)["leaves"]
        assert not list((ws / "ihmt_memory" / "layer_0").rglob(f"{leaf}.txt"))
        assert healthy(ws)


def test_outdated_links_travel_and_forgetting_removes_them(tmp_path):
    remote = make_remote(tmp_path)
    a, b = new_store(tmp_path, "a"), new_store(tmp_path, "b")
    old = save(a, "The staging server is staging-1.internal", timestamp="2025-01-01")
    new = save(a, "The staging server moved to staging-2.internal", timestamp="2025-04-01")
    memory = IHMT.open(a)
    memory.mark_outdated(old, new)
    memory.close()
    sync(a, remote)
    sync(b, remote)
    fb = fingerprint(b)
    assert (old, new) in fb["links"]
    memory = IHMT.open(b)
    hits = {h.leaf_id: h.outdated for h in memory.search("staging server", top_k=5).hits}
    memory.close()
    assert hits.get(old) is True and hits.get(new) is False
    memory = IHMT.open(a)
    memory.forget(new)
    memory.close()
    sync(a, remote)
    sync(b, remote)
    assert fingerprint(b)["links"] == [] == fingerprint(a)["links"]
    assert fingerprint(a) == fingerprint(b)


def test_commit_message_counts_what_changed(tmp_path):
    remote = make_remote(tmp_path)
    a = new_store(tmp_path, "a")
    memory = IHMT.open(a)
    memory.ingest_text("The build uses make and a single Dockerfile.", source="notes.md")
    gone = memory.save("Lunch order: two pizzas for the team").leaf_ids[0]
    memory.close()
    sync(a, remote)
    memory = IHMT.open(a)
    memory.ingest_text("The build uses just and two Dockerfiles now.", source="notes.md")
    first = memory.save("The on-call phone is in the top drawer", timestamp="2025-01-01")
    second = memory.save("The on-call phone moved to the front desk", timestamp="2025-02-01")
    memory.mark_outdated(first.leaf_ids[0], second.leaf_ids[0])
    memory.forget(gone)
    memory.close()
    report = sync(a, remote)
    assert report.committed.words().startswith("3 added, 1 replaced, 1 outdated, 1 forgotten")
    subject = git("log", "-1", "--format=%s", cwd=a / "ihmt_memory")
    assert "3 added, 1 replaced, 1 outdated, 1 forgotten" in subject


def test_only_the_truth_is_tracked(tmp_path):
    remote = make_remote(tmp_path)
    a = new_store(tmp_path, "a")
    save_notes(a, "a", 5)
    sync(a, remote)
    files = tracked(a)
    assert {".gitignore", ".gitattributes", "ihmt.config.json"} <= set(files)
    assert all(
        f in (".gitignore", ".gitattributes", "ihmt.config.json")
        or f.startswith(("layer_0/", "records/"))
        for f in files
    )
    assert sum(f.startswith("layer_0/") for f in files) == 5


def test_fresh_machine_clones_and_identity_stays_local(tmp_path, monkeypatch):
    # a bare repository whose HEAD names "master" while the memory lives on "main"
    remote = make_remote(tmp_path, default="master")
    a = new_store(tmp_path, "a")
    save_notes(a, "a", 3)
    sync(a, remote)
    for key in IDENTITY:
        monkeypatch.delenv(key)
    fresh = tmp_path / "fresh"
    report = sync(fresh, remote)
    assert report.cloned and report.received.added == 3
    assert fingerprint(fresh) == fingerprint(a)
    save_notes(fresh, "f", 1)
    sync(fresh)
    repo = fresh / "ihmt_memory"
    assert git("config", "--local", "user.name", cwd=repo).startswith("IHMT on ")
    assert not (Path(os.environ["HOME"]) / ".gitconfig").exists()
    sync(a)
    assert fingerprint(fresh) == fingerprint(a)
    assert git("for-each-ref", "--format=%(refname)", cwd=Path(remote)) == "refs/heads/main"


def test_push_race_is_merged_and_retried(tmp_path):
    remote = make_remote(tmp_path)
    a, b = new_store(tmp_path, "a"), new_store(tmp_path, "b")
    sync(a, remote)
    sync(b, remote)
    save_notes(a, "a", 2)
    late = save_notes(b, "b", 1)[0]
    calls = []

    def peer_pushes_first(point):
        if point == "sync.pushing" and not calls:
            calls.append(point)
            sync(b)  # the other machine pushes between our fetch and our push

    previous = faults.install(peer_pushes_first)
    try:
        report = sync(a)
    finally:
        faults.install(previous)
    assert calls  # the peer's push really came in between
    assert report.pushed and any("remote changed" in n for n in report.notes)
    assert late in fingerprint(a)["leaves"]


# -- interrupted syncs ---------------------------------------------------------------------------
def run_sync_process(ws: Path, crash: str | None = None) -> subprocess.Popen:
    """A sync in a child of its own session; with ``crash`` it SIGKILLs itself at the
    checkpoint ``sync.<crash>`` (tests/kill_at.py), so it ends with -9 only if it got that far."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    code = "import sys; from ihmt.sync import sync; sync(sys.argv[1])"
    args = ["-m", "tests.kill_at", f"sync.{crash}", code] if crash else ["-c", code]
    return subprocess.Popen(
        [sys.executable, *args, str(ws)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def build_diverged_pair(base: Path) -> dict:
    """A and B with history in common, then each with changes the other must merge: new
    memories, a forget on each side, and one memory stored on both sides (B's save wins)."""
    remote = make_remote(base)
    a, b = new_store(base, "a"), new_store(base, "b")
    shared = "Coffee machine descaling is due every 40 days"
    save(b, shared, timestamp="2025-01-01")
    save(a, shared, timestamp="2025-06-01")  # same id, later date: loses the merge
    ids_a = save_notes(a, "a", 6)
    sync(a, remote)
    ids_b = save_notes(b, "b", 4)
    sync(b, remote)
    memory = IHMT.open(b)
    memory.forget(ids_a[1])
    memory.close()
    ids_b += save_notes(b, "b", 2, offset=10)
    sync(b, remote)
    memory = IHMT.open(a)
    memory.forget(ids_a[0])
    memory.close()
    ids_a += save_notes(a, "a", 3, offset=20)
    forgotten = {ids_a[0], ids_a[1]}
    return {"expected": set(ids_a + ids_b) - forgotten, "forgotten": forgotten}


@pytest.fixture(scope="module")
def diverged(tmp_path_factory):
    base = tmp_path_factory.mktemp("diverged")
    with pytest.MonkeyPatch.context() as mp:
        for key, value in IDENTITY.items():
            mp.setenv(key, value)
        info = build_diverged_pair(base)
    return base, info


def copy_pair(diverged, tmp_path: Path) -> tuple[str, Path, Path, set[str], set[str]]:
    base, info = diverged
    case = tmp_path / "case"
    shutil.copytree(base, case, symlinks=True)
    remote = str(case / "remote.git")
    for name in "ab":
        git("remote", "set-url", "origin", remote, cwd=case / name / "ihmt_memory")
    return remote, case / "a", case / "b", info["expected"], info["forgotten"]


CRASH_STEPS = ["fetched", "committed", "merged", "applied", "reconciled", "pushed"]


@pytest.mark.parametrize("step", CRASH_STEPS)
def test_sync_killed_at_a_step_recovers(tmp_path, diverged, step):
    remote, a, b, expected, forgotten = copy_pair(diverged, tmp_path)
    proc = run_sync_process(a, crash=step)
    proc.wait(timeout=60)
    assert proc.returncode == -9, proc.stderr.read().decode()
    proc.stderr.close()
    report = sync(a, remote)
    if step not in ("fetched", "pushed"):
        assert any("interrupted" in n for n in report.notes)
    sync(b, remote)
    sync(a, remote)
    for ws in (a, b):
        leaves = set(fingerprint(ws)["leaves"])
        assert expected <= leaves, f"lost {expected - leaves}"
        assert not leaves & forgotten
        assert healthy(ws)
    assert fingerprint(a) == fingerprint(b)


def test_a_sync_killed_after_its_merge_is_not_silently_blind(tmp_path):
    """The merge puts the peer's files in layer_0 before they are indexed: a search in that
    state says the index is incomplete (confidence 0), never a confident NOT FOUND."""
    remote = make_remote(tmp_path)
    a, b = new_store(tmp_path, "a"), new_store(tmp_path, "b")
    save(a, "The build cache lives on the ramdisk")
    sync(a, remote)
    sync(b, remote)
    save(b, "The staging gateway certificate is renewed by quokkabot")
    sync(b)
    proc = run_sync_process(a, crash="merged")
    proc.wait(timeout=60)
    assert proc.returncode == -9, proc.stderr.read().decode()
    proc.stderr.close()
    assert any(p.read_text().find("quokkabot") >= 0 for p in (a / "ihmt_memory").rglob("*.txt"))
    memory = IHMT.open(a)
    result = memory.search("quokkabot")
    assert result.not_found and result.confidence == 0.0
    assert "sync was interrupted" in result.index_incomplete, result.index_incomplete
    memory.close()
    sync(a)
    memory = IHMT.open(a)
    result = memory.search("quokkabot")
    assert not result.not_found and not result.index_incomplete
    memory.close()


PULL_STEPS = ("fetched", "merged", "applied", "reconciled")


@pytest.mark.parametrize("step", PULL_STEPS)
def test_sync_killed_at_each_step_of_a_big_pull_recovers(tmp_path, step):
    """The pull is killed at one of its steps (the child ends with -9 only if it got there,
    so the kill landed mid-sync); the next sync converges with nothing lost."""
    remote = make_remote(tmp_path)
    a, b = new_store(tmp_path, "a"), new_store(tmp_path, "b")
    mine = save_notes(a, "a", 3)
    sync(a, remote)
    memory = IHMT.open(b)
    memory.ingest_batch(
        {
            "text": f"Note {i}: ticket {i} about {TOPICS[i % 8]} was {ACTIONS[i % 6]}",
            "source": f"n{i}",
        }
        for i in range(200)
    )
    memory.close()
    sync(b, remote)
    proc = run_sync_process(a, crash=step)
    proc.wait(timeout=120)
    assert proc.returncode == -9, proc.stderr.read().decode()
    proc.stderr.close()
    sync(a, remote)
    leaves = set(fingerprint(a)["leaves"])
    assert set(mine) <= leaves and len(leaves) == 203
    assert healthy(a)
    assert fingerprint(a) == fingerprint(b)


def test_leaf_cut_short_by_an_interrupted_checkout_is_repaired(tmp_path):
    remote = make_remote(tmp_path)
    a, b = new_store(tmp_path, "a"), new_store(tmp_path, "b")
    sync(a, remote)
    sync(b, remote)
    new = save(b, "The VPN config lives in the team vault", timestamp="2025-07-07")
    sync(b, remote)
    repo = a / "ihmt_memory"
    git("fetch", "-q", "origin", cwd=repo)
    target = git("rev-parse", "origin/main", cwd=repo)
    rel = next(
        p for p in git("ls-tree", "-r", "--name-only", target, cwd=repo).splitlines() if new in p
    )
    whole = git("cat-file", "blob", f"{target}:{rel}", cwd=repo)
    (repo / rel).parent.mkdir(parents=True, exist_ok=True)
    (repo / rel).write_text(whole[:25], encoding="utf-8")  # what a killed checkout leaves
    head = git("rev-parse", "HEAD", cwd=repo)
    (repo / ".git" / "ihmt-sync-state").write_text(json.dumps({"pre": head, "target": target}))
    report = sync(a, remote)
    assert any(n.startswith("repaired") for n in report.notes)
    assert (repo / rel).read_text(encoding="utf-8") == whole + ("" if whole.endswith("\n") else "")
    assert new in fingerprint(a)["leaves"]
    assert healthy(a)


def test_damaged_leaf_is_not_shared(tmp_path):
    remote = make_remote(tmp_path)
    a = new_store(tmp_path, "a")
    save_notes(a, "a", 2)
    junk = a / "ihmt_memory" / "layer_0" / "general" / "L-general-0000-0123456789.txt"
    junk.write_text("not a leaf", encoding="utf-8")
    report = sync(a, remote)
    assert any("not shared" in n for n in report.notes)
    assert not [p for p in tracked(a) if "0123456789" in p]
    assert sum(p.startswith("layer_0/") for p in tracked(a)) == 2


def test_leaf_damaged_on_this_disk_is_restored_from_git_not_deleted_everywhere(tmp_path):
    remote = make_remote(tmp_path)
    a, b = new_store(tmp_path, "a"), new_store(tmp_path, "b")
    ids = save_notes(a, "a", 3)
    sync(a, remote)
    sync(b, remote)
    leaf = next((a / "ihmt_memory" / "layer_0").rglob(f"{ids[0]}.txt"))
    leaf.write_bytes(b"\x00\x01 disk error")
    memory = IHMT.open(a)
    memory.rebuild()  # moves the unreadable file to quarantine/
    memory.close()
    report = sync(a, remote)
    assert any(n.startswith("repaired") for n in report.notes)
    sync(b, remote)
    for ws in (a, b):
        assert ids[0] in fingerprint(ws)["leaves"]
        assert healthy(ws)


def test_a_local_writer_waits_and_loses_nothing(tmp_path):
    remote = make_remote(tmp_path)
    a = new_store(tmp_path, "a")
    sync(a, remote)
    code = (
        "import sys, time\n"
        "from ihmt import IHMT\n"
        "m = IHMT.open(sys.argv[1])\n"
        "for i in range(12):\n"
        "    print(m.save(f'Concurrent note {i} about the {i} build').leaf_ids[0], flush=True)\n"
        "    time.sleep(0.02)\n"
    )
    writer = subprocess.Popen(
        [sys.executable, "-c", code, str(a)],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        text=True,
    )
    while writer.poll() is None:
        sync(a)
    saved = writer.stdout.read().split()
    writer.stdout.close()
    assert writer.returncode == 0 and len(saved) == 12
    sync(a)
    shared = git("ls-tree", "-r", "--name-only", "main", cwd=Path(remote))
    assert all(leaf_id in shared for leaf_id in saved)
    assert healthy(a)


def test_stale_git_lock_and_half_done_merge_are_cleared(tmp_path):
    remote = make_remote(tmp_path)
    a, b = new_store(tmp_path, "a"), new_store(tmp_path, "b")
    sync(a, remote)
    sync(b, remote)
    for ws, factor in ((a, 7), (b, 3)):
        cfg_path = ws / "ihmt_memory" / "ihmt.config.json"
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
        cfg["branch_factor"] = factor
        cfg_path.write_text(json.dumps(cfg, indent=2) + "\n", encoding="utf-8")
    sync(b, remote)
    repo = a / "ihmt_memory"
    git("commit", "-qam", "by hand", cwd=repo)
    git("fetch", "-q", "origin", cwd=repo)
    assert subprocess.run(["git", "merge", "origin/main"], cwd=repo, capture_output=True).returncode
    assert (repo / ".git" / "MERGE_HEAD").exists()
    (repo / ".git" / "index.lock").write_text("")
    report = sync(a, remote)
    assert any("index.lock" in n for n in report.notes)
    assert any("aborted a merge" in n for n in report.notes)
    assert not (repo / ".git" / "MERGE_HEAD").exists()
    assert not (repo / ".git" / "index.lock").exists()
    assert git("status", "--porcelain", cwd=repo) == ""
    assert healthy(a)


# -- errors and status -------------------------------------------------------------------------
def test_git_missing_is_one_clear_line(tmp_path):
    a = new_store(tmp_path, "a")
    proc = run_cli("sync", "--path", str(a), env={"PATH": str(tmp_path / "empty")})
    assert proc.returncode == 1
    assert proc.stderr.strip().count("\n") == 0
    assert "git is not installed" in proc.stderr
    with pytest.raises(SyncError):
        os.environ["PATH"], saved = str(tmp_path / "empty"), os.environ["PATH"]
        try:
            sync(a)
        finally:
            os.environ["PATH"] = saved


def test_refusing_remote_is_one_clear_line_and_keeps_the_old_remote(tmp_path):
    remote = make_remote(tmp_path)
    a = new_store(tmp_path, "a")
    save_notes(a, "a", 1)
    missing = tmp_path / "no" / "such.git"
    proc = run_cli("sync", "--path", str(a), "--remote", str(missing))
    assert proc.returncode == 1
    assert proc.stderr.strip().count("\n") == 0
    assert "cannot fetch from" in proc.stderr and "git init --bare" in proc.stderr
    sync(a, remote)
    proc = run_cli("sync", "--path", str(a), "--remote", str(missing))
    assert proc.returncode == 1 and proc.stderr.strip().count("\n") == 0
    assert git("remote", "get-url", "origin", cwd=a / "ihmt_memory") == remote


def test_not_a_store_and_not_a_memory(tmp_path):
    proc = run_cli("sync", "--path", str(tmp_path / "nothing"))
    assert proc.returncode == 1 and "no IHMT store" in proc.stderr
    assert proc.stderr.strip().count("\n") == 0
    other = tmp_path / "code"
    other.mkdir()
    git("-c", "init.defaultBranch=main", "init", "-q", cwd=other)
    (other / "main.c").write_text("int main(void) { return 0; }\n")
    git("add", ".", cwd=other)
    git("commit", "-qm", "code", cwd=other)
    a = new_store(tmp_path, "a")
    with pytest.raises(SyncError, match="not an IHMT memory"):
        sync(a, str(other))


def test_status_reports_local_and_remote_only(tmp_path):
    remote = make_remote(tmp_path)
    a, b = new_store(tmp_path, "a"), new_store(tmp_path, "b")
    proc = run_cli("sync", "--status", "--path", str(a))
    assert proc.returncode == 0 and "not synced yet" in proc.stdout
    save_notes(a, "a", 2)
    init = run_cli("sync", "--init", "--json", "--path", str(a), "--remote", remote)
    assert init.returncode == 0, init.stderr
    data = json.loads(init.stdout)
    assert data["committed"]["added"] == 2 and data["pushed"] is False
    st = sync_status(a)
    assert st.local_commits == 1 and st.local_leaves == 2 and st.last_sync is None
    sync(a)
    sync(b, remote)
    save_notes(b, "b", 3)
    sync(b)
    save_notes(a, "a", 1, offset=5)
    proc = run_cli("sync", "--status", "--path", str(a))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"remote: {remote} (origin/main)" in out
    assert "changed since the last sync: 1 added" in out
    assert "local only: 0 commit(s), 1 new memory/memories not pushed" in out
    assert re.search(
        r"remote only: \d+ commit\(s\), 3 new memory/memories not pulled \(fetched", out
    )
    assert "last sync: 20" in out
    st = sync_status(a, fetch=False)
    assert st.remote_leaves == 3 and st.uncommitted.added == 1
    done = run_cli("sync", "--path", str(a))
    assert done.returncode == 0, done.stderr
    assert "pulled: 3 added" in done.stdout and "in sync: 6 memories" in done.stdout
