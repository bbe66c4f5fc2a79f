"""The words a question's words stand for in the memories that answer it.

A question and the memory that answers it are often written in different words: "is the
tunnel to the plant up?" against "the WireGuard link to the plant is offline", "when is the
end-of-week deploy?" against "we deploy on Fridays". The vocabulary layer (text/vocabulary.py)
folds forms and true synonyms into one term on both sides; what is left are words that are not
the same thing but go together, in one direction: a question about a tunnel is often answered
by a memory about WireGuard, not the other way round.

The table of such pairs (expansion_table.py) is fitted by benchmarks/fit_expansions.py on the
agent-question corpora: for each question word the answering memory lacks, the words of that
memory the question lacks, kept when the pair recurs in several corpora, is much likelier than
the word's share of memories, and is among the word's most frequent partners. At search time
each such partner joins the query with a fraction of its own weight, so it can lift a memory
that holds it but never outweighs the question's own words. Only the score used to find and
order candidates changes: coverage, names and every judgement of the answer still read the
question's own words. The descent stays exact because it bounds and scores with the same
weights.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from . import expansion_table

# a partner's weight is this share of its idf, times how often it went with the word (doubled,
# at most 1). A flat BM25 over whole memories, each corpus with a table fitted on the other
# four fifths of 163 corpora (`fit_expansions.py flat`): an answer first for 7,621 of 13,044
# questions against 7,304 on the question's words alone; in a first sketch of the fit 0.2
# gained two thirds as much as 0.5, and 0.8 nothing more.
FACTOR = 0.5


@cache
def _table() -> dict[str, tuple[tuple[str, float], ...]]:
    return parse_table(expansion_table.PAIRS)


def parse_table(text: str) -> dict[str, tuple[tuple[str, float], ...]]:
    """``word partner:share partner:share`` lines -> word -> ((partner, share), ...)."""
    table: dict[str, tuple[tuple[str, float], ...]] = {}
    for line in text.splitlines():
        word, *items = line.split() or [""]
        if not items:
            continue
        pairs = []
        for item in items:
            partner, _, share = item.rpartition(":")
            try:
                pairs.append((partner, float(share)))
            except ValueError:
                continue
        table[word] = tuple(pairs)
    return table


def partners(question_terms: Iterable[str]) -> dict[str, float]:
    """Terms the question's terms go with in answers (not the question's own), each with the
    share of its idf it is weighted with."""
    asked = list(question_terms)
    own = set(asked)
    table = _table()
    out: dict[str, float] = {}
    for term in asked:
        for partner, share in table.get(term, ()):
            if partner not in own:
                out[partner] = max(out.get(partner, 0.0), FACTOR * min(1.0, 2 * share))
    return out


def add_partners(
    weights: dict[str, float], shares: dict[str, float], idf_of: dict[str, float]
) -> dict[str, float]:
    """``weights`` with each partner held by some memory added at its share of its idf."""
    out = dict(weights)
    for term, share in shares.items():
        if term not in out and idf_of.get(term, 0.0) > 0:
            out[term] = share * idf_of[term]
    return out
