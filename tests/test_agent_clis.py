"""INSTALL.md, followed literally with the real agent CLIs: Claude Code, Codex and opencode.

The CLIs come from npm (cached per day under $IHMT_AGENT_CLIS_DIR, default /tmp/ihmt-agent-clis,
so reruns are fast; a fresh machine installs them, about a minute). Each test runs the exact
code blocks of INSTALL.md in bash with a temporary HOME laid out like a real installation:
``$HOME/IHMT-MEMORY/mcp_server.py`` is this checkout's script and
``$HOME/IHMT-MEMORY/.venv/bin/python`` runs the interpreter running the tests (it has the mcp
SDK), so ``claude mcp list`` and ``opencode mcp list`` really start and reach the server.
Everything runs offline; a CLI that hangs is skipped with the reason, not failed.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INSTALL_MD = ROOT / "INSTALL.md"
NPM_PACKAGES = ("@anthropic-ai/claude-code", "@openai/codex", "opencode-ai")
CLIS = ("claude", "codex", "opencode")
INSTALL_LIMIT = 900
CLI_LIMIT = 180
QUIET_ENV = {  # keep the CLIs from phoning home or updating themselves
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "NO_COLOR": "1",
    "CI": "1",
}
# The brief's commands, which must stay verbatim in INSTALL.md.
CLAUDE_ADD = (
    'claude mcp add ihmt-memory -s user -e IHMT_HOME="$HOME/.ihmt" -- '
    '"$HOME/IHMT-MEMORY/.venv/bin/python" "$HOME/IHMT-MEMORY/mcp_server.py"'
)
CODEX_ADD = (
    'codex mcp add ihmt-memory --env IHMT_HOME="$HOME/.ihmt" -- '
    '"$HOME/IHMT-MEMORY/.venv/bin/python" "$HOME/IHMT-MEMORY/mcp_server.py"'
)
OPENCODE_ADD = (
    'opencode mcp add ihmt-memory --env IHMT_HOME="$HOME/.ihmt" -- '
    '"$HOME/IHMT-MEMORY/.venv/bin/python" "$HOME/IHMT-MEMORY/mcp_server.py"'
)


def install_blocks() -> dict[str, str]:
    """INSTALL.md's code blocks that follow a ``<!-- block: NAME -->`` marker."""
    text = INSTALL_MD.read_text(encoding="utf-8")
    found = re.findall(r"<!-- block: ([\w-]+) -->\s*```\w*\n(.*?)```", text, flags=re.S)
    return {name: code for name, code in found}


# -- a temporary HOME with a clone-shaped IHMT-MEMORY ------------------------------------------


@pytest.fixture
def agent_home(tmp_path) -> Path:
    home = tmp_path / "home"
    clone = home / "IHMT-MEMORY"
    (clone / ".venv" / "bin").mkdir(parents=True)
    python = clone / ".venv" / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    python.chmod(0o755)
    (clone / "mcp_server.py").symlink_to(ROOT / "mcp_server.py")
    (clone / "main.py").symlink_to(ROOT / "main.py")
    (clone / "templates").symlink_to(ROOT / "templates")
    (home / ".ihmt").mkdir()
    return home


def run_block(
    code: str,
    home: Path,
    bin_dir: Path | None = None,
    timeout: int = CLI_LIMIT,
    what: str = "block",
) -> subprocess.CompletedProcess:
    path = os.environ.get("PATH", "/usr/bin:/bin")
    env = {"HOME": str(home), "PATH": f"{bin_dir}:{path}" if bin_dir else path, **QUIET_ENV}
    for key in ("LANG", "LC_ALL", "TMPDIR", "SSL_CERT_FILE"):
        if key in os.environ:
            env[key] = os.environ[key]
    try:
        return subprocess.run(
            ["bash", "-c", code],
            cwd=home,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        pytest.skip(f"{what} did not finish within {timeout} s (a CLI waiting for the network?)")


# -- the real CLIs -----------------------------------------------------------------------------


def _cache_dir() -> Path:
    base = Path(os.environ.get("IHMT_AGENT_CLIS_DIR") or "/tmp/ihmt-agent-clis")
    return base / datetime.date.today().isoformat()


@pytest.fixture(scope="module")
def clis() -> Path:
    if not shutil.which("npm") or not shutil.which("node"):
        pytest.skip("npm and node are needed to install the agent CLIs, and are not installed")
    cache = _cache_dir()
    bin_dir = cache / "node_modules" / ".bin"
    cache.mkdir(parents=True, exist_ok=True)
    with _locked(cache / ".install.lock"):
        if not all((bin_dir / name).exists() for name in CLIS):
            try:
                run = subprocess.run(
                    [
                        "npm",
                        "install",
                        "--prefix",
                        str(cache),
                        "--no-audit",
                        "--no-fund",
                        "--loglevel=error",
                        *NPM_PACKAGES,
                    ],
                    capture_output=True,
                    text=True,
                    timeout=INSTALL_LIMIT,
                    stdin=subprocess.DEVNULL,
                )
            except subprocess.TimeoutExpired:
                pytest.skip(f"npm install of the agent CLIs took over {INSTALL_LIMIT} s")
            if run.returncode != 0:
                pytest.skip(f"npm could not install the agent CLIs: {run.stderr.strip()[-300:]}")
    missing = [name for name in CLIS if not (bin_dir / name).exists()]
    if missing:
        pytest.skip(f"npm installed no {', '.join(missing)} binary")
    return bin_dir


@contextlib.contextmanager
def _locked(path: Path):
    """One npm install at a time, even across parallel test runs."""
    import fcntl

    with open(path, "w", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# -- INSTALL.md itself -----------------------------------------------------------------------


def test_install_md_holds_the_exact_commands():
    text = INSTALL_MD.read_text(encoding="utf-8")
    blocks = install_blocks()
    assert {
        "claude-register",
        "codex-register",
        "codex-approve",
        "opencode-register",
        "json-register",
        "append-instructions",
    } <= set(blocks)
    assert CLAUDE_ADD in blocks["claude-register"]
    assert CODEX_ADD in blocks["codex-register"]
    assert OPENCODE_ADD in blocks["opencode-register"]
    assert 'default_tools_approval_mode = "approve"' in blocks["codex-approve"]
    for needed in (
        'git -C "$HOME/IHMT-MEMORY" status --porcelain',
        "pull --ff-only",
        "https://github.com/gonzaroman/IHMT-MEMORY",
        "requirements-mcp.txt",
        'mkdir -p "$HOME/.ihmt"',
        "3.9",
        ".venv\\Scripts\\python.exe",
        "not tested yet",
        "start a new session",
        "Ask before installing",
    ):
        assert needed.lower() in text.lower(), needed
    for client in ("Copilot", "Cursor", "Windsurf", "Gemini CLI", "Claude Desktop", "Antigravity"):
        assert client in text, client


def test_instructions_are_appended_only_once(agent_home):
    target = agent_home / ".claude" / "CLAUDE.md"
    target.parent.mkdir()
    target.write_text("# My rules\nAlways answer in Spanish.\n", encoding="utf-8")
    code = install_blocks()["append-instructions"]
    first = run_block(code, agent_home)
    second = run_block(code, agent_home)
    assert first.returncode == 0 and "appended" in first.stdout, first.stderr
    assert second.returncode == 0 and "already" in second.stdout, second.stderr
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# My rules\nAlways answer in Spanish.\n")
    assert text.count("ihmt-memory-instructions") == 1
    assert "search_memory" in text and "never store secrets" in text.lower()


def test_json_snippet_merges_into_other_clients_configs(agent_home):
    code = install_blocks()["json-register"]
    cursor = agent_home / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    cursor.write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}), encoding="utf-8")
    for _ in range(2):  # running it twice changes nothing more
        run = run_block(code, agent_home)
        assert run.returncode == 0, run.stderr
    data = json.loads(cursor.read_text(encoding="utf-8"))
    assert set(data["mcpServers"]) == {"other", "ihmt-memory"}
    entry = data["mcpServers"]["ihmt-memory"]
    assert entry["command"] == str(agent_home / "IHMT-MEMORY" / ".venv" / "bin" / "python")
    assert entry["args"] == [str(agent_home / "IHMT-MEMORY" / "mcp_server.py")]
    assert entry["env"] == {"IHMT_HOME": str(agent_home / ".ihmt")}
    # VS Code's format: "servers", with the transport named
    vscode = code.replace(
        '"$HOME/.cursor/mcp.json" mcpServers', '"$HOME/Code/User/mcp.json" servers'
    )
    assert run_block(vscode, agent_home).returncode == 0
    server = json.loads((agent_home / "Code" / "User" / "mcp.json").read_text("utf-8"))["servers"]
    assert server["ihmt-memory"]["type"] == "stdio"
    # a file with comments is left alone
    cursor.write_text('{\n  // mine\n  "mcpServers": {}\n}\n', encoding="utf-8")
    run = run_block(code, agent_home)
    assert run.returncode != 0 and "by hand" in run.stderr
    assert "// mine" in cursor.read_text(encoding="utf-8")


# -- the real agents -------------------------------------------------------------------------


def test_claude_code_registers_and_connects(clis, agent_home):
    run = run_block(
        install_blocks()["claude-register"], agent_home, clis, what="claude mcp add/list"
    )
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    line = next((ln for ln in out.splitlines() if ln.startswith("ihmt-memory")), "")
    assert "Connected" in line, out
    config = json.loads((agent_home / ".claude.json").read_text(encoding="utf-8"))
    entry = config["mcpServers"]["ihmt-memory"]
    assert entry["command"] == str(agent_home / "IHMT-MEMORY" / ".venv" / "bin" / "python")
    assert entry["args"] == [str(agent_home / "IHMT-MEMORY" / "mcp_server.py")]
    assert entry["env"] == {"IHMT_HOME": str(agent_home / ".ihmt")}


def test_codex_registers_with_approval_mode(clis, agent_home):
    blocks = install_blocks()
    added = run_block(blocks["codex-register"], agent_home, clis, what="codex mcp add")
    assert added.returncode == 0, added.stdout + added.stderr
    for _ in range(2):  # the approval snippet is safe to run twice
        approved = run_block(blocks["codex-approve"], agent_home, clis, what="codex mcp get")
        assert approved.returncode == 0, approved.stdout + approved.stderr
        assert "enabled: true" in approved.stdout
    got = run_block(
        "codex mcp get ihmt-memory --json", agent_home, clis, what="codex mcp get --json"
    )
    assert got.returncode == 0, got.stderr
    transport = json.loads(got.stdout)["transport"]
    assert transport["type"] == "stdio"
    assert transport["command"] == str(agent_home / "IHMT-MEMORY" / ".venv" / "bin" / "python")
    assert transport["args"] == [str(agent_home / "IHMT-MEMORY" / "mcp_server.py")]
    assert transport["env"] == {"IHMT_HOME": str(agent_home / ".ihmt")}
    config_text = (agent_home / ".codex" / "config.toml").read_text(encoding="utf-8")
    assert config_text.count("default_tools_approval_mode") == 1
    tomllib = pytest.importorskip("tomllib")
    table = tomllib.loads(config_text)["mcp_servers"]["ihmt-memory"]
    assert table["default_tools_approval_mode"] == "approve"  # in the server's table, not env
    assert table["env"] == {"IHMT_HOME": str(agent_home / ".ihmt")}


def test_opencode_registers_and_connects(clis, agent_home):
    run = run_block(
        install_blocks()["opencode-register"], agent_home, clis, what="opencode mcp add/list"
    )
    out = re.sub(r"\x1b\[[0-9;]*m", "", run.stdout + run.stderr)
    assert run.returncode == 0, out
    line = next((ln for ln in out.splitlines() if "✓ ihmt-memory" in ln), "")
    assert "connected" in line, out
    folder = agent_home / ".config" / "opencode"
    written = [p for p in (folder / "opencode.json", folder / "opencode.jsonc") if p.exists()]
    assert written, f"no opencode config in {folder}"
    entry = json.loads(written[0].read_text(encoding="utf-8"))["mcp"]["ihmt-memory"]
    assert entry["type"] == "local"
    assert entry["command"] == [
        str(agent_home / "IHMT-MEMORY" / ".venv" / "bin" / "python"),
        str(agent_home / "IHMT-MEMORY" / "mcp_server.py"),
    ]
    assert entry["environment"] == {"IHMT_HOME": str(agent_home / ".ihmt")}


# -- the optional hooks step -----------------------------------------------------------------


def test_claude_code_still_starts_and_lists_the_server_after_hooks_install(clis, agent_home):
    blocks = install_blocks()
    settings_file = agent_home / ".claude" / "settings.json"
    settings_file.parent.mkdir()
    before = b'{\n  "permissions": {"allow": ["Bash(ls:*)"]}\n}\n'
    settings_file.write_bytes(before)
    hooks = run_block(blocks["hooks-install"], agent_home, clis, what="hooks install")
    assert hooks.returncode == 0, hooks.stderr
    assert "claude user" in hooks.stdout and "installed" in hooks.stdout
    data = json.loads(settings_file.read_text(encoding="utf-8"))
    assert data["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert {"SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd"} <= set(data["hooks"])
    run = run_block(blocks["claude-register"], agent_home, clis, what="claude mcp add/list")
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    line = next((ln for ln in out.splitlines() if ln.startswith("ihmt-memory")), "")
    assert "Connected" in line, out
    undo = 'IHMT_HOME="$HOME/.ihmt" "$HOME/IHMT-MEMORY/.venv/bin/python" '
    undo += '"$HOME/IHMT-MEMORY/main.py" hooks uninstall --agent claude'
    assert run_block(undo, agent_home, clis, what="hooks uninstall").returncode == 0
    assert settings_file.read_bytes() == before


def test_codex_still_reads_its_configuration_after_hooks_install(clis, agent_home):
    blocks = install_blocks()
    code = blocks["hooks-install"].replace("--agent claude", "--agent codex")
    hooks = run_block(code, agent_home, clis, what="hooks install --agent codex")
    assert hooks.returncode == 0, hooks.stderr
    data = json.loads((agent_home / ".codex" / "hooks.json").read_text(encoding="utf-8"))
    assert "UserPromptSubmit" in data["hooks"]
    added = run_block(blocks["codex-register"], agent_home, clis, what="codex mcp add")
    assert added.returncode == 0, added.stdout + added.stderr
    got = run_block("codex mcp get ihmt-memory --json", agent_home, clis, what="codex mcp get")
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["transport"]["type"] == "stdio"
    features = run_block("codex features list", agent_home, clis, what="codex features list")
    assert features.returncode == 0 and re.search(r"^hooks\s", features.stdout, re.M)
