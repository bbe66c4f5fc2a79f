"""IHMT's local web GUI: Set up, Explore, Diagnose and Timeline in the browser.

Standard library only (http.server); the page is plain HTML/CSS/JS shipped in ``static/``.
``run_gui`` is what ``gui.py`` and ``ihmt gui`` call.
"""

from __future__ import annotations


def run_gui(path=None, port: int | None = None, open_browser: bool = True, browse_root=None) -> int:
    """Serve the GUI until Ctrl-C; returns an exit code (imported lazily to keep CLI start fast)."""
    from .server import run_gui as _run

    return _run(path, port, open_browser=open_browser, browse_root=browse_root)


__all__ = ["run_gui"]
