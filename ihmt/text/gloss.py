"""An English reading of a Spanish or French text, word by word, for a model trained on English.

The default embedding model of the semantic extra (all-MiniLM-L6-v2) reads English: a Spanish
or French memory gets a vector close to nothing an English question asks. The vocabulary
layer already knows the English word for many Spanish and French forms (lexicon_table.py); a
gloss puts those words in place of the foreign ones, drops function words, turns question
words into English ones and keeps everything else (names, identifiers, numbers) as written.
The result is no translation, but a model reading it meets the words an English note would
use.
"""

from __future__ import annotations

import re

from .. import re_cache
from .stopwords import foreign_function_word
from .tokenize import fold
from .vocabulary import english_word

# question and linking words a model needs to see ("¿cuándo…?" asks for a time)
_QUESTION_WORDS = {
    "que": "what",
    "cual": "which",
    "cuales": "which",
    "cuando": "when",
    "donde": "where",
    "adonde": "where",
    "quien": "who",
    "quienes": "who",
    "como": "how",
    "cuanto": "how much",
    "cuanta": "how much",
    "cuantos": "how many",
    "cuantas": "how many",
    "porque": "because",
    "pero": "but",
    "sin": "without",
    "con": "with",
    "antes": "before",
    "despues": "after",
    "ahora": "now",
    "no": "not",
    # French ("ou" is both "or" and, written "où", "where": left to the function words)
    "quel": "which",
    "quelle": "which",
    "quels": "which",
    "quelles": "which",
    "quoi": "what",
    "qui": "who",
    "quand": "when",
    "combien": "how many",
    "pourquoi": "why",
    "comment": "how",
    "parce": "because",
    "avec": "with",
    "avant": "before",
    "apres": "after",
    "maintenant": "now",
    "pas": "not",
}
# a chunk of text between spaces: punctuation around a word, the word itself
_CHUNK = re_cache.compile(r"^(?P<lead>[^\w]*)(?P<core>.*?)(?P<tail>[^\w]*)$", re.DOTALL)
_SINGLE = frozenset("a y o e u".split())  # Spanish one-letter words: "a", "and", "or"
# a French word's elided article or pronoun: "l'import", "qu'on", "d'accord", "c'est"
_ELISION = re_cache.compile(r"^(?:[cdjlmnst]|qu|jusqu|lorsqu|puisqu)['’](?=\w)", re.I)


def gloss(text: str) -> str:
    """``text`` with each Spanish or French word the vocabulary knows replaced by its English
    word and function words left out; other words (names, "23:30", "app.py") stay as
    written."""
    out: list[str] = []
    for chunk in text.split():
        match = _CHUNK.match(chunk)
        lead, core, tail = match.group("lead"), match.group("core"), match.group("tail")
        elided = _ELISION.match(core)
        if elided and core[elided.end() :].isalpha():
            core = core[elided.end() :]
        folded = fold(core)
        if folded in _QUESTION_WORDS:
            core = _QUESTION_WORDS[folded]
        elif folded in _SINGLE or foreign_function_word(folded):
            core = ""
        elif folded.isalpha():
            core = english_word(folded) or core
        lead = lead.replace("¿", "").replace("¡", "")
        if core or tail.strip():
            out.append(f"{lead}{core}{tail}" if core else tail)
    return " ".join(out)
