"""GUIDE.md's "What the tools answer" session is what the tools answer today.

The guide shows a real session against an empty memory: each `>>> tool(...)` line and the
text the agent receives. Ranking changes move its confidences and wording; this replays the
calls through the server's own tool table on a fresh store and compares every line, so the
guide cannot drift from the code unnoticed. Only what depends on the day of the run is
normalised: the save date of memories without a date of their own, and the ids (the same id
everywhere it appears in one text maps to the same placeholder).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
LEAF_ID = re.compile(r"L-[a-z.]+-\d{4}-[0-9a-f]{10}")


def guide_session() -> list[tuple[str, dict, str]]:
    """(tool, arguments, expected text) for each call of the guide's first session block."""
    text = (ROOT / "GUIDE.md").read_text(encoding="utf-8")
    section = text[text.index("## 3. What the tools answer") :]
    block = section[section.index("```text\n") + 8 :]
    block = block[: block.index("\n```")]
    calls = []
    for chunk in re.split(r"^>>> ", block, flags=re.MULTILINE)[1:]:
        head, _, body = chunk.partition("\n")
        call = ast.parse(head.strip(), mode="eval").body
        assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name), head
        args = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
        calls.append((call.func.id, args, body.strip()))
    return calls


def normalised(text: str, content_dates: set[str]) -> str:
    ids: dict[str, str] = {}
    text = LEAF_ID.sub(lambda m: ids.setdefault(m.group(), f"<id{len(ids)}>"), text)
    return DATE.sub(lambda m: m.group() if m.group() in content_dates else "<today>", text)


def test_the_guides_session_is_what_the_tools_answer(tmp_path):
    from ihmt.mcp_session import Session
    from ihmt.mcp_tools import build_server

    (tmp_path / "cwd").mkdir()
    box = build_server(Session(home=tmp_path / "ihmt", cwd=tmp_path / "cwd"))
    session = guide_session()
    assert len(session) >= 8, "the guide's session block was not found"
    # dates written in the memories themselves; every other date is the day of the run
    content_dates = {d for _, args, _ in session for d in DATE.findall(args.get("content", ""))}
    for tool, args, expected in session:
        answer = box.call(tool, args).strip()
        assert normalised(answer, content_dates) == normalised(expected, content_dates), (
            f"GUIDE.md shows a different answer for {tool}({args})"
        )
