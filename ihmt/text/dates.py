"""Find and normalise calendar dates written in English or Spanish.

Memories are stamped with the date the text talks about, so ingest must read the many ways
people write dates ("22/07/2024", "July 22, 2024", "lunes, 22 de julio de 2024", ISO) and
reduce them to one sortable form. Every pattern has bounded repetition, so scanning is linear
in the text length even for a megabyte on one line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime, timedelta, timezone

from .. import re_cache

__all__ = [
    "find_dates",
    "match_date_at",
    "normalize_timestamp",
    "parse_date",
    "year_mentions",
    "month_number",
]

# Month names and abbreviations, English and Spanish. Longest first so the regex alternation
# prefers "septiembre" over "sep"; a letter may never follow the name.
_MONTHS: dict[str, int] = {
    "january": 1,
    "february": 2,
    "march": 3,
    "april": 4,
    "may": 5,
    "june": 6,
    "july": 7,
    "august": 8,
    "september": 9,
    "october": 10,
    "november": 11,
    "december": 12,
    "enero": 1,
    "febrero": 2,
    "marzo": 3,
    "abril": 4,
    "mayo": 5,
    "junio": 6,
    "julio": 7,
    "agosto": 8,
    "septiembre": 9,
    "setiembre": 9,
    "octubre": 10,
    "noviembre": 11,
    "diciembre": 12,
    "jan": 1,
    "ene": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "abr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "ago": 8,
    "sept": 9,
    "sep": 9,
    "set": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
    "dic": 12,
}
_LETTER = "a-záéíóúüñ"
# Any 3-10 letter word stands in for the month; ``_decode`` rejects words that are not month
# names. One character class is far cheaper per position than an alternation of 46 names.
_MONTH = rf"(?<![{_LETTER}])[{_LETTER}]{{3,10}}(?![{_LETTER}])"
_ORD = r"(?:st|nd|rd|th|º|°|ª)?"

_ISO = (
    r"(?<!\d)(?P<iy>\d{4})-(?P<im>\d{1,2})-(?P<id>\d{1,2})"
    r"(?:(?:T|[ ])(?P<hh>\d{2}):(?P<mi>\d{2})(?::(?P<ss>\d{2})(?:[.,]\d{1,9})?)?"
    r"(?P<tz>Z|[+-]\d{2}:?\d{2})?)?(?!\d)"
)
_YMD = r"(?<!\d)(?P<ay>\d{4})(?P<asep>[/.])(?P<am>\d{1,2})(?P=asep)(?P<ad>\d{1,2})(?!\d)"
_DMY = r"(?<![\d.])(?P<na>\d{1,2})(?P<nsep>[/.-])(?P<nb>\d{1,2})(?P=nsep)(?P<ny>\d{4})(?!\d)"
_DAY_MONTH = (
    rf"(?<!\d)(?P<wd>\d{{1,2}}){_ORD}"
    rf"(?:\s{{1,3}}(?:de|of)\s{{1,3}}|[\s-]{{1,3}})(?P<wm>{_MONTH})\.?"
    r"(?:,?\s{1,3}(?:de|del|of)\s{1,3}|,?\s{1,3}|-)(?P<wy>\d{4})(?!\d)"
)
_MONTH_DAY = (
    rf"(?P<vm>{_MONTH})\.?\s{{1,3}}(?P<vd>\d{{1,2}}){_ORD}"
    r"(?:,?\s{1,3}(?:de|del)\s{1,3}|,\s{0,3}|\s{1,3})(?P<vy>\d{4})(?!\d)"
)
_DATE_RE = re_cache.compile(
    "|".join(f"(?:{p})" for p in (_ISO, _YMD, _DMY, _DAY_MONTH, _MONTH_DAY)), re.IGNORECASE
)
_DIGITS = re_cache.compile(r"\d+")
# A written date starts at most this many characters before its first digit ("septiembre.   5").
_LOOKBACK = 16
_WINDOW = 256  # characters searched per window
_SAFE = 64  # longer than any date match plus its look-ahead
_YEAR_RE = re_cache.compile(r"(?<![\w.])(19\d\d|20\d\d|2100)(?![\w]|\.\d)")

_MIN_YEAR, _MAX_YEAR = 1000, 2999


def month_number(name: str) -> int:
    """1-12 for an English or Spanish month name or abbreviation (folded), else 0."""
    return _MONTHS.get(name.lower(), 0)


def _ymd(y: int, m: int, d: int) -> str | None:
    """ISO date string if (y, m, d) is a real calendar day in the accepted range."""
    if not _MIN_YEAR <= y <= _MAX_YEAR:
        return None
    try:
        return date(y, m, d).isoformat()
    except ValueError:
        return None


def _decode(m: re.Match[str]) -> str | None:
    """The ISO day a regex match denotes, or None when the numbers are not a real date."""
    g = m.groupdict()
    if g["iy"] is not None:
        return _ymd(int(g["iy"]), int(g["im"]), int(g["id"]))
    if g["ay"] is not None:
        return _ymd(int(g["ay"]), int(g["am"]), int(g["ad"]))
    if g["ny"] is not None:
        a, b = int(g["na"]), int(g["nb"])
        # Day first unless only month/day makes sense ("07/22/2024").
        day, month = (b, a) if a <= 12 < b else (a, b)
        return _ymd(int(g["ny"]), month, day)
    if g["wy"] is not None:
        month = _MONTHS.get(g["wm"].lower(), 0)
        return _ymd(int(g["wy"]), month, int(g["wd"])) if month else None
    if g["vy"] is not None:
        month = _MONTHS.get(g["vm"].lower(), 0)
        return _ymd(int(g["vy"]), month, int(g["vd"])) if month else None
    return None


def find_dates(text: str) -> list[tuple[int, int, str]]:
    """Every valid date in ``text`` as (start, end, "YYYY-MM-DD"), in order of appearance.

    Invalid calendar days ("31/02/2024") are skipped rather than guessed.
    """
    if not isinstance(text, str) or not text:
        return []
    return [(m.start(), m.end(), iso) for m, iso in _scan(text)]


def _scan(text: str) -> Iterator[tuple[re.Match[str], str]]:
    """Valid dates in order, with their ISO day, searching only near digits.

    Every date has a digit within ``_LOOKBACK`` characters of its start, so stretches of text
    far from digits are skipped. Searches run in bounded windows; a window only vouches for
    start positions at least ``_SAFE`` characters before its end (longer than any match), so
    the truncation never changes a result. A match that is not a real date ("31/02/2024",
    "page 12, 2024") is dropped and the search resumes one character after its start, so it
    cannot hide a real date inside its span. Each start is tried about once: linear time.
    """
    n = len(text)
    tried = 0  # every start position below this is settled (tried, or inside a match)
    for d in _DIGITS.finditer(text):
        p = d.start()
        if p < tried:
            continue
        s = max(tried, p - _LOOKBACK)
        end = min(n, p + _WINDOW)
        safe = n if end == n else end - _SAFE
        while True:
            m = _DATE_RE.search(text, s, end)
            if m is None:
                tried = max(s, safe + 1)
                break
            if m.start() > safe:  # outside what this window vouches for: retry later
                tried = m.start()
                break
            iso = _decode(m)
            if iso is not None:
                yield m, iso
                tried = m.end()
                break
            s = tried = m.start() + 1


def match_date_at(text: str, pos: int = 0) -> tuple[int, int, str] | None:
    """The date that starts exactly at ``pos`` (used to recognise dated line headers)."""
    if not isinstance(text, str) or not 0 <= pos < len(text):
        return None
    m = _DATE_RE.match(text, pos)
    if m is None:
        return None
    iso = _decode(m)
    return None if iso is None else (m.start(), m.end(), iso)


def parse_date(s: str) -> str | None:
    """The first date written in ``s`` as "YYYY-MM-DD", or None."""
    found = find_dates(s) if isinstance(s, str) else []
    return found[0][2] if found else None


def _with_time(m: re.Match[str], day: str) -> str | None:
    """Full UTC timestamp for an ISO match that carries a clock time."""
    hh, mi, ss, tz = m.group("hh"), m.group("mi"), m.group("ss"), m.group("tz")
    h, mnt, sec = int(hh), int(mi), min(int(ss or 0), 59)
    if h > 23 or mnt > 59:
        return None
    stamp = datetime.fromisoformat(day).replace(hour=h, minute=mnt, second=sec)
    if tz and tz.upper() != "Z":
        sign = 1 if tz[0] == "+" else -1
        digits = tz[1:].replace(":", "")
        off_h, off_m = int(digits[:2]), int(digits[2:])
        if off_h > 23 or off_m > 59:
            return None
        offset = timezone(sign * timedelta(hours=off_h, minutes=off_m))
        stamp = stamp.replace(tzinfo=offset).astimezone(timezone.utc)
        if not _MIN_YEAR <= stamp.year <= _MAX_YEAR:
            return None
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")


def normalize_timestamp(value: str | None) -> str | None:
    """``value`` as "YYYY-MM-DDTHH:MM:SSZ" (UTC); a bare date becomes midnight; else None.

    Accepts ISO dates and datetimes (offsets are converted to UTC, a missing zone is read as
    UTC) and every written format ``find_dates`` knows.
    """
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(timezone.utc).replace(tzinfo=None)
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, date):
        return value.isoformat() + "T00:00:00Z"
    if not isinstance(value, str):
        return None
    for m, day in _scan(value.strip()):
        if m.group("iy") is not None and m.group("hh") is not None:
            full = _with_time(m, day)
            if full is not None:
                return full
        return day + "T00:00:00Z"
    return None


def year_mentions(text: str) -> list[int]:
    """Years 1900-2100 written as standalone numbers (including inside dates), first-seen order.

    Lets a question like "what happened in 2024" match text that names the year.
    """
    if not isinstance(text, str):
        return []
    seen: dict[int, None] = {}
    for m in _YEAR_RE.finditer(text):
        seen.setdefault(int(m.group(1)), None)
    return list(seen)
