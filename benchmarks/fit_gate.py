"""Fit the learned gate of the per-prompt hook (ihmt/loop/prompt_gate.py) on the coding-agent
sessions of benchmarks/hook_sessions/, and say what it is worth on sets it was not fitted on.

``python3 benchmarks/fit_gate.py record [--set NAME ...] [--semantic] --save rows.json``
captures every set's sessions through the hooks as hook_sessions.py does, sends every prompt
with the gate turning all away (so that a prompt's closing question is searched too, whatever
trees are shipped), and records, each time a prompt that names nothing reaches the gate, its
input and whether the memories it would show (the search's top four) show the answer: a recall
prompt whose answer they show is a row to pass, anything else (the answer not among them, a
never-said question, an unrelated request) a row to turn away.

``python3 benchmarks/fit_gate.py fit --lexical rows.json --semantic rows-sem.json [--write]
[--without hs20]`` fits one forest per mode (scikit-learn's HistGradientBoostingClassifier,
fixed seed), reports with the sets split in eight folds what each threshold would have shown
against the fixed floors, and with ``--write`` writes the forests fitted on all rows to
ihmt/loop/prompt_gate_trees.py. Fitting needs scikit-learn; the package only reads the trees.

``python3 benchmarks/fit_gate.py folds --lexical rows.json --semantic rows-sem.json
--without hs20 --threshold 0.55 [--run-semantic]`` runs the hook benchmark itself the same
way: each fold's sets through hook_sessions.py with the fixed floors, then gated by trees
fitted without that fold, and sums what the blocks show and to which prompts they go.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

from forests import add_fit_command, fit_rows, fitted_modes, write_forests
from hook_sessions import HERE, captured_store, run_set, shows

from ihmt.loop import prompt_gate
from ihmt.text.clean import one_line

DEPTH = 3
ROUNDS = 200
RATE = 0.05
FOLDS = 8
THRESHOLDS = (0.4, 0.5, 0.6, 0.7)
OUTPUT = Path(__file__).resolve().parent.parent / "ihmt" / "loop" / "prompt_gate_trees.py"
# batches kept out of a fit to be measured on it (written blind, run at first sight)
BATCHES = {"hs20": ["photovault", "shuleboard", "shelfdata"]}


def set_names() -> list[str]:
    return sorted(p.parent.name for p in HERE.glob("*/sessions.json"))


def record_set(name: str, work: Path, semantic: bool) -> list[dict]:
    """The gate's rows for one set's prompts (module doc)."""
    from ihmt.vcs.project import project_of

    data = json.loads((HERE / name / "sessions.json").read_text(encoding="utf-8"))
    memory, cwd = captured_store(data, name, work, semantic)
    seen: list[tuple[list[float], list[str]]] = []
    original = prompt_gate.features

    def spy(result, *args, **kwargs):
        x = original(result, *args, **kwargs)
        seen.append((x, [one_line(hit.content, 600) for hit in result.hits[: prompt_gate.SHOWN]]))
        return x

    chance = prompt_gate.probability
    prompt_gate.features = spy
    # the gate turns every prompt away while recording, so that what is recorded does not hang
    # on the trees shipped: the whole prompt, then its closing question when it has one
    prompt_gate.probability = lambda x, semantic: 0.0
    rows = []
    try:
        for item in data["prompts"]:
            seen.clear()
            memory.prompt_recall(item["prompt"], project_of(str(cwd)), load_model=False)
            for x, texts in seen:
                answer = item.get("answer") if item["kind"] == "recall" else None
                shown = bool(answer) and any(shows(text, answer) for text in texts)
                rows.append({"corpus": name, "kind": item["kind"], "x": x, "y": int(shown)})
    finally:
        prompt_gate.features = original
        prompt_gate.probability = chance
        memory.close()
    return rows


def record(names: list[str], semantic: bool) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="ihmt-fit-gate-") as tmp:
        for name in names:
            rows += record_set(name, Path(tmp), semantic)
            print(f"{name}: {len(rows)} rows", file=sys.stderr, flush=True)
    return rows


def fit(rows: list[dict], rounds: int = ROUNDS):
    """(forest, base): the fitted trees as boosted.py nodes and the log-odds they add to."""
    return fit_rows(rows, DEPTH, rounds, RATE)


def left_out(rows: list[dict], label: str, rounds: int = ROUNDS) -> None:
    """For each threshold, what the gate fitted without a fold of sets passes in that fold,
    summed over the folds: recall prompts whose answer the block shows, never-said questions
    and unrelated requests that get a block."""
    from ihmt import boosted

    names = sorted({r["corpus"] for r in rows})
    fold = {name: i % FOLDS for i, name in enumerate(names)}
    scored: list[tuple[dict, float]] = []
    for k in range(FOLDS):
        held = [r for r in rows if fold[r["corpus"]] == k]
        if not held:
            continue
        forest, base = fit([r for r in rows if fold[r["corpus"]] != k], rounds)
        trees = boosted.forest(forest)
        for r in held:
            raw = base + boosted.tree_score(trees, r["x"])
            scored.append((r, 1.0 / (1.0 + math.exp(-raw))))
    answers = sum(r["y"] for r, _ in scored)
    print(f"{label}: {len(scored)} gate inputs, {answers} whose top four show the answer")
    for threshold in THRESHOLDS:
        passed = [r for r, p in scored if p >= threshold]
        shown = sum(r["y"] for r in passed)
        never = sum(1 for r in passed if r["kind"] == "never_said")
        unrelated = sum(1 for r in passed if r["kind"] == "unrelated")
        print(
            f"{label} threshold {threshold}: answer shown {shown}, never-said passed {never}, "
            f"unrelated passed {unrelated}, passed in all {len(passed)}"
        )


def write_module(lexical, semantic) -> None:
    write_forests(OUTPUT, "prompt_gate.py", "benchmarks/fit_gate.py", lexical, semantic)


def in_folds(args) -> None:
    """The hook benchmark itself, fold by fold: each fold's sets run through hook_sessions.py
    with the fixed floors, then with trees fitted without that fold at each threshold; sums of
    recall prompts whose block shows the answer, never-said questions and unrelated requests
    that get a block, and answers in the brief or the block."""
    from ihmt import boosted
    from ihmt.loop import prompt_gate_trees

    held_back = {name for chosen in args.without for name in BATCHES.get(chosen, [chosen])}
    rows = {}
    for mode, path in (("lexical", args.lexical), ("semantic", args.semantic)):
        rows[mode] = [
            r
            for r in json.loads(Path(path).read_text(encoding="utf-8"))
            if r["corpus"] not in held_back
        ]
    names = sorted({r["corpus"] for r in rows["lexical"]})
    fold = {name: i % FOLDS for i, name in enumerate(names)}
    plans: list[float | None] = [None, *args.threshold]
    totals = {plan: [0, 0, 0, 0] for plan in plans}
    shipped = (prompt_gate_trees.LEXICAL, prompt_gate_trees.SEMANTIC, prompt_gate.THRESHOLD)
    try:
        for k in range(FOLDS):
            fitted = {mode: fit([r for r in rows[mode] if fold[r["corpus"]] != k]) for mode in rows}
            for plan in plans:
                lexical, semantic = fitted["lexical"], fitted["semantic"]
                prompt_gate_trees.LEXICAL = boosted.pack(lexical[0]) if plan else ""
                prompt_gate_trees.LEXICAL_BASE = lexical[1]
                prompt_gate_trees.SEMANTIC = boosted.pack(semantic[0]) if plan else ""
                prompt_gate_trees.SEMANTIC_BASE = semantic[1]
                prompt_gate.THRESHOLD = plan or prompt_gate.THRESHOLD
                for name in (n for n in names if fold[n] == k):
                    with tempfile.TemporaryDirectory(prefix="ihmt-gate-folds-") as tmp:
                        result = run_set(
                            HERE / name / "sessions.json", Path(tmp), args.run_semantic
                        )
                    tally = totals[plan]
                    for row in result["rows"]:
                        kind, block = row["kind"], bool(row["block"])
                        tally[0] += kind == "recall" and block and row["shown"]
                        tally[1] += kind == "never_said" and block
                        tally[2] += kind == "unrelated" and block
                        tally[3] += kind == "recall" and (row["shown"] or row["brief"])
            print(f"fold {k + 1} of {FOLDS} done", file=sys.stderr, flush=True)
    finally:
        prompt_gate_trees.LEXICAL, prompt_gate_trees.SEMANTIC, prompt_gate.THRESHOLD = shipped
    for plan, (shown, never, unrelated, either) in totals.items():
        label = "fixed floors" if plan is None else f"trees at {plan}"
        print(
            f"{label}: answer shown {shown}, never-said with a block {never}, unrelated with a "
            f"block {unrelated}, answer in the brief or the block {either}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    recording = sub.add_parser("record", help="record the gate's rows on hook-session sets")
    recording.add_argument("--set", action="append", choices=set_names(), default=[])
    recording.add_argument("--semantic", action="store_true")
    recording.add_argument("--save", required=True)
    sets = {**BATCHES, **{name: [name] for name in set_names()}}
    add_fit_command(sub, sets, ROUNDS, "ihmt/loop/prompt_gate_trees.py")
    folding = sub.add_parser("folds", help="the hook benchmark in folds, trees fitted without each")
    folding.add_argument("--lexical", required=True, help="rows recorded without --semantic")
    folding.add_argument("--semantic", required=True, help="rows recorded with --semantic")
    folding.add_argument("--without", choices=sorted(sets), action="append", default=[])
    folding.add_argument("--threshold", type=float, action="append", default=[])
    folding.add_argument(
        "--run-semantic", action="store_true", help="stores with the semantic extra"
    )
    args = parser.parse_args(argv)
    if args.command == "folds":
        in_folds(args)
        return 0
    if args.command == "record":
        rows = record(args.set or set_names(), args.semantic)
        Path(args.save).write_text(json.dumps(rows), encoding="utf-8")
        print(f"{len(rows)} rows -> {args.save}")
        return 0
    fitted = fitted_modes(args, sets, left_out, fit)
    if args.write:
        write_module(*fitted)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
