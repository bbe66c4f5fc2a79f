"""The nine MCP tools, registered with the SDK's typed tool registration (``MCPServer``).

Each tool is a function whose type-annotated parameters are its arguments: the SDK derives
the input schema from the annotations and validates every call against them. Each function
makes one call into the library (the ``IHMT`` facade, the session scratch pad and read cache,
the project index) and returns the answer formatted by ``render`` for a model to read.

``ToolServer`` adds what agents rely on and the SDK leaves to the server:
- other names an argument is accepted under (``q`` for ``query``; ``Also`` in the annotation),
  listed in the schema as aliases;
- an argument sent as null counts as not given; an unknown one is ignored and the answer
  says so;
- every failure is one line the agent can act on: the SDK's validation errors are worded
  here, an ``IHMTError`` keeps its message, a crash is logged with its traceback and named;
- calls run one at a time: one process serves one agent session.

Annotations: read-only means the tool changes nothing outside this server process (the
store, the files); note and digest_output only keep text in this session's scratch pad.

One job, one module: the tool table. Its length is mostly the descriptions agents read (kept
once, here); splitting them from their tools would make each harder to check against the other.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import AfterValidator, BeforeValidator, Field, ValidationError
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from .config import MCP_SERVER_NAME
from .errors import IHMTError, SecretDetectedError
from .mcp_session import Session
from .render import compact_answer, file_read, recall_answer, save_report
from .text.clean import one_line

log = logging.getLogger("ihmt.mcp")

INSTRUCTIONS = (
    "IHMT is the user's long-term memory, shared by all their agents and sessions. Call "
    "search_memory before answering anything that may depend on earlier sessions (decisions, "
    "setup, preferences, people, corrections). Save durable facts with save_memory, dated; use "
    "replaces= when correcting. On AMBIGUOUS ask the user or pass a clue, never guess; always "
    "tell the user about OUTDATED and NOTICE lines; never store secrets. note/recall, read_file "
    "and digest_output are session helpers that save context tokens."
)


class ToolFailure(ToolError):
    """A tool call that failed in a way the agent can fix; the message is one line."""


# -- argument annotations --------------------------------------------------------------------


@dataclass(frozen=True)
class Also:
    """Other names a model may send this argument under (listed in the schema as aliases)."""

    names: tuple[str, ...]

    def __init__(self, *names: str) -> None:
        object.__setattr__(self, "names", names)


def _not_blank(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("blank", "is empty")
    return value


def _folded(value: Any) -> Any:
    return value.strip().lower() if isinstance(value, str) else value


NOT_BLANK = AfterValidator(_not_blank)  # required text: whitespace alone is "needs `x`"
FOLDED = BeforeValidator(_folded)  # a choice is matched ignoring case and spaces
OrNone = SkipJsonSchema[None]  # an optional argument's schema keeps one plain type


def _hints(title: str, *, read_only: bool, idempotent: bool = False) -> ToolAnnotations:
    return ToolAnnotations(
        title=title,
        read_only_hint=read_only,
        destructive_hint=False,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


# -- the server ------------------------------------------------------------------------------


class ToolServer(MCPServer):
    """``MCPServer`` whose tool calls take aliases and always answer in one worded line."""

    def __init__(self, version: str = "") -> None:
        super().__init__(
            MCP_SERVER_NAME, instructions=INSTRUCTIONS, version=version, log_level="WARNING"
        )
        self._aliases: dict[str, dict[str, str]] = {}  # tool -> {alias: parameter}
        self._one_at_a_time = anyio.Lock()

    def add_tool(
        self,
        fn: Callable[..., Any],
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | None = None,
        icons: Any = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
    ) -> None:
        """The SDK's registration; the answer is text only (no structured copy) unless asked."""
        super().add_tool(
            fn,
            name=name,
            title=title,
            description=description,
            annotations=annotations,
            icons=icons,
            meta=meta,
            structured_output=bool(structured_output),
        )
        self._aliases[name or fn.__name__] = _aliases_of(fn)

    async def list_tools(self) -> list[Any]:
        return [self._with_aliases(tool) for tool in await super().list_tools()]

    def _with_aliases(self, tool: Any) -> Any:
        aliases = self._aliases.get(tool.name)
        if not aliases:
            return tool
        schema = dict(tool.input_schema)
        properties = dict(schema.get("properties", {}))
        for alias, param in aliases.items():
            properties[alias] = {
                "type": properties[param].get("type", "string"),
                "description": f"Alias of `{param}`; use `{param}`.",
            }
        schema["properties"] = properties
        return tool.model_copy(update={"input_schema": schema})

    async def call_tool(self, name: str, arguments: Any, context: Any = None) -> CallToolResult:
        """Every call answers with text; a failure is one line with ``is_error`` set."""
        async with self._one_at_a_time:
            try:
                text = await self._answer(name, arguments, context)
            except ToolFailure as exc:
                return CallToolResult(content=[TextContent(text=str(exc))], is_error=True)
        return CallToolResult(content=[TextContent(text=text)])

    async def _answer(self, name: str, arguments: Any, context: Any) -> str:
        tools = {tool.name: tool for tool in await self.list_tools()}
        tool = tools.get(name)
        if tool is None:
            raise ToolFailure(f"unknown tool {name!r}; the tools are: {', '.join(tools)}")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise ToolFailure(f"{name} takes named arguments (a JSON object)")
        properties = tool.input_schema.get("properties", {})
        aliases = self._aliases.get(name, {})
        values: dict[str, Any] = {}
        given_as: dict[str, str] = {}
        for param in properties:
            if param in aliases:
                continue
            for key in (param, *(a for a, p in aliases.items() if p == param)):
                if arguments.get(key) is not None:
                    values[param] = arguments[key]
                    given_as[param] = key
                    break
        try:
            result = await super().call_tool(name, values, context)
        except ToolError as exc:
            raise ToolFailure(_worded(name, exc, properties, aliases, given_as)) from None
        text = "\n".join(block.text for block in result.content if isinstance(block, TextContent))
        ignored = sorted(key for key in arguments if key not in properties)
        if ignored:
            plural = "s" if len(ignored) > 1 else ""
            text += f"\n(ignored unknown argument{plural}: {', '.join(ignored)})"
        return text

    def call(self, name: str, arguments: Any) -> str:
        """One call in process (tests, scripts): the answer, or ToolFailure with its line."""
        result = anyio.run(self.call_tool, name, arguments)
        text = "\n".join(block.text for block in result.content if isinstance(block, TextContent))
        if result.is_error:
            raise ToolFailure(text)
        return text

    def schemas(self) -> dict[str, dict[str, Any]]:
        """Each tool's published input schema (aliases included), by tool name, in order."""
        return {tool.name: tool.input_schema for tool in anyio.run(self.list_tools)}

    async def run_checked_stdio(self) -> None:
        """``run_stdio_async`` with ``mcp_wire``'s reader and writer in front of the SDK's."""
        from mcp.server.stdio import stdio_server

        from .mcp_wire import checked_stdio

        lowlevel = self._lowlevel_server  # the SDK's own protocol server, set up by MCPServer
        async with checked_stdio(stdio_server) as (read, write):
            await lowlevel.run(read, write, lowlevel.create_initialization_options())


def _aliases_of(fn: Callable[..., Any]) -> dict[str, str]:
    """{alias: parameter} from the ``Also`` markers in ``fn``'s annotations."""
    found: dict[str, str] = {}
    for param, hint in get_type_hints(fn, include_extras=True).items():
        if get_origin(hint) is Annotated:
            for extra in get_args(hint)[1:]:
                if isinstance(extra, Also):
                    found.update(dict.fromkeys(extra.names, param))
    return found


def _worded(
    tool: str,
    exc: ToolError,
    properties: dict[str, Any],
    aliases: dict[str, str],
    given_as: dict[str, str],
) -> str:
    """One line for a failed call: a bad argument, a library error, or a crash."""
    cause = exc.__cause__
    if isinstance(cause, ValidationError) and not isinstance(exc, UnexpectedToolError):
        return _argument_error(tool, cause.errors()[0], properties, aliases, given_as)
    if isinstance(cause, ToolFailure):
        return str(cause)
    if isinstance(cause, IHMTError):
        return one_line(str(cause)) or type(cause).__name__
    if cause is None:
        return one_line(str(exc))
    # a bug must cost one call, never the server
    log.error("tool %s failed", tool, exc_info=(type(cause), cause, cause.__traceback__))
    detail = one_line(str(cause))[:300]
    return (
        f"{tool} failed unexpectedly ({type(cause).__name__}{': ' + detail if detail else ''}); "
        "the details are in the server log"
    )


def _argument_error(
    tool: str,
    error: Any,
    properties: dict[str, Any],
    aliases: dict[str, str],
    given_as: dict[str, str],
) -> str:
    """The SDK's verdict on one argument, in words a model acts on."""
    param = str(error["loc"][0]) if error.get("loc") else "?"
    name = given_as.get(param, param)
    kind = str(error.get("type", ""))
    value = error.get("input")
    if kind in ("missing", "blank"):
        described = properties.get(param, {}).get("description", "")
        what = described.split(".")[0]
        what = what[:1].lower() + what[1:]
        others = [f"`{alias}`" for alias, p in aliases.items() if p == param]
        also = f" (or {', '.join(others)})" if others and kind == "missing" else ""
        empty = " (it is empty)" if kind == "blank" else ""
        return f"{tool} needs `{param}`{also}: {what}{empty}"
    if kind.startswith("string_"):
        return f"{tool}: `{name}` must be text (a JSON string), not {_kind(value)}"
    if kind.startswith("bool_"):
        return f"{tool}: `{name}` must be true or false, not {_kind(value)}"
    if kind.startswith("int_"):
        return f"{tool}: `{name}` must be a whole number, not {_kind(value)}"
    if kind == "literal_error":
        choices = properties.get(param, {}).get("enum", [])
        options = " or ".join(f'"{choice}"' for choice in choices)
        return f"{tool}: `{name}` must be {options}, not {value!r}"
    return f"{tool}: `{name}` {one_line(str(error.get('msg', '')))}"


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
- AMBIGUOUS: several memories fit equally well, or each answer differently about different \
things (e.g. three people called Luis; the ports of two dev servers). Do not guess: \
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
answer with the new one first. The words also stay with the new memory as its label, so a \
later question in those words finds it.
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

Clue = Annotated[str, Field(description="Extra words that narrow an AMBIGUOUS answer.")]
ProjectRoot = Annotated[
    str, Field(description="The project's root folder."), Also("project"), NOT_BLANK
]
Subpath = Annotated[str, Field(description="Only this folder (or file) of the project.")]


def build_server(session: Session | None = None, version: str = "") -> ToolServer:
    """Every tool this server offers, bound to one session's state."""
    session = session or Session()
    server = ToolServer(version)

    def tool(name: str, title: str, description: str, **hints: bool) -> Callable[..., Any]:
        return server.tool(
            name=name, title=title, description=description, annotations=_hints(title, **hints)
        )

    @tool(
        "search_memory",
        "Search long-term memory",
        SEARCH_DESCRIPTION,
        read_only=True,
        idempotent=True,
    )
    def search_memory(
        query: Annotated[
            str, Field(description="The words to look for."), Also("q", "text"), NOT_BLANK
        ],
        clue: Clue = "",
        detail: Annotated[
            Literal["compact", "full"],
            Field(description='"compact" (default) or "full".'),
            FOLDED,
        ] = "compact",
        project: Annotated[
            str,
            Field(
                description="Whose memories rank first; default: the project this session runs in."
            ),
        ] = "",
    ) -> str:
        result = session.memory().search(
            query, clue=clue.strip() or None, project=session.project(project) or None
        )
        return compact_answer(result, full=detail == "full")

    @tool("save_memory", "Save to long-term memory", SAVE_DESCRIPTION, read_only=False)
    def save_memory(
        content: Annotated[
            str,
            Field(description="The text to remember, ideally starting with its date."),
            Also("memory", "text"),
            NOT_BLANK,
        ],
        domain: Annotated[
            str, Field(description='Topic label; "general" lets IHMT classify it.')
        ] = "general",
        content_type: Annotated[
            str,
            Field(description='"auto" or CODE, NARRATIVE, CLINICAL, PERSONAL, PROCESS, GENERIC.'),
        ] = "auto",
        replaces: Annotated[
            str, Field(description="A few words describing the earlier memory this one corrects.")
        ] = "",
        project: Annotated[
            str,
            Field(
                description='The project it belongs to; default: this session\'s; "global" for none.'
            ),
        ] = "",
    ) -> str:
        try:
            report = session.memory().save(
                content,
                domain=domain.strip() or "general",
                content_type=content_type.strip() or "auto",
                replaces=replaces,
                project=session.project(project),
            )
        except SecretDetectedError as exc:
            raise ToolFailure(
                f"NOT SAVED — {one_line(str(exc))}. Ask the user what to do; never store "
                "credentials (API keys, tokens, passwords) in memory."
            ) from None
        return save_report(report, replaces)

    @tool(
        "mark_outdated",
        "Mark a memory outdated",
        MARK_DESCRIPTION,
        read_only=False,
        idempotent=True,
    )
    def mark_outdated(
        old_id: Annotated[
            str, Field(description="Id of the memory that was corrected."), NOT_BLANK
        ],
        new_id: Annotated[str, Field(description="Id of the memory that corrects it."), NOT_BLANK],
    ) -> str:
        notice = session.memory().mark_outdated(old_id.strip(), new_id.strip())
        return notice + "\nRelay this to the user if it changes an answer you gave."

    @tool("note", "Session note", NOTE_DESCRIPTION, read_only=True)
    def note(
        text: Annotated[str, Field(description="What to keep for this session."), NOT_BLANK],
    ) -> str:
        kept = session.scratch.note(text)
        return (
            f"NOTED #{kept.note_id} (session only, not saved to long-term memory). "
            "Get it back with recall('<words from the note>')."
        )

    @tool(
        "recall",
        "Recall a session note",
        RECALL_DESCRIPTION,
        read_only=True,
        idempotent=True,
    )
    def recall(
        query: Annotated[
            str,
            Field(description="Words from the note, or a digest_output label."),
            Also("q", "text"),
            NOT_BLANK,
        ],
        clue: Clue = "",
    ) -> str:
        clue_words = clue.strip() or None
        return recall_answer(session.scratch.recall(query, clue=clue_words), query, clue_words)

    @tool(
        "read_file",
        "Read a file (cached)",
        READ_DESCRIPTION.format(cwd=session.cwd),
        read_only=True,
    )
    def read_file(
        path: Annotated[
            str,
            Field(
                description="The file to read. A relative path resolves against the server's "
                "working directory."
            ),
            NOT_BLANK,
        ],
        force: Annotated[bool, Field(description="true returns the full text again.")] = False,
        start_line: Annotated[
            int | OrNone, Field(description="First line to return (1-based).")
        ] = None,
        end_line: Annotated[
            int | OrNone, Field(description="Last line to return (inclusive).")
        ] = None,
    ) -> str:
        result = session.files.read(path, force=force, start_line=start_line, end_line=end_line)
        return file_read(result, start_line, end_line)

    @tool("digest_output", "Digest a long output", DIGEST_DESCRIPTION, read_only=True)
    def digest_output(
        text: Annotated[str, Field(description="The raw command output.")],
        label: Annotated[str, Field(description="A short name for recall.")] = "output",
    ) -> str:
        from .session.digest import digest_output

        name = one_line(label or "output", 200) or "output"
        digest = digest_output(text, name)
        # The label heads the stored copy so recall('<label>') finds it by that name.
        session.scratch.store_output(f"[{name}] full output\n{text}", name)
        return f"{digest.text}\nfull text kept: recall('{name}')"

    @tool(
        "project_map",
        "Map a code project",
        PROJECT_MAP_DESCRIPTION.format(cwd=session.cwd),
        read_only=True,
        idempotent=True,
    )
    def project_map(
        path: ProjectRoot,
        detail: Annotated[
            Literal["files", "symbols"],
            Field(description='"files" (default) or "symbols".'),
            FOLDED,
        ] = "files",
        subpath: Subpath = "",
    ) -> str:
        from .projects.render import render_map

        return render_map(session.project_index(path).project_map(detail, subpath))

    @tool(
        "find_code",
        "Find code in a project",
        FIND_CODE_DESCRIPTION.format(cwd=session.cwd),
        read_only=True,
        idempotent=True,
    )
    def find_code(
        query: Annotated[
            str,
            Field(description="Identifiers or words to look for in the code."),
            Also("q", "text"),
            NOT_BLANK,
        ],
        path: ProjectRoot,
        scope: Annotated[
            Literal["main", "test", "all"],
            Field(description='"main" (default, skips tests), "test" or "all".'),
            FOLDED,
        ] = "main",
        subpath: Subpath = "",
        clue: Clue = "",
        max_tokens: Annotated[
            int, Field(description="Size cap of the answer in tokens (default 1500).")
        ] = 1500,
    ) -> str:
        from .projects.render import render_code_answer

        answer = session.project_index(path).find_code(
            query, scope=scope, subpath=subpath, clue=clue.strip() or None, max_tokens=max_tokens
        )
        return render_code_answer(answer)

    return server


def serve(version: str) -> None:
    """Answer one MCP client over stdio until it closes the connection."""
    anyio.run(build_server(Session(), version).run_checked_stdio)


__all__ = ["Also", "INSTRUCTIONS", "ToolFailure", "ToolServer", "build_server", "serve"]
