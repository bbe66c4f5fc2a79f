"""Tests for ihmt.text.tokenize, ihmt.text.stopwords and ihmt.text.keywords."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ihmt.text.keywords import excerpt, representative_sentences, title_of, top_keywords
from ihmt.text.stopwords import STOPWORDS, is_stopword
from ihmt.text.tokenize import MAX_TOKEN_CHARS, fold, term_counts, terms, tokenize

# --------------------------------------------------------------------------- fold


@pytest.mark.parametrize(
    ("raw", "folded"),
    [
        ("Benidorm", "benidorm"),
        ("VACACIONES", "vacaciones"),
        ("mudé", "mude"),
        ("Mudé", "mude"),
        ("niño", "nino"),
        ("pingüino", "pinguino"),
        ("Straße", "strasse"),
        ("Œuvre", "oeuvre"),
        ("Æther", "aether"),
        ("Ångström", "angstrom"),
        ("Ελληνικά", "ελληνικα"),
        ("Ёлка", "елка"),
        ("ＡＢＣ", "abc"),
        ("ﬁle", "file"),
    ],
)
def test_fold_lowercases_and_strips_accents(raw: str, folded: str) -> None:
    assert fold(raw) == folded


def test_fold_decomposed_accent_matches_precomposed() -> None:
    assert fold("me mude\u0301") == fold("me mudé") == "me mude"


def test_fold_controls_and_surrogates_become_separators() -> None:
    assert fold("a\x00b") == "a b"
    assert fold("a\ud800b") == "a b"
    assert fold("x\x07y\x9fz") == "x y z"


def test_fold_drops_invisible_format_characters() -> None:
    assert fold("re\u00adserve\u200b") == "reserve"


def test_fold_keeps_script_marks_and_kana_voicing() -> None:
    assert fold("हिन्दी") == "हिन्दी"
    assert fold("ガ") == "ガ"
    assert fold("ｶﾞ") == "ガ"


# ----------------------------------------------------------------------- tokenize


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("reserveStock", ["reservestock", "reserve", "stock"]),
        ("HTTPServerError", ["httpservererror", "http", "server", "error"]),
        ("max_tokens", ["max_tokens", "max", "tokens"]),
        ("PG17", ["pg17", "pg", "17"]),
        ("3.11.7", ["3.11.7", "3.11"]),
        ("I moved to Valencia.", ["i", "moved", "to", "valencia"]),
        ("Me mudé a Benidorm", ["me", "mude", "a", "benidorm"]),
        ("long-term", ["long-term", "long", "term"]),
    ],
)
def test_tokenize_examples(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


def test_plain_words_do_not_emit_parts() -> None:
    assert tokenize("Valencia stock HTTP") == ["valencia", "stock", "http"]


def test_camel_case_with_snake_segments() -> None:
    assert tokenize("my_camelCase") == ["my_camelcase", "my", "camelcase", "camel", "case"]


def test_leading_and_trailing_underscores_are_dropped() -> None:
    assert tokenize("__init__") == ["init"]


def test_numbers_and_years_are_tokens() -> None:
    assert tokenize("port 8443")[-1] == "8443"
    assert "2026" in tokenize("Moved in 2026.")
    toks = tokenize("PostgreSQL 17")
    assert toks[0] == "postgresql"
    assert toks[-1] == "17"


def test_versions_match_between_query_and_text() -> None:
    doc = tokenize("We upgraded to v2.3 last week.")
    for query in ("v2.3", "V2.3"):
        assert set(tokenize(query)) <= set(doc)
    assert "v2.3" in doc
    assert "2.3" in doc
    assert "v2" in doc


def test_dotted_version_keeps_its_form() -> None:
    toks = tokenize("Python 3.11.7.")
    assert "3.11.7" in toks
    assert "3.11" in toks
    assert all(not t.endswith(".") for t in toks)


def test_date_splits_into_parts() -> None:
    assert tokenize("2026-03-14") == ["2026-03-14", "2026", "03", "14"]


def test_file_names_and_modules() -> None:
    assert tokenize("tokenize.py") == ["tokenize.py", "tokenize", "py"]


def test_language_names_with_symbols() -> None:
    assert tokenize("C++ and C#") == ["c++", "and", "c#"]


def test_apostrophe_separates() -> None:
    assert tokenize("don't") == ["don", "t"]


def test_other_scripts() -> None:
    assert tokenize("Привет, Москва!") == ["привет", "москва"]
    assert tokenize("Καλημέρα κόσμε") == ["καλημερα", "κοσμε"]
    assert tokenize("مَرْحَبًا بالعالم") == ["مرحبا", "بالعالم"]
    assert tokenize("हिन्दी भाषा") == ["हिन्दी", "भाषा"]
    assert tokenize("한국어 문장") == ["한국어", "문장"]


def test_cjk_ideographs_split_per_character_with_bigrams() -> None:
    assert tokenize("東京") == ["東", "東京", "京"]
    toks = tokenize("我住在东京。")
    assert {"我", "住", "在", "东", "京", "东京"} <= set(toks)
    assert tokenize("2026年") == ["2026", "年"]


def test_controls_separate_tokens() -> None:
    assert tokenize("alpha\x00beta\ud800gamma\x1fdelta") == ["alpha", "beta", "gamma", "delta"]


def test_long_tokens_are_truncated() -> None:
    toks = tokenize("x" * 500 + " " + "Y" * 70 + "_" + "z" * 3)
    assert toks[0] == "x" * MAX_TOKEN_CHARS
    assert all(len(t) <= MAX_TOKEN_CHARS for t in toks)


def test_tokenize_is_deterministic() -> None:
    text = "reserveStock v2.3 Benidorm 東京 HTTPServerError max_tokens " * 20
    assert tokenize(text) == tokenize(text)


def test_empty_and_punctuation_only() -> None:
    assert tokenize("") == []
    assert tokenize("  ...,;--!!  ") == []
    assert terms("") == []
    assert term_counts("") == {}


@pytest.mark.parametrize(
    "text",
    [
        ("reserveStock the quick Brown fox v2.3 port 8443 " * 25_000)[:1_000_000],
        "a" * 1_000_000,
        "aB" * 500_000,
        "a_" * 500_000,
        "1." * 500_000,
        "ab-" * 333_333,
        "東京" * 500_000,
        "-." * 500_000,
        "a" + "\u0301" * 999_999,
        ("mudé Benidorm ñandú " * 52_000)[:1_000_000],
    ],
    ids=[
        "words",
        "one-word",
        "camel",
        "snake",
        "dots",
        "kebab",
        "han",
        "punct",
        "marks",
        "accents",
    ],
)
def test_one_megabyte_single_line_finishes(text: str) -> None:
    toks = tokenize(text)
    assert all(0 < len(t) <= MAX_TOKEN_CHARS for t in toks)


def test_long_query_finishes() -> None:
    query = ("where do I live reserveStock v2.3 " * 400)[:10_000]
    assert "reservestock" in terms(query)


# -------------------------------------------------------------------------- terms


def test_terms_drop_stop_words_both_languages() -> None:
    # terms are in their vocabulary form (text/vocabulary.py): stems, glossary, aliases
    assert terms("Where did I move when I left Madrid?") == ["mov", "left", "madrid"]
    assert terms("¿Dónde vivo y cómo es mi trabajo?") == ["liv", "work"]
    assert terms("What stack does my work use?") == ["stack", "work", "us"]


def test_terms_drop_single_letters_but_keep_digits() -> None:
    assert terms("x y 7 plan B") == ["7", "plan"]


def test_terms_keep_identifier_forms() -> None:
    assert terms("is_valid") == ["is_valid", "valid"]


def test_term_counts() -> None:
    counts = term_counts("Stock stock STOCK reserveStock the")
    assert counts == {"stock": 4, "reservestock": 1, "reserv": 1}
    assert type(counts) is dict


# ---------------------------------------------------------------------- stopwords


def test_required_stop_words() -> None:
    required = "the is i my did does what when where who which how why que como esta"
    for word in required.split():
        assert is_stopword(word), word


def test_spanish_stop_words_are_folded() -> None:
    for word in ("donde", "cuando", "tambien", "mas", "el", "estan"):
        assert is_stopword(word), word
    assert all(w == fold(w) and w.isascii() for w in STOPWORDS)


def test_content_words_are_not_stop_words() -> None:
    for word in ("live", "work", "stack", "moved", "vivo", "trabajo", "valencia", "estado"):
        assert not is_stopword(word), word


def test_french_function_words_are_stop_words_but_not_the_ones_a_note_means() -> None:
    for word in ("les", "est", "qu", "nous", "avec", "quelle", "etait", "depuis"):
        assert is_stopword(word), word
    # "ai" (AI), "eu" (EU), "ca" (a certificate authority), "ci" (CI); Spanish "mes" (month),
    # "tres" (three), "sur" (south), "deja" (leaves)
    for word in ("ai", "eu", "ca", "ci", "mes", "tres", "sur", "deja", "comment", "plus"):
        assert not is_stopword(word), word


def test_stop_word_list_size() -> None:
    # function words of three languages (English, Spanish, French): a list grown past this
    # has likely taken in content words
    assert isinstance(STOPWORDS, frozenset)
    assert 300 <= len(STOPWORDS) <= 700


# ----------------------------------------------------------------------- hypothesis

_FRAGMENTS = [
    "reserveStock",
    "HTTPServerError",
    "max_tokens",
    "v2.3",
    "3.11.7",
    "PG17",
    "mudé",
    "Straße",
    "東京",
    "ガ",
    "हिन्दी",
    "\u0301",
    "\ud800",
    "\x00",
    "\u00ad",
    "ﬁ",
    "½",
    "ΐ",
    "İ",
    "C++",
    "-",
    ".",
    "_",
    " ",
    "\n",
    "#",
]
_any_char = st.characters(exclude_categories=())
_texts = st.one_of(
    st.text(_any_char, max_size=200),
    st.lists(
        st.one_of(st.sampled_from(_FRAGMENTS), st.text(_any_char, max_size=3)), max_size=40
    ).map("".join),
)


@settings(max_examples=150, deadline=None)
@given(_texts)
def test_tokenize_properties(text: str) -> None:
    toks = tokenize(text)
    for token in toks:
        assert token
        assert len(token) <= MAX_TOKEN_CHARS
        assert fold(token) == token
        assert not any(ch.isspace() for ch in token)
    assert tokenize(text) == toks


@settings(max_examples=100, deadline=None)
@given(_texts)
def test_terms_properties(text: str) -> None:
    """No stop word and no lone letter is indexed. A term is the stem of a word, and a stem
    may spell a stop word ("owned" and "owns" -> "own"): that keeps the inflections matching
    each other, and the stop word itself still never becomes a term."""
    found = terms(text)
    assert all(len(t) > 1 or t.isdecimal() for t in found)
    kept = [t for t in tokenize(text) if not is_stopword(t) and (len(t) > 1 or t.isdecimal())]
    assert len(found) >= len(kept)  # one term per kept word, plus "version" beside versions
    assert terms(" ".join(w for w in text.split() if is_stopword(w.lower()))) == []
    assert sum(term_counts(text).values()) == len(found)


def test_a_short_form_in_the_plural_is_its_word_in_the_plural():
    assert terms("alert msgs") == terms("alert messages")
    assert terms("the TLS certs") == terms("the TLS certificates")
    assert terms("orgs") == terms("organizations") and terms("params") == terms("parameters")
    assert terms("devs") != terms("development")  # developers, not the environment


def test_inflections_whose_stem_spells_a_stop_word_still_match():
    # ("owns" and "owned" are indexed as the noun they share with "the owner of")
    assert terms("Marta owns billing-service")[1] == terms("who owned it")[-1] == "owner"
    assert terms("own") == [] and terms("HÆ") == terms("hae")


@settings(max_examples=150, deadline=None)
@given(_texts)
def test_fold_never_raises_and_is_idempotent(text: str) -> None:
    folded = fold(text)
    assert fold(folded) == folded


@settings(max_examples=60, deadline=None)
@given(st.lists(_texts, max_size=4), st.integers(min_value=0, max_value=200))
def test_keyword_helpers_never_raise(texts: list[str], limit: int) -> None:
    assert len(top_keywords(texts, n=5)) <= 5
    assert len(representative_sentences(texts, n=2, max_chars=limit)) <= limit
    for text in texts:
        assert len(excerpt(text, max_chars=limit)) <= limit
        assert len(title_of(text, max_chars=limit)) <= limit


# ----------------------------------------------------------------------- keywords

_NOTES = [
    "The reserveStock function locks the stock row. It retries on deadlock.",
    "We call reserveStock from checkout.\nreserveStock uses PostgreSQL 17 advisory locks!",
    "Deadlock retries are capped at three.",
]


def test_top_keywords_ranks_by_frequency_without_stop_words() -> None:
    keywords = top_keywords(_NOTES, n=5)
    # reserveStock (three times) and its part "stock" first, then the words said twice in the
    # order they first appear, before any word said once
    assert keywords == ["reservestock", "stock", "locks", "retries", "deadlock"]
    assert top_keywords(_NOTES, n=20)[:5] == keywords
    assert "the" not in keywords and "it" not in keywords
    assert "deadlock" in keywords


def test_top_keywords_prefers_compound_over_its_parts() -> None:
    keywords = top_keywords(["reserveStock reserveStock checkout"], n=10)
    assert keywords == ["reservestock", "checkout"]


def test_top_keywords_keeps_parts_shared_by_several_identifiers() -> None:
    keywords = top_keywords(["reserveStock releaseStock"], n=10)
    assert keywords[0] == "reservestock"
    assert set(keywords) == {"reservestock", "releasestock", "stock"}


def test_top_keywords_ties_by_first_appearance() -> None:
    assert top_keywords(["zeta alpha mango"], n=3) == ["zeta", "alpha", "mango"]


def test_top_keywords_short_terms_last() -> None:
    assert top_keywords(["db db db postgres"], n=2) == ["postgres", "db"]


def test_top_keywords_limits_and_determinism() -> None:
    assert len(top_keywords(_NOTES, n=3)) == 3
    assert top_keywords(_NOTES) == top_keywords(list(_NOTES))
    assert top_keywords([], n=5) == []
    assert top_keywords(_NOTES, n=0) == []


# ------------------------------------------------------------------------ summary


def test_representative_sentences_picks_central_sentences_in_order() -> None:
    texts = [
        "Weather was nice. Postgres deadlock on checkout.",
        "We fixed the postgres deadlock with advisory locks. Lunch was late.",
    ]
    summary = representative_sentences(texts, n=2)
    assert summary == (
        "Postgres deadlock on checkout. We fixed the postgres deadlock with advisory locks."
    )


def test_representative_sentences_splits_on_all_terminators() -> None:
    summary = representative_sentences(["Alpha beta? Gamma!\nDelta gamma gamma"], n=1)
    assert summary == "Delta gamma gamma"


def test_representative_sentences_code_lines_are_sentences() -> None:
    texts = ["```python\nresult = cache.get(key)\n```\ncache misses are slow. cache it."]
    summary = representative_sentences(texts, n=1)
    assert summary == "result = cache.get(key)"


def test_representative_sentences_truncates_at_word_boundary() -> None:
    texts = ["alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"]
    summary = representative_sentences(texts, n=1, max_chars=30)
    assert len(summary) <= 30
    assert summary.endswith("…")
    assert summary[:-1] == "alpha beta gamma delta epsilon"[: len(summary) - 1]
    assert summary[:-1].split()[-1] in texts[0].split()


def test_representative_sentences_is_deterministic_and_handles_empty() -> None:
    assert representative_sentences(_NOTES) == representative_sentences(list(_NOTES))
    assert representative_sentences([]) == ""
    assert representative_sentences(["", "   \n"]) == ""
    assert representative_sentences(_NOTES, n=0) == ""


def test_representative_sentences_skips_duplicates() -> None:
    summary = representative_sentences(["Deadlock fixed.", "Deadlock fixed.", "Other."], n=2)
    assert summary == "Deadlock fixed. Other."


# ---------------------------------------------------------------- excerpt & title


def test_excerpt_skips_blank_and_brace_lines() -> None:
    text = "\n\n  {\n---\n```\n  Hello   world, this is\n a test.\n\nSecond paragraph"
    assert excerpt(text) == "Hello world, this is a test."


def test_excerpt_cuts_at_word_boundary() -> None:
    text = "one two three four five six seven eight nine ten"
    cut = excerpt(text, max_chars=20)
    assert cut == "one two three four…"
    assert len(cut) <= 20
    assert excerpt("short", max_chars=20) == "short"
    assert excerpt("   \n }\n") == ""


def test_excerpt_hard_cuts_one_long_word() -> None:
    assert excerpt("x" * 50, max_chars=10) == "x" * 9 + "…"


def test_title_from_markdown_heading() -> None:
    assert title_of("\n## Deploy   notes ##\nbody text") == "Deploy notes"


def test_title_from_first_sentence() -> None:
    assert title_of("Moved to Valencia in 2026. Then more.") == "Moved to Valencia in 2026"
    assert title_of("- Use pytest for tests\nmore") == "Use pytest for tests"


def test_title_truncated() -> None:
    title = title_of("word " * 40, max_chars=20)
    assert len(title) <= 20
    assert title.endswith("…")
    assert title_of("") == ""


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80))
def test_the_ascii_scanner_finds_what_the_unicode_scanner_finds(text: str) -> None:
    """ASCII text skips the Unicode tables (built once per process, ~0.2 s); the tokens must
    be the same as the full scanner's."""
    from ihmt.text.tokenize import _ASCII_SCANNER, _prenormalize, _tables

    pre = _prenormalize(text)
    full = [(m.lastgroup, m.span()) for m in _tables()[1].finditer(pre)]
    assert [(m.lastgroup, m.span()) for m in _ASCII_SCANNER.finditer(pre)] == full


def test_one_line_flattens_controls_and_cuts_with_an_ellipsis() -> None:
    from ihmt.text.clean import clean_surrogates, one_line

    assert one_line("a\n\tb\x00c\u2028d   e") == "a b c d e"
    assert one_line("x" * 10, 5) == "xxxx…" and one_line("short", 5) == "short"
    assert one_line(None) == ""
    assert clean_surrogates("ok \ud800 end") == "ok \ufffd end"


def test_ihmt_home_is_resolved_in_one_place(monkeypatch, tmp_path) -> None:
    from pathlib import Path

    from ihmt.config import default_workspace
    from ihmt.store.layout import resolve_workspace

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("IHMT_HOME", "  ~/memory  ")
    assert default_workspace() == Path(tmp_path) / "memory"
    assert resolve_workspace(None) == (Path(tmp_path) / "memory").absolute()
    monkeypatch.setenv("IHMT_HOME", "   ")  # blank means unset, everywhere
    assert default_workspace() == Path(tmp_path) / ".ihmt"


@pytest.mark.parametrize(
    ("plural", "singular"),
    [("PRs", "PR"), ("VMs", "VM"), ("JWTs", "JWT"), ("GPUs", "GPU"), ("DBs", "DB"), ("MRs", "MR")],
)
def test_acronym_plural_is_the_acronym(plural: str, singular: str) -> None:
    # "VMs" used to split into "V" + "Ms" (milliseconds) and "JWTs" into "JWT" + "ts"
    # (TypeScript): the question's "PR" never found the memory's "PRs"
    assert terms(plural) == terms(singular)


def test_digit_plurals_and_mixed_case_words_keep_their_reading() -> None:
    assert terms("K8s") == terms("Kubernetes") + ["8"]
    assert "mac" in terms("macOS")  # lower case first: still split as CamelCase
    assert "ms" in terms("the p95 is 40 ms")


def test_a_phrase_written_with_hyphens_counts_as_its_abbreviation():
    # "single sign-on" is indexed as "single", "sign-on", "sign": the phrase is read on the
    # words as written apart, so it still counts as "SSO"
    assert "sso" in terms("Grafana: single sign-on via Okta")
    assert "sso" in terms("single sign on") and "sso" in terms("SSO")
    assert "mfa" in terms("multi-factor authentication")


# --------------------------------------------------------------------------- terms memo


def test_terms_reads_a_text_once_and_hands_out_a_fresh_list(monkeypatch) -> None:
    """One search reads the same texts several times; the second read costs no tokenizing."""
    import ihmt.text.tokenize as tokenize_module

    calls = []
    real = tokenize_module._vocabulary_terms
    monkeypatch.setattr(
        tokenize_module, "_vocabulary_terms", lambda t, *kinds: calls.append(t) or real(t, *kinds)
    )
    tokenize_module._remembered_terms.cache_clear()
    text = "Staging now runs PostgreSQL 16.2 on db-stg-02"
    first = terms(text)
    first.append("mutated")
    assert terms(text) == real(text) and "mutated" not in terms(text)
    assert calls == [text]
    long_text = "word " * (tokenize_module.MEMO_CHARS // 5 + 1)
    terms(long_text), terms(long_text)
    assert calls[1:] == [long_text, long_text]  # a long text is never kept


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=200))
def test_remembered_terms_equal_fresh_ones(text: str) -> None:
    import ihmt.text.tokenize as tokenize_module

    assert terms(text) == tokenize_module._vocabulary_terms(text)
    assert terms(text) == tokenize_module._vocabulary_terms(text)
