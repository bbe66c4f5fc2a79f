"""The same store and question give the same answer in every process.

Python randomizes the order of a set of strings per process (PYTHONHASHSEED). A float sum
taken over such a set can round differently from one process to the next, and a ratio that
is exactly 1.0 in one process and 0.9999999999999999 in another falls on different sides of
an ordering-tree threshold: the OTHER MATCHES lines came out in a different order. These
tests answer a realistic corpus's questions under several hash seeds and compare the text
an agent reads, byte for byte.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "benchmarks" / "agent_corpora" / "navarro.json"

ANSWER_ALL = r"""
import json, sys, tempfile
from pathlib import Path
from ihmt import IHMT
from ihmt.render import compact_answer

corpus = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
with tempfile.TemporaryDirectory() as tmp:
    memory = IHMT.initialize(Path(tmp) / "store")
    for item in sorted(corpus["memories"], key=lambda m: m["date"]):
        stamp = item["date"] if "T" in item["date"] else item["date"] + "T09:00:00"
        if item.get("kind") == "document":
            memory.ingest_text(item["content"], source=item.get("source") or item["id"] + ".md",
                               timestamp=stamp)
        else:
            memory.save(item["content"], replaces=item.get("replaces") or "", timestamp=stamp,
                        allow_secrets=True)
    memory.flush()
    answers = [compact_answer(memory.search(q["question"])) for q in corpus["questions"]]
    memory.close()
print(json.dumps(answers))
"""


def answers_under(seed: int, tmp_path: Path) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", ANSWER_ALL, str(CORPUS)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(out.stdout)


def test_answers_are_byte_identical_under_different_hash_seeds(tmp_path):
    first = answers_under(1, tmp_path)
    second = answers_under(2, tmp_path)
    assert len(first) == len(second) > 50
    differing = [i for i, (a, b) in enumerate(zip(first, second, strict=True)) if a != b]
    assert differing == []
