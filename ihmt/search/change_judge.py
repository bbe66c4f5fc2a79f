"""Which later memory, if any, gives the new value of the statement a question reached.

The engine finds later memories sharing the rare words of the leading memory's statement
(search/supersession.py) and used to take the first one that says something changed *and*
names the old value ("resized from CX22 to CX32", "the old CX22"). Most corrections the
agent saves name no old value: "The general node group now runs m7g.xlarge", "Hotfix 2.6.1
is live on both stores", "Le stand-up passe à 9h45". What tells them from a later memory
about something else is a combination: how much of the statement's rare words it repeats,
how much of itself is about the statement, a value of the asked shape the leader lacks, a
word of change, how new it is. A small forest of gradient-boosted trees over those signals
(change_trees.py, fitted by benchmarks/fit_change.py on the corpora's own record of which
memory corrects which) decides; the rule stays one of its signals, and decides alone when no
forest is shipped.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date as _date
from functools import cached_property

from .. import boosted, re_cache
from ..text.tokenize import terms
from . import change_trees
from .restatement import tells_change
from .supersession import SENTENCE_BREAK, leaves_behind, names_old_value
from .unknown_names import environments_in

THRESHOLD = 0.5  # the fitted probability a later memory must reach to answer in the leader's place
RULE_TAKES = False  # a change naming the old value answers when the forest takes none
LONG_TEXT = 3000  # words: a memory this long has the full length signal
_VALUE = re_cache.compile(r"[\w.:/-]*\d[\w.:/-]*")

FEATURES = (
    "rule",  # tells of a change and names the old value (supersession.changes_statement)
    "tells_change",  # says that something changed ("now", "moved to", "ya no", "passe à")
    "names_old",  # "from X to Y" with X one of the statement's rare words
    "leaves_behind",  # "the old X", "X is being decommissioned", with X of the statement
    "rare_held",  # share of the statement's rare words' idf mass it holds
    "statement_held",  # share of the statement's words' idf mass it holds
    "about_statement",  # share of its own words' idf mass that the statement holds
    "coverage",  # share of the question's idf mass it holds
    "lead_coverage",  # ... the leader's
    "lead_words_held",  # share of the question words the leader holds that it holds too
    "years_after",  # its date minus the leader's, in years (0..1)
    "length",  # its length in words, on a log scale
    "lead_is_memory",  # the leader is a saved memory, not a piece of a stored document
    "asks_shape",  # the question asks for a shape of answer (a version, a host, a time...)
    "holds_shape",  # ... and it holds one
    "new_value",  # ... a value of that shape the leader does not hold
    "descent_place",  # its place among the later memories found (0 first)
    "ranked_place",  # 1 for the search's second candidate down to 0 outside its first five
    "asks_now",  # the question says "now", "these days", "currently"
    "rarest_held",  # it holds the question's rarest word
    "new_numbers",  # values with a digit it holds that the leader lacks, over five (max 1)
    "lead_numbers",  # values with a digit in the leader's statement, over five (max 1)
    "lead_tells_change",  # the leader itself tells of a change (it may be one link of a chain)
    "shared_subject",  # share of the leader's own words' idf mass it holds
    "change_near",  # a word of change in its sentence holding most of the statement's rare words
    "found",  # how many later memories the descent found, over five
    "asked_held",  # share of the question's words in the statement (idf mass) it holds too
    "change_asked",  # share of the question's idf mass in its sentences that tell of a change
    "keeps_settings",  # it keeps the question's settings the leader holds ("staging", "prod")
    "keeps_thing",  # it holds the thing a which-question asks for, or a new value of its shape
)


@dataclass
class ChangeContext:
    """What the judge reads of the leader and the question, once per search."""

    statement_terms: set[str]
    rare: set[str]
    word_idf: dict[str, float]
    question_idf: dict[str, float]
    lead_text: str
    statement: str
    lead_date: str
    lead_is_memory: bool
    lead_matched: set[str] = field(default_factory=set)
    lead_terms: frozenset[str] = frozenset()
    found: int = 0
    asks_now: bool = False
    answers_shape: Callable[[object], bool] | None = None
    new_value: Callable[[str, str], bool] | None = None
    ranked_ids: Sequence[str] = ()
    settings: Sequence[tuple[str, ...]] = ()
    asked_thing: frozenset[str] = frozenset()
    shape_words: frozenset[str] = frozenset()

    # what depends on the leader and the question alone, worked out once for the up to five
    # later memories judged against it
    @cached_property
    def lead_values(self) -> set[str]:
        return set(_VALUE.findall(self.lead_text[:20000].casefold()))

    @cached_property
    def lead_tells_change(self) -> bool:
        return tells_change(self.lead_text)

    @cached_property
    def statement_values(self) -> int:
        return len(set(_VALUE.findall(self.statement.casefold())))

    @cached_property
    def lead_words(self) -> set[str]:
        return {t for t in self.question_idf if t in self.lead_matched}

    @cached_property
    def rarest(self) -> str | None:
        return max(self.question_idf, key=lambda t: (self.question_idf[t], t), default=None)

    @cached_property
    def asked_in_statement(self) -> dict[str, float]:
        return {t: v for t, v in self.question_idf.items() if t in self.statement_terms}


def features(cand, text: str, place: int, ctx: ChangeContext) -> list[float]:
    """One vector, in FEATURES order, for a later memory ``cand`` (its ``text``) found
    ``place``-th by the descent."""
    tf = cand.ref.get("tf") or {}
    held = set(tf)
    rare_mass = _mass(ctx.rare, ctx.word_idf) or 1.0
    statement_mass = _mass(ctx.statement_terms, ctx.word_idf) or 1.0
    own_mass = _mass(held, ctx.word_idf) or 1.0
    question_mass = math.fsum(ctx.question_idf.values()) or 1.0
    lead_words, rarest = ctx.lead_words, ctx.rarest
    names_old = names_old_value(text, ctx.statement_terms, ctx.rare)
    behind = ctx.lead_is_memory and leaves_behind(text, ctx.statement_terms, ctx.rare)
    change = tells_change(text)
    shape = ctx.answers_shape(cand) if ctx.answers_shape is not None else False
    new = ctx.new_value(text, ctx.lead_text) if ctx.new_value is not None else False
    new_numbers = set(_VALUE.findall(text[:4000].casefold())) - ctx.lead_values
    ranked = list(ctx.ranked_ids[:5])
    rank = ranked.index(cand.ref["id"]) if cand.ref["id"] in ranked else -1
    words = sum(tf.values())
    return [
        1.0 if change and (names_old or behind) else 0.0,
        1.0 if change else 0.0,
        1.0 if names_old else 0.0,
        1.0 if behind else 0.0,
        _mass(ctx.rare & held, ctx.word_idf) / rare_mass,
        _mass(ctx.statement_terms & held, ctx.word_idf) / statement_mass,
        _mass(held & ctx.statement_terms, ctx.word_idf) / own_mass,
        math.fsum(v for t, v in ctx.question_idf.items() if t in held) / question_mass,
        math.fsum(v for t, v in ctx.question_idf.items() if t in ctx.lead_matched) / question_mass,
        len(lead_words & held) / len(lead_words) if lead_words else 0.0,
        _years_after(cand.ref.get("date") or "", ctx.lead_date),
        math.log1p(words) / math.log1p(LONG_TEXT),
        1.0 if ctx.lead_is_memory else 0.0,
        1.0 if ctx.answers_shape is not None else 0.0,
        1.0 if shape else 0.0,
        1.0 if new else 0.0,
        place / 4.0,
        (1.0 - rank / 5.0) if rank > 0 else 0.0,
        1.0 if ctx.asks_now else 0.0,
        1.0 if rarest is not None and rarest in held else 0.0,
        min(len(new_numbers), 5) / 5.0,
        min(ctx.statement_values, 5) / 5.0,
        1.0 if ctx.lead_tells_change else 0.0,
        _mass(held & ctx.lead_terms, ctx.word_idf) / (_mass(ctx.lead_terms, ctx.word_idf) or 1.0),
        1.0 if tells_change(_densest_sentence(text, ctx.rare)) else 0.0,
        min(ctx.found, 5) / 5.0,
        _asked_held(held, ctx),
        _change_asked(text, ctx.question_idf),
        1.0 if keeps_settings(held, ctx) else 0.0,
        1.0 if keeps_thing(held, text, ctx) else 0.0,
    ]


def keeps_settings(held: set[str], ctx: ChangeContext) -> bool:
    """False when it drops a setting of the question the leader holds ("Almena stg" where the
    leader says staging): a sign of another thing's value, though a correction often leaves
    the setting out ("Ignition on the gateway is now 8.1.44")."""
    return not _drops_setting(held, ctx.lead_terms, ctx.settings)


def swaps_setting(held: set[str], lead_terms, settings) -> bool:
    """True when a later memory drops an environment of the question the leader holds and
    names another one ("almena-prod" for a question about stg): another thing's value, not a
    change of this one, which the judge never hears."""
    asked = {t for word in settings for t in word}
    return _drops_setting(held, lead_terms, settings) and bool(environments_in(held) - asked)


def _drops_setting(held: set[str], lead_terms, settings) -> bool:
    return any(set(word) <= lead_terms and not set(word) <= held for word in settings)


def keeps_thing(held: set[str], text: str, ctx: ChangeContext) -> bool:
    """False when the leader holds what a which-question asks for ("runner") and it holds
    neither that word nor a new value of the shape the word names."""
    thing = ctx.asked_thing
    if not thing or not thing <= ctx.lead_terms or thing & held:
        return True
    return bool(thing <= ctx.shape_words and ctx.new_value and ctx.new_value(text, ctx.lead_text))


def _asked_held(held: set[str], ctx: ChangeContext) -> float:
    """The share of the question's words that the statement holds (by idf) that ``held``
    holds too: a correction of another detail of the same memory lacks them."""
    asked = ctx.asked_in_statement
    total = math.fsum(asked.values())
    return math.fsum(v for t, v in asked.items() if t in held) / total if total else 0.0


def _change_asked(text: str, question_idf: dict[str, float]) -> float:
    """The share of the question's idf mass held by the sentences of ``text`` that tell of a
    change: "bicival_stations now runs every 5 minutes" changes when the DAG runs, and holds
    little of "which resource does the bicival_stations DAG upsert into?"."""
    total = math.fsum(question_idf.values())
    if not total:
        return 0.0
    held: set[str] = set()
    for sentence in SENTENCE_BREAK.split(text[:4000]):
        if tells_change(sentence):
            held.update(terms(sentence))
    return math.fsum(v for t, v in question_idf.items() if t in held) / total


def _densest_sentence(text: str, words: set[str]) -> str:
    """The sentence of ``text`` holding the most of ``words``."""
    best, most = "", 0
    for sentence in SENTENCE_BREAK.split(text[:4000]):
        held = len(words & set(terms(sentence)))
        if held > most:
            best, most = sentence, held
    return best


def _mass(words, idf: dict[str, float]) -> float:
    return math.fsum(idf.get(t, 0.0) for t in words)


def _years_after(date: str, lead_date: str) -> float:
    try:
        days = _date.fromisoformat(date[:10]) - _date.fromisoformat(lead_date[:10])
    except ValueError:
        return 0.0
    return max(0.0, min(1.0, days.days / 365.0))


def probability(
    x: Sequence[float], trees: Sequence | str | None = None, base: float | None = None
) -> float | None:
    """The fitted probability that the memory gives the statement's new value; None when no
    forest is shipped (the rule then decides). ``trees`` and ``base``: another forest (the
    fitting script's, judging corpora it was not fitted on)."""
    packed = change_trees.LEXICAL if trees is None else trees
    if not packed:
        return None
    offset = change_trees.LEXICAL_BASE if base is None else base
    return boosted.probability(packed, offset, x)


_RULE = FEATURES.index("rule")
# the rule alone (no forest) takes only a memory about the same thing, of the shape asked for
_SAME_THING = tuple(FEATURES.index(name) for name in ("keeps_settings", "keeps_thing"))
_ASKS_SHAPE, _HOLDS_SHAPE = FEATURES.index("asks_shape"), FEATURES.index("holds_shape")


def _rule_takes(row: Sequence[float]) -> bool:
    return bool(
        row[_RULE]
        and all(row[i] for i in _SAME_THING)
        and (row[_HOLDS_SHAPE] or not row[_ASKS_SHAPE])
    )


def choose(
    later: list, texts: list[str], ctx: ChangeContext, threshold: float | None = None
) -> int | None:
    """The index among ``later`` (the later memories found, in the descent's order) of the
    memory that gives the statement's new value, or None: the most probable one at
    ``threshold`` or above by the fitted forest; else (or without a forest) the first that
    tells of a change and names the old value (the rule)."""
    threshold = THRESHOLD if threshold is None else threshold
    rows = [
        features(cand, text, i, ctx)
        for i, (cand, text) in enumerate(zip(later, texts, strict=True))
    ]
    best, best_p, fitted = None, threshold, True
    for index, row in enumerate(rows):
        p = probability(row)
        if p is None:
            fitted = False
            break
        if p >= best_p:
            best, best_p = index, p
    if best is None and (RULE_TAKES or not fitted):
        best = next((i for i, r in enumerate(rows) if _rule_takes(r)), None)
    return best
