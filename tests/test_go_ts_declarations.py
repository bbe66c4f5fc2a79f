"""Go and TypeScript declarations that are no function and no class body are symbols too.

Go: every top-level ``type X ...`` (a func type, an int, a slice) is a ``class:X`` symbol so
its methods have a parent; a ``const (`` / ``var (`` group is one symbol named after its first
declared name; a single ``var X`` / ``const X`` is a symbol X. TypeScript: ``type X = ...``
(also multi-line unions and object types) is ``class:X``, a top-level ``const`` / ``let`` is
``const:X`` / ``var:X``. Doc comments stay with their declaration; chunking stays byte-exact.
"""

from __future__ import annotations

from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ihmt.ingest.chunkers import code as code_module
from ihmt.ingest.chunkers.code import split_code
from ihmt.projects.manifest import symbol_of, trailing_blank_lines
from ihmt.projects.render import _symbol_lines


def split(text: str, language: str, mode: str = "symbol"):
    """split_code; an internal error fails the test (no line-window fallback)."""
    fail = mock.Mock(side_effect=AssertionError("code splitter raised internally"))
    with mock.patch.object(code_module, "_line_windows", fail):
        chunks = split_code(text, language=language, mode=mode)
    assert "".join(c.text for c in chunks) == text
    return chunks


def symbols(text: str, language: str) -> list[tuple[str, int, int]]:
    """(title, start_line, end_line) of every titled chunk in symbol mode; the end line
    leaves out the blank lines after it, as the project map does."""
    return [
        (c.title, c.start_line, c.end_line - trailing_blank_lines(c.text))
        for c in split(text, language)
        if c.title
    ]


def kinds(text: str, language: str) -> dict[str, str]:
    """title -> map kind, as the project index decides it from a chunk's title and tags."""
    out = {}
    for c in split(text, language):
        entry = symbol_of("id", c.title or "", c.tags, {}, 1)
        if entry is not None:
            out[entry["name"]] = entry["kind"]
    return out


# --------------------------------------------------------------------------- Go

GO = """\
package shapes

import "fmt"

// Rule checks one shape.
type Rule func(s *Shape, strict bool) error

// Unit is a length unit.
type Unit int

type byArea []*Shape

type Alias = fmt.Stringer

// Units of length.
const (
	// Metre is the base unit.
	Metre Unit = iota
	Foot
)

var (
	_        = fmt.Sprint
	registry = map[string]Rule{}
)

// Strict turns every rule on.
var Strict = false

const Version = "1.0"

type Shape struct {
	Name string
}

func (u Unit) String() string {
	return "m"
}

func (b byArea) Len() int { return len(b) }
"""


def test_go_non_struct_types_are_class_symbols_with_their_doc_comment():
    found = symbols(GO, "go")
    assert ("Rule", 5, 6) in found
    assert ("Unit", 8, 9) in found
    assert ("byArea", 11, 11) in found
    assert ("Alias", 13, 13) in found
    assert ("Shape", 32, 32) in found  # structs as before


def test_go_methods_of_non_struct_types_name_their_type():
    k = kinds(GO, "go")
    assert k["Unit"] == k["byArea"] == k["Rule"] == "class"
    assert k["Unit.String"] == k["byArea.Len"] == "method"


def test_go_const_and_var_groups_are_one_symbol_named_after_their_first_name():
    found = symbols(GO, "go")
    assert ("Metre", 15, 20) in found  # starts at the group's doc comment
    assert ("registry", 22, 25) in found  # `_ = ...` is skipped for the name
    k = kinds(GO, "go")
    assert k["Metre"] == "const" and k["registry"] == "var"
    assert "Foot" not in k


def test_go_single_var_and_const_are_symbols():
    found = symbols(GO, "go")
    assert ("Strict", 27, 28) in found
    assert ("Version", 30, 30) in found
    assert kinds(GO, "go")["Strict"] == "var"
    assert kinds(GO, "go")["Version"] == "const"


def test_go_file_holding_only_a_var_has_a_symbol():
    text = "//go:build !windows\n\npackage demo\n\nvar hookFn func(*Shape)\n"
    assert symbols(text, "go") == [("imports", 1, 3), ("hookFn", 5, 5)]


def test_go_blank_only_declarations_and_type_groups():
    text = (
        "package demo\n\n"
        "var _ Sizer = (*Box)(nil)\n\n"
        "type (\n\t// Box holds.\n\tBox struct{ w int }\n\tSizer interface{ Size() int }\n)\n"
    )
    found = symbols(text, "go")
    assert [t for t, _, _ in found] == ["imports", "Box"]
    assert kinds(text, "go")["Box"] == "class"


def test_go_multi_line_initialisers_stay_whole():
    text = (
        "package demo\n\n"
        'var funcs = map[string]any{\n\t"a": 1,\n}\n\n'
        "const banner = `line one\n{ not code }\n`\n\n"
        "var total = 1 +\n\t2\n"
    )
    assert symbols(text, "go") == [
        ("imports", 1, 1),
        ("funcs", 3, 5),
        ("banner", 7, 9),
        ("total", 11, 12),
    ]


# --------------------------------------------------------------------------- TypeScript

TS = """\
import type { Base } from './base'

export type Id = string

/** A key made of parts. */
export type Key<
  TPart = unknown,
  TMore extends Array<TPart> = Array<TPart>,
> = ReadonlyArray<TPart | TMore>

type Mode =
  | 'fast'
  | {
      kind: 'slow'
      delay: number
    }
  | 'off'

export type Options = {
  mode: Mode
  retries?: number
}

export const DEFAULTS = {
  mode: 'fast',
}

export declare const marker: unique symbol
export let counter = 0
const limits = [1, 2, 3]

export const double = <T extends number>(value: T): number => value * 2

export const pick =
  (name: string) =>
    name.trim()

export function run(): void {
  const inner = 1
}
"""


def test_ts_type_aliases_are_class_symbols_with_their_whole_body():
    found = symbols(TS, "typescript")
    assert ("Id", 3, 3) in found
    assert ("Key", 5, 9) in found  # doc comment and multi-line generics
    assert ("Mode", 11, 17) in found  # every `| ...` member, objects included
    assert ("Options", 19, 22) in found
    k = kinds(TS, "typescript")
    assert k["Id"] == k["Key"] == k["Mode"] == k["Options"] == "class"


def test_ts_top_level_values_are_const_and_var_symbols():
    found = symbols(TS, "typescript")
    assert ("DEFAULTS", 24, 26) in found
    k = kinds(TS, "typescript")
    assert k["DEFAULTS"] == k["marker"] == k["limits"] == "const"
    assert k["counter"] == "var"
    assert "inner" not in k  # inside a function body


def test_ts_arrow_bindings_stay_functions():
    found = symbols(TS, "typescript")
    assert ("pick", 34, 36) in found  # `=>` at the end of a line continues the statement
    k = kinds(TS, "typescript")
    assert k["double"] == k["pick"] == k["run"] == "function"


def test_ts_generic_arrow_with_parameters_over_lines_is_one_function():
    text = """\
export const build = <
  TCtx extends {
    user?: string
  },
>() => ({
  ctx: {} as TCtx,
})

export const after = 1
"""
    assert symbols(text, "typescript") == [("build", 1, 7), ("after", 9, 9)]
    assert kinds(text, "typescript")["build"] == "function"


def test_ts_interface_header_broken_before_extends_keeps_its_members():
    text = """\
export interface Envelope<TData>
  extends Base<TData> {
  id: string
  data: TData
}
"""
    chunks = split(text, "typescript")
    assert chunks[0].title == "Envelope" and "extends Base" in chunks[0].text
    assert all("class:Envelope" in c.tags for c in chunks)


def test_ts_type_re_exports_and_property_names_are_no_symbols():
    text = """\
export type { Id, Key } from './keys'

export interface Shape {
  type: string
}

export class Box {
  type = 'box'
  size(): number {
    return 1
  }
}
"""
    found = {t for t, _, _ in symbols(text, "typescript")}
    assert found == {"Shape", "Box", "Box.size"}


def test_js_gets_values_but_no_type_aliases():
    text = "export const LIMIT = 10\n\ntype = 3\n\nconst path = require('path')\n"
    k = kinds(text, "javascript")
    assert k == {"LIMIT": "const"}


def test_ts_union_after_assignment_ends_at_its_last_member():
    text = "type A =\n  | 'x'\n  | 'y'\ntype B = 1\n"
    assert symbols(text, "typescript") == [("A", 1, 3), ("B", 4, 4)]


# --------------------------------------------------------------------------- other languages


def test_rust_java_csharp_declarations_are_unchanged():
    rust = 'const LIMIT: u32 = 1;\n\ntype Map = Vec<u8>;\n\nstatic NAME: &str = "x";\n'
    java = "class A {\n    static final int LIMIT = 1;\n    int size() {\n        return 1;\n    }\n}\n"
    csharp = "using System;\n\npublic class A\n{\n    public const int Limit = 1;\n}\n"
    for text, language in ((rust, "rust"), (java, "java"), (csharp, "csharp")):
        for c in split(text, language):
            assert not any(t.startswith(("const:", "var:")) for t in c.tags)
    assert [t for t, _, _ in symbols(rust, "rust")] == []
    assert [t for t, _, _ in symbols(java, "java")] == ["A", "A.size"]


def test_pack_mode_titles_name_the_declarations():
    chunks = split(GO, "go", mode="pack")
    assert len(chunks) == 1
    assert chunks[0].title.startswith("imports, Rule, Unit")
    assert {"class:Rule", "const:Metre", "var:Strict"} <= set(chunks[0].tags)


# --------------------------------------------------------------------------- the map


def test_map_nests_a_method_only_right_under_its_own_class():
    syms = [
        {"name": "Cmd", "kind": "class", "start_line": 1, "end_line": 5},
        {"name": "Cmd.Run", "kind": "method", "start_line": 7, "end_line": 9},
        {"name": "padding", "kind": "var", "start_line": 11, "end_line": 11},
        {"name": "Cmd.Pad", "kind": "method", "start_line": 13, "end_line": 15},
        {"name": "Unit", "kind": "class", "start_line": 17, "end_line": 17},
        {"name": "Cmd.Name", "kind": "method", "start_line": 19, "end_line": 20},
    ]
    assert _symbol_lines(syms, "") == [
        "class Cmd 1-5",
        "  .Run 7-9",
        "padding 11-11",
        "Cmd.Pad 13-15",
        "class Unit 17-17",
        "Cmd.Name 19-20",
    ]


# --------------------------------------------------------------------------- properties

GO_DECLS = [
    ("type T{n} func(a int, b []string) error", "T{n}"),
    ("type T{n} int", "T{n}"),
    ("type T{n} []*Item", "T{n}"),
    ("// T{n} is documented.\ntype T{n} map[string]struct {{\n\tx int\n}}", "T{n}"),
    ("const (\n\t// C{n} is first.\n\tC{n} = iota\n\tD{n}\n)", "C{n}"),
    ("var (\n\t_ = 1\n\tV{n}, W{n} = 2, 3\n)", "V{n}"),
    ("var V{n} = `{{\n(`", "V{n}"),
    ('const C{n} = "a)b"', "C{n}"),
    ('var V{n} = &Item{{\n\tName: "}}",\n}}', "V{n}"),
    ("func F{n}(x int) int {{\n\treturn x\n}}", "F{n}"),
]
TS_DECLS = [
    ("export type T{n} = string | number", "T{n}"),
    ("type T{n}<\n  A,\n  B = A,\n> = [A, B]", "T{n}"),
    ("export type T{n} =\n  | {{ a: 1 }}\n  | {{\n      b: 2\n    }}", "T{n}"),
    ("/** doc */\nexport type T{n} = {{\n  a: string\n}}", "T{n}"),
    ("export const C{n} = {{\n  a: `${{1}}}}`,\n}}", "C{n}"),
    ("const C{n} = [1, 2] as const", "C{n}"),
    ("export let V{n}: number | undefined", "V{n}"),
    ("export const F{n} = <T,>(x: T) =>\n  x", "F{n}"),
    ("export function F{n}(): void {{\n  return\n}}", "F{n}"),
    ("// just a comment", None),
]
PROPERTY = settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _source(draw, pool, prologue, ending):
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=1, max_size=8))
    parts, names = [prologue], []
    for n, k in enumerate(picks):
        snippet, name = pool[k]
        parts.append(snippet.format(n=n))
        if name:
            names.append(name.format(n=n))
        parts.append(draw(st.sampled_from(["", "\n"])))  # a blank line or none between
    text = "\n".join(p for p in parts if p is not None) + "\n"
    if ending != "\n":
        text = text.replace("\n", ending)
    return text, names


@st.composite
def go_source(draw):
    return _source(draw, GO_DECLS, "package demo\n", draw(st.sampled_from(["\n", "\r\n"])))


@st.composite
def ts_source(draw):
    return _source(
        draw, TS_DECLS, "import { x } from './x'\n", draw(st.sampled_from(["\n", "\r\n"]))
    )


@PROPERTY
@given(
    data=st.data(),
    language=st.sampled_from(["go", "typescript"]),
    mode=st.sampled_from(["symbol", "pack"]),
)
def test_property_declarations_are_named_and_exact(data, language, mode):
    text, names = data.draw(go_source() if language == "go" else ts_source())
    chunks = split(text, language, mode=mode)
    if mode == "symbol":
        titles = [c.title for c in chunks if c.title]
        assert [t for t in titles if t != "imports"] == names


def test_declarations_are_tagged_as_such_and_code_is_not():
    text = (
        "package demo\n\ntype Mode int\n\nvar Verbose = false\n\n"
        "type Runner struct {\n\tName string\n}\n\n"
        "func (r *Runner) Start() error {\n\treturn nil\n}\n"
    )
    tagged = {c.title: c.tags for c in split(text, "go") if c.title}
    assert "declaration" in tagged["Mode"] and "declaration" in tagged["Verbose"]
    assert "declaration" not in tagged["Runner"]  # a struct holds the fields code acts on
    assert "declaration" not in tagged["Runner.Start"]
