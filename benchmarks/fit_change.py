"""Fit the judge of a later memory that changes the statement a question reached
(ihmt/search/change_judge.py) on the agent-question corpora, and say how well it carries to
corpora it was not fitted on.

``python3 benchmarks/fit_change.py record --set dev ... --save rows.json`` builds each
corpus's store the way benchmarks/agent_questions.py does, asks every question, and records,
for every answerable question whose search looked for a later change of its leading memory,
the judge's features of each later memory found. The label says whether the later memory
should answer in the leader's place: 1 when the writers marked it an answer and not the
leader (or both, and it corrects the leader: the ``corrects`` field, directly or through a
chain of corrections), else 0. A correction of another detail of the leader ("now runs every
5 minutes" for "which resource does the DAG upsert into?") is no answer to the question.

``python3 benchmarks/fit_change.py fit --rows rows.json [--without SET] [--write]`` fits one
forest (scikit-learn's HistGradientBoostingClassifier, fixed seed), reports leave one set out
how the fitted judge's choices compare with the rule's (right changes taken, wrong ones taken)
at several thresholds, and with ``--write`` writes the forest fitted on all rows to
ihmt/search/change_trees.py. Fitting needs scikit-learn; the package only reads the trees.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from agent_questions import ANSWERABLE_KINDS, SETS, build_store, load_corpus
from forests import fitted_classifier, packed_literal, with_base

from ihmt import boosted
from ihmt.search import change_judge

DEPTH = 3
ROUNDS = 200
RATE = 0.05
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7)
OUTPUT = Path(__file__).resolve().parent.parent / "ihmt" / "search" / "change_trees.py"
_RULE = change_judge.FEATURES.index("rule")


def record(names: list[str]) -> list[dict]:
    """One row per search that reached the judge: each later memory's features and label."""
    recorded: list[tuple[list, list[str], str]] = []
    original = change_judge.choose

    def spy(later, texts, ctx, threshold=None):
        rows = [
            change_judge.features(c, t, i, ctx)
            for i, (c, t) in enumerate(zip(later, texts, strict=True))
        ]
        lead = ctx.ranked_ids[0] if ctx.ranked_ids else ""
        recorded.append((rows, [c.ref["id"] for c in later], lead))
        return original(later, texts, ctx, threshold)

    change_judge.choose = spy
    out = []
    try:
        for name in names:
            corpus = load_corpus(name)
            corrects = {m["id"]: m["corrects"] for m in corpus["memories"] if m.get("corrects")}
            with tempfile.TemporaryDirectory(prefix=f"ihmt-fit-{name}-") as tmp:
                memory, owner, _ = build_store(corpus, Path(tmp), False)
                for q in corpus["questions"]:
                    recorded.clear()
                    memory.search(q["question"])
                    if q["kind"] not in ANSWERABLE_KINDS:
                        continue
                    gold = set(q.get("gold") or [])
                    for rows, ids, lead in recorded:
                        lead_id = owner.get(lead)
                        labels = [_label(owner.get(i), lead_id, gold, corrects) for i in ids]
                        out.append(
                            {
                                "corpus": name,
                                "id": q["id"],
                                "kind": q["kind"],
                                "x": rows,
                                "y": labels,
                                "lead": lead_id,
                                "later": [owner.get(i) for i in ids],
                            }
                        )
                memory.close()
            print(f"recorded {name}", file=sys.stderr)
    finally:
        change_judge.choose = original
    return out


def _label(newer: str | None, lead: str | None, gold: set[str], corrects: dict) -> float:
    """1 when the later memory should answer in the leader's place: it is an answer the
    writers marked and the leader is not, or both are and it corrects the leader."""
    if newer not in gold:
        return 0.0
    if lead not in gold:
        return 1.0
    return 1.0 if _corrects(newer, lead, corrects) else 0.0


def _corrects(newer: str | None, older: str | None, corrects: dict[str, str]) -> bool:
    """True when ``newer`` corrects ``older`` directly or through corrections in between."""
    seen: set[str] = set()
    while newer and newer not in seen:
        seen.add(newer)
        newer = corrects.get(newer)
        if newer is not None and newer == older:
            return True
    return False


def fit(rows: list[dict], rounds: int = ROUNDS):
    inputs = [x for r in rows for x in r["x"]]
    labels = [y for r in rows for y in r["y"]]
    return with_base(fitted_classifier(inputs, labels, DEPTH, rounds, RATE))


def choices(rows: list[dict], fitted, threshold: float) -> tuple[int, int, int]:
    """(right, wrong, missed): searches where the judge took a memory that corrects the
    leader, took one that does not, took none though one was found."""
    trees, base = fitted
    right = wrong = missed = 0
    for r in rows:
        best, best_p = None, threshold
        for index, x in enumerate(r["x"]):
            p = change_judge.probability(x, trees, base)
            if p >= best_p:
                best, best_p = index, p
        right, wrong, missed = _tally(r["y"], best, right, wrong, missed)
    return right, wrong, missed


def rule_choices(rows: list[dict]) -> tuple[int, int, int]:
    right = wrong = missed = 0
    for r in rows:
        best = next((i for i, x in enumerate(r["x"]) if x[_RULE]), None)
        right, wrong, missed = _tally(r["y"], best, right, wrong, missed)
    return right, wrong, missed


def _tally(labels, best, right, wrong, missed):
    if best is None:
        return right, wrong, missed + (1 if any(labels) else 0)
    if labels[best]:
        return right + 1, wrong, missed
    return right, wrong + 1, missed


def leave_one_set_out(rows: list[dict], rounds: int) -> None:
    """Each set's corpora judged by a forest fitted on the other sets' rows."""
    set_of = {name: chosen for chosen, names in SETS.items() for name in names}
    groups = list(dict.fromkeys(set_of.get(r["corpus"], r["corpus"]) for r in rows))
    totals = {t: [0, 0, 0] for t in THRESHOLDS}
    for group in groups:
        held = [r for r in rows if set_of.get(r["corpus"], r["corpus"]) == group]
        trees, base = fit(
            [r for r in rows if set_of.get(r["corpus"], r["corpus"]) != group], rounds
        )
        fitted = (boosted.pack(trees), base)
        for t in THRESHOLDS:
            for k, v in enumerate(choices(held, fitted, t)):
                totals[t][k] += v
    right, wrong, missed = rule_choices(rows)
    print(f"rule: right {right}, wrong {wrong}, missed {missed} (of {len(rows)} searches)")
    for t in THRESHOLDS:
        right, wrong, missed = totals[t]
        print(f"fitted, left out, at {t}: right {right}, wrong {wrong}, missed {missed}")


def check_left_out(
    rows: list[dict],
    semantic: bool,
    out: str | None,
    threshold: float,
    only: list[str],
    rule: bool = True,
) -> int:
    """The agent-question benchmark's own scoring, each set's corpora answered with a judge
    fitted on the other sets' rows: what the judge is worth on memories it has not seen."""
    from agent_questions import run_corpus, summary

    from ihmt.search import change_trees

    change_judge.THRESHOLD = threshold
    change_judge.RULE_TAKES = rule
    scored: list[dict] = []
    set_of = {name: chosen for chosen, names in SETS.items() for name in names}
    for chosen, names in SETS.items():
        if only and chosen not in only:
            continue
        trees, base = fit([r for r in rows if set_of.get(r["corpus"]) != chosen])
        change_trees.LEXICAL = boosted.pack(trees)
        change_trees.LEXICAL_BASE = base
        for name in names:
            scored += run_corpus(name, semantic)
        print(f"checked {chosen}", file=sys.stderr)
    for key, value in summary(scored).items():
        print(f"  {key:16} {value}")
    if out:
        Path(out).write_text(json.dumps(scored, indent=1), encoding="utf-8")
    return 0


def write_module(fitted) -> None:
    trees, base = fitted
    OUTPUT.write_text(
        '"""Gradient-boosted trees for change_judge.py, written by benchmarks/fit_change.py: do not edit\n'
        "by hand. The forest is packed (ihmt/boosted.py); the base is the fitted log-odds the trees'\n"
        'values add to."""\n\n'
        f"LEXICAL: str = {packed_literal(trees)}\n\n"
        f"LEXICAL_BASE: float = {base!r}\n",
        encoding="utf-8",
    )
    print(f"wrote {OUTPUT}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="record the judge's features on the corpora's questions")
    rec.add_argument("--set", choices=sorted(SETS), action="append", required=True)
    rec.add_argument("--save", required=True, help="write the recorded rows to this file")
    fitting = sub.add_parser("fit", help="fit, check leave one set out, optionally write")
    fitting.add_argument("--rows", required=True)
    fitting.add_argument("--without", choices=sorted(SETS), action="append", default=[])
    fitting.add_argument("--write", action="store_true", help="write ihmt/search/change_trees.py")
    fitting.add_argument("--no-check", action="store_true")
    fitting.add_argument("--rounds", type=int, default=ROUNDS)
    check = sub.add_parser("check", help="score each set with a judge fitted on the others")
    check.add_argument("--rows", required=True)
    check.add_argument("--semantic", action="store_true")
    check.add_argument("--threshold", type=float, default=change_judge.THRESHOLD)
    check.add_argument("--json", help="write every scored row to this file")
    check.add_argument("--set", choices=sorted(SETS), action="append", default=[])
    check.add_argument(
        "--no-rule", action="store_true", help="the forest alone decides (no rule fallback)"
    )
    args = parser.parse_args(argv)
    if args.command == "record":
        names = [name for chosen in args.set for name in SETS[chosen]]
        Path(args.save).write_text(json.dumps(record(names)), encoding="utf-8")
        return 0
    rows = json.loads(Path(args.rows).read_text(encoding="utf-8"))
    if args.command == "check":
        return check_left_out(
            rows, args.semantic, args.json, args.threshold, args.set, not args.no_rule
        )
    held_back = {name for chosen in args.without for name in SETS[chosen]}
    rows = [r for r in rows if r["corpus"] not in held_back]
    if not args.no_check:
        leave_one_set_out(rows, args.rounds)
    if args.write:
        write_module(fit(rows, args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
