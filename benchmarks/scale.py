"""Scale benchmark: does an answer cost the same at 500, 5,000 and 50,000 memories?

For each size, builds a store of short generated memories (facts, decisions, preferences,
corrections; 20-60 words; each with a distinctive made-up word; fixed seed) and measures:
build (one batch + flush), save latency into the full store, search latency and reads for
distinctive and vague queries, compact answer size, recall@1/@5, MCP server start-up to the
first answer and its resident memory, and the same queries against a flat in-memory BM25.

    python3 benchmarks/scale.py [--sizes 500,5000,50000] [--no-mcp] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, FlatBM25, ingest_texts, machine, percentile, write_section

SEED = 20261129
TOPICS = [
    "billing",
    "deploy",
    "staging",
    "auth",
    "cache",
    "search",
    "payments",
    "mobile",
    "analytics",
    "onboarding",
    "backups",
    "monitoring",
    "kafka",
    "postgres",
    "frontend",
]
PEOPLE = ["Ana", "Luis", "Marta", "Jon", "Priya", "Kenji", "Sofia", "Omar", "Lena", "Diego"]
TOOLS = [
    "Terraform",
    "Redis",
    "Kubernetes",
    "Grafana",
    "Sentry",
    "Celery",
    "Nginx",
    "Vite",
    "pytest",
    "Docker",
    "Airflow",
    "dbt",
    "Snowflake",
    "Rust",
    "Go",
]
FILLER = (
    "because the previous approach kept failing under load and nobody wanted to "
    "maintain two code paths for the same job during the quarter"
).split()
SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ze",
    "tru",
    "vo",
    "qui",
    "nex",
    "dra",
    "po",
    "sul",
    "fen",
    "gor",
    "bix",
    "mel",
    "tan",
    "rhu",
    "jex",
    "wub",
    "cro",
]


def coined(rng: random.Random, used: set[str]) -> str:
    while True:
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(3, 4)))
        if word not in used:
            used.add(word)
            return word


def make_memory(rng: random.Random, word: str, i: int) -> str:
    topic, person, tool = rng.choice(TOPICS), rng.choice(PEOPLE), rng.choice(TOOLS)
    kind = i % 4
    if kind == 0:
        text = f"Decision: the {topic} team adopts {tool} for the {word} pipeline, agreed with {person}"
    elif kind == 1:
        text = f"Fact: the {word} service for {topic} runs on {tool} and {person} owns its on-call rota"
    elif kind == 2:
        text = f"Preference: {person} prefers {tool} over the old setup when working on {word} {topic} tasks"
    else:
        text = f"Correction: the {word} job in {topic} no longer uses {tool}; {person} moved it last sprint"
    extra = rng.sample(FILLER, rng.randint(6, len(FILLER) - 2))
    return text + " " + " ".join(extra) + "."


def corpus(n: int) -> tuple[list[str], list[str]]:
    rng = random.Random(SEED)
    used: set[str] = set()
    words = [coined(rng, used) for _ in range(n + 400)]
    texts = [make_memory(rng, words[i], i) for i in range(n)]
    return texts, words


def measure_size(n: int, work: Path, with_mcp: bool) -> dict:
    from ihmt import IHMT
    from ihmt.render import compact_answer
    from ihmt.search.query import parse_query
    from ihmt.text.tokens import estimate_tokens
    from ihmt.tree.refs import leaf_terms

    texts, words = corpus(n)
    ws = work / f"s{n}"
    memory = IHMT.initialize(ws)
    build_s = ingest_texts(memory, texts)
    files = sum(1 for p in memory.path.rglob("*") if p.is_file())
    size = sum(p.stat().st_size for p in memory.path.rglob("*") if p.is_file())
    stats = memory.stats()
    by_source = {}
    flat = FlatBM25()
    for leaf in memory.leaves():
        by_source[leaf.source] = leaf.leaf_id
        flat.add(leaf.leaf_id, leaf_terms(leaf))
    rng = random.Random(SEED + n)
    targets = rng.sample(range(n), min(500, n))
    lat, reads, tokens, r1, r5, f1, f5, flat_lat = [], [], [], 0, 0, 0, 0, []
    for i in targets:
        query = f"{words[i]}"
        t = time.perf_counter()
        result = memory.search(query, top_k=5)
        lat.append((time.perf_counter() - t) * 1000)
        reads.append(result.node_reads + result.leaf_reads)
        tokens.append(estimate_tokens(compact_answer(result)))
        ids = [h.leaf_id for h in result.hits]
        want = by_source[f"m{i}"]
        r1 += ids[:1] == [want]
        r5 += want in ids[:5]
        t = time.perf_counter()
        flat_ids = flat.search(parse_query(query).terms, 5)
        flat_lat.append((time.perf_counter() - t) * 1000)
        f1 += flat_ids[:1] == [want]
        f5 += want in flat_ids[:5]
    vague_lat, vague_reads = [], []
    vague = [f"{rng.choice(TOPICS)} {rng.choice(TOOLS)} {rng.choice(PEOPLE)}" for _ in range(100)]
    for query in vague:
        t = time.perf_counter()
        result = memory.search(query, top_k=5)
        vague_lat.append((time.perf_counter() - t) * 1000)
        vague_reads.append(result.node_reads + result.leaf_reads)
        tokens.append(estimate_tokens(compact_answer(result)))
    save_lat = []
    for j in range(200):
        text = make_memory(rng, words[n + j], j)
        t = time.perf_counter()
        memory.save(text)
        save_lat.append((time.perf_counter() - t) * 1000)
    out = {
        "n": n,
        "build_s": build_s,
        "files": files,
        "bytes": size,
        "depth": stats["depth"],
        "search_med": statistics.median(lat),
        "search_p95": percentile(lat, 0.95),
        "vague_med": statistics.median(vague_lat),
        "vague_p95": percentile(vague_lat, 0.95),
        "reads_med": statistics.median(reads),
        "reads_max": max(reads),
        "vague_reads_med": statistics.median(vague_reads),
        "tokens_med": statistics.median(tokens),
        "tokens_max": max(tokens),
        "r1": r1 / len(targets),
        "r5": r5 / len(targets),
        "f1": f1 / len(targets),
        "f5": f5 / len(targets),
        "flat_med": statistics.median(flat_lat),
        "save_med": statistics.median(save_lat),
        "save_p95": percentile(save_lat, 0.95),
        "beam_bound": memory.config.beam_width * stats["depth"] + 5,
    }
    memory.close()
    if with_mcp:
        out.update(measure_mcp(ws, words[targets[0]]))
    return out


def measure_mcp(ws: Path, word: str) -> dict:
    """Launch the real stdio server, time to the first search answer, and its RSS."""
    try:
        import anyio
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client
    except ImportError:
        return {"mcp_start_s": float("nan"), "mcp_rss_mb": float("nan")}
    env = dict(os.environ, IHMT_HOME=str(ws))
    params = StdioServerParameters(
        command=sys.executable, args=[str(ROOT / "mcp_server.py")], env=env
    )
    result: dict = {}

    async def run() -> None:
        t0 = time.perf_counter()
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            answer = await session.call_tool("search_memory", {"query": word})
            result["mcp_start_s"] = time.perf_counter() - t0
            text = answer.content[0].text if answer.content else ""
            result["mcp_found"] = word in text
            result["mcp_rss_mb"] = server_rss_mb()
            t = time.perf_counter()
            for _ in range(20):
                await session.call_tool("search_memory", {"query": word})
            result["mcp_search_ms"] = (time.perf_counter() - t) / 20 * 1000

    anyio.run(run)
    return result


def server_rss_mb() -> float:
    """RSS of the newest python child running mcp_server.py (Linux /proc)."""
    best = float("nan")
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
            if any(b"mcp_server.py" in c for c in cmd) and int(proc.name) != os.getpid():
                for line in (proc / "status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        best = int(line.split()[1]) / 1024
        except OSError:
            continue
    return best


def render(rows: list[dict]) -> str:
    def col(key: str, fmt: str) -> str:
        return " | ".join(format(r.get(key, float("nan")), fmt) for r in rows)

    head = "| metric | " + " | ".join(f"{r['n']:,}" for r in rows) + " |"
    sep = "|---|" + "---|" * len(rows)
    lines = [
        head,
        sep,
        f"| build: ingest one batch + flush (s) | {col('build_s', '.1f')} |",
        "| files / MB on disk | "
        + " | ".join(f"{r['files']:,} / {r['bytes'] / 1e6:.1f}" for r in rows)
        + " |",
        f"| tree depth | {col('depth', 'd')} |",
        "| save_memory median / p95 (ms) | "
        + " | ".join(f"{r['save_med']:.1f} / {r['save_p95']:.1f}" for r in rows)
        + " |",
        "| search, distinctive word: median / p95 (ms) | "
        + " | ".join(f"{r['search_med']:.1f} / {r['search_p95']:.1f}" for r in rows)
        + " |",
        "| search, vague: median / p95 (ms) | "
        + " | ".join(f"{r['vague_med']:.1f} / {r['vague_p95']:.1f}" for r in rows)
        + " |",
        "| files opened (node+leaf reads) median / max, distinctive | "
        + " | ".join(f"{r['reads_med']:.0f} / {r['reads_max']}" for r in rows)
        + " |",
        f"| bound beam_width x depth + top_k | {col('beam_bound', 'd')} |",
        f"| files opened median, vague | {col('vague_reads_med', '.0f')} |",
        "| compact answer tokens median / max | "
        + " | ".join(f"{r['tokens_med']:.0f} / {r['tokens_max']}" for r in rows)
        + " |",
        "| recall@1 / @5 IHMT | "
        + " | ".join(f"{r['r1']:.3f} / {r['r5']:.3f}" for r in rows)
        + " |",
        "| recall@1 / @5 flat BM25 | "
        + " | ".join(f"{r['f1']:.3f} / {r['f5']:.3f}" for r in rows)
        + " |",
        f"| flat BM25 (in-memory index) median (ms) | {col('flat_med', '.2f')} |",
        f"| MCP start-up to first answer (s) | {col('mcp_start_s', '.2f')} |",
        f"| MCP server RSS after first search (MB) | {col('mcp_rss_mb', '.0f')} |",
        f"| MCP search_memory round trip (ms) | {col('mcp_search_ms', '.1f')} |",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,5000,50000")
    parser.add_argument("--no-mcp", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    work = Path(tempfile.mkdtemp(prefix="ihmt-scale-"))
    rows = []
    try:
        for n in sizes:
            row = measure_size(n, work, not args.no_mcp)
            rows.append(row)
            print(
                f"{n:,}: build {row['build_s']:.1f} s, search {row['search_med']:.1f} ms, "
                f"save {row['save_med']:.1f} ms, R@1 {row['r1']:.3f}",
                flush=True,
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    body = f"Machine: {machine()}.\n\n" + render(rows)
    if len(rows) >= 2:
        a, b = rows[0], rows[-1]
        body += (
            f"\n\nRatios {b['n']:,} vs {a['n']:,}: search median x{b['search_med'] / a['search_med']:.2f}, "
            f"save median x{b['save_med'] / a['save_med']:.2f}."
        )
    print(body)
    if not args.no_write:
        write_section("Scale (benchmarks/scale.py)", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
