"""What the hooks put in front of the agent: a brief at session start, memories per prompt.

Both are plain text wrapped in ``<ihmt-memory …>`` tags (the usage rules in
templates/memory-instructions.md tell the agent what they are), dated, and bounded in tokens.
Both say nothing rather than something weak. A prompt that names someone or something
("When did Caroline move?", "what did we decide about Postgres?") gets the memories that are
about what it names — the memory's speaker, or the name in its words — and that hold enough of
the prompt's other words, and only when no memory about something else holds those words
better (then the prompt is asking about the wrong person or thing, and a block would mislead);
in a larger store a fitted gate (named_gate.py) overrules those two floors when it is clear;
the best memory by the whole prompt joins them when it passes the gate below and holds some of
those words (the name may be a product's, "Heroku", and the answer a person's). A prompt that
names nothing gets memories when a fitted gate (prompt_gate.py) judges that the search's top
four likely show its answer; without fitted trees, when the best one covers a fair share of it
(a question about how things are: "which python version do we target?"), and a request for
work ("fix this test", "move staging to Postgres 17") needs a memory covering most of it. A
prompt whose context comes before its question is asked again by the question alone; when
neither reading is confident but both lead with one memory, that memory is shown. A prompt
that asks again what the agent once asked gets the user's reply however little of the prompt
the reply's words cover ("which MSRV do we promise in the readme?" and "1.80", kept with the
agent's "Which MSRV should the README promise?").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .. import re_cache
from ..text.clean import one_line
from ..text.reply import own_words, split_reply
from ..text.tokenize import terms
from ..text.tokens import estimate_tokens
from ..vcs.project import same_project
from . import named_gate, prompt_gate

PROMPT_TOKENS = 400
BRIEF_TOKENS = 600
BRIEF_ANSWER_SHARE = 200  # tokens of the brief kept for the user's answers when there are some
BRIEF_FRAME = 12  # the block's tags and the line breaks _wrap adds
MIN_PROMPT_WORDS = 2
MAX_PROMPT_CHARS = 2000
# without the fitted gate (prompt_gate.py), a prompt that names nothing gets memories only
# above both; they still choose the memory that joins a named prompt's (calibrated on
# benchmarks/hooks.py and on the first three sets of benchmarks/hook_sessions.py)
RECALL_CONFIDENCE = 0.3
RECALL_COVERAGE = 0.25
STRICT_CONFIDENCE = 0.5  # ... for a request, or when the best memory holds one prompt word
STRICT_COVERAGE = 0.5
TOPIC_COVERAGE = 0.5  # a question's one shared word must carry this share of it
# up to four memories once the best qualifies (hook sessions, 41 sets: answer shown 663 -> 693
# of 1,222 with four, 699 with five; median block 130 -> 167 tokens with four, 205 with five)
PROMPT_HITS = 4
# a prompt asking again what the agent once asked gets the reply whatever its confidence: the
# agent's question it keeps holds this share of the prompt's words by weight (calibrated on
# benchmarks/hook_sessions.py)
ASKED_BEFORE_SHARE = 0.3
# a prompt that names something: a memory about it must hold this share of the weight of the
# prompt's other words (each weighted by its rarity), and no memory about something else may
# hold more (calibrated on benchmarks/hooks.py)
NAMED_COVERAGE = 0.3
# memories about a name are short and specific (one turn, one fact): up to ten fit the
# budget, and the answer is often not the best-matching of them ("When did Caroline go
# camping?" finds her other outings first)
NAMED_HITS = 10
NAMED_EXTRA = 0.2  # once one memory qualifies, others about the name need this share
NAMED_SCAN = 20  # memories looked at to find the ones about the name and the ones not
# the fitted probability from which the gates take a learned NOT FOUND as one (_gates_decide)
GATES_NO_ANSWER = 0.6
_WORD = re_cache.compile(r"[^\W\d_][\w'’-]*")
# a name is written Capitalised ("Caroline", "Harbourside", "O'Neil", "Jean-Luc"), not in
# capitals ("SMS") or with capitals inside ("CarrierEvent")
_NAME_SHAPE = re_cache.compile(r"^[^\W\d_][^\W\d_A-Z]*(?:['’-][^\W\d_][^\W\d_A-Z]*)*$")
_SPEAKER = re_cache.compile(r"^\s*([A-Z][\w'.-]{1,30}(?: [A-Z][\w'.-]{1,30})?):\s")
# capitalised words that start questions and requests, not names
_NOT_NAMES = frozenset(
    "what when where who whom whose how why which did does do is are was were can could would "
    "should will has have had i i'm i've i'd the a an in on at of for to and or but if it this "
    "that these those my me we our you your please ok okay yes no hi hey thanks".split()
) | frozenset(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday today yesterday tomorrow".split()
)
# ... nor Spanish question words, articles and pronouns ("¿Cómo …?", "La Muela", "Le quiero …")
_NOT_NAMES |= frozenset(
    "qué que cómo como cuándo cuando dónde donde quién quien cuál cual cuánto cuántos cuánta "
    "cuántas por para la el los las lo le les un una de del y en con mi nuestro nuestra".split()
)
# where a sentence starts: the prompt's start, or after a full stop, a question or an
# exclamation mark (and an opening ¿ or ¡)
_SENTENCE_START = re_cache.compile(r"(?:^|[.?!]\s+)[¿¡\"'(]*\s*$")
# a date in the prompt limits when, it is not a word the memory holds (memories are dated)
_DATE_WORDS = re_cache.compile(
    r"^(\d+(st|nd|rd|th)?|st|nd|rd|th|jan\w*|feb\w*|mar\w*|apr\w*|may|jun\w*|"
    r"jul\w*|aug\w*|sep\w*|oct\w*|nov\w*|dec\w*|year|month|week)$"
)
# a prompt's last clause that asks something, after its context ("…, which tag do the shared
# runners use?"): split at punctuation followed by a space, or at a dash between spaces
_CLAUSE_BREAK = re_cache.compile(r"(?<=[,.;:!?])\s+|\s+[-–—]\s+")
_ASKS = re_cache.compile(
    r"(which|what|whats|what's|where|wheres|where's|when|who|whos|who's|whom|whose|how|why|"
    r"is|are|was|were|do|does|did|can|could|should|any|anything|remind|"
    # French: "quel port …", "c'est quoi …", "est-ce qu'on …", "rappelle-moi …"
    r"quel|quelle|quels|quelles|qui|quoi|o[ùu]|quand|comment|combien|pourquoi|est-ce|"
    r"c'est quoi|c'est qui|rappelle-moi|on (?:utilise|a|est)\b.*\?$)\b",
    re.I,
)
# Spanish questions open with "¿" or an accented question word ("cuál es …", "¿qué JDK …",
# "recuérdame …"); unaccented "que", "como", "cuando" start ordinary clauses too
_ASKS_SPANISH = re_cache.compile(
    r"¿|(?:qué|cuál|cuáles|dónde|adónde|cuándo|quién|quiénes|cómo|cuánto|cuánta|cuántos"
    r"|cuántas|recuérdame|recuerdame)\b",
    re.I,
)
_LAST_SENTENCE = re_cache.compile(r"(?<=[.!?])\s+(?=[A-Z])")
# "ok to …?", "fine if I …?": whether something is acceptable is the question itself
_ASKS_WHETHER_OK = re_cache.compile(r"(to|if)\b", re.I)
_WH = re_cache.compile(
    r"(which|what|whats|what's|where|when|who|whose|how|why|remind|"
    r"quel|quelle|quels|quelles|qui|quoi|o[ùu]|quand|comment|combien|pourquoi|rappelle-moi)\b",
    re.I,
)
MIN_CLAUSE_TERMS = 2
# words of doing the work, not of what memory holds: "how do i fix it" asks about nothing saved
_WORK_WORDS = frozenset(terms("fix fixing add make change try help explain debug look check mean"))
# ... and a request made only of them and of running the tests names nothing memory holds
_DOING_WORDS = _WORK_WORDS | frozenset(terms("run rerun test tests again"))
BRIEF_FACTS = 12
BRIEF_DECISIONS = 8
BRIEF_ANSWERS = 12
BRIEF_SCAN = 300  # most recent saved memories looked at for the brief


def _fits(lines: list[str], budget: int) -> list[str]:
    out, used = [], 0
    for line in lines:
        cost = estimate_tokens(line) + 1
        if used + cost > budget:
            break
        out.append(line)
        used += cost
    return out


def _wrap(kind: str, body: list[str], budget: int) -> str:
    head = f'<ihmt-memory kind="{kind}">'
    tail = "</ihmt-memory>"
    kept = _fits(body, budget - estimate_tokens(head + tail) - 2)
    return "\n".join([head, *kept, tail]) if kept else ""


def prompt_names(text: str) -> list[str]:
    """The names a prompt mentions: capitalised words that are not its first word (unless
    possessive: "Jon's store") and not question or request words. "Caroline's" -> "Caroline".
    An acronym or an identifier ("SMS", "CI", "CREATE", "CarrierEvent") is a word of the
    topic, not whom or what the prompt is about: "my PR title" is not a question about a PR."""
    names = []
    for match in _WORD.finditer(text):
        word = match.group()
        bare = re.sub(r"['’]s$", "", word)
        if not bare[:1].isupper() or bare.lower() in _NOT_NAMES:
            continue
        if not _NAME_SHAPE.match(bare):
            continue
        if bare == word and _SENTENCE_START.search(text, 0, match.start()):
            # "Fix the test", "…? Someone wants alpine", "¿Cómo …?": a sentence's first word is
            # capitalised anyway
            continue
        if bare not in names:
            names.append(bare)
    return names


def _speaker(content: str) -> str:
    match = _SPEAKER.match(content)
    return match.group(1).lower() if match else ""


def _names_match(name: str, speaker: str) -> bool:
    """A short name names the speaker: "Mel" for "Melanie", "Jon" for "Jon Smith"."""
    name = name.lower()
    return bool(speaker) and (speaker.startswith(name) or name.startswith(speaker.split()[0]))


def is_about(content: str, names: list[str]) -> bool:
    """Whether a memory is about what the prompt names: a memory with a speaker label
    ("Caroline: …") is about its speaker; every name must be the speaker or in its own words
    (not in the question it answers, which someone else asked)."""
    content = own_words(content)
    speaker = _speaker(content)
    if speaker and not any(_names_match(n, speaker) for n in names):
        return False
    lowered = content.lower()
    return all(
        _names_match(n, speaker) or re.search(rf"\b{re.escape(n.lower())}\b", lowered)
        for n in names
    )


def _mentions(content: str, names: list[str]) -> bool:
    lowered = own_words(content).lower()
    return any(re.search(rf"\b{re.escape(n.lower())}\b", lowered) for n in names)


def _named_hits(
    result,
    text: str,
    names: list[str],
    weights: dict[str, float],
    nearby: list = (),
    unknown: set[str] = frozenset(),
) -> list:
    """The hits about the prompt's names, when they likely hold what it asks, or []. The best
    memory about the name must hold its other words in its own words: the question a
    captured answer keeps finds it, but is someone else's words about someone else. The
    others about the name come along when they hold some, and so does the first of ``nearby``
    (what the prompt would get if it named nothing) that holds as much: a Capitalised word
    may name a product, not the person who holds the answer ("who signs off on a paid Heroku
    add-on?" and "Gordon Pike approves paid add-ons").
    Whether the block is shown: two floors (the best memory about the name holds a fair
    share of the prompt's other words, and no memory about something else holds more: else
    the wrong person was asked about), overruled by the fitted gate of named_gate.py when
    it is clear either way. ``weights``: each word's rarity; "the charity race" tells the memory apart,
    "did" and "realize" hardly do. ``unknown``: the words no memory holds."""
    from .patterns import REQUEST

    name_terms = {t for n in names for t in terms(n)}
    rest = [
        t for t in dict.fromkeys(terms(text)) if t not in name_terms and not _DATE_WORDS.match(t)
    ]
    total = sum(weights.get(t, 1.0) for t in rest)
    own_terms: dict[str, set[str]] = {}

    def own(hit) -> set[str]:
        if hit.leaf_id not in own_terms:
            own_terms[hit.leaf_id] = set(terms(own_words(hit.content)))
        return own_terms[hit.leaf_id]

    def share(hit, in_own_words: bool = False) -> float:
        if total <= 0:
            return 1.0  # a prompt of names only ("When was Jon in Rome?") asks about them
        held = set(hit.matched_terms) & set(rest)
        if in_own_words and held:
            held &= own(hit)
        return sum(weights.get(t, 1.0) for t in held) / total

    about = [h for h in result.hits if is_about(h.content, names)]
    if not about:
        return []
    others = [h for h in result.hits if h not in about and not _mentions(h.content, names)]
    elsewhere = max((share(h) for h in others), default=0.0)
    # LoCoMo's friends answer each other by name: "Hey James, ..." told by John is about John
    spoken_by_others = [h for h in result.hits if h not in about and _speaker(h.content)]
    other_speaker = max((share(h) for h in spoken_by_others), default=0.0)
    lead = max(about, key=lambda h: share(h, in_own_words=True))
    lead_own = share(lead, in_own_words=True)
    rule = lead_own >= NAMED_COVERAGE and lead_own >= elsewhere
    picked = [h for h in about[:NAMED_HITS] if h is lead or share(h) >= NAMED_EXTRA]
    picked = picked if lead in picked else [lead, *picked[: NAMED_HITS - 1]]
    block = picked + [h for h in nearby if h not in picked and share(h) >= NAMED_EXTRA][:1]
    held = set().union(*((set(h.matched_terms) | own(h)) & set(rest) for h in block))
    x = named_gate.features(
        block,
        result,
        lead,
        rule=rule,
        lead_share=share(lead),
        lead_own_share=lead_own,
        elsewhere=elsewhere,
        other_speaker=other_speaker,
        about=len(about),
        held_together=held,
        rest=rest,
        weights=weights,
        unknown=unknown,
        names=len(names),
        asks=asks(text),
        request=bool(REQUEST.search(after_acknowledgement(text))),
        length=len(text.split()),
        speaks=any(_names_match(n, _speaker(own_words(lead.content))) for n in names),
    )
    fitted = result.total_leaves >= named_gate.MIN_MEMORIES
    chance = named_gate.probability(x, result.meaning) if fitted else None
    return block if named_gate.shows(rule, chance) else []


def agents_question(content: str) -> str:
    """The agent's question a captured reply keeps ("" for anything else). Another person's
    question (``in reply to Melanie: …``) is theirs, not the agent's."""
    _, question = split_reply(content)
    return question if question and own_words(content) == content else ""


def asks_again(question: str, text: str, weights: dict[str, float]) -> bool:
    """Whether the prompt asks again the agent's ``question`` that a reply answered, so the
    reply answers it however little of the prompt it covers: the question holds a fair share
    of the prompt's words by weight, two at least ("which MSRV do we promise in the readme?"
    and "Which MSRV should the README promise?" — "1.80"). Not an answer to the agent, not a
    request for work."""
    from .patterns import REQUEST

    if not question or replies_to_agent(text) or REQUEST.search(after_acknowledgement(text)):
        return False
    asked = set(terms(text))
    shared = asked & set(terms(question))
    total = sum(weights.get(t, 1.0) for t in asked)
    if len(shared) < MIN_CLAUSE_TERMS or total <= 0:
        return False
    return sum(weights.get(t, 1.0) for t in shared) / total >= ASKED_BEFORE_SHARE


def _nothing_to_recall(text: str) -> bool:
    """A reply to the agent ("yes do it", "ok thanks"), or a request made only of doing the
    work ("run the tests again"): no memory is asked for, whatever the search found."""
    from .patterns import REQUEST

    if replies_to_agent(text):
        return True
    return bool(REQUEST.search(after_acknowledgement(text))) and not set(terms(text)) - _DOING_WORDS


def _confident_hits(result, text: str, again: bool, learned: bool | None = None) -> list:
    """The memories to show for a prompt that names nothing (module doc); ``again``: the best
    one is a reply to the agent's question the prompt asks again (``asks_again``);
    ``learned``: what the fitted gate (prompt_gate.py) says, None to use the fixed floors."""
    from .patterns import REQUEST  # here: most prompts never get this far

    best = result.best
    if _nothing_to_recall(text):
        return []
    request = REQUEST.search(after_acknowledgement(text))
    if learned is not None:
        return result.hits[:PROMPT_HITS] if learned else []
    # a question about how things are ("which python version do we target?") gets memories
    # that cover a quarter of it; a request for work ("commit the changes", "fix this
    # test"), or a memory holding one word of a prompt that asks nothing ("the build is
    # slow"), needs the strict gate. A question's one shared word is its topic when it
    # carries half the question ("who handles the .deb?" and "the deb ones go to kavya"),
    # not a stray "fix" or "handles".
    topic = asks(text) and best.coverage >= TOPIC_COVERAGE
    # with the semantic extra, a memory the model vouches for by meaning is no stray match:
    # it covers the question as a fair share of its words would, and one so close in meaning
    # that its cosine answers alone needs no second shared word ("what pet do I own?" and
    # "I adopted a grey cat called Miso")
    vouched = best.leaf_id in result.meaning_answers
    close = best.leaf_id in result.meaning_alone
    one_word = len(best.matched_terms) < 2 and not topic and not close
    strict = one_word or request
    floor_confidence = STRICT_CONFIDENCE if strict else RECALL_CONFIDENCE
    floor_coverage = STRICT_COVERAGE if strict else RECALL_COVERAGE
    # a request still needs the strict share of words
    coverage = max(best.coverage, RECALL_COVERAGE) if vouched else best.coverage
    if not again and (result.confidence < floor_confidence or coverage < floor_coverage):
        return []
    # the answer is often the second or third match ("which branch deploys to staging?" finds
    # the prod branch first): once the best one qualifies, the next ones come along
    return result.hits[:PROMPT_HITS]


def after_acknowledgement(text: str) -> str:
    """The prompt after an opening "ok," / "thanks," / "sure," (the whole prompt when it
    has none): "sure, can you also run the linter?" asks for work all the same."""
    from .patterns import ACK

    match = ACK.search(text)
    return text[match.end() :].lstrip(" ,.;:!-–—") if match else text


def replies_to_agent(text: str) -> bool:
    """Whether a prompt answers the agent ("yes do it", "thanks, commit it", "ok looks
    good") rather than asks something: it opens with an acknowledgement, that is not what
    it asks about ("ok to force-unwrap the id?", "ok if I leave a print()?"), and what
    follows it asks nothing ("ok, which branch deploys to staging?" asks)."""
    rest = after_acknowledgement(text)
    if rest == text:  # no acknowledgement opens it
        return False
    if _ASKS_WHETHER_OK.match(rest):
        return False
    # "do it" after "yes" is an order; a question after "ok" has its mark or a wh-word
    return not ("?" in rest or _WH.match(rest))


def asks(text: str) -> bool:
    """Whether a prompt is a question: it ends with a question mark or opens with a
    question word ("whats the staging url format", "remind me who signs off")."""
    text = text.strip()
    return text.endswith("?") or bool(_ASKS.match(text))


def question_clause(text: str, wider: bool = False) -> str:
    """The question a prompt ends with when context comes first: "installing torch on the gpu
    box, which cuda toolkit should it be built against?" -> "which cuda toolkit should it be
    built against?". "" when the prompt is a single clause, asks nothing, or asks for work.
    ``wider``: a question in Spanish too ("voy a configurar un CI nuevo, ¿qué JDK necesita el
    backend?")."""
    parts = _CLAUSE_BREAK.split(text.strip())
    for i in range(len(parts) - 1, 0, -1):
        if _ASKS.match(parts[i]) or (wider and _ASKS_SPANISH.match(parts[i])):
            return _asking(" ".join(parts[i:]))
    return ""


def leading_question(text: str, unknown: Sequence[str]) -> str:
    """The question a prompt opens with when only its context, after it, names something no
    memory mentions: "¿qué versión de Postgres tiene producción? necesito saber para un
    pg_dump" -> its question, which the pg_dump turned away as a whole. "" otherwise (a
    prompt asking twice, or whose question names the unknown thing itself)."""
    parts = _CLAUSE_BREAK.split(text.strip())
    if not unknown or not (_ASKS.match(parts[0]) or _ASKS_SPANISH.match(parts[0])):
        return ""
    for i, part in enumerate(parts[:-1]):
        if part.endswith("?"):
            question, rest = " ".join(parts[: i + 1]), " ".join(parts[i + 1 :])
            if "?" in rest:
                return ""
            if any(name.casefold() in question.casefold() for name in unknown):
                return ""
            return _asking(question)
    return ""


def _asking(clause: str) -> str:
    """``clause`` when it asks about something memory could hold, else ""."""
    from .patterns import REQUEST

    # "…, can you look?" asks for work, not about what memory holds; "…, what's going on?"
    # asks nothing memory could hold (one word left once stop words go)
    subject = set(terms(clause)) - _WORK_WORDS
    if len(subject) < MIN_CLAUSE_TERMS or REQUEST.search(clause):
        return ""
    return clause


def _agreed(whole, clause, text: str) -> list:
    """The memory both the whole prompt and its closing question put first, when neither
    search is confident alone: two readings of the prompt agreeing on one memory ("sizing
    retention for the telemetry table, how often does an idle device report?" and "how
    often does an idle device report?" both lead with "every 5 min normally, 30s while a
    zone is watering"). A request for work, or a reply to the agent, gets nothing."""
    from .patterns import REQUEST

    if whole.best is None or clause.best is None or whole.not_found or clause.not_found:
        return []
    if whole.best.leaf_id != clause.best.leaf_id or replies_to_agent(text):
        return []
    if REQUEST.search(after_acknowledgement(text)):
        return []
    return [whole.best]


def _hits_for(memory, text: str, project: str):
    """(the search result, the memories to show) for one text; hits [] when none qualifies."""
    result = memory.search(text, top_k=NAMED_SCAN, project=project or None)
    if _gates_decide(result):
        result.not_found = False
        result.reason_code, result.reason_params, result.reason = "", {}, ""
    if result.best is None or result.not_found:
        return result, []
    names = prompt_names(text)
    question = agents_question(result.best.content)
    # a word no memory holds weighs as one a single memory holds: it tells no memory apart,
    # and "went" for "go" must not outweigh the words the memories do hold
    weights = memory.term_weights(text, min_df=1) if names or question else {}
    again = asks_again(question, text, weights)
    if names:
        nearby = _confident_hits(result, text, again)
        unknown = memory.unknown_terms(text)
        hits = _named_hits(result, text, names, weights, nearby, unknown)
        # no memory about the name qualified ("which Snowflake role does CI run as?": the
        # reply "CI_TRANSFORMER" holds little of the prompt), but the prompt asks the agent's
        # question again
        return result, hits or ([result.best] if again else [])
    if _nothing_to_recall(text):  # most prompts: the gate's lookups would be wasted
        return result, []
    learned = _learned_gate(memory, result, text, question, again, weights)
    return result, _confident_hits(result, text, again, learned)


def _gates_decide(result) -> bool:
    """True for a learned NOT FOUND (search/unanswered.py) judged under ``GATES_NO_ANSWER``:
    the gates below were fitted on searches where that judge decided from 0.6, and an
    agent's question now gets NOT FOUND from 0.5; the gates weigh such a prompt as the BEST
    it was (on LoCoMo the lower threshold cost the blocks evidence and kept out no
    unrelated prompt)."""
    chance = (result.reason_params or {}).get("probability", 1.0)
    return (
        result.not_found
        and result.reason_code == "no_answer"
        and bool(result.hits)
        and chance < GATES_NO_ANSWER
    )


def _learned_gate(
    memory, result, text: str, question: str, again: bool, weights: dict[str, float]
) -> bool | None:
    """Whether the fitted gate (prompt_gate.py) shows memories for a prompt that names
    nothing; None when no forest is shipped for the search's mode or the store is smaller
    than the ones it was fitted on. ``weights``: the prompt's word rarities when the caller
    has them already (min_df 1), else {}."""
    from .patterns import REQUEST

    if result.total_leaves < prompt_gate.MIN_MEMORIES:
        return None
    words = [t for t in dict.fromkeys(terms(text)) if not _DATE_WORDS.match(t)]
    x = prompt_gate.features(
        result,
        text,
        words,
        weights or memory.term_weights(text, min_df=1),
        memory.unknown_terms(text),
        asks=asks(text),
        request=bool(REQUEST.search(after_acknowledgement(text))),
        replies=replies_to_agent(text),
        has_clause=bool(question_clause(text)),
        keeps_question=bool(question),
        asked_again=again,
    )
    chance = prompt_gate.probability(x, result.meaning)
    return None if chance is None else chance >= prompt_gate.THRESHOLD


def prompt_recall(memory, prompt: str, project: str = "") -> str:
    """Memories that answer this prompt, or "" when none does confidently (module doc). A
    prompt whose context words drown its question ("sizing retention for the telemetry
    table, how often does an idle device report?") is asked again by its question alone."""
    if not isinstance(prompt, str):
        return ""
    text = " ".join(prompt.split())[:MAX_PROMPT_CHARS]
    if len(text.split()) < MIN_PROMPT_WORDS:
        return ""
    result, hits = _hits_for(memory, text, project)
    clause = question_clause(text, wider=True) if not hits else ""
    if not hits and not clause and result.reason_code == "unknown_name":
        clause = leading_question(text, result.reason_params.get("names") or [])
    if clause:
        whole = result
        result, hits = _hits_for(memory, clause, project)
        hits = hits or _agreed(whole, result, text)
    if not hits:
        return ""
    body = []
    if result.ambiguous and result.reason_code == "rivals":
        # a learned judgement on an agent's question, weaker on a prompt that asks nothing:
        # the memories are shown, the agent checks which one the user means
        body.append("NOTE: these memories may answer it about different things; check which.")
    elif result.ambiguous:
        body.append(
            "AMBIGUOUS: several memories answer this differently; ask the user which one is meant."
        )
    for hit in hits:
        mark = " [OUTDATED]" if hit.outdated else ""
        body.append(f"- {hit.timestamp[:10]}{mark}: {one_line(hit.content, 600)}")
        body += [f"  {one_line(n, 300)}" for n in hit.notices[:2]]
    body += [f"NOTICE: {one_line(n, 300)}" for n in result.notices[:2]]
    return _wrap("recall", body, PROMPT_TOKENS)


def _mine(leaf_project: str, project: str) -> bool:
    return not leaf_project or bool(project) and same_project(leaf_project, project)


def session_brief(memory, project: str = "") -> str:
    """Facts in force, recent decisions and open corrections for this project, then the user's
    recent answers to the agent's questions, dated; "" when memory holds nothing of the
    kind."""
    from .patterns import CORRECTION, DECISION, RULE

    leaves = memory.recent_memories(BRIEF_SCAN)
    foreign = {leaf.leaf_id for leaf in leaves if not _mine(leaf.project, project)}
    facts = []
    for fact in sorted(memory.current_facts().values(), key=lambda f: f.timestamp, reverse=True):
        if fact.source_leaf in foreign:
            continue
        if fact.source_leaf and fact.source_leaf not in {x.leaf_id for x in leaves}:
            leaf = memory.leaf(fact.source_leaf)
            if leaf is not None and not _mine(leaf.project, project):
                continue
        facts.append(f"- {fact.timestamp[:10]}: {fact.subject} {fact.attribute} = {fact.value}")
        if len(facts) >= BRIEF_FACTS:
            break
    decisions = []
    for leaf in leaves:
        if leaf.leaf_id in foreign:
            continue
        if DECISION.search(leaf.content) or RULE.search(leaf.content):
            decisions.append(f"- {leaf.timestamp[:10]}: {one_line(leaf.content, 300)}")
        if len(decisions) >= BRIEF_DECISIONS:
            break
    corrections = []
    for fix in memory.corrections()[-5:]:
        if fix.old_id in foreign or fix.new_id in foreign:
            continue
        new = memory.leaf(fix.new_id)
        if new is not None:
            corrections.append(f"- {fix.created[:10]}: now {one_line(new.content, 240)}")
    for change in memory.contradictions()[-3:]:
        corrections.append(f"- {one_line(change.notice(), 240)}")
    corrections += [
        f"- {leaf.timestamp[:10]}: {one_line(leaf.content, 240)}"
        for leaf in leaves[:BRIEF_SCAN]
        if leaf.leaf_id not in foreign and CORRECTION.search(leaf.content)
    ][:3]
    # the user's replies to the agent's questions are the setup in short ("Which branch
    # deploys to staging?" - "develop"); newest first, those not corrected since, last in
    # the brief, with a share of the budget of their own
    corrected = {fix.old_id for fix in memory.corrections()}
    listed = {line for line in decisions}
    answers = []
    for leaf in leaves:
        if leaf.leaf_id in foreign or leaf.leaf_id in corrected:
            continue
        answer, question = split_reply(leaf.content)
        if not question or own_words(leaf.content) != leaf.content:
            continue  # not a reply, or a reply to another person
        # the question itself, without the sentence before it that says what "it" is
        question = _LAST_SENTENCE.split(question.strip())[-1]
        line = f"- {leaf.timestamp[:10]}: {one_line(question, 140)} {one_line(answer, 200)}"
        if f"- {leaf.timestamp[:10]}: {one_line(leaf.content, 300)}" not in listed:
            answers.append(line)
        if len(answers) >= BRIEF_ANSWERS:
            break
    body = []
    if facts:
        body += ["Facts in force:", *facts]
    if decisions:
        body += ["Recent decisions and rules:", *decisions]
    if corrections:
        body += ["Corrections:", *corrections]
    if not body and not answers:
        return ""
    where = f" for {project}" if project else ""
    body.insert(0, f"Long-term memory{where} (search_memory finds more):")
    if answers:
        # long decisions and corrections must not crowd out the short answers: they keep
        # at least a share of the budget, and the sections before them what is left
        answers.insert(0, "Answers the user gave the agent (question, then answer):")
        reserve = min(sum(estimate_tokens(a) + 1 for a in answers), BRIEF_ANSWER_SHARE)
        body = _fits(body, BRIEF_TOKENS - reserve - BRIEF_FRAME)
        body += answers
    return _wrap("session-brief", body, BRIEF_TOKENS)
