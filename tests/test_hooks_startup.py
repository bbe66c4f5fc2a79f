"""What the per-prompt hook loads: it runs on every prompt, so its start-up is its latency.

The installed command runs the interpreter with ``-S`` and reaches the store through the
facade; on a read (SessionStart, UserPromptSubmit) it must not load what only writers, capture,
semantic search or an LLM summarizer need. These tests read the interpreter's own import log
(``-X importtime`` via PYTHONPROFILEIMPORTTIME) of the real command, so a heavy import that
creeps back onto the read path fails here by name. No wall-clock time is asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ihmt import IHMT
from ihmt.loop import settings

# loaded by no read: writers' helpers, logging, capture, the optional layers
NOT_ON_THE_READ_PATH = (
    "site",  # -S: site-packages only when the store's settings need them
    "logging",
    "tempfile",
    "shutil",
    "secrets",
    "hashlib",
    "argparse",
    "ihmt.cli",
    "ihmt.loop.capture",
    "ihmt.loop.extract",
    "ihmt.loop.transcript",
    "ihmt.semantic.embedder",
    "ihmt.semantic.fusion",
    "ihmt.semantic.retriever",
    "ihmt.tree.llm_backends",
)


def imported_modules(stderr: str) -> set[str]:
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


@pytest.fixture
def ws(tmp_path):
    memory = IHMT.initialize(tmp_path / "ws")
    memory.save("We decided to use Postgres 16 for the staging database.")
    memory.save("Always run the linter before committing.")
    memory.close()
    return tmp_path / "ws"


def run_hook(ws, event_payload: dict, env_extra: dict | None = None):
    cmd = settings.hook_command("claude", ws)
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1", **(env_extra or {})}
    return subprocess.run(
        ["sh", "-c", cmd],
        input=json.dumps(event_payload).encode(),
        capture_output=True,
        timeout=120,
        env=env,
        cwd=str(ws.parent),
    )


def test_the_installed_command_starts_without_site():
    cmd = settings.hook_command("claude", "/tmp/w")
    words = cmd.split()
    assert words[1] == "-S" and words[2].endswith("__main__.py")
    assert settings.MARK in cmd


@pytest.mark.parametrize(
    "event, extra",
    [
        ("UserPromptSubmit", {"prompt": "which database did we decide to use for staging?"}),
        ("UserPromptSubmit", {"prompt": "fix this test"}),
        ("SessionStart", {"source": "startup"}),
    ],
)
def test_a_read_loads_nothing_only_writers_or_capture_need(ws, tmp_path, event, extra):
    data = {"hook_event_name": event, "session_id": "s1", "cwd": str(tmp_path), **extra}
    done = run_hook(ws, data)
    assert done.returncode == 0
    loaded = imported_modules(done.stderr.decode("utf-8", "replace"))
    assert "ihmt.api" in loaded and "ihmt.loop.recall" in loaded  # the log is read right
    assert sorted(loaded & set(NOT_ON_THE_READ_PATH)) == []
    if "Postgres" in json.dumps(extra) or "database" in json.dumps(extra):
        assert "Postgres 16" in done.stdout.decode()  # and the answer still comes


def test_a_store_that_needs_installed_packages_gets_site_packages(ws, tmp_path):
    """An LLM summarizer (or semantic search) needs packages from site-packages: under -S a
    capture adds them once the store's settings say so."""
    config = ws / "ihmt_memory" / "ihmt.config.json"
    data = json.loads(config.read_text(encoding="utf-8"))
    data["summarizer_backend"] = "openai"
    config.write_text(json.dumps(data), encoding="utf-8")
    payload = {"hook_event_name": "Stop", "session_id": "s1", "cwd": str(tmp_path)}
    done = run_hook(ws, payload)
    assert done.returncode == 0
    assert "site" in imported_modules(done.stderr.decode("utf-8", "replace"))


@pytest.mark.parametrize(
    "event, extra",
    [
        ("UserPromptSubmit", {"prompt": "which database did we decide to use for staging?"}),
        ("SessionStart", {"source": "startup"}),
    ],
)
def test_a_semantic_store_is_read_without_loading_the_model(ws, tmp_path, event, extra):
    """Loading the semantic model takes seconds (3-4 s on a 2-core machine, past the hook's
    4 s budget with the search): a prompt in a new process is answered on words alone, and
    neither site-packages nor numpy, torch or sentence-transformers are imported."""
    config = ws / "ihmt_memory" / "ihmt.config.json"
    data = json.loads(config.read_text(encoding="utf-8"))
    data["semantic"] = True
    data["semantic_resident"] = False  # tests/test_resident_model.py starts that process
    config.write_text(json.dumps(data), encoding="utf-8")
    payload = {"hook_event_name": event, "session_id": "s1", "cwd": str(tmp_path), **extra}
    done = run_hook(ws, payload)
    assert done.returncode == 0
    loaded = imported_modules(done.stderr.decode("utf-8", "replace"))
    assert "ihmt.api" in loaded  # the log is read right
    heavy = {"site", "numpy", "torch", "transformers", "sentence_transformers"}
    assert sorted(loaded & heavy) == []
    assert "gave up" not in done.stderr.decode("utf-8", "replace")
    if event == "UserPromptSubmit":
        assert "Postgres 16" in done.stdout.decode()


def test_a_loaded_model_still_serves_a_prompt_in_a_long_lived_process(ws, monkeypatch):
    """``load_model`` only spares a new process the load: where the model is already in
    memory (a server, a test), the prompt's search uses it."""
    memory = IHMT.open(ws)
    try:
        seen = []

        class Dense:
            def model_loaded(self):
                return True

        monkeypatch.setattr(memory, "semantic", Dense())
        original = memory.engine.search

        def spy(*args, **kwargs):
            seen.append(memory.engine.dense)
            return original(*args, **kwargs)

        marker = object()
        monkeypatch.setattr(memory.engine, "dense", marker)
        monkeypatch.setattr(memory.engine, "search", spy)
        try:
            memory.prompt_recall("which database did we decide to use?", load_model=False)
        except AttributeError:
            pass  # the marker is no real index; what the search was handed is the point
        assert seen and seen[0] is marker
        Dense.model_loaded = lambda self: False
        seen.clear()
        monkeypatch.setattr(memory.engine, "dense", marker)
        memory.prompt_recall("which database did we decide to use?", load_model=False)
        assert seen and seen[0] is None and memory.engine.dense is marker
    finally:
        memory.close()


def test_site_packages_are_left_alone_without_dash_s(ws):
    """Run the plain way (``python -m ihmt.hooks``), site is already there: nothing to add."""
    code = (
        "import sys, ihmt.hooks.run as r\n"
        "class C: semantic = True; summarizer_backend = 'heuristic'\n"
        "before = set(sys.path); r.site_packages_if_needed(C()); print(set(sys.path) == before)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert done.stdout.decode().strip() == "True"


def test_importing_the_facade_builds_no_unicode_tables():
    """Folding non-ASCII text builds tables over all of Unicode (about 100 ms); importing the
    facade must not, or every hook pays it before reading the prompt (a module-level
    ``terms("versión")`` once did)."""
    code = (
        "import ihmt.api, ihmt.search.engine, ihmt.text.tokenize as t; "
        "print(t._tables.cache_info().currsize)"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        check=True,
    )
    assert out.stdout.strip() == "0"


def test_a_question_asking_for_no_shape_compiles_no_answer_shape_pattern(tmp_path):
    """The answer shapes' value patterns (phone numbers, versions, prices, …) cost about 10 ms
    to compile, which the per-prompt hook would pay on every prompt; only a question asking for
    a shape compiles the patterns of that shape."""
    code = (
        "import sys\n"
        "from ihmt.api import IHMT\n"
        "from ihmt.search import answer_type as a\n"
        "m = IHMT.initialize(sys.argv[1])\n"
        "m.save('The deploy job runs from the release branch after the standup.')\n"
        "m.search('where does the deploy job run from?')\n"
        "print(sum(s.holds._compiled is not None for s in a.SHAPES))\n"
        "m.search('which port does the deploy job use?')\n"
        "print(sorted({s.name for s in a.SHAPES if s.holds._compiled is not None}))\n"
        "m.close()\n"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", code, str(tmp_path / "ws")],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        check=True,
    )
    none_yet, after_port = out.stdout.split("\n")[:2]
    assert none_yet == "0"
    assert after_port == "['port']"
