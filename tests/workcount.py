"""Count the work a call into ihmt does, so tests can check how it grows without a clock.

Work is the sum of two counters:
- Python lines executed in ihmt/ (``sys.settrace`` line events);
- for every call of a compiled regex that is a global of an ihmt module (or sits in a tuple or
  list of such globals, bare or as a field of a record): the start positions a search tried
  (``search``: up to the match, or the whole window; ``finditer``/``findall``/``sub``/``split``:
  the whole window) and the characters an anchored ``match``/``fullmatch`` consumed (or, when
  it failed, its window capped at the pattern's longest possible match).

What it does not count: backtracking inside one regex call (the shape check in
tests/test_secrets_corpus.py and the bounded date windows cover that), and work inside other
C functions. A quadratic loop in ihmt, or a search restarted over the rest of the text for
every position, shows up; a call on an input 4x longer should then cost about 16x, not 4x.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import ihmt

try:  # Python 3.11+
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse  # type: ignore[no-redef]

PACKAGE_DIR = str(Path(ihmt.__file__).resolve().parent)
_BIG = 1 << 62


class Meter:
    def __init__(self) -> None:
        self.lines = 0
        self.scanned = 0

    @property
    def work(self) -> int:
        return self.lines + self.scanned


def _window(string, pos: int, endpos: int) -> int:
    n = len(string)
    pos = min(max(pos, 0), n)
    endpos = min(max(endpos, 0), n)
    return max(0, endpos - pos) + 1


class CountingPattern:
    """Stands in for a compiled regex and charges the meter for each call."""

    def __init__(self, real: re.Pattern, meter: Meter) -> None:
        self._real = real
        self._meter = meter
        width = sre_parse.parse(real.pattern, real.flags).getwidth()[1]
        self._longest = width if width < sre_parse.MAXREPEAT else _BIG

    def __getattr__(self, name: str):
        return getattr(self._real, name)

    def search(self, string, pos: int = 0, endpos: int = _BIG):
        m = self._real.search(string, pos, endpos)
        if m is None:
            self._meter.scanned += _window(string, pos, endpos)
        else:
            self._meter.scanned += m.start() - max(pos, 0) + 1
        return m

    def _anchored(self, method, string, pos: int, endpos: int):
        m = method(string, pos, endpos)
        if m is None:
            self._meter.scanned += min(_window(string, pos, endpos), self._longest + 1)
        else:
            self._meter.scanned += m.end() - max(pos, 0) + 1
        return m

    def match(self, string, pos: int = 0, endpos: int = _BIG):
        return self._anchored(self._real.match, string, pos, endpos)

    def fullmatch(self, string, pos: int = 0, endpos: int = _BIG):
        return self._anchored(self._real.fullmatch, string, pos, endpos)

    def finditer(self, string, pos: int = 0, endpos: int = _BIG) -> Iterator[re.Match]:
        self._meter.scanned += _window(string, pos, endpos)
        return self._real.finditer(string, pos, endpos)

    def findall(self, string, pos: int = 0, endpos: int = _BIG) -> list:
        self._meter.scanned += _window(string, pos, endpos)
        return self._real.findall(string, pos, endpos)

    def sub(self, repl, string, count: int = 0):
        self._meter.scanned += len(string) + 1
        return self._real.sub(repl, string, count)

    def subn(self, repl, string, count: int = 0):
        self._meter.scanned += len(string) + 1
        return self._real.subn(repl, string, count)

    def split(self, string, maxsplit: int = 0) -> list:
        self._meter.scanned += len(string) + 1
        return self._real.split(string, maxsplit)


def _counted(value, meter: Meter):
    """``value`` with its regexes replaced by counting ones, or None when it holds none."""
    if isinstance(value, re.Pattern):
        return CountingPattern(value, meter)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: CountingPattern(getattr(value, f.name), meter)
            for f in dataclasses.fields(value)
            if f.init and isinstance(getattr(value, f.name), re.Pattern)
        }
        return dataclasses.replace(value, **changes) if changes else None
    if isinstance(value, (list, tuple)) and value:
        items = [_counted(v, meter) for v in value]
        if all(i is None for i in items):
            return None
        new = [v if i is None else i for v, i in zip(value, items, strict=True)]
        if isinstance(value, list):
            return new
        return type(value)._make(new) if hasattr(value, "_fields") else tuple(new)
    return None


@contextmanager
def metered() -> Iterator[Meter]:
    """Count the work done in ihmt inside the ``with`` block."""
    meter = Meter()
    replaced = []
    for name, module in list(sys.modules.items()):
        if not (name == "ihmt" or name.startswith("ihmt.")):
            continue
        for attr, value in list(vars(module).items()):
            counted = _counted(value, meter)
            if counted is not None:
                replaced.append((module, attr, value))
                setattr(module, attr, counted)

    def local(frame, event, arg):
        if event == "line":
            meter.lines += 1
        return local

    def on_call(frame, event, arg):
        if frame.f_code.co_filename.startswith(PACKAGE_DIR):
            return local
        return None

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        yield meter
    finally:
        sys.settrace(previous)
        for module, attr, value in replaced:
            setattr(module, attr, value)


def measure(call: Callable[[], object]) -> tuple[int, object]:
    """(work, result) of ``call()``."""
    with metered() as meter:
        result = call()
    return meter.work, result


def assert_linear(
    make: Callable[[int], str], run: Callable[[str], object], k: int, slack: float = 4.5
) -> object:
    """Check that ``run`` on ``make(4k)`` costs at most ``slack`` times its work on ``make(k)``
    (4 when linear, 16 when quadratic); returns the result on the longer input."""
    small, large = make(k), make(4 * k)
    run(small)  # warm lazy tables and caches outside the count
    work_small, _ = measure(lambda: run(small))
    work_large, result = measure(lambda: run(large))
    assert work_small > 0, "the meter saw no work: is ihmt imported from elsewhere?"
    assert work_large <= slack * work_small, (
        f"4x the input ({len(small)} -> {len(large)} characters) cost "
        f"{work_large / work_small:.1f}x the counted work ({work_small} -> {work_large}): "
        "not linear"
    )
    return result
