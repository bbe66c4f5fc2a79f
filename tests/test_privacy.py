"""Secrets are never stored silently.

``save`` refuses a memory that carries a credential (SecretDetectedError naming what it found)
unless ``allow_secrets=True``; ingestion redacts credentials with ``[REDACTED:<kind>]`` and
reports each one; the CLI shows the redactions and ``--allow-secrets`` keeps the raw text;
look-alikes (UUIDs, git hashes, inline images) pass untouched.

The fake credentials are generated here at run time from a seeded random source and split
prefixes, so this file holds nothing a repository secret scanner would flag.
"""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path

import pytest

from ihmt import IHMT
from ihmt.errors import SecretDetectedError
from tests.conftest import run_cli
from tests.helpers_procs import SMALL_TREE, store_bytes

_RNG = random.Random(20251129)
_ALNUM = string.ascii_letters + string.digits


def _pick(alphabet: str, n: int) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _fake_aws_key_id() -> str:
    return "AK" + "IA" + _pick(string.ascii_uppercase + string.digits, 16)


def _fake_github_token() -> str:
    return "gh" + "p_" + _pick(_ALNUM, 36)


def _fake_private_key() -> str:
    label = " ".join(["RSA", "PRIVATE", "KEY"])
    body = [_pick(string.ascii_letters + string.digits + "+/", 64) for _ in range(5)]
    return "\n".join([f"-----BEGIN {label}-----", *body, f"-----END {label}-----"])


def _fake_jwt() -> str:
    head = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = _b64url(json.dumps({"sub": "4711", "name": "Ana", "iat": 1718000000}).encode())
    return ".".join([head, claims, _b64url(bytes(_RNG.randrange(256) for _ in range(32)))])


def _fake_postgres_url() -> tuple[str, str]:
    password = _pick(_ALNUM, 14) + "!" + _pick(_ALNUM, 4)
    return "postgres" + f"://billing:{password}@db.internal.example:5432/billing", password


PG_URL, PG_PASSWORD = _fake_postgres_url()
# (name, kind the detector reports, the text around it, the secret value itself)
SECRETS = [
    ("aws", "AWS access key", "The deploy user has access key id {} in eu-west-1.", _fake_aws_key_id()),
    ("github", "GitHub token", "CI pushes with the token {} since March.", _fake_github_token()),
    ("pem", "private key block", "The staging host key is:\n{}\nkeep it safe.", _fake_private_key()),
    ("jwt", "JWT", "Support pasted the session {} into the ticket.", _fake_jwt()),
    ("postgres", "password in connection string", "Billing connects to {} nightly.", PG_URL),
    ("prose", "password in text", "The office wifi password is {} since May.", "Tr0ub4dor&3x-Ab12"),
    ("prose-es", "password in text", "La contraseña del router es {} desde mayo.", "Gato_Negro_77"),
    ("mysql", "password on a command line", "Restore with mysql -uroot -p{} shop < dump.sql", "S3cr3tPw9x"),
]  # fmt: skip
SECRET_IDS = [s[0] for s in SECRETS]
LOOK_ALIKES = [
    "Request 0b6d3c1e-5f2a-4c8e-9a71-3e2f1d0c9b8a failed with a timeout on the billing API.",
    "The regression came in with commit 4f2a9c81e3b7d6a05c1f8e2d9b4a7c6e5f3d2a1b on main.",
    "Cherry-pick 9fceb02 and d6cd1e2 onto the release branch before Friday.",
    "The artifact digest is sha256:"
    + "3b1f2c9d8e7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c for build 812.",
    "The logo is embedded as data:image/png;base64,"
    + base64.b64encode(bytes(range(256)) * 3).decode("ascii")
    + " in the e-mail footer.",
    "Version 2.14.3-rc.1+build.5 ships the new cache; see docs/release/2024-06.md for details.",
]


def _memory(tmp_path: Path) -> IHMT:
    return IHMT.initialize(tmp_path / "ws", **SMALL_TREE)


def _no_trace(workspace: Path, *values: str) -> None:
    """No file anywhere in the store holds any of ``values`` (call with no open handle)."""
    for path, data in store_bytes(workspace / "ihmt_memory").items():
        for value in values:
            for piece in {value, value.split("\n")[1] if "\n" in value else value}:
                assert piece.encode("utf-8") not in data, f"{path} holds a secret"


# -- save ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "kind", "template", "secret"), SECRETS, ids=SECRET_IDS)
def test_save_refuses_a_secret_and_names_it(tmp_path, name, kind, template, secret):
    memory = _memory(tmp_path)
    memory.save("The billing service runs in eu-west-1.")
    with pytest.raises(SecretDetectedError) as caught:
        memory.save(template.format(secret))
    message = str(caught.value)
    assert kind in message and ("not saved" in message or "nothing was stored" in message), message
    assert "\n" not in message and secret not in message
    assert len(memory.catalog.all_leaves()) == 1
    memory.close()
    _no_trace(tmp_path / "ws", secret)


@pytest.mark.parametrize(("name", "kind", "template", "secret"), SECRETS, ids=SECRET_IDS)
def test_save_with_allow_secrets_stores_it_raw(tmp_path, name, kind, template, secret):
    memory = _memory(tmp_path)
    text = template.format(secret)
    report = memory.save(text, allow_secrets=True)
    assert "".join(memory.store.read_leaf(i).content for i in report.leaf_ids) == text


# -- ingestion -----------------------------------------------------------------------------------


def _document() -> str:
    paragraphs = [template.format(secret) for _n, _k, template, secret in SECRETS]
    return "\n\n".join(["Operations notebook, week 23.", *paragraphs, "End of the notes."])


def test_ingest_text_redacts_every_secret_and_reports_it(tmp_path):
    memory = _memory(tmp_path)
    report = memory.ingest_text(_document(), source="ops-notebook")
    assert len(report.redactions) == len(SECRETS), report.redactions
    for (_n, kind, _t, _s), line in zip(SECRETS, report.redactions, strict=True):
        assert line.startswith("ops-notebook: redacted ") and kind in line
    stored = "".join(leaf.content for leaf in memory.leaves("ops-notebook"))
    assert stored.count("[REDACTED:") == len(SECRETS)
    for _n, kind, template, secret in SECRETS:
        value = PG_PASSWORD if secret == PG_URL else secret  # only the password of a URL
        assert template.format(secret.replace(value, f"[REDACTED:{kind}]")) in stored
    assert "eu-west-1" in memory.search("deploy user access key").best.content
    memory.close()
    _no_trace(tmp_path / "ws", *(s for *_rest, s in SECRETS), PG_PASSWORD)


def test_ingest_paths_redacts_and_names_the_file(tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text(_document(), encoding="utf-8")
    memory = _memory(tmp_path)
    report = memory.ingest_paths([notes])
    assert len(report.redactions) == len(SECRETS)
    assert all(str(notes) in line for line in report.redactions)
    stored = "".join(leaf.content for leaf in memory.leaves(str(notes)))
    assert stored.count("[REDACTED:") == len(SECRETS)
    memory.close()
    _no_trace(tmp_path / "ws", *(s for *_rest, s in SECRETS))


def test_ingest_without_redaction_keeps_the_text(tmp_path):
    memory = _memory(tmp_path)
    report = memory.ingest_text(_document(), source="raw", redact_secrets=False)
    assert report.redactions == []
    assert "".join(leaf.content for leaf in memory.leaves("raw")) == _document()


# -- the CLI -------------------------------------------------------------------------------------


def test_cli_ingest_prints_each_redaction_and_allow_secrets_keeps_them(tmp_path):
    workspace = tmp_path / "ws"
    assert run_cli("--path", str(workspace), "init").returncode == 0
    notes = tmp_path / "notes.md"
    notes.write_text(_document(), encoding="utf-8")
    done = run_cli("--path", str(workspace), "ingest", str(notes))
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("redacted: ")]
    assert len(lines) == len(SECRETS), done.stdout
    for _n, kind, _t, secret in SECRETS:
        assert any(kind in line for line in lines), kind
        assert secret not in done.stdout
    _no_trace(workspace, *(s for *_rest, s in SECRETS))

    raw = tmp_path / "raw.md"
    raw.write_text(_document(), encoding="utf-8")
    kept = run_cli("--path", str(workspace), "ingest", "--allow-secrets", str(raw))
    assert kept.returncode == 0, kept.stderr
    assert "redacted:" not in kept.stdout
    memory = IHMT.open(workspace)
    assert "".join(leaf.content for leaf in memory.leaves(str(raw))) == _document()


def test_cli_save_refuses_with_one_line_then_allow_secrets_saves(tmp_path):
    workspace = tmp_path / "ws"
    assert run_cli("--path", str(workspace), "init").returncode == 0
    _n, kind, template, secret = SECRETS[1]
    done = run_cli("--path", str(workspace), "save", template.format(secret))
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and kind in lines[0] and secret not in lines[0], done.stderr
    saved = run_cli("--path", str(workspace), "save", "--allow-secrets", template.format(secret))
    assert saved.returncode == 0, saved.stderr
    assert [leaf.content for leaf in IHMT.open(workspace).leaves()] == [template.format(secret)]


# -- look-alikes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_saved_and_ingested_untouched(tmp_path, text):
    memory = _memory(tmp_path)
    report = memory.save(text)
    assert memory.store.read_leaf(report.leaf_ids[0]).content == text
    ingested = memory.ingest_text(text, source="look-alike")
    assert ingested.redactions == []
    assert "".join(leaf.content for leaf in memory.leaves("look-alike")) == text
