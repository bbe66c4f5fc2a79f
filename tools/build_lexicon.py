"""Build ihmt/text/lexicon_table.py from the word lists in tools/lexicon/ (``python3 tools/build_lexicon.py``).

The lists are written by hand, one lemma a line (see tools/lexicon/README.md); this script
spells out the inflected forms a note really contains (regular conjugations, plurals,
feminine adjectives; French ones in tools/french_forms.py), folds them the way the tokenizer
does, and writes one generated module that the vocabulary layer reads at run time. Standard
library only, deterministic: the test suite rebuilds the table in memory and checks the
committed module matches.

A Spanish or French form that is also a common English word ("sale", "red", "come"; "pain",
"client", "main") would turn English text into the wrong term, so such forms are dropped.
Which forms those are comes from tools/lexicon/english_collisions.txt and
english_collisions_fr.txt, made with ``--collisions`` (needs the ``wordfreq`` package, a
word-frequency table for the three languages; only this step needs it).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import french_forms  # noqa: E402

from ihmt.text.stopwords import is_stopword  # noqa: E402
from ihmt.text.tokenize import fold  # noqa: E402
from ihmt.text.vocabulary import has_fixed_meaning, stem  # noqa: E402

SOURCES = ROOT / "tools" / "lexicon"
TARGET = ROOT / "ihmt" / "text" / "lexicon_table.py"
COLLISIONS = SOURCES / "english_collisions.txt"
COLLISIONS_FR = SOURCES / "english_collisions_fr.txt"
FRENCH_KEPT = SOURCES / "french_kept.txt"  # borrowed words kept despite the collision rule
# "irregular": the infinitive of a French verb whose forms are listed by hand as "form"
CLASSES = ("verb", "noun", "adj", "form", "word", "irregular")
# a form's weight when two lemmas generate it: what a writer listed by hand wins, then a
# noun over an adjective over a verb form ("cuenta" is an account before it is "counts")
PRIORITY = {"form": 0, "word": 0, "irregular": 0, "noun": 1, "adj": 2, "verb": 3}
# pronouns a note attaches to a verb ("desplegarlo", "mudarse", "revisándolo"); the rarer
# ones (me, te, nos, les) are left out to keep the table small
INFINITIVE_CLITICS = ("se", "lo", "la", "los", "las", "le")
GERUND_CLITICS = ("se", "lo", "la")
# a form reads as English when it is common there (wordfreq's zipf scale: 3 is once per
# million words) and not much more common in Spanish: "sale" (4.99 in English, 5.03 in
# Spanish) and "pie" (4.19 / 4.94) are English words; "hoy" (3.08 / 5.74) is Spanish
COMMON_ENGLISH_ZIPF = 3.3
SPANISH_MARGIN = 2.0
AGENT_NOUN_ZIPF, AGENT_NOUN_MARGIN = 2.5, 1.5  # French "-er" infinitives read as English nouns


# -- Spanish inflection -------------------------------------------------------------------------
def _soften(stem_: str, ending: str, verb_class: str) -> str:
    """Spelling changes that keep a consonant's sound before another vowel."""
    front = ending[:1] in ("e", "i")
    if verb_class == "ar" and ending[:1] == "e":
        if stem_.endswith("c"):
            return stem_[:-1] + "qu"
        if stem_.endswith("g"):
            return stem_ + "u"
        if stem_.endswith("z"):
            return stem_[:-1] + "c"
    if verb_class in ("er", "ir") and not front:
        if stem_.endswith("g") and not stem_.endswith("gu"):
            return stem_[:-1] + "j"  # escoger -> escojo, elegir -> elija
        if stem_.endswith("gu"):
            return stem_[:-2] + "g"  # distinguir -> distingo
    return stem_  # conocer -> conozco is irregular: listed by hand


_AR = (
    "ar o as a amos ais an e es emos eis en aste aron aba abas abamos aban ara aran ase "
    "ado ada ados adas ando"
).split()
_ER = "er o es e emos eis en a as amos an i iste io imos ieron ia ias iamos ian iera ieran ido ida idos idas iendo".split()
_IR = "ir o es e imos is en a as amos an i iste io ieron ia ias iamos ian iera ieran ido ida idos idas iendo".split()


def verb_forms(infinitive: str) -> set[str]:
    """Regular forms of one infinitive (with a reflexive "-se" or not)."""
    word = infinitive[:-2] if infinitive.endswith("se") and len(infinitive) > 5 else infinitive
    verb_class = word[-2:]
    if verb_class not in ("ar", "er", "ir"):
        return {word}
    root = word[:-2]
    endings = {"ar": _AR, "er": _ER, "ir": _IR}[verb_class]
    forms = {word}
    for ending in endings:
        if ending == verb_class:
            continue
        if (
            verb_class != "ar"
            and root[-1:] in "aeou"
            and ending.startswith("i")
            and len(ending) > 1
        ):
            if ending in ("io", "ieron", "iendo", "iera", "ieran"):  # leer -> leyo, leyendo
                forms.add(root + "y" + ending[1:])
                continue
        if verb_class == "ir" and root.endswith("u") and not root.endswith(("gu", "qu")):
            if ending[:1] in ("o", "a", "e") or ending in ("io", "ieron", "iendo", "iera", "ieran"):
                tail = ending[1:] if ending.startswith("i") else ending
                forms.add(root + "y" + tail)  # construir -> construyo, construyendo
                continue
        forms.add(_soften(root, ending, verb_class) + ending)
    for tense in ("e", "a", "as", "an", "emos", "ia", "ian", "iamos"):  # future, conditional
        forms.add(word + tense)
    gerund = {"ar": root + "ando"}.get(verb_class) or next(
        (f for f in (root + "iendo", root + "yendo") if f in forms), None
    )
    forms.update(word + clitic for clitic in INFINITIVE_CLITICS)
    if gerund:
        forms.update(gerund + clitic for clitic in GERUND_CLITICS)
    return forms


def noun_forms(noun: str) -> set[str]:
    forms = {noun}
    if noun.endswith(("a", "e", "i", "o", "u")):
        forms.add(noun + "s")
    elif noun.endswith("z"):
        forms.add(noun[:-1] + "ces")
    elif not noun.endswith("s"):
        forms.add(noun + "es")
    return forms


def adjective_forms(adjective: str) -> set[str]:
    if adjective.endswith("o"):
        root = adjective[:-1]
        forms = {root + end for end in ("o", "a", "os", "as")}
        feminine = root + "a"
    elif adjective.endswith("or"):
        forms = {adjective + end for end in ("", "a", "es", "as")}
        feminine = adjective + "a"
    else:
        forms = noun_forms(adjective)
        feminine = adjective
    forms.add(feminine + "mente")  # rapido -> rapidamente
    return forms


GENERATORS = {"verb": verb_forms, "noun": noun_forms, "adj": adjective_forms}


# -- reading the lists ----------------------------------------------------------------------
def read_entries(folder: Path = SOURCES, language: str = "es") -> list[tuple[str, str, str]]:
    """(folded Spanish or French word, English word, class) from every ``<language>_*.tsv``
    list, in file order."""
    entries = []
    # a lemma two lists give different English words would be dropped as ambiguous, and with
    # it every form it generates: the lists must choose ("correo" mail / email). Two words
    # that only fold alike ("secretaría", "secretaria") stay ambiguous, as before
    meant: dict[tuple[str, str], tuple[str, str]] = {}
    for path in sorted(folder.glob(f"{language}_*.tsv")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 3 or fields[2] not in CLASSES or not fields[1].isalpha():
                raise SystemExit(f"{path.name}:{number}: not 'word<TAB>english<TAB>class'")
            written, english, kind = fields[0].strip(), fields[1].strip().lower(), fields[2]
            spanish = fold(written)
            if spanish.isalpha() and english.isascii():
                where = f"{path.name}:{number}"
                earlier = meant.setdefault((written, kind), (english, where))
                if earlier[0] != english:
                    raise SystemExit(
                        f"{where}: {written} ({kind}) reads as {english!r} here and as"
                        f" {earlier[0]!r} in {earlier[1]}: keep one"
                    )
                entries.append((spanish, english, kind))
    return entries


def read_synonym_groups(path: Path = SOURCES / "en_synonyms.txt") -> list[list[str]]:
    groups = []
    for line in path.read_text(encoding="utf-8").splitlines():
        words = [w for w in line.lower().split() if w.isalpha() and w.isascii()]
        if len(words) >= 2 and not line.lstrip().startswith("#"):
            groups.append(words)
    return groups


# -- the tables -----------------------------------------------------------------------------
def form_table(
    entries: list[tuple[str, str, str]], collisions: set[str], generators=None
) -> dict[str, str]:
    """Folded form -> English word, for Spanish lemmas (or French ones, with the French
    ``generators``). A form two lemmas of the same weight claim for different words is
    ambiguous and left out; so is one that reads as common English."""
    generators = GENERATORS if generators is None else generators
    best: dict[str, tuple[float, str]] = {}
    ambiguous: set[str] = set()
    for spanish, english, kind in entries:
        generated = generators.get(kind, lambda w: {w})(spanish)
        for form in generated:
            weight = PRIORITY[kind] + (0 if form == spanish else 0.5)
            held = best.get(form)
            if held is None or weight < held[0]:
                best[form] = (weight, english)
                ambiguous.discard(form)
            elif weight == held[0] and held[1] != english:
                ambiguous.add(form)
    table = {}
    for form, (_, english) in best.items():
        if form in ambiguous or form in collisions or len(form) < 3:
            continue
        if stem(form) == stem(english):
            continue  # already one term
        table[form] = english
    return table


def synonym_table(groups: list[list[str]]) -> dict[str, str]:
    """Stem of each word -> stem of its group's first word; a stem two groups claim is
    left out of both (it means different things)."""
    claims: dict[str, set[str]] = {}
    for group in groups:
        head = stem(group[0])
        for word in group:
            claims.setdefault(stem(word), set()).add(head)
    return {
        key: next(iter(heads))
        for key, heads in sorted(claims.items())
        if len(heads) == 1 and key != next(iter(heads)) and len(key) >= 3
    }


PREFIX = 3  # the table is cut into blocks by a form's first letters (see vocabulary._tables)


def _tab_fields(path: Path) -> Iterator[tuple[int, list[str]]]:
    """(line number, tab-separated fields) of a two-column list, blank lines and ``#``
    comments aside; nothing when the list does not exist."""
    if not path.exists():
        return
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip() and not line.startswith("#"):
            yield number, line.split("\t")


def read_phrases(path: Path, taken=lambda abbreviation: False) -> dict[tuple[str, ...], str]:
    """Folded multi-word term -> its abbreviation, from ``phrase<TAB>abbreviation`` lines; a
    phrase given two abbreviations keeps the first, and an abbreviation ``taken`` (the
    vocabulary reads it as another word) is left out."""
    phrases: dict[tuple[str, ...], str] = {}
    for number, fields in _tab_fields(path):
        # an elided French article is a word of its own to the tokenizer ("nom d'utilisateur"
        # is "nom", "d", "utilisateur")
        spelled = fold(fields[0]).replace("'", " ").replace("’", " ")
        words = tuple(spelled.split()) if len(fields) == 2 else ()
        abbreviation = fold(fields[1].strip()) if len(fields) == 2 else ""
        if not (2 <= len(words) <= 5 and abbreviation.isalnum() and " " not in abbreviation):
            raise SystemExit(f"{path.name}:{number}: not 'phrase<TAB>abbreviation'")
        if not taken(abbreviation):  # "prd" already means production
            phrases.setdefault(words, abbreviation)
    return phrases


def read_kinds(path: Path) -> dict[str, tuple[str, ...]]:
    """Folded product name -> the folded words saying what kind of thing it is, from
    ``name<TAB>kind words`` lines ("fedora" -> linux distro os); a name listed twice keeps
    its first line."""
    kinds: dict[str, tuple[str, ...]] = {}
    for number, fields in _tab_fields(path):
        name = fold(fields[0].strip()) if len(fields) == 2 else ""
        words = tuple(fold(fields[1]).split()) if len(fields) == 2 else ()
        if not (name and " " not in name and 1 <= len(words) <= 4):
            raise SystemExit(f"{path.name}:{number}: not 'name<TAB>kind words'")
        kinds.setdefault(name, words)
    return kinds


def _block_lines(table: dict[str, str]) -> list[str]:
    """A form table as the lines of a dict literal: first three letters -> its block."""
    blocks: dict[str, dict[str, list[str]]] = {}
    for form, english in table.items():
        blocks.setdefault(form[:PREFIX], {}).setdefault(english, []).append(form)
    return [
        f'    "{prefix}": "'
        + " ".join(f"{e}:{','.join(sorted(f))}" for e, f in sorted(block.items()))
        + '",'
        for prefix, block in sorted(blocks.items())
    ]


def render(
    spanish: dict[str, str],
    synonyms: dict[str, str],
    phrases: dict[tuple[str, ...], str] | None = None,
    french: dict[str, str] | None = None,
    kinds: dict[str, tuple[str, ...]] | None = None,
) -> str:
    """The generated module. SPANISH and FRENCH map a form's first three letters to a block
    of "english:form,form" items, so a process parses only the blocks its words need (the
    whole table takes ~20 ms to parse, a hook's question a few blocks)."""
    by_head: dict[str, list[str]] = {}
    for key, head in synonyms.items():
        by_head.setdefault(head, []).append(key)
    spanish_lines = _block_lines(spanish)
    french_lines = _block_lines(french or {})
    synonym_lines = [f"{h} {' '.join(sorted(k))}" for h, k in sorted(by_head.items())]
    phrase_lines = [f"{a} {' '.join(w)}" for w, a in sorted((phrases or {}).items())]
    kind_lines = [f"{n} {' '.join(w)}" for n, w in sorted((kinds or {}).items())]
    return (
        '"""Generated by tools/build_lexicon.py from tools/lexicon/: do not edit by hand.\n\n'
        'SPANISH: a folded Spanish form\'s first three letters -> "english:form,form ..." items,\n'
        "each English word with the forms indexed as it. FRENCH: the same for French forms.\n"
        "SYNONYMS: each line is a stem and the stems of its near-synonyms indexed as it.\n"
        "PHRASES: each line is an abbreviation and the folded words of the term it stands for.\n"
        "KINDS: each line is a product's name and the words for the kind of thing it is.\n"
        '"""\n\n'
        f"SPANISH = {{\n{chr(10).join(spanish_lines)}\n}}\n\n"
        f"FRENCH = {{\n{chr(10).join(french_lines)}\n}}\n\n"
        f'SYNONYMS = """\n{chr(10).join(synonym_lines)}\n"""\n\n'
        f'PHRASES = """\n{chr(10).join(phrase_lines)}\n"""\n\n'
        f'KINDS = """\n{chr(10).join(kind_lines)}\n"""\n'
    )


def _collisions(path: Path) -> set[str]:
    if not path.exists():
        return set()
    lines = path.read_text(encoding="utf-8").splitlines()
    return {w for line in lines if not line.startswith("#") for w in line.split()}


def build(folder: Path = SOURCES) -> str:
    collisions = _collisions(folder / COLLISIONS.name)
    spanish = form_table(read_entries(folder), collisions)
    # French after Spanish: the vocabulary reads a form as Spanish first, so a French form
    # the Spanish table already holds is left out
    french = {
        form: english
        for form, english in form_table(
            read_entries(folder, "fr"),
            _collisions(folder / COLLISIONS_FR.name) - _collisions(folder / FRENCH_KEPT.name),
            french_forms.GENERATORS,
        ).items()
        if form not in spanish
    }
    # a second round of groups (work vocabulary: "login"/"signin", "audio"/"sound") extends
    # the first; a word claimed by two different groups is left out of both
    synonyms = synonym_table(
        read_synonym_groups(folder / "en_synonyms.txt")
        + read_synonym_groups(folder / "en_synonyms_work.txt")
    )

    def taken(abbreviation: str) -> bool:
        return (
            has_fixed_meaning(abbreviation)
            or abbreviation in spanish
            or (abbreviation.isalpha() and stem(abbreviation) in synonyms)
        )

    phrases = read_phrases(folder / "phrases.tsv", taken)
    # expressions that mean one word ("sign in" is "login"): the word goes through the
    # vocabulary like any other, so only a Spanish reading of it keeps it out
    for words, word in read_phrases(folder / "phrases_words.tsv", spanish.__contains__).items():
        phrases.setdefault(words, word)
    # French expressions that mean one word ("mot de passe" is "password"); one that means a
    # stop word ("à partir de" is "from", "parce que" "because") adds nothing
    french_phrases = read_phrases(folder / "phrases_words_fr.tsv", spanish.__contains__)
    for words, word in french_phrases.items():
        if not is_stopword(word):
            phrases.setdefault(words, word)
    return render(spanish, synonyms, phrases, french, read_kinds(folder / "kinds.tsv"))


def write_collisions(folder: Path = SOURCES, language: str = "es") -> int:
    """Every generated Spanish (or French) form that is a common English word (needs
    wordfreq)."""
    from wordfreq import zipf_frequency

    generators = french_forms.GENERATORS if language == "fr" else GENERATORS
    forms = set()
    for word, english, kind in read_entries(folder, language):
        forms |= {f for f in generators.get(kind, lambda w: {w})(word) if f != english}
    # a French form is read after the Spanish table: one that is a common Spanish word the
    # table does not hold ("deja", "pone") must not read Spanish text as French either
    others = ("en", "es") if language == "fr" else ("en",)

    def agent_noun(form: str) -> bool:
        # a French infinitive spelled like an English "-er" noun ("tester", "exporter",
        # "coder"): English text means the person or the thing, rarely heard as French
        return (
            language == "fr"
            and form.endswith("er")
            and zipf_frequency(form, "en") >= AGENT_NOUN_ZIPF
            and zipf_frequency(form, "fr") - zipf_frequency(form, "en") < AGENT_NOUN_MARGIN
        )

    common = sorted(
        f
        for f in forms
        if agent_noun(f)
        or any(
            zipf_frequency(f, other) >= COMMON_ENGLISH_ZIPF
            and zipf_frequency(f, language) - zipf_frequency(f, other) < SPANISH_MARGIN
            for other in others
        )
    )
    name = {"es": "Spanish", "fr": "French"}[language]
    words = "English or Spanish" if language == "fr" else "English"
    header = (
        f"# {name} forms that are common {words} words (wordfreq zipf >= {COMMON_ENGLISH_ZIPF}"
        f" there, less than {SPANISH_MARGIN} higher in {name})\n"
    )
    target = folder / (COLLISIONS_FR if language == "fr" else COLLISIONS).name
    target.write_text(header + "\n".join(common) + "\n", encoding="utf-8")
    return len(common)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--collisions",
        action="store_true",
        help="remake the English collision list (needs wordfreq)",
    )
    args = parser.parse_args()
    if args.collisions:
        print(f"{write_collisions()} Spanish forms read as English")
        print(f"{write_collisions(language='fr')} French forms read as English")
    TARGET.write_text(build(), encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
