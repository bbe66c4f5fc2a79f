"""What the hooks put in front of the agent: a brief at session start, memories per prompt.

Both are plain text wrapped in ``<ihmt-memory …>`` tags (the usage rules in
templates/memory-instructions.md tell the agent what they are), dated, and bounded in tokens.
Both say nothing rather than something weak: a prompt gets memories only when the search is
confident and the memory covers most of what the prompt asks, so "fix this test" adds nothing.
"""

from __future__ import annotations

from ..text.clean import one_line
from ..text.tokens import estimate_tokens
from ..vcs.project import same_project
from .extract import CORRECTION, DECISION, RULE

PROMPT_TOKENS = 400
BRIEF_TOKENS = 600
MIN_PROMPT_WORDS = 2
MAX_PROMPT_CHARS = 2000
# a prompt gets memories only above both (calibrated on benchmarks/hooks.py)
RECALL_CONFIDENCE = 0.5
RECALL_COVERAGE = 0.5
RELATIVE_SCORE = 0.6  # further memories must score this share of the best one
PROMPT_HITS = 3
BRIEF_FACTS = 12
BRIEF_DECISIONS = 8
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


def prompt_recall(memory, prompt: str, project: str = "") -> str:
    """Memories that answer this prompt, or "" when none does confidently."""
    if not isinstance(prompt, str):
        return ""
    text = " ".join(prompt.split())[:MAX_PROMPT_CHARS]
    if len(text.split()) < MIN_PROMPT_WORDS:
        return ""
    result = memory.search(text, top_k=5, project=project or None)
    best = result.best
    if best is None or result.not_found:
        return ""
    if result.confidence < RECALL_CONFIDENCE or best.coverage < RECALL_COVERAGE:
        return ""
    hits = [
        h
        for h in result.hits[:PROMPT_HITS]
        if h is best or (h.score >= RELATIVE_SCORE * best.score and h.coverage >= RECALL_COVERAGE)
    ]
    body = []
    if result.ambiguous:
        body.append("AMBIGUOUS: several memories fit equally; ask the user which one is meant.")
    for hit in hits:
        mark = " [OUTDATED]" if hit.outdated else ""
        body.append(f"- {hit.timestamp[:10]}{mark}: {one_line(hit.content, 600)}")
        body += [f"  {one_line(n, 300)}" for n in hit.notices[:2]]
    body += [f"NOTICE: {one_line(n, 300)}" for n in result.notices[:2]]
    return _wrap("recall", body, PROMPT_TOKENS)


def _mine(leaf_project: str, project: str) -> bool:
    return not leaf_project or bool(project) and same_project(leaf_project, project)


def session_brief(memory, project: str = "") -> str:
    """Facts in force, recent decisions and open corrections for this project, dated; "" when
    memory holds nothing of the kind."""
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
    body = []
    if facts:
        body += ["Facts in force:", *facts]
    if decisions:
        body += ["Recent decisions and rules:", *decisions]
    if corrections:
        body += ["Corrections:", *corrections]
    if not body:
        return ""
    where = f" for {project}" if project else ""
    body.insert(0, f"Long-term memory{where} (search_memory finds more):")
    return _wrap("session-brief", body, BRIEF_TOKENS)
