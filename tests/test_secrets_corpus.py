"""The detector over a labelled corpus (tests/secrets_corpus.py): recall and false-positive rate
stay within the bounds issue 20 set, and every regex is shaped so matching stays linear."""

from __future__ import annotations

import re
import re._constants as sre_c  # noqa: PLC2701 - the parsed form is the only way to inspect shape
import re._parser as sre_parse  # noqa: PLC2701

import pytest

from ihmt.privacy import secrets
from ihmt.privacy.secrets import find_secrets, redact
from tests.secrets_corpus import LOOKALIKES, SECRETS, measure
from tests.workcount import assert_linear


def test_corpus_is_large_enough() -> None:
    assert len(SECRETS) >= 60
    assert len(LOOKALIKES) >= 60
    assert all(value in text for text, value in SECRETS)


def test_recall_and_false_positive_rate(capsys: pytest.CaptureFixture[str]) -> None:
    score = measure()
    with capsys.disabled():
        print(
            f"\nsecrets corpus: recall {score.found}/{score.secrets} = {score.recall:.1%}, "
            f"false positives {score.flagged}/{score.lookalikes} = {score.false_positive_rate:.1%}"
        )
    assert score.recall >= 0.98, score.missed
    assert score.false_positive_rate <= 0.02, score.false_alarms


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the wifi password for the office is Tr0ub4dor&3x-Ab12", "Tr0ub4dor&3x-Ab12"),
        ("el password de la base de datos es Xk9#mPq2!vL", "Xk9#mPq2!vL"),
        ("la contraseña del router es Gato_Negro_77", "Gato_Negro_77"),
        ("mysql -uroot -pS3cr3tPw", "S3cr3tPw"),
        ("sshpass -p 'Zx9!qwe12' ssh deploy@host", "Zx9!qwe12"),
        ("postgres://app:pa#ss!w0rd@db:5432/app", "pa#ss!w0rd"),
    ],
)
def test_issue_20_misses_are_found_exactly(text: str, value: str) -> None:
    assert [text[f.start : f.end] for f in find_secrets(text)] == [value]


def test_documented_aws_example_pair_is_treated_alike() -> None:
    key_id = "aws_access_key_id = AKIAIOSFODNN7EXAMPLE"
    secret = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    assert find_secrets(key_id) == [] and find_secrets(secret) == []


def test_port_and_prompt_flags_are_not_passwords() -> None:
    for text in ("ssh -p 2222 host", "psql -p 5432 -h db", "mysql -p", "mysql -u root -p shop"):
        assert find_secrets(text) == [], text


def test_command_line_redaction_keeps_the_command() -> None:
    redacted, _ = redact("mysql -uroot -pS3cr3tPw shop && curl -u ci:Lm9x2Qpz7 https://ci")
    assert redacted == (
        "mysql -uroot -p[REDACTED:password on a command line] shop && "
        "curl -u ci:[REDACTED:password on a command line] https://ci"
    )


# -- linear time, checked on the shape of every regex instead of with a clock -------------------


def _patterns() -> list[re.Pattern[str] | re.Pattern[bytes]]:
    found = [v for v in vars(secrets).values() if isinstance(v, re.Pattern)]
    found += [rule.regex for rule in secrets._VENDOR_RULES]
    return found


def _repeats(node: sre_parse.SubPattern) -> list[tuple[int, sre_parse.SubPattern]]:
    """(max count, body) of each choice point directly or indirectly inside ``node``: every
    repetition, and every alternation as a choice made once."""
    out = []
    for op, av in node.data if hasattr(node, "data") else node:
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT):
            out.append((av[1], av[2]))
            out += _repeats(av[2])
        elif op in (sre_c.SUBPATTERN, sre_c.ATOMIC_GROUP):
            out += _repeats(av[-1])
        elif op == sre_c.BRANCH:
            out.append((1, av[1]))
            for branch in av[1]:
                out += _repeats(branch)
        elif op in (sre_c.ASSERT, sre_c.ASSERT_NOT):
            out += _repeats(av[1])
    return out


def _first_chars(body: sre_parse.SubPattern) -> set[int] | None:
    """Code points a round of ``body`` must start with, when it starts with a literal or a set of
    literals, else None."""
    op, av = body.data[0]
    if op == sre_c.LITERAL:
        return {av}
    if op == sre_c.IN and all(o == sre_c.LITERAL for o, _ in av):
        return {a for _, a in av}
    return None


def _in_set(items: list, c: int) -> bool:
    ch, hit, negate = chr(c), False, False
    for op, av in items:
        if op == sre_c.NEGATE:
            negate = True
        elif op == sre_c.LITERAL:
            hit |= av == c
        elif op == sre_c.RANGE:
            hit |= av[0] <= c <= av[1]
        elif op == sre_c.CATEGORY:
            name = str(av)
            test = (
                ch.isdigit()
                if "DIGIT" in name
                else ch.isspace()
                if "SPACE" in name
                else (ch.isalnum() or ch == "_")
            )
            hit |= test != ("NOT" in name)
        else:
            hit = True  # unknown item: assume it matches
    return hit != negate


def _may_match(node, c: int) -> bool:
    """Whether any single-character element anywhere in ``node`` could match ``c``."""
    for op, av in node.data if hasattr(node, "data") else node:
        if op == sre_c.LITERAL and av == c:
            return True
        if op == sre_c.NOT_LITERAL and av != c:
            return True
        if op == sre_c.ANY or (op == sre_c.IN and _in_set(av, c)):
            return True
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT):
            children = [av[2]]
        elif op in (sre_c.SUBPATTERN, sre_c.ATOMIC_GROUP):
            children = [av[-1]]
        elif op == sre_c.BRANCH:
            children = av[1]
        elif op in (sre_c.ASSERT, sre_c.ASSERT_NOT):
            children = [av[1]]
        else:
            children = []
        if any(_may_match(child, c) for child in children):
            return True
    return False


def _risky_nesting(pattern: re.Pattern[str] | re.Pattern[bytes]) -> list[str]:
    """Repetitions (more than once) holding another repetition or an alternation, unless each
    round starts with a separator that nothing else in the round can match (`(?:-[a-z]+)*`). Only with that shape does
    a string split into rounds one way, so the engine never tries exponentially many splits."""
    bad = []
    for max_count, body in _repeats(sre_parse.parse(pattern.pattern, pattern.flags)):
        if max_count <= 1 or not hasattr(body, "data") or not _repeats(body):
            continue
        first = _first_chars(body)
        rest = sre_parse.SubPattern(body.state, body.data[1:])
        if first and not any(_may_match(rest, c) for c in first):
            continue
        bad.append(f"{pattern.pattern!r}")
    return bad


def test_no_regex_nests_repetitions_ambiguously() -> None:
    patterns = _patterns()
    assert len(patterns) > 30  # the walk sees the module's patterns
    assert [bad for p in patterns for bad in _risky_nesting(p)] == []


def test_the_nesting_check_catches_the_classic_shapes() -> None:
    for source in (r"(a+)+b", r"(?:\w+\s?)*$", r"(?:[ \t]+\w{1,20}){0,6}", r"(x|xy){2,}z"):
        assert _risky_nesting(re.compile(source)), source
    for source in (r"[a-z]+(?:-[a-z]+)*", r"(?:_[A-Z0-9]+)+", r"(?:ab)+", r"a{2,5}"):
        assert not _risky_nesting(re.compile(source)), source


@pytest.mark.parametrize(
    ("head", "unit", "tail"),
    [
        ("", "password for the ", ""),
        ("", "la contraseña de la ", ""),
        ("", "password is ", ""),
        ("", "mysql -p", ""),
        ("", "curl -u a:b ", ""),
        ("mysql ", "'x", ""),
        ("htpasswd -b ", "a ", ""),
        ("", "--password ", ""),
        ("", "/mysql", " -pS3cr3tPw"),
        ("", "https://h/curl ", ""),
        ("postgres://u:", "p@", ""),
        ("secret ", "VGhpcyBpcyBqdXN0IGEgdGVzdA== ", ""),
    ],
    ids=lambda t: repr(t[:14]),
)
def test_hostile_inputs_for_the_new_scanners_cost_linear_work(head, unit, tail) -> None:
    """The shape check above rules out backtracking inside one regex; this counts the rest
    (Python lines and regex positions, tests/workcount.py): 4x the text, about 4x the work."""
    k = 6_000 // len(unit)
    text = head + unit * 4 * k + tail
    findings = assert_linear(lambda n: head + unit * n + tail, find_secrets, k)
    for f in findings:
        assert 0 <= f.start < f.end <= len(text)
