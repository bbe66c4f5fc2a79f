"""Helpers shared by the benchmark scripts: machine description, results file, flat BM25."""

from __future__ import annotations

import math
import multiprocessing
import os
import platform
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "benchmarks" / "RESULTS.md"


def in_processes(func: Callable, items: Iterable, jobs: int = 1) -> Iterator:
    """``func`` of each item, in the items' order; with ``jobs`` > 1, that many at once in
    separate processes (``func`` must be a module-level function, each item independent)."""
    if jobs <= 1:
        yield from map(func, items)
        return
    with multiprocessing.Pool(jobs) as pool:
        yield from pool.imap(func, items)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}), "
        f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}"
    )


def write_section(name: str, body: str) -> None:
    """Replace (or append) the section `## name` in RESULTS.md."""
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# Benchmark results\n"
    marker = f"## {name}"
    start = text.find(marker)
    section = f"{marker}\n\n{body.strip()}\n\n"
    if start < 0:
        text = text.rstrip() + "\n\n" + section
    else:
        end = text.find("\n## ", start + len(marker))
        text = text[:start] + section + (text[end + 1 :] if end >= 0 else "")
    RESULTS.write_text(text.rstrip() + "\n", encoding="utf-8")


class FlatBM25:
    """Reference: an in-memory inverted index over every leaf, same terms and formula."""

    def __init__(self) -> None:
        from ihmt.search.bm25 import idf, tf_weight

        self._idf, self._tfw = idf, tf_weight
        self.postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self.ids: list[str] = []
        self.lengths: list[int] = []

    def add(self, leaf_id: str, counts: dict[str, int]) -> None:
        doc = len(self.ids)
        self.ids.append(leaf_id)
        self.lengths.append(sum(counts.values()))
        for term, count in counts.items():
            self.postings[term].append((doc, count))

    def search(
        self, terms: list[str], k: int, newest_first: dict[str, str] | None = None
    ) -> list[str]:
        """Top k ids; exact ties go to insertion order, or to the newest date when
        ``newest_first`` (id -> date) is given (IHMT's own tie rule)."""
        n = len(self.ids)
        avgdl = max(sum(self.lengths) / n, 1.0) if n else 1.0
        scores: dict[int, float] = defaultdict(float)
        for term in dict.fromkeys(terms):
            plist = self.postings.get(term)
            if not plist:
                continue
            w = self._idf(len(plist), n)
            for doc, count in plist:
                scores[doc] += w * self._tfw(count, self.lengths[doc], avgdl)
        if newest_first is None:
            best = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        else:
            # IHMT's order: score, then the newer date, then the leaf id
            ids, dates = self.ids, newest_first
            best = sorted(scores.items(), key=lambda kv: (-kv[1], ids[kv[0]]))
            best.sort(key=lambda kv: (-kv[1], _neg(dates.get(ids[kv[0]], ""))))
            best = best[:k]
        return [self.ids[d] for d, _ in best]


def _neg(date: str) -> tuple:
    return tuple(-ord(c) for c in date)


def fixed_project(folder: Path, name: str) -> Path:
    """Make ``folder`` a project named by a git remote, not by its path: a memory's id is
    derived from its project, and ties between equally scored memories are broken by id, so
    a project named after a fresh temporary folder would move a few answers from run to run."""
    git = folder / ".git"
    git.mkdir(parents=True, exist_ok=True)
    (git / "config").write_text(
        f'[remote "origin"]\n\turl = https://bench.invalid/ihmt/{name}.git\n', encoding="utf-8"
    )
    return folder


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    idx = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[idx]


def ingest_turns(memory, docs: list[dict]) -> None:
    """Store a conversation's turns (dicts with dia_id, text, timestamp) one memory each, as
    the LoCoMo benchmarks do, and build the tree."""
    memory.ingest_batch(
        {
            "text": d["text"],
            "source": d["dia_id"],
            "timestamp": d["timestamp"],
            "domain": "conversation",
            "data_type": "GENERIC",
        }
        for d in docs
    )
    memory.flush()


def ingest_texts(memory, texts: list[str]) -> float:
    """Store synthetic memories (source m0, m1, ...) and build the tree; returns the seconds
    taken. Secret redaction is off: the generated text holds no secrets."""
    started = time.perf_counter()
    memory.ingest_batch(
        (
            {"text": t, "source": f"m{i}", "domain": "general", "data_type": "GENERIC"}
            for i, t in enumerate(texts)
        ),
        redact_secrets=False,
    )
    memory.flush()
    return time.perf_counter() - started


def recall(ranked: list[str], gold: set[str], k: int) -> float:
    """Share of the evidence ids found in the first k ranked ids."""
    return len(gold & set(ranked[:k])) / len(gold)


def hit(ranked: list[str], gold: set[str], k: int) -> float:
    """1 when at least one evidence id is in the first k, else 0."""
    return 1.0 if gold & set(ranked[:k]) else 0.0


def by_category(rows: list[dict], names: dict) -> dict[str, list[dict]]:
    """LoCoMo rows grouped as "<n> <name>", plus "overall (1-4)" (category 5, adversarial,
    points at a confusable turn and is left out of the overall row)."""
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(f"{r['category']} {names[r['category']]}", []).append(r)
        if r["category"] != 5:
            groups.setdefault("overall (1-4)", []).append(r)
    return groups
