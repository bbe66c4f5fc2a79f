"""The command line's shape: imports run one way, the memory is read only through the facade,
every documented command parses, and ``ihmt gui`` and ``gui.py`` share one option definition."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ihmt import cli
from ihmt.gui import server as gui_server
from tests.conftest import run_cli

CLI_DIR = Path(cli.__file__).resolve().parent
SHARED = {"output", "context", "views"}
COMMANDS = [
    "init",
    "ingest",
    "consolidate",
    "search",
    "ask",
    "save",
    "mark-outdated",
    "tree",
    "stats",
    "facts",
    "conflicts",
    "rebuild",
    "check",
    "quarantine",
    "forget",
    "sync",
    "map",
    "find-code",
    "gui",
    "semantic",
    "hooks",
    "demo",
]
# the facade's own collaborators, which a presenter must not reach through
INTERNALS = {"tree", "catalog", "store", "resolver", "layout"}


def _modules() -> dict[str, ast.Module]:
    return {p.stem: ast.parse(p.read_text(encoding="utf-8")) for p in CLI_DIR.glob("*.py")}


def _package_imports(tree: ast.Module) -> set[str]:
    """Names of sibling modules (ihmt.cli.X) a module imports, at any depth of its code."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(alias.name for alias in node.names)
    return out


def _library_imports(tree: ast.Module) -> set[str]:
    """Dotted names below ihmt a module imports (``from ..store.layout`` -> store.layout)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 2:
            out.add(node.module or "")
            out.update(f"{node.module}.{a.name}" if node.module else a.name for a in node.names)
    return out


def test_cli_imports_run_one_way():
    modules = _modules()
    commands = set(modules) - SHARED - {"app", "__init__"}
    assert commands, "no command modules found"
    for name in SHARED:
        assert _package_imports(modules[name]) <= SHARED, name
    for name in commands:
        assert _package_imports(modules[name]) <= SHARED, name
    assert _package_imports(modules["__init__"]) == {"app"}
    assert _package_imports(modules["app"]) == commands | {"context", "output"}


def test_the_old_circular_modules_are_gone():
    root = CLI_DIR.parent
    assert not (root / "commands.py").exists()
    assert not (root / "demo.py").exists()
    assert not (root / "cli.py").exists()


def test_cli_reads_the_memory_only_through_the_facade():
    for name, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                owner = node.value.id if isinstance(node.value, ast.Name) else ""
                assert node.attr not in INTERNALS or owner in ("self", "cls"), (
                    f"ihmt/cli/{name}.py line {node.lineno} reaches .{node.attr}"
                )
                assert not node.attr.startswith("_") or node.attr.startswith("__"), (
                    f"ihmt/cli/{name}.py line {node.lineno} uses a private name {node.attr}"
                )
            if isinstance(node, ast.alias):
                last = node.name.split(".")[-1]
                assert not last.startswith("_") or last.startswith("__"), (name, node.name)
        low = {m for m in _library_imports(tree) if m.split(".")[0] in ("store", "tree", "search")}
        # the one shared $IHMT_HOME resolver is the only piece of the store the CLI names
        assert low <= {"store.layout", "store.layout.default_workspace"}, (name, low)


def test_help_lists_every_command_in_the_documented_order(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    listed = [
        line.split()[0]
        for line in out.split("positional arguments:")[1].split("options:")[0].splitlines()
        if line.startswith("    ") and not line.startswith("     ")
    ]
    assert listed == COMMANDS


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_its_own_help_and_a_handler(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main([command, "--help"])
    assert exit_info.value.code == 0
    assert f"usage: ihmt {command}" in capsys.readouterr().out
    parser = cli.build_parser()
    required = {
        "ingest": ["x"],
        "search": ["q"],
        "ask": ["q"],
        "save": ["t"],
        "mark-outdated": ["a", "b"],
        "quarantine": ["list"],
        "map": ["."],
        "find-code": ["q", "--project", "."],
        "semantic": ["status"],
        "hooks": ["status"],
    }
    args = parser.parse_args([command, *required.get(command, [])])
    assert callable(args.handler)
    assert args.handler.__module__.startswith("ihmt.cli.")


def _usage_error(main, argv, capsys) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err
    return err.strip().splitlines()[-1].split(" error: ", 1)[1]


@pytest.mark.parametrize("port", ["70000", "-1", "65536", "abc", "99999999999999999999"])
def test_a_bad_gui_port_is_the_same_usage_error_from_both_entry_points(port, capsys):
    from_cli = _usage_error(cli.main, ["gui", "--port", port, "--no-browser"], capsys)
    from_gui_py = _usage_error(gui_server.main, ["--port", port, "--no-browser"], capsys)
    assert from_cli == from_gui_py
    assert from_cli.startswith("argument --port: ")


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--port", "0"],
        ["--port", "65535", "--no-browser"],
        ["--path", "somewhere", "--browse-root", "/tmp", "--port", "8000"],
    ],
)
def test_both_gui_entry_points_read_the_same_options(argv):
    from_cli = vars(cli.build_parser().parse_args(["gui", *argv]))
    from_gui_py = vars(gui_server.build_parser().parse_args(argv))
    for key in ("path", "port", "no_browser", "browse_root"):
        assert from_cli[key] == from_gui_py[key], key


def test_ihmt_gui_with_a_port_out_of_range_is_a_usage_error_in_a_real_process():
    proc = run_cli("gui", "--port", "70000", "--no-browser")
    assert proc.returncode == 2, proc.stderr
    assert "argument --port: must be between 0 and 65535" in proc.stderr
    assert "Traceback" not in proc.stderr and "OverflowError" not in proc.stderr


def test_tree_depth_follows_the_stored_hierarchy(examples_memory, workspace, capsys):
    """Depth 1 lists the top entries only; depth 2 also lists each top branch's children,
    right under it (the outline comes from the facade, not from the tree's files)."""
    trunk = examples_memory.trunk()
    top_branches = [r["id"] for r in trunk["entries"] if r["kind"] == "branch"]
    assert top_branches

    def tree(depth: int) -> list[str]:
        assert cli.main(["--path", str(workspace), "tree", "--depth", str(depth)]) == 0
        return capsys.readouterr().out.splitlines()

    shallow, deep = tree(1), tree(2)
    assert shallow[0].startswith(f"root · {trunk['counters']['leaves']} leaves")
    for branch_id in top_branches:
        children = [c["id"] for c in examples_memory.node(branch_id)["children"]]
        assert not any(c in line for c in children for line in shallow)
        at = next(i for i, line in enumerate(deep) if f"▸ {branch_id} " in line)
        below = deep[at + 1 : at + 1 + len(children)]
        assert [line.split()[1] for line in below] == children
        assert all(line.startswith("    ") for line in below)


def test_demo_walks_through_the_examples(tmp_path):
    proc = run_cli("demo", "--workspace", str(tmp_path / "demo"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "root · 50 leaves · 8 top entries" in out
    assert "  path: root → N2-software.java-" in out
    assert 'query: "Luis + vacaciones en Benidorm"' in out
    assert "where do I live now?      Valencia" in out
    assert "where did I live in 2024? Madrid" in out
    assert "store is healthy" in out


def test_the_readme_demo_excerpt_is_what_the_demo_prints(tmp_path):
    """README shows an abridged real run of `main.py demo`: every line it shows must be a line
    the demo prints today (dates and ids normalised, confidences exact), in the same order."""
    import re

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    start = readme.index("What the demo prints")
    block = readme[readme.index("```text\n", start) + 8 :]
    shown = [line for line in block[: block.index("\n```")].splitlines() if line.strip()]

    def normal(line: str) -> str:
        line = re.sub(r"\d{4}-\d{2}-\d{2}", "<date>", line)
        line = re.sub(r"\b([LN]\d?-[\w.]+-(?:\d{4}-)?[0-9a-f]{10})\b", "<id>", line)
        return re.sub(r"=+$", "", line).rstrip()  # section rules are cut in the excerpt

    proc = run_cli("demo", "--workspace", str(tmp_path / "demo"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    printed = [normal(line) for line in proc.stdout.splitlines()]
    at = 0
    for line in shown:
        want = normal(line)
        cut = next((mark for mark in (", ...", "…") if want.endswith(mark)), "")
        if cut:  # abridged: the rest of the line is cut
            head = want[: -len(cut)]
            matches = [i for i in range(at, len(printed)) if printed[i].startswith(head)]
        else:
            matches = [i for i in range(at, len(printed)) if printed[i] == want]
        assert matches, f"README's demo excerpt shows a line the demo no longer prints: {line!r}"
        at = matches[0] + 1
