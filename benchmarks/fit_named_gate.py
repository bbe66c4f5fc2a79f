"""Fit the learned gate for prompts that name someone or something (ihmt/loop/named_gate.py) on
LoCoMo conversations replayed through the hooks and on the coding-agent sessions of
benchmarks/hook_sessions/, and say what it is worth on conversations and sets left out.

``python3 benchmarks/fit_named_gate.py record [--conversations conv-26,...] [--set NAME ...]
[--semantic] --save rows.json`` captures each LoCoMo conversation (the tuning two and the five
that are neither tuning nor held out, by default) and each session set through the hooks,
sends every question and prompt with the gate turning all away (so a prompt's closing
question is searched too, whatever trees are shipped), and records, each time a named prompt
reaches the gate, its input and whether the block it would show holds the answer: for LoCoMo,
an evidence turn or the answer of a question with evidence (its adversarial, category-5
questions and the coding prompts are rows to turn away); for the session sets, a recall
prompt's answer (never-said questions and unrelated requests are rows to turn away).

``python3 benchmarks/fit_named_gate.py fit --lexical rows.json --semantic rows-sem.json
[--write]`` fits one forest per mode (scikit-learn's HistGradientBoostingClassifier, fixed
seed), reports with each conversation (and each sixth of the session sets) left out in turn
what each threshold passes, and what the shipped band passes (the floors overruled only when
the forest is clear), and with ``--write`` writes the forests fitted on all rows to ihmt/loop/named_gate_trees.py.
LoCoMo's held-out conversations (conv-41, conv-42, conv-43) and the latest blind batch of
sessions are never recorded by default: benchmarks/hooks.py --held-out and
hook_sessions.py measure the shipped gate on them.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

from forests import add_fit_command, fit_rows, fitted_modes, write_forests
from hook_sessions import HERE, captured_store, shows
from hooks import (
    CODING_PROMPTS,
    fixed_project,
    holds_evidence,
    sessions_of,
    transcript_lines,
    turn_text,
)
from locomo import DATA, evidence_ids

from ihmt.loop import named_gate
from ihmt.text.clean import one_line

DEPTH = 3
ROUNDS = 200
RATE = 0.05
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7)
OUTPUT = Path(__file__).resolve().parent.parent / "ihmt" / "loop" / "named_gate_trees.py"
# LoCoMo conversations to fit on: neither hooks.py's held-out three nor the adversarial
# questions of those are ever seen by the fit
FIT_CONVERSATIONS = ("conv-26", "conv-30", "conv-44", "conv-47", "conv-48", "conv-49", "conv-50")
# session batches kept out of a fit to be measured on it (written blind, run at first sight)
BATCHES = {
    "hs21": ["brewlog", "wardroster", "tidegauge"],
    "hs22": ["ferryline", "barroverde", "ledgerly"],
    "hs23": ["tramlog", "panaderia", "choirbox"],
    "hs24": ["biblored", "vetagenda", "almerigrow"],
    "hs25": ["tidepool", "ledgerporto", "rutasbus"],
    "hs26": ["apiario", "pizarra", "gearloan"],
    "hs27": ["cineplaza", "racebib", "lotecampo"],
    "hs28": ["vetbook", "tallerbici", "ferrysplit"],
    "hs29": ["parceltrack", "telescopio", "quizmill"],
    "hs30": ["invoiceocr", "surfcast", "naranjas"],
    "hs31": ["dentalbook", "dronemap", "bodegaapp"],
    "hs32": ["knitmarket", "driverapp", "cuscotours"],
    "hs33": ["hivelog", "olivepress", "huertapp"],
    "hs34": ["kilnlog", "ferrybook", "tianguis"],
    "hs35": ["organtune", "lavanderia", "reefcount"],
    # written blind in the forty-eighth session: a Cape Town kombucha brewery's batch log
    # (SvelteKit, SQLite to PostgreSQL, Fly.io; English with Afrikaans words), a Buenos Aires
    # subway-alerts backend (Kotlin/Ktor, Redis, Google Cloud; all Rioplatense Spanish), a
    # Rotterdam container terminal's crane telemetry (Rust, MQTT, InfluxDB to TimescaleDB,
    # Kubernetes; a Polish developer writing English)
    "hs36": ["fermentlab", "subteapp", "yardcrane"],
    # written blind in the forty-ninth session: a Seoul freelancer's subtitle timing tool for
    # K-drama fan translators (Python, FFmpeg, Flask, Whisper alignment; English with Korean
    # words), an Oaxaca coffee cooperative's lot traceability app (Django, HTMX, PostgreSQL,
    # QR labels; all Mexican Spanish), a Scottish council's bin collection schedule API and SMS
    # reminders (Node.js/TypeScript, PostgreSQL, a contractor's SOAP feed, Azure; Scots English)
    "hs37": ["subtiming", "cafetrace", "binday"],
    # written blind in the fiftieth session: a Vienna developer's sheet-music annotation app
    # for orchestra musicians (Swift/SwiftUI on iPad, PencilKit, Firebase, a TypeScript sync
    # backend on Cloud Functions), a Bogota NGO's paramo water-sensor dashboard (R and Shiny,
    # PostGIS, Python reading LoRaWAN gateways; all Colombian Spanish), a Rotterdam developer's
    # forklift telemetry for port warehouses (C++ on STM32 with CAN bus, a Go MQTT backend,
    # ClickHouse, Grafana alerts)
    "hs38": ["scorepad", "paramo", "loadsafe"],
    # written blind in the fifty-first session: an Osaka developer's queue-ticket app for
    # ramen shops (React Native with Expo, Supabase with row-level security, LINE
    # notifications, a Next.js admin; English with Japanese words), a Valparaiso freelancer's
    # maintenance logbook for port cranes (Rust/Axum, SQLite on rugged Android tablets with
    # offline sync, PDF reports; all Chilean Spanish), a Toronto hospital research
    # programmer's MRI preprocessing pipeline (Nipype, FSL and ANTs, Snakemake on Slurm,
    # DICOM to BIDS and anonymization, a PI who keeps changing the QC thresholds)
    "hs39": ["ramenq", "grualog", "mriprep"],
    # written blind in the fifty-second session: a Seoul team's merchant payments backend
    # (Kotlin and Spring Boot, PostgreSQL, Redis, Kafka, KakaoPay and Toss integrations, EKS in
    # the AWS Seoul region; English with romanized Korean terms), a Cordoba (Argentina) city
    # bus real-time tracking app (FastAPI, PostGIS, GTFS-Realtime, a Flutter app, Docker
    # Compose on a Hetzner VPS; all Argentine Spanish), a Highlands research group's peat bog
    # water-table monitoring (embedded Rust on LoRaWAN sensors, The Things Network, InfluxDB
    # and Grafana, Python notebooks, a Raspberry Pi field gateway)
    "hs40": ["sejongpay", "cordobus", "peatwatch"],
    # written blind in the fifty-third session: a Hanoi logistics startup's delivery route
    # optimization (OR-Tools, Django, PostgreSQL, Redis job queues, a driver app's API, map
    # distance-matrix costs; English with Vietnamese terms), a Mendoza winery's fermentation-tank
    # monitoring (ESP32 firmware in C, MQTT, Node-RED replaced by a Go service, WhatsApp alerts;
    # all Argentine Spanish), a Zurich private bank's regulatory-reporting batch jobs (Java 17
    # and Spring Batch, Oracle to PostgreSQL, Airflow, change windows, four-eyes approvals)
    "hs41": ["hanoiroute", "tanquevino", "regbatch"],
    # written blind in the fifty-fourth session: a Bangalore edtech team's lecture-video
    # transcoding pipeline (FFmpeg, Go workers, S3, SQS replaced by Kafka, HLS packaging, a CDN
    # cache-invalidation job; English with Hindi and Kannada terms), a Rosario farmers'
    # cooperative's grain-silo sensor dashboard (Python reading Modbus temperature and humidity
    # cables, InfluxDB, Grafana replaced by a small Svelte app, Telegram alerts, a Raspberry Pi
    # at each plant; all Argentine Spanish), a Cambridge structural-biology lab's
    # protein-structure model training (PyTorch, Slurm, Weights & Biases, conda replaced by uv,
    # a shared 4xA100 node with a booking rule, PDB and AlphaFold DB downloads)
    "hs42": ["vidyacode", "silocoop", "foldlab"],
    # batch 43, blind from a one-line setting each: a Rust command-line tool turning bank
    # statements (CSV, OFX, PDF exports) into ledger entries for a Santiago de Chile accounting
    # firm (the user sometimes in Spanish), a Lisbon bike-share scheme's Android app (Kotlin,
    # Jetpack Compose, Bluetooth unlocking, payments, riders' crash reports), an ornithology
    # researcher's bird-song detection package (librosa, a small PyTorch model, pytest, GitHub
    # Actions, PyPI releases)
    "hs43": ["ofxchile", "bicilisboa", "birdsong"],
    # batch 44, blind from a one-line setting each: a Monterrey manufacturer's quality-inspection
    # camera pipeline (OpenCV, a YOLO model on Jetson devices, a FastAPI service, a line
    # supervisors' dashboard; the user writes in Mexican Spanish), an Edinburgh freelance
    # developer's Shopify app for a loose-leaf tea retailer (Remix, Prisma, Shopify webhooks,
    # subscription boxes, a fulfilment partner's API), a Santiago de Compostela university's
    # course-timetabling solver (a Java constraint solver, a Vue front end, nightly imports from
    # the student-records system, exam-period room clashes; mostly English, some Spanish)
    "hs44": ["inspecmty", "teashopify", "horariosusc"],
}


def set_names() -> list[str]:
    held = {name for names in BATCHES.values() for name in names}
    return sorted(p.parent.name for p in HERE.glob("*/sessions.json") if p.parent.name not in held)


class Spy:
    """Records what the named gate is asked while turning every block away."""

    def __init__(self) -> None:
        self.seen: list[tuple[list[float], list[str]]] = []

    def __enter__(self) -> Spy:
        self.features, self.probability = named_gate.features, named_gate.probability
        original = named_gate.features

        def spy(block, *args, **kwargs):
            x = original(block, *args, **kwargs)
            self.seen.append((x, [one_line(hit.content, 600) for hit in block]))
            return x

        named_gate.features = spy
        named_gate.probability = lambda x, semantic: 0.0
        return self

    def __exit__(self, *exc) -> None:
        named_gate.features, named_gate.probability = self.features, self.probability


def locomo_store(sample: dict, work: Path, semantic: bool):
    """(the opened store, the project folder) once every session of a LoCoMo conversation
    went through the capture hook at its end, as benchmarks/hooks.py replays it."""
    from ihmt import IHMT
    from ihmt.hooks.run import handle

    sid = sample["sample_id"]
    ws, cwd = work / sid, fixed_project(work / f"{sid}-project", sid)
    (IHMT.initialize(ws, semantic=True) if semantic else IHMT.initialize(ws)).close()
    for n, (when, turns) in enumerate(sessions_of(sample), 1):
        path = work / f"{sid}-s{n}.jsonl"
        path.write_text("\n".join(transcript_lines(f"{sid}-s{n}", when, turns, str(cwd))) + "\n")
        payload = {"session_id": f"{sid}-s{n}", "transcript_path": str(path), "cwd": str(cwd)}
        handle({**payload, "hook_event_name": "SessionEnd", "reason": "exit"}, str(ws), "claude")
    memory = IHMT.open(ws)
    if semantic:
        memory.semantic.sync()
    return memory, cwd


def record_locomo(sample: dict, work: Path, semantic: bool) -> list[dict]:
    from ihmt.vcs.project import project_of

    memory, cwd = locomo_store(sample, work, semantic)
    project = project_of(str(cwd))
    by_dia = {t["dia_id"]: turn_text(t) for _, turns in sessions_of(sample) for t in turns}
    prompts = [(qa["question"], qa) for qa in sample["qa"]]
    prompts += [(p, {"category": "coding"}) for p in CODING_PROMPTS]
    rows = []
    try:
        with Spy() as spy:
            for prompt, qa in prompts:
                spy.seen.clear()
                memory.prompt_recall(prompt, project, load_model=False)
                category = qa.get("category")
                gold = [] if category in (5, "coding") else evidence_ids(qa.get("evidence", []))
                if category not in (5, "coding") and not gold:
                    continue
                texts = [by_dia[g] for g in gold if g in by_dia]
                kind = "cat5" if category == 5 else "coding" if category == "coding" else "evidence"
                for x, shown in spy.seen:
                    hit = bool(gold) and holds_evidence(
                        "\n".join(shown), texts, str(qa.get("answer", ""))
                    )
                    rows.append(
                        {"corpus": sample["sample_id"], "kind": kind, "x": x, "y": int(hit)}
                    )
    finally:
        memory.close()
    return rows


def record_set(name: str, work: Path, semantic: bool) -> list[dict]:
    from ihmt.vcs.project import project_of

    data = json.loads((HERE / name / "sessions.json").read_text(encoding="utf-8"))
    memory, cwd = captured_store(data, name, work, semantic)
    rows = []
    try:
        with Spy() as spy:
            for item in data["prompts"]:
                spy.seen.clear()
                memory.prompt_recall(item["prompt"], project_of(str(cwd)), load_model=False)
                answer = item.get("answer") if item["kind"] == "recall" else None
                for x, shown in spy.seen:
                    hit = bool(answer) and any(shows(text, answer) for text in shown)
                    rows.append({"corpus": name, "kind": item["kind"], "x": x, "y": int(hit)})
    finally:
        memory.close()
    return rows


def record(conversations: list[str], names: list[str], semantic: bool) -> list[dict]:
    samples = [s for s in json.loads(DATA.read_text(encoding="utf-8"))]
    samples = [s for s in samples if s["sample_id"] in conversations]
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="ihmt-fit-named-") as tmp:
        for sample in samples:
            rows += record_locomo(sample, Path(tmp), semantic)
            print(f"{sample['sample_id']}: {len(rows)} rows", file=sys.stderr, flush=True)
        for name in names:
            rows += record_set(name, Path(tmp), semantic)
            print(f"{name}: {len(rows)} rows", file=sys.stderr, flush=True)
    return rows


def fit(rows: list[dict], rounds: int = ROUNDS):
    """(forest, base): the fitted trees as boosted.py nodes and the log-odds they add to."""
    return fit_rows(rows, DEPTH, rounds, RATE)


def left_out(rows: list[dict], label: str, rounds: int = ROUNDS) -> None:
    """For each threshold, what the gate fitted without a LoCoMo conversation (or a fold of
    session sets) passes there, summed: blocks holding the answer, adversarial questions,
    never-said questions and unrelated prompts given a block; the fixed floors alongside."""
    from ihmt import boosted

    names = sorted({r["corpus"] for r in rows})
    fold = {
        name: name if name.startswith("conv-") else f"sets-{i % 6}" for i, name in enumerate(names)
    }
    scored: list[tuple[dict, float]] = []
    for group in sorted(set(fold.values())):
        held = [r for r in rows if fold[r["corpus"]] == group]
        forest, base = fit([r for r in rows if fold[r["corpus"]] != group], rounds)
        trees = boosted.forest(forest)
        for r in held:
            raw = base + boosted.tree_score(trees, r["x"])
            scored.append((r, 1.0 / (1.0 + math.exp(-raw))))
    rule = named_gate.FEATURES.index("rule")
    plans = [("fixed floors", lambda r, p: r["x"][rule] > 0)]
    plans += [(f"trees at {t}", lambda r, p, t=t: p >= t) for t in THRESHOLDS]
    plans += [
        (
            f"floors overruled under {named_gate.REFUSE_UNDER} and from {named_gate.SHOW_AT}",
            lambda r, p: named_gate.shows(r["x"][rule] > 0, p),
        )
    ]

    def count(passed: list[dict], kind: str, source: str, answered: bool = False) -> int:
        return sum(
            1
            for r in passed
            if r["kind"] == kind
            and r["corpus"].startswith("conv-") == (source == "locomo")
            and (r["y"] or not answered)
        )

    for plan, passes in plans:
        passed = [r for r, p in scored if passes(r, p)]
        print(
            f"{label} {plan}: LoCoMo evidence {count(passed, 'evidence', 'locomo', True)}, "
            f"adversarial {count(passed, 'cat5', 'locomo')}, coding {count(passed, 'coding', 'locomo')}; "
            f"sessions answer {count(passed, 'recall', 'sets', True)}, never-said "
            f"{count(passed, 'never_said', 'sets')}, unrelated {count(passed, 'unrelated', 'sets')}"
        )


def write_module(lexical, semantic) -> None:
    write_forests(OUTPUT, "named_gate.py", "benchmarks/fit_named_gate.py", lexical, semantic)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    recording = sub.add_parser("record", help="record the gate's rows")
    recording.add_argument("--conversations", default=",".join(FIT_CONVERSATIONS))
    recording.add_argument("--set", action="append", choices=set_names(), default=[])
    recording.add_argument("--no-sets", action="store_true", help="LoCoMo only")
    recording.add_argument("--semantic", action="store_true")
    recording.add_argument("--save", required=True)
    sets = {name: [name] for name in set_names()}
    sets.update({c: [c] for c in FIT_CONVERSATIONS})
    add_fit_command(sub, sets, ROUNDS, "ihmt/loop/named_gate_trees.py")
    args = parser.parse_args(argv)
    if args.command == "record":
        conversations = [c.strip() for c in args.conversations.split(",") if c.strip()]
        names = [] if args.no_sets else args.set or set_names()
        rows = record(conversations, names, args.semantic)
        Path(args.save).write_text(json.dumps(rows), encoding="utf-8")
        print(f"{len(rows)} rows -> {args.save}")
        return 0
    fitted = fitted_modes(args, sets, left_out, fit)
    if args.write:
        write_module(*fitted)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
