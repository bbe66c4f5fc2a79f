"""Code splitter: byte-exact, never cuts a class/function, splits oversized classes per member."""

from __future__ import annotations

import random
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ihmt.errors import InputError
from ihmt.ingest.chunkers import code as code_module
from ihmt.ingest.chunkers.code import LANGUAGE_BY_EXTENSION, split_code
from ihmt.text.tokens import estimate_tokens

# --------------------------------------------------------------------------- helpers


def split(text: str, **kwargs):
    """split_code, but an internal error fails the test instead of degrading to line windows."""
    fail = mock.Mock(side_effect=AssertionError("code splitter raised internally"))
    with mock.patch.object(code_module, "_line_windows", fail):
        return split_code(text, **kwargs)


def check(text: str, chunks, max_tokens: int = 3000) -> None:
    """Every invariant that holds for every input."""
    assert "".join(c.text for c in chunks) == text
    lines = text.splitlines(keepends=True)
    pos = 0
    for c in chunks:
        assert c.text, "no empty chunks"
        assert "".join(lines[c.start_line - 1 : c.end_line]) == c.text
        starts_at_line = sum(len(x) for x in lines[: c.start_line - 1])
        assert starts_at_line == pos, "chunks begin at line starts"
        pos += len(c.text)
        assert "type:code" in c.tags
        assert any(t.startswith("lang:") for t in c.tags)
        if c.oversized:
            assert estimate_tokens(c.text) > max_tokens
        else:
            assert estimate_tokens(c.text) <= max_tokens
    if not text:
        assert chunks == []


def chunk_of(text: str, chunks, snippet: str):
    """The single chunk that holds all of ``snippet`` (fails if it is cut)."""
    start = text.index(snippet)
    end = start + len(snippet)
    pos = 0
    for c in chunks:
        if pos <= start and end <= pos + len(c.text):
            return c
        pos += len(c.text)
    raise AssertionError(f"snippet is cut across chunks: {snippet[:60]!r}")


def split_all_ways(text: str, language: str):
    """(chunks, max_tokens) for default, tiny and symbol configurations, each checked."""
    out = []
    for kwargs in (
        {},
        {"target_tokens": 40, "max_tokens": 60},
        {"mode": "symbol"},
        {"mode": "symbol", "target_tokens": 10, "max_tokens": 20},
    ):
        chunks = split(text, language=language, **kwargs)
        check(text, chunks, kwargs.get("max_tokens", 3000))
        out.append(chunks)
    return out


# --------------------------------------------------------------------------- samples

JAVA = """\
package com.example.inventory;

import java.util.Map;
import java.util.Optional;
// grouped with the imports
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps stock levels. Braces in docs: { } {{
 */
@Service
public final class InventoryService {
    private static final String BRACE = "}{";
    private final Map<String, Integer> stock = new ConcurrentHashMap<>();
    private final char open = '{';
    private final char quote = '\\'';

    public InventoryService(Map<String, Integer> initial) {
        stock.putAll(initial);
    }

    /** Reserve stock; returns the reservation id. */
    @Transactional
    public Optional<String> reserveStock(Sku sku, int q) {
        String block = \"\"\"
            a text block with } and { and \\\"\"\" inside
}
            \"\"\";
        if (q <= 0) {
            return Optional.empty(); // }
        }
        /* } */
        return Optional.of(sku.id() + "}" + block);
    }

    public void releaseStock(Sku sku) { stock.merge(sku.id(), 1, Integer::sum); }

    private static int count(
            String s,
            char c) {
        return (int) s.chars().filter(x -> x == c).count();
    }
}
"""

JAVASCRIPT = """\
import { a } from './a.js';
const util = require('util');

// helper with a template: } {
function alpha(x) {
  const t = `value ${ {x}.x } and ${ `nested ${'}'}` } {`;
  const re = /[{}]+/g;
  return t.replace(re, '}') / 2;
}

const beta = (y) => {
  const s = "}}}" + '{';
  /* block { comment */
  return s.length;
};

export class Gamma extends Base {
  constructor() { super(); }
  run(n) {
    if (n > 0) { return `}${n}`; }
    return 0;
  }
  handle = (e) => { return e; };
}

const multi = `
}
function fake() {
`;
"""

TYPESCRIPT = """\
import type { User } from "./user";

export interface Repo<T> {
  find(id: string): Promise<T | undefined>;
  save(item: T): Promise<void>;
}

export async function loadUser(repo: Repo<User>, id: string): Promise<User> {
  const key = `user:${id}:${ {a: "}"}.a }`;
  const found = await repo.find(key);
  if (!found) { throw new Error(`missing } ${id}`); }
  return found;
}

export class UserService {
  private cache = new Map<string, User>();

  constructor(private readonly repo: Repo<User>) {}

  async get(id: string): Promise<User> {
    return this.cache.get(id) ?? loadUser(this.repo, id);
  }
}
"""

C_SRC = """\
#include <stdio.h>
#include "util.h"

#define OPEN {
#define CLOSE }

/* a comment with { */
static int count(const char *s) {
    int n = 0;
    char c = '{';
    const char *q = "}}";
    while (*s) { if (*s++ == c) n++; }
    return n;
}

#ifdef WIDE
int entry(int argc, char **argv) {
#else
int entry(void) {
#endif
    return count("{");
}

int main(int argc, char **argv)
{
    printf("%d\\n", count("{{"));
    return 0;
}
"""

CPP = """\
#include <string>
using namespace std;

namespace shop {

class Cart : public Base {
public:
    explicit Cart(int n) : size_(n) {}
    string label() const {
        auto raw = R"xx(raw } { text)xx";
        return raw + string("}");
    }
private:
    int size_;
};

int Cart::total(int x) {
    char c = '}';
    return x * size_ + 1'000;
}

}  // namespace shop
"""

CSHARP = """\
using System;
using System.Collections.Generic;

namespace Shop.Billing
{
    [Serializable]
    public class Invoice : IDocument
    {
        private readonly string _path = @"C:\\}{\\\"\"\";

        public string Render(int total)
        {
            var text = $"Total: {total:N2} }}{{ {(total > 0 ? "}" : "{")}";
            var raw = \"\"\"
                raw { text
                \"\"\";
            return text + raw;
        }

        public int Count() => 1;
    }
}
"""

GO = """\
package main

import (
\t"fmt"
\t"strings"
)

type Svc struct {
\tName string `json:"name"`
\tOpen rune
}

func (s *Svc) Reserve(sku string, q int) error {
\traw := `{
}`
\tr := '}'
\tif q > 0 {
\t\treturn fmt.Errorf("%s}", sku)
\t}
\t_ = strings.ToUpper(raw + string(r))
\treturn nil
}

func main() {
\tfmt.Println("{")
}
"""

RUST = """\
use std::collections::HashMap;

/// A store. /* nested /* comment } */ still comment { */
#[derive(Debug)]
pub struct Store<'a> {
    name: &'a str,
}

impl<'a> Store<'a> {
    pub fn new(name: &'a str) -> Self {
        let c = '{';
        let raw = r#"raw } "quoted" {"#;
        Store { name }
    }

    fn lookup(&self, key: &str) -> Option<char> {
        let b = b'}';
        let s = "multi
}
line";
        key.chars().next()
    }
}

fn helper<'a>(x: &'a str) -> &'a str {
    'outer: loop { break 'outer; }
    x
}
"""

KOTLIN = """\
package shop

import kotlin.math.max

data class Item(val id: String, val qty: Int)

class Cart(private val items: MutableList<Item>) {
    val label = "cart ${items.size} }"

    fun total(): Int {
        val raw = \"\"\"
            } { raw
        \"\"\"
        val m = mapOf("}" to 1)
        return items.sumOf { it.qty } + (m["}"] ?: 0)
    }

    fun `weird name`(c: Char = '{') = c
}

fun String.shout(): String = uppercase() + "}"
"""

SWIFT = """\
import Foundation

struct Point {
    var x: Double
    var y: Double
}

extension Point {
    func describe() -> String {
        let d = ["}": 1]
        let s = "value \\(d["}"]!) {"
        let raw = #"raw } "quote" {"#
        return s + raw
    }

    init(single: Double) {
        self.init(x: single, y: single)
    }
}

func makeText() -> String {
    return \"\"\"
    multi } line {
    \"\"\"
}
"""

PHP = """\
<html><p>Don't { break</p>
<?php
namespace App\\Billing;

use App\\Models\\Order;

# a shell comment with {
class Invoice extends Document
{
    private string $brace = '}';

    public function render(Order $o): string
    {
        $html = <<<EOT
        <div>{ unclosed
        EOT;
        return $html . "}" . $this->brace;
    }

    public static function make(): self { return new self(); }
}

function helper($x) {
    return "{$x}}";
}
?>
<p>tail {</p>
"""

PYTHON = '''\
#!/usr/bin/env python3
"""Module docstring with { braces }."""

from __future__ import annotations

import os
import sys

CONST = 1; OTHER = 2


# leading comment for top
@decorator
def top(a, b):
    text = """
def fake():
class Fake:
"""
    return a + b


class Service(Base):
    """Doc."""

    x = 1

    # about m
    def m(self):
        return {"}": 1}

    @property
    async def n(self):
        return 2
'''

SAMPLES = {
    "java": (JAVA, ["reserveStock", "releaseStock", "count", "InventoryService"]),
    "javascript": (JAVASCRIPT, ["alpha", "beta", "run", "handle", "constructor"]),
    "typescript": (TYPESCRIPT, ["loadUser", "get", "constructor"]),
    "c": (C_SRC, ["count", "entry", "main"]),
    "cpp": (CPP, ["label", "total"]),
    "csharp": (CSHARP, ["Render", "Count"]),
    "go": (GO, ["Reserve", "main"]),
    "rust": (RUST, ["new", "lookup", "helper"]),
    "kotlin": (KOTLIN, ["total", "shout"]),
    "swift": (SWIFT, ["describe", "init", "makeText"]),
    "php": (PHP, ["render", "make", "helper"]),
    "python": (PYTHON, ["top", "m", "n"]),
}

# Whole functions that must never be cut, one per sample (tricky literals live inside them).
WHOLE = {
    "java": "    public Optional<String> reserveStock(Sku sku, int q) {",
    "javascript": "function alpha(x) {",
    "typescript": "export async function loadUser(",
    "c": "static int count(const char *s) {",
    "cpp": "    string label() const {",
    "csharp": "        public string Render(int total)",
    "go": "func (s *Svc) Reserve(sku string, q int) error {",
    "rust": "    fn lookup(&self, key: &str) -> Option<char> {",
    "kotlin": "    fun total(): Int {",
    "swift": "    func describe() -> String {",
    "php": "    public function render(Order $o): string",
    "python": "def top(a, b):",
}


def _function_text(text: str, first_line: str, language: str) -> str:
    """The source of the function starting at ``first_line`` (by its closing line)."""
    start = text.index(first_line)
    indent = first_line[: len(first_line) - len(first_line.lstrip())]
    lines = text[start:].splitlines(keepends=True)
    out = [lines[0]]
    for line in lines[1:]:
        out.append(line)
        if language == "python":
            if line.strip() and not line.startswith(indent + " ") and not line.startswith("\n"):
                out.pop()
                break
        elif line.rstrip() == indent + "}":
            break
    return "".join(out)


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_samples_reconstruct_in_every_mode(language):
    text, _ = SAMPLES[language]
    for variant in (text, text.replace("\n", "\r\n"), "\ufeff" + text, text.rstrip("\n")):
        split_all_ways(variant, language)


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_tricky_literals_never_cut_a_function(language):
    text, _ = SAMPLES[language]
    body = _function_text(text, WHOLE[language], language)
    for chunks in split_all_ways(text, language):
        chunk_of(text, chunks, body)


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_symbol_mode_names_every_function(language):
    text, names = SAMPLES[language]
    chunks = split(text, language=language, mode="symbol")
    tags = {t for c in chunks for t in c.tags}
    for name in names:
        assert f"method:{name}" in tags or f"function:{name}" in tags, (name, tags)
    for c in chunks:  # one symbol per chunk in symbol mode
        assert len([t for t in c.tags if t.startswith(("method:", "function:"))]) <= 1, c.tags
    assert f"lang:{language}" in tags


def test_java_service_tags_titles_and_context():
    chunks = split(JAVA, language="java", mode="symbol")
    reserve = chunk_of(JAVA, chunks, _function_text(JAVA, WHOLE["java"], "java"))
    assert "method:reserveStock" in reserve.tags
    assert "class:InventoryService" in reserve.tags
    assert reserve.tags[-2:] == ["lang:java", "type:code"]
    assert reserve.title == "InventoryService.reserveStock"
    assert reserve.extra["context"] == "public final class InventoryService {"
    assert reserve.text.lstrip().startswith("/** Reserve stock")  # doc + annotation attach
    imports = chunks[0]
    assert "imports" in imports.tags and imports.title == "imports"
    assert "ConcurrentHashMap;" in imports.text and "class" not in imports.text
    # the closing brace travels with the last member, never alone
    assert all(c.text.strip() != "}" for c in chunks)
    # the whole class in pack mode carries every symbol it contains
    (whole,) = [c for c in split(JAVA, language="java") if "class:InventoryService" in c.tags]
    for name in ("reserveStock", "releaseStock", "count"):
        assert f"method:{name}" in whole.tags


def test_symbol_mode_gives_one_chunk_per_method():
    chunks = split(JAVA, language="java", mode="symbol")
    methods = [t for c in chunks for t in c.tags if t.startswith("method:")]
    assert sorted(methods) == sorted(
        ["method:InventoryService", "method:reserveStock", "method:releaseStock", "method:count"]
    )
    header = next(c for c in chunks if "public final class InventoryService {" in c.text)
    assert header.title == "InventoryService" and "@Service" in header.text


def test_go_receiver_and_rust_impl_owner():
    go = split(GO, language="go", mode="symbol")
    reserve = next(c for c in go if "method:Reserve" in c.tags)
    assert "class:Svc" in reserve.tags and reserve.title == "Svc.Reserve"
    assert next(c for c in go if "function:main" in c.tags).title == "main"
    rust = split(RUST, language="rust", mode="symbol")
    lookup = next(c for c in rust if "method:lookup" in c.tags)
    assert "class:Store" in lookup.tags and lookup.extra["context"] == "impl<'a> Store<'a> {"
    assert "function:helper" in next(c for c in rust if "helper" in c.text).tags


def test_csharp_namespace_and_class_members():
    chunks = split(CSHARP, language="csharp", mode="symbol")
    render = next(c for c in chunks if "method:Render" in c.tags)
    assert render.extra["context"] == "public class Invoice : IDocument {"
    assert "class:Invoice" in render.tags and render.title == "Invoice.Render"
    assert "[Serializable]" in next(c for c in chunks if c.title == "Invoice").text


def test_python_symbol_mode_and_context():
    chunks = split(PYTHON, language="python", mode="symbol")
    m = next(c for c in chunks if "method:m" in c.tags)
    assert m.extra["context"] == "class Service(Base):"
    assert m.title == "Service.m" and "class:Service" in m.tags
    assert "# about m" in m.text
    n = next(c for c in chunks if "method:n" in c.tags)
    assert "@property" in n.text
    top = next(c for c in chunks if "function:top" in c.tags)
    assert "# leading comment for top" in top.text and "@decorator" in top.text
    imports = next(c for c in chunks if "imports" in c.tags)
    assert "Module docstring" in imports.text and "import sys" in imports.text


SCANNER_CASES = {  # braces only inside literals / comments; the lines that sit inside them
    "javascript": (
        "const a = `x ${ {a:1}.a + `${'}'}` } {`;\nconst re = /[{]/g;\nfunction f() {}\n",
        [],
    ),
    "typescript": ("const t = `${ x ? `{` : '}' }`\nclass A {}\n", []),
    "rust": ("fn f<'a>(x: &'a str) -> char { let c = '{'; let r = r#\"}\"#; c }\nfn g() {}\n", []),
    "go": ("var s = `{\n}`\nr := '}'\nfunc g() {}\n", [1]),
    "csharp": (
        'var a = @"}""{";\nvar b = $"{(x ? "}" : "{")}";\nvar c = """\n {\n""";\nclass A {}\n',
        [3, 4],
    ),
    "cpp": ('#define X {\nauto s = R"xx({)xx";\nint x = 1\'000;\nclass A {};\n', []),
    "kotlin": ('val s = "${map["}"]}"\nval r = """{\n""""\nfun `t`() {}\n', [2]),
    "swift": ('let s = "\\(d["}"]!)"\nlet r = #"}"#\n/* /* } */\n */\nfunc g() {}\n', [3]),
    "php": ('<p>{ \'x</p>\n<?php\n$a = "}";\n# {\n$b = <<<EOT\n{\nEOT;\nfunction g() {}\n', [5, 6]),
    "java": ('String s = """\n  }\n  """;\nchar c = \'}\';\nclass A {}\n', [1, 2]),
    "c": (
        "#if A\nint f(int a) {\n#else\nint f(void) {\n#endif\n  return 0;\n}\nint g() {}\n",
        [3, 4],
    ),
    "python": ("x = '''{\n'''\ny = (1,\n 2)\nz = 1 + \\\n 2\ndef g(): pass\n", [1, 5]),
}


@pytest.mark.parametrize("language", sorted(SCANNER_CASES))
def test_scanner_ignores_braces_in_literals(language):
    from ihmt.ingest.chunkers.brace_scanner import BraceScanner

    text, inside = SCANNER_CASES[language]
    lm = BraceScanner(text, language).scan()
    assert lm.final_depth == 0 and lm.final_safe
    last = lm.n - 1
    assert lm.depth[last] == 0 and lm.safe[last], lm.line(last)  # the final declaration
    assert [i for i in range(lm.n) if not lm.safe[i]] == inside


# --------------------------------------------------------------------------- oversized


def _big_java_class(methods: int, body_lines: int) -> str:
    parts = ["import java.util.List;\n", "\n", "public final class InventoryService {\n"]
    parts.append('    private final String brace = "}";\n\n')
    for i in range(methods):
        parts.append(f"    /** method {i} */\n    public int method{i}(int a) {{\n")
        for j in range(body_lines):
            parts.append(f'        if (a > {j}) {{ a += "{{".length(); }} // }} {i}\n')
        parts.append("        return a;\n    }\n\n")
    parts.append("}\n")
    return "".join(parts)


def test_oversized_class_splits_per_member_with_context():
    text = _big_java_class(methods=30, body_lines=6)
    chunks = split(text, language="java", target_tokens=500, max_tokens=1000)
    check(text, chunks, 1000)
    assert len(chunks) > 3
    members = [c for c in chunks if "class:InventoryService" in c.tags]
    assert members and all(
        c.extra.get("context") == "public final class InventoryService {" for c in members
    )
    for i in range(30):
        body = _function_text(text, f"    public int method{i}(int a) {{", "java")
        member = chunk_of(text, chunks, body)
        assert f"method:method{i}" in member.tags and f"/** method {i} */" in member.text
        assert member.title == f"InventoryService.method{i}"  # one method per chunk
    assert not any(c.oversized for c in chunks)
    assert chunks[0].text.startswith("import")
    header = chunk_of(text, chunks, "public final class InventoryService {\n")
    assert header.title == "InventoryService"
    assert chunks[-1].text.endswith("    }\n\n}\n")  # closing brace rides with the last member


def test_giant_method_stays_whole_and_oversized():
    text = _big_java_class(methods=2, body_lines=400)
    chunks = split(text, language="java", target_tokens=500, max_tokens=1000)
    check(text, chunks, 1000)
    giants = [c for c in chunks if c.oversized]
    assert len(giants) == 2
    for i, giant in enumerate(giants):
        assert giant.text.count(f"public int method{i}(") == 1
        assert f"method:method{i}" in giant.tags
        assert giant.extra["context"] == "public final class InventoryService {"


def test_giant_python_function_and_class_split():
    body = "".join(f"    x{i} = {{'}}': {i}}}\n" for i in range(600))
    text = f"import os\n\n\ndef giant():\n{body}    return 1\n\n\nclass Small(Base):\n"
    text += "".join(f"    def m{i}(self):\n        return {i}\n\n" for i in range(80))
    chunks = split(text, language="python", target_tokens=200, max_tokens=300)
    check(text, chunks, 300)
    giant = chunk_of(text, chunks, "def giant():\n" + body)
    assert giant.oversized and "function:giant" in giant.tags
    m5 = chunk_of(text, chunks, "    def m5(self):\n        return 5\n")
    assert m5.extra["context"] == "class Small(Base):" and "class:Small" in m5.tags


def test_pack_mode_packs_small_blocks_up_to_target():
    text = "".join(f"int f{i}(void) {{ return {i}; }}\n" for i in range(200))
    chunks = split(text, language="c", target_tokens=100, max_tokens=150)
    check(text, chunks, 150)
    assert 1 < len(chunks) < 200
    assert all(estimate_tokens(c.text) <= 100 for c in chunks)
    symbol = split(text, language="c", mode="symbol")
    assert len(symbol) == 200 and symbol[7].title == "f7"


# --------------------------------------------------------------------------- odd input

ODD_INPUTS = [
    "",
    "\n",
    "   \n\t\n",
    "x",
    "\ufeff",
    "\ufeffclass A {}\n",
    "class A {\n  void f() {\n",  # unclosed
    "}}}\n}\nint x;\n{{\n",  # unbalanced both ways
    'String s = "unterminated {\nint y = 1;\n',
    "/* unterminated comment {\nint z;\n",
    "`unterminated template ${ {\n",
    'r#"raw never closed {\n',
    "a\rb {\rc }\r",  # lone CR line endings
    "a\r\n{\r\n}\r\nb",  # CRLF, no final newline
    "\x00\x01\x02{\x7f}\xff\n\x00",
    "def f(:\n    pass\n\x00",
    "#if X\n{\n#else\n{\n#endif\n}\n",
    "<?php\n$a = <<<EOT\n{\n",
    "'\n'\n\"\n\"\n",
    "\u2028{\u2029}\x0c\n\x1c\x1d\x1e\x85",
]


@pytest.mark.parametrize(
    "language",
    [
        "python",
        "java",
        "javascript",
        "c",
        "cpp",
        "csharp",
        "go",
        "rust",
        "kotlin",
        "swift",
        "php",
        "typescript",
        "cobol",
    ],
)
def test_odd_inputs_never_raise_and_stay_exact(language):
    for text in ODD_INPUTS:
        for mode in ("pack", "symbol"):
            chunks = split(text, language=language, mode=mode, target_tokens=5, max_tokens=8)
            check(text, chunks, 8)


def test_binary_garbage_is_byte_exact():
    rnd = random.Random(7)
    for _ in range(20):
        text = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 3000))).decode("latin-1")
        for language in ("java", "javascript", "python", "php", "rust", "csharp", "swift"):
            check(text, split(text, language=language, target_tokens=50, max_tokens=80), 80)


def test_large_python_uses_indentation_path_with_same_symbols(monkeypatch):
    from ihmt.ingest.chunkers import python_splitter

    expected = [(c.title, c.extra) for c in split(PYTHON, language="python", mode="symbol")]
    monkeypatch.setattr(python_splitter, "AST_SIZE_LIMIT", 10)
    chunks = split(PYTHON, language="python", mode="symbol")
    check(PYTHON, chunks)
    got = [(c.title, c.extra) for c in chunks]
    assert [t for t in got if t[0]] == [t for t in expected if t[0]]


def test_internal_error_degrades_to_line_windows(monkeypatch):
    from ihmt.ingest.chunkers import code

    def boom(self):
        raise RuntimeError("bug")

    monkeypatch.setattr(code._Assembler, "run", boom)
    chunks = split_code(JAVA, language="java", target_tokens=50, max_tokens=80)
    check(JAVA, chunks, 80)
    assert len(chunks) > 1


def test_python_syntax_error_falls_back_safely():
    broken = PYTHON + "\nx = = 1\n\ndef after(y):\n    return y\n"
    chunks = split(broken, language="python", mode="symbol")
    check(broken, chunks)
    chunk_of(broken, chunks, _function_text(broken, "def top(a, b):", "python"))
    assert "function:after" in chunk_of(broken, chunks, "def after(y):\n    return y\n").tags
    m = next(c for c in chunks if "method:m" in c.tags)
    assert m.extra["context"] == "class Service(Base):"


def test_crlf_and_bom_keep_line_numbers():
    text = "\ufeff" + JAVA.replace("\n", "\r\n")
    chunks = split(text, language="java", mode="symbol")
    check(text, chunks)
    reserve = next(c for c in chunks if "method:reserveStock" in c.tags)
    assert (
        reserve.start_line
        == JAVA.splitlines().index("    /** Reserve stock; returns the reservation id. */") + 1
    )


def test_unknown_language_is_a_brace_language():
    text = 'object Main {\n  def run(): Unit = {\n    println("}")\n  }\n}\n'
    chunks = split(text, language="scala", mode="symbol")
    check(text, chunks)
    assert "lang:scala" in chunks[0].tags


def test_bad_mode_is_an_input_error():
    with pytest.raises(InputError):
        split("x", language="java", mode="lines")
    with pytest.raises(InputError):
        split("x", language="java", target_tokens=0)


def test_language_by_extension():
    expected = {
        ".py": "python", ".java": "java", ".js": "javascript", ".mjs": "javascript",
        ".cjs": "javascript", ".jsx": "javascript", ".ts": "typescript", ".tsx": "typescript",
        ".c": "c", ".h": "c", ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".hpp": "cpp",
        ".hh": "cpp", ".cs": "csharp", ".go": "go", ".rs": "rust", ".kt": "kotlin",
        ".kts": "kotlin", ".swift": "swift", ".php": "php",
    }  # fmt: skip
    assert LANGUAGE_BY_EXTENSION == expected


def test_one_megabyte_is_fast_and_deep_nesting_is_safe():
    text = JAVA * (1_000_000 // len(JAVA) + 1)
    chunks = split(text, language="java")  # speed is measured in benchmarks/, not asserted
    assert "".join(c.text for c in chunks) == text
    deep = "{" * 100_000 + "}" * 100_000 + "\nint x;\n"
    check(deep, split(deep, language="c", max_tokens=1000), 1000)
    nested = "class A {\n" * 3000 + "}\n" * 3000
    check(nested, split(nested, language="java", mode="symbol"))
    deep_py = "x = " + "(" * 5000 + ")" * 5000 + "\n"
    check(deep_py, split(deep_py, language="python"))


# --------------------------------------------------------------------------- property tests

LINE_ENDINGS = st.sampled_from(["\n", "\r\n", "\r", "mixed"])

BRACE_GRAMMAR = {
    "java": {
        "imports": [["import java.util.List;"], ["package com.example;"]],
        "stmts": [
            'String a = "}{";',
            "char c = '{';",
            "char q = '\\'';",
            "int x = 1; // }",
            "/* { */ int y = 2;",
            'String b = "\\"}";',
            "x = y / 2;",
        ],
        "block": ("if (x > {n}) {{", "}}"),
        "literal": [['String t = """', "}", "class Fake {", '    """;']],
        "func": [
            ["public int m{n}(int a) {{"],
            ["@Override", "public String m{n}() {{"],
            ["void m{n}(", "        int a,", "        String b) {{"],
        ],
        "func_close": "}}",
        "top_func": False,
        "class": [
            ["public class C{n} {{"],
            ["@Service", "final class C{n} extends B<String> {{"],
            ["interface I{n}", "{{"],
        ],
        "field": [
            "private int f{n} = 1;",
            'private String s{n} = "}}";',
            "static char c{n} = '{{';",
        ],
        "comments": [["// note }} {{"], ["/**", " * doc }} {{", " */"]],
        "top_stmts": [],
    },
    "javascript": {
        "imports": [["import {{ a }} from './a.js';"], ["const fs = require('fs');"]],
        "stmts": [
            'const a = "}{";',
            "const b = '{';",
            "const c = `${ {a: 1}.a }}}`;",
            "const r = /[{]/g;",
            "x = a / 2 / 3; // }",
            "const e = `${'}'}${\"{\"}`;",
            "/* { */ let z = 1;",
        ],
        "block": ("if (x > {n}) {{", "}}"),
        "literal": [["const t = `", "}", "function fake() {", "`;"]],
        "func": [
            ["function f{n}(a, b) {{"],
            ["async function f{n}() {{"],
            ["export function f{n}(", "  a,", "  b", ") {{"],
        ],
        "func_close": "}}",
        "top_func": True,
        "class": [["class C{n} {{"], ["export default class C{n} extends Base {{"]],
        "field": ["x{n} = 1;", "p{n} = '}}';"],
        "comments": [["// note }} {{"], ["/*", " }} {{", "*/"]],
        "top_stmts": ["const k{n} = 1;", "let s{n} = '}}'", "export default {{}};"],
    },
    "go": {
        "imports": [['import "fmt"'], ["import (", '\t"os"', '\t"strings"', ")"]],
        "stmts": ['a := "}{"', "r := '{'", "s := `}`", "_ = a // {", "/* } */ b := 2"],
        "block": ("if x > {n} {{", "}}"),
        "literal": [["t := `", "}", "func fake() {", "`"]],
        "func": [
            ["func f{n}(a int) int {{"],
            ["func (s *Svc) M{n}(ctx context.Context) error {{"],
            ["func f{n}(", "\ta int,", ") error {{"],
        ],
        "func_close": "}}",
        "top_func": True,
        "class": [["type T{n} struct {{"]],
        "field": ["A{n} int", 'B{n} string `json:"b}}"`'],
        "comments": [["// note }} {{"], ["/*", "}} {{", "*/"]],
        "top_stmts": ["var v{n} = 1", 'const k{n} = "}}"'],
    },
    "rust": {
        "imports": [["use std::collections::HashMap;"], ["use crate::x::{{a, b}};"], ["mod util;"]],
        "stmts": [
            'let a = "}{";',
            "let c = '{';",
            'let r = r#"}"#;',
            "let b = b'}';",
            "/* /* } */ */ let z = 1;",
            'let l: &\'static str = "x";',
        ],
        "block": ("if x > {n} {{", "}}"),
        "literal": [['let t = "', "}", "fn fake() {", '";']],
        "func": [
            ["fn f{n}<'a>(x: &'a str) -> &'a str {{"],
            ["#[inline]", "pub fn f{n}() {{"],
            ["pub async fn f{n}(", "    a: i32,", ") -> i32 {{"],
        ],
        "func_close": "}}",
        "top_func": True,
        "class": [["impl S{n} {{"], ["impl<T: Clone> Tr for S{n}<T> {{"], ["pub trait T{n} {{"]],
        "field": ["const K{n}: i32 = 1;", "type Out{n} = char;"],
        "comments": [["// note }} {{"], ["/* nested /* }} */", "{{ */"]],
        "top_stmts": ["static V{n}: i32 = 1;", 'const S{n}: &str = "}}";'],
    },
    "csharp": {
        "imports": [["using System;"], ["using static System.Math;"], ["namespace App.Core;"]],
        "stmts": [
            'var a = "}{";',
            "char c = '{';",
            'var v = @"}""{";',
            'var i = $"{x} }}{{ {(x ? "}" : "{")}";',
            "/* { */ int y = 2;",
            "int x = 1; // }",
        ],
        "block": ("if (x > {n}) {{", "}}"),
        "literal": [
            ['var t = """', "}", "class Fake {", '""";'],
            ['var v = @"', "}", "void F() {", '";'],
        ],
        "func": [
            ["public int M{n}(int a)", "{{"],
            ["[HttpGet]", "public string M{n}() {{"],
            ["void M{n}(", "    int a,", "    string b) {{"],
        ],
        "func_close": "}}",
        "top_func": False,
        "class": [
            ["public class C{n}", "{{"],
            ["[Serializable]", "internal sealed class C{n} : B<string> {{"],
            ["namespace N{n} {{"],
        ],
        "field": ["private int _f{n} = 1;", 'public string S{n} {{ get; set; }} = "}}";'],
        "comments": [["// note }} {{"], ["/// <summary>", "/// doc }}", "/// </summary>"]],
        "top_stmts": [],
    },
    "kotlin": {
        "imports": [["import kotlin.math.max"], ["package app.core"]],
        "stmts": [
            'val a = "}{"',
            "val c = '{'",
            'val t = "${m["}"]} {"',
            'val u = """ { """',
            "val r = xs.map { it + 1 }",
            "/* /* } */ */ val z = 1",
        ],
        "block": ("if (x > {n}) {{", "}}"),
        "literal": [['val t = """', "}", "fun fake() {", '"""']],
        "func": [
            ["fun f{n}(a: Int): Int {{"],
            ["@JvmStatic", "fun f{n}() {{"],
            ["suspend fun f{n}(", "    a: Int,", "): Int {{"],
        ],
        "func_close": "}}",
        "top_func": True,
        "class": [
            ["class C{n}(val a: Int) {{"],
            ["@Serializable", "data class D{n}(", "    val a: Int,", ") : Base() {{"],
            ["object O{n} {{"],
        ],
        "field": ["val f{n} = 1", 'var s{n}: String = "}}"'],
        "comments": [["// note }} {{"], ["/**", " * doc }} {{", " */"]],
        "top_stmts": ["val k{n} = 1", 'const val S{n} = "}}"'],
    },
    "swift": {
        "imports": [["import Foundation"], ["@testable import App"]],
        "stmts": [
            'let a = "}{"',
            'let s = "\\(d["}"]!) {"',
            'let r = #"}"#',
            "/* /* } */ */ let z = 1",
            'let c: Character = "{"',
        ],
        "block": ("if x > {n} {{", "}}"),
        "literal": [['let t = """', "}", "func fake() {", '"""']],
        "func": [
            ["func f{n}(a: Int) -> Int {{"],
            ["@objc", "func f{n}() {{"],
            ["init(a{n}: Int) {{"],
        ],
        "func_close": "}}",
        "top_func": True,
        "class": [["struct S{n} {{"], ["final class C{n}: Base {{"], ["extension S{n} {{"]],
        "field": ["var f{n} = 1", 'let s{n} = "}}"'],
        "comments": [["// note }} {{"], ["/* a", "}} {{ */"]],
        "top_stmts": ["let k{n} = 1"],
    },
    "php": {
        "imports": [["use App\\Models\\Order;"], ["namespace App;"], ["require_once 'x.php';"]],
        "stmts": [
            '$a = "}{";',
            "$b = '{';",
            "# comment {",
            '$c = "{$x}}";',
            "/* { */ $d = 1;",
            "// }",
        ],
        "block": ("if ($x > {n}) {{", "}}"),
        "literal": [["$t = <<<EOT", "}", "function fake() {", "EOT;"], ["$s = '", "}", "';"]],
        "func": [
            ["function f{n}($a) {{"],
            ["public static function f{n}(): int", "{{"],
            ["#[Attr]", "private function f{n}() {{"],
        ],
        "func_close": "}}",
        "top_func": True,
        "class": [
            ["class C{n}", "{{"],
            ["final class C{n} extends B implements I {{"],
            ["trait T{n} {{"],
        ],
        "field": ["private $f{n} = 1;", "const K{n} = '}}';"],
        "comments": [["// note }} {{"], ["# shell {{"], ["/**", " * doc }}", " */"]],
        "top_stmts": ["$k{n} = 1;", "define('X{n}', '}}');"],
        "prologue": ["<?php"],
    },
    "cpp": {
        "imports": [["#include <vector>"], ['#include "x.h"'], ["using namespace std;"]],
        "stmts": [
            'auto a = "}{";',
            "char c = '{';",
            'auto r = R"x(})x";',
            "int n = 1'000; // }",
            "/* { */ int y = 2;",
            "#define OPEN {",
        ],
        "block": ("if (x > {n}) {{", "}}"),
        "literal": [['auto t = R"(', "}", "int fake() {", ')";']],
        "func": [
            ["int f{n}(int a) {{"],
            ["template <class T>", "T f{n}(T a) {{"],
            ["static void", "f{n}(int a)", "{{"],
        ],
        "func_close": "}}",
        "top_func": True,
        "class": [["class C{n} : public B {{"], ["struct S{n} {{"], ["namespace n{n} {{"]],
        "class_close": "};",
        "field": ["int f{n} = 1;", "public:", "static constexpr char k{n} = '}}';"],
        "comments": [["// note }} {{"], ["/*", " }} {{", "*/"]],
        "top_stmts": ["int g{n} = 1;", "#define M{n} {{"],
    },
}


@st.composite
def brace_source(draw, language: str):
    """A random source file plus the line starts where no chunk may begin."""
    g = BRACE_GRAMMAR[language]
    counter = iter(range(10_000))
    fragments: list[tuple[list[str], set[int] | None]] = []  # (lines, allowed interior cuts)

    def fmt(line: str) -> str:
        return line.format(n=next(counter))

    def body(depth: int) -> list[str]:
        pad = "    " * depth
        lines: list[str] = []
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(["stmt", "stmt", "block", "literal", "comment", "blank"]))
            if kind == "stmt":
                lines.append(pad + draw(st.sampled_from(g["stmts"])))
            elif kind == "block" and depth < 4:
                opener, closer = g["block"]
                lines += [pad + fmt(opener), *body(depth + 1), pad + closer.format()]
            elif kind == "literal":
                lit = draw(st.sampled_from(g["literal"]))
                lines += [pad + lit[0], *lit[1:-1], pad + lit[-1]]  # inner lines at column 0
            elif kind == "comment":
                lines += [pad + c for c in draw(st.sampled_from(g["comments"]))]
            else:
                lines.append("")
        return lines

    def function(pad: str) -> list[str]:
        header = [pad + fmt(x) for x in draw(st.sampled_from(g["func"]))]
        return header + body(len(pad) // 4 + 1) + [pad + g["func_close"].format()]

    for _ in range(draw(st.integers(1, 7))):
        kind = draw(
            st.sampled_from(
                ["class", "class", "func", "comment", "blank", "import", "stmt", "literal"]
            )
        )
        if kind == "class":
            lines = [fmt(x) for x in draw(st.sampled_from(g["class"]))]
            allowed: set[int] = set()
            for _ in range(draw(st.integers(0, 5))):
                allowed.add(len(lines))
                member = draw(st.sampled_from(["method", "method", "field", "comment", "blank"]))
                if member == "method" and language != "go":
                    lines += function("    ")
                elif member in ("field", "method"):
                    lines.append("    " + fmt(draw(st.sampled_from(g["field"]))))
                elif member == "comment":  # a long comment run may be cut between lines
                    comment = draw(st.sampled_from(g["comments"]))
                    allowed |= set(range(len(lines), len(lines) + len(comment)))
                    lines += ["    " + c for c in comment]
                else:
                    lines.append("")
            allowed.add(len(lines))
            lines.append(g.get("class_close", "}"))
            fragments.append((lines, allowed))
        elif kind == "func" and g["top_func"]:
            fragments.append((function(""), set()))
        elif kind == "comment":  # comments are no block: a long run may be cut between lines
            comment = draw(st.sampled_from(g["comments"]))
            fragments.append((comment, set(range(len(comment)))))
        elif kind == "import":
            fragments.append(([fmt(x) for x in draw(st.sampled_from(g["imports"]))], set()))
        elif kind == "stmt" and g["top_stmts"]:
            fragments.append(([fmt(draw(st.sampled_from(g["top_stmts"])))], set()))
        elif kind == "literal" and g["top_func"]:
            lit = draw(st.sampled_from(g["literal"]))
            opener = "var " + lit[0].replace(":=", "=") if language == "go" else lit[0]
            fragments.append(([opener, *lit[1:]], set()))
        else:
            fragments.append(([""], set()))
    if "prologue" in g:
        fragments.insert(0, (g["prologue"], set()))
    return assemble(draw, fragments)


def trailing_blanks(lines: list[str]) -> set[int]:
    """Indices of the blank lines ending ``lines``: a cut before them is fine either way."""
    out = set()
    k = len(lines) - 1
    while k > 0 and not lines[k].strip():
        out.add(k)
        k -= 1
    return out


def assemble(draw, fragments):
    """Join fragments with random line endings; return (text, forbidden cut offsets)."""
    ending = draw(LINE_ENDINGS)
    lines: list[str] = []
    forbidden_lines: set[int] = set()
    for frag_lines, allowed in fragments:
        base = len(lines)
        last = max((k for k, line in enumerate(frag_lines) if line.strip()), default=0)
        for k in range(1, last + 1):  # trailing blank lines may go either way
            if allowed is None or k not in allowed:
                forbidden_lines.add(base + k)
        lines.extend(frag_lines)
    parts = []
    for line in lines:
        eol = draw(st.sampled_from(["\n", "\r\n"])) if ending == "mixed" else ending
        parts.append(line + eol)
    if draw(st.booleans()):
        parts[-1] = parts[-1].rstrip("\r\n") or parts[-1]
    if draw(st.integers(0, 9)) == 0:
        parts[0] = "\ufeff" + parts[0]
    offsets = []
    pos = 0
    for part in parts:
        offsets.append(pos)
        pos += len(part)
    text = "".join(parts)
    return text, {offsets[i] for i in forbidden_lines}


BUDGETS = st.sampled_from([(2000, 3000), (60, 90), (15, 25)])
MODES = st.sampled_from(["pack", "symbol"])
PROPERTY = settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def assert_respects_structure(text, forbidden, chunks, max_tokens):
    check(text, chunks, max_tokens)
    pos = 0
    for c in chunks[:-1]:
        pos += len(c.text)
        assert pos not in forbidden, (
            f"cut inside a block at offset {pos}: {text[pos - 40 : pos + 40]!r}"
        )


@pytest.mark.parametrize("language", sorted(BRACE_GRAMMAR))
def test_property_brace_languages(language):
    @PROPERTY
    @given(source=brace_source(language), budget=BUDGETS, mode=MODES)
    def run(source, budget, mode):
        text, forbidden = source
        target, max_tokens = budget
        chunks = split(
            text, language=language, target_tokens=target, max_tokens=max_tokens, mode=mode
        )
        assert_respects_structure(text, forbidden, chunks, max_tokens)

    run()


@st.composite
def python_source(draw):
    counter = iter(range(10_000))
    fragments: list[tuple[list[str], set[int] | None]] = []

    def body(depth: int) -> list[str]:
        pad = "    " * depth
        lines = [pad + "v = 0"]
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(["stmt", "block", "literal", "comment", "blank"]))
            if kind == "stmt":
                lines.append(
                    pad
                    + draw(
                        st.sampled_from(
                            ["x = {'}': 1}", "y = [1, '{']", "z = 1 + \\", "print(')')"]
                        )
                    )
                )
                if lines[-1].endswith("\\"):
                    lines.append(pad + "    2")
            elif kind == "block" and depth < 4:
                lines += [pad + f"if v > {next(counter)}:", *body(depth + 1)]
            elif kind == "literal":
                lines += [pad + 's = """', "def fake():", "class Fake:", '"""']
            elif kind == "comment":
                lines.append(pad + "# note: def x():")
            else:
                lines.append("")
        return lines

    def function(pad: str) -> list[str]:
        n = next(counter)
        header = draw(
            st.sampled_from(
                [
                    [f"def f{n}(a, b):"],
                    ["@decorator", f"def f{n}(self):"],
                    [f"async def f{n}(", "    a,", "):"],
                ]
            )
        )
        return [pad + h for h in header] + body(len(pad) // 4 + 1)

    for _ in range(draw(st.integers(1, 7))):
        kind = draw(
            st.sampled_from(["class", "func", "func", "comment", "blank", "import", "stmt"])
        )
        if kind == "class":
            lines = [f"class C{next(counter)}(Base):"]
            if draw(st.booleans()):
                lines.append('    """Doc { with braces."""')
            allowed: set[int] = set()
            for _ in range(draw(st.integers(1, 5))):
                allowed.add(len(lines))
                member = draw(st.sampled_from(["method", "method", "field", "comment", "blank"]))
                if member == "method":
                    lines += function("    ")
                elif member == "field":
                    lines.append(f"    f{next(counter)} = '}}'")
                elif member == "comment":
                    lines.append("    # member comment")
                else:
                    lines.append("")
                allowed |= trailing_blanks(lines)
            fragments.append((lines, allowed))
        elif kind == "func":
            fragments.append((function(""), set()))
        elif kind == "comment":
            fragments.append((["# top comment"], set()))
        elif kind == "import":
            fragments.append(([draw(st.sampled_from(["import os", "from a import b"]))], set()))
        elif kind == "stmt":
            fragments.append((["X = (1,", "     2)"], set()))
        else:
            fragments.append(([""], set()))
    if draw(st.integers(0, 3)) == 0:
        fragments.append((["x = = 1"], set()))  # syntax error: the lexer fallback path
    return assemble(draw, fragments)


@settings(PROPERTY, max_examples=80)
@given(source=python_source(), budget=BUDGETS, mode=MODES)
def test_property_python(source, budget, mode):
    text, forbidden = source
    target, max_tokens = budget
    chunks = split(text, language="python", target_tokens=target, max_tokens=max_tokens, mode=mode)
    assert_respects_structure(text, forbidden, chunks, max_tokens)


@settings(max_examples=80, deadline=None, database=None)
@given(
    text=st.text(
        alphabet=st.sampled_from(list("{}()[]\"'`/*#\\\n\r $@rR<?>;:.ab \t")), max_size=300
    ),
    language=st.sampled_from(sorted(SAMPLES)),
    mode=MODES,
)
def test_property_any_text_is_byte_exact(text, language, mode):
    chunks = split(text, language=language, mode=mode, target_tokens=10, max_tokens=15)
    check(text, chunks, 15)
