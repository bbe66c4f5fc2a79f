"""Date finding and normalisation in English and Spanish (ihmt.text.dates)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt.text import dates
from ihmt.text.dates import (
    find_dates,
    match_date_at,
    normalize_timestamp,
    parse_date,
    year_mentions,
)
from tests.workcount import assert_linear


@pytest.mark.parametrize(
    ("written", "iso"),
    [
        ("2026-09-10", "2026-09-10"),
        ("2026-09-10T17:45:00Z", "2026-09-10"),
        ("2026-09-10 17:45", "2026-09-10"),
        ("22/07/2024", "2024-07-22"),
        ("22-07-2024", "2024-07-22"),
        ("22.07.2024", "2024-07-22"),
        ("2024/07/22", "2024-07-22"),
        ("July 22, 2024", "2024-07-22"),
        ("22 July 2024", "2024-07-22"),
        ("Jul 22 2024", "2024-07-22"),
        ("22nd of July 2024", "2024-07-22"),
        ("22 de julio de 2024", "2024-07-22"),
        ("22 de julio del 2024", "2024-07-22"),
        ("julio 22, 2024", "2024-07-22"),
        ("22 DE JULIO DE 2024", "2024-07-22"),
        ("3 sept 2025", "2025-09-03"),
        ("3 set. 2025", "2025-09-03"),
        ("5 de setiembre de 2025", "2025-09-05"),
        ("1 ene 2025", "2025-01-01"),
        ("24 dic 2025", "2025-12-24"),
        ("14 ago 2023", "2023-08-14"),
        ("2 abr 2023", "2023-04-02"),
        ("Dec 31, 1999", "1999-12-31"),
        ("29/02/2024", "2024-02-29"),
    ],
)
def test_every_written_format(written: str, iso: str) -> None:
    text = f"Nota: {written}. Fin"
    found = find_dates(text)
    assert [d[2] for d in found] == [iso]
    start, end, _ = found[0]
    assert text[start:end].rstrip(".") == written.rstrip(".")
    assert parse_date(written) == iso


def test_weekday_prefix_is_outside_the_span() -> None:
    text = "lunes, 22 de julio de 2024"
    assert find_dates(text) == [(7, len(text), "2024-07-22")]
    assert parse_date("Monday, July 22, 2024") == "2024-07-22"


@pytest.mark.parametrize(
    "invalid",
    ["31/02/2024", "29/02/2023", "2024-13-01", "2024-02-30", "32 de enero de 2024", "00/01/2024"],
)
def test_invalid_dates_are_skipped(invalid: str) -> None:
    assert find_dates(f"el {invalid} no existe") == []
    assert parse_date(invalid) is None


def test_day_month_order() -> None:
    assert parse_date("05/06/2024") == "2024-06-05"  # ambiguous: day first
    assert parse_date("13/06/2024") == "2024-06-13"  # obvious day first
    assert parse_date("07/22/2024") == "2024-07-22"  # only month/day is possible


def test_non_month_words_and_numbers_are_not_dates() -> None:
    assert find_dates("page 12, 2024 and 3 dogs 2024 and port 8443 and v1.26.4") == []
    # A rejected candidate does not hide a real date right after it.
    assert find_dates("3 dogs 2024-05-06") == [(7, 17, "2024-05-06")]


def test_several_dates_in_order_with_offsets() -> None:
    text = "Del 2024-01-02 al 3 de febrero de 2025, y luego July 4, 2026."
    found = find_dates(text)
    assert [d[2] for d in found] == ["2024-01-02", "2025-02-03", "2026-07-04"]
    assert [text[s:e] for s, e, _ in found] == [
        "2024-01-02",
        "3 de febrero de 2025",
        "July 4, 2026",
    ]


def test_match_date_at() -> None:
    assert match_date_at("## 22/07/2024", 3) == (3, 13, "2024-07-22")
    assert match_date_at("## 22/07/2024", 0) is None
    assert match_date_at("abc", 10) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-09-10", "2026-09-10T00:00:00Z"),
        ("2026-09-10T17:45:00Z", "2026-09-10T17:45:00Z"),
        ("2026-09-10T17:45:30.123Z", "2026-09-10T17:45:30Z"),
        ("2026-09-10 17:45", "2026-09-10T17:45:00Z"),
        ("2026-09-10T01:00:00+02:00", "2026-09-09T23:00:00Z"),
        ("2026-09-10T22:30:00-0330", "2026-09-11T02:00:00Z"),
        ("22/07/2024", "2024-07-22T00:00:00Z"),
        ("lunes, 22 de julio de 2024", "2024-07-22T00:00:00Z"),
        ("July 22, 2024", "2024-07-22T00:00:00Z"),
        ("  2024-07-22  ", "2024-07-22T00:00:00Z"),
        (None, None),
        ("", None),
        ("yesterday", None),
        ("2024-02-30", None),
    ],
)
def test_normalize_timestamp(value: str | None, expected: str | None) -> None:
    assert normalize_timestamp(value) == expected


def test_normalize_timestamp_bad_clock_falls_back_to_the_day() -> None:
    assert normalize_timestamp("2026-09-10T25:61:00Z") == "2026-09-10T00:00:00Z"


def test_non_strings_never_raise() -> None:
    assert find_dates(None) == []  # type: ignore[arg-type]
    assert parse_date(12) is None  # type: ignore[arg-type]
    assert normalize_timestamp(3.5) is None  # type: ignore[arg-type]
    assert normalize_timestamp(date(2024, 7, 22)) == "2024-07-22T00:00:00Z"  # type: ignore[arg-type]


def test_year_mentions() -> None:
    text = "In 2024 I moved; in 1999 too. v1.2024 and 21000 and 2101 are not years. 22/07/2024."
    assert year_mentions(text) == [2024, 1999]
    assert year_mentions("nothing") == []


@pytest.mark.parametrize(
    "unit",
    ["x", "1", "1 ", "22 de ", "July 22 ", ".", "22/07/2024 "],
    ids=["letters", "digits", "digit-spaces", "half-spanish", "half-english", "dots", "dates"],
)
def test_linear_time_on_adversarial_shapes(unit: str) -> None:
    """Dense near-dates: 4x the text costs about 4x the counted work (Python lines and regex
    positions, tests/workcount.py), not 16x; no clock involved."""
    k = 8_000 // len(unit)
    found = assert_linear(lambda n: unit * n, find_dates, k)
    assert len(found) == (4 * k if unit == "22/07/2024 " else 0)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789/-.: ,TZdejulyDec+abr")), max_size=200))
def test_scan_matches_plain_finditer(text: str) -> None:
    """The near-digit windowed scan finds exactly what a full regex scan would."""
    expected = []
    pos = 0
    while True:
        m = dates._DATE_RE.search(text, pos)
        if m is None:
            break
        iso = dates._decode(m)
        if iso is None:
            pos = m.start() + 1
        else:
            expected.append((m.start(), m.end(), iso))
            pos = m.end()
    assert find_dates(text) == expected


_FORMATS = [
    lambda d: d.isoformat(),
    lambda d: f"{d.day:02d}/{d.month:02d}/{d.year}",
    lambda d: f"{d.year}/{d.month:02d}/{d.day:02d}",
    lambda d: f"{d.day} de {dates_es[d.month - 1]} de {d.year}",
    lambda d: f"{dates_en[d.month - 1]} {d.day}, {d.year}",
    lambda d: f"{d.day} {dates_en[d.month - 1][:3]} {d.year}",
]
dates_es = "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre".split()
dates_en = (
    "January February March April May June July August September October November December".split()
)


@settings(max_examples=150, deadline=None)
@given(
    st.dates(min_value=date(1900, 1, 1), max_value=date(2100, 12, 31)),
    st.sampled_from(range(len(_FORMATS))),
    st.text(alphabet="abc xyz.,;\n", max_size=20),
    st.text(alphabet="abc xyz.,;\n", max_size=20),
)
def test_any_date_in_any_format_roundtrips(d: date, fmt: int, left: str, right: str) -> None:
    written = _FORMATS[fmt](d)
    text = f"{left} {written} {right}"
    assert parse_date(text) == d.isoformat()
    assert normalize_timestamp(written) == d.isoformat() + "T00:00:00Z"


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_never_raises_and_spans_are_ordered(text: str) -> None:
    found = find_dates(text)
    last = 0
    for start, end, iso in found:
        assert last <= start < end <= len(text)
        date.fromisoformat(iso)
        last = end
    normalize_timestamp(text)
    year_mentions(text)


def test_consecutive_days_all_found() -> None:
    start = date(2024, 1, 1)
    days = [start + timedelta(days=i) for i in range(400)]
    text = "\n".join(f"{d.day:02d}/{d.month:02d}/{d.year} entrada" for d in days)
    assert [x[2] for x in find_dates(text)] == [d.isoformat() for d in days]
