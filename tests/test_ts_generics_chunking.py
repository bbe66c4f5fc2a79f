"""TypeScript symbol chunks: multi-line generics, generic classes, overloads, clean start lines.

Prettier spreads long generic parameter lists over lines (``name<`` / params / ``>(``); those
lines must not be cut points, or the method loses its name. Overload signatures without a
body belong to the implementation that follows them. Every chunking stays byte-exact.
"""

from __future__ import annotations

from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ihmt.ingest.chunkers import code as code_module
from ihmt.ingest.chunkers.code import split_code
from ihmt.projects.index import ProjectIndex


def split(text: str, **kwargs):
    """split_code in symbol mode; an internal error fails the test (no line-window fallback)."""
    kwargs.setdefault("language", "typescript")
    kwargs.setdefault("mode", "symbol")
    fail = mock.Mock(side_effect=AssertionError("code splitter raised internally"))
    with mock.patch.object(code_module, "_line_windows", fail):
        chunks = split_code(text, **kwargs)
    assert "".join(c.text for c in chunks) == text
    return chunks


def symbols(text: str, **kwargs) -> list[tuple[str, int, int]]:
    """(title, start_line, end_line) of every titled chunk."""
    return [(c.title, c.start_line, c.end_line) for c in split(text, **kwargs) if c.title]


def line_of(text: str, needle: str) -> int:
    """1-based line holding the first occurrence of ``needle``."""
    return text[: text.index(needle)].count("\n") + 1


# --------------------------------------------------------------------------- pattern 1

REGISTRY = """\
export class Registry {
  #items = new Map<string, unknown>()

  store<
    TValue = unknown,
    TKey extends string = string,
  >(key: TKey, value: TValue): void {
    this.#items.set(key, value)
  }

  lookup<
    TValue,
    TFallback extends { empty: true } = { empty: true },
    TPick = Extract<TValue, Record<string, Array<number>>>,
  >(key: string, fallback?: TFallback): TValue | TFallback {
    return (this.#items.get(key) as TValue) ?? (fallback as TFallback)
  }

  size(): number {
    return this.#items.size
  }
}
"""


def test_methods_with_multi_line_generics_are_symbols():
    assert symbols(REGISTRY) == [
        ("Registry", 1, 1),
        ("Registry.store", 4, 10),
        ("Registry.lookup", 11, 18),
        ("Registry.size", 19, 22),
    ]


def test_generic_function_with_arrow_types_in_its_parameters():
    text = """\
export function run<
  TFn extends (input: string) => number = (input: string) => number,
  TOut = ReturnType<TFn>,
>(fn: TFn): TOut {
  return fn('x') as unknown as TOut
}

export type Pair<
  TLeft,
  TRight = TLeft,
> = [TLeft, TRight]

export function after(): number {
  return 1
}
"""
    found = symbols(text)
    assert ("run", 1, 7) in found
    assert ("after", 13, 15) in found
    assert ("Pair", 8, 12) in found  # a type alias is a symbol of its own


def test_crlf_generic_method_keeps_its_name_and_lines():
    text = REGISTRY.replace("\n", "\r\n")
    assert symbols(text) == symbols(REGISTRY)


# --------------------------------------------------------------------------- pattern 2

BOX_CACHE = """\
import { Base } from './base'

/** Boxes kept in memory. */
export class BoxCache<
  TData = unknown,
  TError extends Error = Error,
> extends Base<TData> {
  boxes: Array<TData> = []

  constructor(private readonly limit: number) {
    super()
  }

  put<
    TBox extends TData = TData,
  >(box: TBox): void {
    this.boxes.push(box)
  }

  get count(): number {
    return this.boxes.length
  }
}

export interface BoxOptions<
  TData,
> extends Partial<
    Record<string, TData>
  > {
  onPut(box: TData): void
}
"""


def test_generic_class_splits_into_header_and_methods():
    found = symbols(BOX_CACHE)
    assert found[0] == ("imports", 1, 2)
    assert ("BoxCache", 3, 7) in found  # doc comment + the whole multi-line header
    assert ("BoxCache.constructor", 10, 13) in found
    assert ("BoxCache.put", 14, 19) in found
    assert ("BoxCache.count", 20, 24) in found
    assert ("BoxOptions", 25, 29) in found
    assert ("BoxOptions.onPut", 30, 31) in found
    header = next(c for c in split(BOX_CACHE) if c.title == "BoxCache")
    assert "class:BoxCache" in header.tags
    method = next(c for c in split(BOX_CACHE) if c.title == "BoxCache.put")
    assert "method:put" in method.tags and "BoxCache" in method.extra["context"]


def test_generic_class_in_pack_mode_stays_whole_and_exact():
    chunks = split(BOX_CACHE, mode="pack")
    holder = [c for c in chunks if "export class BoxCache<" in c.text]
    assert len(holder) == 1 and "get count()" in holder[0].text


# --------------------------------------------------------------------------- pattern 3

OVERLOADS = """\
import { a } from './a'

/**
 * Compares two keys.
 */
export function sameKey(a: string, b: string): boolean
export function sameKey(a: number, b: number): boolean
export function sameKey(a: any, b: any): boolean {
  return a === b
}

/** Picks a value. */
export function pick<T>(value: T): T;
/** The catch-all form. */
export function pick(value: unknown) {
  return value
}

export function alpha(a: string): string
export function beta(b: number): number {
  return b
}
"""


def test_overload_signatures_join_their_implementation():
    found = symbols(OVERLOADS)
    names = [title for title, _, _ in found]
    assert names.count("sameKey") == 1 and names.count("pick") == 1
    assert ("sameKey", 3, 11) in found  # from the doc comment of the first signature
    assert ("pick", 12, 18) in found
    # a signature of another name stays on its own: it is no overload of `beta`
    assert ("alpha", 19, 19) in found
    assert ("beta", 20, 22) in found
    merged = next(c for c in split(OVERLOADS) if c.title == "sameKey")
    assert merged.text.count("export function sameKey") == 3
    assert merged.tags[0] == "function:sameKey"


def test_method_overloads_with_multi_line_generics_join_their_implementation():
    text = """\
export class Store {
  read<
    TData = unknown,
  >(key: string): TData | undefined
  read(key: string, fallback: string): string
  read(key: string, fallback?: string) {
    return fallback
  }

  write(key: string): void {}
}
"""
    assert symbols(text) == [
        ("Store", 1, 1),
        ("Store.read", 2, 9),
        ("Store.write", 10, 11),
    ]


def test_signatures_without_any_body_are_left_alone():
    text = """\
export interface Emitter {
  on(event: 'open', cb: () => void): this
  on(event: 'close', cb: () => void): this
}

declare function loose(a: string): void
declare function loose(a: number): void
"""
    found = symbols(text)
    assert [(t, start) for t, start, _ in found] == [
        ("Emitter", 1),
        ("Emitter.on", 2),
        ("Emitter.on", 3),
        ("loose", 6),
        ("loose", 7),
    ]


def test_overload_merging_is_typescript_only():
    text = "void f(int a);\nvoid f(int a) {\n  g(a);\n}\n"
    names = [t for t, _, _ in symbols(text, language="cpp")]
    assert "f" in names  # C/C++ prototypes are untouched


# --------------------------------------------------------------------------- pattern 4


def test_member_ranges_start_at_code_not_at_a_blank_line():
    text = """\
export class Spaced {

  first(): number {
    return 1
  }


  /** Second. */
  second(): number {
    return 2
  }
}


// trailing section

export function loose(): void {}
"""
    found = symbols(text)
    lines = text.splitlines()
    for _title, start, _end in found:
        assert lines[start - 1].strip(), f"symbol starts on a blank line {start}"
    assert ("Spaced", 1, 2) in found
    assert ("Spaced.first", 3, 7) in found
    assert ("Spaced.second", 8, 14) in found  # the blank lines after a block stay with it
    assert ("loose", line_of(text, "// trailing"), 17) in found


# --------------------------------------------------------------------------- no false generics


def test_comparisons_and_unclosed_angles_do_not_swallow_code():
    text = """\
function f(a: number, b: number) {
  if (a<
    b) {
    return 1
  }
  return a < b ? 2 : a > b ? 3 : 4
}

function h() {
  const broken = a<
}

function k(): number {
  return 5
}

const shift = (x: number) => x << 2 >> 1
export function last() {}
"""
    found = symbols(text)
    assert ("f", 1, 8) in found
    assert ("h", 9, 12) in found
    assert ("k", 13, 16) in found
    assert ("last", 18, 18) in found


def test_tsx_markup_is_no_generic_list():
    text = """\
export function View(props: { items: string[] }) {
  return (
    <ul>
      {props.items.map((item) => <li key={item}>{item}</li>)}
    </ul>
  )
}

export function Other<
  T,
>(value: T) {
  return <span>{String(value)}</span>
}
"""
    found = symbols(text)
    assert ("View", 1, 8) in found and ("Other", 9, 13) in found


# --------------------------------------------------------------------------- project map


def test_project_map_lists_generic_methods_and_one_overloaded_function(tmp_path):
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "registry.ts").write_text(REGISTRY, encoding="utf-8")
    (root / "src" / "keys.ts").write_text(OVERLOADS, encoding="utf-8")
    ix = ProjectIndex(root, tmp_path / "store")
    try:
        files = {f.path: f.symbols for f in ix.project_map("symbols").files}
    finally:
        ix.close()
    registry = [(s["name"], s["start_line"]) for s in files["src/registry.ts"]]
    assert ("Registry.store", 4) in registry and ("Registry.lookup", 11) in registry
    keys = [(s["name"], s["start_line"], s["end_line"]) for s in files["src/keys.ts"]]
    assert [n for n, _, _ in keys].count("sameKey") == 1
    assert ("sameKey", 3, 10) in keys  # the blank line after it is not part of it


# --------------------------------------------------------------------------- property


@st.composite
def ts_source(draw):
    """A TypeScript file of generic classes, generic functions, overloads and filler, plus
    for each named fragment (name, first line) and the offsets where no chunk may begin."""
    counter = iter(range(10_000))
    fragments: list[tuple[list[str], str | None, set[int]]] = []  # lines, name, allowed cuts

    def generics(pad: str) -> list[str]:
        params = draw(
            st.lists(
                st.sampled_from(
                    [
                        "T = unknown,",
                        "TKey extends string = string,",
                        "TFn extends (x: number) => void = () => void,",
                        "TObj extends { a: 1 } = { a: 1 },",
                        "TMap = Map<string, Array<Set<number>>>,",
                        "// a comment { inside",
                        "",
                    ]
                ),
                min_size=1,
                max_size=4,
            )
        )
        return [pad + "  " + p if p else "" for p in params]

    def body(pad: str) -> list[str]:
        statements = [
            ["const s = '}'"],
            ["if (a < b) {", "  a = b", "}"],
            ["return `${'{'}`"],
            [""],
            ["x = y > z"],
            ["const f = <T,>(v: T) => v"],
        ]
        lines: list[str] = []
        for stmt in draw(st.lists(st.sampled_from(statements), max_size=3)):
            lines += [pad + "  " + line if line else "" for line in stmt]
        return lines

    def method(pad: str, name: str, generic: bool, overloads: int) -> list[str]:
        lines: list[str] = []
        for _ in range(overloads):
            lines.append(f"{pad}{name}(a: string): string")
        if generic:
            lines += [f"{pad}{name}<", *generics(pad), f"{pad}>(a: any): any {{"]
        else:
            lines.append(f"{pad}{name}(a: any): any {{")
        return [*lines, *body(pad), f"{pad}}}"]

    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["class", "generic_class", "function", "filler"]))
        n = next(counter)
        if kind in ("class", "generic_class"):
            if kind == "class":
                lines = [f"export class C{n} {{"]
            else:
                lines = [f"export class C{n}<", *generics(""), "> extends Base {"]
            allowed: set[int] = set()
            for _ in range(draw(st.integers(0, 3))):
                allowed.add(len(lines))
                name = f"m{next(counter)}"
                lines += method("  ", name, draw(st.booleans()), draw(st.integers(0, 2)))
                if draw(st.booleans()):
                    lines.append("")
            allowed.add(len(lines))
            lines.append("}")
            fragments.append((lines, f"C{n}", allowed))
        elif kind == "function":
            name = f"f{n}"
            lines = method("", "export function " + name, draw(st.booleans()), 0)
            overloads = draw(st.integers(0, 2))
            lines = [f"export function {name}(a: string): string"] * overloads + lines
            fragments.append((lines, name, set()))
        else:
            filler = draw(st.sampled_from(["", "// note <", "const k = a < b", "type U = 1"]))
            fragments.append(([filler], None, set(range(2))))

    ending = draw(st.sampled_from(["\n", "\r\n"]))
    lines: list[str] = []
    named: list[tuple[str, int]] = []
    forbidden: set[int] = set()
    for frag_lines, name, allowed in fragments:
        base = len(lines)
        if name:
            named.append((name, expected_start(lines, base) + 1))
        forbidden |= {base + k for k in range(1, len(frag_lines)) if k not in allowed}
        lines += frag_lines
    starts = []
    pos = 0
    for line in lines:
        starts.append(pos)
        pos += len(line) + len(ending)
    text = "".join(line + ending for line in lines)
    return text, named, {starts[i] for i in forbidden}


def expected_start(lines: list[str], base: int) -> int:
    """0-based first line of the symbol whose code starts at ``base``: comments right above it
    are its own (with the blank lines among them), blank lines after other code are not."""
    start = k = base
    while k > 0 and (not lines[k - 1].strip() or lines[k - 1].lstrip().startswith("//")):
        k -= 1
        if lines[k].strip():
            start = k
    return 0 if k == 0 else start  # nothing before: the file's first line


@settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(source=ts_source(), mode=st.sampled_from(["symbol", "pack"]))
def test_property_generic_typescript_is_exact_and_never_cut_inside_a_symbol(source, mode):
    text, named, forbidden = source
    chunks = split(text, mode=mode, target_tokens=40, max_tokens=60)
    pos = 0
    for c in chunks[:-1]:
        pos += len(c.text)
        assert pos not in forbidden, f"cut inside a symbol: {text[pos - 40 : pos + 40]!r}"
    if mode == "symbol":
        starts = {(c.title, c.start_line) for c in chunks}
        for name, line in named:
            assert (name, line) in starts, (name, line)


def test_multi_line_class_fields_that_hold_behaviour_are_members():
    source = (
        "export class Virtual {\n"
        "  private count = 0\n"
        "  private cache = new Map<string, number>()\n"
        "  private getIndexes = memo(\n"
        "    () => [this.count],\n"
        "    (count) => range(count),\n"
        "  )\n"
        "\n"
        "  private scrollTo = (\n"
        "    offset: number,\n"
        "  ) => {\n"
        "    this.count = offset\n"
        "  }\n"
        "\n"
        "  total = () => this.count\n"
        "}\n"
    )
    chunks = split_code(source, language="typescript", mode="symbol")
    assert "".join(c.text for c in chunks) == source
    titles = [c.title for c in chunks]
    assert "Virtual.getIndexes" in titles and "Virtual.scrollTo" in titles
    assert "Virtual.total" in titles
    # one-line fields, a `new` value included, stay with the class's fields
    assert not any(t and t.endswith((".count", ".cache")) for t in titles)
    memo = next(c for c in chunks if c.title == "Virtual.getIndexes")
    assert memo.text.startswith("  private getIndexes = memo(") and memo.text.rstrip().endswith(")")
    assert "method:getIndexes" in memo.tags
