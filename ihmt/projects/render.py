"""Plain-text forms of find_code and project_map answers, shared by the CLI and the MCP server
so both word them the same way. Compact on purpose: every character reaches a model.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from ..text.tokens import estimate_tokens
from .results import CodeAnswer, CodeSnippet, ProjectMap


def short_tokens(n: int) -> str:
    """1234 -> '1.2k', 950 -> '950': sizes in a map only need to be comparable."""
    if n < 1000:
        return str(n)
    if n < 100_000:
        return f"{n / 1000:.1f}k"
    return f"{n // 1000}k"


def _where(answer: CodeAnswer) -> str:
    name = PurePosixPath(answer.project).name or answer.project
    bits = [f"scope {answer.scope}"]
    if answer.subpath:
        bits.append(f"under {answer.subpath}")
    return f"{name} ({', '.join(bits)})"


def _asked(answer: CodeAnswer) -> str:
    text = " ".join(answer.query.split())[:120]
    return text + (f" + {answer.clue}" if answer.clue else "")


def _ref_line(snip: CodeSnippet) -> str:
    return f"{snip.location}  {snip.title}".rstrip()


def render_code_answer(answer: CodeAnswer) -> str:
    if answer.status == "NOT_FOUND":
        return (
            f'NOT FOUND: no code in {_where(answer)} matches "{_asked(answer)}" ({answer.reason}).'
        )
    lines = []
    if answer.status == "AMBIGUOUS":
        tied = len(answer.snippets) + len(answer.others)
        shown = len(answer.snippets)
        what = "all shown below" if shown == tied else f"{shown} shown below" if shown else ""
        lines.append(
            f'AMBIGUOUS: "{_asked(answer)}" matches {tied} symbols in {_where(answer)} '
            f"equally well{'; ' + what if what else ''}. Pick the one you mean, or call again "
            "with clue= (a class, a file, a word from the code):"
        )
    if answer.weak:
        lines.append(
            "WEAK MATCH: only some of the words asked occur in this code; check it answers "
            "the question, or try other words:"
        )
    for snip in answer.snippets:
        lines.append(_ref_line(snip))
        code = snip.code.rstrip("\n")
        lines.append(code)
        if snip.hidden:
            left_out = ", ".join(f"{a}-{b}" for a, b in snip.hidden)
            lines.append(
                f"… (cut at max_tokens={answer.max_tokens}: lines {left_out} not shown; read "
                "them from the file)"
            )
    if answer.others:
        lines.append("ALSO TIED:" if answer.status == "AMBIGUOUS" else "OTHER MATCHES:")
        lines += [f"- {_ref_line(s)}" for s in answer.others]
    return "\n".join(lines)


def render_map(pmap: ProjectMap) -> str:
    """A folder tree: each folder with its file count and tokens, each file with its tokens
    and, with detail=symbols, its classes and functions with line ranges."""
    name = PurePosixPath(pmap.project).name or pmap.project
    where = f" under {pmap.subpath}" if pmap.subpath else ""
    if not pmap.files:
        return f"PROJECT {name}{where}: no indexed source files ({pmap.project})."
    totals: dict[str, list[int]] = {}
    for f in pmap.files:
        parts = f.path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            acc = totals.setdefault("/".join(parts[:depth]), [0, 0])
            acc[0] += 1
            acc[1] += f.tokens
    lines: list[str] = []
    opened: list[str] = []
    for f in pmap.files:
        parts = f.path.split("/")
        folders = parts[:-1]
        common = 0
        while common < min(len(opened), len(folders)) and opened[common] == folders[common]:
            common += 1
        for depth in range(common, len(folders)):
            key = "/".join(folders[: depth + 1])
            count, tokens = totals[key]
            lines.append(
                f"{'  ' * depth}{folders[depth]}/ ({_files(count)}, {short_tokens(tokens)})"
            )
        opened = folders
        indent = "  " * len(folders)
        lines.append(f"{indent}{parts[-1]} {short_tokens(f.tokens)}")
        lines += _symbol_lines(f.symbols, indent + "  ")
    header = (
        f"PROJECT {name}{where}: {_files(len(pmap.files))}, {short_tokens(pmap.total_tokens)} "
        "tokens to read them all (sizes in tokens; "
        + (
            "symbols with their line ranges"
            if pmap.detail == "symbols"
            else "detail=symbols lists classes and functions"
        )
        + ")"
    )
    body = "\n".join([header, *lines])
    return body + f"\n(map: ~{short_tokens(estimate_tokens(body))} tokens)"


def _files(n: int) -> str:
    return f"{n} file" if n == 1 else f"{n} files"


def _symbol_lines(symbols: list[dict], indent: str) -> list[str]:
    """One line per symbol; a method is indented as ``.name`` only right under its own class
    (Go puts methods anywhere in a file, so a method after other symbols keeps its owner)."""
    out = []
    current = None  # the class whose members the lines just above are
    for sym in symbols:
        name, kind = sym.get("name", ""), sym.get("kind", "")
        span = f"{sym.get('start_line', 0)}-{sym.get('end_line', 0)}"
        if kind == "class":
            current = name
            out.append(f"{indent}class {name} {span}")
            continue
        owner, _, member = name.rpartition(".")
        if kind != "method" or owner != current:
            current = None
        if current is not None:
            out.append(f"{indent}  .{member} {span}")
        elif kind == "section":
            out.append(f"{indent}# {name[:60]} {span}")
        else:
            out.append(f"{indent}{name} {span}")
    return out
