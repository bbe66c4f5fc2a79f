"""The four prose splitters: narrative, temporal, process and generic."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ihmt.ingest.chunk import Chunk
from ihmt.ingest.chunkers import prose
from ihmt.ingest.chunkers.generic import split_generic
from ihmt.ingest.chunkers.narrative import _is_boundary, split_narrative
from ihmt.ingest.chunkers.process import split_process
from ihmt.ingest.chunkers.temporal import entry_date, split_temporal
from ihmt.text.tokens import estimate_tokens
from tests.workcount import assert_linear

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SPLITTERS = [split_narrative, split_temporal, split_process, split_generic]
PROSE_EXAMPLES = [
    "journal_personal.txt",
    "historia_clinica.txt",
    "cronica_del_faro.txt",
    "receta_paella.md",
    "runbook_deploy.md",
    "InventoryService.java",
    "pricing.py",
]


def _read(name: str) -> str:
    # newline="" keeps the file byte-exact, whatever the platform.
    with open(EXAMPLES / name, encoding="utf-8", newline="") as f:
        return f.read()


def check(text: str, chunks: list[Chunk]) -> None:
    """The shared contract: exact tiling, no empty chunk, exact 1-based line spans."""
    assert "".join(c.text for c in chunks) == text
    offset = 0
    for c in chunks:
        assert c.text
        assert c.start_line == text.count("\n", 0, offset) + 1
        last_char = offset + len(c.text) - 1
        assert c.end_line == text.count("\n", 0, last_char) + 1
        assert c.start_line <= c.end_line
        offset += len(c.text)


def _offsets(chunks: list[Chunk]) -> list[tuple[int, int]]:
    out, pos = [], 0
    for c in chunks:
        out.append((pos, pos + len(c.text)))
        pos += len(c.text)
    return out


# --------------------------------------------------------------------------- shared contract


@pytest.mark.parametrize("split", SPLITTERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("name", PROSE_EXAMPLES)
@pytest.mark.parametrize(("target", "maximum"), [(2000, 3000), (120, 180), (20, 30), (1, 1)])
def test_examples_tile_exactly(split, name: str, target: int, maximum: int) -> None:
    text = _read(name)
    check(text, split(text, target_tokens=target, max_tokens=maximum))


@pytest.mark.parametrize("split", SPLITTERS, ids=lambda f: f.__name__)
def test_empty_and_odd_inputs(split) -> None:
    assert split("") == []
    for text in ["\n", "\r\n\r\n", "   ", "\ufeff", "x", "***", "# h", "```", "\ufeffCapítulo 1\n"]:
        chunks = split(text)
        check(text, chunks)
        assert len(chunks) >= 1
    check("a\n\nb", split("a\n\nb", target_tokens=0, max_tokens=-5))
    check("a\n\nb", split("a\n\nb", target_tokens="x", max_tokens=None))  # type: ignore[arg-type]


@pytest.mark.parametrize("split", SPLITTERS, ids=lambda f: f.__name__)
def test_crlf_and_bom_are_kept(split) -> None:
    text = "\ufeff" + _read("journal_personal.txt").replace("\n", "\r\n")
    chunks = split(text, target_tokens=60, max_tokens=90)
    check(text, chunks)
    assert chunks[0].text.startswith("\ufeff")


@pytest.mark.parametrize("split", SPLITTERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    "unit", ["x", "El faro. ", "abc\n", "\n"], ids=["one-line", "sentences", "lines", "blank"]
)
def test_long_inputs_are_linear(split, unit: str) -> None:
    """4x the text costs about 4x the counted work (Python lines and regex positions,
    tests/workcount.py), not 16x; no clock involved. Small chunk targets make both lengths
    many chunks long, so the count compares like with like. The long input still tiles."""
    k = 4_000 // len(unit)
    chunks = assert_linear(lambda n: unit * n, partial(split, target_tokens=60, max_tokens=90), k)
    assert "".join(c.text for c in chunks) == unit * 4 * k


_FRAGMENTS = [
    "El faro era viejo. Nadie subía ya.",
    'She said: "No!" Then she left… Why?',
    "Capítulo 2",
    "Chapter IV: The Storm",
    "***",
    "---",
    "* * *",
    "# Título",
    "## Ingredientes",
    "Ingredientes:",
    "Pasos:",
    "1. Calienta el aceite.",
    "2) Add the rice",
    "- 400 g de arroz",
    "   continuation line",
    "Step 1",
    "PASO FINAL",
    "22/07/2024",
    "lunes, 22 de julio de 2024",
    "2024-07-22 Ana: hola",
    "Fecha de consulta: 03/01/2025",
    "Fecha de nacimiento: 14/05/1966",
    "**2026-02-03**",
    "31/02/2024",
    "```",
    "~~~~",
    "\ufeff",
    "Ω≈ç√ ñandú",
    "x" * 60,
    "",
]
_SEPARATORS = ["\n", "\n\n", "\r\n", "\r\n\r\n", " ", "", "\n\n\n", "\t", "\n \n"]

documents = st.lists(
    st.tuples(
        st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=25)),
        st.sampled_from(_SEPARATORS),
    ),
    max_size=40,
).map(lambda parts: "".join(a + b for a, b in parts))
budgets = st.tuples(st.integers(1, 60), st.integers(0, 40)).map(lambda t: (t[0], t[0] + t[1]))

_SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(documents, budgets, st.sampled_from(SPLITTERS))
def test_random_documents_tile_exactly(text: str, budget: tuple[int, int], split) -> None:
    target, maximum = budget
    chunks = split(text, target_tokens=target, max_tokens=maximum)
    check(text, chunks)
    for c in chunks:
        if not c.oversized:
            # Whatever is not flagged oversized respects max_tokens.
            assert estimate_tokens(c.text) <= maximum


# --------------------------------------------------------------------------- narrative


def _boundary_lines_inside(text: str, chunks: list[Chunk]) -> list[str]:
    """Boundary lines that sit anywhere but at the very start of their chunk.

    The document's leading blank lines belong to the first chunk, so a boundary right after
    them counts as the start.
    """
    lines = prose.split_lines(text)
    offsets = prose.line_offsets(lines)
    fenced = prose.fence_mask(lines)
    bad = []
    for start, end in _offsets(chunks):
        for i, line in enumerate(lines):
            if start < offsets[i] < end and not fenced[i] and _is_boundary(line):
                if start == 0 and not text[: offsets[i]].strip():
                    continue  # leading blank lines of the document ride with the first chunk
                bad.append(line)
    return bad


@pytest.mark.parametrize(("target", "maximum"), [(2000, 3000), (200, 300), (30, 45)])
def test_chapters_and_scene_breaks_open_chunks(target: int, maximum: int) -> None:
    text = _read("cronica_del_faro.txt")
    chunks = split_narrative(text, target_tokens=target, max_tokens=maximum)
    check(text, chunks)
    assert _boundary_lines_inside(text, chunks) == []
    starts = [c.text.split("\n", 1)[0] for c in chunks]
    assert "Capítulo 1" in starts and "Capítulo 2" in starts and "***" in starts
    chapter2 = next(c for c in chunks if c.text.startswith("Capítulo 2"))
    assert chapter2.title == "Capítulo 2"
    after = chunks[chunks.index(chapter2) - 1]
    assert after.title == "Capítulo 1"


@_SETTINGS
@given(documents, budgets)
def test_narrative_never_spans_a_boundary(text: str, budget: tuple[int, int]) -> None:
    chunks = split_narrative(text, target_tokens=budget[0], max_tokens=budget[1])
    check(text, chunks)
    assert _boundary_lines_inside(text, chunks) == []


def test_narrative_packs_paragraphs() -> None:
    text = "\n\n".join(f"Paragraph {i} is short." for i in range(10)) + "\n"
    chunks = split_narrative(text, target_tokens=20, max_tokens=30)
    check(text, chunks)
    assert 1 < len(chunks) < 10
    for c in chunks:  # paragraphs are atomic
        assert c.text.startswith("Paragraph")


def test_oversized_paragraph_splits_at_sentences() -> None:
    sentence = "The keeper climbed the stairs again. "
    para = sentence * 40  # ~1480 chars, ~370 tokens, one paragraph
    text = "Intro.\n\n" + para.rstrip() + "\n\nOutro.\n"
    chunks = split_narrative(text, target_tokens=50, max_tokens=80)
    check(text, chunks)
    middle = [c for c in chunks if "keeper" in c.text]
    assert len(middle) > 1
    for c in middle:
        assert estimate_tokens(c.text) <= 80 and not c.oversized
        assert c.text.startswith("The keeper")


def test_oversized_single_sentence_is_kept_whole() -> None:
    giant = "word " * 400 + "end."
    text = "Short one.\n\n" + giant + " Tail sentence.\n"
    chunks = split_narrative(text, target_tokens=50, max_tokens=80)
    check(text, chunks)
    big = [c for c in chunks if c.oversized]
    assert len(big) == 1 and big[0].text.startswith("word word") and big[0].text.count("end.") == 1


# --------------------------------------------------------------------------- temporal


def _dates_in(text: str, chunks: list[Chunk]) -> list[set[str]]:
    lines = prose.split_lines(text)
    offsets = prose.line_offsets(lines)
    fenced = prose.fence_mask(lines)
    out = []
    for start, end in _offsets(chunks):
        days = set()
        for i, line in enumerate(lines):
            if start <= offsets[i] < end and not fenced[i]:
                day = entry_date(line)
                if day:
                    days.add(day)
        out.append(days)
    return out


@pytest.mark.parametrize(
    ("line", "day"),
    [
        ("## 22/07/2024", "2024-07-22"),
        ("Fecha: 2024-07-22", "2024-07-22"),
        ("Fecha de consulta: 12/03/2024", "2024-03-12"),
        ("Consulta del 12/03/2024", "2024-03-12"),
        ("lunes, 22 de julio de 2024", "2024-07-22"),
        ("Monday, July 22, 2024", "2024-07-22"),
        ("**2024-07-22** hoy", "2024-07-22"),
        ("- 2024-07-22: x", "2024-07-22"),
        ("[2024-07-22 10:15] Ana: hola", "2024-07-22"),
        ("22/07/2024, 10:15 - Ana: hola", "2024-07-22"),
        ("Date: Mar 3, 2024", "2024-03-03"),
        ("\ufeff2024-01-01", "2024-01-01"),
        ("03/05/2025 Nacimiento de mi hija", "2025-05-03"),
        ("El 22/07/2024 fui al médico", None),
        ("Fecha de nacimiento: 14/05/1966", None),
        ("DOB: 1966-05-14", None),
        ("2024 fue un buen año", None),
        ("31/02/2024", None),
    ],
)
def test_entry_headers(line: str, day: str | None) -> None:
    assert entry_date(line) == day


@pytest.mark.parametrize(("target", "maximum"), [(2000, 3000), (60, 90), (10, 15)])
def test_journal_timestamps(target: int, maximum: int) -> None:
    text = _read("journal_personal.txt")
    chunks = split_temporal(text, target_tokens=target, max_tokens=maximum)
    check(text, chunks)
    assert chunks[0].timestamp is None and chunks[0].text.startswith("Diario personal")

    def stamp(fragment: str) -> set[str | None]:
        return {c.timestamp for c in chunks if fragment in c.text}

    assert stamp("vivo en Madrid, en un") == {"2024-03-11T00:00:00Z"}
    assert stamp("me mudé a Valencia") == {"2026-02-03T00:00:00Z"}
    assert stamp("Vacaciones en Benidorm con Luis") == {"2024-07-22T00:00:00Z"}
    assert stamp("Luis Marín revisó") == {"2024-11-30T00:00:00Z"}
    assert stamp("playa de El Saler con Luis") == {"2026-08-30T00:00:00Z"}
    assert stamp("Hoy he firmado el contrato con Mareas Tech") == {"2025-06-20T00:00:00Z"}
    assert stamp("lunes, 9 de septiembre") == {"2024-09-09T00:00:00Z"}
    for days, c in zip(_dates_in(text, chunks), chunks, strict=True):
        assert len(days) <= 1
        if days:
            assert c.timestamp == next(iter(days)) + "T00:00:00Z"
    stamps = [c.timestamp for c in chunks if c.timestamp]
    assert len(set(stamps)) == 14 and stamps == sorted(stamps)


def test_clinical_consultations() -> None:
    text = _read("historia_clinica.txt")
    chunks = split_temporal(text)
    check(text, chunks)
    assert [c.timestamp for c in chunks] == [
        None,
        "2024-03-12T00:00:00Z",
        "2024-06-18T00:00:00Z",
        "2024-11-07T00:00:00Z",
        "2025-02-20T00:00:00Z",
        "2025-09-15T00:00:00Z",
    ]
    assert "Fecha de nacimiento" in chunks[0].text  # a birth date does not open an entry
    assert all("Diagnóstico:" in c.text and "Medicación:" in c.text for c in chunks[1:])


def test_same_date_entries_pack_and_date_changes_cut() -> None:
    text = (
        "2024-05-02 09:14 Ana: hola\n2024-05-02 09:15 Ben: hey\n2024-05-02 10:00 Ana: ok\n"
        "2024-05-03 08:00 Ben: buenos días\n2024-05-03 08:01 Ana: hola\n"
    )
    chunks = split_temporal(text)
    check(text, chunks)
    assert [c.timestamp for c in chunks] == ["2024-05-02T00:00:00Z", "2024-05-03T00:00:00Z"]
    assert chunks[0].text.count("\n") == 3


def test_oversized_entry_splits_into_parts() -> None:
    para = "Hoy escribí mucho sobre el trabajo y la mudanza. " * 6
    entry = "22/07/2024\n" + "\n\n".join([para] * 6) + "\n"
    text = entry + "23/07/2024\nOtro día.\n"
    chunks = split_temporal(text, target_tokens=100, max_tokens=150)
    check(text, chunks)
    parts = [c for c in chunks if c.timestamp == "2024-07-22T00:00:00Z"]
    assert len(parts) > 1
    assert [c.extra.get("part") for c in parts] == list(range(1, len(parts) + 1))
    assert chunks[-1].timestamp == "2024-07-23T00:00:00Z" and "part" not in chunks[-1].extra
    huge = "2024-01-01\n" + "sin puntos ni pausas " * 200 + "\n"
    chunks = split_temporal(huge, target_tokens=50, max_tokens=80)
    check(huge, chunks)
    assert any(c.oversized for c in chunks)
    assert {c.timestamp for c in chunks} == {"2024-01-01T00:00:00Z"}


@_SETTINGS
@given(documents, budgets)
def test_temporal_one_date_per_chunk(text: str, budget: tuple[int, int]) -> None:
    chunks = split_temporal(text, target_tokens=budget[0], max_tokens=budget[1])
    check(text, chunks)
    for days, c in zip(_dates_in(text, chunks), chunks, strict=True):
        assert len(days) <= 1
        if days:
            assert c.timestamp == next(iter(days)) + "T00:00:00Z"


# --------------------------------------------------------------------------- process


@pytest.mark.parametrize(("target", "maximum"), [(2000, 3000), (150, 225), (80, 120), (40, 60)])
def test_recipe_heading_stays_with_its_list(target: int, maximum: int) -> None:
    text = _read("receta_paella.md")
    chunks = split_process(text, target_tokens=target, max_tokens=maximum)
    check(text, chunks)
    holder = [c for c in chunks if "## Ingredientes" in c.text]
    assert len(holder) == 1
    assert "- 400 g de arroz bomba" in holder[0].text  # the heading keeps (the start of) its list
    section = text[text.index("## Ingredientes") : text.index("## Pasos")]
    if estimate_tokens(section) <= maximum:  # the list fits max_tokens: never cut
        assert section in holder[0].text
    else:
        assert "- Una ramita de romero" not in holder[0].text
    steps = next(c for c in chunks if "## Pasos" in c.text)
    assert "1. Calienta el aceite" in steps.text
    # Every chunk after the first starts at a heading or a list item, never mid-item.
    for c in chunks[1:]:
        first = c.text.lstrip("\n").split("\n", 1)[0]
        assert first.startswith(("#", "- ")) or first[:1].isdigit()


def test_whole_recipe_is_one_chunk_when_it_fits() -> None:
    text = _read("receta_paella.md")
    chunks = split_process(text)
    assert len(chunks) == 1 and chunks[0].title == "Paella valenciana"


def test_runbook_sections_and_fenced_comments() -> None:
    text = _read("runbook_deploy.md")
    chunks = split_process(text, target_tokens=150, max_tokens=225)
    check(text, chunks)
    # "# write down the image tag" is a shell comment inside a fence, not a heading.
    assert not any(c.text.startswith("   # write down") for c in chunks)
    rollback = next(c for c in chunks if "## Rollback" in c.text)
    assert "rollout undo" in rollback.text
    assert all(c.text.count("```") % 2 == 0 for c in chunks)  # fences never cut


def test_numbered_list_splits_between_items_only_when_too_big() -> None:
    items = "".join(f"{i}. Do step number {i} carefully.\n" for i in range(1, 31))
    text = "Steps:\n" + items
    whole = split_process(text, target_tokens=100, max_tokens=400)
    assert len(whole) == 1  # the list fits max_tokens: kept whole
    parts = split_process(text, target_tokens=50, max_tokens=80)
    check(text, parts)
    assert len(parts) > 1 and parts[0].text.startswith("Steps:\n1. ")
    for c in parts[1:]:
        assert c.text.split(". ", 1)[0].isdigit()
    long_item = "Steps:\n1. " + "stir " * 300 + "\n2. Serve.\n"
    chunks = split_process(long_item, target_tokens=50, max_tokens=80)
    check(long_item, chunks)
    assert any(c.oversized and c.text.startswith("Steps:\n1. stir") for c in chunks)


def test_step_headings_outside_lists() -> None:
    text = "Step 1\nStop the service.\n\nStep 2\nBack up the database.\n"
    chunks = split_process(text, target_tokens=5, max_tokens=8)
    check(text, chunks)
    assert [c.title for c in chunks] == ["Step 1", "Step 2"]


# --------------------------------------------------------------------------- generic


def test_generic_packs_paragraphs_and_respects_headings() -> None:
    body = "\n\n".join(f"Fact number {i} about the deployment." for i in range(12))
    text = f"# Alpha\n\n{body}\n\n# Beta\n\nShort.\n"
    chunks = split_generic(text, target_tokens=80, max_tokens=120)
    check(text, chunks)
    assert chunks[0].title == "Alpha"
    beta = next(c for c in chunks if "# Beta" in c.text)
    assert beta.text.startswith("# Beta") and beta.title == "Beta"
    for c in chunks:
        assert c.text.startswith(("# ", "Fact"))
    small = "# A\n\nOne.\n\n# B\n\nTwo.\n"
    assert len(split_generic(small)) == 1  # tiny sections are not scattered


def test_generic_oversized_paragraphs() -> None:
    text = ("A sentence that keeps going. " * 60).strip() + "\n"
    chunks = split_generic(text, target_tokens=40, max_tokens=60)
    check(text, chunks)
    assert len(chunks) > 1 and not any(c.oversized for c in chunks)
    table = "".join(f"row {i}, value {i * 3}\n" for i in range(200))  # no sentence ends
    chunks = split_generic(table, target_tokens=40, max_tokens=60)
    check(table, chunks)
    assert len(chunks) > 1 and all(c.text.startswith("row ") for c in chunks)
    blob = "x" * 5000
    chunks = split_generic(blob, target_tokens=40, max_tokens=60)
    assert len(chunks) == 1 and chunks[0].oversized


def test_generic_note_is_one_chunk() -> None:
    for path in sorted((EXAMPLES / "notes").iterdir()):
        text = path.read_text(encoding="utf-8")
        chunks = split_generic(text)
        check(text, chunks)
        assert len(chunks) == 1 and chunks[0].title
