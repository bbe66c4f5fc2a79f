"""One fact over time: memories that say the same thing about a question's words at
different dates.

The engine asks ``order_by_time`` which of its top candidates restate each other; the group's
newest memory that tells of a change (or the leader, when none later does) answers a question
about now, an earlier one a question about before, and the others stay listed as history
instead of being AMBIGUOUS rivals. Pieces of one document, two projects' values and two people
of one first name are never grouped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from .. import re_cache
from ..text.tokenize import terms
from .answer_type import subject_terms
from .intent import history_cue_at
from .navigator import Candidate, stand_in
from .unknown_names import named_terms, qualifier_terms

RESTATE_WINDOW = 6  # candidates compared for "a later memory says this again"
RESTATE_SCORE = 0.5  # ... scoring at least this share of the leader's score
RESTATE_SHARE = 0.6  # ... and holding this share of the question words the other one holds
DOCUMENT_TAKEOVER = 0.6  # ... a document piece must score this share of the leader's
SHAPE_CHANGE_SCORE = 0.3  # ... a later one giving the shape asked and telling of a change
PLAIN_SHARE = 1.0  # ... or this share when the later one does not tell of a change
RESTATE_OVERLAP = 0.03  # ... and sharing this share of their other words (the same subject)
# the same, for a question about an earlier state: it names the change ("before the upgrade"),
# which only the newer memory tells of, so the older one holds fewer of its words
HISTORY_SCORE, HISTORY_OVERLAP, HISTORY_SHARE = 0.3, 0.1, 0.4
# a later saved memory telling of a change, about the same subject in other words ("The Arcadia
# Norte sync call is now on Tuesdays" for "Weekly sync with Arcadia Norte: Thursdays 10:00"):
# it must score this share of the leader, hold this share of the question words the other one
# holds, and share this share of their other words
SUBJECT_SCORE, SUBJECT_SHARE, SUBJECT_OVERLAP = 0.4, 0.3, 0.3


def order_by_time(
    ranked: list,
    query,
    full_idf: dict,
    history: bool,
    corrected: dict[str, str] | None = None,
    word_idf: dict[str, float] | None = None,
    content_of: Callable[[Candidate], str] | None = None,
    answers_shape: Callable[[Candidate], bool] | None = None,
    asked_thing: frozenset[str] = frozenset(),
    shape_words: frozenset[str] = frozenset(),
    new_value: Callable[[str, str], bool] | None = None,
    subject: frozenset[str] = frozenset(),
) -> list:
    """Memories that say the same thing about the question's words at different dates are
    one fact over time: the latest telling of a change (or the leader) answers a question
    about now, an earlier one a question about before. The others stay in the list as
    history and are not rivals (never AMBIGUOUS between an old and a new value); pieces of one
    document are not restatements.
    ``answers_shape`` (when the question asks for a shape of answer, search/answer_type.py):
    a memory without that shape ("the WhatsApp group", no number) is no value of the fact.
    ``asked_thing`` (the terms of what a what/which question asks for, "runner"): a later
    memory without it, when the leader holds it, tells of something else ("the pipeline now
    takes 3 minutes" is no new value of "which CI runner").
    ``shape_words`` (the question's words naming that shape, "url"): a later memory holding
    a value of the shape its leader lacks (``new_value(text, leader_text)``), telling of a
    change and holding the leader's other asked words, holds them too ("Staging API is now
    https://..."). ``subject`` (what a version question names, "zabbix"; empty for other
    shapes): a later memory naming it with a new version next to it, telling of a change, is
    its new value though it lacks one more of the question's words than the leader."""
    if len(ranked) < 2 or getattr(ranked[0], "pinned", False):
        return ranked
    lead = ranked[0]
    top = max(lead.adjusted, 1e-9)

    def mass(words: set[str]) -> float:
        return math.fsum(full_idf.get(t, 0.0) for t in words)

    lead_words = {t for t in query.terms if t in lead.matched}
    # a question about before names the change ("before the migration"), which the newer
    # memory tells of: the older one may score well below it and still be the answer
    floor, overlap, share = (
        (HISTORY_SCORE, HISTORY_OVERLAP, HISTORY_SHARE)
        if history
        else (RESTATE_SCORE, RESTATE_OVERLAP, RESTATE_SHARE)
    )
    links = corrected or {}  # old leaf id -> the leaf that corrected it
    # the names the question uses ("Almena"): a memory without one the leader holds is
    # about another thing, not a new value of this one (not for a question about before)
    names = [] if history else [named for _, named in named_terms(query.text)]
    settings = [] if history else [named for _, named in qualifier_terms(query.terms)]
    # whether each candidate gives a new value of the asked shape: it reads the memory and the
    # leader, so it is worked out once per candidate however many rules below ask
    new_values: dict[str, bool] = {}

    def gives_new_value(cand) -> bool:
        key = cand.ref["id"]
        if key not in new_values:
            new_values[key] = _gives_new_value(cand, lead, content_of, answers_shape, new_value)
        return new_values[key]

    corrections = set(links.values())  # the memories a link names as corrections
    lead_corrects = lead.ref["id"] in corrections
    group = [lead]
    for cand in ranked[1:RESTATE_WINDOW]:
        if _same_document(cand, lead):
            continue
        if (
            links.get(cand.ref["id"]) == lead.ref["id"]
            or links.get(lead.ref["id"]) == cand.ref["id"]
        ):
            # linked by replaces / mark_outdated: one fact, by definition, however few of the
            # question's words the old one holds ("the Grafana address before SSO")
            group.append(cand)
            continue
        if cand.adjusted < floor * top and not (
            # a later memory giving the shape asked for ("Go 1.22 now") and telling of a change
            # is the fact's new value though it holds fewer of the question's words
            not history
            and answers_shape is not None
            and content_of is not None
            and cand.adjusted >= SHAPE_CHANGE_SCORE * top
            and (cand.ref.get("date") or "") > (lead.ref.get("date") or "")
            and answers_shape(cand)
            and tells_change(content_of(cand))
        ):
            continue
        if cand.ref.get("project") != lead.ref.get("project"):
            continue  # a project's own value and another project's (or the global one)
        words = {t for t in query.terms if t in cand.matched}
        if lead_corrects and not words >= lead_words and not gives_new_value(cand):
            # the leader is a correction the agent linked to what it corrects: the fact's
            # new value, said as such. A later memory lacking some of the question's words it
            # holds, and no new value of the shape asked, tells of another detail ("Ruff now
            # also enables bugbear" after "formatting switched to ruff format"), not the next
            # value of this one
            continue
        # its value stands for the shape's word ("https://..." for "URL"), but only a memory
        # sharing the leader's subject beyond the question's words is a new value of it
        credited = bool(
            (shape_words & lead_words) - words
            and words >= lead_words - shape_words
            and gives_new_value(cand)
        )
        if credited:
            words |= shape_words & lead_words
        elif (
            subject
            and len(lead_words - words - shape_words) <= 1
            and subject <= cand.matched
            and subject <= lead.matched
            and gives_new_value(cand)
        ):
            # "Zabbix upgraded to 7.0 LTS" for "which Zabbix version is our monitoring on?":
            # a new value of the shape, next to the thing the question names, is that thing's
            # new value whatever else the leader's wording held ("Monitoring: Zabbix 6.0")
            words = words | lead_words
        shared = mass(words & lead_words)
        whole = max(mass(lead_words), mass(words), 1e-9)
        if shared < share * whole and not (
            not history
            and _changed_in_other_words(
                cand, lead, shared / whole, top, query, word_idf or {}, content_of, answers_shape
            )
        ):
            continue
        newer = max(cand, lead, key=lambda c: c.ref.get("date") or "")
        if (
            not history
            and content_of
            and shared < PLAIN_SHARE * max(mass(lead_words), mass(words), 1e-9)
            and not tells_change(content_of(newer))
        ):
            continue
        other_words = _overlap(lead, cand, set(query.all_terms), word_idf or {})
        if other_words < overlap and not (
            # two memories holding the whole question, the later telling of a change
            # ("bumped to", "moved to", "now"), are one fact even in other words
            content_of
            and not credited
            and shared >= CHANGE_SHARE * mass(lead_words)
            and len(words & lead_words) >= 2
            and (cand.ref.get("date") or "") != (lead.ref.get("date") or "")
            and tells_change(content_of(newer))
        ):
            continue
        if (
            not history
            and not credited
            and len(words & lead_words) < 2 <= len(lead_words)
            and other_words < SUBJECT_OVERLAP
        ):
            # one shared word of the question ("vendor": the SMS provider, Composer's vendor
            # directory) and little else in common: two facts, not one fact over time
            continue
        if content_of and _named_apart(content_of(lead), content_of(cand), query.text):
            continue  # "Luis Ortega" and "Luis Pardo": two people, not one fact over time
        # (a correction pulled in for the memory it corrects carries that memory's words; its
        # own text says whether it names the thing: "the QuestDB cutover moved to 19 January"
        # corrects a date set "before Jonas's holiday", and is no news of Jonas's holiday)
        own = (
            set(cand.ref.get("tf") or ())
            if getattr(cand, "answers_for", None) is not None
            else cand.matched
        )
        # (an environment the question sets, "production", is read as before: a correction
        # about staging brought in for a production note is still about the deploys)
        if any((set(name) <= lead.matched) != (set(name) <= own) for name in names) or any(
            (set(name) <= lead.matched) != (set(name) <= cand.matched) for name in settings
        ):
            continue  # "Almena's database" and Eastmoor's: another thing's value, not a new one
        group.append(cand)
    if len(group) < 2:
        return ranked
    order = {id(c): i for i, c in enumerate(group)}
    # oldest to newest (on the same second, the better ranked last: the stores a sync keeps
    # equal must answer alike, so nothing local such as the catalog's order may decide); a
    # memory corrected by an explicit link (replaces, mark_outdated) never answers "now"
    by_date = sorted(group, key=lambda c: (c.ref.get("date") or "", -order[id(c)]))
    # a piece of a stored document (a runbook, notes) is reference text: it takes over from
    # a memory the agent saved only when it matches nearly as well (a postmortem written
    # after the incident note); a later saved memory always takes over from it
    eligible = [
        c
        for c in by_date
        if c is lead or saved_memory(c) or c.adjusted >= DOCUMENT_TAKEOVER * lead.adjusted
    ]
    if answers_shape is not None:
        eligible = [c for c in eligible if answers_shape(c)] or eligible
    if history:
        chosen = max(eligible[:-1] or eligible, key=lambda c: c.adjusted)
    else:
        current = [c for c in eligible if c.ref["id"] not in links] or eligible
        if asked_thing and asked_thing <= set(lead.ref.get("tf") or ()):
            current = [
                c
                for c in current
                if c is lead
                or asked_thing & set(c.ref.get("tf") or ())
                or (asked_thing <= shape_words and gives_new_value(c))
            ] or current
        if content_of is not None:
            # a later memory answers now in place of the leader when it tells of a change
            # ("now", "upgraded to") or is the correction replaces named; one that only holds
            # the question's words too (a test VM "with PostgreSQL 16" after "Production
            # PostgreSQL upgraded from 14 to 16.4") is no news of the fact
            current = [
                c
                for c in current
                if c is lead or c.ref["id"] in corrections or tells_change(content_of(c))
            ] or current
        chosen = current[-1]
    for cand in group:
        cand.restated = cand is not chosen
    # the chosen memory speaks for the group: its rivals are measured against the group's best
    if chosen is not lead:
        stand_in(chosen, lead, take_words=False)
    return [chosen] + [c for c in ranked if c is not chosen]


NEWS_WINDOW = 3  # the leader and the next two: where a later telling of a change is looked for
NEWS_SCORE = 0.35  # ... scoring at least this share of the leader


def prefer_news(
    ranked: list, links: dict[str, str], content_of: Callable[[Candidate], str]
) -> list:
    """For a question about now ("these days", "ahora"): when the leader neither tells of a
    change nor is the correction a ``replaces`` link names, a later memory just below it that
    is one of those answers instead. The old statement often leads on the question's words
    because it states the fact in full ("Agustina Ríos ... looks after the two catalogue
    kiosks"), while the news says it in its own ("ahora los kioscos los atiende Pablo Sosa");
    the question's "now" says which of the two it wants. A memory a link marks as corrected
    never answers now."""
    if len(ranked) < 2 or getattr(ranked[0], "pinned", False):
        return ranked
    corrections = set(links.values())

    def news(cand) -> bool:
        return cand.ref["id"] in corrections or tells_change(content_of(cand))

    lead = ranked[0]
    if news(lead):
        return ranked
    floor = NEWS_SCORE * max(lead.adjusted, 1e-9)
    for cand in ranked[1:NEWS_WINDOW]:
        if (
            news(cand)
            and cand.ref["id"] not in links
            and cand.adjusted >= floor
            and (cand.ref.get("date") or "") > (lead.ref.get("date") or "")
        ):
            return [cand] + [c for c in ranked if c is not cand]
    return ranked


_NAME_AFTER = r"(?<!\w){word}\s+([A-ZÁÉÍÓÚÑÜ][\w'’.-]*)"


def _gives_new_value(cand, lead, content_of, answers_shape, new_value) -> bool:
    """Whether ``cand``, dated after ``lead``, tells of a change and holds a value of the
    shape asked for that the leader does not: a new value of what the leader states, in other
    words ("Staging API is now https://stg-api..." after "Staging API base URL: https://...");
    "Kontua now runs PHP 8.3 on hz-app-02" names the leader's own server, no new one."""
    return bool(
        content_of is not None
        and answers_shape is not None
        and new_value is not None
        and (cand.ref.get("date") or "") > (lead.ref.get("date") or "")
        and answers_shape(cand)
        and tells_change(content_of(cand))
        and new_value(content_of(cand), content_of(lead))
    )


def _changed_in_other_words(
    cand,
    lead,
    share: float,
    top: float,
    query,
    word_idf: dict[str, float],
    content_of: Callable[[Candidate], str] | None,
    answers_shape: Callable[[Candidate], bool] | None,
) -> bool:
    """Whether ``cand``, saved after ``lead``, is the fact's new value though it words the
    question differently ("sync call" where the leader says "weekly sync"): both are saved
    memories (a document restates many things), the later one tells of a change and gives the
    shape asked, scores near the leader, holds part of the question words the leader holds
    (``share``), and keeps much of the leader's subject in its other words."""
    if content_of is None or not (saved_memory(cand) and saved_memory(lead)):
        return False
    if (cand.ref.get("date") or "") <= (lead.ref.get("date") or ""):
        return False
    if cand.adjusted < SUBJECT_SCORE * top or share < SUBJECT_SHARE:
        return False
    if answers_shape is not None and not answers_shape(cand):
        return False
    if not tells_change(content_of(cand)):
        return False
    return _overlap(lead, cand, set(query.all_terms), word_idf) >= SUBJECT_OVERLAP


def _named_apart(a: str, b: str, question: str) -> bool:
    """True when a name the question uses is followed by different names in the two texts
    ("Luis Ortega ..." / "Luis Pardo ..."): they speak of two people or things."""
    for word in re.findall(r"(?<!\w)[A-ZÁÉÍÓÚÑÜ][\w-]{1,30}", question):
        pattern = re.compile(_NAME_AFTER.format(word=re.escape(word)))  # noqa: TID251
        names_a = {m.group(1).rstrip("'’.").lower() for m in pattern.finditer(a[:4000])}
        names_b = {m.group(1).rstrip("'’.").lower() for m in pattern.finditer(b[:4000])}
        if names_a and names_b and names_a.isdisjoint(names_b):
            return True
    return False


def _label_terms(ref: dict) -> set[str]:
    """Terms a leaf is indexed under for its tags and source name ("type:generic", "memory"),
    which every saved memory shares: they say nothing about its subject."""
    name = (ref.get("source") or "").replace("\\", "/").rsplit("/", 1)[-1]
    return set(terms(" ".join(ref.get("tags") or ()) + " " + name))


def _overlap(a, b, asked: set[str], word_idf: dict[str, float]) -> float:
    """Share of the words besides the question's that two memories have in common, each
    word weighted by its rarity: a new value of one fact keeps its subject's words, two
    people or services of one name do not."""
    wa = set(a.ref.get("tf") or ()) - asked - _label_terms(a.ref)
    wb = set(b.ref.get("tf") or ()) - asked - _label_terms(b.ref)

    def mass(words: set[str]) -> float:
        return math.fsum(word_idf.get(t, 1.0) for t in words)

    smaller = min(mass(wa), mass(wb))
    return mass(wa & wb) / smaller if smaller > 0 else 0.0


def saved_memory(cand) -> bool:
    """A memory an agent saved, not a piece of a stored document."""
    return (cand.ref.get("source") or "memory") == "memory"


def _same_document(a, b) -> bool:
    source = a.ref.get("source") or ""
    return bool(source) and source != "memory" and source == b.ref.get("source")


CHANGE_SHARE = 0.8  # ... holding this share of the question words the leader holds

# words by which a memory tells that something changed (English and Spanish)
_CHANGE_RE = re_cache.compile(
    r"(?<![\w-])(?:now|no longer|anymore|moved|migrated|switched|upgraded|downgraded|bumped|"
    r"raised|lowered|increased|reduced|resized|renamed|replaced|changed|instead|from now on|"
    r"cut to|down to|extended|shortened|postponed|pushed back|brought forward|slipped|"
    r"since|(?<!last )updated|ahora|ya|ya no|pasa a|pasó a|cambiad[oa]|cambió|movid[oa]|"
    r"sustituid[oa]|actualizad[oa]s?|actualizó|actualizamos|se mudó|"
    # hand-overs and retirements, and the Spanish past tenses of the verbs above
    r"took over|takes over|handed over|hands over|stepped (?:back|down)|last day|retired|"
    r"decommissioned|deprecated|dropped|rescheduled|delayed|revised|cambiamos|cambiaron|"
    r"the new|(?:is|are) new|from then on|meanwhile|on leave|has left|left the|"
    r"moves to|replaces|renewed|se amplía|se cambia|se jubila|desde el \d{1,2}|"
    r"onwards|taken over|pushed to|(?:is|are|was|were) back (?:up |down )?to|"
    # the present tense of a change ("APK 4.9.0 raises the buffer to 5,000"), a patch, a
    # price or a limit going up or down
    r"raises|lowers|increases|reduces|extends|shortens|bumps|patched|"
    r"(?:goes|go|went|gone) (?:up|down) to|"
    # ... and in Spanish: leaving ("deja el HUA", "se va al equipo de redes"), a successor,
    # a new goal or version ("Nueva meta de Q1", "la nueva fecha")
    r"deja (?:el|la|los|las|su|de)|se (?:va|fue) (?:a|al)|sustitut[oa]s?|"
    r"(?:el|la|los|las|su|sus) nuev[oa]s?|^nuev[oa]s?|"
    # an update received: "db-01 got the PostgreSQL 16.6 minor update"
    r"(?:got|gets|received|applied) (?:the |a |an )?(?:[\w.+-]+ ){0,3}(?:update|upgrade|patch)|"
    r"migramos|migrad[oa]s?|movimos|dejó|reemplaz(?:a|ó|ado|ada|amos)|sustituye|"
    # ... and in the first person, as someone writes down what they just did ("Actualicé k3s
    # a v1.30", "migré el bucket", "cambié el puerto")
    # (unaccented only where that is no other form: "cambie" is "que cambie")
    r"actualicé|migré|cambié|mov[ií]|sub[ií]|bajé|reemplacé|sustitu[ií]|amplié|reduje|"
    r"me mudé|"
    r"pospuest[oa]|retrasad[oa]|subimos|bajamos|ampliad[oa]|reducid[oa]|"
    # a correction said as one, moves of people and things, a return, "instead of" in
    # Spanish, and the same in French
    r"correction|corrección|relocated|recreated|scaled (?:out|up|down|in) to|"
    r"se movió|movió|se mueve|se muda|se mudan|se mudó|vuelven? a|en vez de|en lugar de|"
    r"es (?:el nuevo|la nueva)|passe à|passent à|désormais|maintenant|remplacée?s?|"
    # a rule that starts applying at some point: "Starting with 5.14, code freeze is ...",
    # "as of June", "a partir del lunes", "from next sprint"
    r"starting (?:with|from|on|in|next|this|today|tomorrow)|as of|going forward|"
    r"a partir de|en adelante|from (?:next|this) (?:week|month|sprint|release|year|quarter)|"
    # "from June", "from 24 June"
    r"from (?:(?:the )?\d{1,2}(?:st|nd|rd|th)? (?:of )?)?(?:january|february|march|april|may"
    r"|june|july|august|september|october|november|december)|"
    r"from (?:monday|tuesday|wednesday|thursday|friday)|desde (?:enero|febrero|marzo|abril"
    r"|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre|el lunes|el martes"
    r"|el miércoles|el jueves|el viernes))(?![\w-])",
    re.IGNORECASE,
)


def tells_change(text: str) -> bool:
    """Whether a memory says that something changed (read from its first 2,000 characters)."""
    return bool(_CHANGE_RE.search(text[:2000]))


# verbs any question about before uses ("what did we use", "what did we run"), not its subject
_PLAIN_VERBS = frozenset(terms("use used using have had get got went run ran do did make made"))

EARLIER_SCORE = 0.5  # an earlier memory must score this share of the leader
DOCUMENT_EARLIER_SCORE, EARLIER_WINDOW = 0.3, 10  # ... when a stored document leads
EARLIER_SUBJECT = 0.6  # ... and hold this share of the subject words the leader holds
SHAPE_EARLIER_SCORE = 0.3  # ... or this share when it holds the shape of answer asked


def prefer_earlier(
    ranked: list,
    query,
    full_idf: dict,
    answers_shape: Callable[[Candidate], bool] | None = None,
) -> list:
    """A question about an earlier state ("before the move", "originally") is answered by a
    memory dated before the one that leads: the leader usually tells of the change, the
    state before it is an older memory about the same subject (most of the asked words the leader holds)."""
    if len(ranked) < 2 or getattr(ranked[0], "pinned", False):
        return ranked
    lead = ranked[0]
    lead_date = lead.ref.get("date") or ""
    # "what was the Grafana address before we put it behind SSO": the words after the cue
    # name the change (which only the newer memory tells of); the subject comes before it
    cue = history_cue_at(query.text)
    head = set(terms(query.text[:cue])) if cue > 0 else set(query.terms)
    matched = [t for t in query.terms if t in lead.matched]
    asked = [t for t in matched if t in head] or matched  # "the original date of X"
    if not asked or not lead_date:
        return ranked
    # a stored document (a design doc, a postmortem) tells of the change at length; the state
    # before it is usually a short note the agent saved, which scores well below a long text
    from_document = not saved_memory(lead)
    floor = (DOCUMENT_EARLIER_SCORE if from_document else EARLIER_SCORE) * max(lead.adjusted, 1e-9)
    window = EARLIER_WINDOW if from_document else RESTATE_WINDOW
    subject = math.fsum(full_idf.get(t, 0.0) for t in asked)

    def about_subject(cand) -> bool:
        held = math.fsum(full_idf.get(t, 0.0) for t in asked if t in cand.matched)
        return held >= EARLIER_SUBJECT * subject

    # an older memory holding the shape asked for ("Dagster 1.6.9 runs on ...") is the state
    # before the change though it shares fewer words with the question than the change does
    shape_floor = SHAPE_EARLIER_SCORE * max(lead.adjusted, 1e-9)
    older = [
        c
        for c in ranked[1:window]
        if (
            c.adjusted >= floor
            or (answers_shape is not None and c.adjusted >= shape_floor and answers_shape(c))
        )
        and (c.ref.get("date") or "") < lead_date
        and (not from_document or saved_memory(c))
        and about_subject(c)
        and c.ref.get("project") == lead.ref.get("project")
        and not _same_document(c, lead)
    ]
    if not older:
        return ranked
    # "which provider sent the reminders before we switched to Zalo?": what the words after
    # the cue name is the state after the change, so an older memory already naming it
    # ("reminders now go through Zalo") tells of the change; the one before it does not
    after = subject_terms(query.text[cue:]) if cue > 0 else frozenset()
    older = [c for c in older if not after & c.matched] or older
    chosen = max(older, key=lambda c: c.adjusted)
    return [chosen] + [c for c in ranked if c is not chosen]


EARLIER_DESCENT = 10  # older memories read for the state before a change the leader tells of


def find_earlier(
    ranked: list,
    query,
    full_idf: dict,
    content_of: Callable[[Candidate], str],
    descend: Callable[[dict[str, float], Callable[[dict], bool]], list],
    rarity: Callable[[set[str]], dict[str, float]] | None = None,
) -> list:
    """A question about before whose leader tells of the change ("Redis moved to ElastiCache
    in May") and no older memory among the leading ones: the state before it is an older
    memory about the subject, which ranks far below the memories about the change. One more
    descent, for the subject's words (those before the history cue, "what was the Redis
    host"), among saved memories of the same project dated before the leader; the best one
    holding what the question names and sharing the change's other words answers, the
    leader follows as what changed."""
    if not ranked or getattr(ranked[0], "pinned", False):
        return ranked
    lead = ranked[0]
    lead_date = lead.ref.get("date") or ""
    # (a stored document tells of changes at length and answers "originally" itself)
    if not lead_date or not saved_memory(lead) or not tells_change(content_of(lead)):
        return ranked
    cue = history_cue_at(query.text)
    head = set(terms(query.text[:cue])) if cue > 0 else set()
    subject = {t: full_idf[t] for t in query.terms if t in head and full_idf.get(t, 0.0) > 0}
    # "what did we use for paging before ...": the verb is no part of the subject
    subject = {t: w for t, w in subject.items() if t not in _PLAIN_VERBS} or subject
    if not subject:
        return ranked

    def earlier(ref: dict) -> bool:
        return (
            (ref.get("date") or "") < lead_date
            and (ref.get("source") or "memory") == "memory"
            and ref.get("project") == lead.ref.get("project")
        )

    # what the question names ("Redis") must be there; the thing asked of it ("host") is often
    # only shown ("redis-01.rf.internal"), so the other words need not be
    # ("lobbyd", spelled as no name, is the subject's rarest word)
    # (only words some earlier memory holds: "NetCDFs" also gives "cd" and "fs", which none does)
    reached = descend(subject, earlier)
    held = set().union(*(set(c.ref.get("tf") or ()) for c in reached)) if reached else set()
    named = {t for _, words in named_terms(query.text[:cue]) for t in words} & set(subject)
    named = (named & held) if named else {max(subject, key=lambda t: (subject[t], t))}
    found = [c for c in reached if named and named <= set(c.ref.get("tf") or ())]
    # the state before the change shares the change's other words (its service, its host
    # names), not just the question's; each weighed by its rarity ("production" says little)
    words = set(lead.ref.get("tf") or ()).union(*(set(c.ref.get("tf") or ()) for c in found))
    weights = rarity(words) if rarity and found else {}
    for cand in found:
        if _overlap(lead, cand, set(query.all_terms), weights) < HISTORY_OVERLAP:
            continue
        present = next((c for c in ranked if c.ref["id"] == cand.ref["id"]), None)
        older = present or cand
        stand_in(older, lead)
        lead.restated = True  # the change, listed after the state it changed: no rival
        return [older] + [c for c in ranked if c is not older]
    return ranked
