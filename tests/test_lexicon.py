"""The generated lexicon: Spanish forms and English near-synonyms indexed as one term.

The table is built from hand-written word lists (tools/lexicon/); these tests check the
committed module is what those lists build, that the generated inflections are Spanish, that
English text keeps its meaning, and that an English question finds a Spanish note through
the whole search.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from ihmt import IHMT
from ihmt.text.tokenize import terms
from ihmt.text.vocabulary import normalize, stem

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def builder():
    spec = importlib.util.spec_from_file_location(
        "build_lexicon", ROOT / "tools" / "build_lexicon.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_lexicon"] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("build_lexicon", None)


def test_committed_table_is_what_the_word_lists_build(builder):
    committed = (ROOT / "ihmt" / "text" / "lexicon_table.py").read_text(encoding="utf-8")
    assert committed == builder.build(), "run: python3 tools/build_lexicon.py"


@pytest.mark.parametrize(
    ("infinitive", "forms"),
    [
        ("buscar", {"busco", "busca", "busque", "buscaron", "buscando", "buscado"}),
        ("pagar", {"pague", "pagaron", "pagadas"}),
        ("escoger", {"escojo", "escoja", "escogieron"}),
        ("leer", {"leyo", "leyendo", "leyeron"}),
        ("construir", {"construyo", "construye", "construyendo", "construido"}),
        ("mudarse", {"mudo", "mudaron", "mudarse", "mudandose"}),
    ],
)
def test_regular_conjugations_are_spelled_as_written(builder, infinitive, forms):
    assert forms <= builder.verb_forms(infinitive)


def test_plurals_and_feminines(builder):
    assert builder.noun_forms("factura") == {"factura", "facturas"}
    assert builder.noun_forms("servidor") == {"servidor", "servidores"}
    assert builder.noun_forms("vez") == {"vez", "veces"}
    assert builder.noun_forms("lunes") == {"lunes"}
    assert {"rapida", "rapidos", "rapidamente"} <= builder.adjective_forms("rapido")


def test_a_hand_listed_noun_beats_a_verb_form_and_a_tie_is_left_out(builder):
    entries = [
        ("cuenta", "account", "noun"),
        ("contar", "count", "verb"),
        ("llamar", "call", "verb"),
        ("llamo", "flame", "noun"),
        ("copiar", "copy", "verb"),
        ("copar", "corner", "verb"),
    ]
    table = builder.form_table(entries, collisions=set())
    assert table["cuenta"] == "account" and table["contamos"] == "count"
    assert table["llamo"] == "flame"  # the noun itself outranks the verb's generated form
    assert "copie" not in table or table["copie"] == "copy"
    assert "copa" not in table or table["copa"] == "corner"


def test_a_lemma_two_lists_translate_differently_stops_the_build(builder, tmp_path):
    # left to the tie rule, "correo" (mail in one list, email in another) and every form it
    # generates were silently dropped: the build now names both places instead
    (tmp_path / "es_a.tsv").write_text("correo\tmail\tnoun\n", encoding="utf-8")
    (tmp_path / "es_b.tsv").write_text(
        "servidor\tserver\tnoun\ncorreo\temail\tnoun\n", encoding="utf-8"
    )
    with pytest.raises(SystemExit, match=r"es_b.tsv:2: correo .*'email'.*'mail' in es_a.tsv:1"):
        builder.read_entries(tmp_path)
    # two words that only fold alike are two lemmas: the tie rule still leaves them out
    (tmp_path / "es_b.tsv").write_text("corréo\temail\tnoun\n", encoding="utf-8")
    table = builder.form_table(builder.read_entries(tmp_path), collisions=set())
    assert "correo" not in table and "correos" not in table


def test_the_word_lists_read_every_work_word_they_list():
    # each was listed twice with two English words, and so read as nothing
    for spanish, english in (
        ("correos", "emails"),
        ("respuesta", "response"),
        ("guardias", "oncall"),
    ):
        assert normalize(spanish) == normalize(english)


def test_forms_that_read_as_english_are_left_out(builder):
    table = builder.form_table([("salir", "leave", "verb")], collisions={"sale", "sales"})
    assert "sale" not in table and table["salimos"] == "leave"


def test_synonym_stems_claimed_by_two_groups_are_dropped(builder):
    table = builder.synonym_table([["holiday", "vacation", "leave"], ["quit", "leave"]])
    assert table[stem("vacation")] == stem("holiday")
    assert stem("leave") not in table


def test_spanish_note_terms_meet_english_question_terms():
    assert set(terms("Las facturas del servidor")) >= {normalize("invoice"), normalize("server")}
    assert normalize("vacaciones") == normalize("vacation")
    assert normalize("ciudades") == normalize("city")


def test_english_words_keep_their_meaning():
    # "sale" is a form of salir and "pie" a Spanish foot: in English text they stay themselves
    assert normalize("sale") == stem("sale")
    assert normalize("pie") == stem("pie")
    assert normalize("deploy") == stem("deploy")


@pytest.mark.parametrize(
    ("word", "group"),
    [
        ("war", "merchandise"),  # "merchandise goods wares": the stems are "good" and "war"
        ("good", "merchandise"),
        ("press", "urgent"),  # "pressing" stems to "press"; so does "pulso" (Spanish)
        ("hug", "enormous"),  # "huge"
        ("hat", "detest"),  # "hate"
        ("NIC", "pleasant"),  # "nice": a network interface card is not lovely
        ("dos", "dosage"),  # "dose": Spanish "two"
        ("scar", "afraid"),  # "scared"
        ("services", "maintenance"),  # "servicing" stems to "servic": every microservice
        ("season", "experienced"),  # "seasoned"
        ("cargo", "freight"),  # Rust's build tool
        ("books", "reservation"),  # "booking": a bookshop's books
        ("finance", "funding"),  # "financing": the finance team
    ],
)
def test_a_synonym_whose_stem_is_another_word_is_left_out(word, group):
    """A group word whose stem is a different common word would join that word to the group:
    every "good" a synonym of "war", every "pulso.internal" host "urgent"."""
    assert not set(terms(word)) & set(terms(group))
    assert "urgent" not in terms("api-staging.pulso.internal")


@pytest.mark.parametrize(
    ("tool", "doing"),
    [
        ("formatter", "formatted"),
        ("linters", "lint"),
        ("compiler", "compiles"),
        ("installer", "installed"),
        ("validator", "validate"),
        ("debugger", "debug"),
    ],
)
def test_a_tool_named_after_its_job_is_the_job(tool, doing):
    assert set(terms(tool)) == set(terms(doing))


def first_hit(tmp_path, notes: list[str], question: str) -> str:
    """The content of the first hit for ``question`` in a new memory holding ``notes``."""
    memory = IHMT.initialize(tmp_path / "m")
    for note in notes:
        memory.save(note)
    result = memory.search(question)
    assert result.hits, result
    return result.hits[0].content


def test_which_formatter_finds_the_note_that_says_formatted_with(tmp_path):
    notes = [
        "The user wants code formatted with black (line length 100) plus isort.",
        "Logs go to journald; the JSON log handler was dropped in June.",
        "Line length for the docs site is 80; the docs build runs nightly.",
    ]
    assert "black" in first_hit(tmp_path, notes, "which formatter do we use?")


def test_an_english_question_finds_the_spanish_note_first(tmp_path):
    memory = IHMT.initialize(tmp_path / "m")
    memory.save("Marta se va de vacaciones del 3 al 14 de agosto; Javier la cubre.")
    memory.save("Marta prefers short pull requests and reviews them in the morning.")
    memory.save("The August release train leaves on the 20th; Marta signs it off.")
    result = memory.search("when is Marta on vacation?")
    assert result.hits, result
    assert "vacaciones" in result.hits[0].content


def test_a_question_parses_only_the_blocks_of_its_words():
    """The tables are read block by block (a form's first three letters): a hook answering
    one prompt must not pay for the ~50,000 forms. A word reads at most one Spanish and one
    French block."""
    from ihmt.text import vocabulary

    vocabulary.normalize.cache_clear()
    vocabulary._block.cache_clear()
    question = "¿quién desactivó la opción de reenviar los recibos duplicados?"
    terms(question)
    parsed = vocabulary._block.cache_info().currsize
    assert 0 < parsed <= 2 * len(question.split())
    assert normalize("desactivo") == normalize("disable")


def test_a_multi_word_term_is_also_its_abbreviation():
    assert normalize("ci") in terms("Our continuous integration runs on GitHub Actions.")
    assert normalize("rn") in terms("The React Native app ships every two weeks.")
    assert normalize("ci") not in terms("Continuous work, then integration tests.")  # not adjacent
    # infrastructure and plant words an agent's notes spell out and questions shorten
    assert normalize("nfs") in terms("The archive is a Network File System export on nas01.")
    assert normalize("hil") in terms("The hardware-in-the-loop rig runs nightly.")
    assert normalize("bff") in terms("The backend for frontend caches profile calls.")
    assert normalize("vps") in terms("What's the IP of the new virtual private server?")
    assert normalize("mbp") in terms("Diego's laptop is a MacBook Pro M3 running colima.")


def test_an_abbreviation_the_vocabulary_reads_otherwise_is_kept_off_phrases(builder, tmp_path):
    (tmp_path / "phrases.tsv").write_text(
        "product requirements document\tprd\nservice level objective\tslo\n", encoding="utf-8"
    )
    phrases = builder.read_phrases(tmp_path / "phrases.tsv", lambda a: a == "prd")
    assert phrases == {("service", "level", "objective"): "slo"}


def test_a_question_with_the_abbreviation_finds_the_spelled_out_memory(tmp_path):
    memory = IHMT.initialize(tmp_path / "m")
    memory.save("The React Native app lives in the acme/mobile repository; Expo SDK 51.")
    memory.save("The web app lives in the acme/web repository; Next.js 14.")
    result = memory.search("which repo holds the RN app?")
    assert "React Native" in result.hits[0].content


@pytest.mark.parametrize(
    ("plural", "abbreviation"),
    [("release candidates", "rc"), ("pull requests", "pr"), ("virtual machines", "vm")],
)
def test_a_multi_word_term_in_the_plural_is_also_its_abbreviation(plural, abbreviation):
    assert abbreviation in terms(plural)


def test_a_plural_first_word_does_not_need_the_phrase_to_be_listed_twice():
    assert set(terms("base de datos")) & set(terms("bases de datos")) >= set(terms("database"))


@pytest.mark.parametrize(
    ("spanish", "english"),
    [
        ("Lisboa", "Lisbon"),
        ("Londres", "London"),
        ("Alemania", "Germany"),
        ("Nápoles", "Naples"),
        ("Estados Unidos", "USA"),
        ("Reino Unido", "UK"),
        ("Nueva York", "NYC"),
    ],
)
def test_a_place_is_one_term_in_both_languages(spanish, english):
    assert set(terms(spanish)) & set(terms(english))


def test_a_spanish_question_finds_the_english_note_about_a_city(tmp_path):
    notes = [
        "Catalina visits the institute in Lisbon from 7 to 18 September.",
        "Catalina reviews the thesis drafts every Friday.",
        "The September release ships on the 18th.",
    ]
    assert "Lisbon" in first_hit(tmp_path, notes, "¿Cuándo viaja Catalina a Lisboa?")


# -- French ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def french(builder):
    return sys.modules["french_forms"]


@pytest.mark.parametrize(
    ("infinitive", "forms"),
    [
        ("deployer", {"deploie", "deployons", "deploye", "deployees", "deploierons"}),
        ("manger", {"mangeons", "mangeait", "mange", "mangent"}),
        ("appeler", {"appelle", "appellent", "appelons", "appellera"}),
        ("finir", {"finissons", "finissent", "fini", "finie", "finira"}),
    ],
)
def test_french_regular_conjugations_are_spelled_as_written(french, infinitive, forms):
    assert forms <= french.verb_forms(infinitive)


def test_french_plurals_feminines_and_adverbs(french):
    assert french.noun_forms("serveur") == {"serveur", "serveurs"}
    assert french.noun_forms("bureau") == {"bureau", "bureaux"}
    assert "journaux" in french.noun_forms("journal")
    assert {"actif", "active", "actives", "activement"} <= french.adjective_forms("actif")
    assert {"recent", "recente", "recemment"} <= french.adjective_forms("recent")


def test_french_note_terms_meet_english_question_terms():
    assert set(terms("Les sauvegardes du serveur")) >= {normalize("backup"), normalize("server")}
    assert normalize("deployee") == normalize("deploy")
    assert normalize("mot") != normalize("password")  # one word of a phrase is not the phrase
    assert normalize("password") in terms("le mot de passe de la base de données")
    assert normalize("username") in terms("son nom d'utilisateur GitHub")


@pytest.mark.parametrize(
    "word",
    [
        "tester",
        "exporter",
        "font",
        "cache",
        "comment",
        "adapter",
        "client",
        "lecture",
        "transformer",
    ],
)
def test_english_words_spelled_like_french_ones_keep_their_meaning(word):
    """A French form that English text uses ("the tester", "font", "cache") stays English."""
    assert normalize(word) == stem(word)


def test_a_spanish_word_is_never_read_as_french():
    # "deja" (leaves) is a Spanish word, not the French "déjà" a stop list would drop;
    # "partir" is French and Spanish: "a partir de" (from) adds no term
    assert normalize("deja") in terms("¿Dónde deja Ximena los informes?")
    assert "from" not in terms("¿A partir de qué hora?")


@pytest.mark.parametrize(
    ("notes", "question", "expected"),
    [
        (
            [
                "On garde les ventes deux ans, ensuite la purge les supprime.",
                "We keep the nginx access logs for 30 days on the analytics box.",
                "Sales reports go out every Monday to the store managers.",
            ],
            "how long do we keep the sales rows?",
            "ventes",
        ),
        (
            [
                "Nightly backups of the orders database go to OVH Object Storage.",
                "The orders API listens on port 8040 behind Caddy.",
                "Store managers get the production plan PDF by email at 5 am.",
            ],
            "les sauvegardes de la base de données vont où?",
            "OVH",
        ),
    ],
)
def test_a_question_finds_the_note_written_in_the_other_language(
    tmp_path, notes, question, expected
):
    """An English question and a French note, a French question and an English note."""
    assert expected in first_hit(tmp_path, notes, question)


def test_a_note_naming_a_product_is_found_by_what_the_product_is(tmp_path):
    """ "Fedora" is a Linux distro, a ThinkPad a laptop: asked by what it is, the note naming
    it answers. Without the kinds both Camila notes hold "camila" and "run" alike and the
    newer one leads."""
    memory = IHMT.initialize(tmp_path / "m")
    memory.save("Camila's ThinkPad runs Fedora 40; she uses Podman instead of Docker.")
    memory.save("Camila runs the weekly data review on Mondays with the two Sams.")
    assert "Fedora" in memory.search("which Linux distro does Camila run?").hits[0].content
    assert "Fedora" in memory.search("what laptop does Camila run?").hits[0].content


def test_the_kind_of_a_product_is_indexed_for_a_note_never_for_a_question():
    """A question naming a product asks about that product ("which Redis version?"), not
    about every note of its kind; a note gets each kind word once, and only when its text
    lacks it."""
    from ihmt.models import MemoryLeaf
    from ihmt.tree.refs import leaf_terms

    assert normalize("linux") not in terms("which Fedora version does Camila run?")
    assert normalize("linux") in terms("Camila runs Fedora 40", kinds=True)
    twice = MemoryLeaf(
        "m1", "Fedora 40 on the laptop, Ubuntu 24.04 on the server.", "", "", "", "", 0
    )
    said = MemoryLeaf("m2", "Linux everywhere: Linux laptops, Fedora 40.", "", "", "", "", 0)
    assert leaf_terms(twice)[normalize("linux")] == 1
    assert leaf_terms(said)[normalize("linux")] == 2


def test_a_kinds_line_without_its_tab_is_refused(builder, tmp_path):
    (tmp_path / "kinds.tsv").write_text("fedora linux distro\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="kinds.tsv:1"):
        builder.read_kinds(tmp_path / "kinds.tsv")
    (tmp_path / "kinds.tsv").write_text("fedora\tlinux distro\nfedora\tos\n", encoding="utf-8")
    assert builder.read_kinds(tmp_path / "kinds.tsv") == {"fedora": ("linux", "distro")}
