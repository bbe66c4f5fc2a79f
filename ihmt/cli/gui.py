"""``ihmt gui``: the local web interface, with the same options as ``gui.py``/``ihmt-gui``
(one definition in ihmt.gui.options)."""

from __future__ import annotations

from ..gui.options import add_gui_options
from .context import AddCommand, workspace


def register(add: AddCommand) -> None:
    p = add("gui", "local web interface: set up, explore, diagnose, timeline", cmd_gui)
    add_gui_options(p)


def cmd_gui(args) -> int:
    from ..gui import run_gui

    return run_gui(
        workspace(args), args.port, open_browser=not args.no_browser, browse_root=args.browse_root
    )
