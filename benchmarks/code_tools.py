"""Project tools benchmark: find_code and project_map on real open-source projects.

    python3 benchmarks/code_tools.py [--cache DIR] [--no-write]

Fetches pinned releases nobody here wrote, with the registries' own clients: two pure-Python
sdists from PyPI (``pip download --no-deps --no-binary :all:``, source and tests as released)
and one npm package that ships its TypeScript sources (``npm pack``; its ``dist/`` is skipped
by the walk like any build folder). Each project is copied to a temporary folder and indexed
with a fresh ProjectIndex in another temporary folder.

The questions were written by hand, phrased the way a developer asks (some name a symbol,
most describe behaviour), and every answer (file + symbol) was checked by reading the code of
the pinned release. The ranking was not tuned to individual questions (its rules are general
and listed in ihmt/projects/ranking.py). Three measures:
- hit: one of the code blocks find_code returns is the answer symbol (same file and name);
- hit@1: the first code block is the answer;
- located: the answer symbol is anywhere in the returned text: a code block, or a
  `path:first-last  Name` line of an AMBIGUOUS or OTHER MATCHES list (the agent then reads
  those lines).

Token costs (estimate: 4 characters per token, as everywhere in IHMT):
- find_code: the text the tool returns (max_tokens=1500, scope main);
- whole files: reading the file that holds the answer, as an agent that cats files would;
- grep + read: `grep -rnw NAME` over the project's source files plus reading exactly the
  symbol's lines, i.e. an agent that already knows the symbol's name and greps well. This is
  the honest baseline: against it find_code often saves nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from common import machine, write_section

from ihmt.projects.index import ProjectIndex
from ihmt.projects.render import render_code_answer, render_map
from ihmt.text.tokens import estimate_tokens

SECTION = "Project tools (benchmarks/code_tools.py)"


@dataclass(frozen=True)
class Q:
    question: str
    path: str  # the file that holds the answer, relative to the project root
    symbol: str  # the answer symbol as the index names it (Class.method or function)
    also: tuple[str, ...] = ()  # other symbols that answer it equally well


@dataclass
class Project:
    name: str
    registry: str  # "pypi", "npm" or "debian"
    spec: str
    questions: list[Q]
    edit_file: str  # the file changed for the one-file-change sync
    held_out: bool = False  # questions written without seeing the ranking (see the JSON file)
    subdir: str = ""  # debian: the project's folder inside the package
    batch: int = 0  # which held-out batch (see "batches" in the JSON file)
    root: Path | None = None
    stats: dict = field(default_factory=dict)


REQUESTS = [
    Q(
        "when is the Authorization header dropped on a redirect",
        "src/requests/sessions.py",
        "SessionRedirectMixin.should_strip_auth",
    ),
    Q(
        "build the Basic auth header value from username and password",
        "src/requests/auth.py",
        "_basic_auth_str",
    ),
    Q(
        "digest auth: how the digest Authorization header is computed",
        "src/requests/auth.py",
        "HTTPDigestAuth.build_digest_header",
    ),
    Q(
        "proxies from environment variables for a URL",
        "src/requests/utils.py",
        "get_environ_proxies",
    ),
    Q("HTTPAdapter send with timeout and retries", "src/requests/adapters.py", "HTTPAdapter.send"),
    Q(
        "raise HTTPError for 4xx and 5xx status codes",
        "src/requests/models.py",
        "Response.raise_for_status",
    ),
    Q(
        "guess the response encoding with chardet",
        "src/requests/models.py",
        "Response.apparent_encoding",
    ),
    Q("stream the response body in chunks", "src/requests/models.py", "Response.iter_content"),
    Q("cookiejar_from_dict", "src/requests/cookies.py", "cookiejar_from_dict"),
    Q(
        "case-insensitive dict used for headers",
        "src/requests/structures.py",
        "CaseInsensitiveDict",
    ),
    Q(
        "encode files for a multipart/form-data upload",
        "src/requests/models.py",
        "RequestEncodingMixin._encode_files",
    ),
    Q(
        "change POST to GET after a 302 or 303 redirect",
        "src/requests/sessions.py",
        "SessionRedirectMixin.rebuild_method",
    ),
    Q(
        "charset from the Content-Type header",
        "src/requests/utils.py",
        "get_encoding_from_headers",
    ),
    Q("which adapter handles a URL prefix", "src/requests/sessions.py", "Session.get_adapter"),
    Q("length of a file-like body for Content-Length", "src/requests/utils.py", "super_len"),
]

CLICK = [
    Q(
        "run a command in tests and capture its output",
        "src/click/testing.py",
        "CliRunner.invoke",
    ),
    Q(
        "prompt the user for a value with a default and hidden input",
        "src/click/termui.py",
        "prompt",
    ),
    Q("ask a yes/no confirmation question", "src/click/termui.py", "confirm"),
    Q("progress bar for iterating over items", "src/click/termui.py", "progressbar"),
    Q(
        "read an option value from an environment variable with auto_envvar_prefix",
        "src/click/core.py",
        "Option.resolve_envvar_value",
    ),
    Q("apply ANSI colors and bold to a string", "src/click/termui.py", "style"),
    Q("make_context", "src/click/core.py", "BaseCommand.make_context"),
    Q(
        "generate the shell completion script source",
        "src/click/shell_completion.py",
        "ShellComplete.source",
    ),
    Q(
        "write a definition list in the help output",
        "src/click/formatting.py",
        "HelpFormatter.write_dl",
    ),
    Q(
        "clamp a number to an IntRange",
        "src/click/types.py",
        "IntRange._clamp",
        also=("_NumberRangeBase.convert",),
    ),
    Q("open a file lazily only when it is first used", "src/click/utils.py", "LazyFile"),
    Q("open the user's editor to edit text", "src/click/termui.py", "edit"),
    Q(
        "split a command line string like shlex but tolerate a missing closing quote",
        "src/click/parser.py",
        "split_arg_string",
    ),
    Q(
        "decorator that passes the current context to the callback",
        "src/click/decorators.py",
        "pass_context",
    ),
    Q(
        "echo a message to stdout or stderr, handling bytes and colors",
        "src/click/utils.py",
        "echo",
    ),
]

TRPC = [
    Q(
        "map a tRPC error code to an HTTP status code",
        "src/http/getHTTPStatusCode.ts",
        "getHTTPStatusCode",
    ),
    Q("TRPCError constructor with a cause", "src/error/TRPCError.ts", "TRPCError.constructor"),
    Q("createCallerFactory", "src/core/router.ts", "createCallerFactory"),
    Q("merge several routers into one", "src/core/internals/mergeRouters.ts", "mergeRouters"),
    Q(
        "handle a request with the fetch adapter",
        "src/adapters/fetch/fetchRequestHandler.ts",
        "fetchRequestHandler",
    ),
    Q(
        "apply the websocket server handler for subscriptions",
        "src/adapters/ws.ts",
        "applyWSSHandler",
    ),
    Q(
        "share operator for observables: one source for many subscribers",
        "src/observable/operators/share.ts",
        "share",
    ),
    Q(
        "validate procedure input with the parser middleware",
        "src/core/middleware.ts",
        "createInputMiddleware",
    ),
    Q(
        "build the error shape returned to clients",
        "src/shared/getErrorShape.ts",
        "getErrorShape",
    ),
    Q(
        "parse an incoming websocket JSON-RPC message",
        "src/rpc/parseTRPCMessage.ts",
        "parseTRPCMessage",
    ),
    Q(
        "turn an unknown thrown value into an Error cause",
        "src/shared/getCauseFromUnknown.ts",
        "getCauseFromUnknown",
    ),
    Q("express middleware adapter", "src/adapters/express.ts", "createExpressMiddleware"),
    Q(
        "read the procedure input from the query string or the request body",
        "src/http/contentType.ts",
        "getRawProcedureInputOrThrow",
    ),
    Q(
        "convert an observable to a promise",
        "src/observable/internals/observableToPromise.ts",
        "observableToPromise",
    ),
    Q(
        "node http request handler",
        "src/adapters/node-http/nodeHTTPRequestHandler.ts",
        "nodeHTTPRequestHandler",
    ),
]

PROJECTS = [
    Project("requests 2.32.3", "pypi", "requests==2.32.3", REQUESTS, "src/requests/sessions.py"),
    Project("click 8.1.7", "pypi", "click==8.1.7", CLICK, "src/click/termui.py"),
    Project(
        "@trpc/server 10.45.2 (TypeScript)",
        "npm",
        "@trpc/server@10.45.2",
        TRPC,
        "src/core/router.ts",
    ),
]

HELD_OUT_FILE = Path(__file__).with_name("code_questions_heldout.json")


def held_out_projects(path: Path = HELD_OUT_FILE) -> list[Project]:
    """The held-out set: questions written by a colleague who saw neither the ranking code
    nor find_code's answers, on projects the ranking was never tried on."""
    data = json.loads(path.read_text("utf-8"))
    return [
        Project(
            name=p["name"],
            registry=p["registry"],
            spec=p["spec"],
            questions=[
                Q(q["question"], q["path"], q["symbol"], tuple(q.get("also", ())))
                for q in p["questions"]
            ],
            edit_file=p["edit_file"],
            held_out=True,
            subdir=p.get("subdir", ""),
            batch=int(p.get("batch", 1)),
        )
        for p in data["projects"]
    ]


def held_out_batches(path: Path = HELD_OUT_FILE) -> dict[int, str]:
    """Batch number -> how and when its questions were written (the JSON file's "batches")."""
    data = json.loads(path.read_text("utf-8"))
    return {int(k): v for k, v in data.get("batches", {}).items()}


# -- fetching --------------------------------------------------------------------------------


def _extract(archive: Path, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        try:
            tar.extractall(dest, filter="data")
        except TypeError:  # Python without extraction filters
            tar.extractall(dest)  # noqa: S202 - a pinned release from the registry
    tops = [p for p in dest.iterdir() if p.is_dir()]
    return tops[0]


def fetch(project: Project, cache: Path) -> Path:
    """The project's released source tree (downloaded once into ``cache``)."""
    target = cache / re.sub(r"[^\w.-]+", "_", project.spec)
    if project.registry == "debian":
        return _fetch_debian(project, target, cache / "downloads")
    if target.is_dir() and any(target.iterdir()):
        return next(p for p in target.iterdir() if p.is_dir())
    downloads = cache / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    if project.registry == "pypi":
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--no-binary",
            ":all:",
            project.spec,
            "-d",
            str(downloads),
        ]
        name = project.spec.split("==")[0]
        pattern = f"{name}-{project.spec.split('==')[1]}.tar.gz"
    else:
        cmd = ["npm", "pack", "--silent", project.spec, "--pack-destination", str(downloads)]
        pkg, version = project.spec.rsplit("@", 1)
        pattern = f"{pkg.lstrip('@').replace('/', '-')}-{version}.tgz"
    subprocess.run(cmd, check=True, capture_output=True, timeout=600)
    # pip writes the sdist under the name the index uses ("markdown-3.7.tar.gz" for the spec
    # "Markdown==3.7"): match without regard to case
    found = [p for p in downloads.iterdir() if p.name.lower() == pattern.lower()]
    if not found:
        raise OSError(f"the download left no {pattern} in {downloads}")
    return _extract(found[0], target)


def _fetch_debian(project: Project, target: Path, downloads: Path) -> Path:
    """A Debian source package's files (Go libraries ship their sources under
    /usr/share/gocode): ``apt-get download`` then ``dpkg-deb -x``, no installation."""
    root = target / "pkg" / project.subdir
    if root.is_dir():
        return root
    downloads.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["apt-get", "download", project.spec],
        cwd=downloads,
        check=True,
        capture_output=True,
        timeout=600,
    )
    debs = sorted(downloads.glob(f"{project.spec}_*.deb"))
    if not debs:
        raise OSError(f"apt-get download left no {project.spec}_*.deb")
    (target / "pkg").mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["dpkg-deb", "-x", str(debs[-1]), str(target / "pkg")],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return root


# -- measuring -------------------------------------------------------------------------------


def grep_cost(root: Path, files: list[str], symbol: str) -> int:
    """Tokens of `grep -rnw NAME` over the project's source files (NAME = the symbol's last
    part, as an agent would type it)."""
    name = symbol.rpartition(".")[2]
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    out = []
    for rel in files:
        text = (root / rel).read_text("utf-8", errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            if word.search(line):
                out.append(f"{rel}:{n}:{line}")
    return estimate_tokens("\n".join(out))


def symbol_range(index: ProjectIndex, rel: str, symbol: str) -> tuple[int, int]:
    manifest, _ = index._current_manifest()
    for sym in manifest.files[rel].symbols:
        if sym["name"] == symbol:
            return sym["start_line"], sym["end_line"]
    raise SystemExit(f"benchmark error: {symbol} is not a symbol of {rel}")


def run_project(project: Project, work: Path) -> list[dict]:
    root = work / "src" / project.root.name
    shutil.copytree(project.root, root)
    store = work / "store"
    index = ProjectIndex(root, store)
    started = time.perf_counter()
    first = index.sync()
    first_s = time.perf_counter() - started
    warm = [index.sync().seconds for _ in range(5)]
    cold = []
    for _ in range(3):
        fresh = ProjectIndex(root, store)
        cold.append(fresh.sync().seconds)
        fresh.close()
    edit = root / project.edit_file
    original = edit.read_text("utf-8")
    comment = "#" if edit.suffix == ".py" else "//"
    edit.write_text(original + f"\n{comment} benchmark edit\n", encoding="utf-8")
    changed = index.sync()
    edit.write_text(original, encoding="utf-8")
    index.sync()

    manifest, _ = index._current_manifest()
    files = sorted(manifest.files)
    total_tokens = sum(e.tokens for e in manifest.files.values())
    map_files = estimate_tokens(render_map(index.project_map("files")))
    map_symbols = estimate_tokens(render_map(index.project_map("symbols")))

    rows = []
    for q in project.questions:
        wanted = {q.symbol, *q.also}
        t0 = time.perf_counter()
        answer = index.find_code(q.question)
        latency = time.perf_counter() - t0
        text = render_code_answer(answer)
        blocks = [(s.path, s.title) for s in answer.snippets]
        hit = any(path == q.path and title in wanted for path, title in blocks)
        hit1 = (
            answer.status == "FOUND"
            and bool(blocks)
            and blocks[0][0] == q.path
            and blocks[0][1] in wanted
        )
        listed = [(s.path, s.title) for s in answer.others]
        located = hit or any(path == q.path and title in wanted for path, title in listed)
        start, end = symbol_range(index, q.path, q.symbol)
        lines = (root / q.path).read_text("utf-8").splitlines(True)[start - 1 : end]
        grep_tokens = grep_cost(root, files, q.symbol)
        rows.append(
            {
                "question": q.question,
                "answer": f"{q.path}:{start}-{end} {q.symbol}",
                "status": answer.status,
                "hit": hit,
                "hit1": hit1,
                "located": located,
                "tokens": estimate_tokens(text),
                "file_tokens": estimate_tokens((root / q.path).read_text("utf-8")),
                "grep_tokens": grep_tokens + estimate_tokens("".join(lines)),
                "latency": latency,
                "got": blocks[0] if blocks else (answer.status, ""),
            }
        )
    index.close()
    project.stats = {
        "files": len(files),
        "leaves": first.leaves_written,
        "total_tokens": total_tokens,
        "map_files": map_files,
        "map_symbols": map_symbols,
        "first_sync": first_s,
        "warm_sync": statistics.median(warm),
        "cold_sync": statistics.median(cold),
        "change_sync": changed.seconds,
        "change_files": changed.reingested,
        "change_reads": changed.read_files,
    }
    return rows


# -- report ----------------------------------------------------------------------------------


def summarize(project: Project, rows: list[dict]) -> dict:
    n = len(rows)
    return {
        "n": n,
        "hit": sum(r["hit"] for r in rows),
        "hit1": sum(r["hit1"] for r in rows),
        "located": sum(r["located"] for r in rows),
        "ambiguous": sum(r["status"] == "AMBIGUOUS" for r in rows),
        "not_found": sum(r["status"] == "NOT_FOUND" for r in rows),
        "tokens": sum(r["tokens"] for r in rows) / n,
        "file_tokens": sum(r["file_tokens"] for r in rows) / n,
        "grep_tokens": sum(r["grep_tokens"] for r in rows) / n,
        "latency": statistics.median(r["latency"] for r in rows),
    }


def _rates(rows: list[dict]) -> str:
    n = len(rows)
    hit, hit1 = sum(r["hit"] for r in rows), sum(r["hit1"] for r in rows)
    located = sum(r["located"] for r in rows)
    tied = sum(r["hit"] and r["status"] == "AMBIGUOUS" for r in rows)
    among = f", {tied} of them shown among the symbols of an AMBIGUOUS tie" if tied else ""
    return (
        f"hit rate {hit / n:.0%} ({hit}/{n}{among}), hit@1 {hit1 / n:.0%}, "
        f"located {located / n:.0%} ({located}/{n})"
    )


def render(results: list[tuple[Project, list[dict], dict]], seconds: float) -> str:
    out = [
        f"Machine: {machine()}. Run time {seconds:.0f} s. Pinned releases fetched with pip "
        "and npm; questions and verified answers are in the script and in code_questions_heldout.json. find_code ran with its "
        "defaults (scope main, max_tokens 1500).",
        "",
        "| project | files | tokens (read all) | map: files / symbols | first sync | "
        "no-change sync (warm / new process) | one-file change | questions | hit | hit@1 | "
        "located | AMBIGUOUS / NOT FOUND | find_code tokens (mean) | answer files read whole "
        "(mean) | grep -rnw + read lines (mean) | find_code latency (median) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for project, _rows, s in results:
        st = project.stats
        label = project.name + (f" — held out ({project.batch})" if project.held_out else "")
        out.append(
            f"| {label} | {st['files']} | {st['total_tokens']:,} | "
            f"{st['map_files']:,} / {st['map_symbols']:,} | {st['first_sync']:.1f} s "
            f"({st['leaves']:,} leaves) | {st['warm_sync'] * 1000:.0f} ms / "
            f"{st['cold_sync'] * 1000:.0f} ms | {st['change_sync']:.2f} s "
            f"({st['change_files']} file re-ingested, {st['change_reads']} read) | {s['n']} | "
            f"{s['hit']}/{s['n']} | {s['hit1']}/{s['n']} | {s['located']}/{s['n']} | "
            f"{s['ambiguous']} / {s['not_found']} | "
            f"{s['tokens']:.0f} | {s['file_tokens']:,.0f} | {s['grep_tokens']:.0f} | "
            f"{s['latency'] * 1000:.0f} ms |"
        )
    every = [r for _, rows, _ in results for r in rows]
    n = len(every)
    tok = sum(r["tokens"] for r in every) / n
    whole = sum(r["file_tokens"] for r in every) / n
    grep = sum(r["grep_tokens"] for r in every) / n
    map_share = [p.stats["map_files"] / p.stats["total_tokens"] for p, _, _ in results]
    grep_cheaper = sum(r["grep_tokens"] < r["tokens"] for r in every)
    med_tok = statistics.median(r["tokens"] for r in every)
    med_grep = statistics.median(r["grep_tokens"] for r in every)
    sets = [
        (
            "Development set (questions in this script; the ranking was improved while "
            "looking at its misses)",
            [r for p, rows, _ in results if not p.held_out for r in rows],
        )
    ]
    for batch, about in sorted(held_out_batches().items()):
        rows = [r for p, rows, _ in results if p.held_out and p.batch == batch for r in rows]
        sets.append((f"Held-out batch {batch} ({about})", rows))
    out.append("")
    for label, rows in sets:
        if rows:
            out.append(f"- {label}: {_rates(rows)}.")
    out += [
        f"- All questions: {_rates(every)}.",
        "",
        "A find_code answer costs "
        f"{tok:.0f} tokens on average, {tok / whole:.0%} of reading "
        f"the file that holds the answer ({whole:,.0f} tokens). The file map costs "
        f"{min(map_share):.1%}–{max(map_share):.1%} of reading the whole project.",
        "",
        f"Where these tools do not save: an agent that already knows the symbol's name and "
        f"greps well (grep -rnw NAME, then reads just those lines) spends {grep:.0f} tokens on "
        f"average (median {med_grep:.0f}) against find_code's {tok:.0f} (median {med_tok:.0f}), "
        f"and less than find_code on {grep_cheaper} of {n} questions; its average is pulled up "
        "by names that are called everywhere (echo, invoke). find_code pays off when the name "
        "is not known (a question about behaviour), or "
        "against reading whole files; it also returns neighbouring matches that may not be "
        "wanted (up to max_tokens). The seed's A/B sessions found that Claude Code prefers "
        "grep/sed and rarely calls these tools unprompted: they are optional.",
        "",
        "Sync: the no-change sync only stats files (0 files read); a one-file change re-reads "
        "and re-ingests that file alone and refreshes the branches on its path. The first sync "
        "is dominated by the core's per-leaf work (one leaf file per symbol written "
        "atomically, tokenizing each leaf, heuristic branch summaries).",
    ]
    misses = [
        f"- {project.name}: “{r['question']}” → expected {r['answer']}; got "
        f"{r['got'][0]} {r['got'][1]} ({r['status']})"
        for project, rows, _ in results
        for r in rows
        if not r["hit"]
    ]
    if misses:
        missed = [r for r in every if not r["hit"]]
        ambiguous = sum(r["status"] == "AMBIGUOUS" for r in missed)
        same_file = sum(
            r["status"] == "FOUND" and r["got"][0] == r["answer"].partition(":")[0] for r in missed
        )
        listed = sum(r["located"] for r in missed)
        out += [
            "",
            f"Misses: {len(missed)} — {ambiguous} answered AMBIGUOUS, {same_file} showed "
            "another symbol of the right file first and left the answer out, "
            f"{len(missed) - ambiguous - same_file} showed code from other files; "
            f"{listed} of them still listed the answer's location (OTHER MATCHES or the "
            "AMBIGUOUS candidates).",
            *misses,
        ]
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", help="keep the downloaded releases here (default: temporary)")
    parser.add_argument("--no-write", action="store_true", help="do not update RESULTS.md")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ihmt-code-tools-") as tmp:
        cache = Path(args.cache) if args.cache else Path(tmp) / "cache"
        results = []
        for i, project in enumerate(PROJECTS + held_out_projects()):
            try:
                project.root = fetch(project, cache)
            except (OSError, subprocess.SubprocessError) as exc:
                print(f"skipping {project.name}: cannot fetch it ({exc})", file=sys.stderr)
                continue
            rows = run_project(project, Path(tmp) / f"work{i}")
            summary = summarize(project, rows)
            results.append((project, rows, summary))
            print(f"\n{project.name}: {project.stats}")
            for r in rows:
                mark = "HIT " if r["hit"] else "miss"
                print(
                    f"  {mark} {r['status']:9} {r['tokens']:5} tok (file {r['file_tokens']:5}, "
                    f"grep {r['grep_tokens']:5})  {r['question']}  -> {r['got'][0]} {r['got'][1]}"
                )
        if not results:
            print("no project could be fetched", file=sys.stderr)
            return 1
        body = render(results, time.perf_counter() - started)
    print("\n" + body)
    if not args.no_write:
        write_section(SECTION, body)
        print(f"\nwrote the section to {Path(__file__).with_name('RESULTS.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
