"""How every CLI command writes for a person or a script: one place, so control characters
from stored or received text never reach the terminal raw and ``--json`` stays exact."""

from __future__ import annotations

import json
import sys

from ..text.terminal import json_safe, terminal_safe


def say(text: str = "", *, err: bool = False) -> None:
    """The one place the CLI writes text for a person: control characters from stored or
    received text are shown as visible escapes, never acted on by the terminal."""
    print(terminal_safe(text), file=sys.stderr if err else sys.stdout)


def emit(args, data, text: str) -> None:
    """Print a command's result: exact JSON with --json, else terminal-safe text."""
    if getattr(args, "json", False):
        print(json_safe(json.dumps(data, ensure_ascii=False, indent=2, default=str)))
    else:
        say(text)


class Progress:
    """A plain-text progress bar on stderr, only for long runs on a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()

    def __call__(self, done: int, total: int, name: str) -> None:
        if not self.enabled or total < 20:
            return
        width = 30
        filled = width * done // max(total, 1)
        bar = "#" * filled + "-" * (width - filled)
        sys.stderr.write(f"\r[{bar}] {done}/{total} files")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()
