"""Launcher for kill tests: run Python code that SIGKILLs its own process at a named
fault-injection checkpoint (``ihmt.faults``), so a test interrupts an operation at an exact
instant. The library never kills itself; only this test-side handler does.

    python -m tests.kill_at POINT CODE [ARG ...]

runs CODE as ``python -c CODE ARG ...`` would. A process that ends with -9 (SIGKILL) was
killed at POINT, in the middle of the operation; one that ends normally never reached it.
"""

from __future__ import annotations

import os
import signal
import sys

from ihmt import faults


def kill_at(point: str) -> faults.Handler:
    """Kill at ``point``, or at its n-th time with ``point#n``."""
    name_wanted, _, nth = point.partition("#")
    remaining = [int(nth) if nth else 1]

    def handler(name: str) -> None:
        if name != name_wanted:
            return
        remaining[0] -= 1
        if remaining[0] == 0:
            sys.stderr.flush()
            os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))

    return handler


def main() -> None:
    point, code, *args = sys.argv[1:]
    faults.install(kill_at(point))
    sys.argv = ["-c", *args]
    exec(compile(code, "<kill_at>", "exec"), {"__name__": "__main__"})


if __name__ == "__main__":
    main()
