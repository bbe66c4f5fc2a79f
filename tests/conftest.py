"""Every test runs against temporary folders: HOME and IHMT_HOME never point at a real store."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@pytest.fixture(autouse=True, scope="session")
def shared_pattern_cache(tmp_path_factory):
    """One file of assembled patterns (ihmt.re_cache) for the whole run, never the user's:
    the tests' subprocesses then start as an agent's hooks do, from the second one on."""
    os.environ["IHMT_RE_CACHE"] = str(tmp_path_factory.mktemp("re_cache") / "patterns.json")
    yield
    os.environ.pop("IHMT_RE_CACHE", None)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("IHMT_HOME", str(home / ".ihmt"))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return home


@pytest.fixture
def workspace(tmp_path) -> Path:
    return tmp_path / "ws"


@pytest.fixture
def memory(workspace):
    from ihmt import IHMT

    return IHMT.initialize(workspace, branch_factor=4, target_tokens=400, max_tokens=600)


@pytest.fixture
def examples_memory(workspace):
    """The examples corpus with the demo's small settings, flushed."""
    from ihmt import IHMT

    mem = IHMT.initialize(workspace, branch_factor=4, target_tokens=400, max_tokens=600)
    mem.ingest_paths([EXAMPLES])
    mem.flush()
    return mem


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None, stdin: str | None = None):
    """Run `python3 main.py ...` in a real subprocess."""
    import subprocess

    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        cwd=cwd or ROOT,
        env=full_env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def repo(tmp_path):
    """A git work tree whose identity is its remote (the hooks tests' project)."""
    top = tmp_path / "shop-api"
    (top / ".git").mkdir(parents=True)
    (top / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = git@github.com:acme/shop-api.git\n', encoding="utf-8"
    )
    return top


@pytest.fixture(scope="module")
def store_template(tmp_path_factory) -> Path:
    """A small store built once per module, for GUI tests that copy it into their own home."""
    from tests.test_gui_security import _build_store

    workspace = tmp_path_factory.mktemp("template") / "mem"
    _build_store(workspace)
    return workspace
