"""The MCP server, tested through a real MCP client over stdio.

Each live test starts ``python mcp_server.py`` as a subprocess with an explicit environment
(IHMT_HOME in a temporary folder) and talks to it with the SDK's ClientSession. One server is
shared by the checks of this module where that is sensible (start-up costs seconds: the SDK
itself is slow to import); the few checks that need fresh processes start their own. Every
request runs under a time limit. A handful of in-process checks of the tool table and the
formatting run without the SDK.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.mcp_live import ROOT, live_server

TOOLS = {
    "search_memory": {"query", "clue", "detail"},
    "save_memory": {"content", "domain", "content_type", "replaces"},
    "mark_outdated": {"old_id", "new_id"},
    "note": {"text"},
    "recall": {"query", "clue"},
    "read_file": {"path", "force", "start_line", "end_line"},
    "digest_output": {"text", "label"},
    "project_map": {"path", "detail", "subpath"},
    "find_code": {"query", "path", "scope", "subpath", "clue", "max_tokens"},
}
FAKE_AWS_KEY = "AKIA" + "Q7XK2M9PL4RT8WZN"  # shape of an AWS access key id, not a real one
LUIS = (
    "Luis, my cousin, came on holiday to Benidorm in July 2024",
    "Luis Marín reviewed the pull request for the billing service",
    "Luis from Valencia joined the beach weekend at El Saler",
)


# -- a real client ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("mcp")
    with live_server(base / "ihmt", base / "project") as live:
        yield live


def _id_of(saved: str) -> str:
    """The leaf id from a save_memory answer ("SAVED: id L-… · domain …")."""
    return saved.split("id ", 1)[1].split(" ", 1)[0].rstrip(",")


# -- live checks -----------------------------------------------------------------------------


def test_lists_the_nine_tools_with_their_arguments(server):
    tools = {tool["name"]: tool for tool in server.list_tools()}
    assert set(tools) == set(TOOLS)
    for name, params in TOOLS.items():
        schema = tools[name]["inputSchema"]
        assert params <= set(schema["properties"]), name
        assert tools[name]["description"].strip(), name
        assert tools[name]["annotations"]["destructiveHint"] is False
    assert tools["search_memory"]["inputSchema"]["required"] == ["query"]
    assert {"q", "text"} <= set(tools["search_memory"]["inputSchema"]["properties"])
    assert {"memory", "text"} <= set(tools["save_memory"]["inputSchema"]["properties"])
    assert tools["read_file"]["inputSchema"]["properties"]["force"]["type"] == "boolean"
    for name in ("search_memory", "recall", "read_file", "digest_output"):
        assert tools[name]["annotations"]["readOnlyHint"] is True, name
    for name in ("save_memory", "mark_outdated"):  # they write to the store
        assert tools[name]["annotations"]["readOnlyHint"] is False, name
    assert "AMBIGUOUS" in tools["search_memory"]["description"]
    assert "OUTDATED" in tools["search_memory"]["description"]


def test_save_then_search_with_aliases(server):
    saved = server.ok(
        "save_memory", memory="2025-02-01: we deploy the shop with Kamal to a Hetzner box"
    )
    assert saved.startswith("SAVED") and "domain" in saved
    answer = server.ok("search_memory", q="how do we deploy the shop")
    assert answer.startswith("BEST")
    assert "Kamal to a Hetzner box" in answer


def test_ambiguous_name_then_clue(server):
    for text in LUIS:
        server.ok("save_memory", content=text)
    answer = server.ok("search_memory", query="Luis")
    assert answer.startswith("AMBIGUOUS")
    for text in LUIS:
        assert text[:30] in answer
    narrowed = server.ok("search_memory", query="Luis", clue="Benidorm")
    best = narrowed.split("OTHER MATCHES")[0]
    assert narrowed.startswith("BEST")
    assert "my cousin" in best and "Benidorm" in best


def test_replaces_flags_the_old_memory_outdated(server):
    old = server.ok("save_memory", content="2025-01-10: The staging database runs PostgreSQL 15")
    new = server.ok(
        "save_memory",
        content="2025-06-01: The staging database now runs PostgreSQL 17",
        replaces="staging database PostgreSQL version",
    )
    assert "REPLACES: linked" in new and _id_of(old) in new
    answer = server.ok("search_memory", query="staging database PostgreSQL", detail="full")
    best, others = answer.split("OTHER MATCHES:", 1)
    assert "PostgreSQL 17" in best and "PostgreSQL 15" not in best
    outdated = [line for line in others.splitlines() if "PostgreSQL 15" in line]
    assert outdated and "[OUTDATED]" in outdated[0]
    assert _id_of(new) in answer  # detail="full" shows ids


def test_mark_outdated_links_two_memories(server):
    first = server.ok(
        "save_memory", content="2024-03-01: the office coffee machine is a Gaggia Classic"
    )
    second = server.ok(
        "save_memory", content="2024-09-01: the office coffee machine is a Rancilio Silvia"
    )
    notice = server.ok("mark_outdated", old_id=_id_of(first), new_id=_id_of(second))
    assert notice.startswith("OUTDATED") and _id_of(first) in notice and _id_of(second) in notice
    answer = server.ok("search_memory", query="office coffee machine")
    assert "Rancilio" in answer.split("OTHER MATCHES")[0]
    assert "OUTDATED" in answer
    assert "no memory with id" in server.error(
        "mark_outdated", old_id="L-nope", new_id=_id_of(second)
    )


def test_unrelated_query_is_not_found(server):
    answer = server.ok("search_memory", query="quantum chromodynamics lattice gauge")
    assert answer.startswith("NOT FOUND")


def test_note_and_recall_stay_in_the_session(server, tmp_path):
    kept = server.ok("note", text="the flaky test is test_checkout_retry in tests/test_cart.py")
    assert kept.startswith("NOTED")
    answer = server.ok("recall", q="which test is flaky")
    assert answer.startswith("BEST") and "test_checkout_retry" in answer
    assert server.ok("recall", query="zeppelin").startswith("NOT FOUND")
    # never written to the long-term store
    assert server.ok("search_memory", query="test_checkout_retry flaky").startswith("NOT FOUND")


def test_read_file_full_unchanged_then_diff(server):
    source = server.cwd / "app.py"  # relative paths resolve against the server's cwd
    body = "".join(f"def step_{i}():\n    return {i}\n\n\n" for i in range(40))
    source.write_text(body, encoding="utf-8")
    first = server.ok("read_file", path="app.py")
    assert first.startswith("FULL") and "return 39" in first
    assert server.ok("read_file", path="app.py").startswith("UNCHANGED")
    ranged = server.ok("read_file", path=str(source), start_line=5, end_line=6)
    assert ranged.startswith("LINES 5-6") and "def step_1()" in ranged and "step_0" not in ranged
    source.write_text(body.replace("return 20\n", "return 2000\n"), encoding="utf-8")
    third = server.ok("read_file", path="app.py")
    assert third.startswith("DIFF")
    assert "-    return 20\n" in third and "+    return 2000" in third
    assert "step_39" not in third  # only the change and its context
    assert server.ok("read_file", path="app.py", force=True).startswith("FULL")
    assert "file not found" in server.error("read_file", path="missing.py")


def test_digest_output_of_a_real_pytest_run(server, tmp_path):
    tiny = tmp_path / "test_tiny.py"
    tiny.write_text(
        textwrap.dedent(
            """
            import pytest

            @pytest.mark.parametrize("n", range(40))
            def test_fine(n):
                assert n >= 0

            def test_total_price():
                price = 3 * 7
                assert price == 20, "discount not applied"
            """
        ),
        encoding="utf-8",
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", tiny.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={
            "PATH": "/usr/bin:/bin",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        },
    )
    log = run.stdout + run.stderr
    assert "1 failed, 40 passed" in log, log[-1500:]
    digest = server.ok("digest_output", text=log, label="pytest-tiny")
    assert "1 failed, 40 passed" in digest
    assert "test_total_price" in digest and "discount not applied" in digest
    assert "omitted" in digest and len(digest) < len(log)
    assert digest.rstrip().endswith("full text kept: recall('pytest-tiny')")
    assert "test_fine[17] PASSED" not in digest
    recalled = server.ok("recall", query="pytest-tiny")
    assert recalled.startswith("BEST") and "test_fine[17] PASSED" in recalled


def test_bad_arguments_give_clear_errors_and_the_server_goes_on(server):
    assert "save_memory needs `content`" in server.error("save_memory", content="   ")
    assert "save_memory needs `content`" in server.error("save_memory")
    message = server.error("search_memory", query=123)
    assert "`query` must be text" in message and "123" in message
    assert "search_memory needs `query`" in server.error("search_memory")
    assert "200,000" in server.error("save_memory", content="x" * 200_001)
    assert "`force` must be true or false" in server.error("read_file", path="a.py", force="maybe")
    assert "`start_line` must be a whole number" in server.error(
        "read_file", path="a.py", start_line="one"
    )
    assert '"compact" or "full"' in server.error("search_memory", query="x", detail="everything")
    assert "unknown type" in server.error("save_memory", content="hello there", content_type="poem")
    assert "unknown tool" in server.error("delete_everything")
    # still answering
    assert server.ok("search_memory", query="Kamal Hetzner deploy").startswith("BEST")


def test_a_credential_is_refused(server):
    message = server.error("save_memory", content=f"our AWS key is {FAKE_AWS_KEY} for the backups")
    assert "NOT SAVED" in message and "AWS" in message
    assert "ask the user" in message.lower() and "never store credentials" in message
    assert server.ok("search_memory", query=f"{FAKE_AWS_KEY} backups").startswith("NOT FOUND")


def test_two_servers_on_one_home_see_each_others_saves(tmp_path):
    home = tmp_path / "shared-ihmt"
    with live_server(home, tmp_path / "a") as first, live_server(home, tmp_path / "b") as second:
        assert first.ok("search_memory", query="Ostrava conference").startswith("NOT FOUND")
        assert second.ok("search_memory", query="Vigo sailing").startswith("NOT FOUND")
        first.ok(
            "save_memory", content="2025-04-02: the team meets at the Ostrava conference in May"
        )
        assert "Ostrava conference" in second.ok("search_memory", query="Ostrava conference")
        second.ok("save_memory", content="2025-04-03: Marta organises the Vigo sailing trip")
        assert "Vigo sailing" in first.ok("search_memory", query="Vigo sailing trip")
        # session notes are per process
        first.ok("note", text="only the first server knows about the pelican")
        assert second.ok("recall", query="pelican").startswith("NOT FOUND")


# -- without the SDK -------------------------------------------------------------------------


def test_missing_sdk_is_one_clear_line(tmp_path):
    code = (
        "import sys; sys.modules['mcp'] = None; sys.path.insert(0, sys.argv[1]); "
        "from ihmt.mcp_server import main; main([])"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(ROOT)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"IHMT_HOME": str(tmp_path / "h"), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert run.returncode == 1
    assert run.stdout == ""
    assert (
        run.stderr.strip()
        == "the MCP server needs the mcp package: pip install -r requirements-mcp.txt"
    )
    assert not (tmp_path / "h").exists()  # nothing was created


def _call(server, name: str, arguments) -> tuple[str, bool]:
    """One tool call in process, through the server's own call path: (text, failed)."""
    import anyio

    result = anyio.run(server.call_tool, name, arguments)
    return "\n".join(block.text for block in result.content), bool(result.is_error)


def _answer(server, name: str, arguments) -> str:
    text, failed = _call(server, name, arguments)
    assert not failed, text
    return text


def test_tool_server_turns_crashes_into_one_line_errors(caplog):
    pytest.importorskip("mcp")
    from ihmt.mcp_tools import ToolServer

    server = ToolServer()

    @server.tool(name="boom", description="Fails.")
    def boom(x: str) -> str:
        raise RuntimeError("disk on fire\nsecond line")

    text, failed = _call(server, "boom", {"x": "y"})
    assert failed and "\n" not in text and "RuntimeError" in text
    assert "disk on fire" in caplog.text  # the traceback went to the server log
    text, failed = _call(server, "boom", {})
    assert failed and text.startswith("boom needs `x`")
    text, failed = _call(server, "boom", ["y"])
    assert failed and "named arguments" in text


def test_tool_table_in_process(tmp_path):
    pytest.importorskip("mcp")
    import anyio

    from ihmt.mcp_session import Session
    from ihmt.mcp_tools import build_server

    server = build_server(Session(home=tmp_path / "h", cwd=tmp_path))
    assert [tool.name for tool in anyio.run(server.list_tools)] == list(TOOLS)
    # unknown extra arguments are ignored, and the answer says so
    answer = _answer(server, "note", {"text": "remember the tram", "priority": "high"})
    assert answer.startswith("NOTED") and "ignored unknown argument: priority" in answer
    # nothing was written until a memory tool ran
    assert not (tmp_path / "h").exists()


def test_recall_of_a_long_output_shows_the_lines_asked_for(tmp_path):
    pytest.importorskip("mcp")
    from ihmt.mcp_session import Session
    from ihmt.mcp_tools import build_server

    server = build_server(Session(home=tmp_path / "h", cwd=tmp_path))
    lines = [f"step {i}: compiled module_{i}.c" for i in range(3000)]
    lines[1717] = "step 1717: KeyError: 'tenant_id' in billing/invoice.py"
    digest = _answer(server, "digest_output", {"text": "\n".join(lines), "label": "build-7"})
    assert "recall('build-7')" in digest
    answer = _answer(server, "recall", {"query": "build-7 tenant_id"})
    assert "KeyError: 'tenant_id'" in answer and len(answer) < 3000
    head = _answer(server, "recall", {"query": "build-7"})
    assert head.startswith("BEST") and "more characters" in head and len(head) < 8000


def test_save_report_lists_candidates_for_mark_outdated():
    from types import SimpleNamespace

    from ihmt.render import save_report as format_save_report

    report = SimpleNamespace(
        leaf_ids=["L-new"],
        new=True,
        domain="general",
        data_type="GENERIC",
        facts=[],
        notices=[
            "On 2024-03-11 you said user location = 'Madrid', but on 2026-02-03 you updated to 'Valencia'."
        ],
        replaces_status="candidates",
        replaced_id="",
        candidates=[
            {"id": "L-a", "date": "2024-05-01", "excerpt": "lunch at Casa Pepe"},
            {"id": "L-b", "date": "2024-06-01", "excerpt": "lunch at La Taberna"},
        ],
    )
    text = format_save_report(report, "team lunch")
    assert "NOTICE (tell the user): On 2024-03-11" in text
    assert 'mark_outdated(old_id="<its id>", new_id="L-new")' in text
    assert "L-a (2024-05-01)" in text and "L-b (2024-06-01)" in text
    report.replaces_status = "not_found"
    assert "nothing marked OUTDATED" in format_save_report(report, "team lunch")
