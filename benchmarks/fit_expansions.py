"""Fit the table of words that go together between questions and their answers
(ihmt/search/expansion.py) on the agent-question corpora, and check what it is worth on corpora
it was not fitted on.

``python3 benchmarks/fit_expansions.py write [--without SET]`` fits on every corpus of
agent_questions.SETS (but the sets named: a batch to be answered at first sight) and writes
ihmt/search/expansion_table.py; the shipped table was written with ``--without blind58``.
The ordering trees (fit_order.py) and the learned NOT FOUND (fit_unanswered.py) read the
search the table shapes: refit them after it changes.

``python3 benchmarks/fit_expansions.py check --folds 5 [--semantic] [--fold K] [--json F]
[--without SET]`` answers each corpus through the agent-question benchmark with a table
fitted on the corpora of the other folds only, and prints the benchmark's summary (``--fold
K``: that fold alone, so two processes can share the work). ``python3
benchmarks/fit_expansions.py flat --folds 5 [--without SET]`` is the quick version: a flat
BM25 over whole memories, with and without the partners, in five folds (the docs' figures:
``--without blind58``).

The fit: for each answerable question, the words of the question its (first) answer lacks and
the words of the answer the question lacks; a pair counts once per question. A pair is kept
when it turns up in at least MIN_CORPORA corpora, the partner is in at least MIN_SHARE of the
answers to questions with the word missing, and that is LIFT times its share of all memories;
each word keeps its PARTNERS most frequent partners. Answers longer than MAX_TERMS words (whole
documents) are left out: every word of a runbook would pair with the question.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import zlib
from collections import Counter, defaultdict
from pathlib import Path

from agent_questions import ANSWERABLE_KINDS, SETS, load_corpus, run_corpus, summary

from ihmt.search import expansion
from ihmt.text.tokenize import terms

MIN_CORPORA = 3
MIN_SHARE = 0.05
LIFT = 5.0
PARTNERS = 5
MAX_TERMS = 150
OUTPUT = Path(__file__).resolve().parent.parent / "ihmt" / "search" / "expansion_table.py"


def fold_of(name: str, folds: int) -> int:
    """A corpus's fold, as benchmarks/fit_order.py deals them."""
    return zlib.crc32(name.encode("utf-8")) % folds


def all_corpora(without: tuple[str, ...] = ()) -> list[str]:
    """Every corpus of agent_questions.SETS but those of the sets named in ``without``."""
    return list(
        dict.fromkeys(name for key, chosen in SETS.items() if key not in without for name in chosen)
    )


def tokenized(name: str) -> tuple[dict[str, list[str]], list[tuple[str, list[str], list[str]]]]:
    """A corpus as memory id -> terms, and (kind, question terms, gold ids) per question."""
    corpus = load_corpus(name)
    memories = {m["id"]: terms(m["content"]) for m in corpus["memories"]}
    questions = [
        (q["kind"], terms(q["question"]), q.get("gold") or []) for q in corpus["questions"]
    ]
    return memories, questions


def fit(corpora: dict[str, tuple]) -> dict[str, list[tuple[str, float]]]:
    """Word -> [(partner, share of answers lacking the word that hold the partner)]."""
    pairs: Counter[tuple[str, str]] = Counter()
    seen_in: defaultdict[tuple[str, str], set[str]] = defaultdict(set)
    lacking: Counter[str] = Counter()
    holding: Counter[str] = Counter()
    short_memories = 0
    for name, (memories, questions) in corpora.items():
        for words in memories.values():
            if len(words) <= MAX_TERMS:
                holding.update(set(words))
                short_memories += 1
        for kind, asked, gold in questions:
            if kind not in ANSWERABLE_KINDS or not gold:
                continue
            answer = memories.get(gold[0]) or []
            if not answer or len(answer) > MAX_TERMS:
                continue
            said, told = set(asked), set(answer)
            for word in said - told:
                lacking[word] += 1
                for partner in told - said:
                    pairs[(word, partner)] += 1
                    seen_in[(word, partner)].add(name)
    table: defaultdict[str, list[tuple[str, float]]] = defaultdict(list)
    for (word, partner), count in pairs.items():
        if len(seen_in[(word, partner)]) < MIN_CORPORA or partner.isdigit():
            continue
        share = count / lacking[word]
        base = holding[partner] / max(short_memories, 1)
        if share >= MIN_SHARE and share >= LIFT * base:
            table[word].append((partner, round(share, 3)))
    return {
        word: sorted(found, key=lambda p: (-p[1], p[0]))[:PARTNERS]
        for word, found in sorted(table.items())
    }


def table_text(table: dict[str, list[tuple[str, float]]]) -> str:
    return "".join(
        f"{word} {' '.join(f'{p}:{s:g}' for p, s in found)}\n" for word, found in table.items()
    )


def write_module(table: dict[str, list[tuple[str, float]]]) -> None:
    OUTPUT.write_text(
        '"""Written by benchmarks/fit_expansions.py: do not edit by hand. One line per question\n'
        "word: the words answers to questions that lack it hold, each with the share of such\n"
        'answers that hold it (ihmt/search/expansion.py)."""\n\n'
        f"PAIRS = {json.dumps(table_text(table), ensure_ascii=False)}\n",
        encoding="utf-8",
    )
    pairs = sum(len(found) for found in table.values())
    print(f"wrote {OUTPUT}: {len(table)} words, {pairs} pairs")


def use_table(table: dict[str, list[tuple[str, float]]]) -> None:
    """Answer with ``table`` instead of the shipped one, in this process."""
    parsed = expansion.parse_table(table_text(table))
    expansion._table = lambda: parsed  # type: ignore[assignment]


def check(
    folds: int, semantic: bool, only: int | None, out: str | None, without: tuple[str, ...] = ()
) -> int:
    names = all_corpora(without)
    scored: list[dict] = []
    for k in range(folds):
        if only is not None and k != only:
            continue
        held = [n for n in names if fold_of(n, folds) == k]
        use_table(fit({n: tokenized(n) for n in names if fold_of(n, folds) != k}))
        for name in held:
            scored += run_corpus(name, semantic)
            print(f"checked {name}", file=sys.stderr)
    for key, value in summary(scored).items():
        print(f"  {key:16} {value}")
    if out:
        Path(out).write_text(json.dumps(scored), encoding="utf-8")
    return 0


def flat_ranking(memories: dict[str, list[str]], weights: dict[str, float]) -> list[str]:
    """Memory ids by BM25 over whole memories (k1 1.2, b 0.75), best first."""
    count = len(memories)
    mean = sum(len(w) for w in memories.values()) / max(count, 1)
    freq: Counter[str] = Counter()
    counts = {mid: Counter(words) for mid, words in memories.items()}
    for held in counts.values():
        freq.update(held.keys())
    scores = {}
    for mid, held in counts.items():
        norm = 1.2 * (0.25 + 0.75 * len(memories[mid]) / mean)
        total = 0.0
        for term, weight in weights.items():
            if held.get(term):
                rarity = math.log(1 + (count - freq[term] + 0.5) / (freq[term] + 0.5))
                total += weight * rarity * held[term] * 2.2 / (held[term] + norm)
        if total > 0:
            scores[mid] = total
    return sorted(scores, key=lambda mid: (-scores[mid], mid))


def flat_check(folds: int, without: tuple[str, ...] = ()) -> int:
    names = all_corpora(without)
    corpora = {n: tokenized(n) for n in names}
    firsts: Counter[tuple[str, str]] = Counter()
    for k in range(folds):
        table = fit({n: c for n, c in corpora.items() if fold_of(n, folds) != k})
        use_table(table)
        for name in (n for n in names if fold_of(n, folds) == k):
            memories, questions = corpora[name]
            for kind, asked, gold in questions:
                if kind not in ANSWERABLE_KINDS or not gold:
                    continue
                own = dict.fromkeys(asked, 1.0)
                shares = expansion.partners(asked)
                wider = {**own, **{t: s for t, s in shares.items() if t not in own}}
                for label, weights in (("words", own), ("partners", wider)):
                    ranking = flat_ranking(memories, weights)
                    firsts[(kind, label)] += bool(ranking) and ranking[0] in gold
                firsts[(kind, "n")] += 1
    for kind in sorted({k for k, _ in firsts}):
        print(
            f"  {kind:14} {firsts[(kind, 'n')]:6}  first: words {firsts[(kind, 'words')]}, "
            f"with partners {firsts[(kind, 'partners')]}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    write = sub.add_parser("write", help="fit on every corpus and write the shipped table")
    chk = sub.add_parser(
        "check", help="the benchmark, each fold answered with a table fitted on the others"
    )
    chk.add_argument("--folds", type=int, default=5)
    chk.add_argument("--fold", type=int, help="only this fold")
    chk.add_argument("--semantic", action="store_true")
    chk.add_argument("--json", help="write every scored row to this file")
    flat = sub.add_parser("flat", help="flat BM25 with and without the partners, in folds")
    flat.add_argument("--folds", type=int, default=5)
    for command in (write, chk, flat):
        command.add_argument(
            "--without",
            choices=sorted(SETS),
            action="append",
            default=[],
            help="leave this set's corpora out (a batch answered at first sight; the docs' "
            "figures: --without blind58)",
        )
    args = parser.parse_args(argv)
    if args.command == "write":
        write_module(fit({n: tokenized(n) for n in all_corpora(tuple(args.without))}))
        return 0
    if args.command == "flat":
        return flat_check(args.folds, tuple(args.without))
    return check(args.folds, args.semantic, args.fold, args.json, tuple(args.without))


if __name__ == "__main__":
    sys.exit(main())
