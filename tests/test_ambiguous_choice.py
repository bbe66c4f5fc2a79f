"""AMBIGUOUS asks the agent to choose between memories, so it always shows at least two.

The tie is found among every ranked candidate, but the answer shows only the top few; a rival
the ordering stages left below them used to make an AMBIGUOUS that listed one memory ("matches
1 memories equally well"), which the agent can neither choose from nor trust. A realistic
corpus (benchmarks/agent_corpora/navarro.json, whose question about "Carmen's email address"
did that) and one with more real choices (rutafleet.json) are answered whole and every
AMBIGUOUS is checked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ihmt import IHMT
from ihmt.render import compact_answer

ROOT = Path(__file__).resolve().parents[1]
CORPORA = [
    ROOT / "benchmarks" / "agent_corpora" / f"{name}.json" for name in ("navarro", "rutafleet")
]


@pytest.mark.parametrize("path", CORPORA, ids=lambda p: p.stem)
def test_every_ambiguous_answer_lists_at_least_two_memories(tmp_path, path):
    corpus = json.loads(path.read_text(encoding="utf-8"))
    memory = IHMT.initialize(tmp_path / "store")
    for item in sorted(corpus["memories"], key=lambda m: m["date"]):
        stamp = item["date"] if "T" in item["date"] else item["date"] + "T09:00:00"
        if item.get("kind") == "document":
            source = item.get("source") or item["id"] + ".md"
            memory.ingest_text(item["content"], source=source, timestamp=stamp)
        else:
            replaces = item.get("replaces") or ""
            memory.save(item["content"], replaces=replaces, timestamp=stamp, allow_secrets=True)
    memory.flush()
    ambiguous = 0
    for question in corpus["questions"]:
        result = memory.search(question["question"])
        if result.ambiguous:
            ambiguous += 1
            shown = compact_answer(result)
            assert len(result.candidates) >= 2, shown
            assert "matches 1 memories" not in shown
    memory.close()
    if path.stem == "rutafleet":
        assert ambiguous > 0  # the corpus does have real choices to make
