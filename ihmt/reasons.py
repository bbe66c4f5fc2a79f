"""English wording of the reason codes a search result carries.

The engine decides *why* (a code plus parameters); this table says it in English for the
library's ``SearchResult.reason`` and the English presenters. Presenters in another language
(the GUI's Spanish page) word the same code themselves, so a new code must be added there too.
"""

from __future__ import annotations

SHAPE_WORDS = {
    "phone": "a phone number",
    "email": "an e-mail address",
    "ip": "an IP address",
    "network": "a network range",
    "port": "a port",
    "price": "a price",
    "time": "a time of day",
    "date": "a date",
    "version": "a version",
    "number": "a number",
    "duration": "a span of time",
    "frequency": "how often",
    "person": "a person",
    "place": "a place",
    "size": "a memory or disk size",
    "birthday": "a birthday",
    "username": "a user name",
}


def reason_text(code: str, params: dict) -> str:
    """The English sentence for a reason code ("" for no code)."""
    if code == "no_words":
        return "the query has no searchable words (only stop words or symbols)"
    if code == "no_match":
        return "no memory contains any of these words"
    if code == "unreadable":
        return "the matching memories could not be read; run `ihmt check`"
    if code == "stray":
        coverage = float(params.get("coverage", 0.0))
        return (
            "the closest memory shares only a stray word with the query "
            f"(it covers {coverage:.0%} of what was asked)"
        )
    if code == "lacks_shape":
        return (
            f"the question asks for {SHAPE_WORDS.get(params.get('shape', ''), 'a value')}, "
            "and no memory about it holds one"
        )
    if code == "unknown_name":
        names = ", ".join(f'"{name}"' for name in params.get("names") or ()) or "it"
        return f"the question names {names}, and no memory mentions it"
    if code == "no_answer":
        return (
            "memory knows the subject, but the closest memory "
            f"({params.get('date', 'undated')}) does not read as an answer to what was asked"
        )
    if code == "no_meaning":
        return "no memory shares these words or comes close in meaning"
    if code == "ambiguous":
        return (
            f"{params.get('n', 2)} memories match this query equally well; give a clue "
            "(a place, a date, a project) to choose"
        )
    if code == "values":
        shape = SHAPE_WORDS.get(params.get("shape", ""), "a value")
        return (
            f"{params.get('n', 2)} memories saved about the same time each give "
            f"{shape} of their own for this question; say which one is meant (what it is "
            "for, a project, a place)"
        )
    if code == "rivals":
        return (
            f"{params.get('n', 2)} memories each answer this question, and they seem to be "
            "about different things; say which one is meant (what it is for, a project, a "
            "place)"
        )
    if code == "namesakes":
        people = ", ".join(params.get("people") or ())
        return (
            f"the question names {params.get('name', 'someone')} alone, and memory knows "
            f"{len(params.get('people') or ())} people of that name ({people}); say which one "
            "(the surname, a role, a project)"
        )
    return code.replace("_", " ")
