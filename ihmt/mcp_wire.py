"""The MCP server's stdio wire: every line a client sends gets an answer.

The SDK's stdio transport drops a line it cannot validate (malformed JSON, a lone surrogate,
deep nesting, a message that is not JSON-RPC) without a reply, so the client waits forever.
Here a reader checks each line first, with the SDK's own validator as the last step: a line the
SDK would take goes on to it unchanged; any other line is answered right here with a JSON-RPC
error, -32700 (parse error, id null) or -32600 (invalid request, with the id when one can be
read). Replies from the SDK and from this reader go through one writer, one whole line at a
time, so they never interleave.

While serving, fd 0 reads the null device and fd 1 writes to stderr (as the SDK does), so a
stray print or a child process never touches the protocol stream.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, BinaryIO

from . import re_cache
from .errors import WireError

log = logging.getLogger("ihmt.mcp")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
MAX_DEPTH = 100  # nesting levels; an MCP message needs about ten, the SDK's parser stops near 200
_STRING = re_cache.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re_cache.compile(r"[\[\]{}]")
_SURROGATE = re_cache.compile("[\ud800-\udfff]")

Validator = Callable[[str], Any]


def _depth(text: str) -> int:
    """Deepest bracket nesting outside strings (cheap: strings are cut out by one regex)."""
    deepest = level = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        level += 1 if bracket in "[{" else -1
        deepest = max(deepest, level)
    return deepest


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return bool(_SURROGATE.search(value))
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _readable_id(message: Any) -> Any:
    """The request's id when it has a valid one (a string or an integer), else None."""
    if isinstance(message, dict):
        rid = message.get("id")
        if isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)):
            return rid
    return None


def _short(text: str, limit: int = 200) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def check_line(raw: bytes, validate: Validator) -> str:
    """The line as text when the SDK can take it; raises WireError with the reply otherwise."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WireError(PARSE_ERROR, f"Parse error: not valid UTF-8 at byte {exc.start}") from None
    if _depth(text) > MAX_DEPTH:
        raise WireError(PARSE_ERROR, f"Parse error: nested deeper than {MAX_DEPTH} levels")
    try:
        message = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise WireError(PARSE_ERROR, f"Parse error: {_short(exc)}") from None
    if _has_lone_surrogate(message):
        raise WireError(
            PARSE_ERROR, "Parse error: a string holds a lone surrogate (U+D800 to U+DFFF)"
        )
    rid = _readable_id(message)
    if not isinstance(message, dict):
        kind = "a batch (array)" if isinstance(message, list) else type(message).__name__
        raise WireError(
            INVALID_REQUEST, f"Invalid Request: a message is one JSON object, not {kind}"
        )
    if message.get("jsonrpc") != "2.0":
        raise WireError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', rid)
    if "id" in message and rid is None:  # the SDK would take it for a notification: no reply
        raise WireError(INVALID_REQUEST, 'Invalid Request: "id" must be a string or an integer')
    try:
        validate(text)
    except Exception as exc:  # the SDK's own verdict, whatever its exception type
        found = exc.errors() if callable(getattr(exc, "errors", None)) else []
        first = found[0] if found else {}
        if first.get("type") == "json_invalid":
            raise WireError(PARSE_ERROR, f"Parse error: {_short(first.get('msg', ''))}") from None
        where = ".".join(str(part) for part in first.get("loc", ()))
        detail = f"{where}: {first.get('msg', '')}" if first else str(exc)
        raise WireError(INVALID_REQUEST, f"Invalid Request: {_short(detail)}", rid) from None
    return text


def sdk_validator() -> Validator:
    """The check the SDK's stdio reader applies to each line."""
    from mcp.types import jsonrpc_message_adapter

    return lambda text: jsonrpc_message_adapter.validate_json(text, by_name=False)


class LineWriter:
    """The protocol output: whole lines, one writer at a time (a thread lock; writes block)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lock = threading.Lock()

    def _write(self, data: bytes) -> None:
        with self._lock:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]

    async def write(self, text: str) -> None:
        import anyio

        # backslashreplace writes a lone surrogate as the JSON escape \udXXX: still valid JSON
        data = text.encode("utf-8", "backslashreplace")
        await anyio.to_thread.run_sync(self._write, data)

    async def flush(self) -> None:
        """Nothing is buffered; here because the SDK's writer calls it."""

    async def reply(self, message: dict) -> None:
        await self.write(json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n")


class CheckedLines:
    """The protocol input as the SDK reads it (``async for line in ...``), invalid lines
    answered and held back."""

    def __init__(self, source: BinaryIO, out: LineWriter, validate: Validator) -> None:
        self._source = source
        self._out = out
        self._validate = validate

    def _next(self) -> str | WireError | None:
        while True:
            raw = self._source.readline()
            if not raw:
                return None
            if not raw.strip():
                continue
            try:
                return check_line(raw.rstrip(b"\r\n"), self._validate)
            except WireError as exc:
                return exc

    def __aiter__(self) -> CheckedLines:
        return self

    async def __anext__(self) -> str:
        import anyio

        while True:
            item = await anyio.to_thread.run_sync(self._next)
            if item is None:
                raise StopAsyncIteration
            if isinstance(item, str):
                return item
            log.warning("answered a bad line with %s", item.reply["error"]["message"])
            await self._out.reply(item.reply)


def _claim_std_fds() -> tuple[int, int, Callable[[], None]]:
    """Private copies of fd 0 and 1 for the protocol; fd 0 then reads /dev/null and fd 1
    writes to stderr. Falls back to the plain descriptors where that cannot be done."""
    try:
        wire_in, wire_out = os.dup(0), os.dup(1)  # non-inheritable: children never get them
    except OSError:
        return 0, 1, lambda: None
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
    except OSError:
        return wire_in, wire_out, lambda: None

    def restore() -> None:
        # the copies stay open: a worker thread may still be blocked reading wire_in
        with contextlib.suppress(OSError):
            os.dup2(wire_in, 0)
            os.dup2(wire_out, 1)

    return wire_in, wire_out, restore


@contextlib.asynccontextmanager
async def checked_stdio(stdio_server: Callable[..., Any]) -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's ``stdio_server`` over the checked reader and the single line writer."""
    wire_in, wire_out, restore = _claim_std_fds()
    out = LineWriter(wire_out)
    lines = CheckedLines(os.fdopen(wire_in, "rb", closefd=False), out, sdk_validator())
    try:
        async with stdio_server(stdin=lines, stdout=out) as streams:
            yield streams
    finally:
        restore()


__all__ = [
    "INVALID_REQUEST",
    "MAX_DEPTH",
    "PARSE_ERROR",
    "WireError",
    "check_line",
    "checked_stdio",
]
