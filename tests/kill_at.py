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
    def handler(name: str) -> None:
        if name == point:
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
