"""Which lines of a symbol too long for max_tokens find_code shows (ihmt/projects/excerpt.py)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt.projects.excerpt import excerpt
from ihmt.projects.index import ProjectIndex
from ihmt.projects.naming import query_words
from ihmt.projects.render import render_code_answer

MARKER = re.compile(r"^\s*… lines (\d+)-(\d+) not shown …$")


def long_function(middle: str) -> str:
    before = "".join(f"    a_{i} = prepare(a_{i - 1})\n" for i in range(1, 60))
    after = "".join(f"    b_{i} = finish(b_{i - 1})\n" for i in range(1, 60))
    return f"def run(job):\n    '''Run a job.'''\n{before}{middle}{after}    return job\n"


def check_lines(code: str, cut, start_line: int) -> None:
    """Every shown line is the file's line at its place; markers name exactly the gaps."""
    source = code.splitlines()
    line_no = start_line
    for text in cut.code.splitlines():
        gap = MARKER.match(text)
        if gap:
            assert int(gap.group(1)) == line_no
            line_no = int(gap.group(2)) + 1
            continue
        assert text == source[line_no - start_line]
        line_no += 1


def test_the_stretch_that_holds_the_question_is_shown_after_the_signature():
    middle = "    if retries > limit:\n        raise BackoffExhausted(retries)\n"
    code = long_function(middle)
    cut = excerpt(code, 100, 600, query_words("backoff exhausted retries"))
    shown = cut.code.splitlines()
    assert shown[0] == "def run(job):"
    assert "raise BackoffExhausted(retries)" in cut.code
    assert len(cut.hidden) == 2 and cut.hidden[0][0] == 101  # the line after the signature
    assert cut.hidden[-1][1] == 100 + len(code.splitlines()) - 1
    assert len(cut.code) <= 600
    check_lines(code, cut, 100)


def test_a_question_about_the_top_or_about_nothing_shown_is_the_plain_cut():
    code = long_function("")
    for words in ("run job prepare", "unrelated words"):
        cut = excerpt(code, 1, 400, query_words(words))
        assert cut.code.startswith("def run(job):\n    '''Run a job.'''\n")
        assert len(cut.hidden) == 1 and cut.hidden[0] == (cut.last_shown + 1, 121)
        check_lines(code, cut, 1)


def test_a_long_leading_comment_is_left_out_with_the_rest():
    lead = "".join(f"// note {i}\n" for i in range(10))
    body = "".join(f"  step{i}();\n" for i in range(80))
    code = f"{lead}export function main() {{\n{body}  finalizeCache();\n}}\n"
    cut = excerpt(code, 1, 300, query_words("finalize cache"))
    assert cut.code.splitlines()[1] == "export function main() {"
    assert cut.hidden[0] == (1, 10) and "finalizeCache();" in cut.code
    check_lines(code, cut, 1)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["x = 1", "    retry(x)", "", "    # cache", "  y = z"]), max_size=80),
    st.integers(min_value=40, max_value=900),
    st.sampled_from(["retry cache", "x", "nothing"]),
)
def test_any_cut_shows_real_lines_in_order_within_the_limit(body, limit, words):
    code = "def f():\n" + "".join(line + "\n" for line in body)
    cut = excerpt(code, 7, limit, query_words(words))
    check_lines(code, cut, 7)
    assert len(cut.code) <= max(limit, len(code.splitlines(keepends=True)[0]))


def test_find_code_shows_the_matching_stretch_and_lists_what_it_left_out(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    middle = "    if retries > limit:\n        raise BackoffExhausted(retries)\n"
    (root / "jobs.py").write_text(long_function(middle), encoding="utf-8")
    ix = ProjectIndex(root, tmp_path / "p")
    answer = ix.find_code("where is BackoffExhausted raised for a run", max_tokens=200)
    snip = answer.snippets[0]
    assert snip.title == "run" and "raise BackoffExhausted" in snip.code
    text = render_code_answer(answer)
    ranges = ", ".join(f"{a}-{b}" for a, b in snip.hidden)
    assert f"lines {ranges} not shown" in text and "not shown …" in text
    ix.close()
