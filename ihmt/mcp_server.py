"""The stdio MCP server: IHMT's long-term memory and session tools for AI agents.

A presenter, like the CLI: each tool checks its arguments, makes one call into the library
(the ``IHMT`` facade, ``ScratchPad``, ``FileReadCache``, ``digest_output``) and formats the
answer as plain text for a model. No retrieval logic lives here.

    python3 mcp_server.py            # from a clone; the store is $IHMT_HOME/ihmt_memory
    ihmt-mcp                         # the same, once the package is installed

Why the low-level SDK server rather than MCPServer/FastMCP: the tools are described here as
plain data (name, description, JSON schema, annotations, handler), so the argument schemas,
the forgiving aliases and the error messages are ours and identical on every SDK version.
Two small adapters at the bottom wire that table to mcp 2.x and 1.x. The SDK is an optional
extra, imported only inside ``main()``; everything above the adapters is standard library.

Errors: a bad argument or an ``IHMTError`` becomes a tool error (``isError``) whose text is
one line the agent can act on; an unexpected exception becomes a one-line tool error too and
its traceback goes to stderr. Nothing but the SDK writes to stdout.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger("ihmt.mcp")

SERVER_NAME = "ihmt-memory"
MISSING_SDK = "the MCP server needs the mcp package: pip install -r requirements-mcp.txt"
RECALL_BODY_CHARS = 6000
RECALL_LINE_CHARS = 300
INSTRUCTIONS = (
    "IHMT is the user's long-term memory, shared by all their agents and sessions. Call "
    "search_memory before answering anything that may depend on earlier sessions (decisions, "
    "setup, preferences, people, corrections). Save durable facts with save_memory, dated; use "
    "replaces= when correcting. On AMBIGUOUS ask the user or pass a clue, never guess; always "
    "tell the user about OUTDATED and NOTICE lines; never store secrets. note/recall, read_file "
    "and digest_output are session helpers that save context tokens."
)


class ToolFailure(Exception):
    """A tool call that failed in a way the agent can fix; the message is one line."""


# -- tool table ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """One tool argument: its JSON type, description and the other names accepted for it."""

    name: str
    type: str  # "string", "boolean" or "integer"
    description: str
    required: bool = False
    default: Any = None
    aliases: tuple[str, ...] = ()
    choices: tuple[str, ...] = ()
    expected: str = ""  # what the value means, for "needs `x`: ..." messages


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the agent sees it, plus the handler that answers it."""

    name: str
    description: str
    params: tuple[Param, ...]
    handler: Callable[[dict[str, Any]], str]
    read_only: bool = False
    idempotent: bool = False
    title: str = ""

    def input_schema(self) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        required: list[str] = []
        for param in self.params:
            # One plain type per property (no type lists, no anyOf): every client's schema
            # converter accepts that; an optional argument may also be sent as null.
            prop: dict[str, Any] = {"type": param.type, "description": param.description}
            if param.choices:
                prop["enum"] = list(param.choices)
            if param.default is not None:
                prop["default"] = param.default
            properties[param.name] = prop
            if param.required:
                required.append(param.name)
            for alias in param.aliases:
                properties[alias] = {
                    "type": param.type,
                    "description": f"Alias of `{param.name}`; use `{param.name}`.",
                }
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        return schema

    def annotations(self) -> dict[str, Any]:
        return {
            "title": self.title or self.name.replace("_", " "),
            "readOnlyHint": self.read_only,
            "destructiveHint": False,
            "idempotentHint": self.idempotent,
            "openWorldHint": False,
        }


class ToolBox:
    """The registered tools; ``call`` turns every failure into a one-line ``ToolFailure``."""

    def __init__(self) -> None:
        self._tools: dict[str, ToolSpec] = {}

    def add(self, spec: ToolSpec) -> None:
        if spec.name in self._tools:
            raise ValueError(f"tool {spec.name!r} is registered twice")
        self._tools[spec.name] = spec

    def specs(self) -> list[ToolSpec]:
        return list(self._tools.values())

    def names(self) -> list[str]:
        return list(self._tools)

    def call(self, name: str, arguments: dict[str, Any] | None) -> str:
        spec = self._tools.get(name)
        if spec is None:
            raise ToolFailure(f"unknown tool {name!r}; the tools are: {', '.join(self._tools)}")
        from .errors import IHMTError

        try:
            args, ignored = _check_arguments(spec, arguments)
            text = spec.handler(args)
        except ToolFailure:
            raise
        except IHMTError as exc:
            raise ToolFailure(_one_line(str(exc)) or type(exc).__name__) from None
        except Exception as exc:  # a bug must cost one call, never the server
            log.exception("tool %s failed", name)
            detail = _one_line(str(exc))[:300]
            raise ToolFailure(
                f"{name} failed unexpectedly ({type(exc).__name__}{': ' + detail if detail else ''}); "
                "the details are in the server log"
            ) from None
        if ignored:
            text += f"\n(ignored unknown argument{'s' if len(ignored) > 1 else ''}: {', '.join(ignored)})"
        return text


def _check_arguments(spec: ToolSpec, arguments: Any) -> tuple[dict[str, Any], list[str]]:
    """Resolve aliases, check required arguments and types; return (values, ignored names)."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ToolFailure(f"{spec.name} takes named arguments (a JSON object)")
    known = {p.name for p in spec.params} | {a for p in spec.params for a in p.aliases}
    values: dict[str, Any] = {}
    for param in spec.params:
        raw, given_as = None, param.name
        for key in (param.name, *param.aliases):
            if arguments.get(key) is not None:
                raw, given_as = arguments[key], key
                break
        if raw is None:
            if param.required:
                raise ToolFailure(_needs(spec.name, param))
            values[param.name] = param.default
            continue
        values[param.name] = _convert(spec.name, param, given_as, raw)
    ignored = sorted(k for k in arguments if k not in known)
    return values, ignored


def _needs(tool: str, param: Param) -> str:
    what = param.expected or param.description.split(".")[0]
    aliases = f" (or {', '.join(f'`{a}`' for a in param.aliases)})" if param.aliases else ""
    return f"{tool} needs `{param.name}`{aliases}: {what}"


def _convert(tool: str, param: Param, given_as: str, raw: Any) -> Any:
    kind = _kind(raw)
    if param.type == "string":
        if not isinstance(raw, str):
            raise ToolFailure(f"{tool}: `{given_as}` must be text (a JSON string), not {kind}")
        if param.choices:
            value = raw.strip().lower()
            if value not in param.choices:
                options = " or ".join(f'"{c}"' for c in param.choices)
                raise ToolFailure(f"{tool}: `{given_as}` must be {options}, not {raw!r}")
            return value
        return raw
    if param.type == "boolean":
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, int) and raw in (0, 1):
            return bool(raw)
        if isinstance(raw, str) and raw.strip().lower() in ("true", "false", "yes", "no", "1", "0"):
            return raw.strip().lower() in ("true", "yes", "1")
        raise ToolFailure(f"{tool}: `{given_as}` must be true or false, not {kind}")
    if param.type == "integer":
        if isinstance(raw, bool):
            raise ToolFailure(f"{tool}: `{given_as}` must be a whole number, not {kind}")
        if isinstance(raw, int):
            return raw
        if isinstance(raw, float) and raw.is_integer():
            return int(raw)
        if isinstance(raw, str) and raw.strip().lstrip("-").isdigit():
            return int(raw.strip())
        raise ToolFailure(f"{tool}: `{given_as}` must be a whole number, not {kind}")
    raise ToolFailure(f"{tool}: unsupported argument type for `{given_as}`")  # pragma: no cover


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


# -- session state and handlers --------------------------------------------------------------


def default_home() -> Path:
    """``$IHMT_HOME``, else ``~/.ihmt``: the workspace whose ``ihmt_memory/`` is the store."""
    raw = os.environ.get("IHMT_HOME", "").strip()
    return Path(raw).expanduser() if raw else Path.home() / ".ihmt"


@dataclass
class Session:
    """What one server process owns: the store handle and this session's scratch state.

    One server process serves one agent session, so the scratch pad and the read cache live
    exactly as long as the session. The IHMT handle is opened on first use (start-up stays
    fast) and kept: the library re-reads shared state on every call, so saves made by other
    server processes on the same IHMT_HOME are visible on the next call.
    """

    home: Path = field(default_factory=default_home)
    cwd: Path = field(default_factory=Path.cwd)
    _memory: Any = field(default=None, init=False, repr=False)
    _scratch: Any = field(default=None, init=False, repr=False)
    _files: Any = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def memory(self):
        with self._lock:
            if self._memory is None or not self._memory.layout.exists():
                from .api import IHMT

                self._memory = IHMT.initialize(self.home)
                log.info("memory store: %s", self._memory.path)
            return self._memory

    @property
    def scratch(self):
        if self._scratch is None:
            from .session.scratch import ScratchPad

            self._scratch = ScratchPad()
        return self._scratch

    @property
    def files(self):
        if self._files is None:
            from .session.file_cache import FileReadCache

            self._files = FileReadCache(root=self.cwd)
        return self._files

    # -- long-term memory --------------------------------------------------------------------
    def project(self, args: dict[str, Any]) -> str:
        """The project a call is about: the ``project`` argument ("global" = none), else the
        project of the folder the agent started this server in (its git remote or path)."""
        from .loop.project import project_arg, project_of

        given = project_arg(args.get("project"), self.cwd)
        return project_of(self.cwd) if given is None else given

    def search_memory(self, args: dict[str, Any]) -> str:
        from .render import compact_answer

        query = _required_text("search_memory", "query", args["query"], "the words to look for")
        clue = (args["clue"] or "").strip() or None
        result = self.memory().search(query, clue=clue, project=self.project(args) or None)
        return compact_answer(result, full=args["detail"] == "full")

    def save_memory(self, args: dict[str, Any]) -> str:
        from .errors import SecretDetectedError

        content = _required_text(
            "save_memory", "content", args["content"], "the text of the memory to save"
        )
        try:
            report = self.memory().save(
                content,
                domain=(args["domain"] or "general").strip() or "general",
                content_type=(args["content_type"] or "auto").strip() or "auto",
                replaces=args["replaces"] or "",
                project=self.project(args),
            )
        except SecretDetectedError as exc:
            raise ToolFailure(
                f"NOT SAVED — {_one_line(str(exc))}. Ask the user what to do; never store "
                "credentials (API keys, tokens, passwords) in memory."
            ) from None
        return format_save_report(report, args["replaces"] or "")

    def mark_outdated(self, args: dict[str, Any]) -> str:
        old_id = _required_text(
            "mark_outdated", "old_id", args["old_id"], "the id of the corrected memory"
        )
        new_id = _required_text(
            "mark_outdated", "new_id", args["new_id"], "the id of its correction"
        )
        notice = self.memory().mark_outdated(old_id.strip(), new_id.strip())
        return notice + "\nRelay this to the user if it changes an answer you gave."

    # -- session scratch memory --------------------------------------------------------------
    def note(self, args: dict[str, Any]) -> str:
        text = _required_text("note", "text", args["text"], "the text to keep for this session")
        kept = self.scratch.note(text)
        return (
            f"NOTED #{kept.note_id} (session only, not saved to long-term memory). "
            "Get it back with recall('<words from the note>')."
        )

    def recall(self, args: dict[str, Any]) -> str:
        query = _required_text("recall", "query", args["query"], "words from the note to find")
        clue = (args["clue"] or "").strip() or None
        return format_recall(self.scratch.recall(query, clue=clue), query, clue)

    def read_file(self, args: dict[str, Any]) -> str:
        path = _required_text("read_file", "path", args["path"], "the file to read")
        result = self.files.read(
            path, force=args["force"], start_line=args["start_line"], end_line=args["end_line"]
        )
        return format_read(result, args["start_line"], args["end_line"])

    def digest_output(self, args: dict[str, Any]) -> str:
        from .session.digest import digest_output

        text = args["text"]
        label = " ".join((args["label"] or "output").split())[:200] or "output"
        digest = digest_output(text, label)
        # The label heads the stored copy so recall('<label>') finds it by that name.
        self.scratch.store_output(f"[{label}] full output\n{text}", label)
        return f"{digest.text}\nfull text kept: recall('{label}')"


def _required_text(tool: str, name: str, value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ToolFailure(f"{tool} needs `{name}`: {what} (it is empty)")
    return value


# -- formatting ------------------------------------------------------------------------------


def format_save_report(report: Any, replaces: str) -> str:
    """How a save was filed, what it taught, and what the agent must tell the user."""
    ids = ", ".join(report.leaf_ids) or "(none)"
    leaves = len(report.leaf_ids)
    verb = "SAVED" if report.new else "ALREADY KNOWN (the same text was saved before)"
    pieces = f" in {leaves} pieces" if leaves > 1 else ""
    lines = [f"{verb}{pieces}: id {ids} · domain {report.domain} · type {report.data_type}"]
    if report.facts:
        lines.append("FACTS: " + "; ".join(report.facts))
    for notice in report.notices:
        lines.append(f"NOTICE (tell the user): {notice}")
    new_id = report.leaf_ids[0] if report.leaf_ids else "<new id>"
    status = report.replaces_status
    if status == "linked" and report.replaced_id:
        lines.append(
            f"REPLACES: linked — the earlier memory {report.replaced_id} is now OUTDATED; searches "
            "answer with this one first."
        )
    elif status == "linked":
        lines.append(
            "REPLACES: the memory described is this same text; nothing was marked OUTDATED."
        )
    elif status == "candidates":
        lines.append(
            f'REPLACES: several earlier memories could match "{_one_line(replaces)}"; none was '
            f"marked. Pick the one this corrects (ask the user if unsure) and call "
            f'mark_outdated(old_id="<its id>", new_id="{new_id}"):'
        )
        for cand in report.candidates:
            excerpt = _one_line(cand.get("excerpt", ""))[:140]
            lines.append(f"  - {cand.get('id')} ({cand.get('date', '')}): {excerpt}")
    elif status == "not_found":
        lines.append(
            f'REPLACES: no earlier memory matched "{_one_line(replaces)}"; saved as new, nothing '
            "marked OUTDATED."
        )
    return "\n".join(lines)


def format_recall(result: Any, query: str, clue: str | None) -> str:
    asked = query if not clue else f"{query} + {clue}"
    if result.not_found or not result.hits:
        return f'NOT FOUND: no note in this session matches "{_one_line(asked)[:120]}".'
    lines: list[str] = []
    if result.ambiguous:
        lines.append(
            f'AMBIGUOUS: several notes match "{_one_line(asked)[:120]}" equally well; call recall '
            "again with a clue, or use the one you meant:"
        )
        for note, _score in result.hits:
            lines.append(f"  #{note.note_id} [{note.label}] {_one_line(note.text)[:140]}")
        return "\n".join(lines)
    best = result.hits[0][0]
    lines.append(f"BEST (note #{best.note_id}, {best.label}, {best.created}):")
    lines.append(note_body(best.text, query, clue))
    if len(result.hits) > 1:
        lines.append("OTHER MATCHES:")
        for note, _score in result.hits[1:]:
            lines.append(f"- #{note.note_id} [{note.label}] {_one_line(note.text)[:140]}")
    return "\n".join(lines)


def note_body(text: str, query: str, clue: str | None, limit: int = RECALL_BODY_CHARS) -> str:
    """The note itself, or for a long stored output the lines that mention the asked words."""
    if len(text) <= limit:
        return text
    from .text.tokenize import terms

    wanted = set(terms(query)) | set(terms(clue or ""))
    lines = text.splitlines()
    header = lines[0] if lines and lines[0].startswith("[") else ""
    wanted -= set(terms(header))
    hits = [i for i, line in enumerate(lines) if i and wanted & set(terms(line))] if wanted else []
    out: list[str] = []
    used = 0
    previous = -1
    for i in hits:
        for j in (i - 1, i, i + 1):
            if j <= previous or j < 1 or j >= len(lines):
                continue
            if j - previous > 1 and out:
                out.append("…")
            line = (
                lines[j]
                if len(lines[j]) <= RECALL_LINE_CHARS
                else lines[j][:RECALL_LINE_CHARS] + "…"
            )
            out.append(f"{j}: {line}")
            used += len(line) + 8
            previous = j
        if used >= limit:
            break
    if out:
        shown = f"lines that mention {', '.join(sorted(wanted))} ({len(lines)} lines in all)"
        return f"{header}\n[{shown}]\n" + "\n".join(out)
    head = text[:limit].rstrip()
    return (
        f"{head}\n… ({len(text) - len(head):,} more characters; recall again with words from the "
        "part you need, e.g. an error name, to get just those lines)"
    )


def format_read(result: Any, start: int | None, end: int | None) -> str:
    if result.status == "UNCHANGED":
        return f"{result.text}: {result.path} (force=true gives the full text again)"
    if result.status == "DIFF":
        return f"DIFF since your last read of {result.path} ({result.total_lines} lines now):\n{result.text}"
    if result.status == "RANGE":
        first = start or 1
        last = min(end or result.total_lines, result.total_lines)
        return f"LINES {first}-{last} of {result.path} ({result.total_lines} lines):\n{result.text}"
    return f"FULL {result.path} ({result.total_lines} lines):\n{result.text}"


# -- the tools -------------------------------------------------------------------------------

SEARCH_DESCRIPTION = """\
Search the user's long-term memory: what they or their agents saved in earlier sessions.

Call it BEFORE answering anything that may depend on earlier sessions: past decisions and \
their reasons, the user's setup and environment, preferences, people, projects, earlier \
corrections. It is cheap (a few hundred tokens) and returns only what the question needs.

Arguments:
- query (required): the words to look for. Examples: "staging database version", "Luis", \
"why did we drop Redis". `q` and `text` are accepted as aliases.
- clue: extra words that pick between candidates after an AMBIGUOUS answer: a place, a date, \
a project ("Benidorm", "2024", "billing service").
- detail: "compact" (default) or "full" (adds ids, tree paths and excerpts; use it when you \
need an id for mark_outdated).
- project: whose memories come first. Default: the project this session runs in (its git \
remote, else its folder); its memories and global ones rank above other projects'. Give a \
project name, a folder or a git URL to look from another project.

The answer, in plain text:
- BEST (date, source, confidence): the memory that answers, with its date.
- "OUTDATED — …": that memory was corrected later. Tell the user and prefer the newer one.
- OTHER MATCHES: one line per other match; [OUTDATED] marks corrected ones.
- NOTICE: a change over time (e.g. the user moved city). Relay it to the user.
- AMBIGUOUS: several memories fit equally well (e.g. three people called Luis). Do not guess: \
ask the user which one they mean, or call again with clue=...
- NOT FOUND: memory holds nothing on this. Say so; do not invent an answer.\
"""

SAVE_DESCRIPTION = """\
Save a durable fact to the user's long-term memory, so every future session (and their other \
agents) knows it.

Save: decisions and their reasons, the user's environment and setup, preferences, people and \
projects, and corrections of something remembered earlier. Write one self-contained statement \
that starts with its date, e.g. "2025-03-02: staging moved to PostgreSQL 17 for logical \
replication." Do not save: secrets (API keys, tokens, passwords: they are refused), \
small talk, things that only matter in this session (use note), whole files.

Arguments:
- content (required): the text to remember. `memory` and `text` are accepted as aliases.
- domain: a topic label such as "personal", "work.billing", "software.python"; "general" \
(default) lets IHMT classify it.
- content_type: "auto" (default) or CODE, NARRATIVE, CLINICAL, PERSONAL, PROCESS, GENERIC.
- replaces: when this corrects an earlier memory, a few words describing that memory (e.g. \
"staging database version"). The old one stays as history, flagged OUTDATED, and searches \
answer with the new one first.
- project: the project this memory belongs to. Default: the project this session runs in, so \
it ranks first there. Pass "global" for what holds everywhere: the user's preferences, their \
machine and tools, people.

Returns how it was filed (id, domain, type) and the facts extracted; NOTICE lines when the \
save contradicts something remembered earlier (tell the user); and for replaces: linked (the \
old id is now OUTDATED), several candidates listed with ids (call mark_outdated with the right \
one), or nothing matched. An error saying the text looks like a credential means NOTHING was \
saved: ask the user, and never store credentials.\
"""

MARK_DESCRIPTION = """\
Flag one memory as corrected by another. Use it when save_memory(replaces=...) listed several \
candidates: pick the memory the new one corrects (ask the user if unsure), then pass its id as \
old_id and the new memory's id as new_id. Ids look like "L-personal-0003-1a2b3c4d5e"; \
save_memory prints the new id and search_memory(detail="full") shows the others. Nothing is \
deleted: the old memory stays as history and searches show it as OUTDATED. Returns the notice \
to relay to the user.\
"""

NOTE_DESCRIPTION = """\
Keep a note for the rest of THIS session: an intermediate finding, a plan, a path or command \
you will need again. It survives a context compaction and disappears when the session ends; it \
is never written to long-term memory (use save_memory for durable facts). Argument: text \
(required). Get it back with recall.\
"""

RECALL_DESCRIPTION = """\
Find what this session kept with note, or a full output kept by digest_output.

Arguments:
- query (required): words from the note, or the label given to digest_output (e.g. \
"pytest-run", or "pytest-run AssertionError" for just the lines about that). `q` and `text` \
are accepted as aliases.
- clue: extra words that pick between notes after an AMBIGUOUS answer.

Returns BEST with the note's text (for a long output: the lines that mention your words), \
OTHER MATCHES, AMBIGUOUS (give a clue) or NOT FOUND. Session scratch only: for earlier \
sessions use search_memory.\
"""

READ_DESCRIPTION = """\
Read a text file and remember what this session already received, to save tokens: the first \
read returns FULL text; a later read returns "UNCHANGED" when the file did not change, or \
only a unified DIFF of what changed since your last read.

Arguments:
- path (required): the file. A relative path resolves against the server's working \
directory ({cwd}).
- force: true returns the full text again (e.g. after a context compaction).
- start_line, end_line: 1-based, inclusive; return only those lines (LINES …). A range read \
does not change what counts as already read.

Binary files and files over 256 KB are refused with a message; read those by line range.\
"""

DIGEST_DESCRIPTION = """\
Condense a long command output (a test run, a build log) to what matters: the first lines, \
the error and failure lines, the test totals and the last lines, with "… (N lines omitted)" \
where lines were skipped. The full text is kept for this session: recall('<label>'), or \
recall('<label> <words>') for the lines that mention those words, gets omitted parts back.

Arguments:
- text (required): the raw output.
- label: a short name for it, e.g. "pytest-run-2" (default "output").\
"""


def build_toolbox(session: Session | None = None) -> ToolBox:
    """Every tool this server offers, bound to one session's state."""
    session = session or Session()
    box = ToolBox()
    query_aliases = ("q", "text")
    box.add(
        ToolSpec(
            "search_memory",
            SEARCH_DESCRIPTION,
            (
                Param(
                    "query",
                    "string",
                    "The words to look for.",
                    required=True,
                    aliases=query_aliases,
                    expected="the words to look for",
                ),
                Param("clue", "string", "Extra words that narrow an AMBIGUOUS answer."),
                Param(
                    "detail",
                    "string",
                    '"compact" (default) or "full".',
                    default="compact",
                    choices=("compact", "full"),
                ),
                Param(
                    "project",
                    "string",
                    "Whose memories rank first; default: the project this session runs in.",
                    default="",
                ),
            ),
            session.search_memory,
            read_only=True,
            idempotent=True,
            title="Search long-term memory",
        )
    )
    box.add(
        ToolSpec(
            "save_memory",
            SAVE_DESCRIPTION,
            (
                Param(
                    "content",
                    "string",
                    "The text to remember, ideally starting with its date.",
                    required=True,
                    aliases=("memory", "text"),
                    expected="the text of the memory to save",
                ),
                Param(
                    "domain",
                    "string",
                    'Topic label; "general" lets IHMT classify it.',
                    default="general",
                ),
                Param(
                    "content_type",
                    "string",
                    '"auto" or CODE, NARRATIVE, CLINICAL, PERSONAL, PROCESS, GENERIC.',
                    default="auto",
                ),
                Param(
                    "replaces",
                    "string",
                    "A few words describing the earlier memory this one corrects.",
                    default="",
                ),
                Param(
                    "project",
                    "string",
                    'The project it belongs to; default: this session\'s; "global" for none.',
                    default="",
                ),
            ),
            session.save_memory,
            title="Save to long-term memory",
        )
    )
    box.add(
        ToolSpec(
            "mark_outdated",
            MARK_DESCRIPTION,
            (
                Param(
                    "old_id",
                    "string",
                    "Id of the memory that was corrected.",
                    required=True,
                    expected="the id of the corrected memory",
                ),
                Param(
                    "new_id",
                    "string",
                    "Id of the memory that corrects it.",
                    required=True,
                    expected="the id of the memory that corrects it",
                ),
            ),
            session.mark_outdated,
            idempotent=True,
            title="Mark a memory outdated",
        )
    )
    box.add(
        ToolSpec(
            "note",
            NOTE_DESCRIPTION,
            (
                Param(
                    "text",
                    "string",
                    "What to keep for this session.",
                    required=True,
                    expected="the text to keep for this session",
                ),
            ),
            session.note,
            title="Session note",
        )
    )
    box.add(
        ToolSpec(
            "recall",
            RECALL_DESCRIPTION,
            (
                Param(
                    "query",
                    "string",
                    "Words from the note, or a digest_output label.",
                    required=True,
                    aliases=query_aliases,
                    expected="words from the note to find",
                ),
                Param("clue", "string", "Extra words that narrow an AMBIGUOUS answer."),
            ),
            session.recall,
            read_only=True,
            idempotent=True,
            title="Recall a session note",
        )
    )
    box.add(
        ToolSpec(
            "read_file",
            READ_DESCRIPTION.format(cwd=session.cwd),
            (
                Param(
                    "path",
                    "string",
                    "The file to read; relative to the server's working directory.",
                    required=True,
                    expected="the path of the file to read",
                ),
                Param("force", "boolean", "true returns the full text again.", default=False),
                Param("start_line", "integer", "First line to return (1-based)."),
                Param("end_line", "integer", "Last line to return (inclusive)."),
            ),
            session.read_file,
            read_only=True,
            title="Read a file (cached)",
        )
    )
    box.add(
        ToolSpec(
            "digest_output",
            DIGEST_DESCRIPTION,
            (
                Param(
                    "text",
                    "string",
                    "The raw command output.",
                    required=True,
                    expected="the command output to condense",
                ),
                Param("label", "string", "A short name for recall.", default="output"),
            ),
            session.digest_output,
            read_only=True,
            title="Digest a long output",
        )
    )
    register_project_tools(box, session)
    return box


PROJECT_MAP_DESCRIPTION = """\
Compact map of a code project: its folders and source files with each file's size in tokens \
and, with detail="symbols", every class, function and method with its line range. Use it to \
find your way in a codebase you do not know, then read only the lines you need.

Optional: an agent that explores with ls/find/grep does not need it. It saves tokens when the \
alternative is opening files to see what they hold (the map of a 50-file project is a few \
hundred tokens; reading the project is tens of thousands).

Arguments:
- path (required): the project's root folder. A relative path resolves against the server's \
working directory ({cwd}).
- detail: "files" (default) or "symbols".
- subpath: only this folder (or file) of the project, e.g. "src/api".

The index is private to the project (it never enters long-term memory) and is refreshed on \
every call from file sizes, times and checksums, so it is never stale. The first call on a \
large project indexes it (a few seconds per hundred files); later calls cost milliseconds.\
"""

FIND_CODE_DESCRIPTION = """\
Find the code in a project that answers a question and return only that: the best matching \
functions, methods or classes, each as `path:first-last  Name` followed by its current code, \
within max_tokens. The code is re-synced from disk before every answer, so it is never stale.

Optional: if grep finds the name in one try, grep plus reading those lines costs about the \
same. It saves tokens when you would otherwise open whole files to find one method.

Arguments:
- query (required): identifiers or words, e.g. "resolve_redirects", "HTTPAdapter send", \
"where is the retry count set". Naming a file ("sessions.py") prefers that file. `q` and \
`text` are accepted as aliases.
- path (required): the project's root folder (relative paths resolve against {cwd}).
- scope: "main" (default: skips test files), "test" (only tests) or "all".
- subpath: only code under this folder (or file) of the project.
- clue: extra words that pick between candidates after an AMBIGUOUS answer.
- max_tokens: size cap of the answer (default 1500). The best symbol is always shown; when it \
alone is larger, its signature and the stretch that best matches the query are shown, the \
lines left out marked and listed.

The answer: code blocks headed `path:first-last  Name`; OTHER MATCHES (locations only, read \
them if the first block is not it); AMBIGUOUS when several symbols tie: up to three of them \
shown with their code, the rest as locations (pick the one you mean, or call again with \
clue=...); NOT FOUND (nothing in scope matches: try other words, \
scope="all", or grep).\
"""

MAX_OPEN_PROJECTS = 8


def register_project_tools(server: ToolBox, session: Session | None = None) -> None:
    """project_map and find_code: a never-stale code index per project (ihmt.projects).

    The indexes opened in this session are kept (a few at most), so their manifests stay in
    memory and a call on an unchanged project costs only the stat calls of its sync.
    """
    session = session or Session()
    indexes: dict[Path, Any] = {}
    guard = threading.Lock()

    def index_for(tool: str, raw: Any):
        from .projects.index import ProjectIndex, default_projects_dir, resolve_project

        given = _required_text(tool, "path", raw, "the project's root folder")
        path = Path(given.strip()).expanduser()
        if not path.is_absolute():
            path = session.cwd / path
        root = resolve_project(path)
        with guard:
            index = indexes.get(root)
            if index is None:
                if len(indexes) >= MAX_OPEN_PROJECTS:
                    oldest = next(iter(indexes))
                    indexes.pop(oldest).close()
                index = ProjectIndex(root, default_projects_dir(session.home))
                indexes[root] = index
            return index

    def project_map(args: dict[str, Any]) -> str:
        from .projects.render import render_map

        index = index_for("project_map", args["path"])
        return render_map(index.project_map(args["detail"], args["subpath"] or ""))

    def find_code(args: dict[str, Any]) -> str:
        from .projects.render import render_code_answer

        query = _required_text("find_code", "query", args["query"], "what to look for")
        index = index_for("find_code", args["path"])
        answer = index.find_code(
            query,
            scope=args["scope"],
            subpath=args["subpath"] or "",
            clue=(args["clue"] or "").strip() or None,
            max_tokens=args["max_tokens"],
        )
        return render_code_answer(answer)

    path_param = Param(
        "path",
        "string",
        "The project's root folder.",
        required=True,
        aliases=("project",),
        expected="the project's root folder",
    )
    subpath_param = Param(
        "subpath", "string", "Only this folder (or file) of the project.", default=""
    )
    server.add(
        ToolSpec(
            "project_map",
            PROJECT_MAP_DESCRIPTION.format(cwd=session.cwd),
            (
                path_param,
                Param(
                    "detail",
                    "string",
                    '"files" (default) or "symbols".',
                    default="files",
                    choices=("files", "symbols"),
                ),
                subpath_param,
            ),
            project_map,
            read_only=True,
            idempotent=True,
            title="Map a code project",
        )
    )
    server.add(
        ToolSpec(
            "find_code",
            FIND_CODE_DESCRIPTION.format(cwd=session.cwd),
            (
                Param(
                    "query",
                    "string",
                    "Identifiers or words to look for in the code.",
                    required=True,
                    aliases=("q", "text"),
                    expected="what to look for in the code",
                ),
                path_param,
                Param(
                    "scope",
                    "string",
                    '"main" (default, skips tests), "test" or "all".',
                    default="main",
                    choices=("main", "test", "all"),
                ),
                subpath_param,
                Param("clue", "string", "Extra words that narrow an AMBIGUOUS answer."),
                Param(
                    "max_tokens",
                    "integer",
                    "Size cap of the answer in tokens (default 1500).",
                    default=1500,
                ),
            ),
            find_code,
            read_only=True,
            idempotent=True,
            title="Find code in a project",
        )
    )


# -- SDK adapters ----------------------------------------------------------------------------


def _tool_models(types: Any, box: ToolBox) -> list[Any]:
    return [
        types.Tool.model_validate(
            {
                "name": spec.name,
                "title": spec.annotations()["title"],
                "description": spec.description,
                "inputSchema": spec.input_schema(),
                "annotations": spec.annotations(),
            }
        )
        for spec in box.specs()
    ]


def _serve_v2(box: ToolBox, version: str) -> None:
    """mcp 2.x: the low-level Server takes its handlers as constructor arguments."""
    import anyio
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    from .mcp_wire import checked_stdio

    tools = _tool_models(types, box)
    limiter = anyio.CapacityLimiter(1)

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        text, failed = await _run_call(anyio, limiter, box, params.name, params.arguments)
        return types.CallToolResult.model_validate(
            {"content": [{"type": "text", "text": text}], "isError": failed}
        )

    server = Server(
        SERVER_NAME,
        version=version,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )

    async def run() -> None:
        async with checked_stdio(stdio_server) as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


def _serve_v1(box: ToolBox, version: str) -> None:
    """mcp 1.x: the same low-level Server, with decorator-registered handlers."""
    import anyio
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    from .mcp_wire import checked_stdio

    tools = _tool_models(types, box)
    limiter = anyio.CapacityLimiter(1)
    server = Server(SERVER_NAME, version=version, instructions=INSTRUCTIONS)

    async def list_tools() -> list[Any]:
        return tools

    async def call_tool(name: str, arguments: dict[str, Any] | None) -> Any:
        text, failed = await _run_call(anyio, limiter, box, name, arguments)
        if failed:  # 1.x turns an exception from this handler into an isError result
            raise ToolFailure(text)
        return [types.TextContent(type="text", text=text)]

    server.list_tools()(list_tools)
    try:  # our own checks give clearer messages than the SDK's schema validation
        register_call = server.call_tool(validate_input=False)
    except TypeError:
        register_call = server.call_tool()
    register_call(call_tool)

    async def run() -> None:
        async with checked_stdio(stdio_server) as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(run)


async def _run_call(
    anyio: Any, limiter: Any, box: ToolBox, name: str, arguments: Any
) -> tuple[str, bool]:
    """Run one tool call in a worker thread (one at a time), so the protocol loop stays live."""
    try:
        text = await anyio.to_thread.run_sync(box.call, name, arguments, limiter=limiter)
        return text, False
    except ToolFailure as exc:
        return str(exc), True
    except Exception as exc:  # pragma: no cover - ToolBox.call already catches everything
        log.exception("tool %s failed", name)
        return f"{name} failed unexpectedly ({type(exc).__name__})", True


def _sdk_flavour() -> str:
    """'v2' or 'v1'; raises ImportError when the SDK is missing or cannot be imported."""
    import inspect

    from mcp.server.lowlevel import Server

    params = inspect.signature(Server.__init__).parameters
    return "v2" if "on_call_tool" in params else "v1"


def main(argv: list[str] | None = None) -> None:
    """Run the stdio server until the client closes the connection."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help"):
        sys.stderr.write(
            "usage: mcp_server.py\n\nIHMT's stdio MCP server. An MCP client (Claude Code, Codex, "
            "opencode, ...) starts it; the store is $IHMT_HOME/ihmt_memory (default ~/.ihmt).\n"
        )
        raise SystemExit(0)
    level = getattr(logging, os.environ.get("IHMT_LOG_LEVEL", "").strip().upper(), None)
    logging.basicConfig(
        stream=sys.stderr,
        level=level if isinstance(level, int) else logging.WARNING,
        format="ihmt-mcp %(levelname)s %(name)s: %(message)s",
    )
    try:
        flavour = _sdk_flavour()
    except ImportError as exc:
        if exc.name == "mcp" or (exc.name or "").startswith("mcp."):
            sys.stderr.write(MISSING_SDK + "\n")
        else:
            sys.stderr.write(
                f"the installed mcp package failed to import ({_one_line(str(exc))}); "
                "reinstall it: pip install --upgrade -r requirements-mcp.txt\n"
            )
        raise SystemExit(1) from None
    from . import __version__

    if sys.stdin.isatty():
        sys.stderr.write("IHMT MCP server: waiting for an MCP client on stdin (Ctrl-C quits)\n")
    box = build_toolbox(Session())
    try:
        (_serve_v2 if flavour == "v2" else _serve_v1)(box, __version__)
    except KeyboardInterrupt:
        pass


__all__ = [
    "MISSING_SDK",
    "Param",
    "Session",
    "ToolBox",
    "ToolFailure",
    "ToolSpec",
    "build_toolbox",
    "default_home",
    "format_read",
    "format_recall",
    "format_save_report",
    "main",
    "register_project_tools",
]
