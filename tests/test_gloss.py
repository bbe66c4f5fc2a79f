"""text/gloss.py: an English reading of a Spanish text for a model trained on English."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ihmt.text.gloss import gloss


def test_known_spanish_words_read_as_english_and_function_words_go():
    assert (
        gloss("La contraseña del servidor se cambió ayer.") == "password server change yesterday."
    )


def test_names_identifiers_numbers_and_unknown_words_stay_as_written():
    out = gloss("Lucía migró pg-prod-01 a PostgreSQL 16.3 el 12/05 a las 23:30.")
    for kept in ("Lucía", "pg-prod-01", "PostgreSQL", "16.3", "12/05", "23:30."):
        assert kept in out.split()
    assert "de" not in out.split() and "el" not in out.split()


def test_question_words_keep_what_is_asked():
    assert gloss("¿Dónde vive Marisol ahora?").startswith("where")
    assert gloss("¿cuántos nodos tiene el clúster?").startswith("how many")


def test_english_text_keeps_its_words():
    text = "Staging runs PostgreSQL 16.2 since the upgrade."
    assert gloss(text) == text


@given(st.text(max_size=300))
def test_any_text_glosses_without_error(text):
    assert isinstance(gloss(text), str)
