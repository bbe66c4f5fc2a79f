"""Document type and domain detection (ihmt.ingest.detector)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from ihmt.errors import InputError
from ihmt.ingest.detector import CODE_EXTENSIONS, Detection, detect

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _read(name: str) -> str:
    return (EXAMPLES / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "data_type", "domain", "language"),
    [
        ("InventoryService.java", "CODE", "software.java", "java"),
        ("pricing.py", "CODE", "software.python", "python"),
        ("journal_personal.txt", "PERSONAL", "personal", None),
        ("historia_clinica.txt", "CLINICAL", "medicine.clinical", None),
        ("cronica_del_faro.txt", "NARRATIVE", "narrative", None),
        ("receta_paella.md", "PROCESS", "process.cooking", None),
        ("runbook_deploy.md", "PROCESS", "process.runbook", None),
    ],
)
def test_example_files(name: str, data_type: str, domain: str, language: str | None) -> None:
    d = detect(_read(name), name)
    assert d == Detection(data_type, domain, language)
    # Content alone (no file name) gives the same answer for the prose files.
    if language is None:
        assert detect(_read(name)) == d


@pytest.mark.parametrize("path", sorted((EXAMPLES / "notes").iterdir()), ids=lambda p: p.name)
def test_example_notes_are_general(path: Path) -> None:
    assert detect(path.read_text(encoding="utf-8"), path.name) == Detection(
        "GENERIC", "general", None
    )


@pytest.mark.parametrize(("ext", "language"), sorted(CODE_EXTENSIONS.items()))
def test_code_extensions(ext: str, language: str) -> None:
    d = detect("whatever\n", f"src/module{ext}")
    assert d == Detection("CODE", f"software.{language}", language)


def test_extension_is_case_insensitive_and_path_tolerant() -> None:
    assert detect("x", "C:\\work\\Main.JAVA").language == "java"
    assert detect("x", "archive.tar.gz").data_type == "GENERIC"


def test_file_name_never_becomes_the_domain() -> None:
    journal = _read("journal_personal.txt")
    assert detect(journal, "receta_paella.txt").domain == "personal"
    note = "The staging database listens on port 8443.\n"
    for name in ("medicine_notes.md", "cooking.txt", "projects/alpha/README.md", "diary.txt"):
        assert detect(note, name) == Detection("GENERIC", "general", None)


def test_overrides() -> None:
    journal = _read("journal_personal.txt")
    # data_type only: the matching domain
    assert detect(journal, data_type="GENERIC") == Detection("GENERIC", "general", None)
    assert detect(journal, data_type="clinical").domain == "medicine.clinical"
    assert detect(journal, data_type="NARRATIVE").domain == "narrative"
    assert detect(_read("receta_paella.md"), data_type="PROCESS").domain == "process.cooking"
    assert detect(_read("runbook_deploy.md"), data_type="PROCESS").domain == "process.runbook"
    assert detect("x = 1\n", "a.py", data_type="CODE") == Detection(
        "CODE", "software.python", "python"
    )
    assert detect("plain words", data_type="CODE").domain == "software"
    # domain only: the type is still inferred from the text
    assert detect(journal, domain="family") == Detection("PERSONAL", "family", None)
    assert detect(_read("pricing.py"), "pricing.py", domain="shop") == Detection(
        "CODE", "shop", "python"
    )
    # both
    assert detect(journal, domain="Work.Notes", data_type="generic") == Detection(
        "GENERIC", "work.notes", None
    )


@pytest.mark.parametrize("bad", ["POEM", "", "code!"])
def test_unknown_data_type_is_an_input_error(bad: str) -> None:
    with pytest.raises(InputError):
        detect("hello", data_type=bad)


@pytest.mark.parametrize("bad", ["../etc", "a b", "a..b", "/abs"])
def test_malformed_domain_is_an_input_error(bad: str) -> None:
    with pytest.raises(InputError):
        detect("hello", domain=bad)


def test_non_string_text_is_an_input_error() -> None:
    with pytest.raises(InputError):
        detect(b"bytes")  # type: ignore[arg-type]


def test_empty_and_blank_text() -> None:
    assert detect("") == Detection("GENERIC", "general", None)
    assert detect("   \n\n") == Detection("GENERIC", "general", None)


def test_single_fact_note_with_a_date_is_general() -> None:
    note = "Decided on 2026-09-10 to pin numpy to 1.26 because the 2.x ABI broke our wheels."
    assert detect(note, "decision.md") == Detection("GENERIC", "general", None)
    assert detect("2026-01-05: I moved the team wiki to the new server.\n").domain == "general"


def test_readme_is_general() -> None:
    readme = """# fastgrep

A tiny grep replacement.

## Installation

1. Install Rust with rustup.
2. Clone the repository.
3. Run `cargo install --path .` and restart your shell.

## Usage

Run `fastgrep PATTERN FILE`. Docker images are built on each release and the deploy job
restarts the docs server in production.

## License

MIT
"""
    assert detect(readme, "README.md") == Detection("GENERIC", "general", None)


def test_english_documents() -> None:
    journal = """March 3, 2025
Dear diary, today I finally finished the garden fence. My hands hurt but I am proud.

March 9, 2025
I went to see my sister in Leeds. We walked by the canal and I told her about my job.
"""
    assert detect(journal).data_type == "PERSONAL"
    recipe = """Banana bread

Ingredients:
- 3 ripe bananas
- 75 g melted butter
- 150 g sugar
- 190 g flour

Steps:
1. Preheat the oven to 175 C.
2. Mash the bananas and stir in the butter.
3. Bake for 60 minutes.
"""
    assert detect(recipe) == Detection("PROCESS", "process.cooking", None)
    clinical = """Patient: John Doe, 64 years old.
Chief complaint: chest pain on exertion for two weeks.
History: hypertension, type 2 diabetes.
Examination: blood pressure 150/90 mmHg, heart rate 88 bpm.
Diagnosis: stable angina.
Treatment: aspirin 100 mg daily, atorvastatin 40 mg at night.
"""
    assert detect(clinical) == Detection("CLINICAL", "medicine.clinical", None)


def test_chat_transcripts() -> None:
    dated = """[2024-05-02 09:14] Ana: morning! are we still on for lunch?
[2024-05-02 09:15] Ben: yes, 1pm at the usual place
[2024-05-02 09:16] Ana: great, I'll book a table
[2024-05-03 08:01] Ben: thanks for lunch yesterday, my treat next time
"""
    assert detect(dated) == Detection("PERSONAL", "personal", None)
    undated = """Ana: are we still on for the release review?
Ben: yes, after the standup
Ana: ok, bring the metrics dashboard
Ben: will do
"""
    assert detect(undated).data_type == "GENERIC"


def test_bare_source_without_extension() -> None:
    snippet = """import os
import sys

def main():
    for name in os.listdir(sys.argv[1]):
        print(name)

if __name__ == "__main__":
    main()
"""
    assert detect(snippet) == Detection("CODE", "software.python", "python")
    # Markdown is judged as prose even when it quotes code.
    assert detect("# Notes\n\n```python\n" + snippet + "```\n", "notes.md").data_type == "GENERIC"


def test_deterministic() -> None:
    text = _read("cronica_del_faro.txt")
    assert len({repr(detect(text)) for _ in range(3)}) == 1


_SUBJECTS = [
    "The staging database",
    "Our CI pipeline",
    "The billing service",
    "The search cluster",
    "The mobile app",
    "The nightly export job",
    "The auth gateway",
    "The metrics stack",
    "The docs site",
    "The payments worker",
    "El servidor de pruebas",
    "La API de pedidos",
]
_FACTS = [
    "listens on port {n}.",
    "was moved to the eu-west region on 2025-03-{d:02d}.",
    "needs Python 3.{m} or newer.",
    "keeps logs for {n} days before rotating them.",
    "is owned by the platform team since {d} March 2024.",
    "uses a connection pool of {m} connections.",
    "must be restarted after changing the TLS certificate; see ticket OPS-{n}.",
    "times out after {m} seconds, decided on {d:02d}/04/2025 after the incident.",
    "stores every timestamp in UTC.",
    "reads its settings from config/app.toml.",
    "I think should be rewritten in Go, but we postponed it until version {m}.",
    "pins numpy to 1.{m} because the newer wheels broke the build.",
    "se despliega los martes y usa el puerto {n}.",
]


_TAILS = ["", " Checked by Ana.", " See the team wiki.", " Confirmed in the last review."]


def _notes(count: int) -> list[str]:
    notes = []
    combos = itertools.product(_TAILS, _SUBJECTS, _FACTS)
    for i, (tail, subject, fact) in enumerate(combos):
        if len(notes) == count:
            break
        body = fact.format(n=1000 + 37 * i, d=1 + i % 28, m=2 + i % 20)
        note = f"{subject} {body}{tail}"
        if i % 5 == 0:
            note = f"{1 + i % 28:02d}/05/2025 {note}"
        if i % 7 == 0:
            note = f"# Note {i}\n\n{note}\n"
        notes.append(note)
    return notes


def test_three_hundred_short_notes_are_general() -> None:
    notes = _notes(300)
    assert len(set(notes)) == 300
    wrong = [(n, detect(n, f"note_{k}.md")) for k, n in enumerate(notes)]
    wrong = [(n, d) for n, d in wrong if d.domain != "general" or d.data_type != "GENERIC"]
    assert wrong == []


def test_large_input_is_fast_enough() -> None:
    text = _read("journal_personal.txt") * 2000  # ~2.6 MB; only a prefix is analysed
    assert detect(text).data_type == "PERSONAL"
