"""Projects as a dimension of memory: identity, saving, ranking, filters, forget --session."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ihmt.store.ids import header_problem
from ihmt.store.leaf_format import parse_leaf
from ihmt.vcs.project import normalize_remote, project_arg, project_of, same_project

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


def make_repo(folder, remote: str | None = None):
    folder.mkdir(parents=True)
    git = folder / ".git"
    git.mkdir()
    config = "[core]\n\trepositoryformatversion = 0\n"
    if remote:
        config += (
            f'[remote "origin"]\n\turl = {remote}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'
        )
    (git / "config").write_text(config, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "url",
    [
        "git@github.com:Me/app.git",
        "https://github.com/Me/app",
        "https://user@GitHub.com/Me/app.git/",
        "ssh://git@github.com:22/Me/app.git",
    ],
)
def test_every_spelling_of_a_remote_is_one_project(url):
    assert normalize_remote(url) == "github.com/Me/app"


def test_two_clones_and_a_renamed_clone_are_one_project(tmp_path):
    a = make_repo(tmp_path / "a", "git@github.com:me/app.git")
    b = make_repo(tmp_path / "elsewhere" / "b-renamed", "https://github.com/me/app")
    (a / "src" / "deep").mkdir(parents=True)
    assert project_of(a / "src" / "deep") == project_of(b) == "github.com/me/app"


def test_without_a_remote_the_work_tree_path_names_it(tmp_path):
    top = make_repo(tmp_path / "local")
    (top / "pkg").mkdir()
    assert project_of(top / "pkg") == str(top.resolve())


def test_a_linked_work_tree_reads_the_main_repository_config(tmp_path):
    main = make_repo(tmp_path / "main", "git@example.org:team/tool.git")
    gitdir = main / ".git" / "worktrees" / "wt"
    gitdir.mkdir(parents=True)
    (gitdir / "commondir").write_text("../..\n", encoding="utf-8")
    wt = tmp_path / "wt"
    wt.mkdir()
    (wt / ".git").write_text(f"gitdir: {gitdir}\n", encoding="utf-8")
    assert project_of(wt) == "example.org/team/tool"


def test_home_and_missing_folders_are_no_project(tmp_path, isolated_home):
    assert project_of(isolated_home) == ""
    assert project_of(tmp_path / "missing") == ""
    assert project_of(None) == ""


def test_project_arguments(tmp_path):
    repo = make_repo(tmp_path / "r", "https://gitlab.com/x/y.git")
    assert project_arg(str(repo)) == "gitlab.com/x/y"
    assert project_arg(".", cwd=repo) == "gitlab.com/x/y"
    assert project_arg("git@gitlab.com:x/y.git") == "gitlab.com/x/y"
    assert project_arg("global") == ""
    assert project_arg("  ") is None and project_arg(None) is None
    assert project_arg("y") == "y"
    assert same_project("gitlab.com/x/y", "y") and not same_project("gitlab.com/x/y", "x")


# -- the store -------------------------------------------------------------------------------


def header_of(memory, leaf_id: str) -> dict:
    row = memory.catalog.leaf_row(leaf_id)
    header, _ = parse_leaf((memory.layout.root / row["path"]).read_bytes())
    return header


def test_a_project_memory_carries_its_project_and_a_global_one_is_unchanged(memory):
    mine = memory.save("The billing service deploys with Helm.", project="github.com/me/billing")
    plain = memory.save("The user prefers tabs over spaces.")
    assert header_of(memory, mine.leaf_ids[0])["project"] == "github.com/me/billing"
    head = header_of(memory, plain.leaf_ids[0])
    assert "project" not in head and "session" not in head
    # the same words in another project are a memory of their own
    other = memory.save("The billing service deploys with Helm.", project="github.com/me/other")
    assert other.new and other.leaf_ids != mine.leaf_ids


def test_search_from_a_project_ranks_its_memories_and_global_ones_first(memory):
    memory.save("Deploy: the staging cluster is called orca.", project="github.com/me/api")
    memory.save("Deploy: the staging cluster is called kelp.", project="github.com/me/web")
    memory.save("Deploy: the shared staging cluster is called reef.")
    memory.flush()
    for project, first in (("github.com/me/api", "orca"), ("web", "kelp")):
        result = memory.search("staging cluster called", project=project)
        assert first in result.hits[0].content
        contents = [h.content for h in result.hits]
        foreign = [
            i for i, c in enumerate(contents) if ("kelp" if first == "orca" else "orca") in c
        ]
        own_or_global = [i for i, c in enumerate(contents) if first in c or "reef" in c]
        assert max(own_or_global) < min(foreign)
    only = memory.search("staging cluster called", project="github.com/me/api", project_only=True)
    assert all("kelp" not in h.content for h in only.hits)
    # without a project nothing is demoted: both projects' memories are found
    everything = memory.search("staging cluster called", top_k=5)
    assert {"orca", "kelp"} <= {
        w for h in everything.hits for w in ("orca", "kelp") if w in h.content
    }


def test_another_projects_memory_still_answers_when_nothing_closer_does(memory):
    memory.save("The mobile app uses Flutter 3.22.", project="github.com/me/mobile")
    result = memory.search("Flutter version mobile app", project="github.com/me/api")
    assert result.best is not None and "Flutter" in result.best.content


def test_a_store_written_before_projects_reads_as_global(memory):
    report = memory.save("Redis was dropped in favour of Postgres queues.")
    row = memory.catalog.leaf_row(report.leaf_ids[0])
    path = memory.layout.root / row["path"]
    header, _ = parse_leaf(path.read_bytes())
    assert "project" not in header  # what an old leaf looks like
    memory.rebuild()
    result = memory.search("Redis dropped", project="github.com/me/api")
    assert result.best is not None and result.best.leaf_id == report.leaf_ids[0]


@pytest.mark.parametrize("bad", [{"project": 7}, {"session": ["x"]}, {"project": "p" * 1001}])
def test_a_header_with_a_bad_project_or_session_is_refused(bad):
    header = {"leaf_id": "L-general-0000-abcdef", **bad}
    assert header_problem(header)


def test_forget_session_removes_what_one_session_captured(memory):
    a = memory.save("We chose SQLite for the job queue.", session="s-1")
    memory.save("We chose uv to manage Python versions.", session="s-2")
    keep = memory.save("The user's name is Ana.")
    assert memory.forget(session="s-1") == a.leaf_ids
    left = {leaf.leaf_id for leaf in memory.leaves()}
    assert a.leaf_ids[0] not in left and keep.leaf_ids[0] in left and len(left) == 2
    with pytest.raises(Exception, match="no memory was captured by session"):
        memory.forget_targets(session="s-1")


def run_cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_cli_project_flags_and_forget_session(tmp_path):
    ws = str(tmp_path / "ws")
    repo = make_repo(tmp_path / "api", "git@github.com:me/api.git")
    assert run_cli("--path", ws, "init").returncode == 0
    done = run_cli("--path", ws, "save", "Our API pins Django 5.1.", "--project", ".", cwd=repo)
    assert done.returncode == 0, done.stderr
    run_cli("--path", ws, "save", "Our web app pins Django 4.2.", "--project", "me-web")
    out = run_cli("--path", ws, "--json", "search", "Django pins", "--project", "api")
    data = json.loads(out.stdout)
    assert "5.1" in data["hits"][0]["content"]
    out = run_cli("--path", ws, "--json", "search", "Django pins", "--project", "me-web")
    assert "4.2" in json.loads(out.stdout)["hits"][0]["content"]
    gone = run_cli("--path", ws, "forget", "--session", "nope", "--yes")
    assert gone.returncode == 1 and "no memory was captured by session" in gone.stderr


def test_mcp_tools_default_to_the_servers_project(tmp_path):
    from ihmt.mcp_session import Session
    from ihmt.mcp_tools import build_server

    repo = make_repo(tmp_path / "svc", "https://github.com/me/svc.git")
    session = Session(home=tmp_path / "h", cwd=repo)
    box = build_server(session)
    box.call("save_memory", {"content": "The svc queue is RabbitMQ."})
    box.call("save_memory", {"content": "The user drinks green tea.", "project": "global"})
    box.call(
        "save_memory", {"content": "The other queue is Kafka.", "project": "github.com/me/etl"}
    )
    memory = session.memory()
    projects = {leaf.content: leaf.project for leaf in memory.leaves()}
    assert projects["The svc queue is RabbitMQ."] == "github.com/me/svc"
    assert projects["The user drinks green tea."] == ""
    answer = box.call("search_memory", {"query": "queue"})
    assert answer.index("RabbitMQ") < answer.index("Kafka")
    answer = box.call("search_memory", {"query": "queue", "project": "etl"})
    assert answer.index("Kafka") < answer.index("RabbitMQ")
