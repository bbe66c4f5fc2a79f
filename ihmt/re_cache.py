"""Regular expressions a new process does not assemble again.

Each agent hook is a new interpreter, and Python's ``re`` parses and assembles every pattern in
Python code: this package's patterns cost a prompt hook about 75 ms of its ~270 (2-core
machine), a third of the start-up. ``compile`` keeps each pattern's assembled program in a
per-user cache file that the next process reads once (a few ms); the pattern's own text and
flags are the key, so an edited pattern simply assembles again.

A cached program is handed to ``_sre.compile``, the constructor ``re.compile`` itself ends
with, which checks the program and raises on an invalid one. The file is untrusted bytes like
any other: an entry of the wrong shape or a program the checker refuses is assembled afresh,
and anything unexpected (another interpreter, a changed private API) turns the cache off for
the rest of the process, so a pattern is never compiled differently from ``re.compile``.

Only patterns written in this package's code go through it. One built from text the package
reads (a name in a question, a heredoc's terminator, a user's fact rule) is compiled by
``re.compile``: the cache never holds a word of anyone's memory, and does not grow with use.

``IHMT_RE_CACHE=off`` turns it off; ``IHMT_RE_CACHE=<file>`` puts the file elsewhere (the
tests do). The default is ``$XDG_CACHE_HOME/ihmt`` or ``~/.cache/ihmt``, one file per
interpreter version.
"""

from __future__ import annotations

import atexit
import base64
import binascii
import json
import os
import re
import sys
from array import array
from functools import lru_cache
from pathlib import Path

ENV = "IHMT_RE_CACHE"
MAX_FILE_BYTES = 8 * 1024 * 1024  # a larger file is not read (and is rewritten smaller)
MAX_ENTRIES = 1000  # past this, a rewrite keeps only the patterns this process used (the
# package has about 450; the rest are older versions of edited ones)

_state: dict = {"loaded": None, "new": {}, "used": set(), "off": False, "registered": False}
_DEBUG = int(re.DEBUG)


def compile(pattern, flags=0) -> re.Pattern:  # the name: it stands in for re.compile
    """``re.compile(pattern, flags)``, from the cache when this pattern was assembled before."""
    flags = int(flags)
    if _state["off"] or not isinstance(pattern, str) or flags & _DEBUG:
        return re.compile(pattern, flags)
    key = f"{flags}:{pattern}"
    entries = _entries()
    if entries is None:
        return re.compile(pattern, flags)
    cached = entries.get(key)
    if cached is not None:
        compiled = _from_entry(pattern, cached)
        if compiled is not None:
            _state["used"].add(key)
            return compiled
    return _assemble(pattern, flags, key)


def persist() -> None:
    """Write the patterns assembled since the file was read (nothing when none were). Called
    at exit, and by the hook command itself, which ends without the interpreter's exit."""
    new = _state["new"]
    path = cache_path()
    if not new or path is None or _state["off"]:
        return
    loaded = _state["loaded"] or {}
    if len(loaded) + len(new) <= MAX_ENTRIES:
        merged = {**loaded, **new}
    else:  # mostly older versions of edited patterns: keep what this process used
        merged = {k: v for k, v in loaded.items() if k in _state["used"]} | new
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(merged, separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, path)
    except (OSError, ValueError, TypeError):
        return  # a read-only or full home: the next process assembles again
    _state["loaded"], _state["new"] = merged, {}


def cache_path() -> Path | None:
    setting = os.environ.get(ENV, "").strip()
    if setting.lower() in ("off", "0", "false", "no"):
        return None
    if setting:
        return Path(setting).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.join("~", ".cache")
    name = "re-{}-{}.{}-{}-{}.json".format(
        sys.implementation.name, *sys.version_info[:2], _engine_magic(), sys.byteorder
    )
    return Path(base).expanduser() / "ihmt" / name


def _engine_magic() -> str:
    try:
        import _sre

        return f"{_sre.MAGIC}-{_sre.CODESIZE}"
    except (ImportError, AttributeError):
        return "unknown"


def _entries() -> dict | None:
    """The cache file's entries, read once per process; None when the cache is off."""
    if _state["loaded"] is not None:
        return _state["loaded"]
    path = cache_path()
    if path is None or _assembler() is None:
        _state["off"] = True
        return None
    entries: dict = {}
    try:
        if path.stat().st_size <= MAX_FILE_BYTES:
            data = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                entries = data
    except (OSError, ValueError, UnicodeError, RecursionError):
        pass
    _state["loaded"] = entries
    return entries


@lru_cache(maxsize=1)  # asked once per pattern: looked up once per process
def _assembler():
    """(parse, assemble, construct) of this interpreter's ``re``, or None when they are not
    where CPython 3.10-3.13 keeps them."""
    try:
        import _sre

        if sys.version_info >= (3, 11):
            from re import _compiler, _parser
        else:  # pragma: no cover - Python 3.10
            import sre_compile as _compiler
            import sre_parse as _parser
        return _parser.parse, _compiler._code, _sre.compile
    except (ImportError, AttributeError):
        return None


def _from_entry(pattern: str, entry) -> re.Pattern | None:
    """The pattern built from a cached entry, or None when the entry is not one."""
    try:
        final_flags, code, groups, groupindex, indexgroup = entry
        if not (
            type(final_flags) is int
            and type(groups) is int
            and isinstance(code, str)
            and isinstance(groupindex, dict)
            and all(type(i) is int for i in groupindex.values())
            and isinstance(indexgroup, list)
            and all(name is None or type(name) is str for name in indexgroup)
        ):
            return None
        program = _code_array(base64.b64decode(code, validate=True)).tolist()
        construct = _assembler()[2]
        return construct(pattern, final_flags, program, groups, groupindex, tuple(indexgroup))
    except (TypeError, ValueError, RuntimeError, OverflowError, binascii.Error):
        return None  # the checker refused it: assemble afresh


def _assemble(pattern: str, flags: int, key: str) -> re.Pattern:
    parse, assemble, construct = _assembler()
    try:
        parsed = parse(pattern, flags)
        code = assemble(parsed, flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        final_flags = flags | parsed.state.flags
        groups = parsed.state.groups - 1
        compiled = construct(pattern, final_flags, code, groups, groupindex, tuple(indexgroup))
    except re.error:
        raise
    except Exception:  # the private API is not what it was: re.compile from now on
        _state["off"] = True
        return re.compile(pattern, flags)
    program = base64.b64encode(_code_array(code).tobytes()).decode("ascii")
    _state["new"][key] = [final_flags, program, groups, groupindex, indexgroup]
    _state["used"].add(key)
    if not _state["registered"]:
        _state["registered"] = True
        atexit.register(persist)
    return compiled


def _code_array(items) -> array:
    """The program as machine words of the engine's code size (kept as base64 in the file:
    a list of numbers in JSON takes longer to read than assembling takes)."""
    typecode = _word_type()
    if isinstance(items, bytes | bytearray):
        words = array(typecode)
        words.frombytes(items)
        return words
    return array(typecode, items)


@lru_cache(maxsize=1)
def _word_type() -> str:
    """The array type code whose items are the engine's code words."""
    import _sre

    return next(c for c in "IL" if array(c).itemsize == _sre.CODESIZE)
