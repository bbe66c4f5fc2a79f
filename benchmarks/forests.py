"""What the two fitting scripts (fit_order.py, fit_unanswered.py) share: scikit-learn's fitted
trees turned into the nodes ihmt/search/packed_forest.py packs, the packed forest written as a
Python literal, and the options of their ``fit`` command."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ihmt.search import packed_forest


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


def packed_literal(forest) -> str:
    """The packed forest as a parenthesised run of string literals, 88 characters a line."""
    text = packed_forest.pack(forest)
    lines = (text[i : i + 88] for i in range(0, len(text), 88))
    return "(\n" + "".join(f'    "{line}"\n' for line in lines) + ")"


def add_fit_command(sub, sets, rounds: int, output: str) -> argparse.ArgumentParser:
    """The ``fit`` command: rows of both modes, ``--write`` to ``output``, sets held back,
    the left-out report skipped, the number of rounds."""
    fitting = sub.add_parser("fit", help="fit, check leave one corpus out, optionally write")
    fitting.add_argument("--lexical", required=True, help="rows recorded without --semantic")
    fitting.add_argument("--semantic", required=True, help="rows recorded with --semantic")
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


def fitted_modes(args, sets, report, fit) -> list:
    """The ``fit`` command's work for both modes: each file of rows read, the corpora of the
    sets held back dropped, ``report(rows, label, rounds)`` unless skipped, then ``fit(rows,
    rounds)``; returns [lexical, semantic]."""
    held_back = {name for chosen in args.without for name in sets[chosen]}
    fitted = []
    for label, path in (("lexical", args.lexical), ("semantic", args.semantic)):
        rows = json.loads(Path(path).read_text(encoding="utf-8"))
        rows = [r for r in rows if r["corpus"] not in held_back]
        if not args.no_check:
            report(rows, label, args.rounds)
        fitted.append(fit(rows, args.rounds))
    return fitted
