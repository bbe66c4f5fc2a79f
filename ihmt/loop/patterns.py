"""The few patterns both capture (extract.py) and recall (recall.py) read.

Their own module so that the per-prompt hook, which needs only ``ACK`` and only once the search
is confident, does not compile the extractor's many patterns on every prompt.
"""

from __future__ import annotations

import re

RULE = re.compile(
    r"\b(always|never|from now on|going forward|in future|prefer|don't ever|do not ever|"
    r"make sure to|remember that|remember to|keep in mind|note that|fyi|"
    # Spanish: "siempre en español", "nunca en viernes", "a partir de ahora"
    r"siempre|nunca|jam[aá]s|a partir de ahora|de ahora en adelante)\b"
    r"|\b(new rule|the rule is|rule:|important:|regla:|importante:)"
    r"|\brules? (for|about|on) [\w .#/-]{1,40}:"  # "rule for looker: explores only …"
    # "don't hand-edit anything in src/gen, ever", "no !! in nfc:validation, ever"
    r"|,\s*ever\b",
    re.I,
)
DECISION = re.compile(
    r"\b(we decided|i decided|decided to|let's go with|lets go with|we'll use|we will use|"
    r"we use|we're using|we are using|i use|i'm using|switch(ed)? to|instead of|"
    r"chose|choose|going with|settled on|our \w+ (is|are|runs|uses))\b",
    re.I,
)
CORRECTION = re.compile(
    r"^\s*(actually|correction|no,|nope,|that's wrong|that is wrong|not quite|wait,|"
    r"scratch that|"
    # news that changes an earlier fact: "Update: the on-sale moved to …", "change of plans
    # for 2.0: freeze moves to july 1", "heads up, we bumped to node 24"
    r"update:|change of plans?|heads[- ]up|"
    r"cambio (importante|de planes?)|actualizaci[oó]n:|correcci[oó]n:|en realidad)(?=\W|$)",
    re.I,
)
ACK = re.compile(
    r"^\s*(ok(ay)?|yes|yep|yeah|sure|great|perfect|good|nice|thanks|thank you|lgtm|"
    r"sounds good|looks good|agreed|go ahead|do it|ship it|correct|exactly|right)\b",
    re.I,
)
# a request for work now ("fix …", "can you …"): not memory, and not a question memory answers
REQUEST = re.compile(
    r"^\s*(please\s+)?(can|could|would|will) you\b|^\s*(please\s+)?(fix|add|run|make|show|"
    r"write|update|refactor|change|remove|delete|create|implement|check|look|explain|try|"
    r"tell|give|find|list|rename|move|debug|test|build|install|open|read|use|help|let's|"
    r"lets|go|continue|do|commit|push|review|summarize|describe|undo|revert|format|bump|convert|"
    r"split|profile|deploy|merge|rebase|clean|restart|rerun)\b"
    # "debug should point at stage-eu", "test runs are slow": a subject, not an order; "Update:",
    # "Update on timing:", "change of plans": a label or a noun
    r"(?!\s+(should|would|could|is|are|was|were|will|must|can|has|have|had|runs?|builds?|of)\b)"
    r"(?!\s*:)(?!\s+on\b[^:.!?]{0,40}:)"
    # "Test Mirth is mirth-tst02 now", "Test fixtures use synthetic MRNs", "Build times went
    # up": the word names a thing (the noun before a verb), not an order
    r"(?!(?:\s+(?!(?:the|a|an|it|this|that|these|those|all|my|our|your|me|us|them|him|her|"
    r"some|any|every|each|more|up|out|again|now|sure|and|or|to|for|with|in|on|at)\b)"
    r"[\w.-]+){1,2}\s+(is|are|was|were|uses?|runs?|lives?|goes|needs?|takes?|starts?|stays?|"
    r"gets?|points?|must|should|will|can|has|have|had|went|moved|changed)\b)",
    re.I,
)
