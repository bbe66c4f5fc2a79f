"""Credential detection: every fake secret found with the right kind and offsets, look-alikes left
alone, redaction that never leaks a value, and robustness on hostile input.

All secrets below are random fakes. Each is assembled at import time by ``_fake`` from a prefix
and a body, so this file never contains a complete token for repository secret scanners to trip
on (implicit string concatenation would not do: the formatter joins adjacent literals).
"""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt.errors import InputError
from ihmt.privacy.secrets import SecretFinding, describe, find_secrets, redact
from tests.workcount import assert_linear


def _fake(*parts: str) -> str:
    return "".join(parts)


def _pem(label: str, *body: str) -> str:
    kind = _fake(label, " PRIVATE ", "KEY", " BLOCK" if label == "PGP" else "")
    return "\n".join([f"-----BEGIN {kind}-----", *body, f"-----END {kind}-----"])


RSA_BLOCK = _pem(
    "RSA",
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK",
    "LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo",
)
OPENSSH_BLOCK = _pem(
    "OPENSSH",
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
    "QyNTUxOQAAACDcP2Jx8Xr9vK3mQa7Tn0yWz1LbE5uH4sR6dG2fV8cIkAAAAJg8sF1PPLBd",
)
EC_BLOCK = _pem(
    "EC",
    "MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oBqMzS0Vm7ZQoAoGCCqGSM49",
    "AwEHoUQDQgAEx6XhA7pxS2ZlPLd6cNsxH3xVq0x0bAvbI0s2b6PqkB9Wg2h7uN3r",
)
PGP_BLOCK = _pem(
    "PGP", "", "lQOYBGZ1xQkBCADKq3v9Wm2pR7sT4nY8uB1cD6eF0gH3iJ5kL7mN9oP2qR4sT6uV", "=Xy9Q"
)
JWT = _fake(
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
    ".eyJzdWIiOiIxMDI5Mzg0NzU2IiwibmFtZSI6IkFuYSBSdWl6IiwiaWF0IjoxNzE4MDAwMDAwfQ",
    ".IOdZh-NRwhUTv3L-Smo927U2aT1yVPMm5nYtffRcvy0",
)
AWS_ID = _fake("AKIA", "VQJXXVBOTHD0WTFL")
AWS_TEMP_ID = _fake("ASIA", "HBMUAPTT0ZN3X0PD")
AWS_SECRET = "HVJWDBt2hWdQZUm14QhoxhLPAbQcEFUV2fsjGHb6"
GH_CLASSIC = _fake("ghp", "_qN9Nifp28uwCDydesokF5NSAllsNdV40J599")
GH_OAUTH = _fake("gho", "_dTCZWZYvRSZeyx4Ag8SsaxTmknuj64AX6VM2")
GH_FINE = _fake(
    "github_pat",
    "_ewMuBY6rfNcAKEIOUttYpA_TIk27f4t3tGolUByxRmXBYQ0DVbpag1xYKiuMw7TpHD8BHbNdZU0NYJ2gCl",
)
GITLAB = _fake("glpat", "-deJg1Kza5KxxGWfvmaQt")
SLACK = _fake("xoxb", "-418575545326-9529407561366-4q60sskDI1EDL0Y6wu1JOSNt")
SLACK_HOOK = _fake(
    "https://hooks.slack", ".com/services/TAHEAKA90A/BTZL8RTFKBH2/de2wioVMEuUYMjPeFXsRgZzC"
)
STRIPE_LIVE = _fake("sk_live", "_YTHY2IvGYF0eYF2ExFJgKLDL")
STRIPE_RESTRICTED = _fake("rk_live", "_36awmUDt8QvwTH6Iuj2OkDCJ")
STRIPE_TEST = _fake("sk_test", "_23VmCwykTp4EilsS2aQnjUHc")
OPENAI_PROJ = _fake(
    "sk-proj",
    "-6e9cpCGybY9lMR4pAwBp3GVy1PixOqoRGrB5Vpg5C6QsyHZytfqY6K1Qjah4dXd3eOa1Zcc_a4CgOFfq",
    "Rgz7IhYePP2lny2pg17-dUM2jNKogorTAuRVpQ09oiVeZWJ9QyucS19AvMp2gUAeSsUfFgUl8oPK",
)
OPENAI_LEGACY = _fake("sk", "-FqrLtCCuFVpoDCIb20W0T3BlbkFJtvi1jsmCaDAoZuSEyDvv")
ANTHROPIC = _fake(
    "sk-ant",
    "-api03-Hy2Yp-ptzsJqLOJqu3g9DYpQaxEN-cNljiRkV71kDRuIr2jhTxs-OHKDpnJh_rgiOaPq_N9Rtln",
    "nudSkpmKog0Qwp_vaQ-7bMwND-AbC9xQ",
)
GOOGLE = _fake("AIza", "Syxl2cwC6dT0ctPVnaawqrczLJWImKMG4hE")
TWILIO = _fake("SK", "bb7a7af3d2e2425ba9682170905f4ec5")
SENDGRID = _fake("SG", ".QmLL8ZrF8w50SR2Qugs4lI.FVRdxtDyKUOtfZUTqr8aFvnKbnHFbDfj3u-ypO09RnK")
NPM = _fake("npm", "_WlY8A1myEVIR6LFYhOTduCDuaOHZgO3IwAwu")
PYPI = _fake(
    "pypi",
    "-AgEIcHlwaS5vcmcCJDkzfR1wKbPXTXx8TTx4XUMGmTtfc6y-xI25MTL3xzfMg5lJYj-loHI3Yhc1OxT_8QY4",
    "_3BMDogiSTRIiP9LJm7R04ZhbGSdGWoZ6axl7KBGgMVGOYn7B3-5SA",
)
HUGGING_FACE = _fake("hf", "_hSzLYyVcpFRSAGYbIjBkadIitKVtkpkmCm")
BASIC = base64.b64encode(b"deploy:Zq8w!Lm3xT").decode()

# (text, expected kind, exact secret value as it appears in the text)
CORPUS: list[tuple[str, str, str]] = [
    (f"aws_access_key_id = {AWS_ID}\n", "AWS access key", AWS_ID),
    (f"temporary creds in the CI log: {AWS_TEMP_ID} (rotated)", "AWS access key", AWS_TEMP_ID),
    (f"[default]\naws_secret_access_key = {AWS_SECRET}\n", "AWS secret access key", AWS_SECRET),
    (
        f"git remote set-url origin https://x:{GH_CLASSIC}@github.com/a/b",
        "GitHub token",
        GH_CLASSIC,
    ),
    (f"oauth token {GH_OAUTH} expires in a week", "GitHub token", GH_OAUTH),
    (f"use {GH_FINE} for the bot", "GitHub token", GH_FINE),
    (
        f"curl --header 'PRIVATE-TOKEN: {GITLAB}' https://gitlab.example.org/api/v4",
        "GitLab token",
        GITLAB,
    ),
    (f'SLACK_BOT_TOKEN="{SLACK}"', "Slack token", SLACK),
    (f"alerts go to {SLACK_HOOK} now", "Slack webhook URL", SLACK_HOOK),
    (f"stripe.api_key = '{STRIPE_LIVE}'", "Stripe key", STRIPE_LIVE),
    (f"restricted key: {STRIPE_RESTRICTED}", "Stripe key", STRIPE_RESTRICTED),
    (f"STRIPE_TEST={STRIPE_TEST}", "Stripe key", STRIPE_TEST),
    (f'{{"openai": "{OPENAI_PROJ}"}}', "OpenAI API key", OPENAI_PROJ),
    (f"old key {OPENAI_LEGACY} still works", "OpenAI API key", OPENAI_LEGACY),
    (f"export ANTHROPIC_API_KEY={ANTHROPIC}\n", "Anthropic API key", ANTHROPIC),
    (
        f'<script src="https://maps.googleapis.com/maps/api/js?callback=init&k={GOOGLE}"></script>',
        "Google API key",
        GOOGLE,
    ),
    (f"twilio api key {TWILIO} for sms", "Twilio API key", TWILIO),
    (f"mail via {SENDGRID} ok", "SendGrid API key", SENDGRID),
    (f"//registry.npmjs.org/:_authToken={NPM}\n", "npm token", NPM),
    (f"[pypi]\n  username = __token__\n  password = {PYPI}\n", "PyPI token", PYPI),
    (f"huggingface-cli login --token {HUGGING_FACE}", "Hugging Face token", HUGGING_FACE),
    (f"deploy key:\n{RSA_BLOCK}\nthanks", "private key block", RSA_BLOCK),
    (f"{OPENSSH_BLOCK}\n", "private key block", OPENSSH_BLOCK),
    (f"key.pem\n\n{EC_BLOCK}", "private key block", EC_BLOCK),
    (f"gpg --export-secret-keys gives\n{PGP_BLOCK}\n", "private key block", PGP_BLOCK),
    (
        '{"private_key": "' + RSA_BLOCK.replace("\n", "\\n") + '\\n", "type": "service_account"}',
        "private key block",
        RSA_BLOCK.replace("\n", "\\n"),
    ),
    (f"Authorization: Bearer {JWT}", "JWT", JWT),
    (f"session cookie was {JWT}; expired", "JWT", JWT),
    (
        "DATABASE_URL=postgres://app:Dxo5pCJFz2B3x@db.internal:5432/app",
        "password in connection string",
        "Dxo5pCJFz2B3x",
    ),
    (
        "mysql://root:0M8KVM!w8MDaD3@127.0.0.1:3306/shop",
        "password in connection string",
        "0M8KVM!w8MDaD3",
    ),
    (
        'MONGO_URI="mongodb+srv://ana:vSS1Mmn7q_Oiqh@cluster0.ab1cd.mongodb.net/test"',
        "password in connection string",
        "vSS1Mmn7q_Oiqh",
    ),
    (
        "cache at redis://:aD7XBPgUbq2R@cache:6379/0",
        "password in connection string",
        "aD7XBPgUbq2R",
    ),
    (
        "broker amqp://guest:b*wXOq43IedbtW@rabbit//",
        "password in connection string",
        "b*wXOq43IedbtW",
    ),
    (
        "pip install --index-url https://deploy:e27WH77hBlyqz@pypi.corp.local/simple pkg",
        "password in connection string",
        "e27WH77hBlyqz",
    ),
    ('password = "hunter2xyz"\n', "password assignment", "hunter2xyz"),
    ("DB_PASSWORD=supersecretvalue\nDB_HOST=db\n", "password assignment", "supersecretvalue"),
    ("PGPASSWORD=9PNldsWhX-K6 psql -h db", "password assignment", "9PNldsWhX-K6"),
    ('{"user": "ana", "api_key": "4Vt^GHZA2*PQLU"}', "generic secret assignment", "4Vt^GHZA2*PQLU"),
    (
        "auth:\n  token: Pxg3zTXD09lq9oC26U6j6mfVGMIQ02LbFzBhSPsY\n",
        "generic secret assignment",
        "Pxg3zTXD09lq9oC26U6j6mfVGMIQ02LbFzBhSPsY",
    ),
    ("contraseña: Perro2024!", "password assignment", "Perro2024!"),
    ("the wifi password is Tr0ub4dor&3 btw", "password in text", "Tr0ub4dor&3"),
    ("la contraseña es Perro2024!", "password in text", "Perro2024!"),
    (
        "app.config['SECRET_KEY'] = 'a8f5f167f44f4964e6c998de'",
        "generic secret assignment",
        "a8f5f167f44f4964e6c998de",
    ),
    ("Wifi de la oficina -> clave: D#W1nW4kGeJ#ky", "password assignment", "D#W1nW4kGeJ#ky"),
    (
        "OAUTH_CLIENT_SECRET='8-8BV8#luteLKW'",
        "generic secret assignment",
        "8-8BV8#luteLKW",
    ),
    ("config.apikey => 'MFmkkBTDijysfS9'", "generic secret assignment", "MFmkkBTDijysfS9"),
    ('val accessKey: String = "q7Lm2Xv9Rt4Kp1"', "generic secret assignment", "q7Lm2Xv9Rt4Kp1"),
    ("define('DB_PASSWORD', 'wp9Lk2!xQz7');", "password assignment", "wp9Lk2!xQz7"),
    (
        "Server=sql1;Database=crm;User Id=sa;Password=MyS3cr3t!Pw;",
        "password assignment",
        "MyS3cr3t!Pw",
    ),
    (
        "the staging api key is 0e812e92776e2051ccb9b2baee4458ed, do not share",
        "high-entropy string",
        "0e812e92776e2051ccb9b2baee4458ed",
    ),
    (
        "Authorization: Bearer Ft1ptJ4TyNimSBIf0Pbefib0FaA/TUBzwnNKUc1Ej8w",
        "bearer token",
        "Ft1ptJ4TyNimSBIf0Pbefib0FaA/TUBzwnNKUc1Ej8w",
    ),
    (
        f"Authorization: Basic {BASIC}",
        "basic auth credentials",
        BASIC,
    ),
]

# Text that resembles a secret but is not one.
LOOKALIKES: list[str] = [
    "request id 123e4567-e89b-12d3-a456-426614174000 failed",
    "fixed in commit 84130ee1234f9a0c5e9b3d7a1f4c8e2b7d6a5c3f (see the token refresh PR)",
    "cherry-pick 84130ee and 9f86d08 onto main",
    "image: python@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "checksum sha512-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 key file",
    '<img alt="api key icon" src="data:image/png;base64,'
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
    '">',
    "Supercalifragilisticexpialidocious is a pneumonoultramicroscopicsilicovolcanoconiosis word",
    "released v2.14.0-rc.1+build.20240611 and 3.11.9",
    "docs at https://docs.python.org/3/library/secrets.html#secrets.token_urlsafe",
    "I changed my password yesterday and the token expired",
    "la contraseña del wifi la tiene Ana",
    "the password was reset-by-admin and is 12 characters long",
    "Password: make sure it has at least 12 characters",
    'password = os.environ["DB_PASSWORD"]',
    "api_key = os.getenv('OPENAI_API_KEY')",
    'password = ""',
    "password: xxx",
    'secret = "***"',
    "password=<password>",
    "DB_PASSWORD=${DB_PASSWORD}",
    "export PASSWORD=$PASSWORD",
    "token = None",
    '{"password": null}',
    'api_key = "your-api-key-here"',
    "password: example",
    "password: changeme",
    "postgres://user:password@localhost:5432/db",
    '"leaf_id": "L-software.java-0001-84130ee123"',
    "token leaf L-personal-0002-a17b3c8f35 updated",
    "max_tokens = 100000\nnum_tokens: 4096",
    "token = get_token(session)",
    "password = self.password",
    "const handler = { token: accessToken, password: password }",
    "PWD=/home/ana/projects/ihmt",
    "password_min_length = 12\npassword_hint = 'your pet'",
    "the key insight: getAccessTokenFromRefreshToken handles the retry",
    "token: ${{ secrets.GITHUB_TOKEN }}",
    'label = "Enter your password"',
    "sk-learn-compatible-estimator-wrapper is a package name",
    "ssh-keygen -t ed25519 -C ana@example.org",
    "Authorization: Bearer <token>",
    "task-management-framework-for-everyone",
]


@pytest.mark.parametrize(("text", "kind", "value"), CORPUS, ids=[c[1] for c in CORPUS])
def test_corpus_secret_is_found_with_kind_and_offsets(text: str, kind: str, value: str) -> None:
    findings = find_secrets(text)
    assert [(f.kind, text[f.start : f.end]) for f in findings] == [(kind, value)]
    assert text.index(value) == findings[0].start


def test_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 25
    assert len(LOOKALIKES) >= 20


@pytest.mark.parametrize("text", LOOKALIKES)
def test_lookalike_is_not_flagged(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(("text", "kind", "value"), CORPUS, ids=[c[1] for c in CORPUS])
def test_preview_never_shows_the_secret(text: str, kind: str, value: str) -> None:
    (finding,) = find_secrets(text)
    assert finding.preview.endswith("\u2026")
    shown = finding.preview[:-1]
    assert len(shown) <= 4 and value.startswith(shown)


def test_redact_replaces_every_value_and_keeps_original_offsets() -> None:
    document = "\n".join(text for text, _, _ in CORPUS)
    redacted, findings = redact(document)
    assert len(findings) == len(CORPUS)
    for _, kind, value in CORPUS:
        assert value not in redacted
        assert f"[REDACTED:{kind}]" in redacted
    assert [document[f.start : f.end] for f in findings] == [value for _, _, value in CORPUS]
    assert find_secrets(redacted) == []  # redacting twice changes nothing


def test_redact_keeps_surrounding_text() -> None:
    text = 'db:\n  password: "hunter2xyz"  # rotate monthly\n'
    redacted, _ = redact(text)
    assert redacted == 'db:\n  password: "[REDACTED:password assignment]"  # rotate monthly\n'


def test_redact_without_secrets_is_identity() -> None:
    assert redact("nothing to see here") == ("nothing to see here", [])


def test_overlaps_merge_into_the_most_specific_kind() -> None:
    text = f"GITHUB_TOKEN={GH_CLASSIC}"  # also a generic assignment and a high-entropy string
    end = 13 + len(GH_CLASSIC)
    assert find_secrets(text) == [SecretFinding("GitHub token", 13, end, "ghp_\u2026")]


def test_findings_are_sorted_and_disjoint_on_mixed_document() -> None:
    document = "\n".join(text for text, _, _ in CORPUS + [(t, "", "") for t in LOOKALIKES])
    findings = find_secrets(document)
    assert len(findings) == len(CORPUS)
    for a, b in zip(findings, findings[1:], strict=False):
        assert a.end <= b.start


def test_describe() -> None:
    text = f"{AWS_ID} and postgres://u:Dxo5pCJFz2B3x@db/x and {AWS_TEMP_ID}"
    findings = find_secrets(text)
    assert describe(findings) == (
        "found 3 likely secrets: AWS access key (x2), password in connection string"
    )
    assert describe(find_secrets('password = "hunter2xyz"')) == (
        "found 1 likely secret: password assignment"
    )
    assert describe([]) == "no likely secrets found"


def test_non_str_input_is_an_input_error() -> None:
    with pytest.raises(InputError):
        find_secrets(b"password=hunter2xyz")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("head", "unit"),
    [
        ("", "a"),
        ("", "x9Q"),
        ("token ", "A1b2"),
        ("", "password="),
        ("eyJ", "a"),
        ("", "eyJhbGciOi."),
        ("a://", "b"),
        ("", RSA_BLOCK.splitlines()[0]),
        ("", "Bearer "),
        ("", "sk-"),
        ("", "user:pass@"),
        ("", "key = " + "Zx9" * 20 + " "),
    ],
    ids=lambda t: repr(t[:12]),
)
def test_hostile_inputs_cost_linear_work(head: str, unit: str) -> None:
    """4x the text costs about 4x the counted work (Python lines and regex positions,
    tests/workcount.py), not 16x; backtracking inside one regex is ruled out by the shape
    check in test_secrets_corpus.py."""
    k = 6_000 // len(unit)
    text = head + unit * 4 * k
    findings = assert_linear(lambda n: head + unit * n, find_secrets, k)
    for f in findings:
        assert 0 <= f.start < f.end <= len(text)


def test_surrogates_and_nul_do_not_raise() -> None:
    text = "pass\ud800word = 'abc\x00def\udfff' \x00 token: \ud83d\ude00xyzxyzq1"
    for f in find_secrets(text):
        assert 0 <= f.start < f.end <= len(text)
    redact(text)


_FRAGMENTS = st.sampled_from(
    [value for _, _, value in CORPUS]
    + ["password = ", "token: ", "'", '"', "://", "u:", "@", "\n", " ", "=", "-----END RSA ", "."]
    + ["mysql -p", "curl -u ", "htpasswd -b ", "--password ", "password for the ", " es ", " is "]
)
_ANY_TEXT = st.text(alphabet=st.characters(blacklist_categories=()), max_size=200)


@settings(deadline=None, max_examples=100)
@given(st.lists(st.one_of(_FRAGMENTS, _ANY_TEXT), max_size=12).map("".join))
def test_property_findings_are_in_bounds_sorted_and_disjoint(text: str) -> None:
    findings = find_secrets(text)
    previous_end = 0
    for f in findings:
        assert previous_end <= f.start < f.end <= len(text)
        assert len(f.preview) <= 5 and f.preview.endswith("\u2026")
        previous_end = f.end
    redacted, again = redact(text)
    assert again == findings
    for f in findings:
        assert f"[REDACTED:{f.kind}]" in redacted
