"""Fit the learned AMBIGUOUS (ihmt/search/rivals.py) on the agent-question corpora, and say what
it is worth on corpora it was not fitted on.

``python3 benchmarks/fit_rivals.py record --set dev ... --save rows.json`` answers every
corpus's questions the way benchmarks/agent_questions.py does (with the judge switched off)
and records, for each question answered BEST, the judge's input for the best memory and its
runner-up, and the label: 1 when the question is one the writers marked ambiguous and both
memories are among its candidates, else 0 (a question with one answer, or a pair that is not
the choice the writers meant).

``python3 benchmarks/fit_rivals.py fit --lexical rows.json [--write]`` fits the forest
(scikit-learn's HistGradientBoostingClassifier, fixed seed, no early stopping), reports leave
one set out what each threshold would do (ambiguous questions flagged with their two
candidates, AMBIGUOUS on questions with one answer or none, right answers lost), and with
``--write`` writes the forests fitted on all rows to ihmt/search/rivals_trees.py. The
semantic mode's ordering inputs differ, so it has a forest of its own, fitted on rows
recorded with ``--semantic``; without them it is left empty and the judge is off in that
mode. Fitting needs scikit-learn; the package only reads the trees.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

from agent_questions import SETS, build_store, flat_baseline, load_corpus, score_question
from forests import (
    add_fit_command,
    add_record_command,
    fit_rows,
    fitted_modes,
    packed_literal,
    write_forests,
)

from ihmt import boosted
from ihmt.search import rivals, rivals_trees

DEPTH = 3
ROUNDS = 200
RATE = 0.05
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7)
OUTPUT = Path(__file__).resolve().parent.parent / "ihmt" / "search" / "rivals_trees.py"


def record(names: list[str], semantic: bool = False) -> list[dict]:
    """One row per question answered BEST whose search reached the judge."""
    seen: list[tuple[list[float], str, str]] = []
    original = rivals.features

    def spy(scored, lead_id, *args, **kwargs):
        judged = original(scored, lead_id, *args, **kwargs)
        if judged is not None:
            seen.append((judged[0], lead_id, judged[1].ref["id"]))
        return None  # the judge stays off: what is recorded is the answer without it

    rivals.features = spy
    rows = []
    try:
        for name in names:
            corpus = load_corpus(name)
            flat = flat_baseline(corpus)
            with tempfile.TemporaryDirectory(prefix=f"ihmt-rivals-{name}-") as tmp:
                memory, owner, corrected = build_store(corpus, Path(tmp), semantic)
                for q in corpus["questions"]:
                    seen.clear()
                    scored = score_question(q, memory, owner, corrected, flat)
                    if not seen or scored["verdict"] != "BEST":
                        continue
                    x, lead, rival = seen[0]
                    gold = set(q.get("gold") or [])
                    pair = {owner.get(lead), owner.get(rival)}
                    rows.append(
                        {
                            "corpus": name,
                            "id": q["id"],
                            "kind": q["kind"],
                            "x": x,
                            "y": 1.0 if q["kind"] == "ambiguous" and pair <= gold else 0.0,
                            "best_ok": bool(scored.get("best_ok")),
                        }
                    )
                memory.close()
            print(f"recorded {name}", file=sys.stderr)
    finally:
        rivals.features = original
    return rows


def fit(rows: list[dict], rounds: int = ROUNDS):
    """(forest, base): the fitted trees as boosted.py nodes and the log-odds they add to."""
    return fit_rows(rows, DEPTH, rounds, RATE)


def left_out(rows: list[dict], label: str, rounds: int = ROUNDS) -> None:
    """For each threshold, what the judge fitted without a set does to that set's corpora,
    summed over all sets."""
    set_of = {name: chosen for chosen, names in SETS.items() for name in names}
    groups = list(dict.fromkeys(set_of.get(r["corpus"], r["corpus"]) for r in rows))
    judged: list[tuple[dict, float]] = []
    for group in groups:
        held = [r for r in rows if set_of.get(r["corpus"], r["corpus"]) == group]
        forest, base = fit(
            [r for r in rows if set_of.get(r["corpus"], r["corpus"]) != group], rounds
        )
        trees = boosted.forest(forest)
        for r in held:
            raw = base + boosted.tree_score(trees, r["x"])
            judged.append((r, 1.0 / (1.0 + math.exp(-raw))))
    pairs = sum(1 for r, _ in judged if r["y"])
    print(f"{label}: {len(judged)} BEST answers, {pairs} to ambiguous questions with both")
    for threshold in THRESHOLDS:
        picked = [r for r, p in judged if p >= threshold]
        right = sum(1 for r in picked if r["y"])
        spurious = sum(1 for r in picked if r["kind"] != "ambiguous")
        lost = sum(1 for r in picked if r["kind"] != "ambiguous" and r["best_ok"])
        print(
            f"{label} threshold {threshold}: ambiguous flagged with both +{right}, "
            f"AMBIGUOUS on other questions +{spurious}, right BEST lost {lost}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    add_record_command(sub, SETS)
    add_fit_command(sub, SETS, ROUNDS, "ihmt/search/rivals_trees.py")
    args = parser.parse_args(argv)
    if args.command == "record":
        if rivals_trees.LEXICAL:
            print("note: the shipped judge is switched off while recording", file=sys.stderr)
        names = [name for chosen in args.set for name in SETS[chosen]]
        rows = record(names, args.semantic)
        Path(args.save).write_text(json.dumps(rows), encoding="utf-8")
        return 0
    # without semantic rows fitted_modes keeps the shipped semantic forest; none is shipped
    lexical, semantic = fitted_modes(args, SETS, left_out, fit, ((), 0.0))
    if args.write:
        write_module(lexical, semantic if args.semantic else None)
    return 0


def write_module(lexical, semantic) -> None:
    """Both forests; without semantic rows the semantic one is left empty (the judge is then
    off in that mode: an empty forest would say a half for every pair)."""
    if semantic is not None:
        write_forests(OUTPUT, "rivals.py", "benchmarks/fit_rivals.py", lexical, semantic)
        return
    trees, base = lexical
    OUTPUT.write_text(
        '"""Gradient-boosted trees for rivals.py, written by benchmarks/fit_rivals.py: do not edit by\n'
        "hand. The forest is packed (ihmt/boosted.py); the base is the fitted log-odds the trees'\n"
        'values add to. No semantic forest: the judge is off in that mode."""\n\n'
        f"LEXICAL: str = {packed_literal(trees)}\n\n"
        f"LEXICAL_BASE: float = {base!r}\n\n"
        'SEMANTIC: str = ""\n\n'
        "SEMANTIC_BASE: float = 0.0\n",
        encoding="utf-8",
    )
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    sys.exit(main())
