"""The architecture of issue 22, held by tests so that breaking it fails ./test.sh.

- The import-linter contracts in pyproject.toml (layers, no import cycles between siblings,
  presenters and services kept off the store, tree, catalog and search internals) run here.
- The public names of the package are pinned.
- No SQL outside the catalog module (and the semantic sidecar's own module).
- No module reads another module's private names: no ``from x import _name`` across packages,
  no ``obj._name`` where ``obj`` is not ``self`` or ``cls`` (a short allow-list says why each
  exception is fine).
"""

from __future__ import annotations

import ast
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ihmt

ROOT = Path(__file__).resolve().parent.parent

# -- import-linter contracts ----------------------------------------------------------------------


def _lint_imports() -> str | None:
    """The lint-imports script of the interpreter running the tests, else one on PATH."""
    beside = Path(sys.executable).parent / "lint-imports"
    if beside.exists():
        return str(beside)
    return shutil.which("lint-imports")


def test_import_contracts_hold() -> None:
    script = _lint_imports()
    if importlib.util.find_spec("importlinter") is None or script is None:
        pytest.skip(
            "import-linter is not installed (it is in the dev extra: pip install -e .[dev])"
        )
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    out = subprocess.run(
        [script, "--no-cache", "--no-logo", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Contracts:" in out.stdout, out.stdout + out.stderr  # the linter ran the contracts
    if out.returncode != 0:
        pytest.fail("import-linter contracts broken:\n" + out.stdout + out.stderr, pytrace=False)


# -- the public names -----------------------------------------------------------------------------

PUBLIC = [
    "CheckReport",
    "Hit",
    "IHMT",
    "IHMTConfig",
    "IHMTError",
    "IngestReport",
    "InputError",
    "MemoryLeaf",
    "SaveReport",
    "SearchResult",
    "SecretDetectedError",
    "StoreCorruptError",
    "StoreLockedError",
    "StoreNotFoundError",
    "StoreWriteError",
    "__version__",
]


def test_public_names_are_pinned() -> None:
    assert sorted(ihmt.__all__) == PUBLIC
    assert len(set(ihmt.__all__)) == len(ihmt.__all__)
    for name in ihmt.__all__:
        assert hasattr(ihmt, name), name


# -- no reaching into another module's private names -------------------------------------------

# (object, attribute) pairs allowed although the attribute starts with an underscore.
ALLOWED_PRIVATE = {
    (
        "os",
        "_exit",
    ): "ends the process at once, skipping atexit and buffered output (hook watchdog)",
    (
        "_compiler",
        "_code",
    ): "re's assembler, whose program ihmt.re_cache keeps (checked by _sre before each use)",
}


def _modules(root: Path) -> list[tuple[Path, str]]:
    out = []
    for path in sorted((root / "ihmt").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.append((path, ".".join(parts)))
    return out


def _unit(module: str) -> str:
    """The top-level module or package of ihmt a module belongs to ("ihmt.store")."""
    return ".".join(module.split(".")[:2])


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _imported_from(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def private_imports_across_packages(root: Path = ROOT) -> list[str]:
    found = []
    for path, module in _modules(root):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = _imported_from(node, module, path.name == "__init__.py")
            if not source.startswith("ihmt") or _unit(source) == _unit(module):
                continue
            for alias in node.names:
                if _private(alias.name) or any(_private(p) for p in source.split(".")):
                    where = f"{path.relative_to(root)}:{node.lineno}"
                    found.append(f"{where} from {source} import {alias.name}")
    return found


def _is_own(value: ast.expr) -> bool:
    """``self``, ``cls`` or ``super()``: the object's own members."""
    if isinstance(value, ast.Name):
        return value.id in ("self", "cls")
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id == "super"
    )


def private_attribute_access(root: Path = ROOT) -> list[str]:
    found = []
    for path, _module in _modules(root):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or not _private(node.attr):
                continue
            if _is_own(node.value):
                continue
            owner = ast.unparse(node.value)
            if (owner, node.attr) in ALLOWED_PRIVATE:
                continue
            found.append(f"{path.relative_to(root)}:{node.lineno} {owner}.{node.attr}")
    return found


def test_no_private_name_is_imported_across_packages() -> None:
    found = private_imports_across_packages()
    assert not found, "private names imported from another package:\n" + "\n".join(found)


def test_no_private_attribute_of_another_object_is_read_or_written() -> None:
    found = private_attribute_access()
    assert not found, "private members of another object used:\n" + "\n".join(found)


def test_the_private_name_checks_see_what_they_look_for(tmp_path) -> None:
    """The scans would catch each shape they exist for (and leave self, cls and dunders)."""
    pkg = tmp_path / "ihmt"
    (pkg / "store").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "store" / "__init__.py").write_text("from ._x import _fine\n")
    (pkg / "cli.py").write_text(
        "from .store.catalog import _rows\n"
        "from ihmt.store import _helper as h\n"
        "from .store._inner import thing\n"
        "import os\n"
        "def f(memory):\n"
        "    memory.tree._entries = None\n"
        "    os._exit(0)\n"
        "    return memory.__class__, memory._secret\n"
        "class C:\n"
        "    def g(self):\n"
        "        return self._a, cls._b, super()._c\n"
    )
    assert private_imports_across_packages(tmp_path) == [
        "ihmt/cli.py:1 from ihmt.store.catalog import _rows",
        "ihmt/cli.py:2 from ihmt.store import _helper",
        "ihmt/cli.py:3 from ihmt.store._inner import thing",
    ]
    assert private_attribute_access(tmp_path) == [
        "ihmt/cli.py:6 memory.tree._entries",
        "ihmt/cli.py:8 memory._secret",
    ]


# -- SQL -------------------------------------------------------------------------------------------

# the catalog owns every statement on the catalog database; the semantic vectors live in a
# sidecar database of their own, which only its module opens
SQL_OWNERS = {"ihmt/store/catalog.py", "ihmt/semantic/vectors.py"}
_SQL_CALLS = {"execute", "executemany", "executescript"}


def sql_outside_owners(root: Path = ROOT) -> list[str]:
    found = []
    for path in sorted((root / "ihmt").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel in SQL_OWNERS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _SQL_CALLS
            ):
                found.append(f"{rel}:{node.lineno} .{node.func.attr}(...)")
    return found


def test_no_sql_outside_the_catalog() -> None:
    found = sql_outside_owners()
    assert not found, "SQL outside the catalog module:\n" + "\n".join(found)


def test_the_sql_check_sees_a_statement(tmp_path) -> None:
    module = tmp_path / "ihmt" / "search" / "sneaky.py"
    module.parent.mkdir(parents=True)
    module.write_text('def f(conn):\n    conn.execute("SELECT id FROM leaves")\n', "utf-8")
    assert sql_outside_owners(tmp_path) == ["ihmt/search/sneaky.py:2 .execute(...)"]
