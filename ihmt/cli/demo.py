"""`python3 main.py demo`: an end-to-end walkthrough on examples/, with nothing installed."""

from __future__ import annotations

import shutil
from pathlib import Path

from ..api import IHMT
from ..errors import InputError
from ..render import compact_answer
from .context import AddCommand
from .views import outline_lines, search_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def register(add: AddCommand) -> None:
    p = add("demo", "end-to-end walkthrough in ./demo_workspace", cmd_demo)
    p.add_argument("--workspace", default="demo_workspace")


def cmd_demo(args) -> int:
    return run_demo(args.workspace)


def _section(title: str) -> None:
    print()
    print(f"== {title} " + "=" * max(0, 70 - len(title)))


def run_demo(workspace: str = "demo_workspace") -> int:
    if not EXAMPLES.is_dir():
        raise InputError(f"the examples folder {EXAMPLES} is missing; run the demo from a clone")

    ws = Path(workspace).absolute()
    if (ws / "ihmt_memory").exists():
        shutil.rmtree(ws / "ihmt_memory")
    _section("1. Create a store with small settings so a few files build a real tree")
    memory = IHMT.initialize(ws, branch_factor=4, target_tokens=400, max_tokens=600)
    print(f"store: {memory.path}  (branch_factor 4, target_tokens 400)")

    _section(
        "2. Ingest examples/ (code, journal, clinical history, narrative, recipe, runbook, notes)"
    )
    report = memory.ingest_paths([EXAMPLES], consolidate=True)
    print(
        f"{report.files} files -> {report.leaves} leaves, {report.oversized} oversized, "
        f"{len(report.skipped)} skipped"
    )
    print("domains: " + ", ".join(f"{d} ({n})" for d, n in sorted(report.domains.items())))
    for notice in report.notices[:4]:
        print(f"NOTICE: {notice}")
    if len(report.notices) > 4:
        print(
            f"... and {len(report.notices) - 4} more changes over time (python3 main.py conflicts)"
        )

    _section("3. Flush: close every domain to one top branch, then the outline")
    memory.flush()
    for line in outline_lines(memory.outline(2))[:40]:
        print(line)
    stats = memory.stats()
    print(f"... {stats['leaves']} leaves, {stats['branches']} branches, {stats['layers']} layers")

    _section("4. Search walks the tree: root -> branches -> leaf")
    result = memory.search("reserveStock soft hold")
    print(search_text(result, full=False).splitlines()[0])
    if result.best:
        print(
            f"  best: {result.best.title or result.best.leaf_id}  ({Path(result.best.source).name})"
        )
        print(f"  path: {' → '.join(result.best.path)}")

    _section('5. An ambiguous query asks for a clue instead of guessing: "Luis"')
    clues = iter(["vacaciones en Benidorm"])

    def provider(res):
        print(
            f'  "Luis" is ambiguous: {len(res.candidates)} memories match equally well '
            f"(confidence {res.confidence:.2f})"
        )
        for i, hit in enumerate(res.candidates, 1):
            print(
                f"    {i}. [{hit.domain}] {Path(hit.source).name} · {hit.timestamp[:10]} — "
                f"{' '.join(hit.content.split())[:70]}…"
            )
        clue = next(clues, None)
        print(f"  clue> {clue}")
        return clue

    result = memory.ask("Luis", clue_provider=provider)
    print(search_text(result, full=False).splitlines()[0])
    if result.best:
        print(
            f"  answer: {result.best.timestamp[:10]} — {' '.join(result.best.content.split())[:90]}…"
        )

    _section("6. Time: facts change, the old value is kept as history")
    for notice in memory.notices("user"):
        print(f"  {notice}")
    active = memory.current_facts()
    if "user::location" in active:
        print(f"  where do I live now?      {active['user::location'].value}")
    past = memory.facts_as_of("2024-12-31")
    if "user::location" in past:
        print(f"  where did I live in 2024? {past['user::location'].value}")

    _section("7. A correction with replaces: the old memory is flagged OUTDATED")
    first = memory.save("The CI runners use Ubuntu 22.04 images with Python 3.11 preinstalled.")
    print(f"  saved {first.leaf_ids[0]}")
    saved = memory.save(
        "The CI runners moved to Ubuntu 24.04 images in November; Python 3.12 is the default now.",
        replaces="CI runners Ubuntu 22.04 images",
    )
    print(
        f"  saved {saved.leaf_ids[0]} with replaces -> {saved.replaces_status}: {saved.replaced_id}"
    )
    print("  search 'which image do the CI runners use':")
    for line in compact_answer(memory.search("which image do the CI runners use")).splitlines()[:8]:
        print(f"    {line}")

    _section("8. Health check")
    check = memory.check()
    print("  store is healthy" if check.ok else "  problems: " + "; ".join(check.problems[:5]))
    print(f"\nDone. Explore it yourself:  python3 main.py --path {ws} tree")
    return 0
