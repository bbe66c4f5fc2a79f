"""An acronym of the question that memories only spell out ("DRF" for "Django REST
Framework"): the memory found by the question's other words matches it too."""

from __future__ import annotations

import pytest

from ihmt.search.acronyms import (
    abbreviated_terms,
    acronyms_of,
    spelled_run,
    spells_out,
    told_otherwise,
    unknown_acronyms,
)
from tests.test_answers import FILLER, save_all


@pytest.mark.parametrize(
    ("text", "letters"),
    [
        ("Backend stack: Django 5.1 with Django REST Framework 3.16.", "drf"),
        ("a paper for the International Journal of Climatology, due in March", "ijoc"),
        ("a paper for the International Journal of Climatology, due in March", "ijc"),
        ("k6 against staging: 150 virtual users for 10 minutes", "vu"),
        ("we target 60 frames per second on low-end phones", "fps"),
        # a name written in humps is shortened to them: "CloudNativePG", "TensorRT"
        ("CloudNativePG operator 1.24 installed in the cnpg-system namespace", "cnpg"),
        ("conda env percep: Python 3.9, ultralytics, TensorRT 8.6", "trt"),
    ],
)
def test_a_run_of_words_spells_its_initials(text, letters):
    assert spells_out(text, letters)


@pytest.mark.parametrize(
    ("text", "letters"),
    [
        # function words spell nothing: "Its PLC" is no IP, "the config" no TC
        ("EB Ardoi has three pumps. Its PLC is an S7-1500 at 10.20.33.10.", "ip"),
        ("Welcome to the studio; the config lives in the repo.", "tc"),
        # a two-letter acronym needs two real words: "tc-cache" is a path, not "TC"
        ("the Library folder is cached in D:\\tc-cache on each agent", "tc"),
        # the initials must follow one another
        ("Django ships a REST layer; the Framework team", "dsf"),
        # the acronym itself is no spelled-out form, and two humps are a chance pair
        ("Set the URL in the config", "url"),
        ("the repo is on GitHub", "gh"),
    ],
)
def test_chance_initials_spell_nothing(text, letters):
    assert not spells_out(text, letters)


def test_only_acronyms_few_memories_hold_are_read():
    question = "which DRF version did we pick, and is IJoC or the CI ok?"
    assert unknown_acronyms(question, {"drf", "ijoc"}) == {"drf": "drf", "ijoc": "ijoc"}
    # "CI" is held by many memories: it is matched as a word, not spelled out
    assert "ci" not in unknown_acronyms(question, {"drf", "ijoc"})
    assert unknown_acronyms("how many VUs did the k6 run use?", {"vu"}) == {"vu": "vu"}
    assert unknown_acronyms("which version did we pick?", {"version"}) == {}


STACK = [
    (
        "2025-09-02",
        "Backend stack decided: Django 5.1 with Django REST Framework 3.16. Mariana picked 5.1 "
        "instead of 5.2 LTS for now.",
    ),
    ("2025-09-05", "Staging database is PostgreSQL 16.4, database name patasana_stg."),
]


def test_a_spelled_out_name_answers_its_acronym(memory):
    ids = save_all(
        memory,
        [
            *FILLER,
            *STACK,
            ("2025-09-08", "The Flutter app pins Riverpod 2.6 and go_router 14."),
        ],
    )
    result = memory.search("which DRF version did we pick?")
    assert not result.not_found
    assert result.best.leaf_id == ids[len(FILLER)]


def test_a_correction_of_another_product_s_version_leaves_the_asked_one_standing(memory):
    """Django's version was corrected later (with ``replaces``); the memory it corrected still
    gives the DRF version, and is not OUTDATED for that question."""
    ids = save_all(
        memory,
        [
            *FILLER,
            *STACK,
            ("2025-10-17", "DRF throttling: anonymous 30/min, authenticated 120/min."),
        ],
    )
    newer = memory.save(
        "Correction: patasana-api is now on Django 5.2.7 LTS (was 5.1); Mariana upgraded all "
        "environments.",
        timestamp="2025-10-20T10:00:00",
        replaces="Django version of the backend stack",
    ).leaf_ids[0]
    result = memory.search("which DRF version did we pick?")
    assert result.best.leaf_id == ids[len(FILLER)]
    assert not result.best.outdated
    # the Django version itself is the correction's
    assert memory.search("which Django version is patasana-api on?").best.leaf_id == newer


def test_a_spelled_out_acronym_scores_as_the_word_not_only_counts_as_covered(memory):
    """ "FCM" is in no memory; the one saying "Firebase Cloud Messaging" holds it as surely as
    if it wrote the acronym, and outranks the notes that only share "iOS" with the question."""
    ids = save_all(
        memory,
        [
            *FILLER,
            (
                "2026-02-01",
                "Release builds use fastlane: `fastlane ios beta` uploads to TestFlight.",
            ),
            ("2026-02-02", "Minimum iOS raised to 16.0 together with the React Native upgrade."),
            ("2026-02-03", "E2E flows run on both the iOS simulator and an Android emulator."),
            ("2026-02-04", "The iOS app icon set lives in ios/Remesa/Images.xcassets."),
            (
                "2026-02-05",
                "Push notifications go through Firebase Cloud Messaging on both platforms; the "
                "APNs auth key is uploaded in the Firebase console.",
            ),
        ],
    )
    result = memory.search("Do we use FCM for iOS pushes too?")
    assert not result.not_found
    assert result.best.leaf_id == ids[-1]


@pytest.mark.parametrize(
    ("text", "letters", "run"),
    [
        ("We pin TensorRT 8.6 in the percep env", "trt", "TensorRT"),
        ("Elena has Visual Studio 2022 on her box", "vs", "Visual Studio"),
        (
            "the International Journal of Climatology deadline",
            "ijoc",
            "International Journal of Climatology",
        ),
        ("Backend on Django REST Framework 3.16", "drf", "Django REST Framework"),
        ("nothing of the sort here", "trt", ""),
    ],
)
def test_the_run_spelling_an_acronym_is_found_whole(text, letters, run):
    assert spelled_run(text, letters) == run
    assert spells_out(text, letters) == bool(run)


def test_an_acronym_the_memory_writes_holds_the_words_it_shortens():
    held = abbreviated_terms(
        "Moodle Universal Cache Redis", "The MUC application cache uses a separate Redis"
    )
    assert {"moodl", "universal", "cach"} <= held
    # two capitals that happen to be initials are too short to count
    assert abbreviated_terms("Moodle Universal Cache", "MU students") == set()


def test_a_version_written_under_the_spelled_out_name_answers_the_acronym(memory):
    """ "TRT" is in no memory; "TensorRT 8.6" gives its version, so the question is answered,
    not NOT FOUND for lack of a version of "TRT"."""
    ids = save_all(
        memory,
        [
            *FILLER,
            ("2026-02-01", "The percep conda env has CUDA 12.1, cuDNN 8.9 and TensorRT 8.6.1."),
            ("2026-02-02", "The percep env is activated by `conda activate percep` on gpu-01."),
        ],
    )
    result = memory.search("what TRT version does the percep conda env have?")
    assert not result.not_found, result.reason
    assert result.best.leaf_id == ids[len(FILLER)]


@pytest.mark.parametrize(
    ("written", "text", "told"),
    [
        ("DPIA", "It is documented in the data protection impact assessment (EIPD).", True),
        ("AASA", "apple-app-site-association and assetlinks.json are served by the site", True),
        ("ASSNs", "App Store Server Notifications go to https://api.example.com/assn", True),
        ("IJoC", "a paper for the International Journal of Climatology; due in March", True),
        (
            "Journal of Chemical Theory and Computation",
            "Plazo para la revisión del paper en JCTC: 2026-01-20.",
            True,
        ),
        # another acronym, or words that only share an initial, name nothing
        ("GDPR", "Mask all but the last 4 hex chars (DSGVO).", False),
        ("DPIA", "The data team planned it in April.", False),
        ("Kibana", "Grafana dashboards live on mon-01.", False),
    ],
)
def test_a_name_told_in_another_form(written, text, told):
    assert told_otherwise(written, [text]) is told


def test_an_acronym_a_memory_spells_out_is_no_unknown_name(memory):
    """ "DPIA" is in no memory, but the memory the question's other words find spells it out:
    the question is answered, not NOT FOUND for naming something no memory mentions."""
    ids = save_all(
        memory,
        [
            *FILLER,
            (
                "2026-01-12",
                "Legal basis for the claims model: legitimate interest, with the fraud-prevention "
                "provisions. It is documented in the data protection impact assessment, owned "
                "by Beatriz.",
            ),
        ],
    )
    result = memory.search("what legal basis did we put in the DPIA?")
    assert not result.not_found, result.reason
    assert result.best.leaf_id == ids[len(FILLER)]
    unknown = memory.search("what legal basis did we put in the ROPA?")
    assert unknown.not_found and unknown.reason_code == "unknown_name"


def test_the_acronym_a_memory_writes_for_a_name_is_found():
    """ "RGI 7.0" gives the Randolph Glacier Inventory's version: the acronym is read as the
    name, so the version next to it is the named thing's."""
    text = "Glacier outlines for Patagonia come from RGI 7.0 (region 17, Southern Andes)."
    assert acronyms_of("Randolph Glacier Inventory", text) == {"rgi"}
    assert acronyms_of("Randolph Glacier Inventory", "Outlines from the GLIMS archive.") == set()
