"""Searching a project's code index: the engine's search with code-aware boosts, a second
search among the symbols the query names, one judgement over both, and symbols made whole.

The engine words its reasons for memories; ``code_reason`` words the same reason codes
(``SearchResult.reason_code`` / ``reason_params``) for symbols.
"""

from __future__ import annotations

from ..models import SearchResult
from ..reasons import SHAPE_WORDS
from .manifest import Manifest, trailing_blank_lines
from .naming import Groups, covered, name_parts
from .ranking import code_boost, name_coverage, symbol_name
from .results import CodeSnippet

SEARCH_TOP_K = 12  # the engine re-ranks twice this many exact BM25 candidates
FOCUS_SYMBOLS = 16  # symbols searched a second time because their names hold the query's words
CLUE_HINT = "(a file, a class or a word the code uses)"


def code_reason(result: SearchResult) -> str:
    """Why a search found nothing or could not choose, in words about code."""
    code, params = result.reason_code, result.reason_params or {}
    if code == "ambiguous":
        return (
            f"{params.get('n', 2)} symbols match this query equally well; give a clue "
            f"{CLUE_HINT} to choose"
        )
    if code == "namesakes":  # a first name two people share: in code, symbols tie on it
        return (
            f"several symbols match {params.get('name') or 'this name'} equally well; give a "
            f"clue {CLUE_HINT} to choose"
        )
    if code == "rivals":  # two memories answering differently: in code, two symbols
        return (
            f"{params.get('n', 2)} symbols each answer this query and seem to be about "
            f"different things; give a clue {CLUE_HINT} to choose"
        )
    if code == "values":  # memories each giving their own value: in code, symbols do
        return (
            f"{params.get('n', 2)} symbols each hold their own value of what was asked; give "
            f"a clue {CLUE_HINT} to choose"
        )
    if code == "stray":
        return (
            "the closest symbol shares only a stray word with the query "
            f"(it covers {params.get('coverage', 0.0):.0%} of what was asked)"
        )
    if code == "no_meaning":
        return "no symbol shares these words or comes close in meaning"
    if code == "lacks_shape":
        shape = SHAPE_WORDS.get(str(params.get("shape", "")), "a value")
        return f"the query asks for {shape}, and no symbol about it holds one"
    if code == "unknown_name":
        names = ", ".join(f'"{name}"' for name in params.get("names") or ()) or "it"
        return f"the query names {names}, and no symbol mentions it"
    if code == "no_answer":
        return "the closest symbol names the subject but does not read as an answer to the query"
    if code == "no_match":
        return "no symbol contains any of these words"
    if code == "no_words":
        return "the query has no searchable words (only stop words or symbols)"
    if code == "unreadable":
        return "the matching symbols could not be read; run `ihmt check`"
    return result.reason  # a reason without a known code is shown as given


def search_code(
    memory,
    query: str,
    clue: str | None,
    keep,
    named: set[str],
    focus: set[str],
    aliases: dict[str, str],
    groups: Groups,
) -> SearchResult:
    """Search with the code-aware boosts, and again among the symbols whose names hold
    the query's words (or inside the files it names), keeping the better of both.

    The boost only re-orders the exact BM25 candidates a descent finds, and in plain
    BM25 a symbol's name weighs no more than one word of its body: a long method named
    by the query, or a short one whose name abbreviates it (``get_environ_proxies``),
    can rank far below code that merely calls it."""
    boost = code_boost(query, named, aliases, memory.corpus_stats()[1], groups)
    result = memory.search(
        query, top_k=SEARCH_TOP_K, clue=clue, leaf_filter=keep, boost=boost, as_question=False
    )
    if not (named or focus):
        return result

    def focused(ref: dict) -> bool:
        return keep(ref) and (ref.get("source") in named or ref.get("id") in focus)

    second = memory.search(
        query, top_k=SEARCH_TOP_K, clue=clue, leaf_filter=focused, boost=boost, as_question=False
    )
    return _merged(result, second, memory.config.ambiguity_margin)


def named_symbols(manifest: Manifest, paths: list[str], wanted: Groups) -> set[str]:
    """Leaf ids of the symbols whose names hold most of the query's words (the best
    FOCUS_SYMBOLS of them; at least two words when the query has three or more)."""
    need = 1 if len(wanted) <= 2 else 2
    ranked = []
    for order, rel in enumerate(paths):
        for sym in manifest.files[rel].symbols:
            if "id" not in sym:
                continue
            count = len(covered(wanted, sym["name"]))
            if count >= need:
                ranked.append((-count, len(name_parts(sym["name"])), order, sym))
    ranked.sort(key=lambda row: row[:3])
    focus: set[str] = set()
    for *_, sym in ranked[:FOCUS_SYMBOLS]:
        focus.add(sym["id"])
        focus.update(sym.get("more", ()))
    return focus


def _merged(first: SearchResult, second: SearchResult, margin: float) -> SearchResult:
    """One result from the open search and the focused one: every hit of both in score
    order, judged again on that list, since each search judged only its own candidates (a
    focused search can find a tie among symbols that the open search outranks, and the
    open search can call its lead a stray match where the focused one finds a real one).

    NOT FOUND only when both say so; AMBIGUOUS when the merged lead is tied (within
    ``margin``, on the same query words) by another symbol."""
    if not second.hits:
        return first
    if not first.hits:
        return second
    winner, other = (
        (first, second) if first.hits[0].score >= second.hits[0].score else (second, first)
    )
    seen = {hit.leaf_id for hit in winner.hits}
    winner.hits = sorted(
        winner.hits + [hit for hit in other.hits if hit.leaf_id not in seen],
        key=lambda hit: -hit.score,
    )
    if winner.not_found and not other.not_found:
        winner.not_found = False
        _set_reason(winner, "", {})
    winner.confidence = max(winner.confidence, other.confidence)
    lead = winner.hits[0]
    tied = [
        hit
        for hit in winner.hits
        if hit.score >= lead.score * (1.0 - margin) and hit.matched_terms == lead.matched_terms
    ]
    winner.ambiguous = len(tied) >= 2 and not winner.not_found
    winner.candidate_ids = [hit.leaf_id for hit in tied] if winner.ambiguous else []
    if winner.ambiguous and not winner.reason:
        _set_reason(winner, "ambiguous", {"n": len(tied)})
    elif not winner.ambiguous and not winner.not_found:
        _set_reason(winner, "", {})
    return winner


def _set_reason(result: SearchResult, code: str, params: dict) -> None:
    result.reason_code, result.reason_params = code, params
    result.reason = code_reason(result) if code else ""


def named_by_query(hit, wanted: Groups, aliases: dict[str, str]) -> bool:
    """Whether the hit's symbol name holds a word of the query."""
    ref = {"id": hit.leaf_id, "title": hit.title, "tags": hit.tags}
    return name_coverage(wanted, symbol_name(ref, aliases)) > 0


def continuations(manifest: Manifest) -> dict[str, tuple[str, dict]]:
    """Leaf id -> (file, symbol) for every leaf of a symbol the chunker split in pieces."""
    owners: dict[str, tuple[str, dict]] = {}
    for rel, entry in manifest.files.items():
        for sym in entry.symbols:
            if sym.get("more") and "id" in sym:
                for leaf_id in [sym["id"], *sym["more"]]:
                    owners[leaf_id] = (rel, sym)
    return owners


def whole_symbols(
    memory, owners: dict[str, tuple[str, dict]], hits: list, code: bool = True
) -> list[CodeSnippet]:
    """One snippet per symbol: a hit on a piece of a symbol the chunker split (a header
    leaf and its untitled continuation, see manifest.symbols_of) becomes the whole
    symbol, built from its consecutive leaves, so it still equals the file's lines."""
    out: list[CodeSnippet] = []
    seen: set[str] = set()
    for hit in hits:
        owner = owners.get(hit.leaf_id)
        key = owner[1]["id"] if owner else hit.leaf_id
        if key in seen:
            continue
        seen.add(key)
        snip = snippet(hit, with_code=code)
        if owner is not None:
            rel, sym = owner
            snip.path, snip.title = rel, sym["name"]
            snip.start_line, snip.end_line = sym["start_line"], sym["end_line"]
            if code:
                parts = []
                for leaf_id in [sym["id"], *sym["more"]]:
                    leaf = None if leaf_id == hit.leaf_id else memory.leaf(leaf_id)
                    parts.append(hit.content if leaf is None else leaf.content)
                whole = "".join(parts)
                snip.code = without_trailing_lines(whole, trailing_blank_lines(whole))
        out.append(snip)
    return out


def snippet(hit, with_code: bool = True) -> CodeSnippet:
    span = hit.span or {}
    start, end = int(span.get("start_line", 0)), int(span.get("end_line", 0))
    blank = trailing_blank_lines(hit.content)
    return CodeSnippet(
        path=hit.source,
        start_line=start,
        end_line=max(start, end - blank),
        title=hit.title or "",
        code=without_trailing_lines(hit.content, blank) if with_code else "",
        score=hit.score,
    )


def without_trailing_lines(text: str, count: int) -> str:
    """``text`` less its last ``count`` lines (the blank ones after a symbol)."""
    if count <= 0:
        return text
    lines = text.splitlines(keepends=True)
    return "".join(lines[: len(lines) - count])
