"""What a "how many" question counts, and whether a memory gives a number of it.

"How many worker nodes does the rf-prod cluster have?" is answered by a memory that puts a
number next to nodes ("rf-prod runs 6 worker nodes", "nodes: 6"), not by one about rf-prod
that gives its retention in days. The shape "a number" is too loose for this (almost every
technical note holds a digit), so the thing counted is read from the question and a number
is looked for a few words from it.

Only the question's words after "how many" / "cuántos" and the candidates' own text are
read; the scan is linear in the text (one pass over its words, the vocabulary form computed
once per distinct word near a number).
"""

from __future__ import annotations

import re

from .. import re_cache
from ..text.tokenize import fold, terms

# "how many", "cuántos/cuántas" (folded, accents gone), then the words that say what is counted
_ASKS = re_cache.compile(r"(?<![\w-])(?:how many|cuantos|cuantas)\s+(.+)")
# a word that ends the counted thing: a verb, an auxiliary, a preposition ("how many orders
# got stuck", "how many days of backups", "cuántos pedidos tuvimos")
_ENDS_THING = frozenset(
    "do does did doing are is were was be been being have has had can could will would shall"
    " should must may might got get gets getting went go goes going came come comes were"
    " per in on at of for from with by to into over under during since before after about"
    " and or but than that which who there this these those it its we you they he she i our"
    " your their my his her the a an"
    " de del en la el los las se hay habia hubo tiene tienen tenemos tenia son es fueron"
    " era eran esta estan puede pueden hemos han ha por para con sin que y o"
    " entraron salieron llegaron quedan quedaron".split()
)
MAX_THING_WORDS = 3  # "how many outdoor LoRa gateways": the words read as the thing counted

_NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty"
    " forty fifty sixty hundred hundreds thousand thousands million dozen dozens couple"
    " uno una un dos tres cuatro cinco seis siete ocho nueve diez once doce quince veinte"
    " treinta cuarenta cincuenta cien ciento cientos mil docena".split()
)
# words, numbers and the marks that end a phrase, folded: "30-day" is "30" and "day", "1.200"
# and "31,000" are one number each, "RAK7289" is "rak" and "7289"
_PIECES = re_cache.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+|[.,;:()!?\n]")
AFTER_WORDS = 3  # "19 RAK7289 units", "6 worker nodes": the words a number counts follow it
BEFORE_WORDS = 4  # "Wishlists after Next Fest: 31,000": ... or come first, the number last


def counted_terms(question: str) -> frozenset[str]:
    """The vocabulary forms of what a "how many" question counts (empty when it asks no
    count, or when what it counts is not named right after the cue: "how many of them")."""
    match = _ASKS.search(fold(question or "")[:2000])
    if match is None:
        return frozenset()
    thing: list[str] = []
    for word in re.findall(r"[\w.-]+", match.group(1))[:MAX_THING_WORDS]:
        if word.strip(".-") in _ENDS_THING:
            break
        thing.append(word)
    return frozenset(t for word in thing for t in terms(word))


def _is_number(piece: str) -> bool:
    return piece[0].isdigit() or piece in _NUMBER_WORDS


def _is_word(piece: str) -> bool:
    return piece[0].isalpha() and piece not in _NUMBER_WORDS


def holds_count(text: str, counted: frozenset[str]) -> bool:
    """True when ``text`` gives a number of one of ``counted``: the number before it ("19
    RAK7289 units", "dos monitores"), or after it at the end of a phrase ("Wishlists after
    Next Fest: 31,000", "Achievements: 34 in total"); not "worker nodes with 15 days of
    retention", where the number counts days. True when nothing is counted."""
    if not counted:
        return True
    pieces = _PIECES.findall(fold(text or ""))
    seen: dict[str, bool] = {}  # each distinct word is read in its vocabulary form once

    def is_counted(piece: str) -> bool:
        hit = seen.get(piece)
        if hit is None:
            hit = seen[piece] = bool(counted.intersection(terms(piece)))
        return hit

    for j, piece in enumerate(pieces):
        if not _is_number(piece):
            continue
        # what the number counts: the words right after it, up to a mark or a small word
        follows = False
        for after in pieces[j + 1 : j + 1 + AFTER_WORDS]:
            if not _is_word(after) or after in _ENDS_THING:
                break
            follows = True
            if is_counted(after):
                return True
        if follows:
            continue  # "15 days": it counts something else
        # a number ending its phrase counts what the phrase named before it
        words = 0
        for before in reversed(pieces[max(0, j - 3 * BEFORE_WORDS) : j]):
            if before in ".;!?\n" or words == BEFORE_WORDS:
                break
            if _is_word(before):
                words += 1
                if is_counted(before):
                    return True
    return False
