"""Set up's optional hooks step over the GUI's HTTP API: status, preview, confirm.

A real GUI server on 127.0.0.1 (as in test_gui_security.py); the agents' user settings live in
the test's own HOME (conftest), a project's in a folder inside the browse root. What the page
is shown must be exactly what confirming writes, and install then uninstall must give the
settings file back byte for byte with the user's own hooks untouched.
"""

from __future__ import annotations

import json
import shutil

import pytest

from ihmt.loop import settings
from tests.test_gui_security import _start, _stop

USER_OWN = (
    '{\n  "model": "opus",\n  "hooks": {\n'
    '    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint.sh"}]}],\n'
    '    "SessionStart": [{"hooks": [{"type": "command", "command": "echo hello"}]}]\n'
    "  }\n}\n"
)


@pytest.fixture
def gui(tmp_path, store_template):
    home = tmp_path / "allowed"
    project = home / "projects" / "shop"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = git@github.com:acme/shop.git\n', encoding="utf-8"
    )
    shutil.copytree(store_template, home / "mem")
    running = _start(home / "mem", home)
    running.project = project
    yield running
    _stop(running)


def preview(gui, **body):
    return gui.post_json("/api/setup/preview", {"kind": "hooks", **body})


def confirm(gui, preview_id):
    return gui.post_json("/api/setup/confirm", {"id": preview_id})


def test_status_lists_user_settings_and_a_chosen_projects(gui):
    status, data = gui.get_json("/api/setup/hooks")
    assert status == 200
    assert [(r["agent"], r["scope"], r["action"]) for r in data["rows"]] == [
        ("claude", "user", "not installed"),
        ("codex", "user", "not installed"),
    ]
    folder = str(gui.project)
    status, data = gui.get_json(f"/api/setup/hooks?folder={folder}")
    rows = {(r["agent"], r["scope"]): r for r in data["rows"]}
    assert rows[("claude", "project")]["path"] == str(gui.project / ".claude" / "settings.json")
    assert rows[("codex", "project")]["path"] == str(gui.project / ".codex" / "hooks.json")


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_install_then_uninstall_through_the_gui_is_byte_identical(gui, agent):
    path = settings.settings_path(agent, "user")
    path.parent.mkdir(parents=True)
    path.write_text(USER_OWN, encoding="utf-8")
    status, plan = preview(gui, agent=agent, scope="user", action="install")
    assert status == 200 and plan["id"] and plan["path"] == str(path)
    assert path.read_text(encoding="utf-8") == USER_OWN  # a preview writes nothing
    assert not path.with_name(path.name + ".ihmt-backup").exists()
    assert any(".ihmt-backup" in line for line in plan["steps"])
    status, done = confirm(gui, plan["id"])
    assert status == 200 and done["action"] == "installed"
    written = json.loads(path.read_text(encoding="utf-8"))
    own = json.loads(USER_OWN)["hooks"]
    assert written["model"] == "opus" and written["hooks"]["PreToolUse"] == own["PreToolUse"]
    assert written["hooks"]["SessionStart"][0] == own["SessionStart"][0]  # theirs, first, as is
    # the preview's diff is exactly the change that was made
    added = [line[1:] for line in plan["diff"].splitlines() if line.startswith("+")][1:]
    assert "".join(a + "\n" for a in added) in path.read_text(encoding="utf-8")
    rows = {(r["agent"], r["scope"]): r for r in gui.get_json("/api/setup/hooks")[1]["rows"]}
    assert rows[(agent, "user")]["action"] == "installed"
    assert set(rows[(agent, "user")]["events"]) == set(settings.EVENTS[agent])

    status, plan = preview(gui, agent=agent, scope="user", action="uninstall")
    assert status == 200 and plan["result"] == "restored"
    status, done = confirm(gui, plan["id"])
    assert status == 200 and done["action"] == "restored"
    assert path.read_bytes() == USER_OWN.encode("utf-8")
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no backup left


def test_a_second_install_preview_has_nothing_to_confirm(gui):
    status, plan = preview(gui, agent="claude", scope="user", action="install")
    assert confirm(gui, plan["id"])[0] == 200
    status, again = preview(gui, agent="claude", scope="user", action="install")
    assert status == 200 and again["id"] is None and again["result"] == "already installed"
    assert again["diff"] == "" and again["steps"] == []


def test_project_scope_writes_in_the_chosen_project_and_uninstall_removes_it(gui):
    folder = str(gui.project)
    status, plan = preview(gui, agent="codex", scope="project", action="install", folder=folder)
    assert status == 200 and plan["path"] == str(gui.project / ".codex" / "hooks.json")
    assert not (gui.project / ".codex").exists()
    assert confirm(gui, plan["id"])[0] == 200
    assert json.loads((gui.project / ".codex" / "hooks.json").read_text(encoding="utf-8"))
    status, plan = preview(gui, agent="codex", scope="project", action="uninstall", folder=folder)
    assert confirm(gui, plan["id"])[0] == 200
    assert not (gui.project / ".codex").exists()  # created by the install, gone again


def test_confirm_is_refused_when_the_file_changed_since_the_preview(gui):
    path = settings.settings_path("claude", "user")
    path.parent.mkdir(parents=True)
    path.write_text(USER_OWN, encoding="utf-8")
    status, plan = preview(gui, agent="claude", scope="user", action="install")
    edited = USER_OWN.replace("opus", "sonnet")
    path.write_text(edited, encoding="utf-8")
    status, error = confirm(gui, plan["id"])
    assert status == 400 and error["code"] == "hooks_changed"
    assert path.read_text(encoding="utf-8") == edited
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
    assert confirm(gui, plan["id"])[1]["code"] == "preview_expired"  # used up


def test_a_project_above_the_browse_root_is_refused(gui, tmp_path):
    inner = gui.project / "src"
    inner.mkdir()
    outside_top = gui.home.parent / "outer"
    (outside_top / ".git").mkdir(parents=True)
    (outside_top / "inside").mkdir()
    status, _ = preview(gui, agent="claude", scope="project", action="install", folder=str(inner))
    assert status == 200  # the project's top (with .git) is inside the fence
    status, error = preview(
        gui, agent="claude", scope="project", action="install", folder=str(outside_top / "inside")
    )
    assert status == 403 and error["code"] == "outside_root"
    assert not (outside_top / ".claude").exists()


@pytest.mark.parametrize(
    "body, code",
    [
        ({"agent": "vim", "scope": "user", "action": "install"}, "bad_agent"),
        ({"agent": "claude", "scope": "system", "action": "install"}, "bad_scope"),
        ({"agent": "claude", "scope": "user", "action": "delete"}, "bad_action"),
        ({"agent": "claude", "scope": "project", "action": "install"}, "no_project_folder"),
    ],
)
def test_bad_requests_get_a_coded_error_and_write_nothing(gui, body, code):
    status, error = preview(gui, **body)
    assert status == 400 and error["code"] == code
    assert not settings.settings_path("claude", "user").parent.exists()


def test_a_broken_settings_file_is_reported_not_touched(gui):
    path = settings.settings_path("claude", "user")
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": [', encoding="utf-8")
    status, error = preview(gui, agent="claude", scope="user", action="install")
    assert status == 400 and error["code"] == "hooks_refused" and "not valid JSON" in error["error"]
    rows = gui.get_json("/api/setup/hooks")[1]["rows"]
    assert rows[0]["action"].startswith("unreadable")
    assert path.read_text(encoding="utf-8") == '{"hooks": ['
