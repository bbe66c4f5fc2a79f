"""The few patterns both capture (extract.py) and recall (recall.py) read.

Their own module so that the per-prompt hook, which needs only ``ACK`` and only once the search
is confident, does not compile the extractor's many patterns on every prompt.
"""

from __future__ import annotations

import re

from .. import re_cache

RULE = re_cache.compile(
    r"\b(always|never|from now on|going forward|in future|prefer|don't ever|do not ever|"
    r"make sure to|remember that|remember to|keep in mind|note that|fyi|"
    # Spanish: "siempre en español", "nunca en viernes", "a partir de ahora"
    r"siempre|nunca|jam[aá]s|a partir de ahora|de ahora en adelante|"
    # French: "toujours en UTF-8", "jamais le vendredi", "désormais", "à partir de maintenant"
    r"toujours|jamais|d[ée]sormais|dor[ée]navant|[àa] partir de maintenant|[àa] l'avenir|"
    r"n'oublie pas|retiens que|note que|garde en t[êe]te)\b"
    r"|\b(new rule|the rule is|rule:|important:|regla:|regla de oro|(?<!cambio )importante:|r[èe]gle absolue|r[èe]gle ?:|nouvelle r[èe]gle)"
    r"|\brules? (for|about|on) [\w .#/-]{1,40}:"  # "rule for looker: explores only …"
    # "One rule from the start: no force unwraps", "a rule from day one: …"
    r"|\brule from [\w ]{1,20}:"
    # "don't hand-edit anything in src/gen, ever", "no !! in nfc:validation, ever"
    r"|,\s*ever\b",
    re.I,
)
DECISION = re_cache.compile(
    r"\b(we decided|i decided|decided to|let's go with|lets go with|we'll use|we will use|"
    r"we use|we're using|we are using|i use|i'm using|switch(ed)? to|instead of|"
    r"chose|choose|going with|settled on|our \w+ (is|are|runs|uses)|"
    # French: "on part sur Postgres", "on garde 8040", "j'ai choisi uv", "au lieu de conda"
    r"on a d[ée]cid[ée]|j'ai d[ée]cid[ée]|d[ée]cid[ée] de|on part sur|on va avec|on prend|"
    r"on garde|on utilise|on passe (?:à|a|sur|en)|on reste sur|on a choisi|j'ai choisi|"
    r"on a opt[ée]|au lieu de|plut[ôo]t que|"
    # Spanish: "decidimos X", "vamos con la B", "nos quedamos con Redis", "en vez de cron"
    r"decidimos|decid[ií]|vamos con|nos quedamos con|me quedo con|elegimos|eleg[ií]|"
    r"optamos por|en vez de|en lugar de)\b",
    re.I,
)
CORRECTION = re_cache.compile(
    r"^\s*(actually|correction|no,|nope,|that's wrong|that is wrong|not quite|wait,|"
    r"scratch that|"
    # news that changes an earlier fact: "Update: the on-sale moved to …", "change of plans
    # for 2.0: freeze moves to july 1", "heads up, we bumped to node 24"
    r"update:|change of plans?|heads[- ]up|"
    r"cambio (importante|de planes?)|actualizaci[oó]n:|correcci[oó]n:|en realidad|"
    # "al final instalé Postgres 17, no 16", "ojo: migraron pgdb a 16", "perdón, es el 8080"
    r"al final|ojo:|aviso:|perd[oó]n,|me equivoqu[eé]|"
    # French: "en fait, c'est 8040", "non, c'est …", "petite correction : …"
    r"en fait|non,|finalement,|petite correction|mise [àa] jour ?:|changement de plans?|"
    r"attention,|erratum)(?=\W|$)",
    re.I,
)
ACK = re_cache.compile(
    r"^\s*(ok(ay)?|yes|yep|yeah|sure|great|perfect|good|nice|thanks|thank you|lgtm|"
    r"sounds good|looks good|agreed|go ahead|do it|ship it|correct|exactly|right|"
    # French: "oui", "d'accord", "parfait", "vas-y", "ça marche", "c'est bon", "nickel"
    r"oui|ouais|d'accord|dac|parfait|super|merci|vas[- ]y|[çc]a marche|c'est bon|nickel|"
    r"exact|exactement|entendu|[çc]a me va|top|g[ée]nial|"
    # Spanish: "sí, hacelo", "dale", "listo", "me parece bien", "ok, me cierra"; a bare "si"
    # is "if" unless a mark follows it ("si, con cron")
    r"s[ií](?=\s*[,.!]|\s*$)|sí|dale|bueno|perfecto|listo|de acuerdo|vale|excelente|"
    r"buen[ií]simo|joya|me parece bien|me cierra|me gusta|adelante|hag[aá]moslo|hag[aá]mosle|"
    r"correcto|exacto|claro)(?=\W|$)",
    re.I,
)
# a request for work now ("fix …", "can you …"): not memory, and not a question memory answers
REQUEST = re_cache.compile(
    r"^\s*(please\s+)?(can|could|would|will) you\b|^\s*(please\s+)?(fix|add|run|make|show|"
    r"write|update|refactor|change|remove|delete|create|implement|check|look|explain|try|"
    r"tell|give|find|list|rename|move|debug|test|build|install|open|read|use|help|let's|"
    r"lets|go|continue|do|commit|push|review|summarize|describe|undo|revert|format|bump|convert|"
    r"split|profile|deploy|merge|rebase|clean|restart|rerun)\b"
    # "Read-only.", "Build-time only", "Test-first": one word naming a way, not an order
    r"(?!-\w)"
    # "debug should point at stage-eu", "test runs are slow": a subject, not an order; "Update:",
    # "Update on timing:", "change of plans": a label or a noun
    r"(?!\s+(should|would|could|is|are|was|were|will|must|can|has|have|had|runs?|builds?|of)\b)"
    r"(?!\s*:)(?!\s+on\b[^:.!?]{0,40}:)"
    # "Test Mirth is mirth-tst02 now", "Test fixtures use synthetic MRNs", "Build times went
    # up": the word names a thing (the noun before a verb), not an order
    r"(?!(?:\s+(?!(?:the|a|an|it|this|that|these|those|all|my|our|your|me|us|them|him|her|"
    r"some|any|every|each|more|up|out|again|now|sure|and|or|to|for|with|in|on|at)\b)"
    r"[\w.-]+){1,2}\s+(is|are|was|were|uses?|runs?|lives?|goes|needs?|takes?|starts?|stays?|"
    r"gets?|points?|must|should|will|can|has|have|had|went|moved|changed)\b)"
    # French: "peux-tu …", "tu peux …", "corrige …", "ajoute …", "lance les tests"
    r"|^\s*(s'il te pla[îi]t\s+|stp\s+)?(peux|pourrais|pourriez|pouvez)[- ](tu|vous)\b"
    r"|^\s*(est-ce que )?(tu peux|tu pourrais|vous pouvez)\b"
    r"|^\s*(corrige|ajoute|lance|relance|fais|refais|montre|[ée]cris|mets|supprime|enl[èe]ve|"
    r"cr[ée]e|v[ée]rifie|regarde|explique|essaie|essaye|donne|trouve|renomme|d[ée]place|"
    r"teste|installe|ouvre|lis|aide|continue|pousse|relis|r[ée]sume|annule|formate|"
    r"d[ée]ploie|fusionne|red[ée]marre|nettoie|g[ée]n[èe]re|impl[ée]mente|commite|migre)\b"
    r"(?!\s+(est|sont|a|ont|va|doit|peut)\b)"
    # Spanish, as people type to an agent (tú or vos, often with a pronoun on the end):
    # "arreglá el test", "agregale paginación", "corré los tests", "hacelo configurable"; not
    # "subí", "escribí": the same word says "I raised", "I wrote"
    r"|^\s*(?:y\s+|ahora\s+|por favor,?\s+)?(?:(?:arregl|agreg|cambi|mostr|sac|borr|prob|"
    r"revis|arm|dej|explic|mir|quit|elimin|implement|ejecut|lanz|actualiz|instal|gener|renombr|"
    r"fij|configur|ajust|limpi|separ|reemplaz|ignor|guard|valid|calcul|export|import|"
    r"document|commite|pushe|mergi|deploy)[aá]|(?:corr|hac|pon|escrib|sub|añad|corrig|mov|met|"
    r"respond|le)[eé]|dec[ií]|"
    r"haz|pon|dime|mueve|ejecuta|"
    r"(?:pod[eé]s|puedes|podr[ií]as|podr[ií]an|necesito que))"
    r"(?:me|nos|le|les|lo|la|los|las|selo|sela|melo|mela)?\b"
    r"(?!\s+(es|son|est[aá]|está|fue|va|tiene|queda)\b)",
    re.I,
)
