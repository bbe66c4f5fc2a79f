"""Code-aware ranking for find_code: which leaves may answer (scope, subpath) and how BM25
scores are re-weighted once the candidates are known.

The search engine stays generic; it accepts ``leaf_filter(ref) -> bool`` (applied during the
descent) and ``boost(ref, score) -> score`` (applied before judging). Everything here works on
a leaf reference's ``source`` (the file's path relative to the project root) and ``tags``, so
no leaf is opened to decide.

Rules, all general (none knows a particular project):
- scope "main" drops test files, "test" keeps only them, "all" keeps everything;
- subpath keeps files under one folder (or one file);
- a file the query names ("sessions.py", or its stem "sessions") gets x2;
- a symbol whose name holds every word of the query ("merge_setting", "resolve redirects",
  "HTTPAdapter send" -> HTTPAdapter.send) is what the query names: x8, a tier above the
  places that merely call it or mention the words in a docstring; a name that holds some of
  the words gets x(1 + how many), each word weighted by its rarity in the project (its IDF
  over the average), so holding "lazily" (LazyFile) says more than holding "file"; a word
  counts through an inflection, a run-together spelling or an abbreviation
  ("resolved" -> resolve_redirects, "progress bar" -> progressbar, "environment
  variable" -> envvar; see naming.py), since the tokenizer does not stem;
- a query word the leaf holds only in another inflection ("quotes" in needsQuoting's
  "quote", "quoting") adds to the score: x(1 + 2 x the share of the query's weight held so);
- a function or method longer than the average gets up to x2 (x sqrt(length / average)):
  BM25's length normalization is tuned for prose, where a long passage is diluted; in code
  the long methods (send, request, the main loop) are often the ones asked about, and
  without this they rank below every short helper that mentions the same words once. A
  long class header or struct is long because it lists fields, so it gets no such lift;
- test files get x0.5 unless the query asks for tests;
- code set aside from the library (examples, demos, docs, benchmarks, deprecated or legacy
  folders) gets x0.5 unless the query names that kind of folder: a question about what the
  code does wants the implementation, not a sample that calls it or a retired copy of it;
- a leaf that only holds import lines gets x0.3 (it mentions everything, defines nothing);
- a declaration with no behaviour of its own (a type alias, a Go non-struct type, a top-level
  const or var: the chunker tags it "declaration") gets x0.7: it is short, so BM25 ranks it
  high for the words it shares with the code that uses it, while questions mostly ask what
  that code does;
(Docs and config files are listed by project_map but not searched: find_code answers with
code. So are Python stubs beside their implementation, see shadowed_stubs.)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import PurePosixPath

from .. import re_cache
from .naming import Groups, name_coverage, query_words, word_variants

__all__ = [
    "Groups",
    "asks_for_tests",
    "code_boost",
    "is_aside_path",
    "is_test_path",
    "name_coverage",
    "named_files",
    "normalize_scope",
    "normalize_subpath",
    "query_words",
    "scope_filter",
    "shadowed_stubs",
    "symbol_name",
    "under",
    "word_variants",
]

SCOPES = ("main", "test", "all")
NAMED_FILE_BOOST = 2.0
FULL_NAME_BOOST = 8.0
MAX_LENGTH_BOOST = 2.0
TEST_FACTOR = 0.5
IMPORTS_FACTOR = 0.3
DECLARATION_FACTOR = 0.7
INFLECTION_WEIGHT = 2.0

# Tags that name what a leaf defines (see the chunkers): method:NAME, function:NAME, ...
SYMBOL_KINDS = ("method", "function", "class", "const", "var")
BEHAVIOUR_KINDS = ("method", "function")
ASIDE_FACTOR = 0.5
ASIDE_DIRS = {
    "example", "examples", "sample", "samples", "demo", "demos", "doc", "docs",
    "benchmark", "benchmarks", "bench", "deprecated", "legacy",
}  # fmt: skip
TEST_DIRS = {"test", "tests", "__tests__", "spec", "specs"}
TEST_WORDS = {"test", "tests", "testing", "spec", "specs", "prueba", "pruebas"}
_TEST_NAME = re_cache.compile(
    r"""^(?:test_.+\.py|.+_test\.py|conftest\.py
        |.+_test\.go
        |.+(?:Test|Tests|IT)\.(?:java|kt|scala|groovy)
        |.+Tests?\.(?:cs|php|swift)
        |.+\.(?:test|spec)\.(?:[cm]?[jt]sx?)
        |.+_spec\.rb|test_.+\.(?:c|cpp|rs|rb)
        )$""",
    re.X,
)
# Files whose stem is a packaging convention, not a topic: only their full name counts as
# naming them ("index.ts"), since "__init__" or "index" in a query usually means a symbol
# (and "tests" in a query asks for tests, see TEST_WORDS).
_CONVENTION_STEMS = {"__init__", "__main__", "index", "mod", "main", "lib"}
_WORD = re_cache.compile(r"[\w.\-/]+")


def normalize_scope(scope: str | None) -> str:
    value = (scope or "main").strip().lower()
    if value not in SCOPES:
        from ..errors import InputError

        raise InputError(f"scope must be one of {', '.join(SCOPES)}, not {str(scope)[:40]!r}")
    return value


def normalize_subpath(subpath: str | None) -> str:
    """'./src/app/' -> 'src/app'; '' means the whole project."""
    value = (subpath or "").strip().replace("\\", "/")
    while value.startswith("./"):
        value = value[2:]
    value = value.strip("/")
    return "" if value in ("", ".") else value


def under(rel: str, subpath: str) -> bool:
    return not subpath or rel == subpath or rel.startswith(subpath + "/")


def is_test_path(rel: str) -> bool:
    """True for files that hold tests, by the conventions of the common test runners."""
    parts = rel.replace("\\", "/").split("/")
    if any(part.lower() in TEST_DIRS for part in parts[:-1]):
        return True
    return bool(_TEST_NAME.match(parts[-1]))


def aside_folders(rel: str) -> set[str]:
    """The set-aside folders (see ASIDE_DIRS) on a file's path: 'examples/a/b.py' -> examples."""
    return {part.lower() for part in rel.split("/")[:-1]} & ASIDE_DIRS


def is_aside_path(rel: str) -> bool:
    return bool(aside_folders(rel))


def asks_for_aside(query: str) -> set[str]:
    """The set-aside folders a query names ("the example for...", "deprecated API")."""
    words = {w.lower() for w in re.findall(r"[^\W_]+", query or "")}
    words |= {v for w in words for v in word_variants(w)}
    return words & ASIDE_DIRS


def asks_for_tests(query: str) -> bool:
    words = {w.lower() for w in re.findall(r"[^\W_]+", query or "")}
    return bool(words & TEST_WORDS)


def named_files(query: str, paths: Iterable[str]) -> set[str]:
    """Paths the query names: by full name ("sessions.py"), by a path tail
    ("requests/sessions.py") or by stem ("sessions")."""
    words = {w.strip(".-/").lower() for w in _WORD.findall(query or "")}
    words.discard("")
    if not words:
        return set()
    out = set()
    for rel in paths:
        pure = PurePosixPath(rel)
        name, stem = pure.name.lower(), pure.stem.lower()
        low = rel.lower()
        if name in words or (
            len(stem) >= 3
            and stem not in _CONVENTION_STEMS
            and stem not in TEST_WORDS
            and stem in words
        ):
            out.add(rel)
            continue
        if any("/" in w and (low == w or low.endswith("/" + w)) for w in words):
            out.add(rel)
    return out


def shadowed_stubs(paths: Iterable[str]) -> frozenset[str]:
    """Python stub files (``x.pyi``) whose implementation (``x.py``) sits beside them. They
    repeat every signature without a body, so find_code skips them (the map still lists
    them); a stub with no ``.py`` beside it (a compiled module's types) stays searchable."""
    known = set(paths)
    return frozenset(
        rel for rel in known if rel.endswith(".pyi") and rel[: -len(".pyi")] + ".py" in known
    )


def scope_filter(
    scope: str, subpath: str = "", skip: frozenset[str] = frozenset()
) -> Callable[[dict], bool]:
    """The leaf_filter for a scope and a path prefix (both already normalized); files in
    ``skip`` are never searched."""

    def keep(ref: dict) -> bool:
        rel = ref.get("source", "")
        if rel in skip or not under(rel, subpath):
            return False
        if scope == "all":
            return True
        return is_test_path(rel) == (scope == "test")

    return keep


def symbol_name(ref: dict, aliases: dict[str, str] | None = None) -> str:
    """The symbol a leaf defines ("Session.send"), or "" for anonymous code.

    A leaf's title is its symbol only when a method:/function:/class: tag carries the same
    name; otherwise it is just its first line. ``aliases`` names the untitled continuation
    leaves of a symbol the chunker split (see manifest.symbols_of)."""
    title = ref.get("title") or ""
    last = title.rpartition(".")[2]
    for tag in ref.get("tags") or ():
        kind, _, value = tag.partition(":")
        if value == last and kind in SYMBOL_KINDS:
            return title
    return (aliases or {}).get(ref.get("id", ""), "")


def _defines_behaviour(tags: list[str]) -> bool:
    """A function or a method: code that does something, as opposed to a class header, a
    struct or interface, a declaration or an import block."""
    return any(t.partition(":")[0] in BEHAVIOUR_KINDS for t in tags)


def _inflection_share(ref: dict, wanted: Groups) -> float:
    """Share of the query's words (by weight) that the leaf holds only in another
    inflection ("quotes" -> quote, quoting). The full-text BM25 is exact, so these words
    scored nothing there; adding the inflections to the BM25 query instead measured worse
    (a common word's forms add up to more than the word)."""
    tf = ref.get("tf") or {}
    total = sum(c.weight for c in wanted)
    if not tf or total <= 0:
        return 0.0
    only = sum(c.weight for c in wanted if c.word not in tf and any(f in tf for f in c.forms))
    return only / total


def code_boost(
    query: str,
    named: set[str],
    aliases: dict[str, str] | None = None,
    avgdl: float = 0.0,
    groups: Groups | None = None,
) -> Callable[[dict, float], float]:
    """The boost(ref, score) that applies the rules in the module docstring; ``avgdl`` is
    the store's average leaf length (0 turns the length rule off), ``groups`` the query's
    words with their variants (default: the words alone)."""
    wants_tests = asks_for_tests(query)
    wants_aside = asks_for_aside(query)
    wanted = groups if groups is not None else query_words(query)

    def boost(ref: dict, score: float) -> float:
        rel = ref.get("source", "")
        tags = ref.get("tags") or []
        if rel in named:
            score *= NAMED_FILE_BOOST
        score *= 1.0 + INFLECTION_WEIGHT * _inflection_share(ref, wanted)
        cover = name_coverage(wanted, symbol_name(ref, aliases))
        if cover >= 1.0:
            score *= FULL_NAME_BOOST
        else:  # 1 + how many of the query's words the name holds, each weighted by rarity
            score *= 1.0 + cover * len(wanted)
        if avgdl > 0 and ref.get("dl", 0) > avgdl and _defines_behaviour(tags):
            score *= min(MAX_LENGTH_BOOST, (ref["dl"] / avgdl) ** 0.5)
        if not wants_tests and is_test_path(rel):
            score *= TEST_FACTOR
        aside = aside_folders(rel)
        if aside and not (aside & wants_aside):
            score *= ASIDE_FACTOR
        if "declaration" in tags:
            score *= DECLARATION_FACTOR
        if "imports" in tags and not any(t.partition(":")[0] in SYMBOL_KINDS for t in tags):
            score *= IMPORTS_FACTOR
        return score

    return boost
