"""Fit the learned NOT FOUND (ihmt/search/unanswered.py) on the agent-question corpora, and say
what it is worth on corpora it was not fitted on.

``python3 benchmarks/fit_unanswered.py record --set dev ... [--semantic] --save rows.json``
answers every corpus's questions the way benchmarks/agent_questions.py does (with the judge
switched off) and records, for each question answered BEST, the judge's input, whether the
question has an answer in memory, and how the benchmark scored the answer.

``python3 benchmarks/fit_unanswered.py fit --lexical rows.json --semantic rows-sem.json
[--write]`` fits one forest per mode (scikit-learn's HistGradientBoostingClassifier, fixed
seed, no early stopping), reports leave one corpus out what each threshold would have changed
(NOT FOUND gained on questions without an answer, false NOT FOUND added, right answers lost),
and with ``--write`` writes the forests fitted on all rows to ihmt/search/unanswered_trees.py.
Fitting needs scikit-learn; the package itself only reads the trees.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from agent_questions import SETS, build_store, flat_baseline, load_corpus, score_question
from forests import add_fit_command, add_record_command, fit_rows, fitted_modes, write_forests

from ihmt import boosted
from ihmt.search import engine, unanswered, unanswered_trees

DEPTH = 3
ROUNDS = 200
RATE = 0.05
THRESHOLDS = (0.4, 0.5, 0.6, 0.7)
OUTPUT = Path(__file__).resolve().parent.parent / "ihmt" / "search" / "unanswered_trees.py"


def record(names: list[str], semantic: bool) -> list[dict]:
    """One row per question answered BEST, with the judge's input and the benchmark's score."""
    seen: dict[str, list[float]] = {}
    original = unanswered.features
    judged = engine.SearchEngine._judge_unanswered
    asking: list[str] = []

    def spy(*args, **kwargs):
        x = original(*args, **kwargs)
        if x is not None and asking:
            seen.setdefault(asking[-1], x)
        return None  # the judge stays off: what is recorded is the answer without it

    def judge(self, result, ctx, question, *args):
        asking.append(question)
        return judged(self, result, ctx, question, *args)

    unanswered.features = spy
    engine.SearchEngine._judge_unanswered = judge
    rows = []
    try:
        for name in names:
            corpus = load_corpus(name)
            flat = flat_baseline(corpus)
            with tempfile.TemporaryDirectory(prefix=f"ihmt-nf-{name}-") as tmp:
                memory, owner, corrected = build_store(corpus, Path(tmp), semantic)
                for q in corpus["questions"]:
                    seen.clear()
                    asking.clear()
                    scored = score_question(q, memory, owner, corrected, flat)
                    x = seen.get(q["question"])
                    if x is None or scored["verdict"].split()[0] != "BEST":
                        continue
                    rows.append(
                        {
                            "corpus": name,
                            "id": q["id"],
                            "kind": q["kind"],
                            "x": x,
                            "y": 1.0 if q["kind"] == "unanswerable" else 0.0,
                            "best_ok": bool(scored.get("best_ok")),
                        }
                    )
                memory.close()
            print(f"recorded {name}", file=sys.stderr)
    finally:
        unanswered.features = original
        engine.SearchEngine._judge_unanswered = judged
    return rows


def fit(rows: list[dict], rounds: int = ROUNDS):
    """(forest, base): the fitted trees as boosted.py nodes and the log-odds they add to."""
    return fit_rows(rows, DEPTH, rounds, RATE)


def left_out(rows: list[dict], label: str, rounds: int = ROUNDS) -> None:
    """For each threshold, what the judge fitted without a corpus does to that corpus,
    summed over all corpora."""
    import math

    probabilities: list[float] = []
    names = list(dict.fromkeys(r["corpus"] for r in rows))
    for name in names:
        held = [r for r in rows if r["corpus"] == name]
        forest, base = fit([r for r in rows if r["corpus"] != name], rounds)
        trees = boosted.forest(forest)
        for r in held:
            raw = base + boosted.tree_score(trees, r["x"])
            probabilities.append(1.0 / (1.0 + math.exp(-raw)))
    ordered = [r for name in names for r in rows if r["corpus"] == name]
    unanswerable = sum(1 for r in ordered if r["y"])
    print(f"{label}: {len(ordered)} BEST answers, {unanswerable} to questions without an answer")
    for threshold in THRESHOLDS:
        picked = [r for r, p in zip(ordered, probabilities, strict=True) if p >= threshold]
        gained = sum(1 for r in picked if r["y"])
        false = sum(1 for r in picked if not r["y"] and r["kind"] != "ambiguous")
        lost = sum(1 for r in picked if not r["y"] and r["best_ok"])
        print(
            f"{label} threshold {threshold}: NOT FOUND on unanswerable +{gained}, "
            f"false NOT FOUND +{false}, right BEST lost {lost}"
        )


def write_module(lexical, semantic) -> None:
    write_forests(OUTPUT, "unanswered.py", "benchmarks/fit_unanswered.py", lexical, semantic)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    add_record_command(sub, SETS)
    add_fit_command(sub, SETS, ROUNDS, "ihmt/search/unanswered_trees.py")
    args = parser.parse_args(argv)
    if args.command == "record":
        if unanswered_trees.LEXICAL or unanswered_trees.SEMANTIC:
            print("note: the shipped judge is switched off while recording", file=sys.stderr)
        names = [name for chosen in args.set for name in SETS[chosen]]
        rows = record(names, args.semantic)
        Path(args.save).write_text(json.dumps(rows), encoding="utf-8")
        return 0
    shipped = (boosted.unpack(unanswered_trees.SEMANTIC), unanswered_trees.SEMANTIC_BASE)
    fitted = fitted_modes(args, SETS, left_out, fit, shipped)
    if args.write:
        write_module(*fitted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
