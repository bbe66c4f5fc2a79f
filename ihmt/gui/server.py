"""The local web GUI's HTTP server: standard library only, loopback only, token-guarded.

Threat model: any web page the user visits can send requests to 127.0.0.1. So every /api/*
call needs the random token from the start-up URL (compared in constant time), the Host header
must name this server (defeats DNS rebinding), a foreign Origin or a cross-site fetch is
refused, no CORS header is ever sent, and the Content-Security-Policy keeps the page itself
from loading or sending anything elsewhere. Static files come from a fixed allow-list of names
inside ihmt/gui/static, never from a path built out of the URL.
"""

from __future__ import annotations

import argparse
import errno
import hmac
import json
import logging
import secrets
import signal
import sys
import threading
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import NoReturn
from urllib.parse import parse_qs

from .. import re_cache
from ..errors import IHMTError
from .api import GuiApp
from .options import DEFAULT_PORT, add_gui_options

log = logging.getLogger("ihmt.gui")

HOST = "127.0.0.1"
MAX_BODY = 64 * 1024
MAX_TOKEN_CHARS = 256
SWITCH_INTERVAL = 0.001  # seconds the interpreter lets one thread run; see GuiServer
STATIC_DIR = Path(__file__).resolve().parent / "static"
STATIC_NAME = re_cache.compile(r"[A-Za-z0-9_-]{1,64}\.(html|css|js)")
CONTENT_TYPES = {
    "html": "text/html; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "js": "text/javascript; charset=utf-8",
}
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; "
    "object-src 'none'"
)
SECURITY_HEADERS = (
    ("Content-Security-Policy", CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
)


class GuiServer(ThreadingHTTPServer):
    """One GUI instance: the app state, the token, and the only Host/Origin values accepted."""

    daemon_threads = True

    def __init__(self, app: GuiApp, port: int = 0, token: str | None = None) -> None:
        # Each request is a thread. A thread that waits on the disk must win the interpreter back
        # from one busy listing a big folder, and by default that takes up to 5 ms each time it
        # comes back from the disk: a quick call doing a dozen file checks then waits 50 ms and
        # more. A 1 ms switch interval keeps such waits short; the GUI is interactive, so the
        # little throughput it costs does not matter.
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
        super().__init__((HOST, port), GuiHandler)
        self.app = app
        self.token = token or secrets.token_urlsafe(32)
        self.token_bytes = self.token.encode("ascii")
        self.port = int(self.server_address[1])
        self.allowed_hosts = {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}
        self.allowed_origins = {f"http://{host}" for host in self.allowed_hosts}

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/?token={self.token}"

    def token_ok(self, candidate: str | None) -> bool:
        """Constant-time comparison on bytes; anything malformed is simply a wrong token."""
        if not candidate or len(candidate) > MAX_TOKEN_CHARS:
            return False
        try:
            given = candidate.encode("ascii")
        except UnicodeEncodeError:
            return False
        return hmac.compare_digest(given, self.token_bytes)

    def handle_error(self, request, client_address) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        log.error("GUI request from %s failed", client_address, exc_info=True)


class GuiHandler(BaseHTTPRequestHandler):
    server: GuiServer
    server_version = "IHMT-GUI"
    sys_version = ""
    timeout = 30  # seconds; a stalled client cannot hold a thread forever

    # -- plumbing ---------------------------------------------------------------------------------
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
        log.debug("%s " + format, self.address_string(), *args)

    def _send(self, status: int, body: bytes, content_type: str, *, api: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store" if api else "no-cache")
        for name, value in SECURITY_HEADERS:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, payload: dict) -> None:
        body = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8")
        self._send(status, body, "application/json; charset=utf-8", api=True)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Errors, including the base class's own (bad request line, header too long), as JSON."""
        self.close_connection = True
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "Error"
        body = json.dumps({"error": message or phrase}).encode("utf-8")
        if not hasattr(self, "command") or self.command is None:
            self.command = "GET"
        self.send_response(code, phrase)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        for name, value in SECURITY_HEADERS:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD" and code >= 200 and code not in (204, 304):
            self.wfile.write(body)

    # -- methods ----------------------------------------------------------------------------------
    def do_GET(self) -> None:
        self._route("GET")

    def do_HEAD(self) -> None:
        self._route("HEAD")

    def do_POST(self) -> None:
        self._route("POST")

    def _refuse_method(self) -> None:
        self.send_error(405, "method not allowed")

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse_method

    # -- routing ----------------------------------------------------------------------------------
    def _route(self, method: str) -> None:
        if not self._host_ok():
            self.send_error(403, "forbidden host")
            return
        origin = self.headers.get("Origin")
        if origin is not None and origin not in self.server.allowed_origins:
            self.send_error(403, "forbidden origin")
            return
        raw = self.path
        if not raw.startswith("/") or raw.startswith("//"):
            self.send_error(404)
            return
        path, _, query = raw.split("#", 1)[0].partition("?")
        if path.startswith("/api/"):
            self._api(method, path, query)
        elif method == "POST":
            self.send_error(405, "method not allowed")
        else:
            self._static(path)

    def _host_ok(self) -> bool:
        host = (self.headers.get("Host") or "").strip().lower()
        return host in self.server.allowed_hosts

    def _api(self, method: str, path: str, query: str) -> None:
        fetch_site = self.headers.get("Sec-Fetch-Site")
        if fetch_site is not None and fetch_site not in ("same-origin", "none"):
            self.send_error(403, "cross-site request refused")
            return
        try:
            params = parse_qs(query, keep_blank_values=True, max_num_fields=32)
        except ValueError:
            self.send_error(400, "too many query parameters")
            return
        args = {key: values[0] for key, values in params.items()}
        token = self.headers.get("X-IHMT-Token") or args.pop("token", None)
        args.pop("token", None)
        if not self.server.token_ok(token):
            self.send_error(403, "missing or wrong token")
            return
        body: dict = {}
        if method == "POST":
            parsed = self._read_json()
            if parsed is None:
                return
            body = parsed
        elif method == "HEAD":
            method = "GET"
        status, payload = self.server.app.dispatch(method, path, args, body)
        self._json(status, payload)

    def _read_json(self) -> dict | None:
        """The request body as a JSON object, or None after sending the error response."""
        if self.headers.get("Transfer-Encoding"):
            self.send_error(411, "send a Content-Length, not a chunked body")
            return None
        length_text = (self.headers.get("Content-Length") or "").strip()
        if not length_text.isdigit():
            self.send_error(411, "Content-Length required")
            return None
        length = int(length_text)
        if length > MAX_BODY:
            self.send_error(413, f"request body above {MAX_BODY} bytes")
            return None
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            self.send_error(415, "Content-Type must be application/json")
            return None
        raw = self.rfile.read(length)
        try:
            data = json.loads(raw.decode("utf-8")) if raw else None
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            data = None
        if not isinstance(data, dict):
            self.send_error(400, "the body must be a JSON object")
            return None
        return data

    def _static(self, path: str) -> None:
        name = "index.html" if path in ("/", "/index.html") else None
        if name is None and path.startswith("/static/"):
            candidate = path[len("/static/") :]
            if STATIC_NAME.fullmatch(candidate):
                name = candidate
        if name is None:
            self.send_error(404)
            return
        base = STATIC_DIR.resolve()
        file = (base / name).resolve()
        if file.parent != base or not file.is_file():
            self.send_error(404)
            return
        kind = name.rsplit(".", 1)[1]
        self._send(200, file.read_bytes(), CONTENT_TYPES[kind], api=False)


# -- starting and stopping -------------------------------------------------------------------------
def make_server(
    workspace=None, port: int = 0, browse_root=None, token: str | None = None
) -> GuiServer:
    """A bound, not yet serving, GUI server (tests run serve_forever in a thread)."""
    return GuiServer(GuiApp(workspace, browse_root), port=port, token=token)


def run_gui(path=None, port: int | None = None, open_browser: bool = True, browse_root=None) -> int:
    """Serve until Ctrl-C; returns the exit code (0, or 1 with a one-line message on stderr)."""
    if browse_root is not None and not Path(browse_root).expanduser().is_dir():
        print(f"ihmt gui: --browse-root {browse_root} is not a folder", file=sys.stderr)
        return 1
    try:
        app = GuiApp(path, browse_root)
    except IHMTError as exc:
        print(f"ihmt gui: {exc}", file=sys.stderr)
        return 1
    try:
        server = GuiServer(app, port=DEFAULT_PORT if port is None else port)
    except OSError as exc:
        if port is None and exc.errno == errno.EADDRINUSE:
            server = GuiServer(app, port=0)
        else:
            print(
                f"ihmt gui: cannot listen on {HOST}:{port}: {exc.strerror or exc}", file=sys.stderr
            )
            return 1
    print(f"IHMT GUI: {server.url}", flush=True)
    print(f"memory folder: {app.workspace}  (Ctrl-C to stop)", file=sys.stderr, flush=True)
    if threading.current_thread() is threading.main_thread():
        # Ctrl-C must stop the server even when started from a shell that ignores SIGINT
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, _interrupt)
    if open_browser:
        threading.Thread(target=_open_browser, args=(server.url,), daemon=True).start()
    try:
        server.serve_forever(poll_interval=0.25)
    except KeyboardInterrupt:
        print("IHMT GUI stopped.", file=sys.stderr, flush=True)
    finally:
        server.server_close()
        app.close()
    return 0


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _open_browser(url: str) -> None:
    try:
        webbrowser.open(url)
    except Exception as exc:  # no browser is not an error: the URL is printed
        log.info("could not open a browser: %s", exc)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gui.py",
        description="IHMT's local web interface: set up, explore, diagnose, timeline.",
    )
    parser.add_argument("--path", help="memory folder W (default: $IHMT_HOME, else ~/.ihmt)")
    add_gui_options(parser)  # the same definition `ihmt gui` uses
    return parser


def main(argv: list[str] | None = None) -> NoReturn:
    args = build_parser().parse_args(argv)
    raise SystemExit(
        run_gui(
            args.path, args.port, open_browser=not args.no_browser, browse_root=args.browse_root
        )
    )


if __name__ == "__main__":
    main()
