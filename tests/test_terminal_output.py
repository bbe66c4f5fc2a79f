"""Issue 20 point 10: a stored memory cannot drive the user's terminal.

Terminal control sequences kept in a memory (clear screen, OSC retitle, C1 CSI, bidi
overrides) are shown as visible escapes by every text output of the CLI, while --json keeps the
exact text (every such character is a JSON escape there, so it is safe and round-trips).
"""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from ihmt.text.terminal import json_safe, terminal_safe

from .conftest import run_cli

CLEAR = "\x1b[2J"
TITLE = "\x1b]0;pwned\x07"
CSI8 = "\x9b31m"
RLO = "\u202e"
HOSTILE = f"The staging deploy rotation {CLEAR}{TITLE} runs on Fridays {RLO}evil{CSI8} at noon."
# Everything a terminal may act on, except newline and tab.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _assert_escaped(output: str) -> None:
    assert not RAW_CONTROL.search(output), f"raw control character in {output!r}"


def _store_hostile(workspace):
    from ihmt import IHMT

    memory = IHMT.initialize(workspace, branch_factor=4, target_tokens=400, max_tokens=600)
    memory.save(HOSTILE)
    memory.save(f"I live in Madrid{TITLE} these days.")
    memory.flush()
    return memory


def test_search_ask_tree_facts_stats_show_escapes_not_controls(workspace):
    _store_hostile(workspace)
    ws = str(workspace)
    for args in (
        ("search", "staging deploy rotation"),
        ("search", "staging deploy rotation", "--full"),
        ("ask", "staging deploy rotation"),
        ("tree",),
        ("facts",),
        ("stats",),
        ("conflicts",),
        ("check",),
    ):
        proc = run_cli("--path", ws, *args)
        assert proc.returncode == 0, proc.stderr
        _assert_escaped(proc.stdout)
        _assert_escaped(proc.stderr)
        if args[0] in ("search", "ask", "tree"):
            assert "\\x1b[2J\\x1b]0;pwned\\x07" in proc.stdout, proc.stdout
        if args[0] in ("search", "ask"):
            assert "\\u202eevil\\x9b31m" in proc.stdout, proc.stdout
        if args[0] == "facts":
            assert "\\x1b]0" in proc.stdout, proc.stdout


def test_error_lines_are_escaped(workspace, monkeypatch, capsys):
    """An error message can quote received text (a git message from a sync peer, say)."""
    from ihmt import cli
    from ihmt.cli import overview
    from ihmt.errors import InputError

    def hostile(args):
        raise InputError(f"the peer said {CLEAR}{TITLE}")

    monkeypatch.setattr(overview, "cmd_stats", hostile)
    assert cli.main(["--path", str(workspace), "stats"]) == 1
    err = capsys.readouterr().err
    _assert_escaped(err)
    assert "the peer said \\x1b[2J\\x1b]0;pwned\\x07" in err


def test_json_output_keeps_the_exact_text(workspace):
    _store_hostile(workspace)
    proc = run_cli("--path", str(workspace), "--json", "search", "staging deploy rotation")
    assert proc.returncode == 0, proc.stderr
    _assert_escaped(proc.stdout)  # JSON escapes them all
    data = json.loads(proc.stdout)
    assert data["hits"][0]["content"] == HOSTILE


def test_clean_text_is_unchanged():
    text = "naïve café — 日本語 ✓\n\tindented → arrow, emoji 🎉, back\\slash"
    assert terminal_safe(text) == text


@given(st.text())
def test_terminal_safe_leaves_no_control_and_keeps_everything_else(text):
    out = terminal_safe(text)
    _assert_escaped(out)
    assert not re.search("[\ud800-\udfff]", out)
    kept = RAW_CONTROL.sub("", re.sub("[\ud800-\udfff]", "", text))
    # every character that is not a control survives, in order
    it = iter(out)
    assert all(ch in it for ch in kept)


@given(st.recursive(st.text(), lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner)))
def test_json_safe_round_trips_and_escapes(value):
    encoded = json_safe(json.dumps(value, ensure_ascii=False))
    _assert_escaped(encoded)
    assert json.loads(encoded) == value
