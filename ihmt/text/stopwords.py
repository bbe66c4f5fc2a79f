"""English, Spanish and French stop words, already folded (lower case, no accents).

Memory queries are often full questions ("where do I live?", "¿dónde vivo?"),
so question words, pronouns and auxiliary verbs must not carry BM25 weight.
Content verbs and nouns ("live", "work", "moved", "vivo", "trabajo") are
deliberately absent: they are what the user is asking about.
"""

from __future__ import annotations

_ENGLISH = """
a about above after again against all almost also although always am among an and
another any anybody anyone anything anyway anywhere are aren around as at
be became because been before being below besides between both but by
can cannot could couldn
d did didn do does doesn doing don down during
each either else enough etc even ever every everybody everyone everything
few for from further
had hadn has hasn have haven having he her here hers herself him himself his how
however
i if in into is isn it its itself
just
ll
m many me might mine more most much must mustn my myself
neither no nor not now
o of off often on once only onto or other others otherwise our ours ourselves out
over own
per perhaps please
quite
rather re really
s same shall shan she should shouldn since so some somebody someone something
sometimes somewhat somewhere still such
t than that the their theirs them themselves then there these they this those
though through thus to too toward towards
under until up upon
ve very via
was wasn we were weren what whatever when whenever where whereas wherever whether
which while who whoever whom whose why will with within without won would wouldn
y yet you your yours yourself yourselves
"""

_SPANISH = """
a aca adonde ademas ahi ahora al algo alguien alguna algunas alguno algunos ante antes aquel aquella aquellas
aquello aquellos aqui alla alli asi aun aunque
bajo bien
cada casi como con contra cual cuales cualquier cuando cuanta cuantas cuanto
cuantos cuya cuyas cuyo cuyos
de del demas desde despues donde durante
e el ella ellas ello ellos en entonces entre era erais eramos eran eras eres es esa
esas ese eso esos esta estaba estabais estabamos estaban estabas estad estais
estamos estan estando estar estara estaran estaras estare estareis estaremos
estaria estariais estariamos estarian estarias estas este esten estes esto estos
estoy estuve estuvieron estuvimos estuviste estuvisteis estuvo
fue fuera fuerais fueramos fueran fueras fueron fuese fuesen fui fuimos fuiste
fuisteis
ha habeis haber habia habiais habiamos habian habias habido habiendo habra habran
habras habre habria habrian has hasta hay haya hayamos hayan hayas he hemos hube
hacia hubiera hubieran hubo
la las le les lo los luego
mas me mi mia mias mientras mio mios mis misma mismas mismo mismos muy
nada ni ningun ninguna ninguno no nos nosotras nosotros nuestra nuestras nuestro
nuestros nunca
o os otra otras otro otros
para pero poco pocos por porque pues
que quien quienes
se seais seamos sean sera seran seras sere sereis seremos seria seriais
seriamos serian serias segun ser si siempre siendo sido sin sino sobre sois somos
soy su sus suya suyas suyo suyos
tal tambien tampoco tan tanto te tendra tendran tendria tendrian tenemos tener
tenga tengan tengo tenia tenian tiene tienen tienes ti toda todas todavia todo
todos tras tu tus tuve tuvieron tuvo tuya tuyas tuyo tuyos
u un una unas uno unos usted ustedes
vosotras vosotros vuestra vuestras vuestro vuestros
y ya yo
"""

# French: articles, pronouns, auxiliaries and linking words. Left out on purpose, because
# they are also words a software note means as written: "ai" (AI), "eu" (EU), "ca" ("ça";
# a certificate authority), "ci" (CI), "car", "plus", "sans", "son", "sa", "ta", "va",
# "comment" (a code comment); and those that are Spanish words with a meaning: "mes" (a
# month), "tres" (three), "sur" (south), "deja" (leaves). An elided article or pronoun ("l'", "qu'on") leaves a
# single letter or "qu", which the tokenizer drops or this list holds.
_FRENCH = """
a afin alors apres au aucun aucune aupres aussi autre autres aux avaient avais
avait avant avec avez aviez avions avoir avons ayant
beaucoup
ce ceci cela celle celles celui ces cet cette ceux chaque chez comme
dans de depuis des devrait devraient doit doivent dont du
elle elles en encore ensuite entre est est-ce et etaient etais etait etant ete etes etre
faut
ici il ils
je jusqu juste
la laquelle le lequel les lesquels leur leurs lui
ma mais me meme moi moins mon
ne ni non nos notre nous
on ont ou oui
par parce pas pendant peu peut peuvent peux pour pourquoi pourrait puis
quand que quel quelle quelles quels qu qui quoi
se selon ses seront serait sera si soit sommes sont sous suis
te tes toi toujours tous tout toute toutes
un une
vais voici voila vont vos votre vous vers
"""

STOPWORDS: frozenset[str] = (
    frozenset(_ENGLISH.split()) | frozenset(_SPANISH.split()) | frozenset(_FRENCH.split())
)


def is_stopword(token: str) -> bool:
    """True for a folded token that carries no search meaning on its own."""
    return token in STOPWORDS


_FOREIGN = frozenset(_SPANISH.split()) | frozenset(_FRENCH.split())
_FOREIGN_ONLY = _FOREIGN - frozenset(_ENGLISH.split())
_ENGLISH_ONLY = frozenset(_ENGLISH.split()) - _FOREIGN


def foreign_function_word(folded: str) -> bool:
    """A Spanish or French stop word that is not also an English one ("de", "los", "les")."""
    return folded in _FOREIGN_ONLY


def reads_as_foreign(folded_tokens: list[str]) -> bool:
    """True when a text's function words are mostly Spanish or French ("¿a qué hora es la
    daily?", "c'est quoi le port de l'API?"): a model trained on English reads such a text
    poorly."""
    foreign = sum(1 for t in folded_tokens if t in _FOREIGN_ONLY)
    english = sum(1 for t in folded_tokens if t in _ENGLISH_ONLY)
    return foreign >= 2 and foreign > english
