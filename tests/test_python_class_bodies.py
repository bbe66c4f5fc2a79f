"""Python symbols: class-level code belongs to its class, defs inside module-level if / try /
with blocks are symbols, and a symbol's lines begin at its decorator, its def / class line or
the comments directly above it (never at blank lines or a detached banner)."""

from __future__ import annotations

import textwrap
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ihmt.ingest.chunkers import code as code_module
from ihmt.ingest.chunkers import python_splitter
from ihmt.ingest.chunkers.code import split_code
from ihmt.projects.index import project_map
from ihmt.text.tokens import estimate_tokens


def split(text: str, **kwargs):
    """split_code in symbol mode; an internal error fails instead of degrading to windows."""
    kwargs.setdefault("mode", "symbol")
    fail = mock.Mock(side_effect=AssertionError("code splitter raised internally"))
    with mock.patch.object(code_module, "_line_windows", fail):
        chunks = split_code(text, language="python", **kwargs)
    assert "".join(c.text for c in chunks) == text
    return chunks


def by_title(chunks) -> dict:
    out: dict = {}
    for c in chunks:
        if c.title:
            out.setdefault(c.title, []).append(c)
    return out


def first_code_line(chunk) -> str:
    return next(line.strip() for line in chunk.text.splitlines() if line.strip())


@pytest.fixture(params=["ast", "lexer"])
def path(request, monkeypatch):
    """Run a test on both structure paths: ``ast`` and the indentation lexer fallback."""
    if request.param == "lexer":
        monkeypatch.setattr(python_splitter, "AST_SIZE_LIMIT", 0)
    return request.param


# --------------------------------------------------------------------------- class bodies

WAREHOUSE = textwrap.dedent(
    '''\
    import enum


    class Shelf:
        """A shelf with fixed slots."""

        __slots__ = (
            "label",
            "capacity",
            "items",
        )
        kinds = ("box", "crate")
        default_capacity = 12

        def __init__(self, label):
            self.label = label

        def __eq__(self, other):
            return self.label == other.label

        __hash__ = None
        ordering = property(lambda self: self.label)

        def describe(self):
            return self.label

        registry = {}


    class Size(enum.Enum):
        SMALL = 1
        LARGE = 2
    '''
)


def test_statements_before_the_first_method_are_in_the_class_header(path):
    chunks = split(WAREHOUSE)
    titles = by_title(chunks)
    (header,) = titles["Shelf"]
    for piece in ('"capacity",', 'kinds = ("box", "crate")', "default_capacity = 12"):
        assert piece in header.text
    assert "def __init__" not in header.text
    assert "class:Shelf" in header.tags
    init = titles["Shelf.__init__"][0]
    assert first_code_line(init) == "def __init__(self, label):"


def test_statements_between_and_after_methods_are_named_class_members(path):
    chunks = split(WAREHOUSE)
    titles = by_title(chunks)
    between = titles["Shelf.__hash__"][0]
    assert "ordering = property" in between.text and "def " not in between.text
    assert "class:Shelf" in between.tags and "method:__hash__" in between.tags
    assert between.extra["context"] == "class Shelf:"
    after = titles["Shelf.registry"][0]
    assert first_code_line(after) == "registry = {}" and "class:Shelf" in after.tags


def test_a_class_without_methods_is_one_symbol(path):
    chunks = split(WAREHOUSE)
    (size,) = by_title(chunks)["Size"]
    assert "SMALL = 1" in size.text and "LARGE = 2" in size.text
    assert not any(c.title and c.title.startswith("Size.") for c in chunks)


def test_a_huge_class_body_is_cut_at_the_budget_into_named_class_blocks(path):
    fields = "".join(f"    field_{i:03d} = {i} * 1000 + {i}\n" for i in range(200))
    text = f'class Table:\n    """Many constants."""\n\n{fields}\n    def total(self):\n' + (
        "        return 0\n"
    )
    chunks = split(text, target_tokens=100, max_tokens=150)
    titles = by_title(chunks)
    header = titles["Table"][0]
    assert "field_000" in header.text and estimate_tokens(header.text) <= 100
    parts = [c for c in chunks if c.title and c.title.startswith("Table.field_")]
    assert len(parts) > 3
    for part in parts:  # each continuation says which class it belongs to
        assert "class:Table" in part.tags and part.extra["context"] == "class Table:"
        assert estimate_tokens(part.text) <= 150
        assert part.title == "Table." + first_code_line(part).split()[0]
    assert titles["Table.total"][0].text.lstrip().startswith("def total")
    covered = "".join(c.text for c in [header, *parts])
    assert all(f"field_{i:03d} =" in covered for i in range(200))


def test_comments_before_the_first_method_stay_with_the_header(path):
    text = textwrap.dedent(
        """\
        class Config:
            name: str = "x"
            # a note about name, then a gap

            # about load
            def load(self):
                return 1
        """
    )
    titles = by_title(split(text))
    assert "# a note about name" in titles["Config"][0].text
    load = titles["Config.load"][0]
    assert load.text.startswith("    # about load\n    def load")


# --------------------------------------------------------------------------- if / try / with

PORTABLE = textwrap.dedent(
    """\
    import sys

    if sys.version_info >= (3, 99):
        from future_lib import read_all
    elif sys.platform == "win32":

        def read_all(path):
            return open(path, "rb").read()

    else:
        # portable fallback
        def read_all(path):
            with open(path, "rb") as fh:
                return fh.read()

    try:
        from fastjson import dumps
    except ImportError:  # pure-Python fallback

        def dumps(value):
            return repr(value)

    if True:

        @staticmethod
        def helper():
            return 1

        class Local:
            limit = 3

            def run(self):
                return self.limit

            if sys.platform == "win32":

                def close(self):
                    return None

        VALUE = helper()
    """
)


def test_defs_inside_module_level_if_and_try_are_symbols(path):
    chunks = split(PORTABLE)
    titles = by_title(chunks)
    assert len(titles["read_all"]) == 2  # one symbol per branch
    first, second = titles["read_all"]
    assert first_code_line(first) == "def read_all(path):"
    assert second.text.lstrip().startswith("# portable fallback\n    def read_all(path):")
    assert "else:" not in second.text and "else:" not in first.text
    assert first_code_line(titles["dumps"][0]) == "def dumps(value):"
    assert "function:dumps" in titles["dumps"][0].tags
    assert titles["helper"][0].text.lstrip().startswith("@staticmethod")
    assert "limit = 3" in titles["Local"][0].text
    assert "class:Local" in titles["Local.run"][0].tags
    assert "method:close" in titles["Local.close"][0].tags
    assert not any("VALUE = helper()" in c.text for c in chunks if c.title)


def test_a_block_without_defs_is_left_whole(path):
    text = "import sys\n\nif sys.flags.debug:\n    LEVEL = 1\nelse:\n    LEVEL = 0\n"
    chunks = split(text, mode="pack")
    assert len(chunks) == 1
    symbol = split(text)
    assert any("if sys.flags.debug:" in c.text and "LEVEL = 0" in c.text for c in symbol)


# --------------------------------------------------------------------------- start lines

BANNERS = textwrap.dedent(
    """\
    # Licence line.

    import os

    # -------------------
    # Section banner
    # -------------------


    def first():
        return os.sep


    # A note about first, left behind.

    # Directly above second.
    @decorated
    def second():
        return 2
    """
)


def test_symbols_begin_at_decorator_def_or_comment_directly_above(path):
    chunks = split(BANNERS)
    titles = by_title(chunks)
    assert titles["first"][0].text.startswith("def first():")
    assert titles["second"][0].text.startswith("# Directly above second.\n@decorated\n")
    banner = next(c for c in chunks if "Section banner" in c.text)
    assert banner.title is None and "def first" not in banner.text
    note = next(c for c in chunks if "left behind" in c.text)
    assert note.title is None and "def " not in note.text
    for c in chunks:
        if c.title and c.title != "imports":
            assert c.text.splitlines()[0].strip(), f"{c.title} begins at a blank line"


def test_project_map_lists_class_blocks_and_branch_defs(tmp_path):
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "store.py").write_text(WAREHOUSE + "\n" + PORTABLE, encoding="utf-8")
    files = project_map(root, "symbols", projects_dir=tmp_path / "p").files
    symbols = {(s["name"], s["kind"]): s for s in files[0].symbols}
    lines = (WAREHOUSE + "\n" + PORTABLE).splitlines()
    shelf = symbols[("Shelf", "class")]
    assert lines[shelf["start_line"] - 1] == "class Shelf:"
    assert lines[shelf["end_line"] - 1] == "    default_capacity = 12"
    assert ("Shelf.__hash__", "method") in symbols
    assert ("read_all", "function") in symbols and ("dumps", "function") in symbols
    for sym in files[0].symbols:
        first = lines[sym["start_line"] - 1].strip()
        assert first.startswith(("def ", "class ", "@", "#")) or "=" in first, sym


# --------------------------------------------------------------------------- properties

NAMES = iter(range(10**9))


@st.composite
def module_source(draw):
    """Modules with class attributes around methods, defs in if / try branches, banners."""
    lines: list[str] = []
    defs: list[str] = []

    def function(pad: str, prefix: str) -> None:
        name = f"{prefix}{next(NAMES)}"
        defs.append(name)
        if draw(st.booleans()):
            lines.append(pad + "# about " + name)
        if draw(st.booleans()):
            lines.append(pad + "@wrap")
        lines.append(pad + f"def {name}(self, a=')'):")
        lines.append(pad + '    text = """')
        lines.append("# not a comment")
        lines.append('#"""')
        lines.append(pad + "    return a")

    def noise(pad: str) -> None:
        kind = draw(st.sampled_from(["blank", "banner", "assign", "long"]))
        if kind == "blank":
            lines.append("")
        elif kind == "banner":
            lines.extend(["", pad + "# ---- banner ----", ""])
        elif kind == "assign":
            lines.append(pad + f"attr_{next(NAMES)} = {{'#': 1}}")
        else:
            lines.extend([pad + f"table_{next(NAMES)} = (", *[pad + f"    {i}," for i in range(9)]])
            lines.append(pad + ")")

    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["class", "if", "try", "func", "noise"]))
        if kind == "class":
            lines.append(f"class K{next(NAMES)}:")
            if draw(st.booleans()):
                lines.append('    """Doc."""')
            for _ in range(draw(st.integers(1, 5))):
                if draw(st.booleans()):
                    function("    ", "m")
                else:
                    noise("    ")
            lines.append("    pass")
        elif kind == "if":
            lines.append("if FLAG:")
            function("    ", "f")
            noise("    ")
            lines.append("else:")
            function("    ", "f")
        elif kind == "try":
            lines.extend(["try:", "    from fast import thing", "except ImportError:"])
            function("    ", "f")
        elif kind == "func":
            function("", "f")
        else:
            noise("")
    # a file that opens with blank lines keeps them in its first block (no block before it)
    return "\n".join(lines).lstrip("\n") + "\n", defs


@settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    source=module_source(),
    budget=st.sampled_from([(800, 1600), (40, 60)]),
    lexer=st.booleans(),
)
def test_property_every_def_is_one_whole_named_chunk(source, budget, lexer):
    text, defs = source
    limit = 0 if lexer else python_splitter.AST_SIZE_LIMIT
    with mock.patch.object(python_splitter, "AST_SIZE_LIMIT", limit):
        chunks = split(text, target_tokens=budget[0], max_tokens=budget[1])
    for name in defs:
        owners = [c for c in chunks if f"def {name}(" in c.text]
        assert len(owners) == 1, name
        chunk = owners[0]
        assert chunk.title and chunk.title.rpartition(".")[2] == name, (name, chunk.title)
        body = text[text.index(f"def {name}(") :].split("    return a\n", 1)[0]
        assert body in chunk.text  # never cut, even by the '#' lines inside its string
        head = chunk.text.splitlines()[0].strip()
        assert head.startswith(("def ", "@", "# about")), (name, head)
