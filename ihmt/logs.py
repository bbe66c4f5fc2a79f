"""Loggers that import ``logging`` on their first use.

The agent hooks open the store on every prompt and log nothing on a healthy read; importing
``logging`` (and the traceback machinery it pulls in) would cost each prompt about 10 ms of
start-up. A module that logs on the store's read path writes ``log = get_logger("ihmt.store")``;
every call goes to ``logging.getLogger(name)`` as it is at that moment, so handlers, levels and
pytest's caplog behave exactly as with a plain logger.
"""

from __future__ import annotations


class LazyLogger:
    """Stands for ``logging.getLogger(name)``; loads ``logging`` when first asked for anything."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, attr: str):
        import logging

        return getattr(logging.getLogger(self.name), attr)

    def __repr__(self) -> str:
        return f"LazyLogger({self.name!r})"


def get_logger(name: str) -> LazyLogger:
    return LazyLogger(name)
