"""Fit the last ordering stage (ihmt/search/learned_order.py) on the agent-question corpora, and
say how well it carries to corpora it was not fitted on.

``python3 benchmarks/fit_order.py record --set dev ... [--semantic] --save rows.json`` builds
each corpus's store the way benchmarks/agent_questions.py does and records, for every
answerable question, the features of the leading candidates (with the stage switched off, so
the earlier stages' order is what is recorded) and which of them the writers marked as the
answer.

``python3 benchmarks/fit_order.py fit --lexical rows.json --semantic rows-sem.json [--write]``
fits one forest of gradient-boosted trees per mode (scikit-learn's
HistGradientBoostingClassifier, fixed seed, no early stopping: the same rows give the same
trees), reports leave one corpus out how often the fitted order puts an answer first in the
corpus left out against the earlier stages' order, and with ``--write`` writes the forests
fitted on all rows to ihmt/search/order_trees.py (packed: ihmt/boosted.py).
``python3 benchmarks/fit_order.py show [--semantic]`` prints the shipped trees as text, one per
line. Fitting needs scikit-learn (``pip install scikit-learn``); the package itself only reads
the trees.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import zlib
from pathlib import Path

from agent_questions import (
    ANSWERABLE_KINDS,
    SETS,
    build_store,
    load_corpus,
    run_corpus,
    summary,
    visible,
)
from forests import add_fit_command, exported, fitted_classifier, fitted_modes, packed_literal

from ihmt import boosted as packed_trees
from ihmt.search import learned_order, order_trees

DEPTH = 5
ROUNDS = 400
RATE = 0.1
OUTPUT = Path(__file__).resolve().parent.parent / "ihmt" / "search" / "order_trees.py"
# signals that may only raise a candidate's score (or only lower it), whatever else holds: a
# safeguard for stores unlike the corpora (a new user's first dozen memories). Left one fold
# of five out, the constraints cost nothing (800 rounds at rate 0.05: answer first 8,411 of
# 11,110 against 8,412 unconstrained).
MONOTONE = {
    "coverage": 1,
    "shape": 1,
    "no_shape": -1,
    "names": 1,
    "rarest": 1,
    "rare_share": 1,
}


def monotone_inputs() -> list[int]:
    """The sign each model input keeps: a feature's and its difference from the first's."""
    signs = [MONOTONE.get(name, 0) for name in learned_order.FEATURES]
    return signs + signs


def record(names: list[str], semantic: bool) -> list[dict]:
    """One row per answerable question whose search reached the ordering stage."""
    recorded: list[tuple[list, list, list]] = []
    original = learned_order.reorder

    def spy(ranked, ctx, trees=None):
        window = ranked[: learned_order.WINDOW]
        texts = [ctx.content_of(c) for c in window]
        recorded.append((learned_order.features(window, ctx), [c.ref["id"] for c in window], texts))
        return ranked

    learned_order.reorder = spy
    rows = []
    try:
        for name in names:
            corpus = load_corpus(name)
            with tempfile.TemporaryDirectory(prefix=f"ihmt-fit-{name}-") as tmp:
                memory, owner, _ = build_store(corpus, Path(tmp), semantic)
                for q in corpus["questions"]:
                    if q["kind"] not in ANSWERABLE_KINDS:
                        continue
                    recorded.clear()
                    memory.search(q["question"])
                    if not recorded:
                        continue
                    feats, ids, texts = recorded[0]
                    labels = answer_labels(q, [owner.get(i) for i in ids], texts)
                    rows.append(
                        {"corpus": name, "id": q["id"], "kind": q["kind"], "x": feats, "y": labels}
                    )
                memory.close()
            print(f"recorded {name}", file=sys.stderr)
    finally:
        learned_order.reorder = original
    return rows


def answer_labels(question: dict, corpus_ids: list, texts: list[str]) -> list[float]:
    """1 for each candidate that answers: a gold memory, and of a gold document only the pieces
    that show the expected answer (any of its pieces when none in the window does), so the
    trees learn to put the passage that answers first, not any piece of the right file."""
    gold = set(question.get("gold") or [])
    shows = [visible(question.get("answer"), text) for text in texts]
    labels = [1.0 if cid in gold else 0.0 for cid in corpus_ids]
    pieces: dict[str, list[int]] = {}
    for index, cid in enumerate(corpus_ids):
        if cid in gold:
            pieces.setdefault(cid, []).append(index)
    for indexes in pieces.values():
        if len(indexes) > 1 and any(shows[i] for i in indexes):
            for i in indexes:
                labels[i] = 1.0 if shows[i] else 0.0
    return labels


def fit(rows: list[dict], rounds: int = ROUNDS):
    """A forest fitted on the questions with an answer among their window."""
    inputs, labels = [], []
    for r in rows:
        if len(r["y"]) < 2 or not any(r["y"]):
            continue
        inputs += learned_order.model_input(r["x"])
        labels += r["y"]
    model = fitted_classifier(inputs, labels, DEPTH, rounds, RATE, monotone_inputs())
    return exported(model, digits=6)


def right_first(rows: list[dict], forest) -> tuple[int, int]:
    """(fitted, earlier order): questions whose first candidate is an answer."""
    fitted = earlier = 0
    for r in rows:
        if not r["y"]:
            continue
        trees = learned_order.forest(forest)
        inputs = learned_order.model_input(r["x"])
        scores = [learned_order.tree_score(trees, x) for x in inputs]
        pick = learned_order.window_order(scores, r["x"], inputs, set())[0]
        fitted += r["y"][pick] > 0
        earlier += r["y"][0] > 0
    return fitted, earlier


def leave_one_out(rows: list[dict], label: str, rounds: int = ROUNDS) -> None:
    names = list(dict.fromkeys(r["corpus"] for r in rows))
    total_fit = total_before = total = 0
    for name in names:
        held = [r for r in rows if r["corpus"] == name]
        fitted, before = right_first(held, fit([r for r in rows if r["corpus"] != name], rounds))
        total_fit, total_before, total = (
            total_fit + fitted,
            total_before + before,
            total + len(held),
        )
        print(f"{label} {name:14} left out: answer first {before} -> {fitted} of {len(held)}")
    print(f"{label} all left out: {total_before} -> {total_fit} of {total}")


def fold_of(name: str, folds: int) -> int:
    """A corpus's fold, the same on every run and machine (not Python's salted hash)."""
    return zlib.crc32(name.encode("utf-8")) % folds


def check_left_out(path: str, semantic: bool, out: str | None, folds: int = 0) -> int:
    """The agent-question benchmark's own scoring, each corpus answered with trees fitted on
    all the other corpora (``folds`` > 1: on the corpora of the other folds, one fit per fold
    instead of one per corpus): what the stage is worth on memories it has not seen."""
    rows = json.loads(Path(path).read_text(encoding="utf-8"))
    names = list(dict.fromkeys(r["corpus"] for r in rows))
    groups = (
        [[n for n in names if fold_of(n, folds) == k] for k in range(folds)]
        if folds > 1
        else [[n] for n in names]
    )
    scored: list[dict] = []
    for group in groups:
        forest = fit([r for r in rows if r["corpus"] not in group])
        setattr(order_trees, "SEMANTIC" if semantic else "LEXICAL", forest)
        for name in group:
            scored += run_corpus(name, semantic)
            print(f"checked {name}", file=sys.stderr)
    for key, value in summary(scored).items():
        print(f"  {key:16} {value}")
    if out:
        Path(out).write_text(json.dumps(scored, indent=1), encoding="utf-8")
    return 0


def write_module(lexical, semantic) -> None:
    OUTPUT.write_text(
        '"""Gradient-boosted trees for learned_order.py, written by benchmarks/fit_order.py: do not\n'
        "edit by hand. Each forest is packed (ihmt/boosted.py: a node is feature,\n"
        "threshold, left, right, value; feature -1 is a leaf, its value added to the score;\n"
        'x[feature] <= threshold goes left). `python3 benchmarks/fit_order.py show` prints them."""\n\n'
        f"LEXICAL: str = {packed_literal(lexical)}\n\n"
        f"SEMANTIC: str = {packed_literal(semantic)}\n",
        encoding="utf-8",
    )
    print(f"wrote {OUTPUT}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="record the features of the corpora's questions")
    rec.add_argument("--set", choices=sorted(SETS), action="append", required=True)
    rec.add_argument("--semantic", action="store_true")
    rec.add_argument("--save", required=True, help="write the recorded rows to this file")
    add_fit_command(sub, SETS, ROUNDS, "ihmt/search/order_trees.py")
    check = sub.add_parser("check", help="score each corpus with trees fitted on the others")
    check.add_argument("--rows", required=True, help="rows recorded in the same mode")
    check.add_argument("--semantic", action="store_true")
    check.add_argument("--json", help="write every scored row to this file")
    check.add_argument(
        "--folds", type=int, default=0, help="corpora in this many folds, one fit per fold"
    )
    show = sub.add_parser("show", help="print the shipped trees, one per line, as text")
    show.add_argument("--semantic", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "show":
        shipped = order_trees.SEMANTIC if args.semantic else order_trees.LEXICAL
        for tree in learned_order.forest(shipped):
            print(" ".join(",".join(repr(x) for x in node) for node in tree))
        return 0
    if args.command == "check":
        return check_left_out(args.rows, args.semantic, args.json, args.folds)
    if args.command == "record":
        names = [name for chosen in args.set for name in SETS[chosen]]
        rows = record(names, args.semantic)
        Path(args.save).write_text(json.dumps(rows), encoding="utf-8")
        return 0
    shipped = packed_trees.unpack(order_trees.SEMANTIC)
    forests = fitted_modes(args, SETS, leave_one_out, fit, shipped)
    if args.write:
        write_module(*forests)
    return 0


if __name__ == "__main__":
    sys.exit(main())
