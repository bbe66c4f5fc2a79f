"""Hostile input: random and adversarial text through every entry point.

Property tests (hypothesis) over the chunkers, the leaf header parser, the query parser and
search, ingest_text and every MCP tool of a real server. The invariants:

- nothing but an ``IHMTError`` subclass escapes (a tool answers with a result or a one-line
  tool error, never the "failed unexpectedly" safety net, and the server stays alive);
- byte-exact reconstruction: the leaves of a document concatenate to the document;
- a body that contains the header's closing marker still round-trips.

Sizes are modest so the module stays well under a minute; the hand-picked cases (1 MB lines,
deep nesting, NUL, lone surrogates) run every time.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ihmt import IHMT
from ihmt.config import IHMTConfig
from ihmt.errors import IHMTError, InputError, StoreCorruptError
from ihmt.ingest.chunkers.code import split_code
from ihmt.ingest.ingestor import prepare_document
from ihmt.store.leaf_format import CLOSE_MARKER, parse_leaf, render_leaf
from ihmt.text.clean import clean_surrogates
from tests.helpers_procs import ROOT, SMALL_TREE, mcp_call, mcp_session

FAST = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
SLOW = settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)

# every code point, lone surrogates included
ANY_CHAR = st.characters(exclude_categories=())
CODE_BITS = [
    "{", "}", "(", ")", "[", "]", ";", "\n", "\r\n", "  ", "\t", "'", '"', "`", "/*", "*/",
    "//", "#", "\\", "class A ", "def f():\n", "    return 1\n", "fn main() ", "function g() ",
    "package p;\n", "import x\n", '"""', "'''", 'R"(', ')"', "${", "@dec\n", "<T>", "=>", "$x",
    "#include <a>\n", "namespace N ", "if (x) ", "else ", "return 1;", "é", "\x00", "\ufeff",
    "struct S ", "impl T for S ", "func (r *R) M() ", "fun k() ", "<?php ", "?>", "r#\"", "\"#",
]  # fmt: skip
HOSTILE_CASES = {
    "nul": "a\x00b\x00c",
    "controls": "".join(chr(i) for i in range(32)) + "\x7f",
    "surrogates": "\ud800 lone \udfff and \udc00 more",
    "nested": "(" * 20_000 + ")" * 20_000,
    "brackets": "[{(<" * 10_000,
    "one_mb_line": "x" * 1_000_000,
    "one_mb_words": "word " * 200_000,
    "quotes": '"' * 3000 + "'" * 3000 + "`" * 3000,
    "operators": "AND OR NOT -+*:~^|&! " * 500,
    "emoji": "\U0001f9e0" * 5000,
    "bidi": "\u202e" * 500 + "abc\u202c",
    "bom": "\ufeff\ufeffhello",
    "separators": "a\u2028b\u2029c\x85d\r\ne\rf\x0bg\x0ch",
    "marker": "before" + CLOSE_MARKER + "after\n<<<IHMT-META\n{}\nIHMT-META>>>\n",
}
TYPES = [None, "CODE", "NARRATIVE", "CLINICAL", "PERSONAL", "PROCESS", "GENERIC"]
LANGUAGES = [
    "python", "java", "javascript", "typescript", "c", "cpp", "csharp", "go", "rust",
    "kotlin", "swift", "php", "cobol",
]  # fmt: skip

code_text = st.lists(
    st.one_of(st.sampled_from(CODE_BITS), st.text(ANY_CHAR, max_size=4)), max_size=120
).map("".join)
prose_text = st.one_of(
    st.text(ANY_CHAR, max_size=400),
    st.lists(
        st.one_of(
            st.sampled_from(
                [
                    "\n",
                    "\n\n",
                    "# Heading\n",
                    "- item\n",
                    "1. step\n",
                    "***\n",
                    "Chapter 2\n",
                    "2024-03-05: ",
                    "Monday, 4 March 2024\n",
                    ". ",
                    "? ",
                    "   ",
                    "\r\n",
                ]
            ),  # fmt: skip
            st.text(ANY_CHAR, max_size=12),
            st.just("word " * 60),
        ),
        max_size=40,
    ).map("".join),
)
hostile_text = st.one_of(
    prose_text,
    code_text,
    st.builds(lambda s, n: s * n, st.text(ANY_CHAR, min_size=1, max_size=4), st.integers(1, 3000)),
)


# -- chunkers ------------------------------------------------------------------------------------

SMALL = IHMTConfig(**{**SMALL_TREE, "target_tokens": 16, "max_tokens": 24})


@FAST
@given(text=st.one_of(prose_text, code_text), data_type=st.sampled_from(TYPES))
def test_prepare_document_reconstructs_every_document(text, data_type):
    try:
        doc = prepare_document(text, source="fuzz", config=SMALL, data_type=data_type)
    except IHMTError:
        return
    leaves = doc.leaves
    if not text.strip():
        assert leaves == []
        return
    assert "".join(leaf.content for leaf in leaves) == text
    assert all(leaf.content.strip() for leaf in leaves)
    assert len({leaf.leaf_id for leaf in leaves}) == len(leaves)
    assert [leaf.position for leaf in leaves] == list(range(len(leaves)))


@FAST
@given(
    text=code_text, language=st.sampled_from(LANGUAGES), mode=st.sampled_from(["pack", "symbol"])
)
def test_split_code_reconstructs_any_text(text, language, mode):
    chunks = split_code(text, language=language, target_tokens=16, max_tokens=24, mode=mode)
    assert "".join(c.text for c in chunks) == text


@pytest.mark.parametrize("name", sorted(HOSTILE_CASES))
@pytest.mark.parametrize("data_type", TYPES)
def test_prepare_document_on_hand_picked_hostile_text(name, data_type):
    text = HOSTILE_CASES[name]
    doc = prepare_document(text, source=name, config=IHMTConfig(), data_type=data_type)
    assert "".join(leaf.content for leaf in doc.leaves) == text


# -- the leaf header ------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.one_of(st.binary(max_size=300), st.text(ANY_CHAR, max_size=200).map(
    lambda t: ("<<<IHMT-META\n" + t).encode("utf-8", "surrogatepass")
)))  # fmt: skip
def test_parse_leaf_of_random_bytes_raises_only_store_corrupt(data):
    try:
        header, body = parse_leaf(data)
    except StoreCorruptError as exc:
        assert "\n" not in str(exc)
        return
    assert isinstance(header, dict) and isinstance(header["leaf_id"], str)
    assert isinstance(body, str)


@FAST
@given(
    body=st.lists(
        st.one_of(st.text(ANY_CHAR, max_size=20), st.sampled_from([CLOSE_MARKER, "IHMT-META>>>"])),
        max_size=8,
    ).map("".join),
    extra=st.dictionaries(
        st.text(ANY_CHAR, max_size=8), st.text(ANY_CHAR, max_size=20), max_size=3
    ),
)
def test_leaf_render_parse_round_trips_any_body(body, extra):
    header = {"leaf_id": "L-x-0000-abc", "extra": extra}
    parsed, text = parse_leaf(render_leaf(header, body))
    assert text == body and parsed == header


# -- search and ingest -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fuzz_memory(tmp_path_factory) -> IHMT:
    memory = IHMT.initialize(tmp_path_factory.mktemp("fuzz") / "ws", **SMALL_TREE)
    memory.ingest_paths([ROOT / "examples"])
    memory.flush()
    return memory


def _search_ok(memory: IHMT, query, clue=None) -> None:
    try:
        result = memory.search(query, clue=clue)
    except InputError:
        return
    assert result.not_found or result.hits
    if result.best is not None:
        assert isinstance(result.best.content, str)


@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(query=hostile_text, clue=st.one_of(st.none(), st.text(ANY_CHAR, max_size=50)))
def test_search_answers_any_query(fuzz_memory, query, clue):
    _search_ok(fuzz_memory, query, clue)


@pytest.mark.parametrize("name", sorted(HOSTILE_CASES))
def test_search_answers_hand_picked_hostile_queries(fuzz_memory, name):
    _search_ok(fuzz_memory, HOSTILE_CASES[name])
    _search_ok(fuzz_memory, "Luis", clue=HOSTILE_CASES[name])


def test_search_rejects_non_text_with_input_error(fuzz_memory):
    for bad in (None, 42, b"bytes", ["list"], {"q": 1}):
        with pytest.raises(InputError):
            fuzz_memory.search(bad)


_sources = itertools.count()


def _ingest_ok(memory: IHMT, text: str, **kwargs) -> None:
    source = f"fuzz-{next(_sources)}"
    try:
        report = memory.ingest_text(text, source=source, redact_secrets=False, **kwargs)
    except InputError:
        assert not text.strip()
        return
    expected = clean_surrogates(text)
    assert "".join(leaf.content for leaf in memory.leaves(source)) == expected
    assert report.leaves == len(memory.leaves(source))


@SLOW
@given(text=hostile_text, data_type=st.sampled_from(TYPES))
def test_ingest_text_stores_any_text_byte_exact(fuzz_memory, text, data_type):
    _ingest_ok(fuzz_memory, text, data_type=data_type)


@pytest.mark.parametrize("name", sorted(HOSTILE_CASES))
def test_ingest_text_of_hand_picked_hostile_text(fuzz_memory, name):
    _ingest_ok(fuzz_memory, HOSTILE_CASES[name])


def test_a_leaf_containing_the_closing_marker_round_trips(fuzz_memory):
    text = (
        "Notes about the leaf format.\n"
        + CLOSE_MARKER
        + '{"leaf_id": "L-fake"}\n<<<IHMT-META\nIHMT-META>>>\nthe end\n'
    )
    source = "marker-doc"
    fuzz_memory.ingest_text(text, source=source, data_type="GENERIC")
    leaves = fuzz_memory.leaves(source)
    assert "".join(leaf.content for leaf in leaves) == text
    reread = IHMT.open(fuzz_memory.layout.workspace).leaves(source)
    assert [leaf.content for leaf in reread] == [leaf.content for leaf in leaves]
    assert fuzz_memory.check().ok


def test_the_store_is_healthy_after_all_that(fuzz_memory):
    fuzz_memory.flush()
    report = fuzz_memory.check()
    assert report.ok, report.problems[:5]


# -- every MCP tool through a real server ---------------------------------------------------------------


class LiveServer:
    """A real ``mcp_server.py`` process and its SDK client, called from sync tests."""

    def __init__(self, portal, session) -> None:
        self.portal = portal
        self.session = session

    def call(self, name: str, args) -> tuple[str, bool]:
        async def go():
            return await mcp_call(self.session, name, args, limit=120)

        return self.portal.call(go)

    def tools(self) -> list[dict]:
        async def go():
            result = await self.session.list_tools()
            return [t.model_dump(by_alias=True, exclude_none=True) for t in result.tools]

        return self.portal.call(go)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    pytest.importorskip("mcp")
    from anyio.from_thread import start_blocking_portal

    base = tmp_path_factory.mktemp("fuzz-mcp")
    cwd = base / "project"
    cwd.mkdir()
    (cwd / "notes.md").write_text("# Notes\nThe build uses make.\n", encoding="utf-8")
    log = base / "server.log"
    with open(log, "w", encoding="utf-8") as errlog, start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(mcp_session(base / "ihmt", cwd, errlog)) as session:
            server = LiveServer(portal, session)
            server.log = log
            yield server


def wrong_values(chars) -> st.SearchStrategy:
    """Any JSON value, right type or not, plus a few classics."""
    return st.one_of(
        st.text(chars, max_size=60),
        st.integers(min_value=-(2**63), max_value=2**63),
        st.floats(allow_nan=False, allow_infinity=False),
        st.booleans(),
        st.none(),
        st.lists(st.integers(), max_size=3),
        st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
        st.sampled_from(
            [
                "",
                " ",
                "\x00",
                "x" * 300_000,
                "((((" * 5000,
                "-1",
                "0",
                "full",
                "TRUE",
                "../../../../etc/hostname",
                "notes.md",
                "~",
                "99999999999999999999",
            ]
        ),  # fmt: skip
    )


# JSON text the SDK client can send: no lone surrogates (its serializer refuses them, and the
# SDK's server-side parser drops such a request without an answer, before IHMT sees it)
SENDABLE = st.characters(exclude_categories=("Cs",))


BAD_PATH_BUG = (
    "ihmt/session/file_cache.py:FileReadCache._resolve catches only OSError/RuntimeError from "
    "Path.resolve(): a path with a NUL byte raises ValueError('embedded null byte') and one "
    "with a lone surrogate raises UnicodeEncodeError, so read_file answers 'read_file failed "
    "unexpectedly (ValueError: embedded null byte)' / '(UnicodeEncodeError: …)'. Expected: a "
    "one-line InputError such as 'invalid path: …'. When fixed, drop this xfail and the "
    "_known_bug() filter."
)


def _known_bug(name: str, args) -> bool:
    """Calls that hit a reported, still open bug (see BAD_PATH_BUG)."""
    path = args.get("path") if isinstance(args, dict) else None
    if name != "read_file" or not isinstance(path, str):
        return False
    return "\x00" in path or any("\ud800" <= ch <= "\udfff" for ch in path)


def _assert_answered(live: LiveServer, name: str, args) -> None:
    if _known_bug(name, args):
        return
    text, failed = live.call(name, args)
    assert isinstance(text, str)
    if failed:
        assert "\n" not in text.strip(), f"{name} error is not one line: {text[:300]!r}"
        assert "unexpectedly" not in text, f"{name}{args!r:.300} hit a bug: {text[:300]}"


def test_every_tool_answers_random_arguments_and_the_server_lives(live):
    tools = {t["name"]: t for t in live.tools()}
    assert {"search_memory", "save_memory", "mark_outdated", "note", "recall", "read_file",
            "digest_output"} <= set(tools)  # fmt: skip
    assert not any("forget" in name for name in tools), "forgetting is for humans, not agents"

    @settings(
        max_examples=12,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(data=st.data())
    def run(data):
        for name, tool in tools.items():
            keys = sorted(tool["inputSchema"]["properties"]) + ["unknown_argument"]
            args = data.draw(
                st.dictionaries(st.sampled_from(keys), wrong_values(SENDABLE), max_size=4)
            )
            _assert_answered(live, name, args)

    run()
    for name in tools:  # not even an object
        for args in (None, {}):
            _assert_answered(live, name, args)
    text, failed = live.call(
        "save_memory", {"content": "The fuzz run ended with the qzfuzzx flag."}
    )
    assert not failed, text
    text, failed = live.call("search_memory", {"query": "qzfuzzx"})
    assert not failed and "qzfuzzx" in text, text


@pytest.mark.parametrize(
    "name", ["nul", "controls", "nested", "one_mb_line", "bidi", "marker", "separators"]
)
def test_every_tool_answers_hand_picked_hostile_text(live, name):
    value = HOSTILE_CASES[name]
    for tool in live.tools():
        for param in tool["inputSchema"]["properties"]:
            _assert_answered(live, tool["name"], {param: value})


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    """The server's tool table in-process, on its own store."""
    from ihmt.mcp_session import Session
    from ihmt.mcp_tools import build_server

    base = tmp_path_factory.mktemp("toolbox")
    (base / "cwd").mkdir()
    return build_server(Session(home=base / "ihmt", cwd=base / "cwd"))


def _assert_box_answers(box, name: str, args) -> None:
    from ihmt.mcp_tools import ToolFailure

    if _known_bug(name, args):
        return
    try:
        assert isinstance(box.call(name, args), str)
    except ToolFailure as exc:
        assert "\n" not in str(exc).strip()
        assert "unexpectedly" not in str(exc), f"{name}{args!r:.300}: {exc}"


@settings(max_examples=150, deadline=None, derandomize=True)
@given(data=st.data())
def test_the_tool_table_answers_any_arguments_even_lone_surrogates(box, data):
    """The same tools in-process, where strings may hold lone surrogates (a JSON escape like
    \\ud800 decodes to one) and every value reaches the handlers."""
    schemas = box.schemas()
    name = data.draw(st.sampled_from(list(schemas)))
    keys = list(schemas[name]["properties"])  # the parameters and their aliases
    args = data.draw(st.dictionaries(st.sampled_from([*keys, "unknown"]), wrong_values(ANY_CHAR)))
    _assert_box_answers(box, name, args)


@pytest.mark.parametrize("name", sorted(HOSTILE_CASES))
def test_the_tool_table_answers_hand_picked_hostile_text(box, name):
    for tool, schema in box.schemas().items():
        for param in schema["properties"]:
            _assert_box_answers(box, tool, {param: HOSTILE_CASES[name]})


def test_a_nul_in_a_read_file_path_is_a_one_line_user_error(live):
    text, failed = live.call("read_file", {"path": "notes\x00.md"})
    assert failed and "unexpectedly" not in text, text


def test_a_lone_surrogate_in_a_read_file_path_is_a_one_line_user_error(box):
    from ihmt.mcp_tools import ToolFailure

    with pytest.raises(ToolFailure) as caught:
        box.call("read_file", {"path": "notes\ud800.md"})
    assert "unexpectedly" not in str(caught.value), caught.value


# -- read_file on things that are not files ------------------------------------------------------------


def _read_file_in_child(path: str, timeout: float = 5) -> subprocess.CompletedProcess | None:
    """read_file through the tool table in a child with 512 MB of memory; None on a hang.

    The child says READY once the server is built (importing the SDK takes seconds on a busy
    machine); the hang guard covers only the read itself."""
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
        "from pathlib import Path\n"
        "from ihmt.mcp_session import Session\n"
        "from ihmt.mcp_tools import ToolFailure, build_server\n"
        "box = build_server(Session(home=Path(sys.argv[2]), cwd=Path(sys.argv[2])))\n"
        "print('READY', flush=True)\n"
        "try:\n"
        "    print('OK', box.call('read_file', {'path': sys.argv[1]})[:100])\n"
        "except ToolFailure as exc:\n"
        "    print('ERR', exc)\n"
    )

    def limit():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))

    proc = subprocess.Popen(
        [sys.executable, "-c", code, path, str(Path(path).parent)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limit,
    )
    ready = proc.stdout.readline()  # EOF (a crash) also ends the wait
    try:
        out, err = proc.communicate(timeout=timeout)
        out = ready.removeprefix("READY\n") + out
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX")
def test_read_file_refuses_devices_and_pipes_quickly(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path in (str(fifo), "/dev/zero"):
        with contextlib.suppress(FileNotFoundError):
            done = _read_file_in_child(path)
            assert done is not None, f"read_file({path}) hung"
            assert done.stdout.startswith("ERR") and "unexpectedly" not in done.stdout, done
