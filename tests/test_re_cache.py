"""ihmt.re_cache: a pattern read back from the cache file matches exactly as ``re.compile``'s
does, a second process assembles nothing, and a damaged, foreign or unwritable cache changes
no match and raises nothing."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt import re_cache

ROOT = Path(__file__).resolve().parent.parent

# every module of the package that imports without an optional extra: their patterns are
# what the cache holds in use
IMPORT_ALL = """
import importlib, pkgutil, ihmt
for info in pkgutil.walk_packages(ihmt.__path__, "ihmt."):
    if info.name.endswith("__main__"):
        continue
    try:
        importlib.import_module(info.name)
    except ImportError:
        pass
from ihmt import re_cache
print(len(re_cache._state["new"]), len(re_cache._state["used"]))
"""


def _run(code: str, cache: Path | str) -> list[int]:
    env = {**os.environ, "IHMT_RE_CACHE": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return [int(x) for x in done.stdout.split()]


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """This process's cache state, emptied, on a file of the test's own."""
    path = tmp_path / "patterns.json"
    monkeypatch.setenv("IHMT_RE_CACHE", str(path))
    state = {"loaded": None, "new": {}, "used": set(), "off": False, "registered": True}
    monkeypatch.setattr(re_cache, "_state", state)
    return path


@pytest.fixture(scope="module")
def package_cache(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("pkg") / "patterns.json"
    _run(IMPORT_ALL, path)
    return path


def _sample_texts() -> list[str]:
    corpus = json.loads((ROOT / "benchmarks/agent_corpora/cantera.json").read_text("utf-8"))
    memories = [m["content"] for m in corpus["memories"]][:60]
    examples = sorted((ROOT / "examples").rglob("*.txt"))[:3]
    texts = memories + [p.read_text("utf-8", "replace")[:3000] for p in examples]
    return texts + ["", "Ünïcödé — 東京 \u200b ✓ 2026-03-01 10.0.0.1 v1.2.3 C++ C# foo_bar.baz"]


def _matches(pattern: re.Pattern, texts: list[str]) -> list:
    return [[(m.span(), m.groups()) for m in pattern.finditer(text)] for text in texts]


def test_second_process_assembles_nothing(tmp_path):
    cache = tmp_path / "patterns.json"
    first_new, _ = _run(IMPORT_ALL, cache)
    second_new, second_used = _run(IMPORT_ALL, cache)
    assert first_new > 300  # the package's patterns, all assembled the first time
    assert second_new == 0 and second_used >= first_new


def test_every_package_pattern_from_the_cache_matches_as_re_compile(package_cache, fresh):
    entries = json.loads(package_cache.read_text("utf-8"))
    texts = _sample_texts()
    checked = 0
    for key, entry in entries.items():
        flags, pattern = key.split(":", 1)
        cached = re_cache._from_entry(pattern, entry)
        expected = re.compile(pattern, int(flags))
        assert cached is not None, pattern
        assert (cached.pattern, cached.flags, cached.groups) == (
            expected.pattern,
            expected.flags,
            expected.groups,
        )
        assert cached.groupindex == expected.groupindex
        assert _matches(cached, texts) == _matches(expected, texts), pattern
        checked += 1
    assert checked > 300


def _read_back(pattern: str) -> re.Pattern:
    """``pattern`` assembled into a cache entry and built again from that entry."""
    saved = re_cache._state
    re_cache._state = {"loaded": {}, "new": {}, "used": set(), "off": False, "registered": True}
    try:
        re_cache.compile(pattern)
        entry = re_cache._state["new"][f"0:{pattern}"]
    finally:
        re_cache._state = saved
    rebuilt = re_cache._from_entry(pattern, entry)
    assert rebuilt is not None
    return rebuilt


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=300))
def test_read_back_word_scanner_matches_as_re_compile_on_any_text(text):
    """The tokenizer's scanner, the pattern every search runs most, on arbitrary Unicode."""
    from ihmt.text.tokenize import _tables

    pattern = _tables()[1].pattern
    assert _matches(_read_back(pattern), [text]) == _matches(re.compile(pattern), [text])


def test_a_cache_read_back_in_process_gives_the_same_matches(fresh):
    texts = _sample_texts()
    patterns = [r"(?i)(?P<host>[a-z0-9-]+)\.internal(?::(?P<port>\d+))?", r"\b\d{4}-\d\d-\d\d\b"]
    first = [re_cache.compile(p) for p in patterns]
    re_cache.persist()
    assert fresh.exists() and not re_cache._state["new"]
    re_cache._state.update(loaded=None, used=set())
    again = [re_cache.compile(p) for p in patterns]
    assert not re_cache._state["new"] and len(re_cache._state["used"]) == 2  # all read back
    for a, b, p in zip(first, again, patterns, strict=True):
        assert _matches(a, texts) == _matches(b, texts) == _matches(re.compile(p), texts)


@pytest.mark.parametrize(
    "damage",
    [
        "not json at all {",
        "[1, 2, 3]",
        json.dumps({"0:a+b": "x"}),
        json.dumps({"0:a+b": [32, "!!not base64!!", 0, {}, [None]]}),
        json.dumps({"0:a+b": [32, base64.b64encode(os.urandom(64)).decode(), 0, {}, [None]]}),
        json.dumps({"0:a+b": [32, base64.b64encode(b"\x01\x02\x03").decode(), 0, {}, [None]]}),
        json.dumps({"0:a+b": [32, "", 0, {"g": "one"}, [None]]}),
    ],
    ids=["not-json", "a-list", "wrong-shape", "bad-base64", "random-program", "torn", "bad-group"],
)
def test_a_damaged_cache_changes_no_match_and_raises_nothing(fresh, damage):
    fresh.write_text(damage, encoding="utf-8")
    compiled = re_cache.compile("a+b")
    assert [m.span() for m in compiled.finditer("xaab ab b")] == [(1, 4), (5, 7)]
    assert "0:a+b" in re_cache._state["new"]  # assembled afresh, to be written over


def test_a_bad_pattern_raises_as_re_compile_does(fresh):
    with pytest.raises(re.error):
        re_cache.compile("(unclosed")


def test_an_unwritable_cache_folder_is_no_error(fresh, tmp_path, monkeypatch):
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    monkeypatch.setenv("IHMT_RE_CACHE", str(folder / "patterns.json"))
    assert re_cache.compile("x+y").fullmatch("xxy")
    re_cache.persist()
    assert not (folder / "patterns.json").exists()


def test_off_writes_nothing(tmp_path):
    env = {**os.environ, "IHMT_RE_CACHE": "off", "XDG_CACHE_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", "import ihmt.api; from ihmt import re_cache; re_cache.persist()"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert not list(tmp_path.rglob("*.json"))


def test_the_prompt_hook_keeps_what_it_assembled(tmp_path):
    """The hook command ends without the interpreter's exit, so it writes the cache itself."""
    cache = tmp_path / "patterns.json"
    payload = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "s", "cwd": "/"})
    env = {**os.environ, "IHMT_RE_CACHE": str(cache), "IHMT_HOME": str(tmp_path / "none")}
    hook = [sys.executable, "-S", str(ROOT / "ihmt/hooks/__main__.py"), "hooks", "run"]
    done = subprocess.run([*hook, "--agent", "claude"], input=payload, env=env, text=True)
    assert done.returncode == 0
    assert cache.exists() and json.loads(cache.read_text("utf-8"))


def test_patterns_built_from_a_question_are_never_kept(tmp_path):
    """Two people of one name: the search reads their surnames with a pattern built from the
    name, which is compiled apart and never written to the cache."""
    from ihmt import IHMT

    workspace = tmp_path / "ws"
    memory = IHMT.initialize(workspace)
    for text in (
        "Luis Ortega is the CTO and co-founder; he approves production changes and prefers a "
        "quick call over long threads. GitHub: @lortega-rf.",
        "Luis Pardo (mobile developer) is @lpardo on GitHub.",
        "CI runs on GitHub Actions; the docs are published with GitHub Pages.",
        "The dispatch API listens on port 8080 in every environment.",
    ):
        memory.save(text)
    memory.close()
    cache = tmp_path / "patterns.json"
    done = subprocess.run(
        [
            sys.executable,
            "main.py",
            "search",
            "what's Luis's GitHub handle?",
            "--path",
            str(workspace),
        ],
        cwd=ROOT,
        env={**os.environ, "IHMT_RE_CACHE": str(cache)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and "AMBIGUOUS" in done.stdout, done.stdout + done.stderr
    kept = cache.read_text("utf-8")
    assert json.loads(kept)
    assert not any(word in kept for word in ("Luis", "Ortega", "Pardo", "lortega"))


def test_a_full_cache_is_rewritten_with_the_patterns_in_use(fresh, monkeypatch):
    """Edited patterns leave their older versions behind; past MAX_ENTRIES they are dropped."""
    monkeypatch.setattr(re_cache, "MAX_ENTRIES", 5)
    for n in range(5):
        re_cache.compile(f"stale{n}+")
    re_cache.persist()
    re_cache._state.update(loaded=None, used=set())
    re_cache.compile("stale0+")  # read back: in use
    re_cache.compile("fresh+")  # assembled: new
    re_cache.persist()
    kept = json.loads(fresh.read_text("utf-8"))
    assert sorted(kept) == ["0:fresh+", "0:stale0+"]
