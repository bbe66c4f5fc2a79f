"""Text views the CLI's commands and the demo share: a search answer and the tree outline.

They only format what the facade returns (a SearchResult, ``IHMT.outline``)."""

from __future__ import annotations

from ..render import ambiguous_block, hit_label, not_found_block, render_path


def search_text(result, full: bool) -> str:
    """A search or ask answer: a header line, then the hits (the first one in full)."""
    header = (
        f'query: "{result.query}{" + " + result.clue if result.clue else ""}" · confidence '
        f"{result.confidence:.2f} · {result.node_reads} node reads, {result.leaf_reads} leaf reads, "
        f"depth {result.depth}"
    )
    if result.not_found:
        return header + "\n" + not_found_block(result)
    if result.index_incomplete:
        header += f"\nNOTICE: {result.index_incomplete}"
    if result.ambiguous:
        return header + "\n" + ambiguous_block(result, ids=full)
    lines = [header]
    for i, hit in enumerate(result.hits, 1):
        flag = "  [OUTDATED]" if hit.outdated else ""
        lines.append(f"  {i}. {hit_label(hit)}  score {hit.score:.2f}{flag}")
        lines.append(f"     path  {render_path(hit.path)}")
        for notice in hit.notices:
            lines.append(f"     NOTICE {notice}")
        body = hit.content.strip() if i == 1 else " ".join(hit.content.split())[:160]
        if i == 1 and not full and len(body) > 1200:
            body = body[:1200] + " …"
        for line in body.splitlines()[: (40 if i == 1 else 1)]:
            lines.append(f"     {line}")
        if full:
            lines.append(f"     id {hit.leaf_id}")
    return "\n".join(lines)


def outline_lines(outline: dict) -> list[str]:
    """``IHMT.outline(depth)`` as indented lines: each domain, then its branches (▸) and
    leaves (·), a branch's children under it where the outline expanded them."""
    lines = [
        f"root · {outline['counters'].get('leaves', 0)} leaves · "
        f"{len(outline['entries'])} top entries"
    ]

    def walk(ref: dict, level: int) -> None:
        indent = "  " * level
        if ref["kind"] == "leaf":
            lines.append(
                f"{indent}· {ref['id']}  {ref.get('date', '')[:10]}  {ref.get('title', '')[:70]}"
            )
            return
        dates = f"{ref.get('date_from', '')[:10]}…{ref.get('date_to', '')[:10]}"
        lines.append(
            f"{indent}▸ {ref['id']}  [{ref['leaves']} leaves, {dates}]  {ref.get('title', '')[:70]}"
        )
        for child in ref.get("expanded", []):
            walk(child, level + 1)

    for domain in sorted(outline["domains"]):
        info = outline["domains"][domain]
        lines.append(
            f"{domain}  ({info['leaves']} leaves; topics: {', '.join(info['topics'][:6])})"
        )
        for ref in outline["entries"]:
            if ref["domain"] == domain:
                walk(ref, 1)
    return lines
