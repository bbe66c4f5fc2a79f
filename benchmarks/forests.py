"""What the two fitting scripts (fit_order.py, fit_unanswered.py) share: scikit-learn's fitted
trees turned into the nodes ihmt/boosted.py packs, the packed forest written as a
Python literal, and the options of their ``fit`` command."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ihmt import boosted as packed_trees


def exported(model, digits: int | None = None) -> tuple:
    """The trees of a fitted HistGradientBoostingClassifier as (feature, threshold, left,
    right, value) nodes, one tuple per round; ``digits`` rounds thresholds and values (the
    ordering trees were first written as text and keep their rounding)."""

    def kept(value: float) -> float:
        return round(value, digits) if digits is not None else value

    forest = []
    for (predictor,) in model._predictors:  # scikit-learn's fitted trees, one per round
        nodes = []
        for node in predictor.nodes:
            leaf = bool(node["is_leaf"])
            nodes.append(
                (
                    -1 if leaf else int(node["feature_idx"]),
                    0.0 if leaf else kept(float(node["num_threshold"])),
                    0 if leaf else int(node["left"]),
                    0 if leaf else int(node["right"]),
                    kept(float(node["value"])) if leaf else 0.0,
                )
            )
        forest.append(tuple(nodes))
    return tuple(forest)


def fitted_classifier(inputs, labels, depth: int, rounds: int, rate: float, monotonic=None):
    """A HistGradientBoostingClassifier fitted with the settings all three forests use: fixed
    seed, no early stopping, a little L2. ``monotonic``: one of -1, 0, 1 per input, the sign
    the score must keep as that input grows (None: free)."""
    import numpy as np
    from sklearn.ensemble import HistGradientBoostingClassifier

    model = HistGradientBoostingClassifier(
        max_depth=depth,
        max_iter=rounds,
        learning_rate=rate,
        l2_regularization=1.0,
        early_stopping=False,
        random_state=0,
        monotonic_cst=monotonic,
    )
    model.fit(np.array(inputs), np.array(labels))
    return model


def fit_rows(rows: list[dict], depth: int, rounds: int, rate: float) -> tuple:
    """(forest, base) fitted on rows of one input ``x`` and one label ``y`` each: the trees as
    boosted.py nodes and the log-odds they add to."""
    model = fitted_classifier([r["x"] for r in rows], [r["y"] for r in rows], depth, rounds, rate)
    return with_base(model)


def with_base(model) -> tuple:
    """(forest, base): the fitted trees as boosted.py nodes and the log-odds they add to."""
    import numpy as np

    return exported(model), float(np.ravel(model._baseline_prediction)[0])


def write_forests(output: Path, reader: str, script: str, lexical, semantic) -> None:
    """Write both modes' (forest, base) to ``output``, a module ``reader`` reads."""
    doc = (
        f"Gradient-boosted trees for {reader}, written by {script}: do not edit by hand. "
        "Each forest is packed (ihmt/boosted.py); the base is the fitted "
        "log-odds the trees' values add to."
    )
    lines, line = [], ""
    for word in doc.split():
        if len(line) + len(word) + 1 > 90:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    output.write_text(
        '"""' + "\n".join(lines) + '"""\n\n'
        f"LEXICAL: str = {packed_literal(lexical[0])}\n\n"
        f"LEXICAL_BASE: float = {lexical[1]!r}\n\n"
        f"SEMANTIC: str = {packed_literal(semantic[0])}\n\n"
        f"SEMANTIC_BASE: float = {semantic[1]!r}\n",
        encoding="utf-8",
    )
    print(f"wrote {output}")


def packed_literal(forest) -> str:
    """The packed forest as a parenthesised run of string literals, 88 characters a line."""
    text = packed_trees.pack(forest)
    lines = (text[i : i + 88] for i in range(0, len(text), 88))
    return "(\n" + "".join(f'    "{line}"\n' for line in lines) + ")"


def add_record_command(sub, sets) -> argparse.ArgumentParser:
    """The ``record`` command of a judge fitted on the agent-question corpora: the sets to
    answer, the mode, the file the rows go to."""
    rec = sub.add_parser("record", help="record the judge's input for the corpora's questions")
    rec.add_argument("--set", choices=sorted(sets), action="append", required=True)
    rec.add_argument("--semantic", action="store_true")
    rec.add_argument("--save", required=True, help="write the recorded rows to this file")
    return rec


def add_fit_command(sub, sets, rounds: int, output: str) -> argparse.ArgumentParser:
    """The ``fit`` command: rows of both modes, ``--write`` to ``output``, sets held back,
    the left-out report skipped, the number of rounds."""
    fitting = sub.add_parser("fit", help="fit, check leave one corpus out, optionally write")
    fitting.add_argument("--lexical", required=True, help="rows recorded without --semantic")
    fitting.add_argument(
        "--semantic",
        help="rows recorded with --semantic (without it the shipped semantic forest is kept)",
    )
    fitting.add_argument("--write", action="store_true", help=f"write {output}")
    fitting.add_argument(
        "--without",
        choices=sorted(sets),
        action="append",
        default=[],
        help="leave this set's corpora out of the fit (kept to measure the fit on)",
    )
    fitting.add_argument(
        "--no-check", action="store_true", help="skip the leave-one-corpus-out report"
    )
    fitting.add_argument("--rounds", type=int, default=rounds, help="boosting rounds per forest")
    return fitting


def fitted_modes(args, sets, report, fit, shipped_semantic=None) -> list:
    """The ``fit`` command's work for both modes: each file of rows read, the corpora of the
    sets held back dropped, ``report(rows, label, rounds)`` unless skipped, then ``fit(rows,
    rounds)``; returns [lexical, semantic]. Without semantic rows (recording them takes the
    embedding model an hour) the semantic forest is ``shipped_semantic``, the one in use."""
    held_back = {name for chosen in args.without for name in sets[chosen]}
    fitted = []
    for label, path in (("lexical", args.lexical), ("semantic", args.semantic)):
        if path is None:
            if shipped_semantic is None:
                raise SystemExit("fit: --semantic rows are needed to write this forest")
            print("semantic: no rows given, the shipped forest is kept")
            fitted.append(shipped_semantic)
            continue
        rows = json.loads(Path(path).read_text(encoding="utf-8"))
        rows = [r for r in rows if r["corpus"] not in held_back]
        if not args.no_check:
            report(rows, label, args.rounds)
        fitted.append(fit(rows, args.rounds))
    return fitted
