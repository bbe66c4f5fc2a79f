"""The regular inflections of French lemmas, for tools/build_lexicon.py.

A work note says "déployé", "on déploie", "déployons", "les sauvegardes"; the lists in
tools/lexicon/fr_*.tsv give one lemma a line ("déployer", "sauvegarde"). These functions spell
out the forms of the regular patterns, already folded the way the tokenizer folds them (lower
case, no accents: "é" and "è" are both "e", "ç" is "c", so "commençons" and "lève" need no
spelling rule of their own). Irregular verbs and forms are listed by hand (class ``form``).
"""

from __future__ import annotations

# first group (-er): present, imperfect, future, conditional, subjunctive, participles
_ER = (
    "e es ent ons ez ais ait ions iez aient "
    "erai eras era erons erez eront erais erait erions eriez eraient "
    "ant "
    # past participle (the folded "é", "ée", "és", "ées")
    "e ee es ees"
).split()
# second group (-ir like finir)
_IR = (
    "is it issons issez issent issais issait issions issiez issaient "
    "irai iras ira irons irez iront irais irait irions iriez iraient "
    "isse isses issant i ie ies"
).split()
_DOUBLING = ("eler", "eter")  # appeler -> appelle, jeter -> jette (most verbs of the kind)
_MUTE_E = ("e", "es", "ent")  # the endings a stem change shows before
_SOFT_VOWELS = ("a", "o")  # "-ger" keeps its sound with an "e": mangeons, mangeait
# the future and conditional endings after "-er" ("appellerons", "paierait")
_FUTURE = "ai as a ons ez ont ais ait ions iez aient".split()


def verb_forms(infinitive: str) -> set[str]:
    """The regular forms of a first-group (-er) or second-group (-ir like finir) verb."""
    forms = {infinitive}
    if infinitive.endswith("er") and len(infinitive) > 3:
        root = infinitive[:-2]
        for ending in _ER:
            if root.endswith("g") and ending.startswith(_SOFT_VOWELS):
                forms.add(root + "e" + ending)
            else:
                forms.add(root + ending)
        if infinitive.endswith(_DOUBLING):
            doubled = root + root[-1]  # appel -> appell
            forms.update(doubled + ending for ending in _MUTE_E)
            forms.update(doubled + "er" + tense for tense in _FUTURE)
        if root.endswith(("oy", "uy", "ay")):
            soft = root[:-1] + "i"  # nettoyer -> nettoie, payer -> paie
            forms.update(soft + ending for ending in _MUTE_E)
            forms.update(soft + "er" + tense for tense in _FUTURE)
    elif infinitive.endswith("ir") and len(infinitive) > 3:
        root = infinitive[:-2]
        forms.update(root + ending for ending in _IR)
    return forms


def noun_forms(noun: str) -> set[str]:
    """A noun and its plural: -s; -x after -eau and -eu; -aux for -al."""
    if noun.endswith(("s", "x", "z")):
        return {noun}
    if noun.endswith(("eau", "eu")):
        return {noun, noun + "x"}
    if noun.endswith("al") and len(noun) > 3:
        return {noun, noun[:-2] + "aux", noun + "s"}
    return {noun, noun + "s"}


def _feminine(adjective: str) -> str:
    for masculine, feminine in (
        ("eux", "euse"),
        ("if", "ive"),
        ("el", "elle"),
        ("en", "enne"),
        ("on", "onne"),
        ("er", "ere"),
        ("et", "ette"),
    ):
        if adjective.endswith(masculine):
            return adjective[: -len(masculine)] + feminine
    return adjective if adjective.endswith("e") else adjective + "e"


def adjective_forms(adjective: str) -> set[str]:
    """Masculine and feminine, singular and plural, and the adverb in -ment."""
    feminine = _feminine(adjective)
    forms = noun_forms(adjective) | {feminine, feminine + "s"}
    if adjective.endswith("ent") and len(adjective) > 4:
        forms.add(adjective[:-3] + "emment")  # récent -> récemment
    elif adjective.endswith("ant") and len(adjective) > 4:
        forms.add(adjective[:-3] + "amment")  # courant -> couramment
    elif adjective.endswith(("ai", "e", "i", "u")):
        forms.add(adjective + "ment")  # vrai -> vraiment, rapide -> rapidement
    else:
        forms.add(feminine + "ment")  # actif -> activement, seul -> seulement
    return forms


GENERATORS = {"verb": verb_forms, "noun": noun_forms, "adj": adjective_forms}
