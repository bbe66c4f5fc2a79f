"""Does a big folder listing delay the rest of the GUI? (``python3 benchmarks/gui_latency.py``)

A real GUI server runs as its own process (``gui.py``), as a user starts it. A folder with
20,000 subfolders is listed (1,000 entries a page, the most a page may hold) again and again
while a second client keeps asking ``/api/info``; each answer's time is compared with the same
call on an idle server. Issue 21's bound: a listing must not delay ``/api/info`` by more than
50 ms. Wall-clock figures, so the machine's load is printed beside them; nothing here is a test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from common import ROOT, machine, write_section

SECTION = "GUI responsiveness during a big folder listing (benchmarks/gui_latency.py)"
FOLDERS = 20_000
BOUND_MS = 50.0


def start_server(workspace: Path, home: Path) -> tuple[subprocess.Popen, str, str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "gui.py"),
            "--path",
            str(workspace),
            "--browse-root",
            str(home),
            "--port",
            "0",
            "--no-browser",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    for line in proc.stdout:
        if line.startswith("IHMT GUI: "):
            url = line.split(": ", 1)[1].strip()
            base, _, token = url.partition("/?token=")
            return proc, base, token
    raise SystemExit("the GUI server did not start: " + proc.stderr.read())


def timed_get(base: str, token: str, path: str) -> float:
    request = urllib.request.Request(base + path, headers={"X-IHMT-Token": token})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=30) as answer:
        answer.read()
    return (time.perf_counter() - started) * 1000


def info_times(base: str, token: str, stop: threading.Event, out: list[float]) -> None:
    while not stop.is_set():
        out.append(timed_get(base, token, "/api/info"))
        time.sleep(0.002)


def summary(values: list[float]) -> dict:
    ordered = sorted(values)
    return {
        "n": len(values),
        "median": statistics.median(ordered),
        "p95": ordered[int(0.95 * (len(ordered) - 1))],
        "max": ordered[-1],
    }


def run(listings: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        big = home / "big"
        big.mkdir(parents=True)
        for i in range(FOLDERS):
            (big / f"d{i:05d}").mkdir()
        workspace = home / "mem"
        subprocess.run(
            [sys.executable, str(ROOT / "main.py"), "--path", str(workspace), "init"],
            check=True,
            capture_output=True,
        )
        proc, base, token = start_server(workspace, home)
        try:
            for _ in range(20):  # warm up: imports, the store opened once
                timed_get(base, token, "/api/info")
            idle = [timed_get(base, token, "/api/info") for _ in range(300)]
            during: list[float] = []
            listing: list[float] = []
            stop = threading.Event()
            poller = threading.Thread(target=info_times, args=(base, token, stop, during))
            poller.start()
            try:
                for n in range(listings):
                    offset = (n * 1000) % FOLDERS
                    listing.append(
                        timed_get(
                            base, token, f"/api/fs/list?path={big}&offset={offset}&limit=1000"
                        )
                    )
            finally:
                stop.set()
                poller.join()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    return {"idle": summary(idle), "during": summary(during), "listing": summary(listing)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=int, default=60, help="listings to run (default 60)")
    parser.add_argument("--write", action="store_true", help="record in RESULTS.md")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    figures = run(args.listings)
    idle, during = figures["idle"], figures["during"]
    delay_p95 = during["p95"] - idle["median"]
    delay_max = during["max"] - idle["median"]
    rows = [
        "| measure | n | median ms | p95 ms | max ms |",
        "|---|---|---|---|---|",
    ]
    for label, key in (
        ("`/api/info`, idle server", "idle"),
        ("`/api/info` while folders are listed", "during"),
        (f"one page of 1,000 of {FOLDERS:,} folders", "listing"),
    ):
        f = figures[key]
        rows.append(f"| {label} | {f['n']} | {f['median']:.1f} | {f['p95']:.1f} | {f['max']:.1f} |")
    verdict = "within" if delay_max <= BOUND_MS else "over"
    body = "\n".join(
        [
            f"Machine: {machine()}; load average {load:.2f} when it started.",
            "",
            *rows,
            "",
            f"Delay of `/api/info` by the listing (against the idle median): p95 {delay_p95:.1f} ms,"
            f" worst {delay_max:.1f} ms — {verdict} the 50 ms bound of issue 21.",
        ]
    )
    print(body)
    if args.write:
        write_section(SECTION, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
