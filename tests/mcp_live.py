"""A real MCP client session against ``python mcp_server.py`` over stdio, for plain (sync)
tests: the server runs as a subprocess with an explicit environment, the SDK's ClientSession
talks to it from a blocking portal, and every request has a time limit."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STARTUP_LIMIT = 90  # seconds: importing the SDK alone takes several on a busy machine
CALL_LIMIT = 60


class Live:
    """A running server and its client session."""

    def __init__(self, portal, session, log: Path, cwd: Path) -> None:
        self.portal = portal
        self.session = session
        self.log = log
        self.cwd = cwd

    def request(self, name: str, args: dict | None = None) -> tuple[str, bool]:
        import anyio

        async def call():
            with anyio.fail_after(CALL_LIMIT):
                return await self.session.call_tool(name, args or {})

        result = self.portal.call(call).model_dump(by_alias=True)
        text = "\n".join(block.get("text", "") for block in result["content"])
        return text, bool(result.get("isError"))

    def ok(self, name: str, **args) -> str:
        text, failed = self.request(name, args)
        assert not failed, (
            f"{name} failed: {text}\nserver log:\n{self.log.read_text('utf-8')[-2000:]}"
        )
        return text

    def error(self, name: str, **args) -> str:
        text, failed = self.request(name, args)
        assert failed, f"{name} should have failed but answered: {text}"
        assert "\n" not in text.strip(), f"tool errors are one line: {text!r}"
        return text

    def list_tools(self) -> list[dict]:
        import anyio

        async def call():
            with anyio.fail_after(CALL_LIMIT):
                return await self.session.list_tools()

        return [
            t.model_dump(by_alias=True, exclude_none=True) for t in self.portal.call(call).tools
        ]


@contextlib.asynccontextmanager
async def _client(env: dict[str, str], cwd: Path, errlog):
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=[str(ROOT / "mcp_server.py")], env=env, cwd=str(cwd)
    )
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            with anyio.fail_after(STARTUP_LIMIT):
                await session.initialize()
            yield session


@contextlib.contextmanager
def live_server(home: Path, cwd: Path, projects: Path | None = None):
    """A server with IHMT_HOME=home (and IHMT_PROJECTS_DIR=projects) started in ``cwd``;
    its stderr goes to a log file next to ``home``."""
    pytest.importorskip("mcp")
    from anyio.from_thread import start_blocking_portal

    cwd.mkdir(parents=True, exist_ok=True)
    home.parent.mkdir(parents=True, exist_ok=True)
    env = {"IHMT_HOME": str(home), "HOME": str(home.parent), "PYTHONIOENCODING": "utf-8"}
    if projects is not None:
        env["IHMT_PROJECTS_DIR"] = str(projects)
    log = home.parent / f"server-{home.name}-{id(cwd)}.log"
    with open(log, "w", encoding="utf-8") as errlog, start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(_client(env, cwd, errlog)) as session:
            yield Live(portal, session, log, cwd)
