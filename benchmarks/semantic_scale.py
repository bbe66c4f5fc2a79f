"""Semantic search at scale: what `semantic: true` costs on a store of 50,000 memories.

Uses the generated memories of benchmarks/scale.py (same seed). Builds the store lexically,
then turns semantic search on and measures: time to embed every leaf, the sidecar's size,
search latency lexical vs semantic (distinctive and vague queries, same store, same
process), the first search after opening (loads the vector matrix), save latency with the
model loaded, and the process's peak memory. Needs: pip install 'ihmt[semantic]'.

    python3 benchmarks/semantic_scale.py [--size 50000] [--no-write]
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import ingest_texts, machine, percentile, write_section
from scale import PEOPLE, SEED, TOOLS, TOPICS, corpus, make_memory

SECTION = "Scale with semantic search (benchmarks/semantic_scale.py)"


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def measure(n: int, work: Path) -> dict:
    from ihmt import IHMT

    texts, words = corpus(n)
    ws = work / f"s{n}"
    memory = IHMT.initialize(ws)
    build_s = ingest_texts(memory, texts)
    memory.close()

    memory = IHMT.initialize(ws, semantic=True)
    t0 = time.perf_counter()
    if memory.semantic.embedder() is None:
        raise SystemExit(f"semantic search unavailable: {memory.semantic.error}")
    load_s = time.perf_counter() - t0

    def progress(done: int, total: int) -> None:
        if done % 5000 < 64 or done == total:
            print(f"  embedded {done}/{total}", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    memory.semantic.sync(progress)
    embed_s = time.perf_counter() - t0
    sidecar = memory.semantic.vectors.size_bytes()
    memory.close()

    memory = IHMT.open(ws)  # a fresh instance: the first search loads the vector matrix
    rng = random.Random(SEED + n)
    targets = rng.sample(range(n), min(200, n))
    first_ms = timed(lambda: memory.search(words[targets[0]], top_k=5))
    by_source = {row["source"]: row["id"] for row in memory.catalog.all_leaves()}
    dense = memory.engine.dense
    out: dict = {"n": n, "build_s": build_s, "load_s": load_s, "embed_s": embed_s}
    out.update(sidecar=sidecar, first_ms=first_ms)
    vague = [f"{rng.choice(TOPICS)} {rng.choice(TOOLS)} {rng.choice(PEOPLE)}" for _ in range(100)]
    for mode, attached in (("lex", None), ("sem", dense)):
        memory.engine.dense = attached
        lat, r1, r5 = [], 0, 0
        for i in targets:
            t = time.perf_counter()
            result = memory.search(words[i], top_k=5)
            lat.append((time.perf_counter() - t) * 1000)
            ids = [h.leaf_id for h in result.hits]
            r1 += ids[:1] == [by_source[f"m{i}"]]
            r5 += by_source[f"m{i}"] in ids
        vague_lat = [timed(lambda q=q: memory.search(q, top_k=5)) for q in vague]
        out[mode] = {
            "med": statistics.median(lat),
            "p95": percentile(lat, 0.95),
            "vague_med": statistics.median(vague_lat),
            "vague_p95": percentile(vague_lat, 0.95),
            "r1": r1 / len(targets),
            "r5": r5 / len(targets),
        }
    memory.engine.dense = dense
    saves = [timed(lambda j=j: memory.save(make_memory(rng, words[n + j], j))) for j in range(50)]
    out["save_med"] = statistics.median(saves)
    out["save_p95"] = percentile(saves, 0.95)
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    memory.close()
    return out


def render(r: dict) -> str:
    lex, sem = r["lex"], r["sem"]
    return "\n".join(
        [
            f"Machine: {machine()}. {r['n']:,} generated memories (benchmarks/scale.py's corpus), "
            "model all-MiniLM-L6-v2 on the CPU.",
            "",
            "| | lexical | semantic |",
            "|---|---|---|",
            f"| search, distinctive word: median / p95 ms | {lex['med']:.1f} / {lex['p95']:.1f} | "
            f"{sem['med']:.1f} / {sem['p95']:.1f} |",
            f"| search, vague query: median / p95 ms | {lex['vague_med']:.1f} / "
            f"{lex['vague_p95']:.1f} | {sem['vague_med']:.1f} / {sem['vague_p95']:.1f} |",
            f"| recall@1 / @5 (distinctive word) | {lex['r1']:.3f} / {lex['r5']:.3f} | "
            f"{sem['r1']:.3f} / {sem['r5']:.3f} |",
            "",
            f"Lexical build {r['build_s']:.0f} s; model load {r['load_s']:.1f} s (once per process); "
            f"embedding every leaf {r['embed_s']:.0f} s ({1000 * r['embed_s'] / r['n']:.1f} ms per "
            f"leaf); sidecar {r['sidecar'] / 1e6:.1f} MB ({r['sidecar'] / r['n']:.0f} bytes per "
            f"leaf); first search after opening {r['first_ms']:.0f} ms (loads the vectors); save "
            f"with the model loaded median {r['save_med']:.0f} ms (p95 {r['save_p95']:.0f}); "
            f"peak memory of the process {r['rss_mb']:.0f} MB. Semantic latency includes "
            "embedding the query.",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=50_000)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ihmt-semscale-"))
    try:
        body = render(measure(args.size, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(body)
    if not args.no_write:
        write_section(SECTION, body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
