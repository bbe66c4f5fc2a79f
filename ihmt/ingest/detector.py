"""Decide what kind of document a text is, so ingest can pick a splitter and a domain.

The file extension settles source code; everything else is judged by lexical signatures in
English and Spanish, counted and normalised by length, each type behind its own thresholds.
Domains stay deliberately few ("personal", "narrative", "medicine.clinical", "general", ...):
a domain is a top-level branch of the memory tree, so it is never derived from a file name,
and a short note with one date in it is "general", not a journal. Detection is deterministic.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass

from ihmt.errors import InputError
from ihmt.ingest.chunkers.code import LANGUAGE_BY_EXTENSION
from ihmt.ingest.chunkers.narrative import is_scene_break
from ihmt.ingest.chunkers.temporal import entry_date

from .. import re_cache

__all__ = [
    "CODE_EXTENSIONS",
    "DATA_TYPES",
    "DEFAULT_DOMAINS",
    "Detection",
    "detect",
    "guess_code_language",
]

DATA_TYPES = ("CODE", "NARRATIVE", "CLINICAL", "PERSONAL", "PROCESS", "GENERIC")

DEFAULT_DOMAINS = {
    "CODE": "software",
    "NARRATIVE": "narrative",
    "CLINICAL": "medicine.clinical",
    "PERSONAL": "personal",
    "PROCESS": "process.runbook",
    "GENERIC": "general",
}

# one table of code extensions, owned by the code splitter
CODE_EXTENSIONS = LANGUAGE_BY_EXTENSION

# Only this much text is analysed: signatures are densities, a prefix is a fair sample.
_SAMPLE_CHARS = 200_000

_DOMAIN_RE = re_cache.compile(r"[a-z0-9][a-z0-9_-]*(?:\.[a-z0-9][a-z0-9_-]*)*")
_WORD_RE = re_cache.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


@dataclass
class Detection:
    data_type: str  # one of DATA_TYPES
    domain: str  # dotted, lower case: "software.python", "personal", "general", ...
    language: str | None  # programming language for CODE, else None


# --------------------------------------------------------------------------- vocabularies

_CLINICAL_WORDS = frozenset(
    """paciente pacientes diagnóstico diagnostico diagnósticos tratamiento tratamientos anamnesis
    exploración exploracion medicación medicacion dosis comprimido comprimidos síntomas sintomas
    antecedentes alergias consulta analítica analitica pauta posología posologia mmhg hba1c
    hipertensión hipertension diabetes glucosa colesterol fármaco fármacos receta prescripción
    prescrito prescrita cefalea fiebre auscultación auscultacion dolor crónico crónica
    patient patients diagnosis diagnoses treatment medication medications dose doses dosage
    tablet tablets symptoms symptom allergies prescribed prescription clinical clinic
    hypertension mg mcg ml mmol bpm auscultation prognosis comorbidities chronic fever
    """.split()
)
_CLINICAL_PHRASES = re_cache.compile(
    r"tensi[oó]n arterial|presi[oó]n arterial|frecuencia card[ií]aca|blood pressure|heart rate|"
    r"motivo de consulta|chief complaint|history of present illness|follow-up visit",
    re.IGNORECASE,
)
_CLINICAL_LABEL_RE = re_cache.compile(
    r"^[ \t]*(?:diagn[oó]stico|tratamiento|medicaci[oó]n|anamnesis|exploraci[oó]n|motivo"
    r"|antecedentes|alergias|diagnosis|treatment|medications?|assessment|allergies"
    r"|chief complaint|history)[ \t]*:",
    re.IGNORECASE | re.MULTILINE,
)

_COOKING_WORDS = frozenset(
    """ingredientes ingredients receta recipe horno oven precalienta precalentar preheat
    minutos minutes cucharada cucharadas cucharadita cucharaditas tbsp tsp tablespoon
    tablespoons teaspoon teaspoons taza tazas cup cups gramos grams sal pimienta aceite salt
    pepper oil harina flour azúcar azucar sugar huevos huevo eggs egg mantequilla butter sofríe
    sofreír sofrie hornea hornear bake baking stir remueve remover simmer hervir hierva hervir
    boil fuego arroz ajo garlic cebolla onion tomate tomato pollo chicken caldo broth stock
    mezcla mix whisk bate batir sartén sarten cazuela pan skillet saucepan servir sirve serve
    raciones porciones servings personas azafrán""".split()
)
_RUNBOOK_WORDS = frozenset(
    """runbook playbook procedure procedimiento protocol protocolo rollback deploy deploys
    deployment despliegue desplegar rollout prerequisites requisitos prerrequisitos verify
    verification verificación verificacion restart reiniciar reinicia kubectl systemctl sudo
    ssh docker helm terraform ansible incident incidente oncall on-call checklist backup
    restore migration migrations migración failover escalate escalation outage downtime
    maintenance mantenimiento cluster production producción staging""".split()
)
_PROCESS_HEADING_RE = re_cache.compile(
    r"^[ \t]*(?:#{1,6}[ \t]*)?[*_]{0,2}(?:ingredientes|ingredients|pasos|steps|preparaci[oó]n"
    r"|preparation|elaboraci[oó]n|method|instructions|instrucciones|procedure|procedimiento"
    r"|rollback|prerequisites|requisitos|prerrequisitos|verification|verificaci[oó]n"
    r"|directions|modo de preparaci[oó]n|runbook|protocolo|protocol)\b[^\n]{0,60}$",
    re.IGNORECASE | re.MULTILINE,
)
_NUMBERED_RE = re_cache.compile(r"^[ \t]{0,3}\d{1,2}[.)][ \t]+\S", re.MULTILINE)
_STEP_LINE_RE = re_cache.compile(
    r"^[ \t]*(?:step|paso)[ \t]+\d{1,2}\b", re.IGNORECASE | re.MULTILINE
)
_README_RE = re_cache.compile(
    r"^[ \t]*#{1,6}[ \t]*(?:installation|install|usage|getting started|license|licence"
    r"|contributing|features|api|configuration|requirements|overview|instalaci[oó]n|uso)\b",
    re.IGNORECASE | re.MULTILINE,
)

_FIRST_PERSON = frozenset(
    """yo me mi mis mío mía conmigo hoy ayer estoy estaba fui tengo soy
    i i'm i've i'd my me mine myself today yesterday""".split()
)
_DIARY_RE = re_cache.compile(r"querido diario|dear diary|mi diario|my diary", re.IGNORECASE)

_THIRD_PAST = frozenset(
    """él ella ellos ellas su sus era estaba había tenía fue dijo miró preguntó respondió
    contestó llegó pensó sabía parecía
    he she his her him they them was were had said asked replied looked thought knew
    seemed""".split()
)
_SAID_RE = re_cache.compile(
    r"\b(?:dijo|preguntó|respondió|contestó|murmuró|gritó|susurró|said|asked|replied|answered"
    r"|whispered|shouted|murmured)\b",
    re.IGNORECASE,
)
_DIALOGUE_LINE_RE = re_cache.compile(r"^[ \t]*(?:[—–][ \t]*[\w¿¡]|[“«][\w¿¡])", re.MULTILINE)
_CHAPTER_LINE_RE = re_cache.compile(
    r"^[ \t]*(?:#{1,6}[ \t]*)?(?:chapter|cap[ií]tulo)[ \t]+(?:\d{1,4}|[ivxlcdm]{1,8}|[a-záéíóúñ]{2,12})"
    r"[ \t]*(?:[.:\-–—][^\n]{0,80})?$|^[ \t]*(?:pr[oó]logo|ep[ií]logo|prologue|epilogue)[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_LIST_LINE_RE = re_cache.compile(r"^[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+\S", re.MULTILINE)
_CHAT_LINE_RE = re_cache.compile(
    r"^[ \t]*(?:\[[^\]\n]{1,40}\][ \t]*|[\d/.,:\- \t]{6,30}[-–][ \t]*)?"
    r"([A-ZÁÉÍÓÚÑ][\wáéíóúñ.'-]{0,20}(?:[ \t][A-ZÁÉÍÓÚÑ][\wáéíóúñ.'-]{0,20}){0,2}):[ \t]+\S",
    re.MULTILINE,
)

# Code recognised from content alone (no extension): language -> marker regex.
_CODE_MARKERS: dict[str, re.Pattern[str]] = {
    "python": re_cache.compile(
        r"^(?:def |class \w+[(:]|import \w|from [\w.]+ import |if __name__ ==|\s+self\.)", re.M
    ),
    "java": re_cache.compile(
        r"^(?:import java\.|package [\w.]+;|\s*public (?:class|interface) )", re.M
    ),
    "javascript": re_cache.compile(
        r"^(?:const \w+ = |let \w+ = |function \w+\(|module\.exports|export (?:default|function))",
        re.M,
    ),
    "typescript": re_cache.compile(r"^(?:interface \w+ \{|type \w+ = |export interface )", re.M),
    "c": re_cache.compile(r"^(?:#include [<\"]|int main\(|typedef struct)", re.M),
    "cpp": re_cache.compile(r"(?:std::|^#include <(?:iostream|vector|string)>|^template ?<)", re.M),
    "csharp": re_cache.compile(r"^(?:using System|namespace [\w.]+)", re.M),
    "go": re_cache.compile(r"^(?:package \w+$|func (?:\(\w+ \*?\w+\) )?\w+\(|import \()", re.M),
    "rust": re_cache.compile(r"^(?:fn \w+|pub fn |use std::|impl |let mut )", re.M),
    "kotlin": re_cache.compile(r"^(?:fun \w+\(|val \w+ = |data class )", re.M),
    "swift": re_cache.compile(
        r"^(?:import Foundation|import SwiftUI|func \w+\(|struct \w+: )", re.M
    ),
    "php": re_cache.compile(r"<\?php|^\s*\$\w+ = ", re.M),
}
_CODE_LINE_RE = re_cache.compile(r"[;{}():]\s*$|^\s*(?:#include|import |from |return\b|[})\]])")
_SHEBANG_RE = re_cache.compile(r"#!.*\b(python3?|node|php)\b")


# --------------------------------------------------------------------------- public API


def detect(
    text: str,
    filename: str | None = None,
    *,
    domain: str | None = None,
    data_type: str | None = None,
) -> Detection:
    """Type, domain and code language of ``text``; explicit ``domain``/``data_type`` win.

    Raises InputError for an unknown ``data_type`` or a malformed ``domain``.
    """
    if text is None:
        text = ""
    if not isinstance(text, str):
        raise InputError("text must be a string")
    forced_type = _check_type(data_type)
    forced_domain = _check_domain(domain)
    ext = _extension(filename)
    ext_language = CODE_EXTENSIONS.get(ext)
    sample = text[:_SAMPLE_CHARS]

    if forced_type is not None:
        kind = forced_type
        language = None
        if kind == "CODE":
            language = ext_language or guess_code_language(sample)
        dom = forced_domain or _domain_for(kind, language, sample)
        return Detection(kind, dom, language)

    if ext_language is not None:
        return Detection("CODE", forced_domain or f"software.{ext_language}", ext_language)

    if ext in ("", ".txt", ".text", ".log"):
        language = _code_by_content(sample)
        if language is not None:
            return Detection("CODE", forced_domain or f"software.{language}", language)

    kind, dom = _classify(sample)
    return Detection(kind, forced_domain or dom, None)


def guess_code_language(text: str) -> str | None:
    """The language whose signature lines appear most often (at least twice), or None."""
    m = _SHEBANG_RE.match(text)
    if m:
        return {"python": "python", "python3": "python", "node": "javascript"}.get(
            m.group(1), m.group(1)
        )
    scores = {lang: len(rx.findall(text)) for lang, rx in _CODE_MARKERS.items()}
    if scores["cpp"] and scores["c"]:
        scores["cpp"] += scores["c"]
    if scores["typescript"] and scores["javascript"]:
        scores["typescript"] += scores["javascript"]
    lang, best = max(scores.items(), key=lambda kv: (kv[1], -list(_CODE_MARKERS).index(kv[0])))
    return lang if best >= 2 else None


# --------------------------------------------------------------------------- internals


def _check_type(data_type: str | None) -> str | None:
    if data_type is None:
        return None
    if not isinstance(data_type, str) or data_type.strip().upper() not in DATA_TYPES:
        raise InputError(f"unknown data_type {data_type!r}; use one of {', '.join(DATA_TYPES)}")
    return data_type.strip().upper()


def _check_domain(domain: str | None) -> str | None:
    if domain is None:
        return None
    if not isinstance(domain, str):
        raise InputError("domain must be a string such as 'personal' or 'software.python'")
    d = domain.strip().lower()
    if not d:
        return None
    if not _DOMAIN_RE.fullmatch(d):
        raise InputError(f"invalid domain {domain!r}: use dotted lower-case words, e.g. 'general'")
    return d


def _extension(filename: str | None) -> str:
    if not filename or not isinstance(filename, str):
        return ""
    return os.path.splitext(os.path.basename(filename.replace("\\", "/")))[1].lower()


def _domain_for(kind: str, language: str | None, sample: str) -> str:
    if kind == "CODE":
        return f"software.{language}" if language else DEFAULT_DOMAINS["CODE"]
    if kind == "PROCESS":
        return _Signals(sample).process_domain()
    return DEFAULT_DOMAINS[kind]


def _code_by_content(sample: str) -> str | None:
    """A language when the text is clearly bare source code (most lines look like code)."""
    if _SHEBANG_RE.match(sample):
        return guess_code_language(sample)
    lines = [ln for ln in sample.splitlines()[:400] if ln.strip()]
    if len(lines) < 5:
        return None
    code_like = sum(1 for ln in lines if _CODE_LINE_RE.search(ln[:300]))
    if code_like < 0.6 * len(lines):
        return None
    return guess_code_language(sample)


class _Signals:
    """Signature counts of one text sample, computed once and shared by every rule."""

    def __init__(self, sample: str) -> None:
        self.text = sample
        self.words = [w.lower() for w in _WORD_RE.findall(sample)]
        self.n = max(1, len(self.words))
        self.counts = Counter(self.words)
        self.lines = sample.splitlines()
        self.nonblank = [ln for ln in self.lines if ln.strip()]

    def _hits(self, vocab: frozenset[str]) -> tuple[int, int]:
        """(total hits, distinct words hit) for a vocabulary."""
        found = [w for w in self.counts if w in vocab]
        return sum(self.counts[w] for w in found), len(found)

    # -- clinical ------------------------------------------------------------------------

    def is_clinical(self) -> bool:
        hits, distinct = self._hits(_CLINICAL_WORDS)
        phrases = len(_CLINICAL_PHRASES.findall(self.text))
        labels = len(_CLINICAL_LABEL_RE.findall(self.text))
        hits += phrases + labels
        density = hits / self.n
        if labels >= 3 and distinct + min(phrases, 2) >= 4:
            return True
        return distinct + min(phrases, 2) >= 5 and density >= 0.04

    # -- process -------------------------------------------------------------------------

    def _process_counts(self) -> tuple[int, int, int, int]:
        _, cook = self._hits(_COOKING_WORDS)
        _, run = self._hits(_RUNBOOK_WORDS)
        headings = len(_PROCESS_HEADING_RE.findall(self.text))
        steps = len(_NUMBERED_RE.findall(self.text)) + len(_STEP_LINE_RE.findall(self.text))
        return cook, run, headings, steps

    def is_process(self) -> bool:
        cook, run, headings, steps = self._process_counts()
        if not (steps >= 3 or headings >= 1):
            return False
        strong = headings >= 2 or bool(
            re.search(r"\b(?:runbook|playbook|receta|recipe)\b", self.text[:400], re.IGNORECASE)
        )
        if len(_README_RE.findall(self.text)) >= 2 and not strong:
            return False
        if headings >= 2 and steps >= 2:
            return True
        if cook >= 5 and (steps >= 3 or headings >= 1):
            return True
        return run >= 4 and steps >= 3 and (headings >= 1 or strong)

    def process_domain(self) -> str:
        cook, run, _, _ = self._process_counts()
        return "process.cooking" if cook > run else "process.runbook"

    # -- personal ------------------------------------------------------------------------

    def dated_starts(self) -> int:
        return sum(1 for ln in self.nonblank if ln[:1] != " " and entry_date(ln[:200]))

    def is_personal(self) -> bool:
        first, _ = self._hits(_FIRST_PERSON)
        density = first / self.n
        dated = self.dated_starts()
        if _DIARY_RE.search(self.text) and (dated >= 1 or density >= 0.03):
            return True
        if dated >= 2 and density >= 0.015 and self.n >= 25:
            return True
        return self.is_dated_chat(dated) and density >= 0.005

    def is_dated_chat(self, dated: int) -> bool:
        speakers = Counter(m.group(1) for m in _CHAT_LINE_RE.finditer(self.text))
        chat_lines = sum(speakers.values())
        if chat_lines < 3 or chat_lines < 0.4 * len(self.nonblank):
            return False
        top = speakers.most_common(2)
        if len(top) < 2 or top[1][1] < 2:
            return False
        return dated >= 1

    # -- narrative -----------------------------------------------------------------------

    def is_narrative(self) -> bool:
        if self.n < 120:
            return False
        list_frac = len(_LIST_LINE_RE.findall(self.text)) / max(1, len(self.nonblank))
        if list_frac > 0.25:
            return False
        chapters = len(_CHAPTER_LINE_RE.findall(self.text))
        breaks = sum(1 for ln in self.nonblank if len(ln) < 20 and is_scene_break(ln))
        dialogue = len(_DIALOGUE_LINE_RE.findall(self.text)) + len(_SAID_RE.findall(self.text))
        third, _ = self._hits(_THIRD_PAST)
        density = third / self.n
        if chapters >= 1 and (density >= 0.03 or dialogue >= 2):
            return True
        if dialogue >= 3 and density >= 0.04 and self.n >= 200:
            return True
        paragraphs = [p for p in re.split(r"\n[ \t]*\n", self.text) if p.strip()]
        avg = sum(len(p) for p in paragraphs) / max(1, len(paragraphs))
        return (breaks >= 1 or avg >= 400) and density >= 0.06 and self.n >= 300


def _classify(sample: str) -> tuple[str, str]:
    """Content-only decision, most specific type first."""
    if not sample.strip():
        return "GENERIC", DEFAULT_DOMAINS["GENERIC"]
    s = _Signals(sample)
    if s.is_clinical():
        return "CLINICAL", DEFAULT_DOMAINS["CLINICAL"]
    if s.is_process():
        return "PROCESS", s.process_domain()
    if s.is_personal():
        return "PERSONAL", DEFAULT_DOMAINS["PERSONAL"]
    if s.is_narrative():
        return "NARRATIVE", DEFAULT_DOMAINS["NARRATIVE"]
    return "GENERIC", DEFAULT_DOMAINS["GENERIC"]
