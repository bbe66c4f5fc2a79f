"""Tests for the session tools: scratch notes, the file read cache and log digests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt.errors import InputError
from ihmt.session.digest import digest_output
from ihmt.session.file_cache import FileReadCache
from ihmt.session.scratch import ScratchPad

# --- scratch pad -------------------------------------------------------------------------


def test_note_and_recall_finds_matching_note() -> None:
    pad = ScratchPad()
    pad.note("The staging database runs PostgreSQL 16 on port 5433", label="db")
    pad.note("Frontend build uses Vite with a custom proxy")
    result = pad.recall("which port does the database use?")
    assert not result.not_found
    top, score = result.hits[0]
    assert "5433" in top.text and top.label == "db"
    assert all(score > other for _note, other in result.hits[1:])  # ranked above the rest
    assert top.created.endswith("+00:00")


def test_recall_not_found_and_empty_inputs() -> None:
    pad = ScratchPad()
    pad.note("deploy key rotated on Monday")
    result = pad.recall("kubernetes ingress")
    assert result.not_found and result.hits == []
    with pytest.raises(InputError, match="empty"):
        pad.recall("   ")
    with pytest.raises(InputError, match="note text is empty"):
        pad.note(" \n\t")


def test_note_over_cap_is_rejected_with_cap_in_message() -> None:
    pad = ScratchPad(max_chars=10)
    with pytest.raises(InputError, match="10"):
        pad.note("x" * 11)


def test_clue_boosts_note_matching_both() -> None:
    pad = ScratchPad()
    pad.note("retry timeout for the payments service is 30 seconds")
    pad.note("retry timeout for the search service is 5 seconds")
    plain = pad.recall("retry timeout")
    assert plain.ambiguous
    # Without a clue the most recent note wins the tie.
    assert "search" in plain.hits[0][0].text
    clued = pad.recall("retry timeout", clue="payments")
    assert "payments" in clued.hits[0][0].text
    assert clued.hits[0][1] > clued.hits[1][1] * 2
    assert not clued.ambiguous


def test_identical_texts_are_not_ambiguous() -> None:
    pad = ScratchPad()
    pad.note("cache directory is /var/cache/app")
    pad.note("cache directory is /var/cache/app")
    assert not pad.recall("cache directory").ambiguous


def test_eviction_drops_oldest() -> None:
    pad = ScratchPad(max_notes=3)
    words = ["alpha", "bravo", "charlie", "delta", "echo"]
    for word in words:
        pad.note(f"finding about {word}")
    assert [n.text for n in pad.all()] == [f"finding about {w}" for w in words[2:]]
    assert len(pad) == 3
    assert pad.recall("alpha").not_found
    assert not pad.recall("echo").not_found


def test_store_output_keeps_long_text() -> None:
    pad = ScratchPad(max_chars=100)
    log = "\n".join(f"line {i} compiling module{i}" for i in range(5000))
    note = pad.store_output(log, label="build log")
    assert note.text == log and note.label == "build log"
    assert pad.recall("module4321").hits[0][0].note_id == note.note_id
    huge = pad.store_output("a" * 1_500_000 + "b" * 1_500_000, label="huge")
    assert len(huge.text) < 2_100_000 and huge.text.startswith("a") and huge.text.endswith("b")


# --- file read cache ---------------------------------------------------------------------


def test_read_full_unchanged_diff_force(tmp_path: Path) -> None:
    src = tmp_path / "app.py"
    src.write_text("".join(f"line {i}\n" for i in range(1, 41)), encoding="utf-8")
    cache = FileReadCache(root=tmp_path)

    first = cache.read("app.py")
    assert first.status == "FULL" and first.total_lines == 40
    assert first.path == str(src.resolve()) and "line 40" in first.text

    again = cache.read(str(src))
    assert again.status == "UNCHANGED"
    assert "UNCHANGED since last read (40 lines, sha256 " in again.text
    assert again.sha256 == first.sha256

    src.write_text(src.read_text(encoding="utf-8").replace("line 20\n", "line twenty\n"))
    diff = cache.read("app.py")
    assert diff.status == "DIFF"
    assert "-line 20\n" in diff.text and "+line twenty\n" in diff.text
    assert f"a/{str(src.resolve()).lstrip('/')}" in diff.text
    assert len(diff.text) < len(src.read_text(encoding="utf-8"))

    assert cache.read("app.py").status == "UNCHANGED"
    forced = cache.read("app.py", force=True)
    assert forced.status == "FULL" and "line twenty" in forced.text


def test_large_rewrite_returns_full_instead_of_diff(tmp_path: Path) -> None:
    src = tmp_path / "notes.txt"
    src.write_text("alpha\nbeta\n", encoding="utf-8")
    cache = FileReadCache()
    cache.read(str(src))
    src.write_text("gamma\ndelta\n", encoding="utf-8")
    result = cache.read(str(src))
    assert result.status == "FULL" and result.text == "gamma\ndelta\n"


def test_range_read_leaves_remembered_version(tmp_path: Path) -> None:
    src = tmp_path / "data.txt"
    src.write_text("".join(f"row {i}\n" for i in range(1, 11)), encoding="utf-8")
    cache = FileReadCache()
    part = cache.read(str(src), start_line=3, end_line=5)
    assert part.status == "RANGE" and part.text == "row 3\nrow 4\nrow 5\n"
    assert part.total_lines == 10
    assert cache.read(str(src)).status == "FULL"  # the range did not count as a full read
    assert cache.read(str(src), start_line=9, end_line=50).text == "row 9\nrow 10\n"
    assert cache.read(str(src)).status == "UNCHANGED"
    for start, end in ((5, 3), (11, 12), (0, 2)):
        with pytest.raises(InputError):
            cache.read(str(src), start_line=start, end_line=end)


def test_size_cap_on_whole_file_and_range(tmp_path: Path) -> None:
    src = tmp_path / "big.log"
    src.write_text("".join(f"{i:05d} " + "x" * 93 + "\n" for i in range(100)), encoding="utf-8")
    cache = FileReadCache(max_bytes=1000)
    with pytest.raises(InputError, match="1000") as whole:
        cache.read(str(src))
    assert "start_line" in str(whole.value) and "\n" not in str(whole.value)
    with pytest.raises(InputError, match="1000"):
        cache.read(str(src), start_line=1, end_line=20)
    assert cache.read(str(src), start_line=1, end_line=5).status == "RANGE"


def test_read_errors_are_one_line(tmp_path: Path) -> None:
    cache = FileReadCache(root=tmp_path)
    (tmp_path / "blob.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (tmp_path / "latin.txt").write_bytes(bytes(range(0x80, 0x100)) * 4)
    (tmp_path / "sub").mkdir()
    cases = {
        "missing.txt": "not found",
        "blob.bin": "binary",
        "latin.txt": "binary",
        "sub": "directory",
        "": "empty",
    }
    for name, needle in cases.items():
        with pytest.raises(InputError, match=needle) as err:
            cache.read(name)
        assert "\n" not in str(err.value)


def test_few_bad_bytes_are_tolerated(tmp_path: Path) -> None:
    src = tmp_path / "mostly.txt"
    src.write_bytes(b"hello world\n" * 200 + b"caf\xe9\n")
    result = FileReadCache().read(str(src))
    assert result.status == "FULL" and "\ufffd" in result.text


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root ignores permissions"
)
def test_permission_denied(tmp_path: Path) -> None:
    src = tmp_path / "secret.txt"
    src.write_text("nope\n", encoding="utf-8")
    src.chmod(0)
    try:
        with pytest.raises(InputError, match="permission denied"):
            FileReadCache().read(str(src))
    finally:
        src.chmod(0o600)


def test_home_expansion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "h.txt").write_text("home\n", encoding="utf-8")
    assert FileReadCache().read("~/h.txt").text == "home\n"


# --- digest ------------------------------------------------------------------------------

FAILING_TESTS = """
def test_passes():
    for i in range(40):
        print("progress", i)
    assert True


def test_fails():
    for i in range(40):
        print("noise", i)
    assert 2 + 2 == 5, "arithmetic is broken"
"""


def test_digest_of_real_pytest_log(tmp_path: Path) -> None:
    (tmp_path / "test_sample.py").write_text(FAILING_TESTS, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "test_sample.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 1, log
    digest = digest_output(log, "pytest", head=5, tail=5, max_lines=30)
    assert digest.text.startswith(f"[pytest] {digest.total_lines} lines, {len(log)} chars")
    assert len(digest.text) < len(log)
    assert "omitted)" in digest.text
    assert "FAILED test_sample.py::test_fails" in digest.text
    assert "arithmetic is broken" in digest.text
    assert any("1 failed, 1 passed" in t for t in digest.totals)
    assert any("1 failed, 1 passed" in line for line in digest.text.splitlines())
    assert digest.error_lines >= 2


def _padded(core: str, noise: int = 200) -> str:
    """Bury a runner's summary in the middle of a long log."""
    before = "".join(f"compiling unit {i}\n" for i in range(noise))
    after = "".join(f"cleanup step {i}\n" for i in range(noise))
    return before + core + after


@pytest.mark.parametrize(
    ("core", "expected"),
    [
        (
            "Ran 12 tests in 0.105s\n\nFAILED (failures=1)\n",
            ["Ran 12 tests", "FAILED (failures=1)"],
        ),
        ("Ran 3 tests in 0.001s\n\nOK\n", ["Ran 3 tests", "OK"]),
        (
            "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1 want 2\nFAIL\n"
            "FAIL\texample.com/parser\t0.012s\nok  \texample.com/util\t0.004s\n",
            ["--- FAIL: TestParse", "FAIL\texample.com/parser", "ok  \texample.com/util"],
        ),
        (
            "test result: FAILED. 5 passed; 1 failed; 0 ignored; 0 measured\n",
            ["test result: FAILED. 5 passed; 1 failed"],
        ),
        (
            "Test Suites: 1 failed, 2 passed, 3 total\nTests:       1 failed, 5 passed, 6 total\n",
            ["Tests:       1 failed, 5 passed, 6 total", "Test Suites: 1 failed"],
        ),
        (
            "[ERROR] Tests run: 10, Failures: 1, Errors: 0, Skipped: 0\n[INFO] BUILD FAILURE\n",
            ["Tests run: 10, Failures: 1, Errors: 0, Skipped: 0", "BUILD FAILURE"],
        ),
        ("  3 passing (12ms)\n  1 failing\n", ["3 passing", "1 failing"]),
        ("==== 1 failed, 2 passed ====\n", ["1 failed, 2 passed"]),
    ],
)
def test_runner_totals_recognised(core: str, expected: list[str]) -> None:
    digest = digest_output(_padded(core), "tests")
    for needle in expected:
        assert any(needle in t for t in digest.totals), (needle, digest.totals)
        assert needle in digest.text, needle
    assert digest.text.count("\n") < 75


def test_errors_are_deduplicated_with_context() -> None:
    core = "".join(f"ERROR: connection refused (attempt {i})\n" for i in range(50))
    core += 'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n'
    core += "ValueError: bad config\n"
    digest = digest_output(_padded(core), "svc")
    assert digest.text.count("ERROR: connection refused") == 1
    assert "+49 similar" in digest.text
    assert '  File "app.py", line 3' in digest.text
    assert "ValueError: bad config" in digest.text
    assert digest.error_lines == 52


def test_short_and_empty_inputs() -> None:
    short = "one\ntwo\nthree\n"
    digest = digest_output(short, "echo")
    assert digest.text == "[echo] 3 lines, 14 chars\none\ntwo\nthree"
    assert "omitted" not in digest.text
    empty = digest_output("", "quiet")
    assert "empty" in empty.text and empty.total_lines == 0 and empty.totals == []


def test_digest_strips_ansi_and_controls() -> None:
    digest = digest_output("\x1b[31mFAILED\x1b[0m x\nprogress 10%\rprogress 100%\nnul\x00here\n")
    assert "\x1b" not in digest.text and "\x00" not in digest.text
    assert "FAILED x" in digest.text and "progress 100%" in digest.text
    assert "progress 10%" not in digest.text


def test_many_errors_respect_line_budget() -> None:
    names = [a + b + c for a in "pqrst" for b in "uvwxy" for c in "abcdefghijklmnopqrst"]
    core = "".join(f"src/main.c:{i}: error: unknown type name {n}\n" for i, n in enumerate(names))
    digest = digest_output(_padded(core), "gcc", max_lines=40)
    assert digest.error_lines == 500
    assert len(digest.text.split("\n")) <= 40 + 4
    assert "more error lines not shown" in digest.text


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(max_size=3000)
    | st.lists(
        st.sampled_from(
            ["ok", "FAILED x", "E   assert 0", "  ctx", "Ran 2 tests in 0.1s", "OK", "", "\r\x00"]
        ),
        max_size=400,
    ).map("\n".join),
    head=st.integers(0, 30),
    tail=st.integers(0, 30),
    max_lines=st.integers(1, 80),
)
def test_digest_never_raises_and_stays_bounded(
    text: str, head: int, tail: int, max_lines: int
) -> None:
    digest = digest_output(text, "fuzz", head=head, tail=tail, max_lines=max_lines)
    assert isinstance(digest.text, str) and digest.text
    assert len(digest.text.split("\n")) <= max_lines + 4
    assert len(digest.text.splitlines()) <= max_lines + 4


def test_matching_lines_of_a_stored_output_pick_the_asked_lines_with_context() -> None:
    from ihmt.session.scratch import matching_lines

    lines = ["[build-7] full output", *(f"step {i}: compiled module_{i}.c" for i in range(1, 400))]
    lines[250] = "step 250: KeyError: 'tenant_id' in billing/invoice.py"
    found = matching_lines("\n".join(lines), "build-7 tenant_id", None, budget=6000, line_chars=300)
    assert found.header == "[build-7] full output" and found.total_lines == 400
    assert [n for n, _ in found.lines] == [249, 250, 251]  # the hit and one line either side
    assert "tenant_id" in found.lines[1][1]
    assert "tenant_id" in found.wanted and "build" not in found.wanted  # the label's words
    assert (
        matching_lines("\n".join(lines), "zeppelin", None, budget=6000, line_chars=300).lines == []
    )
