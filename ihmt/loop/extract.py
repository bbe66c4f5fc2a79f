"""What in a session a later session needs: the heuristic extractor.

Kept from the user: statements (not questions, not requests to do something now) that say
something durable — a fact about themselves, their setup or their project, a preference, a
decision, a correction. "fix this test" or "can you run the linter?" is work for this
session, not memory. A request is kept when it sets a rule ("always …", "never …", "from now
on …", "prefer …").

Kept from the agent: its explanation of a decision, when the user's next message accepts it
("ok", "sounds good", "yes, do that") or opens by naming what it proposed ("BrasilAPI.").

Each kept piece becomes one memory: the kept sentences of one message, dated by the message.
When the message answers a question someone else asked just before (the agent's "which cache
should we use?", or another speaker's in a conversation), the question is kept with it
(``reply.py``): "Redis, on cache-01" is found by what it answers.
A correction ("actually …", "no, it's …", "correction: …") is marked, so capture saves it
with ``replaces`` and the time machinery flags the old memory OUTDATED.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import re_cache
from ..text.reply import with_question
from .options import offered, picked, recommended
from .patterns import ACK, CORRECTION, DECISION, REQUEST, RULE
from .transcript import Turn

MIN_WORDS = 4
MAX_MEMORY_CHARS = 1200

# a sentence ends at . ! ? and a space; people typing to an agent often go on in lower case
# ("fine. can you deploy it?"), so the next one need not start with a capital, but "e.g. the",
# "vs. the" and "approx. 5" go on the same sentence
_SENTENCE = re_cache.compile(
    r"(?<=[.!?])(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\betc\.)(?<!\bapprox\.)(?<!\bcf\.)"
    r"\s+(?=[\"'(\[\w¿¡])"
    # a line break ends a sentence too (lists, one fact per line), unless the next line goes on
    # in lower case: text wrapped by hand ("Nothing is set up in the monorepo\nyet.")
    r"|\n\s*\n\s*|\n(?![ \t]*[a-z(])"
)
_REJECT = re_cache.compile(
    r"^\s*(no\b|nope|don't|do not|wait|stop|hmm|not|non\b|nan\b|attends|pas [çc]a)", re.I
)
# a request that sets something to a value is a decision a later session needs: "make it 4pm",
# "change wholesale to 40% off retail", "Make the freshness TTL 45s instead of 30s", "use
# 9464", "Use vitest, not jest". The value holds a digit, or another is named in its place.
_SETS_VALUE = re_cache.compile(
    r"^\W*(?:(?:also|and|so|ok|okay|then|pls|please)\W+)*"
    r"(?:change|make|set|switch|move|bump|raise|lower|increase|decrease|reduce|extend|use|put"
    r"|drop|cut|cap|limit|trim|shorten|double|halve|keep|bring"
    # French: "mets 45 s", "passe le TTL à 45 s", "utilise uv plutôt que conda"
    r"|mets|mettez|passe|r[èe]gle|monte|baisse|augmente|r[ée]duis|utilise|prends|garde|ajoute"
    # Spanish: "cambialo: por defecto 5", "poné 45 s", "subilo a 30", "usá 9464"
    r"|cambi[aá](?:lo|la|los|las)?|pon[eé]?(?:lo|la|los|las)?|sub[ií](?:lo|la)?|"
    r"baj[aá](?:lo|la)?|pas[aá](?:lo|la|los|las)|dej[aá](?:lo|la|los|las)|us[aá]|"
    r"aument[aá](?:lo|la)?|reduc[ií](?:lo|la)?)\b"
    # the value may follow an article ("usá el 8010 para gunicorn", "use the 2.1 image") and,
    # in Spanish, "en" ("dejalo en 30")
    r"(?=\s+(?:(?:the|a|an|each|every|el|la|los|las|un|una|le|les)\s+)?(?:[^\W\d]+\s+)?\S*\d"
    r"|:\s*[^.!?]{0,40}\d|[^.!?]{0,40}?,\s*\d"
    r"|.*(?:\b(?:to|it|at|[àa]|sur|en|under|below|above|within)\s+(?:\S+\s+){0,2}?\S*\d|\binstead of\b"
    r"|\brather than\b|\bau lieu de\b|\bplut[ôo]t que\b|\ben vez de\b|\ben lugar de\b"
    r"|,\s*(?:not|pas|no)\s+\w))",
    re.I,
)
# a choice told as an order: "go with merge, 3-day lookback", "ok go with the short code column"
_GO_WITH = re_cache.compile(
    r"^\W*(?:(?:ok|okay|yes|yeah|sure|fine|then|so|and|alright)\W+)*go with\b", re.I
)
# a value told for what it applies to: "14 days for anything in the big kit category", "5
# retries per webhook", "30 minutos por turno"
_VALUE_FOR = re_cache.compile(
    r"^\W*(?:(?:and|but|so|ok|okay|y|pero)\W+)?\d[\d.,]*\s*[^\W\d]+\s+"
    r"(?:for|per|por|para|pour|par)\s+\w",
    re.I,
)
# a value put in place of another the agent proposed: "but 15 days, not 10", "port 8443, not
# 443", "3 retries, not 5"
_VALUE_NOT_VALUE = re_cache.compile(
    r"^\W*(?:(?:but|and|so|ok|okay|then|no|nah|mais|et|non|pero|y|entonces)\W+)*"
    r"(?:[^\W\d]+\s+){0,5}\S*\d"
    r"[^,;.!?]{0,25},?\s+(?:not|pas|no)\s+(?:[^\W\d]+\s+){0,2}\S*\d",
    re.I,
)
_EXPLAINS = re_cache.compile(
    r"\b(because|so that|since|the reason|i chose|i picked|i went with|i'll use|i will use|"
    r"i decided|decided to|instead of|rather than|trade-?off|"
    # French: "parce que", "pour que", "j'ai choisi", "au lieu de", "plutôt que"
    r"parce que|pour que|puisque|la raison|j'ai choisi|j'ai pris|je vais utiliser|"
    r"j'ai d[ée]cid[ée]|au lieu de|plut[ôo]t que|compromis|"
    # Spanish: "porque", "para que", "ya que", "elegí", "en vez de", "así no necesitamos"
    r"porque|para que|ya que|la raz[oó]n|eleg[ií]|decid[ií]|en vez de|en lugar de|"
    r"as[ií] no|as[ií] (?:ten[eé]s|tenemos|queda|evitamos))\b",
    re.I,
)
# a proposal the user then accepts ("I'd cluster by (snapshot_date, store_id)", "I'd use
# 9464", "One design point: I'll key every send on `parcel_id:event_seq`", "I set
# `process.cache = 'lenient'`")
_PROPOSES = re_cache.compile(
    r"\b(i'?d|i would|i'll|i will|i've set|i set|my plan|proposal|design (point|choice)|"
    r"je propose|je proposerais|je mettrais|j'utiliserais|je partirais|je vais|j'ai mis|"
    r"j'ai configur[ée]|mon plan|proposition|"
    # Spanish: "propongo", "recomiendo", "yo usaría", "lo más seguro es", "te sugiero"
    r"propongo|propondr[ií]a|recomiendo|sugiero|yo usar[ií]a|yo har[ií]a|usar[ií]a|har[ií]a|"
    r"mi plan|mi propuesta|lo m[aá]s seguro es|lo mejor es|conviene)\b",
    re.I,
)
# a question that points back to what the sentence before it named
_POINTS_BACK = re_cache.compile(
    r"\b(it|its|it's|that|this|they|them|those|these|there|one|"
    # French: "Combien de semaines en arrière ?", "Tu veux que ça tourne à quelle heure ?"
    r"[çc]a|cela|il|elle|ils|elles|en|y|"
    # Spanish: "¿Dónde los guardamos?", "¿A qué hora lo corro?", "¿Eso va en staging?"; a
    # pronoun right after the question word (as an article it would come before a noun)
    r"eso|esto|ese|esa|esos|esas|ahi|ahí|alli|allí)\b"
    r"|(?:^|[¿\s])(?:d[oó]nde|c[oó]mo|cu[aá]ndo|qu[eé]|qui[eé]n|cu[aá]l|hora|¿)\s+"
    r"(?:lo|la|los|las|le|les)\s",
    re.I,
)
REFERENT_CHARS = 200  # a longer sentence before the question is context, not its subject
_FIRST_PERSON = re_cache.compile(
    r"\b(i|i'm|i've|i'd|my|me|we|we're|we've|our|us|mine|"
    # French: "je", "j'ai", "nous", "notre", "mon", "on a", "on utilise"
    r"je|j'\w+|nous|notre|nos|mon|ma|mes|moi|on (?:a|est|va|fait|utilise|garde|roule|tourne)|"
    # Spanish: "yo", "mi", "nuestro", "conmigo", "nosotros"
    r"yo|mi|mis|nuestr[oa]s?|nosotr[oa]s|conmigo)\b",
    re.I,
)
_STATEMENT = re_cache.compile(
    r"\b(is|are|was|were|has|have|had|runs|uses|use|lives|works|went|got|been|will|would|can|"
    r"could|should|must|do|does|did|looks|feels|means|stands|seems|loves?|likes?|hates?|"
    r"wants?|needs?|plans?|hopes?|started|finished|joined|visited|moved|bought|made|took|"
    # a role ("Priya Raman in security owns the access reviews now")
    r"owns|handles|leads|manages|maintains|approves|"
    r"\w+'(s|re|ve|ll|d)|"
    # typed fast, without the apostrophe ("their photos arent ready", "it doesnt build")
    r"isnt|arent|wasnt|werent|dont|doesnt|didnt|wont|cant|hasnt|havent|thats|theres|"
    # a change reported ("launch slipped to 6 May", "the port changed from 8787", "freeze
    # moves to july 1", "Dag moved it", "Promovia changed")
    r"\w+ed (to|from)|(moves?|go|goes|points?|comes?|changes|switch|switches) (to|from|in)|"
    r"changed|moved|"
    r"switched|migrated|upgraded|renamed|replaced|slipped|postponed|"
    # Spanish, as people type it ("ahora el voucher dura 72 horas", "se movió al 27 de marzo")
    r"es|son|est[aá]n?|era|fue|tiene|tienen|tenemos|usa|usan|usamos|corre|corren|dura|duran|"
    r"cambi[oó]|cambiaron|movi[oó]|pas[oó]|va|van|vive|trabaja|queda|qued[oó]|ya no|hay|"
    r"llama|llaman|coordina|recibe|reciben|sale|salen|retrasa|retras[oó]|subimos|bajamos|"
    r"pasamos|cambiamos|decidimos|"
    # what someone wants or does, said of a third person ("Rafa quiere un informe semanal",
    # "Wilmer puede cerrar órdenes", "él revisa los PRs", "Marcela dijo que …")
    r"quiere|quieren|quiero|queremos|puede|pueden|podemos|necesita|necesitan|necesitamos|"
    r"prefiere|prefieren|prefiero|preferimos|revisa|revisan|aprueba|aprueban|maneja|manejan|"
    r"lleva|llevan|carga|cargan|dijo|dijeron|se suma|se encarga|cierra|cerramos|abre|abrimos|"
    r"vence|cuesta|cuestan|"
    # a change told in the past, first or third person: "actualicé el server a Node 22",
    # "migraron pgdb a Postgres 16", "instalamos 17", "se cambió a 8080"
    r"\w{3,}(?:é|aron|ieron|ó)|\w{3,}(?:amos|emos|imos)|"
    # French, as people type it ("c'est fournil-vm01 maintenant", "le poller tourne aux 2 min")
    r"c'est|ce sont|sont|[ée]tait|utilise|utilisent|tourne|tournent|roule|roulent|dure|"
    r"durent|passe|pass[ée]|chang[ée]|d[ée]m[ée]nag[ée]|migr[ée]|reste|g[èe]re|g[èe]rent|"
    r"s'occupe|prend|prennent|va|vont|habite|travaille|il y a|y a|doit|doivent|fait|font|"
    r"veut|veulent|voulons|peut|peuvent)\b",
    re.I,
)
# kinds of kept sentence whose next sentence is kept with them when it says something
_CARRIED = ("rule", "correction")
# what the agent reports it set up, in a turn the user then accepts ("Done: the SKU is
# VAR-AAAA-FMT, validated by a regex", "Hecho: `versionCode` = `GITHUB_RUN_NUMBER` + 1000")
_REPORTS = re_cache.compile(
    r"^\W*(?:done|hecho|listo|cambiado|fait|c'est fait)\s*[:—–-]\s*(?=\S)", re.I
)
# a name a developer types for something specific: a host, a path, a file, a version, a
# channel ("stage-eu", "sdkconfig.defaults", "api/gen", "#ops-alerts", "1.24"): a sentence
# holding one states a fact even without a verb this list knows ("Aisha owns fare-gateway")
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
_MES = r"(enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre)"
_MOIS = r"(janvier|f[ée]vrier|mars|avril|mai|juin|juillet|ao[ûu]t|septembre|octobre|novembre|d[ée]cembre)"
_SPECIFIC = re_cache.compile(
    r"[^\W_][-_./:@][^\W_]|#[^\W\d_][\w-]+"
    # a person's full name after "is" or "contact": "the contact there is Alasdair Munro"
    r"|\b(?:is|are|contact|ask|email|call)\s+(?-i:[A-Z][a-zà-ÿ]+\s+[A-Z][a-zà-ÿ]+)\b"
    # a date: "6 May", "May 6th", "6 de mayo"
    rf"|\b\d{{1,2}}(st|nd|rd|th)? {_MONTH}\b|\b{_MONTH} \d{{1,2}}(st|nd|rd|th)?\b"
    rf"|\b\d{{1,2}} de {_MES}\b|\b\d{{1,2}}(?:er)? {_MOIS}\b",
    re.I,
)
# a rule needs fewer words ("No Firebase, ever.", "Never deploy Fridays."), but "never mind"
# is none
MIN_RULE_WORDS = 3
_NEVER_MIND = re_cache.compile(r"^\W*never mind\b", re.I)
# an aside to the listener before what is said ("While you're in there: the HL7 engine listens
# on 6661"): the sentence is judged by what follows it
_ASIDE = re_cache.compile(
    r"^\W*(?:while|since|before|when|as) you(?:'re| are)?\b[^:.!?]{0,30}[:,]\s*(?=\w)", re.I
)
# what a request goes on to tell ("Hacé las dos, pero además ya agrandé el droplet: lo pasé al
# de 4 GB"; "fix the flaky test, but the runner has 8 GB now")
_TOLD_AFTER = re_cache.compile(
    r"[,;]\s*(?:but|pero|aunque|mais)\b\W*(?:(?:also|además|ademas|aussi|ya|déjà)\b\W*)?", re.I
)
# an opener before what is said ("Otra cosa: el frigorífico al final carga 320 cajas", "Ah,
# Joaquín se suma al backend", "One more thing: actually it's 8443"): a correction is told by
# what follows it
_OPENER = re_cache.compile(
    r"^\W*(?:(?:y|and|oh,? and|et)\s+)?(?:otra cosa|una cosa(?: m[aá]s| antes)?|por cierto|"
    r"ah|another thing|one more thing|also|btw|by the way|oh|autre chose|au fait|aussi)"
    r"\s*[:,]\s*(?=\w)",
    re.I,
)
# an offer to the listener around a specific fact ("staging is a separate CX22 at
# staging.x.co.uk if you need to check something there"): the fact is judged without it
_IF_YOU = re_cache.compile(r"\b(?:if|in case|whenever|should) you\b[^,.;:!?]*", re.I)
# a sentence about the listener and not the speaker ("you'd be a great counselor", "combining
# your two interests is cool") says nothing a later session needs about the speaker's world
_LISTENER = re_cache.compile(
    r"\b(you|your|yours|you're|you've|you'd|you'll|tu|toi|ton|ta|tes|vous|votre|vos)\b", re.I
)
_FILLER = re_cache.compile(
    r"^\W*((ok(ay)?|yes|yep|yeah|sure|no|nope|thanks?|thx|ty|cool|nice|great|perfect|good|"
    r"awesome|wow|haha|lol|hmm|ah|oh|oops|right|fine|done|agreed|got it|makes sense|"
    r"sounds good|looks good|lgtm|noted|nah|all good|that'?s it|that'?s all|nothing else|"
    r"that'?s it for today|all set|"
    r"oui|ouais|non|nan|merci|d'accord|parfait|super|top|nickel|g[ée]nial|entendu|compris|"
    r"not[ée]|c'est bon|[çc]a marche|bien vu|"
    # Spanish: "dale, me parece bien", "sí, gracias", "listo, buenísimo"
    r"s[ií]|dale|bueno|perfecto|listo|de acuerdo|vale|genial|excelente|buen[ií]simo|joya|"
    r"me parece bien|me cierra|me gusta|gracias|muchas gracias|adelante|claro|bien|"
    r"suena bien|hacelo|hazlo|hag[aá]moslo)\W*)+$"
    r"|^\W*(hey|hi|hello|hiya|morning|evening|salut|bonjour|bonsoir|coucou)\b\W*(\w+\W*)?$",
    re.I,
)
# "Caroline: I went …": a message that names its speaker keeps the name on what is kept
_SPEAKER = re_cache.compile(r"^\s*([A-Z][\w'.-]{1,30}(?: [A-Z][\w'.-]{1,30})?):[ \t]+(?=\S)")
_NOT_SPEAKERS = {
    "note",
    "correction",
    "update",
    "edit",
    "fyi",
    "ps",
    "todo",
    "error",
    "warning",
    "actually",
    "re",
    "q",
    "a",
    "question",
    "answer",
    "important",
    "summary",
    "context",
    "nb",
    "tip",
    "http",
    "https",
}


@dataclass
class Captured:
    text: str
    timestamp: str
    kind: str  # "statement", "rule", "decision", "correction", "explanation"
    correction: bool = False


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def _words(text: str) -> int:
    return len(re.findall(r"\w+", text))


def _looks_like_code(sentence: str) -> bool:
    symbols = sum(sentence.count(c) for c in "{}();=<>[]`$|\\")
    return symbols > max(6, len(sentence) // 12) or sentence.lstrip().startswith(("```", "$ "))


def durable_sentence(sentence: str) -> str:
    """The kind of a user sentence a later session needs, or "" for one it does not."""
    if _looks_like_code(sentence) or _FILLER.match(sentence):
        return ""  # code, or a bare "dale, me parece bien": nothing a later session needs
    words = _words(sentence)
    short = words < MIN_WORDS
    rule_sized = not short or (words >= MIN_RULE_WORDS and not _NEVER_MIND.match(sentence))
    if rule_sized and RULE.search(sentence):
        return "rule"
    if sentence.rstrip().endswith("?"):
        return ""
    if not short and (CORRECTION.search(sentence) or CORRECTION.search(_OPENER.sub("", sentence))):
        return "correction"
    if (
        _SETS_VALUE.search(sentence)
        or _VALUE_NOT_VALUE.search(sentence)
        or _GO_WITH.match(sentence)
        or _VALUE_FOR.match(sentence)
    ):
        return "decision"  # "make it 4pm", "use 9464": short, but a value set
    if short:
        return ""
    if REQUEST.search(sentence):
        # a request with something told after it: the told part is judged alone
        after = _TOLD_AFTER.search(sentence)
        return durable_sentence(sentence[after.end() :]) if after else ""
    told = _ASIDE.sub("", sentence, count=1)
    if _LISTENER.search(told) and not _FIRST_PERSON.search(told):
        stated = _IF_YOU.sub("", told)
        if _LISTENER.search(stated) or not _SPECIFIC.search(stated):
            return ""  # about the listener, not the speaker
    if DECISION.search(sentence):
        return "decision"
    if _FIRST_PERSON.search(sentence) or _STATEMENT.search(sentence):
        return "statement"
    if _SPECIFIC.search(sentence):
        return "statement"
    return ""


def says_something(sentence: str, as_answer: bool = False) -> bool:
    """A sentence that may stand beside a durable one in what is kept, or answer a question on
    its own ("develop", "uv, not conda", "60 per minute"): not a question, a request, code,
    a remark about the listener, or a bare acknowledgement or interjection. ``as_answer``: the
    first sentence of a reply to the agent's question may be worded as a command ("delete it,
    unless --keep-failed-snapshots" to "delete it, or leave it for debugging?"): it is the
    answer, so requests and remarks to the listener count too."""
    text = sentence.strip()
    if not _words(text) or text.endswith("?") or _looks_like_code(text):
        return False
    if _FILLER.match(text):
        return False
    if as_answer:
        return True
    if REQUEST.search(text):
        return False
    return not (_LISTENER.search(text) and not _FIRST_PERSON.search(text))


def _tells_how(sentence: str) -> bool:
    """An answer told to the agent ("You query it through Grafana at grafana.hq.lan"): "you"
    is whoever does it, and a host, a path or a date in it is the fact asked for."""
    text = sentence.strip()
    return bool(_LISTENER.search(text) and _SPECIFIC.search(text)) and not text.endswith("?")


def speaker_of(text: str) -> tuple[str, str]:
    """("Caroline", rest) for a message that starts with a speaker label, else ("", text)."""
    match = _SPEAKER.match(text)
    if not match or match.group(1).lower() in _NOT_SPEAKERS:
        return "", text
    return match.group(1), text[match.end() :]


# how far back in the agent's message a question to the user is looked for, and what asks the
# user rather than the agent itself ("why did the build fail? The cache was stale.")
ASKED_BACK = 5
_ASKS_USER = re_cache.compile(
    r"\b(?:should|shall|do you|would you|want|prefer|ok(?:ay)? (?:if|to|with)|which one|"
    r"deber[ií]a|quer[eé]s|quieres|prefer[ií]s|prefieres|te parece|"
    r"dois-je|veux-tu|voulez-vous|pr[ée]f[èe]res|pr[ée]f[ée]rez)\b",
    re.I,
)


def question_answered(turns: list[Turn], i: int) -> tuple[str, str]:
    """The question the message ``turns[i]`` answers and who asked it ("" for the agent): a
    question among the last two sentences of the nearest earlier turn that says something (a
    bare "Noted." or "OK" says nothing: one more turn back is looked at), when someone else
    said it. ("", "") when there is none. A question earlier in a long reply ("why did the
    build fail? The cache was stale. …") was answered there, not by the next message."""
    speaker = speaker_of(turns[i].text)[0].lower()
    for j in range(i - 1, max(i - 3, -1), -1):
        earlier = turns[j]
        asker, body = speaker_of(earlier.text) if earlier.role == "user" else ("", earlier.text)
        said = sentences(body)
        questions = [s for s in said[-2:] if s.rstrip().endswith("?") and not _looks_like_code(s)]
        if not said or not questions and _words(body) < MIN_WORDS:
            continue
        if earlier.role == "user" and asker.lower() == speaker:
            return "", ""  # the same person's own earlier message
        if not questions and earlier.role == "assistant":
            # the agent's question to the user followed by what the choice weighs ("where
            # should the warning go? We have two outputs … If it goes to stderr …")
            questions = [
                s
                for s in said[-ASKED_BACK:]
                if s.rstrip().endswith("?") and _ASKS_USER.search(s) and not _looks_like_code(s)
            ][-1:]
        if not questions:
            return "", ""
        # the agent's "it" points back to its own explanation; a person's question in a
        # chat is about the two of them, and its sentence before is their news, not a subject
        if asker:
            return questions[-1], asker
        if len(questions) == 2:
            # "Which Python version should I target? And which framework for the API?": the
            # reply often answers both ("3.12. For the framework, …")
            return " ".join(questions), asker
        return _with_referent(said, questions[-1]), asker
    return "", ""


def _with_referent(said: list[str], question: str) -> str:
    """The question, after the sentence it points back to when it says "it" or "that"
    ("I'll add a schedule for the forecast job. What time should it run?"): the answer
    "05:40" is about the forecast job, a word only that sentence holds."""
    at = said.index(question)
    if at == 0 or not _POINTS_BACK.search(question):
        return question
    before = said[at - 1]
    if before.rstrip().endswith("?") or len(before) > REFERENT_CHARS:
        return question
    return f"{before} {question}"


def option_picked(turns: list[Turn], i: int) -> tuple[str, str]:
    """(label, option) when ``turns[i]`` picks one of the options the agent's turn before it
    laid out ("B, MinT"; "keyset, the dashboard only pages forward"), else ("", "")."""
    earlier = next((t for t in reversed(turns[:i]) if t.role == "assistant"), None)
    if earlier is None or turns[i - 1] is not earlier:
        return "", ""
    reply, options = speaker_of(turns[i].text)[1], offered(earlier.text)
    choice = picked(reply, options)
    if not choice[1] and ACK.search(reply) and not _REJECT.search(reply):
        choice = recommended(earlier.text, options)  # "ok, sounds good" to "I recommend B"
    return choice


def _from_user(
    turn: Turn, question: str = "", asker: str = "", option: tuple[str, str] = ("", "")
) -> Captured | None:
    speaker, body = speaker_of(turn.text)
    answering = bool(question or option[1])
    kept, kinds = [], []
    previous = ""
    for at, sentence in enumerate(sentences(body)):
        kind = durable_sentence(sentence)
        if kind:
            kinds.append(kind)
        if (
            kind
            or answering
            and (
                says_something(sentence, as_answer=bool(question) and at == 0)
                or _tells_how(sentence)
            )
            # the sentence after a rule or a correction often carries its point ("never delete
            # a stock movement. If someone gets it wrong, a counter-entry is made"; "he no
            # longer approves them. Now my sister does")
            or previous in _CARRIED
            and says_something(sentence)
        ):
            kept.append(sentence)
        previous = kind
    if option[1]:
        # "B." says nothing alone: the pick is kept with the option it names
        kept = [*(kept or [body.strip()]), f'(option {option[0].upper()}: "{option[1]}")']
        kinds.append("decision")
    # a message is kept for a durable sentence; one that answers a question is kept as the
    # answer, with every sentence that says something ("uv, not conda. conda broke the box"),
    # however short ("develop"). Unasked, only durable sentences are kept: the chatter around
    # them made memories match prompts about other people (measured on LoCoMo)
    if not kinds and not (question and kept):
        return None
    text = (f"{speaker}: " if speaker else "") + " ".join(kept)
    text = with_question(text[:MAX_MEMORY_CHARS], question, asker)
    kind = next((k for k in ("correction", "rule", "decision") if k in kinds), "statement")
    return Captured(text, turn.timestamp, kind, correction=kind == "correction")


def _explanation(turn: Turn) -> str:
    kept = [
        s
        for s in sentences(turn.text)
        if (_EXPLAINS.search(s) or _PROPOSES.search(s) or _REPORTS.search(s))
        and not _looks_like_code(s)
        and _words(s) >= MIN_WORDS
    ]
    return " ".join(kept[:3])[:MAX_MEMORY_CHARS]


PICK_WORDS = 3  # a reply that only names the agent's proposal ("BrasilAPI.") is this short


def _opening(reply: str) -> str:
    """The reply's first clause, speaker label and marks aside ("BrasilAPI" of "BrasilAPI. no
    second API as fallback"): where a pick by name is said."""
    first = speaker_of(reply)[1].strip()
    return re.split(r"(?<=[.!?,;:])\s", first, maxsplit=1)[0].strip(" .!,;:")


def _names_the_proposal(agent_text: str, reply: str) -> bool:
    """Whether the reply opens by naming what the agent proposed ("I'd go with BrasilAPI and
    fall back to manual entry" — "BrasilAPI. no second API as fallback"): a pick as clear as
    "ok", said by its name."""
    first = _opening(reply)
    words = re.findall(r"[\w.+#/-]+", first)
    if not words or len(words) > PICK_WORDS:
        return False
    named = first.casefold()
    return any(
        _PROPOSES.search(sentence) and named in sentence.casefold()
        for sentence in sentences(agent_text)
    )


def pick_named(turns: list[Turn], i: int) -> str:
    """The agent's sentence naming what the reply ``turns[i]`` opens with, when that opening
    is a bare name ("46elks. The client already has an account there" to "… 46elks (Swedish)
    is cheaper for Nordic numbers …"; "Pagy then"): the reply picks it, and the sentence says
    what it was picked for. "" when the reply opens otherwise or the agent named no such thing."""
    if i == 0 or turns[i - 1].role != "assistant":
        return ""
    first = _PICK_TAIL.sub("", _opening(turns[i].text))
    words = re.findall(r"[\w.+#/-]+", first)
    if not words or len(words) > PICK_WORDS or ACK.search(first) or _REJECT.search(first):
        return ""
    if not any(len(w) >= 3 and not w.isdigit() for w in words):
        return ""
    named = re.compile(r"(?<![\w-])" + re.escape(first) + r"(?![\w-])", re.I)  # noqa: TID251
    for sentence in sentences(turns[i - 1].text):
        if named.search(sentence) and not _looks_like_code(sentence):
            return sentence[:REFERENT_CHARS]
    return ""


def _accepts_proposal(turns: list[Turn], i: int) -> bool:
    """Whether the reply names what the agent's turn before it proposed: the proposal is kept
    as agreed (``extract``), and the pick with it would say the same twice."""
    return (
        i > 0
        and turns[i - 1].role == "assistant"
        and _names_the_proposal(turns[i - 1].text, turns[i].text)
    )


# "Pagy then", "WeasyPrint, then": what follows the name of a pick says nothing more
_PICK_TAIL = re_cache.compile(r"\s+(?:then|it is|please|pls|for now|entonces|alors)$", re.I)


def extract(turns: list[Turn]) -> list[Captured]:
    """The memories in these turns, in order."""
    out: list[Captured] = []
    for i, turn in enumerate(turns):
        if turn.role == "user":
            question, asker = question_answered(turns, i)
            option = option_picked(turns, i)
            if not question and not option[1] and not _accepts_proposal(turns, i):
                question = pick_named(turns, i)
            item = _from_user(turn, question, asker, option)
            if item is not None:
                out.append(item)
            continue
        reply = next((t for t in turns[i + 1 :] if t.role == "user"), None)
        if reply is None or _REJECT.search(reply.text):
            continue
        if not ACK.search(reply.text) and not _names_the_proposal(turn.text, reply.text):
            continue
        text = _explanation(turn)
        if text:
            out.append(Captured(f"Agreed with the user: {text}", turn.timestamp, "explanation"))
    return out
