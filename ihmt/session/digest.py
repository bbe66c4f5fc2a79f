"""Condense a long command log (build, test run) into the lines an agent actually needs.

A 5,000-line test log costs thousands of tokens, yet what matters is the start, the
errors, the test totals and the end. The digest keeps those in their original order and
marks every gap with "… (K lines omitted)", so the agent sees where things happened.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from .. import re_cache
from ..text.clean import one_line

MAX_LINE_CHARS = 1000
MAX_TOTALS = 50

_ANSI = re_cache.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]")
_CONTROL = re_cache.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")

# Each rule is (literal hint, pattern). str.find runs over the whole log in C, so only
# lines holding a hint pay for a regex, and only for that hint's small pattern: a million-line
# log stays fast. A hint starting with "\n" means "at the start of a line"; a pattern of None
# means the hint alone is enough.
Rule = tuple[str, re.Pattern[str] | None]

_PYTEST_TOTAL = re_cache.compile(
    r"^=*[ \t]*\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?)\b"
    r".*(?:\bin \d+(?:\.\d+)?s\b|=[ \t]*$)"
)
_MOCHA_TOTAL = re_cache.compile(r"^[ \t]*\d+ (?:passing|failing|pending)\b")

_ERROR_RULES: tuple[Rule, ...] = (
    ("ERR", re_cache.compile(r"\bERROR\b|\bERR!")),  # ERROR, [ERROR], npm ERR!
    ("FAIL", re_cache.compile(r"\bFAIL(?:ED|URE)?\b")),  # FAILED, FAIL, --- FAIL, BUILD FAILURE
    ("Error", re_cache.compile(r"Error:|\bAssertionError\b")),  # ValueError: ..., Error: ...
    ("Exception", re_cache.compile(r"Exception\b")),
    ("Traceback", re_cache.compile(r"\bTraceback \(most recent call last\)")),
    ("panic:", None),
    ("error", re_cache.compile(r"\berror(?:\[E\d+\])?:|\berror TS\d+")),  # gcc, rustc, tsc
    ("\nE  ", None),  # pytest assertion detail lines
    ("\nE\t", None),
    ("✗", None),
    ("✘", None),
    ("✕", None),
)
_TOTALS_RULES: tuple[Rule, ...] = (
    # pytest: "5 passed, 1 failed in 0.3s", "=== 1 failed, 2 passed ===", "no tests ran"
    *((hint, _PYTEST_TOTAL) for hint in ("passed", "failed", " error", "skipped", "deselected")),
    ("no tests ran", re_cache.compile(r"^=*[ \t]*no tests ran\b")),
    # unittest (a bare "OK" is handled separately: it needs a "Ran" line just before)
    ("\nRan ", re_cache.compile(r"^Ran \d+ tests? in \d+(?:\.\d+)?s")),
    ("\nFAILED (", re_cache.compile(r"^FAILED \((?:failures|errors)=\d+.*\)[ \t]*$")),
    # jest
    (" total", re_cache.compile(r"^(?:Tests|Test Suites|Snapshots):[ \t]+.*\b\d+ total\b")),
    # go test
    ("\nok", re_cache.compile(r"^ok[ \t]+\S+[ \t]+(?:\d+(?:\.\d+)?s|\(cached\))")),
    (
        "\nFAIL",
        re_cache.compile(r"^FAIL[ \t]+\S+(?:[ \t]+\d+(?:\.\d+)?s|[ \t]+\[[^\]]+\])?[ \t]*$"),
    ),
    ("--- FAIL", re_cache.compile(r"^[ \t]*--- FAIL: \S+")),
    # cargo
    ("\ntest result: ", re_cache.compile(r"^test result: (?:ok|FAILED)\. \d+ passed; \d+ failed")),
    # maven / gradle
    ("Tests run: ", re_cache.compile(r"Tests run: \d+, Failures: \d+, Errors: \d+, Skipped: \d+")),
    ("BUILD ", re_cache.compile(r"\bBUILD (?:SUCCESS|FAILURE|SUCCESSFUL|FAILED)\b")),
    (" completed, ", re_cache.compile(r"^\d+ tests? completed, \d+ failed")),
    # mocha
    *((hint, _MOCHA_TOTAL) for hint in ("passing", "failing", "pending")),
)
SCAN_CHARS = 4000  # long lines are only checked near the hint
_UNITTEST_OK = re_cache.compile(r"^OK(?: \(.*\))?[ \t]*$")
_RAN = re_cache.compile(r"^Ran \d+ tests? in ")


@dataclass
class Digest:
    """The condensed text plus what was recognised, for presenters to format."""

    text: str
    total_lines: int
    error_lines: int
    totals: list[str]


def digest_output(
    text: str,
    label: str = "output",
    *,
    head: int = 8,
    tail: int = 12,
    max_lines: int = 60,
) -> Digest:
    """Condense ``text``: header, head lines, errors, test totals, tail lines.

    Never raises on any ``str``; output stays within ``max_lines`` plus a few marker lines.
    """
    original_chars = len(text) if isinstance(text, str) else 0
    lines = _clean_lines(text if isinstance(text, str) else "")
    label = one_line(str(label), 200) or "output"
    total = len(lines)
    max_lines = max(1, int(max_lines))
    head, tail = _fit_head_tail(max(0, int(head)), max(0, int(tail)), max_lines)

    scan = "\n" + "\n".join(lines)
    starts = _line_starts(lines)
    error_idx = _matching_lines(_ERROR_RULES, lines, scan, starts)
    totals_idx = _find_totals(lines, scan, starts)
    totals = _unique([lines[i].strip() for i in totals_idx])[:MAX_TOTALS]
    header = f"[{label}] {total} lines, {original_chars} chars"

    if not any(line.strip() for line in lines):
        body = f"[{label}] output was empty ({total} lines, {original_chars} chars)"
        return Digest(body, total, 0, [])
    if total <= head + tail:
        body = "\n".join([header, *(_clip(line) for line in lines)])
        return Digest(body, total, len(error_idx), totals)

    keep: dict[int, str] = {i: _clip(lines[i]) for i in range(head)}
    keep.update({i: _clip(lines[i]) for i in range(total - tail, total)})
    middle = range(head, total - tail)
    budget = max_lines - head - tail
    mid_totals = [i for i in totals_idx if i in middle]
    reserve = min(len(mid_totals) * 2, budget // 2)
    spent, more = _pick_errors(lines, error_idx, middle, budget - reserve, keep)
    # The last totals lines are usually the final summary, so they win the leftover budget.
    room = max(0, budget - spent) // 2
    for i in mid_totals[-room:] if room else []:
        keep.setdefault(i, _clip(lines[i]))

    out = [header]
    previous = -1
    for i in sorted(keep):
        if i - previous > 1:
            out.append(_gap(i - previous - 1))
        out.append(keep[i])
        previous = i
    if previous < total - 1:
        out.append(_gap(total - 1 - previous))
    if more:
        out.append(f"… ({more} more error lines not shown)")
    return Digest("\n".join(out), total, len(error_idx), totals)


def _pick_errors(
    lines: list[str], error_idx: list[int], middle: range, budget: int, keep: dict[int, str]
) -> tuple[int, int]:
    """Add distinct middle error lines (+ a line of context) to ``keep`` within budget.

    Each pick is charged one extra line for the gap marker it may create.
    Returns (lines spent, distinct error lines left out).
    """
    groups: dict[str, list[int]] = {}
    for i in error_idx:
        if i in middle:
            groups.setdefault(re.sub(r"\d+", "#", lines[i].strip()), []).append(i)
    spent = skipped = 0
    for members in groups.values():
        first = members[0]
        context = first + 1
        with_context = (
            context in middle
            and context not in keep
            and lines[context][:1] in (" ", "\t")
            and lines[context].strip()
            and not _is_error(lines[context])
        )
        # pytest marks the failing source line with ">" just above its "E" lines.
        before = first - 1
        with_before = before in middle and before not in keep and lines[before].startswith(">")
        cost = 2 + int(bool(with_context)) + int(with_before)
        if first in keep:
            continue
        if spent + cost > budget:
            skipped += 1
            continue
        line = _clip(lines[first])
        if len(members) > 1:
            line = f"{line}  [+{len(members) - 1} similar]"
        keep[first] = line
        if with_context:
            keep[context] = _clip(lines[context])
        if with_before:
            keep[before] = _clip(lines[before])
        spent += cost
    return spent, skipped


def _line_starts(lines: list[str]) -> list[int]:
    """Offset of each line's leading "\\n" in the scan text ``"\\n" + "\\n".join(lines)``."""
    starts, pos = [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line) + 1
    return starts


def _matching_lines(
    rules: tuple[Rule, ...], lines: list[str], scan: str, starts: list[int]
) -> list[int]:
    """Sorted indices of lines where some rule's hint occurs and its pattern confirms it."""
    found: set[int] = set()
    for hint, pattern in rules:
        anchored = hint.startswith("\n")
        pos = scan.find(hint)
        while pos >= 0:
            index = bisect.bisect_right(starts, pos + len(hint) - 1) - 1
            if index not in found:
                offset = 0 if anchored else pos - starts[index] - 1
                if _confirm(pattern, lines[index], offset):
                    found.add(index)
            if index + 1 >= len(starts):
                break
            pos = scan.find(hint, starts[index + 1])
    return sorted(found)


def _confirm(pattern: re.Pattern[str] | None, line: str, offset: int) -> bool:
    """Run ``pattern`` on the line, or on a window around the hint when the line is huge."""
    if pattern is None:
        return True
    if len(line) > SCAN_CHARS:
        line = line[max(0, offset - 1) : offset + 200] if offset else line[:SCAN_CHARS]
    return pattern.search(line) is not None


def _is_error(line: str) -> bool:
    """The per-line form of the error rules, for the odd single line."""
    for hint, pattern in _ERROR_RULES:
        if hint.startswith("\n"):
            present = line.startswith(hint[1:])
        else:
            present = hint in line
        if present and _confirm(pattern, line, max(0, line.find(hint))):
            return True
    return False


def _find_totals(lines: list[str], scan: str, starts: list[int]) -> list[int]:
    """Indices of lines that carry test totals; a bare unittest "OK" needs a "Ran" line first."""
    found = _matching_lines(_TOTALS_RULES, lines, scan, starts)
    for ran in [i for i in found if _RAN.match(lines[i])]:
        found.extend(
            i for i in range(ran + 1, min(ran + 4, len(lines))) if _UNITTEST_OK.match(lines[i])
        )
    return sorted(set(found))


def _clean_lines(text: str) -> list[str]:
    """Split into display lines: strip ANSI colours, keep what a terminal shows after \\r."""
    text = text.encode("utf-8", "replace").decode("utf-8", "replace")
    text = _ANSI.sub("", text.replace("\r\n", "\n"))
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    cleaned = []
    for line in lines:
        if "\r" in line:
            parts = [p for p in line.split("\r") if p]
            line = parts[-1] if parts else ""
        cleaned.append(_CONTROL.sub("\ufffd", line))
    return cleaned


def _fit_head_tail(head: int, tail: int, max_lines: int) -> tuple[int, int]:
    """Shrink head/tail proportionally so together they never exceed ``max_lines``."""
    if head + tail <= max_lines:
        return head, tail
    new_head = max_lines * head // (head + tail)
    return new_head, max_lines - new_head


def _gap(n: int) -> str:
    return f"… ({n} line{'' if n == 1 else 's'} omitted)"


def _clip(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]}… [+{len(line) - MAX_LINE_CHARS} chars]"


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
