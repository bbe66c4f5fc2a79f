"""An acronym of the question that memories only spell out.

"which DRF version did we pick?" asks about what a memory writes as "Django REST Framework
3.16"; "when do we submit to IJoC?" about "the International Journal of Climatology"; "how
many VUs did the k6 run use?" about "150 virtual users". No memory holds the acronym as a
word, so it matches nothing. For a question word written as an acronym (two capitals or
more: "DRF", "IJoC", "VUs") that few memories hold, a memory the question's other words found
matches it when the initials of a run of its words spell it; "of", "de", "for", "and" may be
skipped or kept ("IJoC" and "IJC" are both the journal). Only the memories a search already
found are read, and only for such words, so nothing is stored or indexed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from .. import re_cache
from ..text.stopwords import is_stopword
from ..text.tokenize import terms

# written as an acronym: two capitals or more among 2-7 letters, a plural "s" after them
_ACRONYM = re_cache.compile(r"(?<![\w-])([A-Za-z]*[A-Z][A-Za-z]*[A-Z][A-Za-z]*?)(s?)(?![\w-])")
_CONNECTORS = frozenset("of de del for and y the la el en per por".split())
_WORD = re_cache.compile(r"[^\W\d_]+")
MIN_LETTERS = 2
MAX_LETTERS = 7
MIN_WORD = 3  # a word of the run is a word, not "a" or "to"
SCAN_CHARS = 20000


def unknown_acronyms(question: str, unknown: set[str]) -> dict[str, str]:
    """The question's acronyms whose term is in ``unknown`` (few memories hold it): term ->
    its letters, lower case ("DRF" -> {"drf": "drf"}, "VUs" -> {"vu": "vu"})."""
    found: dict[str, str] = {}
    for match in _ACRONYM.finditer((question or "")[:2000]):
        letters = match.group(1)
        if not MIN_LETTERS <= len(letters) <= MAX_LETTERS:
            continue
        named = terms(letters + match.group(2))
        if named and named[0] in unknown:
            found[named[0]] = letters.casefold()
    return found


def spells_out(text: str, letters: str) -> bool:
    """Whether a run of words of ``text`` has ``letters`` as its initials, with its
    connectors ("of") counted or skipped: "Django REST Framework" spells "drf", "virtual
    users" spells "vu", "International Journal of Climatology" spells "ijoc" and "ijc"."""
    return bool(spelled_run(text, letters))


CAMEL_LETTERS = 3  # a two-letter acronym would match a chance pair of humps ("GitHub": "gh")
_HUMP = re_cache.compile(r"[A-Z][a-z]+|[A-Z]+(?![a-z])")


def _humps(word: str) -> str:
    """The letters a word written in humps is shortened to: "TensorRT" -> "trt",
    "LightGBM" -> "lgbm" (a capital run keeps its letters); "" for a plain word."""
    if not word[:1].isupper() or word.isupper() or not any(ch.isupper() for ch in word[1:]):
        return ""  # a plain word, or the acronym itself ("URL") rather than a spelled-out form
    humps = _HUMP.findall(word)
    if "".join(humps) != word:
        return ""
    return "".join(h if h.isupper() else h[0] for h in humps).casefold()


def _spelled_end(words: list[str], start: int, letters: str) -> int:
    """Where the run of words from ``start`` spelling ``letters`` ends (``start`` when they do
    not): each letter the initial of the next word, a connector between them either spelling
    its letter or skipped. The other words are content words ("its", "the" spell nothing), of
    four letters or more for a two-letter acronym, which a chance pair of words would spell
    too often."""
    at, i, size = 0, start, len(letters)
    shortest = MIN_WORD if size > 2 else MIN_WORD + 1
    while at < size and i < len(words):
        word = words[i]
        if word.startswith(letters[at]) and (
            (at > 0 and at < size - 1 and word in _CONNECTORS)
            or (len(word) >= shortest and not is_stopword(word))
        ):
            at, i = at + 1, i + 1
        elif word in _CONNECTORS and at > 0:
            i += 1  # "of" skipped
        else:
            return start
    return i if at == size else start


def spelled_run(text: str, letters: str) -> str:
    """The run of words of ``text`` whose initials are ``letters`` (or the word written in
    humps that shortens to them), "" when none: "TensorRT" for "trt" in "TensorRT 8.6",
    "Visual Studio" for "vs" in "Visual Studio 2022"."""
    written = _WORD.findall(text[:SCAN_CHARS])
    words = [w.casefold() for w in written]
    for start, word in enumerate(words):
        end = _spelled_end(words, start, letters) if word.startswith(letters[0]) else start
        if end > start:
            return " ".join(written[start:end])
    if len(letters) >= CAMEL_LETTERS:
        return next((w for w in written if _humps(w) == letters), "")
    return ""


_CAPITALS = re_cache.compile(r"(?<![\w-])[A-Z]{2,7}(?![\w-])")


def _abbreviations(name: str, text: str) -> Iterator[tuple[str, list[str]]]:
    """Each acronym ``text`` writes for a run of the words of ``name`` (as the question spells
    it), with the words it shortens: "MUC" and Moodle, Universal, Cache for "Moodle Universal
    Cache Redis"."""
    words = [w for w in _WORD.findall(name) if w.casefold() not in _CONNECTORS]
    initials = "".join(w[0] for w in words).casefold()
    for match in _CAPITALS.finditer(text[:SCAN_CHARS]):
        letters = match.group().casefold()
        at = initials.find(letters)
        if at >= 0 and len(letters) >= MIN_LETTERS + 1:
            yield match.group(), words[at : at + len(letters)]


def abbreviated_terms(name: str, text: str) -> set[str]:
    """The terms of the words of ``name`` that ``text`` writes as an acronym of theirs:
    "Moodle Universal Cache Redis" in a memory about "the MUC Redis" gives moodle, universal
    and cache, so the memory names all of it."""
    return {t for _, shortened in _abbreviations(name, text) for w in shortened for t in terms(w)}


def spelled_subject(text: str, acronyms: dict[str, str], held: Mapping[str, int]) -> set[str]:
    """The terms of the runs of ``text`` spelling out the question's ``acronyms`` (term ->
    letters) that the memory does not hold as written (``held``: its term counts)."""
    found: set[str] = set()
    for term, letters in acronyms.items():
        if term not in held:
            found.update(terms(spelled_run(text, letters)))
    return found


def acronyms_of(name: str, text: str) -> set[str]:
    """The terms of the acronyms ``text`` writes for the words of ``name``: "RGI" in "outlines
    come from RGI 7.0" for "Randolph Glacier Inventory". A value written next to the acronym
    is the named thing's."""
    return {t for written, _ in _abbreviations(name, text) for t in terms(written)}


# an acronym as a question writes it: capitals, perhaps a connector's small letter ("IJoC"),
# perhaps a plural "s" ("CAGGs")
_CAPITALS_ONLY = re_cache.compile(r"([A-Z](?:[A-Z]|[a-z](?=[A-Z])){1,6})s?")


def told_otherwise(written: str, texts: list[str]) -> bool:
    """Whether one of ``texts`` names ``written`` in another form: an acronym spelled out
    ("DPIA": "data protection impact assessment"), or a name of several words as the
    acronym of them all ("Journal of Chemical Theory and Computation": "JCTC")."""
    acronym = _CAPITALS_ONLY.fullmatch(written)
    if acronym:
        letters = acronym.group(1).casefold()
        return any(spells_out(text, letters) for text in texts)
    if len(written.split()) < 2:
        return False
    words = {t for word in written.split() for t in terms(word)}
    return any(words <= abbreviated_terms(written, text) | set(terms(text)) for text in texts)
